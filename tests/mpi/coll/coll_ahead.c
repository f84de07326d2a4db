/* coll_ahead.c - nonblocking shared-memory collectives that run ahead at the call.
 *
 * A nonblocking collective whose plan is a chain of local and shared-memory steps runs those
 * steps at the call as far as they go without waiting (src/coll/schedule.cpp, run_start): it is
 * over before the call returns when the data it needs is there, and otherwise continues, as a
 * run, from the first step that has to wait. Both happen here on purpose: in each round one rank
 * (a different one each round) comes late, after the others have already started, so the others
 * stop part-way and the late rank finds everything published. Several collectives are
 * outstanding at once and completed in reverse order; every result is checked.
 */
#include "mpitest.h"

#include <time.h>

static void pause_ms(int ms)
{
    struct timespec d = {0, ms * 1000000L};
    nanosleep(&d, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* A blocking collective first: it sets up the communicator's shared-memory region. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    enum { ROUNDS = 12, K = 3 };
    for (int round = 0; round < ROUNDS; round++) {
        const int late = round % size;
        const int root = (round / 2) % size;
        if (rank == late) pause_ms(20);
        double in[K], sum[K], b[K];
        long lb[K];
        MPI_Request req[3 * K];
        for (int k = 0; k < K; k++) {
            in[k] = rank + 10.0 * k + round;
            b[k] = rank == root ? 1000.0 * round + k : -1.0;
            lb[k] = rank == root ? 7L * round + k : -1L;
            CHECK_MPI(MPI_Iallreduce(&in[k], &sum[k], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[3 * k]));
            CHECK_MPI(MPI_Ibcast(&b[k], 1, MPI_DOUBLE, root, MPI_COMM_WORLD, &req[3 * k + 1]));
            CHECK_MPI(MPI_Ibcast(&lb[k], 1, MPI_LONG, root, MPI_COMM_WORLD, &req[3 * k + 2]));
        }
        for (int i = 3 * K - 1; i >= 0; i--) CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        for (int k = 0; k < K; k++) {
            double want = 0;
            for (int r = 0; r < size; r++) want += r + 10.0 * k + round;
            CHECK(sum[k] == want, "round %d: allreduce %d gave %g, expected %g", round, k, sum[k], want);
            CHECK(b[k] == 1000.0 * round + k, "round %d: bcast %d gave %g", round, k, b[k]);
            CHECK(lb[k] == 7L * round + k, "round %d: bcast (long) %d gave %ld", round, k, lb[k]);
        }
        int flag = 0;
        MPI_Request done = MPI_REQUEST_NULL;
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &done));
        while (!flag) CHECK_MPI(MPI_Test(&done, &flag, MPI_STATUS_IGNORE));
        CHECK(done == MPI_REQUEST_NULL, "a completed MPI_Ibarrier left its request");
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
