/* Views over subarray, darray, struct, vector and resized filetypes, written and read with every
 * access family that takes a view (independent, collective, split, nonblocking), under hint sets
 * that force two-phase I/O with several small stripes and aggregators, turn it off, or force data
 * sieving. Each written file is checked byte for byte by rank 0 through the default view. */
#include "io_test.h"

static int rank, size;

/* Hint sets: each one a NULL-terminated list of key, value pairs. */
static const char* hint_sets[][9] = {
    {NULL},
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size", "512", NULL},
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size", "1000", "cb_nodes", "3", NULL},
    {"romio_cb_write", "disable", "romio_cb_read", "disable", "romio_ds_write", "enable", "romio_ds_read", "enable", NULL},
    {"romio_cb_write", "disable", "romio_cb_read", "disable", "romio_ds_write", "disable", "romio_ds_read", "disable", NULL},
    {"cb_config_list", "*:*", "romio_cb_write", "enable", "cb_buffer_size", "4096", NULL},
};
#define NSETS (int)(sizeof(hint_sets) / sizeof(hint_sets[0]))

static MPI_Info make_info(int set) {
  MPI_Info info;
  MPI_Info_create(&info);
  for (int k = 0; hint_sets[set][k]; k += 2) MPI_Info_set(info, hint_sets[set][k], hint_sets[set][k + 1]);
  return info;
}

/* Rank 0 reads the whole file as ints and compares with expect(i). */
static void verify_ints(const char* name, int n, int (*expect)(int), const char* what) {
  if (rank == 0) {
    MPI_File fh;
    int* all = malloc(sizeof(int) * (size_t)n);
    CHECK_RC(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open to verify");
    MPI_Status st;
    CHECK_RC(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st), "read to verify");
    int bad = 0;
    for (int i = 0; i < n; ++i)
      if (all[i] != expect(i) && bad++ < 5) CHECK(0, "%s: int %d is %d, want %d", what, i, all[i], expect(i));
    MPI_File_close(&fh);
    free(all);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static int identity(int i) { return i; }

/* A 3-D global array of ints, block-distributed; each element holds its global index. */
static int g3[3], p3[3], sub3[3], start3[3];

static void subarray_case(int set, int family) {
  char fname[64];
  snprintf(fname, sizeof(fname), "sub-%d-%d", set, family);
  const char* name = io_path(fname);
  MPI_Datatype ft;
  MPI_Type_create_subarray(3, g3, sub3, start3, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  int n = sub3[0] * sub3[1] * sub3[2];
  int* buf = malloc(sizeof(int) * (size_t)n + 1);
  int* in = malloc(sizeof(int) * (size_t)n + 1);
  for (int a = 0, k = 0; a < sub3[0]; ++a)
    for (int b = 0; b < sub3[1]; ++b)
      for (int c = 0; c < sub3[2]; ++c, ++k)
        buf[k] = ((start3[0] + a) * g3[1] + start3[1] + b) * g3[2] + start3[2] + c;
  MPI_Info info = make_info(set);
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open");
  CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info), "set_view");
  MPI_Status st;
  MPI_Request rq;
  int cnt = -1;
  switch (family) {
    case 0: CHECK_RC(MPI_File_write_all(fh, buf, n, MPI_INT, &st), "write_all"); break;
    case 1: CHECK_RC(MPI_File_write(fh, buf, n, MPI_INT, &st), "write"); break;
    case 2:
      CHECK_RC(MPI_File_write_at_all_begin(fh, 0, buf, n, MPI_INT), "write_at_all_begin");
      CHECK_RC(MPI_File_write_at_all_end(fh, buf, &st), "write_at_all_end");
      break;
    case 3:
      CHECK_RC(MPI_File_iwrite_all(fh, buf, n, MPI_INT, &rq), "iwrite_all");
      CHECK_RC(MPI_Wait(&rq, &st), "wait");
      break;
    case 4:
      CHECK_RC(MPI_File_iwrite_at(fh, 0, buf, n, MPI_INT, &rq), "iwrite_at");
      CHECK_RC(MPI_Wait(&rq, &st), "wait");
      break;
  }
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n, "%s family %d: wrote %d of %d", name, family, cnt, n);
  CHECK_RC(MPI_File_sync(fh), "sync");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_RC(MPI_File_sync(fh), "sync");
  verify_ints(name, g3[0] * g3[1] * g3[2], identity, fname);
  memset(in, 0xff, sizeof(int) * (size_t)n);
  switch (family) {
    case 0: CHECK_RC(MPI_File_read_at_all(fh, 0, in, n, MPI_INT, &st), "read_at_all"); break;
    case 1:
      MPI_File_seek(fh, 0, MPI_SEEK_SET);
      CHECK_RC(MPI_File_read(fh, in, n, MPI_INT, &st), "read");
      break;
    case 2:
      MPI_File_seek(fh, 0, MPI_SEEK_SET);
      CHECK_RC(MPI_File_read_all_begin(fh, in, n, MPI_INT), "read_all_begin");
      CHECK_RC(MPI_File_read_all_end(fh, in, &st), "read_all_end");
      break;
    case 3:
      CHECK_RC(MPI_File_iread_at_all(fh, 0, in, n, MPI_INT, &rq), "iread_at_all");
      CHECK_RC(MPI_Wait(&rq, &st), "wait");
      break;
    case 4:
      CHECK_RC(MPI_File_iread_at(fh, 0, in, n, MPI_INT, &rq), "iread_at");
      CHECK_RC(MPI_Wait(&rq, &st), "wait");
      break;
  }
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n, "%s family %d: read %d of %d", name, family, cnt, n);
  int bad = 0;
  for (int k = 0; k < n; ++k)
    if (in[k] != buf[k] && bad++ < 3) CHECK(0, "%s family %d: read back [%d] = %d, want %d", fname, family, k, in[k], buf[k]);
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Info_free(&info);
  MPI_Type_free(&ft);
  free(buf);
  free(in);
}

