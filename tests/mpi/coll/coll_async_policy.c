/* The progress thread (BATON_ASYNC_PROGRESS=1) runs under SCHED_IDLE, so it never takes a core
 * from the application, and where the host has no spare core it keeps to one core (the one its
 * application thread last started work on) instead of competing for another rank's.
 *
 * The test finds the thread by name in /proc/self/task, checks its policy and its affinity
 * (one core when this host's ranks are at least as many as the cores this process may use,
 * else every core the process may use), and that nonblocking collectives of 1 MiB handed to it
 * still give the right results while the ranks sleep outside MPI.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "mpitest_progress.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nlocal = 0;
    CHECK_MPI(MPI_Comm_size(node, &nlocal));
    cpu_set_t mine;
    CPU_ZERO(&mine);
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity of the main thread failed");
    const int cpus = CPU_COUNT(&mine);

    const int n = 1 << 17; /* 1 MiB of doubles */
    double* in = malloc(sizeof(double) * (size_t)n);
    double* out = malloc(sizeof(double) * (size_t)n);
    long wrong = 0;
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < n; ++i) in[i] = rank + round + (i % 7);
        MPI_Request q;
        CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
        struct timespec ts = {0, 200000}; /* 200 us outside MPI */
        nanosleep(&ts, NULL);
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; ++i) wrong += out[i] != (double)size * (round + (i % 7)) + size * (size - 1) / 2.0;
    }
    CHECK(wrong == 0, "%ld wrong elements", wrong);

    const pid_t tid = mpitest_progress_tid();
    CHECK(tid > 0, "no thread named baton-progress in this process");
    if (tid > 0) {
        const int policy = sched_getscheduler(tid);
        CHECK(policy == SCHED_IDLE, "the progress thread's policy is %d, not SCHED_IDLE (%d)", policy, SCHED_IDLE);
        cpu_set_t its;
        CPU_ZERO(&its);
        CHECK(sched_getaffinity(tid, sizeof its, &its) == 0, "sched_getaffinity of the progress thread failed");
        const int want = nlocal >= cpus ? 1 : cpus;
        CHECK(CPU_COUNT(&its) == want, "the progress thread may run on %d cores, expected %d (%d ranks here, %d cores)",
              CPU_COUNT(&its), want, nlocal, cpus);
        if (want == 1) {
            int c = 0;
            while (!CPU_ISSET(c, &its)) ++c;
            CHECK(CPU_ISSET(c, &mine), "the progress thread keeps to core %d, outside the process's cores", c);
        }
    }
    free(in);
    free(out);
    MPI_Comm_free(&node);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
