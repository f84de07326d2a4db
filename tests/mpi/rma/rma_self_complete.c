/* RMA operations a process aims at itself are applied within the call: their results are written
 * when MPI_Compare_and_swap / MPI_Fetch_and_op / MPI_Get_accumulate / MPI_Get return, as MPICH and
 * Open MPI do. mpi4py 3.1's test_rma frees the result buffer before the closing fence; Baton used
 * to write the result at the fence, into freed memory (heap corruption at 2 ranks). Checked on
 * windows of MPI_COMM_SELF and of MPI_COMM_WORLD (the target is this rank), fence and lock. */
#include "mpitest.h"

static void run(MPI_Comm comm, int use_lock)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    long long* mem = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, comm, &mem, &win));
    mem[0] = 5;
    mem[1] = 7;
    mem[2] = 9;
    mem[3] = 11;
    if (use_lock)
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    else
        CHECK_MPI(MPI_Win_fence(0, win));
    long long one = 1, cmp = 7, val = 70, res[4] = {-1, -1, -1, -1};
    CHECK_MPI(MPI_Fetch_and_op(&one, &res[0], MPI_LONG_LONG, rank, 0, MPI_SUM, win));
    CHECK(res[0] == 5, "fetch_and_op to self: result %lld when the call returned", res[0]);
    CHECK_MPI(MPI_Compare_and_swap(&val, &cmp, &res[1], MPI_LONG_LONG, rank, 1, win));
    CHECK(res[1] == 7, "compare_and_swap to self: result %lld when the call returned", res[1]);
    CHECK_MPI(MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &res[2], 1, MPI_LONG_LONG, rank, 2, 1, MPI_LONG_LONG,
                                 MPI_SUM, win));
    CHECK(res[2] == 9, "get_accumulate to self: result %lld when the call returned", res[2]);
    CHECK_MPI(MPI_Get(&res[3], 1, MPI_LONG_LONG, rank, 3, 1, MPI_LONG_LONG, win));
    CHECK(res[3] == 11, "get from self: result %lld when the call returned", res[3]);
    if (use_lock)
        CHECK_MPI(MPI_Win_unlock(rank, win));
    else
        CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(mem[0] == 6 && mem[1] == 70 && mem[2] == 10, "window after the epoch: %lld %lld %lld", mem[0], mem[1],
          mem[2]);
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    for (int lock = 0; lock < 2; ++lock) {
        run(MPI_COMM_SELF, lock);
        run(MPI_COMM_WORLD, lock);
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
