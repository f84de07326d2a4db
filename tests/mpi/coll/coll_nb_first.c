/* Communicators whose first collectives are nonblocking get their shared-memory region too
 * (src/coll/shm_region.hpp: the setup runs as nonblocking collectives, and the calls made
 * meanwhile wait in deferred requests until every rank selects with the same state):
 *  - a fresh communicator's first calls: Iallreduce of 1 MiB, Ibcast, Ireduce, Ialltoall,
 *    Ibarrier, and an Iallgatherv (a vector form: starts at once), completed in reverse order,
 *    data checked; then the communicator has a region (one more mapping in /proc/self/maps,
 *    none with BATON_COLL_SHM=0);
 *  - a blocking collective right after a nonblocking first one (it waits for the setup);
 *  - a rank that starts its first collective 200 ms after the others, which test in a loop;
 *  - a communicator freed while its deferred calls are pending;
 *  - many communicators set up at once, each started with a burst of nonblocking calls, from
 *    different ranks' orders of communicator completion.
 * Expected values are computed locally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"

static int wrank, wsize;

/* Whether communicators over every rank get a region: all on one host, talking through shared
 * memory (not BATON_TRANSPORT=ucx), and shared-memory collectives not turned off. */
static int g_shm_expected;
static int shm_expected(void) { return g_shm_expected; }
static void find_shm_expected(void) {
  const char* v = getenv("BATON_COLL_SHM");
  const char* t = getenv("BATON_TRANSPORT");
  MPI_Comm host;
  int hsize = 0;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  CHECK_MPI(MPI_Comm_size(host, &hsize));
  CHECK_MPI(MPI_Comm_free(&host));
  g_shm_expected = wsize > 1 && hsize == wsize && !(v && strcmp(v, "0") == 0) && !(t && strcmp(t, "ucx") == 0);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

enum { big = 131072 /* doubles: 1 MiB */, bc = 8192 /* ints: 32 KiB */, a2a = 1024 };

/* Every first call on a fresh communicator, completed in reverse order. */
static void first_calls(void) {
  const int before = mpitest_shm_mappings("coll");
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  double* x = malloc(sizeof(double) * big);
  double* sum = malloc(sizeof(double) * big);
  int* b = malloc(sizeof(int) * bc);
  int red = 0, one = wrank + 1;
  int* sa = malloc(sizeof(int) * (size_t)a2a * (size_t)wsize);
  int* ra = malloc(sizeof(int) * (size_t)a2a * (size_t)wsize);
  int* counts = malloc(sizeof(int) * (size_t)wsize);
  int* displs = malloc(sizeof(int) * (size_t)wsize);
  int* gv = malloc(sizeof(int) * (size_t)wsize * (size_t)wsize);
  int* mine = malloc(sizeof(int) * (size_t)wsize);
  for (int i = 0; i < big; ++i) x[i] = wrank * 0.5 + i;
  for (int i = 0; i < bc; ++i) b[i] = wrank == wsize - 1 ? 7 * i + 1 : -1;
  for (int r = 0; r < wsize; ++r)
    for (int i = 0; i < a2a; ++i) sa[r * a2a + i] = wrank * 100000 + r * 1000 + i % 1000;
  for (int r = 0; r < wsize; ++r) {
    counts[r] = r + 1;
    displs[r] = r * wsize;
  }
  for (int i = 0; i <= wrank; ++i) mine[i] = wrank * 10 + i;
  MPI_Request req[6];
  CHECK_MPI(MPI_Iallreduce(x, sum, big, MPI_DOUBLE, MPI_SUM, c, &req[0]));
  CHECK_MPI(MPI_Ibcast(b, bc, MPI_INT, wsize - 1, c, &req[1]));
  CHECK_MPI(MPI_Ireduce(&one, &red, 1, MPI_INT, MPI_SUM, 0, c, &req[2]));
  CHECK_MPI(MPI_Iallgatherv(mine, wrank + 1, MPI_INT, gv, counts, displs, MPI_INT, c, &req[3]));
  CHECK_MPI(MPI_Ialltoall(sa, a2a, MPI_INT, ra, a2a, MPI_INT, c, &req[4]));
  CHECK_MPI(MPI_Ibarrier(c, &req[5]));
  for (int k = 5; k >= 0; --k) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
  int bad = 0;
  for (int i = 0; i < big; ++i) bad += sum[i] != 0.25 * wsize * (wsize - 1) + (double)wsize * i;
  CHECK(bad == 0, "Iallreduce: %d wrong elements", bad);
  bad = 0;
  for (int i = 0; i < bc; ++i) bad += b[i] != 7 * i + 1;
  CHECK(bad == 0, "Ibcast: %d wrong elements", bad);
  if (wrank == 0) CHECK(red == wsize * (wsize + 1) / 2, "Ireduce: %d", red);
  bad = 0;
  for (int r = 0; r < wsize; ++r)
    for (int i = 0; i <= r; ++i) bad += gv[r * wsize + i] != r * 10 + i;
  CHECK(bad == 0, "Iallgatherv: %d wrong elements", bad);
  bad = 0;
  for (int r = 0; r < wsize; ++r)
    for (int i = 0; i < a2a; ++i) bad += ra[r * a2a + i] != r * 100000 + wrank * 1000 + i % 1000;
  CHECK(bad == 0, "Ialltoall: %d wrong elements", bad);
  const int after = mpitest_shm_mappings("coll");
  CHECK(after - before == shm_expected(), "regions mapped %d -> %d after nonblocking collectives only (expected +%d)",
        before, after, shm_expected());
  /* A nonblocking first call, then a blocking one at once. */
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(c, &d));
  MPI_Request r;
  int v = wrank, all = -1, mx = -1;
  CHECK_MPI(MPI_Iallreduce(&v, &all, 1, MPI_INT, MPI_SUM, d, &r));
  CHECK_MPI(MPI_Allreduce(&v, &mx, 1, MPI_INT, MPI_MAX, d));
  CHECK(mx == wsize - 1, "Allreduce after a nonblocking first call: %d", mx);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(all == wsize * (wsize - 1) / 2, "Iallreduce before a blocking call: %d", all);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_free(&c));
  free(x);
  free(sum);
  free(b);
  free(sa);
  free(ra);
  free(counts);
  free(displs);
  free(gv);
  free(mine);
}

