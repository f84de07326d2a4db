/* The algorithm test matrix for barrier, bcast, reduce and allreduce: coll_algorithms.cmake runs
 * this program once per registry line of those collectives (src/coll/algorithms.def), forcing it
 * with BATON_<COLL>_ALGORITHM=<name>, and once with the default selection. Where the forced
 * algorithm cannot run the arguments (a commutative-only algorithm given a non-commutative op) the
 * library falls back to one that can, so every check must pass under every override.
 *
 * Counts 0, 1, nranks-1, nranks, odd ones, and past the 64 KiB and 128 KiB selection thresholds;
 * every root for bcast and reduce; blocking and nonblocking forms; in place and not; SUM on int
 * and double, MAX, a non-commutative user op (2x2 matrix product mod 2^32), a derived contiguous
 * type, a non-contiguous vector type for bcast, and bcasts whose root and receivers use different
 * datatypes with the same type signature. Expected values are computed locally. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "mpitest_matrix.h"

static int rank, size;

/* Test data: element i of rank r (small, so sums of ints and of halves in doubles are exact). */
static int ival(int64_t i, int r) {
  return (int)((i * 7 + r * 13) % 1000) - 300;
}
static double dval(int64_t i, int r) {
  return (double)(i % 50) + 0.5 * r;
}
static int mval(int64_t i, int r) {
  return (int)((i * 31 + r * 17 + (i >> 3)) % 1009);
}

/* Product M_0 x M_1 x ... x M_{size-1} for element i. */
static void matrix_product(int64_t i, unsigned* out) {
  mpitest_matrix(i, 0, out);
  for (int r = 1; r < size; ++r) {
    unsigned m[4], acc[4];
    int len = 1;
    mpitest_matrix(i, r, m);
    memcpy(acc, out, sizeof acc);
    mpitest_matmul(acc, m, &len, NULL); /* m = acc x m */
    memcpy(out, m, sizeof m);
  }
}

static int64_t counts[16];
static int ncounts;

static void make_counts(void) {
  const int64_t base[] = {0, 1, size > 1 ? size - 1 : 2, size, 13, 1000, 20000 /* 80 KiB of int */,
                          40001 /* 160 KiB of int: single-copy reduce and allreduce by default */};
  ncounts = 0;
  for (unsigned k = 0; k < sizeof base / sizeof base[0]; ++k) counts[ncounts++] = base[k];
}

