/* Persistent collectives on one host: the shared-memory algorithms bound at init, each operation
 * with a region of its own keyed by its start count (docs/persistent.md).
 *
 * - many operations alive at once (allreduce, bcast, reduce, barrier, alltoall at sizes that travel
 *   in the flag's cache line, in a small buffer and in a larger one), started in an order that
 *   differs between ranks and between rounds, completed with MPI_Waitall, results checked against
 *   local computation, the buffers changed before every start;
 * - blocking and nonblocking collectives on the same communicator between and during the rounds;
 * - a bcast root that runs ahead of receivers that sleep (the root must reuse its slots only after
 *   the receivers have read them), and long runs of one operation (more starts than slots);
 * - bcasts and alltoalls from 32 KiB (by default, where receivers read the root's / peers' bound
 *   buffers in one copy; registered again with BATON_PCOLL_SINGLE_COPY=0: through the region / by
 *   messages), and bcasts from 256 KiB, where the root writes a share of every receiver's buffer
 *   while the receivers read the rest (odd sizes, every root, receivers that start late);
 * - the info key baton_algorithm picking a message algorithm for one operation;
 * - the path taken: on one host with the shared-memory collectives on, every such operation maps
 *   one "baton.<job>.pers" segment, and MPI_Request_free unmaps it (counted in /proc/self/maps).
 * With BATON_COLL_SHM=0, across hosts or with BATON_TRANSPORT=ucx, the same checks run on the
 * message algorithms and no segment may appear. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static int rank, size;
static int expect_shm;  /* the shared-memory persistent path should be taken */
static int single_copy; /* on unless BATON_PCOLL_SINGLE_COPY=0 or BATON_SHM_CMA=0 */

enum kind { k_allreduce, k_bcast, k_reduce, k_barrier, k_alltoall, k_count };
static const char* const kind_names[k_count] = {"allreduce", "bcast", "reduce", "barrier", "alltoall"};

typedef struct op {
  enum kind kind;
  int count; /* ints (alltoall: per block) */
  int root;
  int in_place;
  MPI_Op mop;
  int* sbuf;
  int* rbuf;
  MPI_Request req;
} op;

/* The value rank r contributes at element i in round `it` of operation k. */
static int val(int k, int r, int it, int i) {
  return (k * 131 + r * 1009 + it * 17 + i * 7) % 5003 - 2000;
}

static void op_init(op* o, int k, enum kind kind, int count, MPI_Info info) {
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->count = count;
  o->root = (k * 7) % size;
  o->in_place = kind == k_allreduce && k % 4 == 1;
  o->mop = k % 3 == 0 ? MPI_MAX : MPI_SUM;
  const size_t n = (size_t)(count > 0 ? count : 1) * (kind == k_alltoall ? (size_t)size : 1);
  o->sbuf = (int*)mpitest_malloc(n * sizeof(int));
  o->rbuf = (int*)mpitest_malloc(n * sizeof(int));
  switch (kind) {
    case k_allreduce:
      CHECK_MPI(MPI_Allreduce_init(o->in_place ? MPI_IN_PLACE : o->sbuf, o->rbuf, count, MPI_INT, o->mop,
                                   MPI_COMM_WORLD, info, &o->req));
      break;
    case k_bcast:
      CHECK_MPI(MPI_Bcast_init(o->rbuf, count, MPI_INT, o->root, MPI_COMM_WORLD, info, &o->req));
      break;
    case k_reduce:
      CHECK_MPI(MPI_Reduce_init(o->sbuf, o->rbuf, count, MPI_INT, o->mop, o->root, MPI_COMM_WORLD, info, &o->req));
      break;
    case k_barrier:
      CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, info, &o->req));
      break;
    case k_alltoall:
      CHECK_MPI(MPI_Alltoall_init(o->sbuf, count, MPI_INT, o->rbuf, count, MPI_INT, MPI_COMM_WORLD, info, &o->req));
      break;
    default:
      break;
  }
}

