/* Collectives: results checked against values computed locally.
 * Barrier/Ibarrier, Bcast/Ibcast (every root, sizes from 0 to 1 MB), Reduce/Ireduce (every root,
 * SUM/MAX/PROD/MINLOC, in place), Allreduce/Iallreduce (in place, non-commutative user op),
 * many nonblocking collectives outstanding and completed in any order, mixed with point-to-point
 * requests in one Waitall, and the refusal of MPI_Request_free / MPI_Cancel on them. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;

/* Non-commutative: 2x2 integer matrix product, elements are 4 ints. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int* a = (int*)in;
  int* b = (int*)inout;
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
    int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
    b[0] = c0; b[1] = c1; b[2] = c2; b[3] = c3;
  }
}

static void rank_matrix(int r, int* m) { m[0] = 1; m[1] = r + 1; m[2] = 0; m[3] = 1 + (r % 2); }

static void test_bcast(void) {
  const int sizes[] = {0, 1, 7, 1000, 100000, 262144};
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    int n = sizes[s];
    int* buf = malloc(sizeof(int) * (size_t)(n + 1));
    for (int root = 0; root < size; ++root) {
      for (int i = 0; i < n; ++i) buf[i] = rank == root ? i * 3 + root : -1;
      CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
      int bad = 0;
      for (int i = 0; i < n; ++i) bad += buf[i] != i * 3 + root;
      CHECK(bad == 0, "bcast n=%d root=%d: %d wrong", n, root, bad);
      MPI_Request req;
      for (int i = 0; i < n; ++i) buf[i] = rank == root ? i ^ root : -1;
      CHECK_MPI(MPI_Ibcast(buf, n, MPI_INT, root, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      bad = 0;
      for (int i = 0; i < n; ++i) bad += buf[i] != (i ^ root);
      CHECK(bad == 0, "ibcast n=%d root=%d: %d wrong", n, root, bad);
    }
    free(buf);
  }
}

static void test_reduce(void) {
  const int n = 1000;
  int* in = malloc(sizeof(int) * n);
  int* out = malloc(sizeof(int) * n);
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < n; ++i) in[i] = rank + i;
    CHECK_MPI(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root) {
      int bad = 0;
      for (int i = 0; i < n; ++i) bad += out[i] != size * (size - 1) / 2 + size * i;
      CHECK(bad == 0, "reduce sum root=%d: %d wrong", root, bad);
    }
    /* in place at the root */
    for (int i = 0; i < n; ++i) out[i] = in[i] = rank * 2 - i;
    CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
    if (rank == root) {
      int bad = 0;
      for (int i = 0; i < n; ++i) bad += out[i] != (size - 1) * 2 - i;
      CHECK(bad == 0, "reduce max in place root=%d: %d wrong", root, bad);
    }
    /* MINLOC on MPI_DOUBLE_INT */
    struct { double v; int i; } dv = {(double)((rank * 7) % size), rank}, dres;
    MPI_Request req;
    CHECK_MPI(MPI_Ireduce(&dv, &dres, 1, MPI_DOUBLE_INT, MPI_MINLOC, root, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == root) CHECK(dres.v == 0.0 && dres.i == 0, "minloc root=%d: %g@%d", root, dres.v, dres.i);
    /* non-commutative user op: rank order must be kept */
    MPI_Op op;
    MPI_Datatype mat;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));
    CHECK_MPI(MPI_Op_create(matmul, 0, &op));
    int m[4], res[4], expect[4];
    rank_matrix(rank, m);
    CHECK_MPI(MPI_Reduce(m, res, 1, mat, op, root, MPI_COMM_WORLD));
    rank_matrix(0, expect);
    for (int r = 1; r < size; ++r) {
      int b[4];
      rank_matrix(r, b);
      int e[4];
      memcpy(e, expect, sizeof e);
      int len = 1;
      MPI_Datatype d = mat;
      memcpy(expect, b, sizeof b);
      matmul(e, expect, &len, &d); /* expect = e * b */
    }
    if (rank == root)
      CHECK(memcmp(res, expect, sizeof res) == 0, "non-commutative reduce root=%d: [%d %d %d %d] vs [%d %d %d %d]", root,
            res[0], res[1], res[2], res[3], expect[0], expect[1], expect[2], expect[3]);
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
  }
  free(in);
  free(out);
}

