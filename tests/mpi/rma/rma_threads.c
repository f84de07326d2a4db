/* MPI_THREAD_MULTIPLE: several threads per rank issue accumulates, fetch_and_ops and gets under
 * one MPI_Win_lock_all, each flushing its own work; totals are exact. */
#include <pthread.h>

#include "mpitest.h"

#define THREADS 4
#define ITERS 200

static int rank, size;
static MPI_Win win;
static int thread_failures[THREADS];

static void* worker(void* arg)
{
    int id = (int)(size_t)arg;
    long one = 1, got = 0;
    for (int i = 0; i < ITERS; ++i) {
        int t = (rank + i + id) % size;
        if (MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win) != MPI_SUCCESS) ++thread_failures[id];
        if (MPI_Fetch_and_op(&one, &got, MPI_LONG, t, 1, MPI_SUM, win) != MPI_SUCCESS) ++thread_failures[id];
        if (MPI_Win_flush(t, win) != MPI_SUCCESS) ++thread_failures[id];
        if (got < 0) ++thread_failures[id];
    }
    MPI_Request r;
    long v = -1;
    if (MPI_Rget(&v, 1, MPI_LONG, rank, 2, 1, MPI_LONG, win, &r) != MPI_SUCCESS) ++thread_failures[id];
    if (MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) ++thread_failures[id];
    if (v != 42) ++thread_failures[id];
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long* mem;
    CHECK_MPI(MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    mem[0] = mem[1] = 0;
    mem[2] = 42;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; ++i) pthread_create(&th[i], NULL, worker, (void*)(size_t)i);
    for (int i = 0; i < THREADS; ++i) pthread_join(th[i], NULL);
    CHECK_MPI(MPI_Win_unlock_all(win));
    for (int i = 0; i < THREADS; ++i) CHECK(thread_failures[i] == 0, "thread %d: %d failures", i, thread_failures[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    /* every (rank, thread, i) targets (rank + i + id) % size: the totals per target */
    long e = 0;
    for (int r = 0; r < size; ++r)
        for (int id = 0; id < THREADS; ++id)
            for (int i = 0; i < ITERS; ++i)
                if ((r + i + id) % size == rank) ++e;
    CHECK(mem[0] == e && mem[1] == e, "totals %ld %ld, expected %ld", mem[0], mem[1], e);
    CHECK_MPI(MPI_Win_free(&win));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
