/* Environment calls:
 * - before MPI_Init_thread: Initialized/Finalized false; Get_version and Get_library_version
 *   work;
 * - MPI_Init_thread with the level named by "--level single|funneled|serialized|multiple"
 *   (default multiple), or MPI_Init with "--level init": provided equals the requested level,
 *   Query_thread agrees, Is_thread_main is true on the main thread and, under
 *   MPI_THREAD_MULTIPLE, false on another thread;
 * - Wtime is monotonic and measures a sleep; Wtick > 0; MPI_WTIME_IS_GLOBAL is set;
 * - Get_processor_name; Get_version equals the header's MPI_VERSION.MPI_SUBVERSION (and the
 *   version given with "--expect-version X.Y"); Get_library_version is non-empty;
 * - MPI_COMM_WORLD / MPI_COMM_SELF sizes and ranks;
 * - after MPI_Finalize: Finalized true, Initialized still true, Get_version still works.
 * Checks after MPI_Finalize can't be agreed on; a failing rank prints and exits non-zero. */
#define _POSIX_C_SOURCE 200809L
#include "mpitest.h"

#include <pthread.h>
#include <time.h>

static int other_thread_is_main = -1;

static void* probe_thread(void* arg)
{
    (void)arg;
    int flag = -1;
    if (MPI_Is_thread_main(&flag) == MPI_SUCCESS) other_thread_is_main = flag;
    return NULL;
}

static const char* level_name(int level)
{
    if (level == MPI_THREAD_SINGLE) return "single";
    if (level == MPI_THREAD_FUNNELED) return "funneled";
    if (level == MPI_THREAD_SERIALIZED) return "serialized";
    if (level == MPI_THREAD_MULTIPLE) return "multiple";
    return "unknown";
}

int main(int argc, char** argv)
{
    const char* level_arg = "multiple";
    int expect_major = -1, expect_minor = -1;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--level") == 0) level_arg = argv[++i];
        else if (strcmp(argv[i], "--expect-version") == 0) {
            if (sscanf(argv[++i], "%d.%d", &expect_major, &expect_minor) != 2) expect_major = -2;
        }
    }

    /* before initialization */
    int flag = -1, version = -1, subversion = -1, len = -1;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized before Init is %d", flag);
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized before Init is %d", flag);
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
          "Get_version before Init: %d.%d, header says %d.%d", version, subversion, MPI_VERSION,
          MPI_SUBVERSION);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "Get_library_version before Init: length %d", len);

    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread level constants are not ordered");

    int required = MPI_THREAD_MULTIPLE, provided = -1, use_init = 0;
    if (strcmp(level_arg, "single") == 0) required = MPI_THREAD_SINGLE;
    else if (strcmp(level_arg, "funneled") == 0) required = MPI_THREAD_FUNNELED;
    else if (strcmp(level_arg, "serialized") == 0) required = MPI_THREAD_SERIALIZED;
    else if (strcmp(level_arg, "multiple") == 0) required = MPI_THREAD_MULTIPLE;
    else if (strcmp(level_arg, "init") == 0) use_init = 1;
    else CHECK(0, "unknown --level %s", level_arg);

    if (use_init) {
        MPI_Init(&argc, &argv);
    } else {
        MPI_Init_thread(&argc, &argv, required, &provided);
    }
    mpitest_init();

    int rank = -1, size = -1, queried = -1;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 1 && rank >= 0 && rank < size, "world rank %d size %d", rank, size);
    int srank = -1, ssize = -1;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    CHECK(srank == 0 && ssize == 1, "MPI_COMM_SELF rank %d size %d", srank, ssize);

    CHECK_MPI(MPI_Query_thread(&queried));
    if (use_init) {
        CHECK(queried >= MPI_THREAD_SINGLE && queried <= MPI_THREAD_MULTIPLE,
              "Query_thread after MPI_Init: %d", queried);
    } else {
        /* a library that supports every level provides exactly the one asked for */
        CHECK(provided == required, "Init_thread(%s) provided %s", level_name(required),
              level_name(provided));
        CHECK(queried == provided, "Query_thread %s, Init_thread provided %s", level_name(queried),
              level_name(provided));
    }
    flag = -1;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized after Init is %d", flag);
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized after Init is %d", flag);
    flag = -1;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main on the main thread is %d", flag);
    if (queried == MPI_THREAD_MULTIPLE) {
        pthread_t th;
        CHECK(pthread_create(&th, NULL, probe_thread, NULL) == 0, "pthread_create failed");
        pthread_join(th, NULL);
        CHECK(other_thread_is_main == 0, "Is_thread_main on another thread is %d",
              other_thread_is_main);
    }

    /* clocks */
    double tick = MPI_Wtick(), prev_t = MPI_Wtime(), first = prev_t;
    CHECK(tick > 0.0 && tick < 1.0, "Wtick is %g", tick);
    int backwards = 0;
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        if (t < prev_t) backwards++;
        prev_t = t;
    }
    CHECK(backwards == 0, "Wtime went backwards %d times", backwards);
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    double slept = MPI_Wtime() - first;
    CHECK(slept >= 0.045 && slept < 10.0, "a 50 ms sleep measured %g s with Wtime", slept);
    int* is_global = NULL;
    flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &is_global, &flag));
    if (flag && is_global)
        CHECK(*is_global == 0 || *is_global == 1, "MPI_WTIME_IS_GLOBAL is %d", *is_global);

    /* names and versions */
    char name[MPI_MAX_PROCESSOR_NAME];
    len = -1;
    memset(name, 'x', sizeof name);
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "Get_processor_name: length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME)
        CHECK(name[len] == '\0' && (int)strlen(name) == len, "processor name not terminated at %d", len);
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION && version >= 3,
          "Get_version %d.%d, header says %d.%d", version, subversion, MPI_VERSION, MPI_SUBVERSION);
    if (expect_major != -1)
        CHECK(version == expect_major && subversion == expect_minor,
              "Get_version %d.%d, expected %d.%d", version, subversion, expect_major, expect_minor);
    len = -1;
    memset(lib, 'x', sizeof lib);
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "Get_library_version: length %d", len);
    /* Open MPI 4.1 counts the terminating NUL in the length, MPICH doesn't: accept both */
    if (len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING)
        CHECK(strlen(lib) > 0 && ((int)strlen(lib) == len || (int)strlen(lib) + 1 == len),
              "library version string length %d, strlen %d", len, (int)strlen(lib));
    if (rank == 0) printf("%s, MPI %d.%d, thread level %s\n", strtok(lib, "\n"), version,
                          subversion, level_name(queried));

    int rc = mpitest_finish();
    MPI_Finalize();

    /* after finalization: local checks only */
    int bad = 0;
    flag = -1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 1) {
        fprintf(stderr, "[rank %d] Finalized after Finalize is %d\n", rank, flag);
        bad = 1;
    }
    flag = -1;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 1) {
        fprintf(stderr, "[rank %d] Initialized after Finalize is %d\n", rank, flag);
        bad = 1;
    }
    version = -1;
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version != MPI_VERSION) {
        fprintf(stderr, "[rank %d] Get_version after Finalize gave %d\n", rank, version);
        bad = 1;
    }
    return rc || bad;
}