/* Rank 0 starts 200 ms late; the others test in a loop (their setup waits for rank 0's). */
static void late_rank(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  if (wrank == 0) sleep_ms(200);
  int v = wrank + 1, s = 0;
  MPI_Request r;
  CHECK_MPI(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, c, &r));
  int flag = 0;
  long tests = 0;
  while (!flag) {
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    ++tests;
  }
  CHECK(s == wsize * (wsize + 1) / 2, "late rank: Iallreduce gave %d", s);
  CHECK_MPI(MPI_Comm_free(&c));
}

/* Freed while its deferred calls are pending. */
static void freed_pending(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  int v[3] = {wrank, 2 * wrank, 3 * wrank}, s[3] = {-1, -1, -1};
  MPI_Request r[3];
  for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Iallreduce(&v[k], &s[k], 1, MPI_INT, MPI_SUM, c, &r[k]));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
  for (int k = 0; k < 3; ++k)
    CHECK(s[k] == (k + 1) * wsize * (wsize - 1) / 2, "freed communicator: Iallreduce %d gave %d", k, s[k]);
}

/* Eight communicators set up at once, each with a burst of calls; completed communicator by
 * communicator in an order that differs between ranks. */
static void many_at_once(void) {
  enum { ncomm = 8, burst = 40 };
  const int before = mpitest_shm_mappings("coll");
  MPI_Comm c[ncomm];
  int v[ncomm][burst], s[ncomm][burst];
  MPI_Request r[ncomm][burst];
  for (int k = 0; k < ncomm; ++k) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[k]));
  for (int i = 0; i < burst; ++i)
    for (int k = 0; k < ncomm; ++k) {
      v[k][i] = wrank * (k + 1) + i;
      s[k][i] = -1;
      if (i % 3 == 2)
        CHECK_MPI(MPI_Ibcast(&v[k][i], 1, MPI_INT, i % wsize, c[k], &r[k][i]));
      else
        CHECK_MPI(MPI_Iallreduce(&v[k][i], &s[k][i], 1, MPI_INT, MPI_SUM, c[k], &r[k][i]));
    }
  for (int j = 0; j < ncomm; ++j) {
    const int k = (j + wrank * 3) % ncomm;
    CHECK_MPI(MPI_Waitall(burst, r[k], MPI_STATUSES_IGNORE));
  }
  int bad = 0;
  for (int k = 0; k < ncomm; ++k)
    for (int i = 0; i < burst; ++i) {
      const int root = i % wsize;
      if (i % 3 == 2)
        bad += v[k][i] != root * (k + 1) + i;
      else
        bad += s[k][i] != (k + 1) * wsize * (wsize - 1) / 2 + wsize * i;
    }
  CHECK(bad == 0, "many communicators: %d wrong results", bad);
  const int after = mpitest_shm_mappings("coll");
  CHECK(after - before == ncomm * shm_expected(), "many communicators: regions %d -> %d (expected +%d)", before, after,
        ncomm * shm_expected());
  for (int k = 0; k < ncomm; ++k) CHECK_MPI(MPI_Comm_free(&c[k]));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  find_shm_expected();
  first_calls();
  late_rank();
  freed_pending();
  many_at_once();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
