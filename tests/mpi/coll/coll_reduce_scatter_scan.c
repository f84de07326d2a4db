/* Reduce_scatter_block, reduce_scatter, scan, exscan: results checked against values computed
 * locally. Counts from 0 to blocks above 64 KB, unequal and zero receive counts, MPI_IN_PLACE,
 * every predefined op on ints (and MAXLOC on MPI_2INT) through scan, a non-commutative user op
 * (2x2 matrix product) kept in rank order, a strided derived type, the _c forms, and several
 * nonblocking calls outstanding. Registered once per algorithm by coll_alltoall.cmake. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;
static MPI_Datatype mat;     /* 4 contiguous ints: a 2x2 matrix */
static MPI_Datatype strided; /* an int every other int */
static MPI_Op matop;

static void matmul(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int* a = (int*)in;
  int* b = (int*)inout;
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0;
    b[1] = c1;
    b[2] = c2;
    b[3] = c3;
  }
}

/* Rank r's matrix for element e: upper triangular with small entries (products stay small). */
static void rank_matrix(int r, int e, int* m) {
  m[0] = 1;
  m[1] = (r + e) % 5;
  m[2] = 0;
  m[3] = 1 + ((r + e) % 2);
}

/* expect = m(lo, e) * m(lo+1, e) * ... * m(hi-1, e); identity when lo == hi */
static void mat_range(int lo, int hi, int e, int* expect) {
  expect[0] = 1;
  expect[1] = 0;
  expect[2] = 0;
  expect[3] = 1;
  for (int r = lo; r < hi; ++r) {
    int b[4], len = 1;
    MPI_Datatype d = mat;
    rank_matrix(r, e, b);
    matmul(expect, b, &len, &d); /* b = expect * b */
    memcpy(expect, b, sizeof b);
  }
}

static int contrib(int r, int j, int i) { return r * 3 + j * 5 + i % 1000; }

static void test_reduce_scatter_block(void) {
  const int counts[] = {0, 1, 5, 20000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    const size_t total = (size_t)n * (size_t)size;
    int* sbuf = mpitest_malloc(sizeof(int) * total);
    int* rbuf = mpitest_malloc(sizeof(int) * total);
    for (int form = 0; form < 5; ++form) {
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < n; ++i) sbuf[(size_t)j * n + i] = contrib(rank, j, i);
      for (size_t k = 0; k < total; ++k) rbuf[k] = -1;
      MPI_Request req;
      MPI_Op op = form == 4 ? MPI_MAX : MPI_SUM;
      if (form == 0) CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_INT, op, MPI_COMM_WORLD));
      if (form == 1) CHECK_MPI(MPI_Reduce_scatter_block_c(sbuf, rbuf, n, MPI_INT, op, MPI_COMM_WORLD));
      if (form == 2) {
        CHECK_MPI(MPI_Ireduce_scatter_block(sbuf, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      if (form == 3 || form == 4) { /* in place */
        memcpy(rbuf, sbuf, sizeof(int) * total);
        CHECK_MPI(MPI_Ireduce_scatter_block_c(MPI_IN_PLACE, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      int bad = 0;
      for (int i = 0; i < n; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) {
          int v = contrib(r, rank, i);
          e = op == MPI_SUM ? e + v : (r == 0 || v > e ? v : e);
        }
        bad += rbuf[i] != e;
      }
      if (form < 3)
        for (size_t k = (size_t)n; k < total; ++k) bad += rbuf[k] != -1;
      CHECK(bad == 0, "reduce_scatter_block form %d n=%d: %d wrong", form, n, bad);
    }
    free(sbuf);
    free(rbuf);
  }
  /* non-commutative, 3 matrices per rank, in place and not */
  for (int inplace = 0; inplace < 2; ++inplace) {
    const int n = 3;
    int* sbuf = mpitest_malloc(sizeof(int) * 4 * n * (size_t)size);
    int* rbuf = mpitest_malloc(sizeof(int) * 4 * n * (size_t)size);
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) rank_matrix(rank, j * n + i, sbuf + 4 * (j * n + i));
    if (inplace) {
      memcpy(rbuf, sbuf, sizeof(int) * 4 * n * (size_t)size);
      CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, rbuf, n, mat, matop, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, n, mat, matop, MPI_COMM_WORLD));
    }
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      int e[4];
      mat_range(0, size, rank * n + i, e);
      bad += memcmp(e, rbuf + 4 * i, sizeof e) != 0;
    }
    CHECK(bad == 0, "reduce_scatter_block matrices in place=%d: %d wrong", inplace, bad);
    free(sbuf);
    free(rbuf);
  }
}

