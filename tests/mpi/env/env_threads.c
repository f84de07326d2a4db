/* MPI_THREAD_MULTIPLE: 4 threads per rank communicate at the same time around the ring
 * (rank -> rank+1), thread t on tag t, with blocking, nonblocking, Sendrecv and Probe+Recv
 * rounds and eager and rendezvous sizes; then each thread on its own duplicate communicator
 * with the same tag for all, and with MPI_ANY_SOURCE. Every message is checked. Threads count
 * their own failures; the main thread reports them. */
#include "mpitest.h"

#include <pthread.h>

enum { NTHREADS = 4, ITERS = 24, BIG = 1 << 16 }; /* up to 256 KB */

static int rank, size, next, prev;
static MPI_Comm thread_comm[NTHREADS];

struct thread_result {
    int failures;
    char first[200];
};

static void tfail(struct thread_result* r, const char* msg, int a, int b)
{
    if (r->failures++ == 0) snprintf(r->first, sizeof r->first, "%s (%d, %d)", msg, a, b);
}

static int value(int src, int t, int it, int i) { return src * 1000003 + t * 10007 + it * 101 + i; }

static void* worker(void* arg)
{
    int t = (int)(intptr_t)arg;
    struct thread_result* r = calloc(1, sizeof *r);
    int* sbuf = malloc(sizeof(int) * BIG);
    int* rbuf = malloc(sizeof(int) * BIG);
    if (!r || !sbuf || !rbuf) abort();

    for (int phase = 0; phase < 2; phase++) {
        /* phase 0: MPI_COMM_WORLD, tag t; phase 1: own communicator, tag 0 */
        MPI_Comm comm = phase ? thread_comm[t] : MPI_COMM_WORLD;
        int tag = phase ? 0 : t;
        for (int it = 0; it < ITERS; it++) {
            int n = (it % 4 == 3) ? BIG : (it % 4 == 1 ? 1000 : 1 + it);
            MPI_Status st;
            MPI_Request req;
            for (int i = 0; i < n; i++) sbuf[i] = value(rank, t, it, i);
            rbuf[0] = rbuf[n - 1] = -1;
            int src = (phase == 1 && it % 2) ? MPI_ANY_SOURCE : prev, rc = MPI_SUCCESS;
            switch (it % 3) {
            case 0:
                rc |= MPI_Isend(sbuf, n, MPI_INT, next, tag, comm, &req);
                rc |= MPI_Recv(rbuf, n, MPI_INT, src, tag, comm, &st);
                rc |= MPI_Wait(&req, MPI_STATUS_IGNORE);
                break;
            case 1:
                rc |= MPI_Sendrecv(sbuf, n, MPI_INT, next, tag, rbuf, n, MPI_INT, src, tag, comm, &st);
                break;
            default: {
                int count = -1;
                rc |= MPI_Irecv(rbuf, n, MPI_INT, src, tag, comm, &req);
                MPI_Request sreq;
                rc |= MPI_Isend(sbuf, n, MPI_INT, next, tag, comm, &sreq);
                rc |= MPI_Wait(&sreq, MPI_STATUS_IGNORE);
                rc |= MPI_Wait(&req, &st);
                rc |= MPI_Get_count(&st, MPI_INT, &count);
                if (count != n) tfail(r, "count", count, n);
                break;
            }
            }
            if (rc != MPI_SUCCESS) tfail(r, "MPI call failed in iteration", it, rc);
            if (st.MPI_SOURCE != prev || st.MPI_TAG != tag)
                tfail(r, "status source/tag", st.MPI_SOURCE, st.MPI_TAG);
            for (int i = 0; i < n; i++)
                if (rbuf[i] != value(prev, t, it, i)) {
                    tfail(r, "data differs at iteration/element", it, i);
                    break;
                }
        }
        /* probe then receive, each thread its own tag */
        int v = value(rank, t, 99, phase), in = -1, count = -1;
        MPI_Request req;
        MPI_Status st;
        int rc = MPI_Isend(&v, 1, MPI_INT, next, tag, comm, &req);
        rc |= MPI_Probe(prev, tag, comm, &st);
        rc |= MPI_Get_count(&st, MPI_INT, &count);
        rc |= MPI_Recv(&in, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
        rc |= MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || count != 1 || in != value(prev, t, 99, phase))
            tfail(r, "probe+recv: count/value", count, in);
    }
    free(sbuf);
    free(rbuf);
    return r;
}

int main(int argc, char** argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (got %d)", provided);

    if (provided == MPI_THREAD_MULTIPLE) {
        for (int t = 0; t < NTHREADS; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]));
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++)
            CHECK(pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t) == 0, "pthread_create %d", t);
        for (int t = 0; t < NTHREADS; t++) {
            void* res = NULL;
            pthread_join(th[t], &res);
            struct thread_result* r = res;
            CHECK(r && r->failures == 0, "thread %d: %d failure(s), first: %s", t,
                  r ? r->failures : -1, r ? r->first : "");
            free(r);
        }
        for (int t = 0; t < NTHREADS; t++) CHECK_MPI(MPI_Comm_free(&thread_comm[t]));
    }

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
