/* Partitioned communication as it is meant to be used: under MPI_THREAD_MULTIPLE, each of NTHREADS
 * threads fills its own partitions of the send buffer and marks them ready (MPI_Pready, or
 * MPI_Pready_list for its whole share), while it polls MPI_Parrived for its own partitions of the
 * receive buffer and checks their data as soon as they are reported. The main thread starts and
 * waits. Pairs of ranks (one rank: itself) exchange both ways. Threads keep their own failure
 * counts; the main thread CHECKs them after each join. */
#include <pthread.h>

#include "mpitest.h"

#define NTHREADS 4
#define PER_THREAD 4
#define PARTS (NTHREADS * PER_THREAD)
#define COUNT 1000
#define ITERS 30

static int rank, partner;
static int sbuf[PARTS * COUNT], rbuf[PARTS * COUNT];
static MPI_Request sreq, rreq;
static int iter;
static int thread_failures[NTHREADS];
static char thread_msg[NTHREADS][200];

static int value(int it, int from, int i)
{
    return (int)(mpitest_value((size_t)i, (uint32_t)(it * 7 + from)) & 0xffffff);
}

#define TCHECK(id, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[id]++ == 0) snprintf(thread_msg[id], sizeof thread_msg[id], __VA_ARGS__); \
        }                                                                                          \
    } while (0)

static void* worker(void* arg)
{
    const int id = (int)(intptr_t)arg;
    int mine[PER_THREAD];
    for (int k = 0; k < PER_THREAD; k++) mine[k] = k * NTHREADS + id; /* interleaved partitions */
    for (int k = 0; k < PER_THREAD; k++) {
        const int p = mine[k];
        for (int i = p * COUNT; i < (p + 1) * COUNT; i++) sbuf[i] = value(iter, rank, i);
        if (iter % 2) TCHECK(id, MPI_Pready(p, sreq) == MPI_SUCCESS, "Pready(%d)", p);
    }
    if (iter % 2 == 0) TCHECK(id, MPI_Pready_list(PER_THREAD, mine, sreq) == MPI_SUCCESS, "Pready_list");
    int seen = 0;
    int got[PER_THREAD] = {0};
    const double t0 = MPI_Wtime();
    while (seen < PER_THREAD && MPI_Wtime() - t0 < 20) {
        for (int k = 0; k < PER_THREAD; k++) {
            if (got[k]) continue;
            int flag = 0;
            TCHECK(id, MPI_Parrived(rreq, mine[k], &flag) == MPI_SUCCESS, "Parrived(%d)", mine[k]);
            if (!flag) continue;
            got[k] = 1;
            seen++;
            const int p = mine[k];
            for (int i = p * COUNT; i < (p + 1) * COUNT; i++) {
                if (rbuf[i] != value(iter, partner, i)) {
                    TCHECK(id, 0, "start %d: partition %d arrived, element %d is %d", iter, p, i, rbuf[i]);
                    break;
                }
            }
        }
    }
    TCHECK(id, seen == PER_THREAD, "start %d: only %d of %d partitions arrived", iter, seen, PER_THREAD);
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;

    CHECK_MPI(MPI_Psend_init(sbuf, PARTS, COUNT, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(rbuf, PARTS, COUNT, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (iter = 0; iter < ITERS; iter++) {
        for (int i = 0; i < PARTS * COUNT; i++) rbuf[i] = -1;
        MPI_Request both[2] = {sreq, rreq};
        CHECK_MPI(MPI_Startall(2, both));
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t);
        for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
        CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        for (int t = 0; t < NTHREADS; t++)
            CHECK(thread_failures[t] == 0, "thread %d: %d failures, first: %s", t, thread_failures[t], thread_msg[t]);
        for (int i = 0; i < PARTS * COUNT; i++) {
            if (rbuf[i] != value(iter, partner, i)) {
                CHECK(0, "start %d: element %d is %d after Waitall", iter, i, rbuf[i]);
                break;
            }
        }
        for (int t = 0; t < NTHREADS; t++) thread_failures[t] = 0;
    }
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
