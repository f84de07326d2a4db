/* Allocations per start of persistent collectives: zero, on the shared-memory path (one host:
 * allreduce, bcast, reduce, barrier and alltoall at small sizes bind a region of their own) and on
 * the message path (registered again with BATON_COLL_SHM=0, and the 64 KiB allreduce). Early binding puts every allocation
 * (plan, temporaries, step requests, matching buckets) in MPI_<Coll>_init: a start allocates
 * nothing, and a whole start+wait cycle nothing either once the progress engine's pools have grown
 * to the deepest backlog of early messages (at most a handful of times in a run). Counted by wrapping malloc and
 * friends in this program (the library's calls resolve to these definitions). Sanitizer builds replace malloc
 * themselves, so there the program only checks results and says it did not count. */
#define _GNU_SOURCE
#include <stddef.h>

#include "mpitest.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNTING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define COUNTING 0
#endif
#endif
#ifndef COUNTING
#define COUNTING 1
#endif

static long g_allocs;

#if COUNTING
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

void* malloc(size_t n) {
  ++g_allocs;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  ++g_allocs;
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  ++g_allocs;
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  ++g_allocs;
  return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  ++g_allocs;
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
  ++g_allocs;
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}
void free(void* p) {
  __libc_free(p);
}
#endif

static int rank, size;

enum { iters = 500, warm = 100 };

/* Between cases: a persistent barrier (its matching buckets exist from its init on), so a peer that
 * runs ahead into it allocates nothing on this rank while it still counts. */
static MPI_Request sync_req;
static void sync_ranks(void) {
  CHECK_MPI(MPI_Start(&sync_req));
  CHECK_MPI(MPI_Wait(&sync_req, MPI_STATUS_IGNORE));
}

/* Runs `iters` start+wait cycles of the nreq requests (MPI_Start + MPI_Wait for one, MPI_Startall +
 * MPI_Waitall for more) after a warm-up, counting the allocations made inside the starts and in
 * whole cycles. `check` validates the result after each cycle (outside the count). */
static void cycles(MPI_Request* req, int nreq, const char* what, void (*prepare)(int), int (*check)(int)) {
  for (int it = 0; it < warm; ++it) {
    prepare(it);
    CHECK_MPI(MPI_Startall(nreq, req));
    CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    CHECK(check(it), "%s: wrong result at warm-up start %d", what, it);
  }
  long in_start = 0, in_cycle = 0;
  int bad = 0;
  for (int it = warm; it < warm + iters; ++it) {
    prepare(it);
    long a0 = g_allocs;
    int rc1 = nreq == 1 ? MPI_Start(req) : MPI_Startall(nreq, req);
    long a1 = g_allocs;
    int rc2 = nreq == 1 ? MPI_Wait(req, MPI_STATUS_IGNORE) : MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    long a2 = g_allocs;
    in_start += a1 - a0;
    in_cycle += a2 - a0;
    if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS || !check(it)) ++bad;
  }
  /* the next case's messages (its own matching buckets) must not arrive inside this count */
  sync_ranks();
  CHECK(bad == 0, "%s: %d of %d starts failed or gave wrong results", what, bad, iters);
  if (COUNTING) {
    CHECK(in_start == 0, "%s: %ld allocations in %d MPI_Start calls", what, in_start, iters);
    /* The progress engine's pools (unexpected-message entries and payload buffers) only grow when a
     * backlog deeper than any before arrives, which the warm-up usually but not always reaches. */
    CHECK(in_cycle <= 4, "%s: %ld allocations in %d start+wait cycles", what, in_cycle, iters);
    if (rank == 0)
      printf("%s: %.3f allocations per start, %.3f per start+wait (%d starts)\n", what, (double)in_start / iters,
             (double)in_cycle / iters, iters);
  }
}

static double dsend, drecv;
static void prep_allreduce(int it) {
  dsend = rank + it;
}
static int check_allreduce(int it) {
  return drecv == (double)size * (size - 1) / 2 + (double)size * it;
}

static long bval;
static void prep_bcast(int it) {
  bval = rank == 0 ? it * 3 : -1;
}
static int check_bcast(int it) {
  return bval == it * 3;
}

static int* a2a_s;
static int* a2a_r;
static void prep_alltoall(int it) {
  for (int r = 0; r < size; ++r) a2a_s[r] = rank * 100000 + r * 100 + it % 100;
}
static int check_alltoall(int it) {
  for (int r = 0; r < size; ++r)
    if (a2a_r[r] != r * 100000 + rank * 100 + it % 100) return 0;
  return 1;
}

static long rsend, rrecv;
static void prep_reduce(int it) {
  rsend = rank * 5 + it;
  rrecv = -1;
}
static int check_reduce(int it) {
  return rank != size - 1 ? rrecv == -1 : rrecv == 5L * size * (size - 1) / 2 + (long)size * it;
}