/* A 2-D block-cyclic darray (cyclic(2) x block), with a noncontiguous memory type. */
static void darray_case(int set) {
  const char* name = io_path("darray");
  int gs[2] = {12, 10}, distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {0, 0};
  MPI_Dims_create(size, 2, ps);
  MPI_Datatype ft;
  MPI_Type_create_darray(size, rank, 2, gs, distribs, dargs, ps, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  int tsize;
  MPI_Type_size(ft, &tsize);
  int n = tsize / (int)sizeof(int);
  /* My elements' global indices, in the darray's type map order: compute by packing the global
   * index array through the filetype. */
  int* gidx = malloc(sizeof(int) * 120);
  for (int i = 0; i < 120; ++i) gidx[i] = i;
  int* mine = malloc(sizeof(int) * (size_t)n + 4);
  int pos = 0;
  MPI_Pack(gidx, 1, ft, mine, (int)sizeof(int) * n + 4, &pos, MPI_COMM_SELF);
  /* Memory: every other int of a buffer twice as long (a vector type). */
  int* spread = malloc(sizeof(int) * (size_t)(2 * n + 2));
  for (int k = 0; k < 2 * n + 2; ++k) spread[k] = -7;
  for (int k = 0; k < n; ++k) spread[2 * k] = mine[k];
  MPI_Datatype mt;
  MPI_Type_vector(n, 1, 2, MPI_INT, &mt);
  MPI_Type_commit(&mt);
  MPI_Info info = make_info(set);
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh),
           "open");
  CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info), "set_view darray");
  CHECK_RC(MPI_File_write_all(fh, spread, n ? 1 : 0, mt, MPI_STATUS_IGNORE), "write_all darray");
  MPI_Barrier(MPI_COMM_WORLD);
  verify_ints(name, 120, identity, "darray");
  for (int k = 0; k < 2 * n + 2; ++k) spread[k] = -7;
  CHECK_RC(MPI_File_read_at_all(fh, 0, spread, n ? 1 : 0, mt, MPI_STATUS_IGNORE), "read_at_all darray");
  for (int k = 0; k < n; ++k) CHECK(spread[2 * k] == mine[k], "darray read [%d] = %d want %d", k, spread[2 * k], mine[k]);
  for (int k = 0; k < n; ++k) CHECK(spread[2 * k + 1] == -7, "darray read wrote a hole of the memory type");
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Info_free(&info);
  MPI_Type_free(&ft);
  MPI_Type_free(&mt);
  free(gidx);
  free(mine);
  free(spread);
}

