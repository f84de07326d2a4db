/* Alltoall, alltoallv, alltoallw: results checked against values computed locally.
 * Counts from 0 to blocks above 64 KB, MPI_IN_PLACE, derived datatypes (a strided int type on one
 * side, plain ints on the other, mixed across ranks), varying counts with zeros, alltoallw with a
 * different type per peer, the _c forms, and several nonblocking calls outstanding at once.
 * Registered once per algorithm (BATON_ALLTOALL{,V,W}_ALGORITHM) by coll_alltoall.cmake. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;
static MPI_Datatype strided; /* an int every other int: extent 2 ints */
static MPI_Datatype pair;    /* 2 contiguous ints */

/* The element i that rank src sends to rank dst. */
static int value(int src, int dst, int i) { return src * 1000003 + dst * 10007 + i; }

/* alltoallv/w: ints from src to dst (some zero; `scale` makes blocks above 64 KB). Always even. */
static int vcount(int src, int dst, int scale) { return ((src * 7 + dst * 3) % 5) * 2 * scale; }

static void test_alltoall(void) {
  const int counts[] = {0, 1, 3, 100, 17000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    const size_t total = (size_t)n * (size_t)size;
    int* sbuf = mpitest_malloc(sizeof(int) * total);
    int* rbuf = mpitest_malloc(sizeof(int) * total);
    int* wide = mpitest_malloc(sizeof(int) * 2 * total); /* for the strided type */
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) sbuf[(size_t)j * n + i] = value(rank, j, i);
    for (int form = 0; form < 3; ++form) {
      for (size_t k = 0; k < total; ++k) rbuf[k] = -1;
      MPI_Request req;
      if (form == 0) CHECK_MPI(MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD));
      if (form == 1) CHECK_MPI(MPI_Alltoall_c(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD));
      if (form == 2) {
        CHECK_MPI(MPI_Ialltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      int bad = 0;
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < n; ++i) bad += rbuf[(size_t)j * n + i] != value(j, rank, i);
      CHECK(bad == 0, "alltoall form %d n=%d: %d wrong", form, n, bad);
    }
    /* in place */
    memcpy(rbuf, sbuf, sizeof(int) * total);
    CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, -5, MPI_DATATYPE_NULL, rbuf, n, MPI_INT, MPI_COMM_WORLD));
    int bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) bad += rbuf[(size_t)j * n + i] != value(j, rank, i);
    CHECK(bad == 0, "alltoall in place n=%d: %d wrong", n, bad);
    memcpy(rbuf, sbuf, sizeof(int) * total);
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoall_c(MPI_IN_PLACE, 0, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) bad += rbuf[(size_t)j * n + i] != value(j, rank, i);
    CHECK(bad == 0, "ialltoall_c in place n=%d: %d wrong", n, bad);

    /* derived types: odd ranks send strided ints, even ranks receive into strided ints */
    for (size_t k = 0; k < 2 * total; ++k) wide[k] = -1;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) wide[2 * ((size_t)j * n + i)] = value(rank, j, i);
    for (size_t k = 0; k < total; ++k) rbuf[k] = -1;
    if (rank % 2) {
      CHECK_MPI(MPI_Alltoall(wide, n, strided, rbuf, n, MPI_INT, MPI_COMM_WORLD));
    } else {
      for (size_t k = 0; k < 2 * total; ++k) wide[k] = -1;
      CHECK_MPI(MPI_Alltoall(sbuf, n, MPI_INT, wide, n, strided, MPI_COMM_WORLD));
    }
    bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < n; ++i) {
        size_t k = (size_t)j * n + i;
        if (rank % 2)
          bad += rbuf[k] != value(j, rank, i);
        else
          bad += wide[2 * k] != value(j, rank, i) || wide[2 * k + 1] != -1;
      }
    CHECK(bad == 0, "alltoall strided n=%d: %d wrong", n, bad);
    /* in place with a derived type: pairs of ints */
    if (n % 2 == 0) {
      memcpy(rbuf, sbuf, sizeof(int) * total);
      CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, rbuf, n / 2, pair, MPI_COMM_WORLD));
      bad = 0;
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < n; ++i) bad += rbuf[(size_t)j * n + i] != value(j, rank, i);
      CHECK(bad == 0, "alltoall in place pairs n=%d: %d wrong", n, bad);
    }
    free(sbuf);
    free(rbuf);
    free(wide);
  }
}

