/* Sessions and threads, without MPI_Init: a session at MPI_THREAD_MULTIPLE; NTHREADS threads per
 * process each open a session of their own and build communicators from the world group at the
 * same time, every thread with its own string tag (thread t of every process meets only thread t
 * elsewhere), then carry a value around a ring and allreduce on them. Crossed agreements would
 * give communicators whose messages mix or hang. Each thread counts its own failures; the verdict
 * is agreed on a session communicator. */
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 10

static int wrank, wsize;
static int thread_failures[NTHREADS];
static char thread_msg[NTHREADS][200];

#define TCHECK(id, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[id]++ == 0) snprintf(thread_msg[id], sizeof thread_msg[id], __VA_ARGS__); \
        }                                                                                          \
    } while (0)

static void* worker(void* arg)
{
    const int id = (int)(intptr_t)arg;
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    TCHECK(id, MPI_Session_init(info, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "thread %d: session init", id);
    MPI_Info_free(&info);
    MPI_Group world = MPI_GROUP_NULL;
    TCHECK(id, MPI_Group_from_session_pset(s, "mpi://WORLD", &world) == MPI_SUCCESS, "group");
    for (int it = 0; it < ITERS; it++) {
        char tag[64];
        MPI_Comm c = MPI_COMM_NULL;
        snprintf(tag, sizeof tag, "thread-%d", id);  /* the same tag every iteration: one at a time */
        int rc = MPI_Comm_create_from_group(world, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
        TCHECK(id, rc == MPI_SUCCESS && c != MPI_COMM_NULL, "thread %d iteration %d: create rc %d", id, it, rc);
        if (c == MPI_COMM_NULL) break;
        int v = id * 10000 + it * 100 + wrank, in = -1;
        const int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize;
        TCHECK(id, MPI_Sendrecv(&v, 1, MPI_INT, to, id, &in, 1, MPI_INT, from, id, c, MPI_STATUS_IGNORE) ==
                       MPI_SUCCESS,
               "sendrecv");
        TCHECK(id, in == id * 10000 + it * 100 + from, "thread %d: ring got %d", id, in);
        int sum = -1, mine = id + 1;
        TCHECK(id, MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS, "allreduce");
        TCHECK(id, sum == (id + 1) * wsize, "thread %d: allreduce %d, expected %d", id, sum, (id + 1) * wsize);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&world);
    TCHECK(id, MPI_Session_finalize(&s) == MPI_SUCCESS, "thread %d: session finalize", id);
    return NULL;
}

int main(void)
{
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Info info, used;
    char level[64] = "";
    int flag = 0;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Session_get_info(s, &used));
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &(int){sizeof level}, level, &flag));
    MPI_Info_free(&used);
    CHECK(flag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0, "session thread level '%s'", level);

    MPI_Group world;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MPI_Group_size(world, &wsize);
    MPI_Group_rank(world, &wrank);
    mpitest_rank_ = wrank;
    MPI_Comm main_comm = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_create_from_group(world, "main", MPI_INFO_NULL, MPI_ERRORS_RETURN, &main_comm));
    MPI_Group_free(&world);

    if (strcmp(level, "MPI_THREAD_MULTIPLE") == 0) {
        pthread_t th[NTHREADS];
        for (int i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void*)(intptr_t)i);
        for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < NTHREADS; i++)
            CHECK(thread_failures[i] == 0, "thread %d: %d failure(s), first: %s", i, thread_failures[i], thread_msg[i]);
    }

    int total = 0;
    if (MPI_Allreduce(&mpitest_failures_, &total, 1, MPI_INT, MPI_SUM, main_comm) != MPI_SUCCESS)
        total = 1 + mpitest_failures_;
    if (wrank == 0) {
        if (total == 0)
            printf("PASS (%d ranks)\n", wsize);
        else
            printf("FAIL: %d failure(s) over %d ranks\n", total, wsize);
        fflush(stdout);
    }
    MPI_Comm_free(&main_comm);
    CHECK_MPI(MPI_Session_finalize(&s));
    return total == 0 && mpitest_failures_ == 0 ? 0 : 1;
}