/* A struct filetype {int; hole; double} resized so that the ranks' records interleave. */
struct rec {
  int i;
  double d;
};
static void struct_case(int set) {
  const char* name = io_path("struct");
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, st0, ft, mt;
  MPI_Type_create_struct(2, bl, disp, types, &st0);  /* 4 bytes, hole, 8 bytes: extent 16 */
  MPI_Type_create_resized(st0, 0, 16 * size, &ft);  /* one record per rank, interleaved */
  MPI_Type_commit(&ft);
  MPI_Aint mdisp[2] = {offsetof(struct rec, i), offsetof(struct rec, d)};
  MPI_Type_create_struct(2, bl, mdisp, types, &mt);
  MPI_Type_commit(&mt);
  enum { N = 7 };
  struct rec r[N], back[N];
  for (int k = 0; k < N; ++k) {
    r[k].i = rank * 100 + k;
    r[k].d = rank + k * 0.5;
  }
  MPI_Info info = make_info(set);
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh),
           "open");
  CHECK_RC(MPI_File_set_view(fh, 16 * rank, MPI_BYTE, ft, "native", info), "set_view struct");
  CHECK_RC(MPI_File_write_all(fh, r, N, mt, MPI_STATUS_IGNORE), "write_all struct");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    /* Record k of rank q sits at (k * size + q) * 16: int, 4 untouched bytes, double. */
    MPI_File vf;
    MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &vf);
    for (int q = 0; q < size; ++q)
      for (int k = 0; k < N; ++k) {
        int i = -1;
        double d = -1;
        MPI_File_read_at(vf, (MPI_Offset)(k * size + q) * 16, &i, 1, MPI_INT, MPI_STATUS_IGNORE);
        MPI_File_read_at(vf, (MPI_Offset)(k * size + q) * 16 + 8, &d, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
        CHECK(i == q * 100 + k && d == q + k * 0.5, "struct record %d of rank %d: %d %g", k, q, i, d);
      }
    MPI_File_close(&vf);
  }
  memset(back, 0, sizeof(back));
  CHECK_RC(MPI_File_read_at_all(fh, 0, back, N, mt, MPI_STATUS_IGNORE), "read_at_all struct");
  for (int k = 0; k < N; ++k) CHECK(back[k].i == r[k].i && back[k].d == r[k].d, "struct read back %d", k);
  MPI_Offset b = -1;
  MPI_File_get_byte_offset(fh, 13, &b); /* etype bytes: record 1's int starts at stream byte 12 */
  CHECK(b == (MPI_Offset)(16 * rank + 16 * size + 1), "byte offset %lld", (long long)b);
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Info_free(&info);
  MPI_Type_free(&st0);
  MPI_Type_free(&ft);
  MPI_Type_free(&mt);
}

/* Invalid views give MPI_ERR_TYPE (or MPI_ERR_ARG) on every rank, and the file stays usable. */
static void bad_views(void) {
  const char* name = io_path("badview");
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh), "open");
  MPI_Datatype three, unc, dec;
  MPI_Type_contiguous(3, MPI_BYTE, &three);
  MPI_Type_commit(&three);
  int rc = MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_TYPE, "a filetype not made of etypes gives %d", rc);
  MPI_Type_contiguous(2, MPI_INT, &unc);
  rc = MPI_File_set_view(fh, 0, MPI_INT, unc, "native", MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_TYPE, "an uncommitted filetype gives %d", rc);
  int bl[2] = {1, 1}, dp[2] = {4, 0};
  MPI_Type_indexed(2, bl, dp, MPI_INT, &dec);
  MPI_Type_commit(&dec);
  rc = MPI_File_set_view(fh, 0, MPI_INT, dec, "native", MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_TYPE, "decreasing displacements give %d", rc);
  rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "an unknown datarep gives %d", rc);
  rc = MPI_File_set_view(fh, -5, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_ARG, "a negative displacement gives %d", rc);
  int v = rank;
  CHECK_RC(MPI_File_write_at_all(fh, rank, &v, 1, MPI_INT, MPI_STATUS_IGNORE), "usable after bad views");
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Type_free(&three);
  MPI_Type_free(&unc);
  MPI_Type_free(&dec);
}

int main(int argc, char** argv) {
  io_start(&argc, &argv, &rank, &size);
  g3[0] = 6;
  g3[1] = 5;
  g3[2] = 8;
  MPI_Dims_create(size, 3, p3);
  int coords[3] = {rank / (p3[1] * p3[2]), rank / p3[2] % p3[1], rank % p3[2]};
  for (int d = 0; d < 3; ++d) {
    int q = g3[d] / p3[d], rem = g3[d] % p3[d];
    sub3[d] = q + (coords[d] < rem);
    start3[d] = coords[d] * q + (coords[d] < rem ? coords[d] : rem);
  }
  for (int set = 0; set < NSETS; ++set) {
    for (int family = 0; family < 5; ++family) subarray_case(set, family);
    darray_case(set);
    struct_case(set);
  }
  bad_views();
  return io_finish();
}