static void test_allreduce(void) {
  const int counts[] = {0, 1, 5, 4096, 70000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    int n = counts[c];
    double* in = malloc(sizeof(double) * (size_t)(n + 1));
    double* out = malloc(sizeof(double) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) in[i] = rank + 0.5 * i;
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != size * (size - 1) / 2.0 + size * 0.5 * i;
    CHECK(bad == 0, "allreduce n=%d: %d wrong", n, bad);
    for (int i = 0; i < n; ++i) out[i] = rank == 0 ? 2.0 : 1.0;
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, out, n, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != 2.0;
    CHECK(bad == 0, "iallreduce in place n=%d: %d wrong", n, bad);
    free(in);
    free(out);
  }
  /* non-commutative */
  MPI_Op op;
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &op);
  int m[4], res[4], expect[4];
  rank_matrix(rank, m);
  CHECK_MPI(MPI_Allreduce(m, res, 1, mat, op, MPI_COMM_WORLD));
  rank_matrix(0, expect);
  for (int r = 1; r < size; ++r) {
    int b[4], e[4], len = 1;
    MPI_Datatype d = mat;
    rank_matrix(r, b);
    memcpy(e, expect, sizeof e);
    memcpy(expect, b, sizeof b);
    matmul(e, expect, &len, &d);
  }
  CHECK(memcmp(res, expect, sizeof res) == 0, "non-commutative allreduce differs");
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

static void test_outstanding(void) {
  /* many nonblocking collectives at once, completed in reverse order, mixed with p2p */
  enum { N = 200 };
  MPI_Request reqs[N + 2];
  int vals[N], outs[N];
  for (int i = 0; i < N; ++i) {
    vals[i] = rank + i;
    if (i % 3 == 0)
      CHECK_MPI(MPI_Iallreduce(&vals[i], &outs[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[i]));
    else if (i % 3 == 1)
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[i]));
    else {
      outs[i] = rank == i % size ? 1000 + i : -1;
      CHECK_MPI(MPI_Ibcast(&outs[i], 1, MPI_INT, i % size, MPI_COMM_WORLD, &reqs[i]));
    }
  }
  int token = rank, got = -1;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &reqs[N]));
  CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &reqs[N + 1]));
  int rc = MPI_Request_free(&reqs[0]);
  CHECK(rc != MPI_SUCCESS, "MPI_Request_free on a nonblocking collective must be refused");
  rc = MPI_Cancel(&reqs[1]);
  CHECK(rc != MPI_SUCCESS, "MPI_Cancel on a nonblocking collective must be refused");
  /* the second half one by one in reverse, then the first half and the two point-to-point
   * requests together in one Waitall */
  for (int i = N - 1; i >= N / 2; --i) CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
  reqs[N / 2] = reqs[N];
  reqs[N / 2 + 1] = reqs[N + 1];
  CHECK_MPI(MPI_Waitall(N / 2 + 2, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; ++i) {
    if (i % 3 == 0) CHECK(outs[i] == size * (size - 1) / 2 + size * i, "iallreduce %d = %d", i, outs[i]);
    if (i % 3 == 2) CHECK(outs[i] == 1000 + i, "ibcast %d = %d", i, outs[i]);
  }
  CHECK(got == (rank + size - 1) % size, "p2p in the same Waitall got %d", got);
}

/* Nonblocking collectives that are over inside their call (one rank, a broadcast root whose data
 * is published at once) share one complete request object: it must still behave as each caller's
 * own request (status, refusals, several outstanding at once) and never be freed. */
static void test_done_inline(void) {
  int v[4] = {1, 2, 3, 4};
  MPI_Request q[4];
  for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Ibcast(&v[k], 1, MPI_INT, 0, MPI_COMM_SELF, &q[k]));
  int rc = MPI_Request_free(&q[0]);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Request_free on a completed Ibcast gave class %d", cls);
  CHECK(q[0] != MPI_REQUEST_NULL, "a refused MPI_Request_free changed the handle");
  rc = MPI_Cancel(&q[1]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel on a completed Ibcast gave class %d", cls);
  int flag = 0;
  CHECK_MPI(MPI_Request_get_status(q[0], &flag, MPI_STATUS_IGNORE));
  CHECK(flag && q[0] != MPI_REQUEST_NULL, "MPI_Request_get_status: flag %d", flag);
  MPI_Status st;
  st.MPI_ERROR = MPI_ERR_OTHER;
  CHECK_MPI(MPI_Test(&q[0], &flag, &st));
  CHECK(flag && q[0] == MPI_REQUEST_NULL, "MPI_Test: flag %d", flag);
  CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(2, &q[2], MPI_STATUSES_IGNORE));
  for (int k = 0; k < 4; ++k) CHECK(q[k] == MPI_REQUEST_NULL, "request %d not freed", k);
  /* the same on the world: every rank broadcasts in turn, the root's call is over at once */
  for (int round = 0; round < 50; ++round) {
    int x[8];
    MPI_Request w[8];
    const int n = size < 8 ? size : 8;
    for (int r = 0; r < n; ++r) {
      x[r] = rank == r ? 100 * round + r : -1;
      CHECK_MPI(MPI_Ibcast(&x[r], 1, MPI_INT, r, MPI_COMM_WORLD, &w[r]));
    }
    CHECK_MPI(MPI_Waitall(n, w, MPI_STATUSES_IGNORE));
    for (int r = 0; r < n; ++r) CHECK(x[r] == 100 * round + r, "round %d root %d: got %d", round, r, x[r]);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request r;
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  test_bcast();
  test_reduce();
  test_allreduce();
  test_outstanding();
  test_done_inline();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