static void test_barrier(void) {
  for (int k = 0; k < 5; ++k) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request req;
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void test_bcast(void) {
  MPI_Datatype triple, strided;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &triple));
  CHECK_MPI(MPI_Type_commit(&triple));
  /* non-contiguous: 2 ints with a hole of one int between them (extent 3 ints) */
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  for (int c = 0; c < ncounts + 1; ++c) {
    const int64_t n = c < ncounts ? counts[c] : 300000; /* 1.2 MB once */
    int* buf = mpitest_malloc(sizeof(int) * (size_t)(3 * n + 1));
    for (int root = 0; root < size; ++root) {
      if (c == ncounts && root != 0 && root != size - 1) continue;
      for (int64_t i = 0; i < n; ++i) buf[i] = rank == root ? ival(i, root) : -7;
      CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_INT, root, MPI_COMM_WORLD));
      int64_t bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += buf[i] != ival(i, root);
      CHECK(bad == 0, "bcast int n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);

      MPI_Request req;
      for (int64_t i = 0; i < n; ++i) buf[i] = rank == root ? ival(i, root + 1) : -7;
      CHECK_MPI(MPI_Ibcast(buf, (int)n, MPI_INT, root, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += buf[i] != ival(i, root + 1);
      CHECK(bad == 0, "ibcast int n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);

      /* n elements of 3 ints */
      for (int64_t i = 0; i < 3 * n; ++i) buf[i] = rank == root ? ival(i, root + 2) : -7;
      CHECK_MPI(MPI_Bcast(buf, (int)n, triple, root, MPI_COMM_WORLD));
      bad = 0;
      for (int64_t i = 0; i < 3 * n; ++i) bad += buf[i] != ival(i, root + 2);
      CHECK(bad == 0, "bcast contiguous(3) n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);

      /* n elements of the strided type: ints 3k and 3k+2 carry data, 3k+1 must stay untouched */
      for (int64_t i = 0; i < 3 * n; ++i) buf[i] = rank == root || i % 3 == 1 ? ival(i, root + 3) : -7;
      CHECK_MPI(MPI_Bcast(buf, (int)n, strided, root, MPI_COMM_WORLD));
      bad = 0;
      for (int64_t i = 0; i + 1 < 3 * n; ++i) bad += buf[i] != ival(i, root + 3);
      CHECK(bad == 0, "bcast vector n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);

      /* one type signature, different types: the root sends n strided elements, the others
       * receive 2n contiguous ints (ranks split the message alike only by its byte count) */
      for (int64_t i = 0; i < 3 * n; ++i) buf[i] = rank == root ? ival(i, root + 4) : -7;
      if (rank == root) {
        CHECK_MPI(MPI_Bcast(buf, (int)n, strided, root, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Bcast(buf, (int)(2 * n), MPI_INT, root, MPI_COMM_WORLD));
      }
      bad = 0;
      for (int64_t k = 0; k < n && rank != root; ++k)
        bad += buf[2 * k] != ival(3 * k, root + 4) || buf[2 * k + 1] != ival(3 * k + 2, root + 4);
      CHECK(bad == 0, "bcast vector -> int n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);

      /* and the reverse: 2n ints at the root, n strided elements elsewhere */
      for (int64_t i = 0; i < 3 * n; ++i) buf[i] = rank == root ? ival(i, root + 5) : -7;
      if (rank == root) {
        CHECK_MPI(MPI_Bcast(buf, (int)(2 * n), MPI_INT, root, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Bcast(buf, (int)n, strided, root, MPI_COMM_WORLD));
      }
      bad = 0;
      for (int64_t k = 0; k < n && rank != root; ++k)
        bad +=
            buf[3 * k] != ival(2 * k, root + 5) || buf[3 * k + 1] != -7 || buf[3 * k + 2] != ival(2 * k + 1, root + 5);
      CHECK(bad == 0, "bcast int -> vector n=%lld root=%d: %lld wrong", (long long)n, root, (long long)bad);
    }
    free(buf);
  }
  MPI_Type_free(&triple);
  MPI_Type_free(&strided);
}

/* One reduction (reduce at `root`, or allreduce when root < 0) of n elements, checked. */
enum kind { K_SUM_INT, K_SUM_DOUBLE, K_MAX_INT, K_MATMUL, K_SUM_PAIR };
static const char* kind_name[] = {"sum int", "sum double", "max int", "non-commutative", "sum contiguous(2)"};

static void reduction(enum kind k, int64_t n, int root, int in_place, int nonblocking, MPI_Op matop, MPI_Datatype mat,
                      MPI_Datatype pair) {
  const int all = root < 0;
  const int receives = all || rank == root;
  int64_t ints = 0; /* size of the buffers in ints (doubles take two) */
  MPI_Datatype t = MPI_INT;
  MPI_Op op = MPI_SUM;
  switch (k) {
    case K_SUM_INT:
      ints = n;
      break;
    case K_SUM_DOUBLE:
      ints = 2 * n;
      t = MPI_DOUBLE;
      break;
    case K_MAX_INT:
      ints = n;
      op = MPI_MAX;
      break;
    case K_MATMUL:
      ints = 4 * n;
      t = mat;
      op = matop;
      break;
    case K_SUM_PAIR:
      ints = 2 * n;
      t = pair;
      break;
  }
  int* in = mpitest_malloc(sizeof(int) * (size_t)(ints + 1));
  int* out = mpitest_malloc(sizeof(int) * (size_t)(ints + 1));
  double* din = (double*)in;
  int* fill = in_place && receives ? out : in;
  double* dfill = (double*)fill;
  for (int64_t i = 0; i < n; ++i) {
    switch (k) {
      case K_SUM_INT:
        fill[i] = ival(i, rank);
        break;
      case K_SUM_DOUBLE:
        dfill[i] = dval(i, rank);
        break;
      case K_MAX_INT:
        fill[i] = mval(i, rank);
        break;
      case K_MATMUL:
        mpitest_matrix(i, rank, (unsigned*)fill + 4 * i);
        break;
      case K_SUM_PAIR:
        fill[2 * i] = ival(i, rank);
        fill[2 * i + 1] = ival(i + 1, rank);
        break;
    }
  }
  if (!(in_place && receives)) memset(out, 0xa5, sizeof(int) * (size_t)(ints + 1));
  (void)din;
  const void* sbuf = in_place && receives ? MPI_IN_PLACE : in;
  MPI_Request req;
  if (all) {
    if (nonblocking) {
      CHECK_MPI(MPI_Iallreduce(sbuf, out, (int)n, t, op, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Allreduce(sbuf, out, (int)n, t, op, MPI_COMM_WORLD));
    }
  } else {
    if (nonblocking) {
      CHECK_MPI(MPI_Ireduce(sbuf, out, (int)n, t, op, root, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Reduce(sbuf, out, (int)n, t, op, root, MPI_COMM_WORLD));
    }
  }
  if (receives) {
    int64_t bad = 0, first = -1, last = -1;
    const double* dout = (const double*)out;
    for (int64_t i = 0; i < n; ++i) {
      int ok = 1;
      switch (k) {
        case K_SUM_INT: {
          int e = 0;
          for (int r = 0; r < size; ++r) e += ival(i, r);
          ok = out[i] == e;
          break;
        }
        case K_SUM_DOUBLE: {
          double e = 0;
          for (int r = 0; r < size; ++r) e += dval(i, r);
          ok = dout[i] == e;
          break;
        }
        case K_MAX_INT: {
          int e = mval(i, 0);
          for (int r = 1; r < size; ++r) e = mval(i, r) > e ? mval(i, r) : e;
          ok = out[i] == e;
          break;
        }
        case K_MATMUL: {
          unsigned e[4];
          matrix_product(i, e);
          ok = memcmp(out + 4 * i, e, sizeof e) == 0;
          break;
        }
        case K_SUM_PAIR: {
          int e0 = 0, e1 = 0;
          for (int r = 0; r < size; ++r) e0 += ival(i, r), e1 += ival(i + 1, r);
          ok = out[2 * i] == e0 && out[2 * i + 1] == e1;
          break;
        }
      }
      if (!ok) {
        if (first < 0) first = i;
        last = i;
        ++bad;
      }
    }
    /* The first and last wrong element as 32-bit words (what was there, in hex), to tell stale,
     * partial or misplaced data apart. */
    const int64_t words = first < 0 ? 0 : (ints + 0) / (n > 0 ? n : 1);
    const unsigned w0 = first < 0 ? 0u : (unsigned)out[first * words];
    const unsigned w1 = first < 0 || words < 2 ? 0u : (unsigned)out[first * words + 1];
    const double d0 = first < 0 || k != K_SUM_DOUBLE ? 0.0 : dout[first];
    const double dl = last < 0 || k != K_SUM_DOUBLE ? 0.0 : dout[last];
    CHECK(bad == 0,
          "%s %s n=%lld root=%d%s%s: %lld wrong, first at %lld (words %08x %08x, as double %g), last at %lld "
          "(as double %g)",
          all ? "allreduce" : "reduce", kind_name[k], (long long)n, root, in_place ? " in place" : "",
          nonblocking ? " nonblocking" : "", (long long)bad, (long long)first, w0, w1, d0, (long long)last, dl);
  }
  free(in);
  free(out);
}

static void test_reductions(void) {
  MPI_Op matop;
  MPI_Datatype mat, pair;
  CHECK_MPI(MPI_Op_create(mpitest_matmul, 0, &matop));
  CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  for (int c = 0; c < ncounts; ++c) {
    const int64_t n = counts[c];
    for (int k = K_SUM_INT; k <= K_SUM_PAIR; ++k) {
      /* allreduce: not in place, in place, nonblocking */
      reduction((enum kind)k, n, -1, 0, 0, matop, mat, pair);
      reduction((enum kind)k, n, -1, 1, 0, matop, mat, pair);
      reduction((enum kind)k, n, -1, c % 2, 1, matop, mat, pair);
      /* reduce at every root, alternating in place at the root */
      for (int root = 0; root < size; ++root)
        reduction((enum kind)k, n, root, (root + c) % 2, root == 1, matop, mat, pair);
    }
  }
  /* past 1 MiB (the ring allreduce threshold) */
  reduction(K_SUM_INT, 300000, -1, 0, 0, matop, mat, pair);
  reduction(K_SUM_DOUBLE, 150000, -1, 1, 1, matop, mat, pair);
  reduction(K_MATMUL, 70000, -1, 0, 0, matop, mat, pair);
  reduction(K_SUM_INT, 300000, size - 1, 1, 0, matop, mat, pair);
  CHECK_MPI(MPI_Op_free(&matop));
  CHECK_MPI(MPI_Type_free(&mat));
  CHECK_MPI(MPI_Type_free(&pair));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_counts();
  test_barrier();
  test_bcast();
  test_reductions();
  test_barrier();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