static void test_reduce_scatter(void) {
  const int scales[] = {1, 9000};
  for (unsigned s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
    int* rc = malloc(sizeof(int) * size);
    MPI_Count* rcc = malloc(sizeof(MPI_Count) * size);
    int* displ = malloc(sizeof(int) * size);
    int total = 0;
    for (int j = 0; j < size; ++j) {
      rc[j] = ((j * 3) % 4) * scales[s]; /* rank 0 (and every 4th) gets nothing */
      rcc[j] = rc[j];
      displ[j] = total;
      total += rc[j];
    }
    int* sbuf = mpitest_malloc(sizeof(int) * (size_t)total);
    int* rbuf = mpitest_malloc(sizeof(int) * (size_t)total);
    for (int form = 0; form < 4; ++form) {
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < rc[j]; ++i) sbuf[displ[j] + i] = contrib(rank, j, i);
      for (int k = 0; k < total; ++k) rbuf[k] = -1;
      MPI_Request req;
      if (form == 0) CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      if (form == 1) CHECK_MPI(MPI_Reduce_scatter_c(sbuf, rbuf, rcc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      if (form == 2) {
        CHECK_MPI(MPI_Ireduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      if (form == 3) {
        memcpy(rbuf, sbuf, sizeof(int) * (size_t)total);
        CHECK_MPI(MPI_Ireduce_scatter_c(MPI_IN_PLACE, rbuf, rcc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      int bad = 0;
      for (int i = 0; i < rc[rank]; ++i) {
        int e = 0;
        for (int r = 0; r < size; ++r) e += contrib(r, rank, i);
        bad += rbuf[i] != e;
      }
      if (form < 3)
        for (int k = rc[rank]; k < total; ++k) bad += rbuf[k] != -1;
      CHECK(bad == 0, "reduce_scatter form %d scale %d: %d wrong", form, scales[s], bad);
    }
    free(sbuf);
    free(rbuf);
    free(rc);
    free(rcc);
    free(displ);
  }
  /* non-commutative with unequal counts (matrices), in place */
  {
    int* rc = malloc(sizeof(int) * size);
    int total = 0;
    for (int j = 0; j < size; ++j) total += rc[j] = (j + 1) % 3;
    int* buf = mpitest_malloc(sizeof(int) * 4 * (size_t)(total + 1));
    for (int k = 0; k < total; ++k) rank_matrix(rank, k, buf + 4 * k);
    int first = 0;
    for (int j = 0; j < rank; ++j) first += rc[j];
    CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, buf, rc, mat, matop, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < rc[rank]; ++i) {
      int e[4];
      mat_range(0, size, first + i, e);
      bad += memcmp(e, buf + 4 * i, sizeof e) != 0;
    }
    CHECK(bad == 0, "reduce_scatter matrices in place: %d wrong", bad);
    free(buf);
    free(rc);
  }
}

/* Scan and exscan over every predefined op that applies to int. */
static const MPI_Op int_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR,
                                 MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static int apply(MPI_Op op, int a, int b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return !a != !b;
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  return a ^ b;
}
static int scan_value(MPI_Op op, int r, int i) {
  if (op == MPI_PROD) return 1 + (r + i) % 2;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return (r + i) % 3 != 0;
  return (r * 37 + i * 11) % 101 - 30;
}

static void test_scan(void) {
  const int counts[] = {0, 1, 7, 20000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    int* sbuf = mpitest_malloc(sizeof(int) * (size_t)n);
    int* rbuf = mpitest_malloc(sizeof(int) * (size_t)n);
    for (unsigned o = 0; o < sizeof int_ops / sizeof int_ops[0]; ++o) {
      MPI_Op op = int_ops[o];
      for (int form = 0; form < 8; ++form) {
        const int ex = form >= 4, inplace = form % 4 == 3;
        /* the big count runs every form with SUM only */
        if (n > 1000 && op != MPI_SUM) continue;
        for (int i = 0; i < n; ++i) sbuf[i] = scan_value(op, rank, i);
        for (int i = 0; i < n; ++i) rbuf[i] = inplace ? sbuf[i] : -12345;
        const void* sb = inplace ? MPI_IN_PLACE : sbuf;
        MPI_Request req = MPI_REQUEST_NULL;
        switch (form % 4) {
          case 0:
            CHECK_MPI(ex ? MPI_Exscan(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD)
                         : MPI_Scan(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD));
            break;
          case 1:
            CHECK_MPI(ex ? MPI_Exscan_c(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD)
                         : MPI_Scan_c(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD));
            break;
          case 2:
            CHECK_MPI(ex ? MPI_Iexscan(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req)
                         : MPI_Iscan(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req));
            break;
          default:
            CHECK_MPI(ex ? MPI_Iexscan_c(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req)
                         : MPI_Iscan_c(sb, rbuf, n, MPI_INT, op, MPI_COMM_WORLD, &req));
            break;
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (ex && rank == 0) continue; /* undefined */
        int bad = 0;
        for (int i = 0; i < n; ++i) {
          int e = scan_value(op, 0, i);
          for (int r = 1; r < (ex ? rank : rank + 1); ++r) e = apply(op, e, scan_value(op, r, i));
          bad += rbuf[i] != e;
        }
        CHECK(bad == 0, "%s op %u form %d n=%d: %d wrong", ex ? "exscan" : "scan", o, form, n, bad);
      }
    }
    free(sbuf);
    free(rbuf);
  }
  /* MAXLOC on MPI_2INT */
  {
    int v[2] = {(rank * 5) % 3, rank}, res[2] = {-1, -1};
    CHECK_MPI(MPI_Scan(v, res, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    int best = 0, at = 0;
    for (int r = 0; r <= rank; ++r)
      if ((r * 5) % 3 > best) best = (r * 5) % 3, at = r;
    CHECK(res[0] == best && res[1] == at, "scan maxloc: %d@%d, expected %d@%d", res[0], res[1], best, at);
  }
  /* non-commutative: 5 matrices, scan and exscan, in place and not */
  for (int form = 0; form < 4; ++form) {
    const int n = 5, ex = form >= 2, inplace = form % 2;
    int sbuf[20], rbuf[20];
    for (int i = 0; i < n; ++i) rank_matrix(rank, i, sbuf + 4 * i);
    memcpy(rbuf, sbuf, sizeof sbuf);
    const void* sb = inplace ? MPI_IN_PLACE : sbuf;
    CHECK_MPI(ex ? MPI_Exscan(sb, rbuf, n, mat, matop, MPI_COMM_WORLD)
                 : MPI_Scan(sb, rbuf, n, mat, matop, MPI_COMM_WORLD));
    if (ex && rank == 0) continue;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      int e[4];
      mat_range(0, ex ? rank : rank + 1, i, e);
      bad += memcmp(e, rbuf + 4 * i, sizeof e) != 0;
    }
    CHECK(bad == 0, "%s matrices in place=%d: %d wrong", ex ? "exscan" : "scan", inplace, bad);
  }
  /* a strided derived type: every other int carries data, the gaps stay untouched */
  {
    const int n = 1000;
    int* sbuf = mpitest_malloc(sizeof(int) * 2 * n);
    int* rbuf = mpitest_malloc(sizeof(int) * 2 * n);
    for (int i = 0; i < 2 * n; ++i) {
      sbuf[i] = i % 2 ? -3 : rank + i;
      rbuf[i] = -1;
    }
    CHECK_MPI(MPI_Scan(sbuf, rbuf, n, strided, MPI_SUM, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < 2 * n; ++i) bad += rbuf[i] != (i % 2 ? -1 : rank * (rank + 1) / 2 + (rank + 1) * i);
    CHECK(bad == 0, "scan strided: %d wrong", bad);
    free(sbuf);
    free(rbuf);
  }
}

static void test_outstanding(void) {
  enum { K = 8, N = 300 };
  MPI_Request reqs[K];
  int sb[K][N * 8], rb[K][N * 8];
  int* rc = malloc(sizeof(int) * size);
  for (int j = 0; j < size; ++j) rc[j] = N / size;
  for (int k = 0; k < K; ++k) {
    for (int i = 0; i < N * 8; ++i) sb[k][i] = rank + i + k;
    if (k % 4 == 0) CHECK_MPI(MPI_Iscan(sb[k], rb[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
    if (k % 4 == 1) CHECK_MPI(MPI_Iexscan(sb[k], rb[k], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
    if (k % 4 == 2)
      CHECK_MPI(MPI_Ireduce_scatter_block(sb[k], rb[k], N / size, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
    if (k % 4 == 3) CHECK_MPI(MPI_Ireduce_scatter(sb[k], rb[k], rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
  }
  CHECK_MPI(MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE));
  for (int k = 0; k < K; ++k) {
    int bad = 0;
    if (k % 4 == 0)
      for (int i = 0; i < N; ++i) bad += rb[k][i] != rank * (rank + 1) / 2 + (rank + 1) * (i + k);
    if (k % 4 == 1 && rank > 0)
      for (int i = 0; i < N; ++i) bad += rb[k][i] != rank * (rank - 1) / 2 + rank * (i + k);
    if (k % 4 >= 2)
      for (int i = 0; i < N / size; ++i)
        bad += rb[k][i] != size * (size - 1) / 2 + size * (rank * (N / size) + i + k);
    CHECK(bad == 0, "outstanding call %d: %d wrong", k, bad);
  }
  free(rc);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_Op_create(matmul, 0, &matop));
  test_reduce_scatter_block();
  test_reduce_scatter();
  test_scan();
  test_outstanding();
  MPI_Op_free(&matop);
  MPI_Type_free(&mat);
  MPI_Type_free(&strided);
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