enum { mid = 500 }; /* 2 KB of ints: a bcast through a small buffer, not the flag line */
static int* mid_b;
static void prep_mid(int it) {
  for (int i = 0; i < mid; ++i) mid_b[i] = rank == 1 % size ? it * 7 + i : -1;
}
static int check_mid(int it) {
  for (int i = 0; i < mid; ++i)
    if (mid_b[i] != it * 7 + i) return 0;
  return 1;
}

static void prep_none(int it) {
  (void)it;
}
static int check_none(int it) {
  (void)it;
  return 1;
}

enum { bigcount = 8192 }; /* 64 KiB of doubles: rendezvous */
static double* big_s;
static double* big_r;
static void prep_big(int it) {
  for (int i = 0; i < bigcount; i += 512) big_s[i] = rank + it + i;
}
static int check_big(int it) {
  for (int i = 0; i < bigcount; i += 512)
    if (big_r[i] != (double)size * (size - 1) / 2 + (double)size * (it + i)) return 0;
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!COUNTING && rank == 0) printf("sanitizer build: results checked, allocations not counted\n");
  a2a_s = (int*)mpitest_malloc(sizeof(int) * (size_t)size);
  a2a_r = (int*)mpitest_malloc(sizeof(int) * (size_t)size);
  big_s = (double*)mpitest_malloc(sizeof(double) * bigcount);
  big_r = (double*)mpitest_malloc(sizeof(double) * bigcount);
  memset(big_s, 0, sizeof(double) * bigcount);

  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &sync_req));
  MPI_Request req, pair[2];
  CHECK_MPI(MPI_Allreduce_init(&dsend, &drecv, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  /* the path these small operations take: shared memory on one host unless switched off */
  const char* off = getenv("BATON_COLL_SHM");
  const int shm_wanted = size >= 2 && !(off && strcmp(off, "0") == 0);
  const int mapped = mpitest_shm_mappings("pers");
  CHECK(shm_wanted ? mapped >= 1 : mapped == 0, "%d persistent shared-memory segments mapped (BATON_COLL_SHM=%s)",
        mapped, off ? off : "unset");
  if (rank == 0) printf("path: %s\n", mapped > 0 ? "shared memory" : "messages");
  cycles(&req, 1, "allreduce 8 B", prep_allreduce, check_allreduce);
  CHECK_MPI(MPI_Request_free(&req));

  /* reduce leaves finish before the root, so, as for bcast, a barrier keeps them from running
   * ahead (on the message path their early messages would grow the unexpected pools) */
  CHECK_MPI(MPI_Reduce_init(&rsend, &rrecv, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &pair[0]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pair[1]));
  cycles(pair, 2, "reduce 8 B + barrier", prep_reduce, check_reduce);
  CHECK_MPI(MPI_Request_free(&pair[0]));
  CHECK_MPI(MPI_Request_free(&pair[1]));

  mid_b = (int*)mpitest_malloc(sizeof(int) * mid);
  CHECK_MPI(MPI_Bcast_init(mid_b, mid, MPI_INT, 1 % size, MPI_COMM_WORLD, MPI_INFO_NULL, &pair[0]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pair[1]));
  cycles(pair, 2, "bcast 2 KB + barrier", prep_mid, check_mid);
  CHECK_MPI(MPI_Request_free(&pair[0]));
  CHECK_MPI(MPI_Request_free(&pair[1]));
  free(mid_b);

  /* a bcast root finishes as soon as its eager sends are queued, so alone it could run ahead of
   * the others without bound (and its queue grow): pair it with a barrier */
  CHECK_MPI(MPI_Bcast_init(&bval, 1, MPI_LONG, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pair[0]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pair[1]));
  cycles(pair, 2, "bcast 8 B + barrier", prep_bcast, check_bcast);
  CHECK_MPI(MPI_Request_free(&pair[0]));
  CHECK_MPI(MPI_Request_free(&pair[1]));

  CHECK_MPI(MPI_Alltoall_init(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  cycles(&req, 1, "alltoall 4 B", prep_alltoall, check_alltoall);
  CHECK_MPI(MPI_Request_free(&req));

  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  cycles(&req, 1, "barrier", prep_none, check_none);
  CHECK_MPI(MPI_Request_free(&req));

  CHECK_MPI(MPI_Allreduce_init(big_s, big_r, bigcount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  cycles(&req, 1, "allreduce 64 KiB", prep_big, check_big);
  CHECK_MPI(MPI_Request_free(&req));

  CHECK_MPI(MPI_Request_free(&sync_req));
  free(a2a_s);
  free(a2a_r);
  free(big_s);
  free(big_r);
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
