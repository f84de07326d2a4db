/* Where the progress thread runs (BATON_ASYNC_PROGRESS=1; src/core/progress_thread.cpp).
 *
 *   hier_progress follow     the SCHED_IDLE design on a host without a spare core: the thread
 *                            keeps to its application thread's core. When the application thread
 *                            moves, the next operation it starts moves the thread with it, even
 *                            while the thread cannot run: a busy thread of normal priority holds
 *                            the thread's old core (before the fix, the thread moved only itself,
 *                            when it ran, and could stay stuck on a busy core for a whole run).
 *   hier_progress dedicated  BATON_PROGRESS_CORE (auto or a list): the thread has a core of its own,
 *                            the normal policy, and is bound to exactly that core (auto: the last
 *                            cores of the process's affinity mask, one per rank of the host).
 *
 * Both then check the results of nonblocking collectives of 1 MiB handed to the thread while the
 * ranks compute or sleep outside MPI. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "mpitest_progress.h"

/* The one core of a set, or -1 when it holds several (or none). */
static int only_core(const cpu_set_t* s) {
  if (CPU_COUNT(s) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, s)) return c;
  return -1;
}

static int rank, size;

/* Nonblocking allreduces of 1 MiB, with the ranks busy or asleep outside MPI meanwhile. */
static void check_results(void) {
  const int n = 1 << 17;
  double* in = malloc(sizeof(double) * (size_t)n);
  double* out = malloc(sizeof(double) * (size_t)n);
  long wrong = 0;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < n; ++i) in[i] = rank + round + (i % 7);
    MPI_Request q;
    CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
    if (round % 2) {
      const struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
    } else {
      volatile double x = 1.0;
      for (int k = 0; k < 200000; ++k) x = x * 1.0000001 + 1e-9;
    }
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; ++i) wrong += out[i] != (double)size * (round + (i % 7)) + size * (size - 1) / 2.0;
  }
  CHECK(wrong == 0, "%ld wrong elements", wrong);
  free(in);
  free(out);
}

static atomic_int hog_stop;
static void* hog(void* arg) {
  (void)arg;
  while (!atomic_load_explicit(&hog_stop, memory_order_relaxed)) {
  }
  return NULL;
}

static void test_follow(pid_t tid, int nlocal, const cpu_set_t* mine) {
  const int cpus = CPU_COUNT(mine);
  if (nlocal < cpus || cpus < 2) {
    if (rank == 0) printf("follow: %d ranks on %d cores leave a spare core; nothing to check\n", nlocal, cpus);
    return;
  }
  cpu_set_t its;
  CHECK(sched_getaffinity(tid, sizeof its, &its) == 0, "sched_getaffinity of the progress thread failed");
  const int old = only_core(&its);
  CHECK(old >= 0, "the progress thread may run on %d cores, expected one", CPU_COUNT(&its));
  if (old < 0) return;
  int other = -1;
  for (int c = 0; c < CPU_SETSIZE && other < 0; ++c)
    if (c != old && CPU_ISSET(c, mine)) other = c;
  /* Keep the thread's core busy at normal priority: the SCHED_IDLE thread gets (almost) no time. */
  pthread_t h;
  pthread_attr_t attr;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(old, &one);
  pthread_attr_init(&attr);
  pthread_attr_setaffinity_np(&attr, sizeof one, &one);
  atomic_store(&hog_stop, 0);
  CHECK(pthread_create(&h, &attr, hog, NULL) == 0, "pthread_create failed");
  pthread_attr_destroy(&attr);
  CPU_ZERO(&one);
  CPU_SET(other, &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "moving the main thread to core %d failed", other);
  const int n = 1 << 13; /* 64 KiB: handed to the progress thread */
  double* in = calloc((size_t)n, sizeof(double));
  double* out = calloc((size_t)n, sizeof(double));
  MPI_Request q;
  CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
  /* At once: the thread has had no chance to run and move itself. */
  CHECK(sched_getaffinity(tid, sizeof its, &its) == 0, "sched_getaffinity of the progress thread failed");
  CHECK(only_core(&its) == other,
        "after its application thread moved from core %d to %d and started work, the progress thread "
        "keeps to core %d (%d cores allowed)",
        old, other, only_core(&its), CPU_COUNT(&its));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  atomic_store(&hog_stop, 1);
  pthread_join(h, NULL);
  CHECK(sched_setaffinity(0, sizeof *mine, mine) == 0, "restoring the main thread's cores failed");
  free(in);
  free(out);
}

static void test_dedicated(pid_t tid, int nlocal, const cpu_set_t* mine) {
  const char* v = getenv("BATON_PROGRESS_CORE");
  int want = -1;
  int list[CPU_SETSIZE], count = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, mine)) list[count++] = c;
  int local = 0; /* index on this host: ranks are placed in blocks by our mpiexec (one host) */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (v && strcmp(v, "auto") == 0) {
    if (count >= 2 * nlocal) want = list[count - 1 - local];
  } else if (v) {
    int listed[64], k = 0;
    for (char *p = (char*)v, *end; *p && k < 64; p = *end ? end + 1 : end) listed[k++] = (int)strtol(p, &end, 10);
    want = listed[local % k];
  }
  const int policy = sched_getscheduler(tid);
  cpu_set_t its;
  CHECK(sched_getaffinity(tid, sizeof its, &its) == 0, "sched_getaffinity of the progress thread failed");
  if (want < 0) {
    CHECK(policy == SCHED_IDLE, "BATON_PROGRESS_CORE=%s with %d cores for %d ranks: policy %d, expected SCHED_IDLE",
          v, count, nlocal, policy);
    return;
  }
  CHECK(policy == SCHED_OTHER, "BATON_PROGRESS_CORE=%s: the thread's policy is %d, expected SCHED_OTHER (%d)", v,
        policy, SCHED_OTHER);
  CHECK(only_core(&its) == want, "BATON_PROGRESS_CORE=%s: the thread may run on %d cores (one: %d), expected core %d",
        v, CPU_COUNT(&its), only_core(&its), want);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nlocal = 0;
  CHECK_MPI(MPI_Comm_size(node, &nlocal));
  MPI_Comm_free(&node);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity of the main thread failed");
  const pid_t tid = mpitest_progress_tid();
  CHECK(tid > 0, "no thread named baton-progress in this process (BATON_ASYNC_PROGRESS=1 expected)");
  const char* mode = argc > 1 ? argv[1] : "follow";
  if (tid > 0) {
    if (strcmp(mode, "dedicated") == 0)
      test_dedicated(tid, nlocal, &mine);
    else
      test_follow(tid, nlocal, &mine);
  }
  check_results();
  const int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
