/* Another local user cannot block, read or write a job through /dev/shm. Before MPI_Init, rank 0
 * plants files as another user (uid/gid 65534, "nobody", in a forked child) under every name the
 * job's shared-memory objects could be guessed to take: the names earlier versions used
 * (/baton-win-<pid>-<n>, /baton.coll.<pid>.<n>, /baton.pers.<pid>.<n> for rank 0's pid and the
 * next ones, the host segment /baton.kvs_<BATON_JOBID>.0, mode 0666 so a careless opener would
 * take it) and names in today's format with the job id and a guessed random part. The job then
 * uses every kind of object (host segment, a collective region, a persistent collective's
 * region, a shared window) and checks that each works, that each is mapped under a name of this
 * job (in /proc/self/maps) and that no planted file was mapped or changed. Needs root (to act as
 * another user); otherwise it says why and passes without checking. */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpitest.h"

#define PLANT_MAX 256
static char planted[PLANT_MAX][128];
static int nplanted;
static const uid_t other = 65534;

static void add_name(const char* fmt, long a, long b)
{
    if (nplanted < PLANT_MAX) snprintf(planted[nplanted++], sizeof planted[0], fmt, a, b);
}

/* In a child as uid/gid 65534: creates every name (mode 0666, one byte written, so a change of
 * size or content shows). Returns 0 on success. */
static int plant_all(void)
{
    pid_t c = fork();
    if (c < 0) return -1;
    if (c == 0) {
        if (setgroups(0, NULL) != 0 || setgid(other) != 0 || setuid(other) != 0) _exit(10);
        umask(0);
        for (int i = 0; i < nplanted; i++) {
            char path[sizeof "/dev/shm/" + 256];
            snprintf(path, sizeof path, "/dev/shm/%.127s", planted[i]);
            int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0666);
            if (fd < 0) _exit(11);
            if (write(fd, "X", 1) != 1) _exit(12);
            close(fd);
        }
        _exit(0);
    }
    int st = 0;
    waitpid(c, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int maps_contains(const char* what)
{
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, what)) found = 1;
    if (f) fclose(f);
    return found;
}

int main(int argc, char** argv)
{
    const char* jobid = getenv("BATON_JOBID");
    const char* r_env = getenv("PMI_RANK");
    const int root = geteuid() == 0;
    const int first = !r_env || atoi(r_env) == 0;
    if (root && first && jobid) {
        long me = (long)getpid();
        for (long p = me; p < me + 8; p++)
            for (long n = 0; n < 4; n++) {
                add_name("baton-win-%ld-%ld", p, n);
                add_name("baton.coll.%ld.%ld", p, n);
                add_name("baton.pers.%ld.%ld", p, n);
            }
        char buf[160];
        snprintf(buf, sizeof buf, "baton.kvs_%s.%%ld%%.0ld", jobid);
        add_name(buf, 0, 0);
        const char* kinds[] = {"host", "coll", "pers", "win"};
        for (int k = 0; k < 4; k++) {
            snprintf(buf, sizeof buf, "baton.%s.%s.%%ld.%032d%%.0ld", jobid, kinds[k], 0);
            add_name(buf, me, 0);
        }
        if (plant_all() != 0) {
            fprintf(stderr, "hygiene_planted: could not plant files as uid %u\n", (unsigned)other);
            return 1;
        }
    }
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!root) {
        if (rank == 0) printf("hygiene_planted: SKIP: not root, cannot create files as another user\n");
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }

    /* a collective region (first collective on a new communicator), a persistent collective's
     * region and a shared window, all working */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int one = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == size * (size + 1) / 2, "allreduce: %d", sum);
    MPI_Request preq;
    CHECK_MPI(MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &preq));
    for (int i = 0; i < 3; i++) {
        sum = 0;
        CHECK_MPI(MPI_Start(&preq));
        CHECK_MPI(MPI_Wait(&preq, MPI_STATUS_IGNORE));
        CHECK(sum == size * (size + 1) / 2, "persistent allreduce: %d", sum);
    }
    int* mem = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &mem, &win);
    CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate_shared failed with planted files present");
    if (rc == MPI_SUCCESS) {
        *mem = rank;
        MPI_Win_sync(win);
        MPI_Barrier(dup);
        MPI_Win_sync(win);
        for (int r = 0; r < size; r++) {
            MPI_Aint qs;
            int du;
            int* p = NULL;
            CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &du, &p));
            if (p) CHECK(*p == r, "shared window: rank %d's int is %d", r, *p);
        }
    }

    /* every object is this job's: mapped under "baton.<jobid>.<kind>." */
    if (size > 1 && jobid) {
        const char* kinds[] = {"host", "coll", "pers", "win"};
        for (int k = 0; k < 4; k++) {
            char want[160];
            snprintf(want, sizeof want, "/dev/shm/baton.%s.%s.", jobid, kinds[k]);
            CHECK(maps_contains(want), "no mapping of a %s object of this job (%s...)", kinds[k], want);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < nplanted; i++) {
            char path[sizeof "/dev/shm/" + 256];
            snprintf(path, sizeof path, "/dev/shm/%.127s", planted[i]);
            CHECK(!maps_contains(path), "planted %s is mapped", path);
            struct stat st;
            int ok = stat(path, &st) == 0;
            CHECK(ok && st.st_uid == other && st.st_size == 1, "planted %s was changed or removed", path);
            unlink(path);
        }
        printf("hygiene_planted: %d files planted as uid %u; the job used none of them\n", nplanted, (unsigned)other);
    }
    if (rc == MPI_SUCCESS) MPI_Win_free(&win);
    MPI_Request_free(&preq);
    MPI_Comm_free(&dup);
    rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
