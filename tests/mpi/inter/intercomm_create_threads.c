/* MPI_Intercomm_create called at the same time by several threads of each process, each thread
 * on communicators of its own (local_comm split from its own duplicate of MPI_COMM_WORLD, which is
 * also its peer_comm), all with the same groups and the same tag. MPI_THREAD_MULTIPLE allows
 * collective calls on different communicators from different threads at once, and the tag only
 * has to be unique on peer_comm: the concurrent creations must not mix (each intercommunicator
 * must connect the same thread's groups and work). Run at 2 and 4 ranks.
 */
#include <pthread.h>

#include "mpitest.h"

#define NT 4
#define ITER 40

static MPI_Comm dups[NT];
static int fails[NT];
static char first_fail[NT][200];

static void fail(int id, const char* what, int rc)
{
    if (fails[id]++ == 0) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        s[0] = '\0';
        if (rc != MPI_SUCCESS) MPI_Error_string(rc, s, &len);
        snprintf(first_fail[id], sizeof first_fail[id], "%.100s (rc %d: %.80s)", what, rc, s);
    }
}

static void* run(void* arg)
{
    const int id = (int)(long)arg;
    MPI_Comm c = dups[id];
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    const int low = rank < size / 2;
    for (int it = 0; it < ITER; ++it) {
        MPI_Comm local, inter;
        int rc = MPI_Comm_split(c, low, rank, &local);
        if (rc != MPI_SUCCESS) {
            fail(id, "MPI_Comm_split", rc);
            return NULL;
        }
        MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
        rc = MPI_Intercomm_create(local, 0, c, low ? size / 2 : 0, 99, &inter);
        if (rc != MPI_SUCCESS) {
            fail(id, "MPI_Intercomm_create", rc);
            MPI_Comm_free(&local);
            return NULL; /* the other threads may be stuck now: the test fails (or times out) */
        }
        int rsize = -1;
        MPI_Comm_remote_size(inter, &rsize);
        if (rsize != (low ? size - size / 2 : size / 2)) fail(id, "remote size", MPI_SUCCESS);
        /* the sum of the remote group's world ranks, tagged with this thread's id */
        int v = rank * 100 + id, sum = -1;
        rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
        if (rc != MPI_SUCCESS) fail(id, "MPI_Allreduce on the intercommunicator", rc);
        int want = 0;
        for (int r = 0; r < size; ++r)
            if ((r < size / 2) != low) want += r * 100 + id;
        if (sum != want) fail(id, "intercommunicator allreduce result", MPI_SUCCESS);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    return NULL;
}

int main(int argc, char** argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (provided == MPI_THREAD_MULTIPLE && size >= 2) {
        for (int i = 0; i < NT; ++i) {
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[i]));
            MPI_Comm_set_errhandler(dups[i], MPI_ERRORS_RETURN);
        }
        pthread_t th[NT];
        for (int i = 0; i < NT; ++i) pthread_create(&th[i], NULL, run, (void*)(long)i);
        for (int i = 0; i < NT; ++i) pthread_join(th[i], NULL);
        for (int i = 0; i < NT; ++i) {
            CHECK(fails[i] == 0, "thread %d: %d failure(s), first: %s", i, fails[i], first_fail[i]);
            MPI_Comm_free(&dups[i]);
        }
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
