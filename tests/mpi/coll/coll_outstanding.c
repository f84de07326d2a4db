/* 100,000 nonblocking collectives outstanding at once on one communicator (the libNBC proposal
 * asks for at least 32767), completed in one Waitall, results checked; prints the memory each
 * pending operation costs (resident set growth / count). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static long rss_kb(void) {
  long pages = 0, rss = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
  fclose(f);
  return rss * sysconf(_SC_PAGESIZE) / 1024;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  int* in = malloc(sizeof(int) * (size_t)n);
  int* out = malloc(sizeof(int) * (size_t)n);
  int* flag = NULL;
  void* attr = NULL;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_ICOLL_MAX_OUTSTANDING, &attr, &found);
  CHECK(found && *(int*)attr >= 32767, "MPIX_ICOLL_MAX_OUTSTANDING is %d", found ? *(int*)attr : -1);
  CHECK(!found || *(int*)attr >= n, "the test posts %d, more than the limit %d", n, found ? *(int*)attr : -1);
  (void)flag;
  long before = rss_kb();
  for (int i = 0; i < n; ++i) {
    in[i] = rank + i;
    out[i] = -1;
    if (i % 2 == 0)
      CHECK_MPI(MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[i]));
    else
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[i]));
  }
  long during = rss_kb();
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
  int bad = 0;
  for (int i = 0; i < n; i += 2) bad += out[i] != size * (size - 1) / 2 + size * i;
  CHECK(bad == 0, "%d wrong allreduce results", bad);
  if (rank == 0)
    printf("%d nonblocking collectives outstanding: %.0f bytes per pending operation (RSS %ld -> %ld KiB)\n", n,
           (double)(during - before) * 1024.0 / n, before, during);
  free(reqs);
  free(in);
  free(out);
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
