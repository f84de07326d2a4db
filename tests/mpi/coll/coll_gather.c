/* Gather, gatherv, scatter, scatterv, allgather, allgatherv: results checked against values
 * computed locally, at every root, with counts 0, 1, 7, 1000 and 17000 ints per rank (68 KB, past
 * the eager and selection thresholds), in place and not, a send layout that differs from the
 * receive layout (MPI_INT, a contiguous pair, an int with a hole after it (resized), a strided
 * vector), the blocking, nonblocking, _c and nonblocking _c forms in turn, vector forms with zero
 * counts for some ranks and displacements in reverse rank order with gaps, and many nonblocking
 * calls outstanding at once. Every element of every receive buffer is compared, so holes and gaps
 * must stay untouched. coll_gather.cmake runs this program once per algorithm, forced with
 * BATON_<COLL>_ALGORITHM. Part of it runs again on a communicator with the reverse rank order. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;
static MPI_Comm tcomm; /* the communicator under test */
static const int SENTINEL = -1;

/* A buffer layout: `epu` logical ints per element of `type`; logical int k lives at int index
 * k * stride of the buffer. */
typedef struct {
  MPI_Datatype type;
  int epu, stride;
  const char* name;
} layout;

enum { L_INT, L_PAIR, L_HOLE, L_VEC, NLAYOUTS };
static layout lay[NLAYOUTS];

static void make_layouts(void) {
  MPI_Datatype t;
  lay[L_INT] = (layout){MPI_INT, 1, 1, "int"};
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  lay[L_PAIR] = (layout){t, 2, 1, "pair"};
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &t));
  CHECK_MPI(MPI_Type_commit(&t));
  lay[L_HOLE] = (layout){t, 1, 2, "hole"};
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
  CHECK_MPI(MPI_Type_create_resized(v, 0, 4 * (MPI_Aint)sizeof(int), &t));
  CHECK_MPI(MPI_Type_free(&v));
  CHECK_MPI(MPI_Type_commit(&t));
  lay[L_VEC] = (layout){t, 2, 2, "vec"};
}

static void free_layouts(void) {
  for (int i = L_PAIR; i < NLAYOUTS; ++i) CHECK_MPI(MPI_Type_free(&lay[i].type));
}

/* Send/receive layout pairs (same type signature, different layouts). */
static const int combos[][2] = {{L_INT, L_INT}, {L_PAIR, L_INT}, {L_INT, L_HOLE}, {L_VEC, L_PAIR}, {L_HOLE, L_VEC}};
enum { NCOMBOS = sizeof combos / sizeof combos[0] };

static int val(int r, int64_t k) { return r * 1000003 + (int)k; }

/* A buffer of `ints` logical ints in layout l, every int SENTINEL. */
static int* new_buf(const layout* l, int64_t ints) {
  size_t n = (size_t)(ints * l->stride + l->stride);
  int* b = mpitest_malloc(n * sizeof(int));
  for (size_t i = 0; i < n; ++i) b[i] = SENTINEL;
  return b;
}
static size_t buf_ints(const layout* l, int64_t ints) { return (size_t)(ints * l->stride + l->stride); }
/* Puts val(r, 0..ints-1) at logical ints [at, at + ints). */
static void put_block(int* b, const layout* l, int64_t at, int64_t ints, int r) {
  for (int64_t k = 0; k < ints; ++k) b[(at + k) * l->stride] = val(r, k);
}
/* Number of ints of b that differ from expect (both n ints). */
static int64_t diff(const int* b, const int* expect, size_t n) {
  int64_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += b[i] != expect[i];
  return bad;
}

/* Call forms, taken in turn: 0 blocking, 1 nonblocking, 2 blocking _c, 3 nonblocking _c. */
static int form_counter;
static const char* form_names[] = {"blocking", "nonblocking", "_c", "nonblocking _c"};
static int wait_rc(int rc, MPI_Request* req) { return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE); }

static int call_gather(int form, int scatter, const void* sb, int64_t sc, MPI_Datatype st, void* rb, int64_t rc,
                       MPI_Datatype rt, int root) {
  MPI_Request q;
  MPI_Comm w = tcomm;
  if (!scatter) switch (form) {
      case 0: return MPI_Gather(sb, (int)sc, st, rb, (int)rc, rt, root, w);
      case 1: return wait_rc(MPI_Igather(sb, (int)sc, st, rb, (int)rc, rt, root, w, &q), &q);
      case 2: return MPI_Gather_c(sb, sc, st, rb, rc, rt, root, w);
      default: return wait_rc(MPI_Igather_c(sb, sc, st, rb, rc, rt, root, w, &q), &q);
    }
  switch (form) {
    case 0: return MPI_Scatter(sb, (int)sc, st, rb, (int)rc, rt, root, w);
    case 1: return wait_rc(MPI_Iscatter(sb, (int)sc, st, rb, (int)rc, rt, root, w, &q), &q);
    case 2: return MPI_Scatter_c(sb, sc, st, rb, rc, rt, root, w);
    default: return wait_rc(MPI_Iscatter_c(sb, sc, st, rb, rc, rt, root, w, &q), &q);
  }
}

