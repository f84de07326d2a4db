/* MPI_THREAD_MULTIPLE: NT threads per rank, each on its own communicator with its own buffer
 * (attached, used by ROUNDS buffered sends of various sizes around the ring, flushed, iflushed,
 * detached by that thread), while the main thread does buffered sends through an automatic
 * process buffer. Every message is checked; every detach gives back the thread's own buffer. */
#include <pthread.h>
#include <stdlib.h>

#include "mpitest.h"

#define NT 4
#define ROUNDS 50
#define MAXN 4096

static int rank, size, next, prev;
static MPI_Comm comms[NT];

struct result {
    int failures;
    char msg[200];
};
static struct result results[NT];

static void fail(struct result* r, const char* m)
{
    if (r->failures++ == 0) snprintf(r->msg, sizeof r->msg, "%s", m);
}

static void* worker(void* arg)
{
    const int t = (int)(intptr_t)arg;
    struct result* res = &results[t];
    MPI_Comm c = comms[t];
    const int bufsize = 4 * (MAXN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char* buf = malloc((size_t)bufsize);
    int* out = malloc(sizeof(int) * MAXN);
    int* in = malloc(sizeof(int) * MAXN);
    if (MPI_Comm_attach_buffer(c, buf, bufsize) != MPI_SUCCESS) fail(res, "attach");
    for (int round = 0; round < ROUNDS; round++) {
        const int n = 1 + (round * 97 + t * 31) % MAXN;
        for (int i = 0; i < n; i++) out[i] = rank * 1000000 + t * 10000 + round + i;
        /* at most 2 blocks in the buffer at once: the flushes below keep it from filling */
        if (MPI_Bsend(out, n, MPI_INT, next, round, c) != MPI_SUCCESS) fail(res, "Bsend");
        if (MPI_Recv(in, n, MPI_INT, prev, round, c, MPI_STATUS_IGNORE) != MPI_SUCCESS) fail(res, "Recv");
        for (int i = 0; i < n; i++)
            if (in[i] != prev * 1000000 + t * 10000 + round + i) {
                fail(res, "wrong data");
                break;
            }
        if (round % 2) {
            if (MPI_Comm_flush_buffer(c) != MPI_SUCCESS) fail(res, "flush");
        } else {
            MPI_Request r;
            if (MPI_Comm_iflush_buffer(c, &r) != MPI_SUCCESS || MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                fail(res, "iflush");
        }
    }
    void* got = NULL;
    int got_size = 0;
    if (MPI_Comm_detach_buffer(c, &got, &got_size) != MPI_SUCCESS) fail(res, "detach");
    if (got != buf || got_size != bufsize) fail(res, "detach gave another buffer");
    free(buf);
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t);
    /* meanwhile, buffered sends on MPI_COMM_WORLD through the automatic process buffer */
    for (int round = 0; round < ROUNDS; round++) {
        int v = rank * 100 + round, w = -1;
        CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, next, 1000 + round, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, prev, 1000 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == prev * 100 + round, "main thread round %d got %d", round, w);
    }
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        CHECK(results[t].failures == 0, "thread %d: %d failures, first: %s", t, results[t].failures, results[t].msg);
    void* got = NULL;
    int got_size = 0;
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == MPI_BUFFER_AUTOMATIC, "process detach gave %p", got);
    for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&comms[t]));
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
