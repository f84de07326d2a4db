/* A target that waits for an accumulate by reading its own window memory, calling only
 * MPI_Win_sync (or MPI_Win_flush on itself) between reads, as lock queues do (mpi4py's
 * util.sync.Mutex hands its lock over this way): those calls must advance the operations other
 * ranks aim at this process, or the origin's MPI_Win_unlock_all never returns. A token goes round
 * the ranks twice, once polled with MPI_Win_sync, once with MPI_Win_flush. */
#include "mpitest.h"

static int wait_flag(MPI_Win win, volatile int* flag, int want, int use_flush, int rank)
{
    const double t0 = MPI_Wtime();
    MPI_Win_sync(win);
    while (*flag != want) {
        if (use_flush)
            CHECK_MPI(MPI_Win_flush(rank, win));
        CHECK_MPI(MPI_Win_sync(win));
        if (MPI_Wtime() - t0 > 20.0) return 0;
    }
    return 1;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* mem = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    *mem = 0;
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 1; round <= 2; ++round) {
        const int use_flush = round == 2;
        CHECK_MPI(MPI_Win_lock_all(0, win));
        if (rank != 0 && !wait_flag(win, (volatile int*)mem, round, use_flush, rank)) {
            CHECK(0, "round %d: the token from rank %d never arrived (polled with %s)", round, rank - 1,
                  use_flush ? "MPI_Win_flush" : "MPI_Win_sync");
            break;
        }
        if (size > 1) {
            int token = round;
            CHECK_MPI(MPI_Accumulate(&token, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, MPI_REPLACE, win));
        }
        /* returns once the accumulate is done at the next rank, which is polling */
        CHECK_MPI(MPI_Win_unlock_all(win));
        if (rank == 0 && size > 1) {
            CHECK_MPI(MPI_Win_lock_all(0, win));
            CHECK(wait_flag(win, (volatile int*)mem, round, use_flush, rank), "round %d: the token did not come back",
                  round);
            CHECK_MPI(MPI_Win_unlock_all(win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_Win_free(&win));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
