/* A rank waiting for a late peer polls without yielding its core where this host's ranks do not
 * outnumber its cores (src/core/progress.hpp, backoff_policy): on a machine loaded by other
 * processes every sched_yield hands the core to one of them for a time slice, which made 64 KiB
 * operations take hundreds of microseconds instead of five. The program counts the calls to
 * sched_yield the library makes (it defines sched_yield itself; the library's calls resolve to
 * it) while rank 0 waits about 3 ms for rank 1, in MPI_Recv and in the MPI_Wait of an
 * MPI_Ialltoall and an MPI_Ibcast; with the ranks outnumbering the cores it only checks the
 * results (yielding is right there). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpitest.h"

static volatile int counting;
static long yields;

int sched_yield(void) {
  if (counting) ++yields;
  return (int)syscall(SYS_sched_yield);
}

static void late(int rank) {
  if (rank == 1) {
    const struct timespec ts = {0, 3 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nlocal = 0;
  CHECK_MPI(MPI_Comm_size(node, &nlocal));
  MPI_Comm_free(&node);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity failed");
  const int oversubscribed = nlocal > CPU_COUNT(&mine);
  const int n = 65536;
  char* sbuf = malloc((size_t)n * (size_t)size);
  char* rbuf = malloc((size_t)n * (size_t)size);
  for (int round = 0; round < 5; ++round) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    counting = rank == 0;
    int v = rank == 1 ? 1000 + round : -1;
    late(rank);
    if (rank == 1) CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    if (rank == 0) CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(rank != 0 || v == 1000 + round, "received %d, expected %d", v, 1000 + round);

    for (int i = 0; i < n * size; ++i) sbuf[i] = (char)(rank * 31 + i / n + round);
    late(rank);
    MPI_Request q;
    CHECK_MPI(MPI_Ialltoall(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    long bad = 0;
    for (int from = 0; from < size; ++from)
      for (int i = 0; i < n; ++i) bad += rbuf[from * n + i] != (char)(from * 31 + rank + round);
    CHECK(bad == 0, "alltoall: %ld bytes wrong", bad);

    late(rank);
    for (int i = 0; i < n; ++i) rbuf[i] = rank == 1 ? (char)(i + round) : 0;
    CHECK_MPI(MPI_Ibcast(rbuf, n, MPI_CHAR, 1, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    bad = 0;
    for (int i = 0; i < n; ++i) bad += rbuf[i] != (char)(i + round);
    CHECK(bad == 0, "bcast: %ld bytes wrong", bad);
    counting = 0;
  }
  if (rank == 0 && !oversubscribed)
    CHECK(yields == 0, "rank 0 called sched_yield %ld times while waiting for its peer (%d ranks, %d cores)", yields,
          nlocal, CPU_COUNT(&mine));
  free(sbuf);
  free(rbuf);
  const int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
