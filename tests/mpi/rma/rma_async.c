/* Passive target progresses while the target does not call MPI (run with BATON_ASYNC_PROGRESS=1):
 * rank 0 spins on its window memory without calling MPI until every other rank has written its
 * flag there with lock / put / unlock; then rank 0 checks the values. */
#include <time.h>

#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int) * (size_t)size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < size; ++i) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        volatile int* m = mem;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int done = 0;
        for (;;) {
            done = 1;
            for (int i = 1; i < size; ++i)
                if (m[i] != i + 100) done = 0;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (done || t1.tv_sec - t0.tv_sec > 20) break;
        }
        CHECK(done, "the other ranks' puts were not applied while rank 0 stayed out of MPI");
    } else {
        int v = rank + 100;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_free(&win));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