static void op_prepare(op* o, int k, int it) {
  const int n = o->count;
  switch (o->kind) {
    case k_allreduce:
      for (int i = 0; i < n; ++i) {
        if (o->in_place)
          o->rbuf[i] = val(k, rank, it, i);
        else
          o->sbuf[i] = val(k, rank, it, i), o->rbuf[i] = -77;
      }
      break;
    case k_bcast:
      for (int i = 0; i < n; ++i) o->rbuf[i] = rank == o->root ? val(k, o->root, it, i) : -77;
      break;
    case k_reduce:
      for (int i = 0; i < n; ++i) o->sbuf[i] = val(k, rank, it, i), o->rbuf[i] = -77;
      break;
    case k_alltoall:
      for (int p = 0; p < size; ++p)
        for (int i = 0; i < n; ++i) {
          o->sbuf[p * n + i] = val(k, rank, it, p * n + i);
          o->rbuf[p * n + i] = -77;
        }
      break;
    default:
      break;
  }
}

/* Wrong elements of o's result in round `it`. */
static int op_check(const op* o, int k, int it) {
  const int n = o->count;
  int bad = 0;
  switch (o->kind) {
    case k_allreduce:
    case k_reduce:
      if (o->kind == k_reduce && rank != o->root) {
        for (int i = 0; i < n; ++i) bad += o->rbuf[i] != -77; /* untouched */
        break;
      }
      for (int i = 0; i < n; ++i) {
        int want = val(k, 0, it, i);
        for (int r = 1; r < size; ++r) {
          const int v = val(k, r, it, i);
          want = o->mop == MPI_MAX ? (v > want ? v : want) : want + v;
        }
        bad += o->rbuf[i] != want;
      }
      break;
    case k_bcast:
      for (int i = 0; i < n; ++i) bad += o->rbuf[i] != val(k, o->root, it, i);
      break;
    case k_alltoall:
      for (int p = 0; p < size; ++p)
        for (int i = 0; i < n; ++i) bad += o->rbuf[p * n + i] != val(k, p, it, rank * n + i);
      break;
    default:
      break;
  }
  return bad;
}

