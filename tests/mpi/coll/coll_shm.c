/* The shared-memory collectives (barrier, bcast, reduce, allreduce on a communicator's region,
 * src/coll/shm_region.hpp) across communicator lifecycles:
 *  - many communicators at once (dups, splits with reversed rank order, singletons), each with
 *    its region, and more nonblocking collectives outstanding per communicator than the region
 *    has slots, mixing all four collectives, roots and sizes (up to the 64 KiB slot and past it),
 *    completed in reverse order and across communicators;
 *  - a non-commutative op (rank order kept), in-place forms, bcast with different datatypes at
 *    the root and the receivers;
 *  - a communicator freed while its nonblocking collectives are pending;
 *  - create / use / free 200 times: the regions' mappings must not pile up (/proc/self/maps);
 *  - a rank that arrives late (sleeps), so its peers wait long enough to sleep on the doorbell.
 * Expected values are computed locally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "mpitest_matrix.h"

static int wrank, wsize;

static void matrix_product(int n, int salt, unsigned* out) {
  mpitest_matrix(salt, 0, out);
  for (int r = 1; r < n; ++r) {
    unsigned m[4], acc[4];
    int len = 1;
    mpitest_matrix(salt, r, m);
    memcpy(acc, out, sizeof acc);
    mpitest_matmul(acc, m, &len, NULL);
    memcpy(out, m, sizeof m);
  }
}

/* One communicator's batch of nonblocking collectives. */
enum { per_comm = 37, big = 20000 /* ints: 80 KB, past the 64 KiB slot */ };
typedef struct batch {
  MPI_Comm c;
  int rank, size;
  MPI_Request req[per_comm];
  int kind[per_comm];
  int root[per_comm];
  int count[per_comm];
  int* buf[per_comm];
  int* in[per_comm];
  unsigned mat_in[per_comm][4], mat_out[per_comm][4];
} batch;

static const int counts[] = {1, 0, 1000, 16384, big, 3};

static int val(int r, int op, int i) {
  return (r * 31 + op * 7 + i) % 1000;
}

static void batch_start(batch* b, MPI_Op matop, MPI_Datatype mat) {
  for (int k = 0; k < per_comm; ++k) {
    const int kind = k % 5, n = counts[k % 6], root = k % b->size;
    b->kind[k] = kind;
    b->root[k] = root;
    b->count[k] = n;
    b->buf[k] = malloc(sizeof(int) * (size_t)(n + 1));
    b->in[k] = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) {
      b->in[k][i] = val(b->rank, k, i);
      b->buf[k][i] = -1;
    }
    switch (kind) {
      case 0:
        CHECK_MPI(MPI_Ibarrier(b->c, &b->req[k]));
        break;
      case 1:
        if (b->rank == root) memcpy(b->buf[k], b->in[k], sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Ibcast(b->buf[k], n, MPI_INT, root, b->c, &b->req[k]));
        break;
      case 2:
        CHECK_MPI(MPI_Iallreduce(b->in[k], b->buf[k], n, MPI_INT, MPI_SUM, b->c, &b->req[k]));
        break;
      case 3:
        if (b->rank == root) memcpy(b->buf[k], b->in[k], sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Ireduce(b->rank == root ? MPI_IN_PLACE : b->in[k], b->buf[k], n, MPI_INT, MPI_MAX, root, b->c,
                              &b->req[k]));
        break;
      default:
        mpitest_matrix(k, b->rank, b->mat_in[k]);
        CHECK_MPI(MPI_Iallreduce(b->mat_in[k], b->mat_out[k], 1, mat, matop, b->c, &b->req[k]));
        break;
    }
  }
}

static void batch_check(batch* b, int tag) {
  for (int k = 0; k < per_comm; ++k) {
    const int n = b->count[k], root = b->root[k];
    int bad = 0;
    switch (b->kind[k]) {
      case 1:
        for (int i = 0; i < n; ++i) bad += b->buf[k][i] != val(root, k, i);
        break;
      case 2:
        for (int i = 0; i < n; ++i) {
          int want = 0;
          for (int r = 0; r < b->size; ++r) want += val(r, k, i);
          bad += b->buf[k][i] != want;
        }
        break;
      case 3:
        if (b->rank == root)
          for (int i = 0; i < n; ++i) {
            int want = val(0, k, i);
            for (int r = 1; r < b->size; ++r)
              if (val(r, k, i) > want) want = val(r, k, i);
            bad += b->buf[k][i] != want;
          }
        break;
      case 4: {
        unsigned want[4];
        matrix_product(b->size, k, want);
        bad = memcmp(want, b->mat_out[k], sizeof want) != 0;
        break;
      }
      default:
        break;
    }
    CHECK(bad == 0, "comm %d (size %d) op %d kind %d count %d root %d: %d wrong", tag, b->size, k, b->kind[k], n, root,
          bad);
    free(b->buf[k]);
    free(b->in[k]);
  }
}

