/* MPIX_Comm_agree / MPIX_Comm_iagree: the bitwise AND of every rank's flag, ordered among
 * agreements but not against other collectives: one rank may start an agreement before a barrier
 * that the others enter first (mpi4py's test_ulfm testIAgree does exactly that). Also several
 * agreements outstanding beside nonblocking collectives, on a duplicate, and bad arguments. */
#include "mpitest.h"
#include "mpix.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* blocking: AND of 0b1011 (rank 0) and 0b1101 (the others) */
    int flag = rank == 0 ? 0xb : 0xd;
    CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
    CHECK(flag == (size == 1 ? 0xb : 0x9), "agree gave 0x%x", flag);

    /* each rank in turn agrees before a barrier the others enter first */
    for (int root = 0; root < size; ++root) {
        MPI_Request req;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == root) {
            flag = 0xb;
            CHECK_MPI(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        } else {
            flag = 0xd;
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req));
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(flag == (size == 1 ? 0xb : 0x9), "root %d: iagree gave 0x%x", root, flag);
    }

    /* eight agreements and an allreduce outstanding at once, on a duplicate */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    enum { N = 8 };
    int flags[N];
    MPI_Request reqs[N + 1];
    int in = rank, sum = -1;
    for (int i = 0; i < N; ++i) {
        flags[i] = ~0 ^ (1 << ((rank + i) % 31));
        CHECK_MPI(MPIX_Comm_iagree(dup, &flags[i], &reqs[i]));
        if (i == N / 2) CHECK_MPI(MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, dup, &reqs[N]));
    }
    CHECK_MPI(MPI_Waitall(N + 1, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; ++i) {
        int want = ~0;
        for (int r = 0; r < size; ++r) want &= ~0 ^ (1 << ((r + i) % 31));
        CHECK(flags[i] == want, "agreement %d gave 0x%x, expected 0x%x", i, flags[i], want);
    }
    CHECK(sum == size * (size - 1) / 2, "allreduce beside the agreements gave %d", sum);
    MPI_Comm_free(&dup);

    /* bad arguments */
    int cls = -1;
    MPI_Error_class(MPIX_Comm_agree(MPI_COMM_WORLD, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL flag gave class %d", cls);
    MPI_Error_class(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL request gave class %d", cls);
    MPI_Error_class(MPIX_Comm_agree(MPI_COMM_NULL, &flag), &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_COMM_NULL gave class %d", cls);
    /* and it still works afterwards */
    flag = 1;
    CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
    CHECK(flag == 1, "agree after errors gave %d", flag);

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