static void op_free(op* o) {
  CHECK_MPI(MPI_Request_free(&o->req));
  CHECK(o->req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
  free(o->sbuf);
  free(o->rbuf);
}

/* A permutation of 0..n-1 that depends on the rank and the round. */
static void shuffle(int* perm, int n, unsigned seed) {
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = n - 1; i > 0; --i) {
    seed = seed * 1103515245u + 12345u;
    const int j = (int)((seed >> 8) % (unsigned)(i + 1));
    const int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* ---- many alive, started in different orders, mixed with other collectives ---- */
enum { nops = 60, rounds = 25 };
static const int sizes[] = {1, 3, 12, 200, 2000}; /* ints: in the flag line, small buffers, 8 KB */

static void test_many(void) {
  op* ops = (op*)mpitest_malloc(sizeof(op) * nops);
  MPI_Request* reqs = (MPI_Request*)mpitest_malloc(sizeof(MPI_Request) * nops);
  int perm[nops];
  const int before = mpitest_shm_mappings("pers");
  int shm_ops = 0;
  for (int k = 0; k < nops; ++k) {
    const enum kind kind = (enum kind)(k % k_count);
    int count = sizes[(k / k_count) % 5];
    if (kind == k_alltoall && count > 200) count = 200;
    if (kind == k_bcast && count == 2000) count = 9000; /* 36 KB: the root's buffer read in one copy */
    op_init(&ops[k], k, kind, count, MPI_INFO_NULL);
    ++shm_ops;
  }
  const int alive = mpitest_shm_mappings("pers") - before;
  if (expect_shm)
    CHECK(alive == shm_ops, "%d persistent operations alive map %d shared segments (expected one each)", shm_ops,
          alive);
  else
    CHECK(alive == 0, "%d shared segments mapped without the shared-memory path", alive);

  int bad = 0, blocking_bad = 0;
  for (int it = 0; it < rounds; ++it) {
    for (int k = 0; k < nops; ++k) op_prepare(&ops[k], k, it);
    /* starts in a rank- and round-dependent order; some by MPI_Start, the rest by MPI_Startall */
    shuffle(perm, nops, (unsigned)(rank * 7919 + it * 104729 + 1));
    const int split = (it * 13 + rank * 5) % nops;
    for (int j = 0; j < split; ++j) CHECK_MPI(MPI_Start(&ops[perm[j]].req));
    for (int j = split; j < nops; ++j) reqs[j - split] = ops[perm[j]].req;
    CHECK_MPI(MPI_Startall(nops - split, reqs));
    /* a nonblocking collective while they run */
    int mine = rank + it, sum = -1;
    MPI_Request ir;
    CHECK_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ir));
    for (int k = 0; k < nops; ++k) reqs[k] = ops[k].req;
    if (it % 2 == 0) {
      CHECK_MPI(MPI_Waitall(nops, reqs, MPI_STATUSES_IGNORE));
    } else {
      /* one at a time, in another order */
      shuffle(perm, nops, (unsigned)(rank * 31 + it * 977 + 5));
      for (int j = 0; j < nops; ++j) CHECK_MPI(MPI_Wait(&reqs[perm[j]], MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Wait(&ir, MPI_STATUS_IGNORE));
    blocking_bad += sum != size * (size - 1) / 2 + size * it;
    for (int k = 0; k < nops; ++k) {
      CHECK(reqs[k] == ops[k].req, "a completed persistent request changed its handle");
      const int b = op_check(&ops[k], k, it);
      if (b && bad == 0)
        CHECK(0, "round %d: %s (count %d, root %d) has %d wrong elements", it, kind_names[ops[k].kind], ops[k].count,
              ops[k].root, b);
      bad += b;
    }
    /* blocking collectives on the same communicator between rounds */
    int v[3] = {rank, it, 1}, w[3] = {0, 0, 0};
    CHECK_MPI(MPI_Allreduce(v, w, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    blocking_bad += w[0] != size * (size - 1) / 2 || w[1] != it * size || w[2] != size;
    int b = rank == it % size ? it * 3 : -1;
    CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, it % size, MPI_COMM_WORLD));
    blocking_bad += b != it * 3;
  }
  CHECK(bad == 0, "%d wrong elements in %d rounds of %d persistent operations", bad, rounds, nops);
  CHECK(blocking_bad == 0, "%d wrong blocking/nonblocking results mixed with persistent operations", blocking_bad);
  for (int k = 0; k < nops; ++k) op_free(&ops[k]);
  const int left = mpitest_shm_mappings("pers") - before;
  CHECK(left == 0, "MPI_Request_free left %d shared segments mapped", left);
  free(ops);
  free(reqs);
}

/* ---- one operation started far more often than it has slots; a bcast root that runs ahead ---- */
/* Starts two persistent requests, in an order that differs between ranks and starts, and
 * completes them. */
static void start_both(MPI_Request req[2], int it) {
  if ((it + rank) % 2) {
    CHECK_MPI(MPI_Start(&req[1]));
    CHECK_MPI(MPI_Start(&req[0]));
  } else {
    CHECK_MPI(MPI_Startall(2, req));
  }
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
}

/* Large persistent bcasts (split single copy from 256 KiB: the root writes the last 1/n of each
 * receiver's buffer while the receivers read the rest): odd byte counts, every root, the buffers
 * changed before every start, receivers that start late now and then (the root must not write
 * before they have started), two operations alive at once and started in different orders. */
static void test_large_bcast(void) {
  static const int bytes[] = {256 << 10, (300 << 10) + 37, 1 << 20};
  for (int k = 0; k < 3; ++k) {
    const int n = bytes[k];
    const int root = k % size;
    const int root2 = (k + 1) % size;
    unsigned char* buf = malloc((size_t)n);
    unsigned char* buf2 = malloc((size_t)n);
    MPI_Request req[2];
    const int before = mpitest_shm_mappings("pers");
    CHECK_MPI(MPI_Bcast_init(buf, n, MPI_BYTE, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    CHECK_MPI(MPI_Bcast_init(buf2, n, MPI_BYTE, root2, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    CHECK(!expect_shm || !single_copy || mpitest_shm_mappings("pers") - before == 2,
          "bcast of %d bytes: %d shared segments mapped, expected 2", n, mpitest_shm_mappings("pers") - before);
    int bad = 0;
    for (int it = 0; it < 40; ++it) {
      for (int i = 0; i < n; ++i) {
        buf[i] = rank == root ? (unsigned char)(i * 7 + it) : 0xee;
        buf2[i] = rank == root2 ? (unsigned char)(i * 13 + it + 1) : 0xdd;
      }
      if (rank != root && it % 9 == 4) usleep(2000);
      start_both(req, it);
      for (int i = 0; i < n && bad < 3; ++i) {
        if (buf[i] != (unsigned char)(i * 7 + it)) {
          ++bad;
          CHECK(0, "bcast %d bytes from %d, start %d: byte %d is %d, expected %d", n, root, it, i, buf[i],
                (unsigned char)(i * 7 + it));
        }
        if (buf2[i] != (unsigned char)(i * 13 + it + 1)) {
          ++bad;
          CHECK(0, "bcast %d bytes from %d, start %d: byte %d is %d, expected %d", n, root2, it, i, buf2[i],
                (unsigned char)(i * 13 + it + 1));
        }
      }
    }
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    free(buf);
    free(buf2);
  }
}

/* Large persistent allreduces (single copy from 128 KiB: each rank reduces its 1/n of the
 * elements from the peers' send buffers and writes the result into every receive buffer): odd
 * counts, a sum and a non-commutative user op (the left operand: the result is rank 0's input,
 * so any order but rank order shows), the inputs changed before every start, ranks that start
 * late now and then, two operations alive at once. */
static void left(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}
static void test_large_allreduce(void) {
  static const int counts[] = {32768, 40007, 262147};
  MPI_Op left_op;
  CHECK_MPI(MPI_Op_create(left, 0, &left_op));
  for (int k = 0; k < 3; ++k) {
    const int n = counts[k];
    int* in = malloc((size_t)n * sizeof(int));
    int* out = malloc((size_t)n * sizeof(int));
    int* in2 = malloc((size_t)n * sizeof(int));
    int* out2 = malloc((size_t)n * sizeof(int));
    MPI_Request req[2];
    const int before = mpitest_shm_mappings("pers");
    CHECK_MPI(MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    CHECK_MPI(MPI_Allreduce_init(in2, out2, n, MPI_INT, left_op, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    CHECK(!expect_shm || !single_copy || mpitest_shm_mappings("pers") - before == 2,
          "allreduce of %d ints: %d shared segments mapped, expected 2", n, mpitest_shm_mappings("pers") - before);
    int bad = 0;
    for (int it = 0; it < 30; ++it) {
      for (int i = 0; i < n; ++i) {
        in[i] = i % 1000 + rank * 7 + it;
        in2[i] = i * (rank + 1) + it;
        out[i] = out2[i] = -1;
      }
      if (it % 7 == rank % 3) usleep(2000);
      start_both(req, it);
      for (int i = 0; i < n && bad < 3; ++i) {
        const int sum = size * (i % 1000 + it) + 7 * size * (size - 1) / 2;
        if (out[i] != sum) {
          ++bad;
          CHECK(0, "allreduce of %d ints, start %d: element %d is %d, expected %d", n, it, i, out[i], sum);
        }
        if (out2[i] != i + it) {
          ++bad;
          CHECK(0, "allreduce (left op) of %d ints, start %d: element %d is %d, expected %d", n, it, i, out2[i],
                i + it);
        }
      }
    }
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    free(in);
    free(out);
    free(in2);
    free(out2);
  }
  CHECK_MPI(MPI_Op_free(&left_op));
}

static void test_long_runs(void) {
  static const int counts[] = {1, 12, 100, 10000};
  for (int c = 0; c < 4; ++c) {
    op b, a, t;
    const int before = mpitest_shm_mappings("pers");
    op_init(&b, 100 + c, k_bcast, counts[c], MPI_INFO_NULL);
    op_init(&a, 200 + c, k_allreduce, counts[c], MPI_INFO_NULL);
    op_init(&t, 400 + c, k_alltoall, counts[c], MPI_INFO_NULL);
    /* the allreduce of 40 KB is past the shared-memory reductions at 7+ ranks (and below single copy's 128 KiB); the alltoall of 40 KB
     * blocks past the shared-memory alltoall unless single copy is on (BATON_PCOLL_SINGLE_COPY=0 turns it off) */
    int want = 3;
    if (c == 3 && size * counts[c] * 4 > (256 << 10)) --want;
    if (c == 3 && !(single_copy && size * counts[c] * 4 <= (4 << 20))) --want;
    if (!expect_shm) want = 0;
    CHECK(mpitest_shm_mappings("pers") - before == want, "count %d: %d shared segments mapped, expected %d", counts[c],
          mpitest_shm_mappings("pers") - before, want);
    int bad = 0;
    for (int it = 0; it < 100; ++it) {
      /* receivers fall behind now and then, so the root reuses slots that they still read */
      if (rank != b.root && it % 37 == 5) usleep(20000);
      op_prepare(&b, 100 + c, it);
      CHECK_MPI(MPI_Start(&b.req));
      CHECK_MPI(MPI_Wait(&b.req, MPI_STATUS_IGNORE));
      bad += op_check(&b, 100 + c, it);
    }
    for (int it = 0; it < 100; ++it) {
      op_prepare(&a, 200 + c, it);
      CHECK_MPI(MPI_Start(&a.req));
      if (rank == it % size) usleep(1000); /* one rank late: the others wait for it */
      CHECK_MPI(MPI_Wait(&a.req, MPI_STATUS_IGNORE));
      bad += op_check(&a, 200 + c, it);
    }
    /* alltoall: from 32 KiB of blocks per rank each rank reads the peers' send buffers in one copy */
    for (int it = 0; it < 60; ++it) {
      op_prepare(&t, 400 + c, it);
      CHECK_MPI(MPI_Start(&t.req));
      if (rank == it % size && it % 7 == 3) usleep(2000);
      CHECK_MPI(MPI_Wait(&t.req, MPI_STATUS_IGNORE));
      bad += op_check(&t, 400 + c, it);
    }
    CHECK(bad == 0, "count %d: %d wrong elements over the starts of bcast, allreduce and alltoall", counts[c], bad);
    op_free(&b);
    op_free(&a);
    op_free(&t);
  }
}

/* ---- baton_algorithm picks a message algorithm: no segment ---- */
static void test_named(void) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "recursive_doubling"));
  const int before = mpitest_shm_mappings("pers");
  op a;
  op_init(&a, 300, k_allreduce, 5, info);
  CHECK(mpitest_shm_mappings("pers") == before, "baton_algorithm=recursive_doubling still mapped a shared segment");
  int bad = 0;
  for (int it = 0; it < 20; ++it) {
    op_prepare(&a, 300, it);
    CHECK_MPI(MPI_Start(&a.req));
    CHECK_MPI(MPI_Wait(&a.req, MPI_STATUS_IGNORE));
    bad += op_check(&a, 300, it);
  }
  CHECK(bad == 0, "allreduce with baton_algorithm=recursive_doubling: %d wrong elements", bad);
  op_free(&a);
  if (expect_shm) {
    /* and naming the shared-memory algorithm works where it can run */
    CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "shm"));
    op_init(&a, 301, k_allreduce, 5, info);
    CHECK(mpitest_shm_mappings("pers") == before + 1, "baton_algorithm=shm mapped %d segments", mpitest_shm_mappings("pers") - before);
    for (int it = 0; it < 20; ++it) {
      op_prepare(&a, 301, it);
      CHECK_MPI(MPI_Start(&a.req));
      CHECK_MPI(MPI_Wait(&a.req, MPI_STATUS_IGNORE));
      bad += op_check(&a, 301, it);
    }
    CHECK(bad == 0, "allreduce with baton_algorithm=shm: %d wrong elements", bad);
    op_free(&a);
  }
  CHECK_MPI(MPI_Info_free(&info));
}

/* ---- a communicator of its own, made and freed while its operations are alive ---- */
static void test_dup(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int s = rank + 1, r = 0;
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init(&s, &r, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &req));
  CHECK_MPI(MPI_Comm_free(&dup)); /* the request keeps what it needs */
  int bad = 0;
  for (int it = 0; it < 40; ++it) {
    s = rank + 1 + it;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    bad += r != size * (size + 1) / 2 + size * it;
  }
  CHECK(bad == 0, "allreduce on a freed communicator's persistent request: %d wrong results", bad);
  CHECK_MPI(MPI_Request_free(&req));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int node_size = 0;
  CHECK_MPI(MPI_Comm_size(node, &node_size));
  CHECK_MPI(MPI_Comm_free(&node));
  const char* off = getenv("BATON_COLL_SHM");
  const char* transport = getenv("BATON_TRANSPORT");
  const char* sc = getenv("BATON_PCOLL_SINGLE_COPY");
  const char* cma = getenv("BATON_SHM_CMA");
  single_copy = !(sc && strcmp(sc, "0") == 0) && !(cma && strcmp(cma, "0") == 0);
  expect_shm = size >= 2 && node_size == size && !(off && strcmp(off, "0") == 0) &&
               !(transport && strcmp(transport, "ucx") == 0);

  test_many();
  test_long_runs();
  test_large_bcast();
  test_large_allreduce();
  test_named();
  test_dup();

  if (rank == 0) printf("persistent collectives on %s: done\n", expect_shm ? "shared memory" : "messages");
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
