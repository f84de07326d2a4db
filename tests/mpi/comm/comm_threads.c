/* MPI_THREAD_MULTIPLE: 4 threads per rank, each on its own duplicate of MPI_COMM_WORLD, create
 * communicators at the same time (Comm_dup, Comm_idup with the wait in another order, Comm_split),
 * so context agreements of several communicators run concurrently in one process; every new
 * communicator carries a message around its ring (a shared context would cross them). Each thread
 * keeps its own failure count; the main thread CHECKs them after the join. */
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 40

static int thread_failures[NTHREADS];
static char thread_msg[NTHREADS][200];
static MPI_Comm base[NTHREADS];
static int rank, size;

#define TCHECK(id, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[id]++ == 0) snprintf(thread_msg[id], sizeof thread_msg[id], __VA_ARGS__); \
        }                                                                                          \
    } while (0)

static void ring(int id, MPI_Comm c, int value)
{
    int r, s, in = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    TCHECK(id, MPI_Sendrecv(&value, 1, MPI_INT, (r + 1) % s, 5, &in, 1, MPI_INT, (r + s - 1) % s, 5, c,
                            MPI_STATUS_IGNORE) == MPI_SUCCESS,
           "sendrecv");
    TCHECK(id, in == value, "thread %d: ring value %d, expected %d", id, in, value);
}

static void* worker(void* arg)
{
    const int id = (int)(intptr_t)arg;
    for (int it = 0; it < ITERS; it++) {
        MPI_Comm d, i1, i2, sp;
        MPI_Request rq[2];
        TCHECK(id, MPI_Comm_idup(base[id], &i1, &rq[0]) == MPI_SUCCESS, "idup");
        TCHECK(id, MPI_Comm_dup(base[id], &d) == MPI_SUCCESS, "dup");
        TCHECK(id, MPI_Comm_idup(d, &i2, &rq[1]) == MPI_SUCCESS, "idup of dup");
        TCHECK(id, MPI_Wait(&rq[1], MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait 1");
        TCHECK(id, MPI_Wait(&rq[0], MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait 0");
        TCHECK(id, MPI_Comm_split(i1, rank % 2, rank, &sp) == MPI_SUCCESS, "split");
        ring(id, d, id * 1000 + it * 4);
        ring(id, i1, id * 1000 + it * 4 + 1);
        ring(id, i2, id * 1000 + it * 4 + 2);
        ring(id, sp, id * 1000 + it * 4 + 3);
        MPI_Comm_free(&sp);
        MPI_Comm_free(&i2);
        MPI_Comm_free(&i1);
        MPI_Comm_free(&d);
    }
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (provided == MPI_THREAD_MULTIPLE) {
        for (int t = 0; t < NTHREADS; ++t) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; ++t) pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t);
        for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
        for (int t = 0; t < NTHREADS; ++t) {
            CHECK(thread_failures[t] == 0, "thread %d: %d failures, first: %s", t, thread_failures[t], thread_msg[t]);
            CHECK_MPI(MPI_Comm_free(&base[t]));
        }
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
