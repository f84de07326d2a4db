/* MPI_THREAD_MULTIPLE: 4 threads per rank build intercommunicators at the same time between the
 * same two halves of MPI_COMM_WORLD (each thread on its own duplicates of the local communicator
 * and of the peer communicator, with its own tag), so several bridges over the same processes are
 * agreed concurrently; each thread then exchanges messages on its intercommunicator (a shared or
 * crossed context would mix the values), dups it, merges it and frees everything. Each thread keeps
 * its own failure count; the main thread CHECKs them after the join. */
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 6

static int thread_failures[NTHREADS];
static char thread_msg[NTHREADS][200];
static MPI_Comm locals[NTHREADS], peers[NTHREADS];
static int me, np, half, color;

#define TCHECK(id, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[id]++ == 0) snprintf(thread_msg[id], sizeof thread_msg[id], __VA_ARGS__); \
        }                                                                                          \
    } while (0)

static void* worker(void* arg)
{
    const int id = (int)(intptr_t)arg;
    const int remote_leader = color == 0 ? half : 0;
    for (int it = 0; it < ITERS; ++it) {
        MPI_Comm ic, d, m;
        TCHECK(id, MPI_Intercomm_create(locals[id], 0, peers[id], remote_leader, 10 + id, &ic) == MPI_SUCCESS,
               "create failed (iteration %d)", it);
        int lr = -1, rs = -1;
        MPI_Comm_rank(ic, &lr);
        MPI_Comm_remote_size(ic, &rs);
        if (lr < rs) {
            int out = id * 100000 + it * 1000 + me, in = -1;
            MPI_Status st;
            TCHECK(id, MPI_Sendrecv(&out, 1, MPI_INT, lr, 3, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st) == MPI_SUCCESS,
                   "sendrecv failed");
            const int partner = (color == 0 ? half : 0) + lr;
            TCHECK(id, in == id * 100000 + it * 1000 + partner && st.MPI_SOURCE == lr && st.MPI_TAG == 3,
                   "thread %d iteration %d: got %d from %d, expected %d", id, it, in, st.MPI_SOURCE,
                   id * 100000 + it * 1000 + partner);
        }
        TCHECK(id, MPI_Comm_dup(ic, &d) == MPI_SUCCESS, "dup failed");
        TCHECK(id, MPI_Intercomm_merge(d, color, &m) == MPI_SUCCESS, "merge failed");
        int mr = -1;
        MPI_Comm_rank(m, &mr);
        TCHECK(id, mr == me, "thread %d: merged rank %d, expected %d", id, mr, me);
        MPI_Comm_free(&m);
        MPI_Comm_free(&d);
        MPI_Comm_free(&ic);
    }
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (np < 2 || provided != MPI_THREAD_MULTIPLE) {
        CHECK(np >= 2, "needs at least 2 ranks");
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    half = np / 2;
    color = me < half ? 0 : 1;
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    for (int t = 0; t < NTHREADS; ++t) {
        CHECK_MPI(MPI_Comm_dup(local, &locals[t]));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &peers[t]));
    }
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; ++t) pthread_create(&th[t], NULL, worker, (void*)(intptr_t)t);
    for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; ++t) {
        CHECK(thread_failures[t] == 0, "thread %d: %d failure(s), first: %s", t, thread_failures[t], thread_msg[t]);
        MPI_Comm_free(&locals[t]);
        MPI_Comm_free(&peers[t]);
    }
    MPI_Comm_free(&local);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