static int call_allgather(int form, const void* sb, int64_t sc, MPI_Datatype st, void* rb, int64_t rc,
                          MPI_Datatype rt) {
  MPI_Request q;
  MPI_Comm w = tcomm;
  switch (form) {
    case 0: return MPI_Allgather(sb, (int)sc, st, rb, (int)rc, rt, w);
    case 1: return wait_rc(MPI_Iallgather(sb, (int)sc, st, rb, (int)rc, rt, w, &q), &q);
    case 2: return MPI_Allgather_c(sb, sc, st, rb, rc, rt, w);
    default: return wait_rc(MPI_Iallgather_c(sb, sc, st, rb, rc, rt, w, &q), &q);
  }
}

/* Vector forms. which: 0 gatherv, 1 scatterv, 2 allgatherv. counts/displs are per rank, in
 * elements of the vector side's type; `count`/`type` is the other side. */
static int call_vector(int form, int which, const void* sb, void* rb, int64_t count, MPI_Datatype type,
                       const int64_t* counts, const int64_t* displs, MPI_Datatype vtype, int root) {
  int* ic = mpitest_malloc(sizeof(int) * (size_t)size);
  int* id = mpitest_malloc(sizeof(int) * (size_t)size);
  MPI_Count* cc = mpitest_malloc(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* cd = mpitest_malloc(sizeof(MPI_Aint) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    ic[r] = (int)counts[r];
    id[r] = (int)displs[r];
    cc[r] = counts[r];
    cd[r] = displs[r];
  }
  MPI_Request q;
  MPI_Comm w = tcomm;
  int rc = MPI_SUCCESS;
  const int ci = (int)count;
  if (which == 0) switch (form) {
      case 0: rc = MPI_Gatherv(sb, ci, type, rb, ic, id, vtype, root, w); break;
      case 1: rc = wait_rc(MPI_Igatherv(sb, ci, type, rb, ic, id, vtype, root, w, &q), &q); break;
      case 2: rc = MPI_Gatherv_c(sb, count, type, rb, cc, cd, vtype, root, w); break;
      default: rc = wait_rc(MPI_Igatherv_c(sb, count, type, rb, cc, cd, vtype, root, w, &q), &q);
    }
  else if (which == 1) switch (form) {
      case 0: rc = MPI_Scatterv(sb, ic, id, vtype, rb, ci, type, root, w); break;
      case 1: rc = wait_rc(MPI_Iscatterv(sb, ic, id, vtype, rb, ci, type, root, w, &q), &q); break;
      case 2: rc = MPI_Scatterv_c(sb, cc, cd, vtype, rb, count, type, root, w); break;
      default: rc = wait_rc(MPI_Iscatterv_c(sb, cc, cd, vtype, rb, count, type, root, w, &q), &q);
    }
  else switch (form) {
      case 0: rc = MPI_Allgatherv(sb, ci, type, rb, ic, id, vtype, w); break;
      case 1: rc = wait_rc(MPI_Iallgatherv(sb, ci, type, rb, ic, id, vtype, w, &q), &q); break;
      case 2: rc = MPI_Allgatherv_c(sb, count, type, rb, cc, cd, vtype, w); break;
      default: rc = wait_rc(MPI_Iallgatherv_c(sb, count, type, rb, cc, cd, vtype, w, &q), &q);
    }
  free(ic);
  free(id);
  free(cc);
  free(cd);
  return rc;
}

static const int64_t base_counts[] = {0, 1, 7, 1000, 17000};
enum { NBASE = sizeof base_counts / sizeof base_counts[0] };

/* ints per rank usable with both layouts (a multiple of both epus). */
static int64_t fit(int64_t c, const layout* a, const layout* b) {
  int64_t m = a->epu > b->epu ? a->epu : b->epu;
  return (c + m - 1) / m * m;
}

static void test_gather_scatter(int scatter) {
  const char* what = scatter ? "scatter" : "gather";
  for (int ci = 0; ci < NBASE; ++ci)
    for (int root = 0; root < size; ++root)
      for (int co = 0; co < NCOMBOS; ++co)
        for (int in_place = 0; in_place < 2; ++in_place) {
          if (in_place && co % 2) continue; /* in place with a few layouts only */
          const layout *sl = &lay[combos[co][0]], *rl = &lay[combos[co][1]];
          const int64_t c = fit(base_counts[ci], sl, rl);
          const int form = form_counter++ % 4;
          const int is_root = rank == root;
          int *sb = NULL, *rb = NULL, *expect = NULL;
          size_t n_check = 0;
          int rc;
          if (!scatter) {
            sb = new_buf(sl, c);
            put_block(sb, sl, 0, c, rank);
            if (is_root) {
              rb = new_buf(rl, c * size);
              expect = new_buf(rl, c * size);
              for (int r = 0; r < size; ++r) put_block(expect, rl, r * c, c, r);
              if (in_place) put_block(rb, rl, root * c, c, root);
              n_check = buf_ints(rl, c * size);
            }
            rc = call_gather(form, 0, in_place && is_root ? MPI_IN_PLACE : sb, c / sl->epu, sl->type, rb,
                             c / rl->epu, rl->type, root);
          } else {
            rb = new_buf(rl, c);
            expect = new_buf(rl, c);
            put_block(expect, rl, 0, c, rank);
            n_check = buf_ints(rl, c);
            if (is_root) {
              sb = new_buf(sl, c * size);
              for (int r = 0; r < size; ++r) put_block(sb, sl, r * c, c, r);
            }
            rc = call_gather(form, 1, sb, c / sl->epu, sl->type, in_place && is_root ? MPI_IN_PLACE : rb,
                             c / rl->epu, rl->type, root);
            if (in_place && is_root) { /* the root's send buffer is the result */
              int* e2 = new_buf(sl, c * size);
              for (int r = 0; r < size; ++r) put_block(e2, sl, r * c, c, r);
              int64_t bad = diff(sb, e2, buf_ints(sl, c * size));
              CHECK(bad == 0, "in-place scatter changed the root's send buffer (%lld ints)", (long long)bad);
              free(e2);
              n_check = 0;
            }
          }
          CHECK(rc == MPI_SUCCESS, "%s (%s) returned %d", what, form_names[form], rc);
          if (n_check) {
            int64_t bad = diff(rb, expect, n_check);
            CHECK(bad == 0, "%s %s c=%lld root=%d send=%s recv=%s%s: %lld wrong ints", what, form_names[form],
                  (long long)c, root, sl->name, rl->name, in_place ? " in place" : "", (long long)bad);
          }
          free(sb);
          free(rb);
          free(expect);
        }
}

static void test_allgather(void) {
  for (int ci = 0; ci < NBASE; ++ci)
    for (int co = 0; co < NCOMBOS; ++co)
      for (int in_place = 0; in_place < 2; ++in_place) {
        const layout *sl = &lay[combos[co][0]], *rl = &lay[combos[co][1]];
        const int64_t c = fit(base_counts[ci], sl, rl);
        const int form = form_counter++ % 4;
        int* sb = new_buf(sl, c);
        int* rb = new_buf(rl, c * size);
        int* expect = new_buf(rl, c * size);
        put_block(sb, sl, 0, c, rank);
        for (int r = 0; r < size; ++r) put_block(expect, rl, r * c, c, r);
        if (in_place) put_block(rb, rl, rank * c, c, rank);
        int rc = call_allgather(form, in_place ? MPI_IN_PLACE : sb, c / sl->epu, sl->type, rb, c / rl->epu, rl->type);
        CHECK(rc == MPI_SUCCESS, "allgather (%s) returned %d", form_names[form], rc);
        int64_t bad = diff(rb, expect, buf_ints(rl, c * size));
        CHECK(bad == 0, "allgather %s c=%lld send=%s recv=%s%s: %lld wrong ints", form_names[form], (long long)c,
              sl->name, rl->name, in_place ? " in place" : "", (long long)bad);
        free(sb);
        free(rb);
        free(expect);
      }
}

/* Vector block sizes: ints of rank r (a multiple of 2, zero for about a quarter of the ranks). */
static int64_t vints(int r, int seed, int64_t scale) { return 2 * ((r * 3 + seed) % 4) * scale; }

static void test_vector(int which) {
  static const char* names[] = {"gatherv", "scatterv", "allgatherv"};
  const int64_t scales[] = {0, 1, 3, 500, 9000};
  int64_t* counts = mpitest_malloc(sizeof(int64_t) * (size_t)size);
  int64_t* displs = mpitest_malloc(sizeof(int64_t) * (size_t)size);
  for (int si = 0; si < (int)(sizeof scales / sizeof scales[0]); ++si)
    for (int root = 0; root < (which == 2 ? 1 : size); ++root)
      for (int co = 0; co < NCOMBOS; ++co)
        for (int in_place = 0; in_place < 2; ++in_place) {
          if (in_place && which != 2 && co % 2) continue;
          const int seed = si + root + co;
          /* v side: the receive side for gatherv/allgatherv, the send side for scatterv */
          const layout* vl = &lay[combos[co][which == 1 ? 0 : 1]];
          const layout* ol = &lay[combos[co][which == 1 ? 1 : 0]];
          /* blocks in reverse rank order, one element of gap after each */
          int64_t units = 0;
          for (int r = size - 1; r >= 0; --r) {
            counts[r] = vints(r, seed, scales[si]) / vl->epu;
            displs[r] = units;
            units += counts[r] + 1;
          }
          const int64_t vtotal = units * vl->epu; /* logical ints of the v-side buffer */
          const int64_t mine = vints(rank, seed, scales[si]);
          const int form = form_counter++ % 4;
          const int is_root = which == 2 || rank == root;
          int *vb = NULL, *ob = NULL, *expect = NULL;
          size_t n_check = 0;
          int rc;
          if (which != 1) { /* gatherv, allgatherv */
            ob = new_buf(ol, mine);
            put_block(ob, ol, 0, mine, rank);
            if (is_root) {
              vb = new_buf(vl, vtotal);
              expect = new_buf(vl, vtotal);
              for (int r = 0; r < size; ++r) put_block(expect, vl, displs[r] * vl->epu, vints(r, seed, scales[si]), r);
              if (in_place) put_block(vb, vl, displs[rank] * vl->epu, mine, rank);
              n_check = buf_ints(vl, vtotal);
            }
            rc = call_vector(form, which, in_place && is_root ? MPI_IN_PLACE : ob, vb, mine / ol->epu, ol->type,
                             counts, displs, vl->type, root);
          } else { /* scatterv */
            ob = new_buf(ol, mine);
            expect = new_buf(ol, mine);
            put_block(expect, ol, 0, mine, rank);
            n_check = buf_ints(ol, mine);
            if (is_root) {
              vb = new_buf(vl, vtotal);
              for (int r = 0; r < size; ++r) put_block(vb, vl, displs[r] * vl->epu, vints(r, seed, scales[si]), r);
            }
            rc = call_vector(form, 1, vb, in_place && is_root ? MPI_IN_PLACE : ob, mine / ol->epu, ol->type, counts,
                             displs, vl->type, root);
            if (in_place && is_root) n_check = 0;
          }
          CHECK(rc == MPI_SUCCESS, "%s (%s) returned %d", names[which], form_names[form], rc);
          if (n_check) {
            const int* got = which == 1 ? ob : vb;
            int64_t bad = diff(got, expect, n_check);
            CHECK(bad == 0, "%s %s scale=%lld root=%d v=%s other=%s%s: %lld wrong ints", names[which],
                  form_names[form], (long long)scales[si], root, vl->name, ol->name, in_place ? " in place" : "",
                  (long long)bad);
          }
          free(vb);
          free(ob);
          free(expect);
        }
  free(counts);
  free(displs);
}

/* Many nonblocking calls of every kind outstanding at once, completed in one Waitall. */
static void test_outstanding(void) {
  enum { ROUNDS = 4, PER = 6, C = 300 };
  MPI_Request reqs[ROUNDS * PER];
  int* bufs[ROUNDS * PER][2];
  int icounts[64], idispls[64];
  const int n = size;
  int vtotal = 0;
  for (int r = n - 1; r >= 0; --r) { /* reverse rank order, gaps of 5 */
    icounts[r] = (r % 3) * C / 2;
    idispls[r] = vtotal;
    vtotal += icounts[r] + 5;
  }
  const int mine = icounts[rank];
  for (int i = 0; i < ROUNDS; ++i) {
    const int root = (i + 1) % n;
    MPI_Request* q = &reqs[i * PER];
    int** b = bufs[i * PER];
    /* gather */
    b[0] = mpitest_malloc(sizeof(int) * C);
    b[1] = mpitest_malloc(sizeof(int) * C * n);
    for (int k = 0; k < C; ++k) b[0][k] = val(rank, k + i);
    CHECK_MPI(MPI_Igather(b[0], C, MPI_INT, b[1], C, MPI_INT, root, tcomm, &q[0]));
    /* scatter */
    b[2] = mpitest_malloc(sizeof(int) * C * n);
    b[3] = mpitest_malloc(sizeof(int) * C);
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < C; ++k) b[2][r * C + k] = val(r, k + 2 * i);
    CHECK_MPI(MPI_Iscatter(b[2], C, MPI_INT, b[3], C, MPI_INT, root, tcomm, &q[1]));
    /* allgather */
    b[4] = mpitest_malloc(sizeof(int) * C);
    b[5] = mpitest_malloc(sizeof(int) * C * n);
    for (int k = 0; k < C; ++k) b[4][k] = val(rank, k + 3 * i);
    CHECK_MPI(MPI_Iallgather(b[4], C, MPI_INT, b[5], C, MPI_INT, tcomm, &q[2]));
    /* gatherv */
    b[6] = mpitest_malloc(sizeof(int) * (size_t)(mine + 1));
    b[7] = mpitest_malloc(sizeof(int) * (size_t)(vtotal + 1));
    for (int k = 0; k < mine; ++k) b[6][k] = val(rank, k + 4 * i);
    CHECK_MPI(MPI_Igatherv(b[6], mine, MPI_INT, b[7], icounts, idispls, MPI_INT, root, tcomm, &q[3]));
    /* scatterv */
    b[8] = mpitest_malloc(sizeof(int) * (size_t)(vtotal + 1));
    b[9] = mpitest_malloc(sizeof(int) * (size_t)(mine + 1));
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < icounts[r]; ++k) b[8][idispls[r] + k] = val(r, k + 5 * i);
    CHECK_MPI(MPI_Iscatterv(b[8], icounts, idispls, MPI_INT, b[9], mine, MPI_INT, root, tcomm, &q[4]));
    /* allgatherv */
    b[10] = mpitest_malloc(sizeof(int) * (size_t)(mine + 1));
    b[11] = mpitest_malloc(sizeof(int) * (size_t)(vtotal + 1));
    for (int k = 0; k < mine; ++k) b[10][k] = val(rank, k + 6 * i);
    CHECK_MPI(MPI_Iallgatherv(b[10], mine, MPI_INT, b[11], icounts, idispls, MPI_INT, tcomm, &q[5]));
  }
  CHECK_MPI(MPI_Waitall(ROUNDS * PER, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < ROUNDS; ++i) {
    const int root = (i + 1) % n;
    int** b = bufs[i * PER];
    int bad = 0;
    if (rank == root)
      for (int r = 0; r < n; ++r)
        for (int k = 0; k < C; ++k) bad += b[1][r * C + k] != val(r, k + i);
    for (int k = 0; k < C; ++k) bad += b[3][k] != val(rank, k + 2 * i);
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < C; ++k) bad += b[5][r * C + k] != val(r, k + 3 * i);
    if (rank == root)
      for (int r = 0; r < n; ++r)
        for (int k = 0; k < icounts[r]; ++k) bad += b[7][idispls[r] + k] != val(r, k + 4 * i);
    for (int k = 0; k < mine; ++k) bad += b[9][k] != val(rank, k + 5 * i);
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < icounts[r]; ++k) bad += b[11][idispls[r] + k] != val(r, k + 6 * i);
    CHECK(bad == 0, "outstanding round %d: %d wrong ints", i, bad);
    for (int j = 0; j < 2 * PER; ++j) free(b[j]);
  }
}

/* Arguments the standard forbids are refused on every rank (MPI_ERRORS_RETURN is set). */
static void test_errors(void) {
  int x = 0, y[64];
  int rc = MPI_Gather(&x, 1, MPI_INT, y, 1, MPI_INT, size, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS, "gather with root = size must fail");
  rc = MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS, "allgather with MPI_IN_PLACE as the receive buffer must fail");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_layouts();
  tcomm = MPI_COMM_WORLD;
  test_gather_scatter(0);
  test_gather_scatter(1);
  test_allgather();
  test_vector(0);
  test_vector(1);
  test_vector(2);
  if (size <= 64) test_outstanding();
  test_errors();
  /* Again on a communicator whose rank order is the reverse of MPI_COMM_WORLD's. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &tcomm));
  CHECK_MPI(MPI_Comm_set_errhandler(tcomm, MPI_ERRORS_RETURN));
  MPI_Comm_rank(tcomm, &rank);
  test_gather_scatter(1);
  test_vector(0);
  test_allgather();
  if (size <= 64) test_outstanding();
  CHECK_MPI(MPI_Comm_free(&tcomm));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  free_layouts();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