/* Many communicators, each with more collectives outstanding than the region has slots. */
static void test_many_comms(void) {
  enum { ncomms = 24 };
  MPI_Op matop;
  MPI_Datatype mat;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  CHECK_MPI(MPI_Op_create(mpitest_matmul, 0, &matop));
  batch* b = calloc(ncomms, sizeof *b);
  for (int j = 0; j < ncomms; ++j) {
    switch (j % 4) {
      case 0:
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b[j].c));
        break;
      case 1: /* reversed order */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &b[j].c));
        break;
      case 2: /* two halves */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &b[j].c));
        break;
      default: /* singletons */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank, 0, &b[j].c));
        break;
    }
    MPI_Comm_rank(b[j].c, &b[j].rank);
    MPI_Comm_size(b[j].c, &b[j].size);
    CHECK_MPI(MPI_Barrier(b[j].c)); /* the first blocking collective sets the region up */
  }
  for (int j = 0; j < ncomms; ++j) batch_start(&b[j], matop, mat);
  /* complete in reverse, across communicators */
  for (int k = per_comm - 1; k >= 0; --k)
    for (int j = ncomms - 1; j >= 0; --j) CHECK_MPI(MPI_Wait(&b[j].req[k], MPI_STATUS_IGNORE));
  for (int j = 0; j < ncomms; ++j) {
    batch_check(&b[j], j);
    /* and the blocking forms on the same communicators */
    int x = b[j].rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, b[j].c));
    CHECK(sum == b[j].size * (b[j].size + 1) / 2, "comm %d blocking allreduce %d", j, sum);
    CHECK_MPI(MPI_Comm_free(&b[j].c));
  }
  free(b);
  MPI_Op_free(&matop);
  MPI_Type_free(&mat);
}

/* Bcast whose root sends a strided vector and whose receivers receive contiguous ints. */
static void test_bcast_types(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Barrier(c));
  enum { n = 500 };
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(n, 1, 3, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  for (int root = 0; root < wsize; ++root) {
    int* buf = malloc(sizeof(int) * 3 * n);
    for (int i = 0; i < 3 * n; ++i) buf[i] = wrank == root ? i : -1;
    if (wrank == root)
      CHECK_MPI(MPI_Bcast(buf, 1, vec, root, c));
    else
      CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, c));
    int bad = 0;
    if (wrank != root)
      for (int i = 0; i < n; ++i) bad += buf[i] != 3 * i;
    CHECK(bad == 0, "bcast vector root %d: %d wrong", root, bad);
    /* and the other way: contiguous at the root, vector at the receivers, nonblocking */
    for (int i = 0; i < 3 * n; ++i) buf[i] = wrank == root ? i : -1;
    MPI_Request r;
    if (wrank == root)
      CHECK_MPI(MPI_Ibcast(buf, n, MPI_INT, root, c, &r));
    else
      CHECK_MPI(MPI_Ibcast(buf, 1, vec, root, c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    bad = 0;
    if (wrank != root)
      for (int i = 0; i < 3 * n; ++i) bad += buf[i] != (i % 3 == 0 ? i / 3 : -1);
    CHECK(bad == 0, "ibcast to vector root %d: %d wrong", root, bad);
    free(buf);
  }
  MPI_Type_free(&vec);
  CHECK_MPI(MPI_Comm_free(&c));
}

/* Free a communicator while its collectives are pending; then create / use / free many. */
static void test_lifecycle(void) {
  const int before = mpitest_shm_mappings("coll");
  for (int it = 0; it < 200; ++it) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int x = wrank + it, sum = -1, b = wrank == it % wsize ? it : -1;
    CHECK_MPI(MPI_Barrier(c));
    MPI_Request r[2];
    CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c, &r[0]));
    CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, it % wsize, c, &r[1]));
    CHECK_MPI(MPI_Comm_free(&c)); /* pending operations keep it alive */
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(sum == wsize * (wsize - 1) / 2 + wsize * it, "iteration %d: allreduce %d", it, sum);
    CHECK(b == it, "iteration %d: bcast %d", it, b);
  }
  const int after = mpitest_shm_mappings("coll");
  CHECK(after == before, "region mappings before %d, after 200 communicators %d", before, after);
}

/* A late rank: the others wait long enough to sleep on their doorbells. */
static void test_late_rank(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Barrier(c));
  for (int late = 0; late < wsize && late < 3; ++late) {
    if (wrank == late) {
      struct timespec ts = {0, 30 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    double v = wrank, s = 0;
    CHECK_MPI(MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, c));
    CHECK(s == wsize * (wsize - 1) / 2.0, "late rank %d: allreduce %g", late, s);
    int b = wrank == late ? 77 : 0;
    CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, late, c));
    CHECK(b == 77, "late root %d: bcast %d", late, b);
    CHECK_MPI(MPI_Barrier(c));
  }
  CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  test_many_comms();
  test_bcast_types();
  test_lifecycle();
  test_late_rank();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