static void test_alltoallv(void) {
  const int scales[] = {1, 9000};
  for (unsigned s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
    const int scale = scales[s];
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    MPI_Count *scc = malloc(sizeof(MPI_Count) * size), *rcc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sdc = malloc(sizeof(MPI_Aint) * size), *rdc = malloc(sizeof(MPI_Aint) * size);
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; ++j) {
      sc[j] = vcount(rank, j, scale);
      sd[j] = stot + 1; /* a gap before every block */
      stot += sc[j] + 1;
      rc[j] = vcount(j, rank, scale);
      rd[j] = rtot + 2;
      rtot += rc[j] + 2;
      scc[j] = sc[j];
      rcc[j] = rc[j];
      sdc[j] = sd[j];
      rdc[j] = rd[j];
    }
    int* sbuf = mpitest_malloc(sizeof(int) * (size_t)stot);
    int* rbuf = mpitest_malloc(sizeof(int) * (size_t)rtot);
    int* wide = mpitest_malloc(sizeof(int) * 2 * (size_t)rtot);
    for (int k = 0; k < stot; ++k) sbuf[k] = -7;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < sc[j]; ++i) sbuf[sd[j] + i] = value(rank, j, i);
    for (int form = 0; form < 4; ++form) {
      for (int k = 0; k < rtot; ++k) rbuf[k] = -1;
      MPI_Request req;
      if (form == 0) CHECK_MPI(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
      if (form == 1) CHECK_MPI(MPI_Alltoallv_c(sbuf, scc, sdc, MPI_INT, rbuf, rcc, rdc, MPI_INT, MPI_COMM_WORLD));
      if (form == 2) {
        CHECK_MPI(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      if (form == 3) {
        CHECK_MPI(MPI_Ialltoallv_c(sbuf, scc, sdc, MPI_INT, rbuf, rcc, rdc, MPI_INT, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      int bad = 0;
      for (int j = 0; j < size; ++j) {
        for (int i = 0; i < rc[j]; ++i) bad += rbuf[rd[j] + i] != value(j, rank, i);
        bad += rbuf[rd[j] - 1] != -1 || rbuf[rd[j] - 2] != -1;
      }
      CHECK(bad == 0, "alltoallv form %d scale %d: %d wrong", form, scale, bad);
    }
    /* strided receive on odd ranks */
    for (int k = 0; k < 2 * rtot; ++k) wide[k] = -1;
    if (rank % 2)
      CHECK_MPI(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, wide, rc, rd, strided, MPI_COMM_WORLD));
    else
      CHECK_MPI(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, wide, rc, rd, MPI_INT, MPI_COMM_WORLD));
    int bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < rc[j]; ++i) bad += wide[(rank % 2 ? 2 : 1) * (rd[j] + i)] != value(j, rank, i);
    CHECK(bad == 0, "alltoallv strided scale %d: %d wrong", scale, bad);
    free(sbuf);
    free(rbuf);
    free(wide);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(scc);
    free(rcc);
    free(sdc);
    free(rdc);
  }
  /* in place with symmetric counts (zero for some pairs) */
  {
    int *c = malloc(sizeof(int) * size), *d = malloc(sizeof(int) * size);
    int tot = 0;
    for (int j = 0; j < size; ++j) {
      c[j] = ((rank + j) % 3) * 5000; /* symmetric in (rank, j) */
      d[j] = tot;
      tot += c[j];
    }
    int* buf = mpitest_malloc(sizeof(int) * (size_t)tot);
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < c[j]; ++i) buf[d[j] + i] = value(rank, j, i);
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, buf, c, d, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < c[j]; ++i) bad += buf[d[j] + i] != value(j, rank, i);
    CHECK(bad == 0, "alltoallv in place: %d wrong", bad);
    free(buf);
    free(c);
    free(d);
  }
}

/* alltoallw: to peer j the sender uses type j % 3 (int, pair, strided); from peer j the receiver
 * uses int for even j, strided for odd j. Counts in ints are vcount(); displacements in bytes. */
static MPI_Datatype wtype(int k) { return k == 0 ? MPI_INT : k == 1 ? pair : strided; }
static int wspread(int k) { return k == 2 ? 2 : 1; } /* ints of memory per int of data */
static int wdiv(int k) { return k == 1 ? 2 : 1; }    /* ints per element of the type */

static void test_alltoallw(void) {
  const int scales[] = {1, 9000};
  for (unsigned s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
    const int scale = scales[s];
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    MPI_Count *scc = malloc(sizeof(MPI_Count) * size), *rcc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sdc = malloc(sizeof(MPI_Aint) * size), *rdc = malloc(sizeof(MPI_Aint) * size);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * size), *rt = malloc(sizeof(MPI_Datatype) * size);
    int stot = 0, rtot = 0; /* in ints of memory */
    for (int j = 0; j < size; ++j) {
      int k = j % 3, ints = vcount(rank, j, scale);
      st[j] = wtype(k);
      sc[j] = ints / wdiv(k);
      sd[j] = (int)sizeof(int) * (stot + 1);
      stot += ints * wspread(k) + 1;
      int kr = j % 2 ? 2 : 0, rints = vcount(j, rank, scale);
      rt[j] = wtype(kr);
      rc[j] = rints;
      rd[j] = (int)sizeof(int) * rtot;
      rtot += rints * wspread(kr);
      scc[j] = sc[j];
      rcc[j] = rc[j];
      sdc[j] = sd[j];
      rdc[j] = rd[j];
    }
    int* sbuf = mpitest_malloc(sizeof(int) * (size_t)stot);
    int* rbuf = mpitest_malloc(sizeof(int) * (size_t)rtot);
    for (int k = 0; k < stot; ++k) sbuf[k] = -7;
    for (int j = 0; j < size; ++j) {
      int* p = sbuf + sd[j] / (int)sizeof(int);
      for (int i = 0; i < vcount(rank, j, scale); ++i) p[i * wspread(j % 3)] = value(rank, j, i);
    }
    for (int form = 0; form < 4; ++form) {
      for (int k = 0; k < rtot; ++k) rbuf[k] = -1;
      MPI_Request req;
      if (form == 0) CHECK_MPI(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD));
      if (form == 1) CHECK_MPI(MPI_Alltoallw_c(sbuf, scc, sdc, st, rbuf, rcc, rdc, rt, MPI_COMM_WORLD));
      if (form == 2) {
        CHECK_MPI(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      if (form == 3) {
        CHECK_MPI(MPI_Ialltoallw_c(sbuf, scc, sdc, st, rbuf, rcc, rdc, rt, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      int bad = 0;
      for (int j = 0; j < size; ++j) {
        const int* p = rbuf + rd[j] / (int)sizeof(int);
        const int sp = j % 2 ? 2 : 1;
        for (int i = 0; i < rc[j]; ++i) bad += p[i * sp] != value(j, rank, i) || (sp == 2 && p[i * sp + 1] != -1);
      }
      CHECK(bad == 0, "alltoallw form %d scale %d: %d wrong", form, scale, bad);
    }
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(scc);
    free(rcc);
    free(sdc);
    free(rdc);
    free(st);
    free(rt);
  }
  /* in place: symmetric counts, type per peer (pairs for even peers, ints for odd), and
   * MPI_DATATYPE_NULL for empty blocks */
  {
    int *c = malloc(sizeof(int) * size), *d = malloc(sizeof(int) * size);
    MPI_Datatype* t = malloc(sizeof(MPI_Datatype) * size);
    int tot = 0;
    for (int j = 0; j < size; ++j) {
      int ints = ((rank + j) % 3) * 4000;
      t[j] = ints == 0 ? MPI_DATATYPE_NULL : j % 2 ? MPI_INT : pair;
      c[j] = j % 2 ? ints : ints / 2;
      d[j] = (int)sizeof(int) * tot;
      tot += ints;
    }
    int* buf = mpitest_malloc(sizeof(int) * (size_t)tot);
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < ((rank + j) % 3) * 4000; ++i) buf[d[j] / (int)sizeof(int) + i] = value(rank, j, i);
    CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, c, d, t, MPI_COMM_WORLD));
    int bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < ((rank + j) % 3) * 4000; ++i) bad += buf[d[j] / (int)sizeof(int) + i] != value(j, rank, i);
    CHECK(bad == 0, "alltoallw in place: %d wrong", bad);
    free(buf);
    free(c);
    free(d);
    free(t);
  }
}

static void test_outstanding(void) {
  /* several nonblocking calls of each kind at once, completed together */
  enum { K = 6, N = 50 };
  int *sb[K], *rb[K];
  MPI_Request reqs[K];
  int *c = malloc(sizeof(int) * size), *d = malloc(sizeof(int) * size);
  MPI_Datatype* t = malloc(sizeof(MPI_Datatype) * size);
  for (int j = 0; j < size; ++j) {
    c[j] = N;
    d[j] = (int)sizeof(int) * N * j;
    t[j] = MPI_INT;
  }
  int* dv = malloc(sizeof(int) * size);
  for (int j = 0; j < size; ++j) dv[j] = N * j;
  for (int k = 0; k < K; ++k) {
    sb[k] = mpitest_malloc(sizeof(int) * N * (size_t)size);
    rb[k] = mpitest_malloc(sizeof(int) * N * (size_t)size);
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < N; ++i) sb[k][j * N + i] = value(rank, j, i + k);
    if (k % 3 == 0) CHECK_MPI(MPI_Ialltoall(sb[k], N, MPI_INT, rb[k], N, MPI_INT, MPI_COMM_WORLD, &reqs[k]));
    if (k % 3 == 1) CHECK_MPI(MPI_Ialltoallv(sb[k], c, dv, MPI_INT, rb[k], c, dv, MPI_INT, MPI_COMM_WORLD, &reqs[k]));
    if (k % 3 == 2) CHECK_MPI(MPI_Ialltoallw(sb[k], c, d, t, rb[k], c, d, t, MPI_COMM_WORLD, &reqs[k]));
  }
  CHECK_MPI(MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE));
  for (int k = 0; k < K; ++k) {
    int bad = 0;
    for (int j = 0; j < size; ++j)
      for (int i = 0; i < N; ++i) bad += rb[k][j * N + i] != value(j, rank, i + k);
    CHECK(bad == 0, "outstanding call %d: %d wrong", k, bad);
    free(sb[k]);
    free(rb[k]);
  }
  free(c);
  free(d);
  free(dv);
  free(t);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  test_alltoall();
  test_alltoallv();
  test_alltoallw();
  test_outstanding();
  MPI_Type_free(&strided);
  MPI_Type_free(&pair);
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
