/* Open / close / delete with the access modes, explicit offsets, the individual file pointer,
 * sizes, sync, and the queries (amode, group, info, atomicity, byte offsets). */
#include "io_test.h"

static void test_explicit(int rank, int size) {
  MPI_File fh;
  const char* name = io_path("explicit");
  int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECK_RC(rc, "open");
  int buf[100];
  for (int i = 0; i < 100; ++i) buf[i] = rank * 1000 + i;
  MPI_Status st;
  rc = MPI_File_write_at(fh, (MPI_Offset)rank * 100 * sizeof(int), buf, 100, MPI_INT, &st);
  CHECK_RC(rc, "write_at");
  int n = -1;
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 100, "write_at count %d", n);
  MPI_Barrier(MPI_COMM_WORLD);
  int other = (rank + 1) % size, in[100];
  rc = MPI_File_read_at(fh, (MPI_Offset)other * 100 * sizeof(int), in, 100, MPI_INT, &st);
  CHECK_RC(rc, "read_at");
  for (int i = 0; i < 100; ++i) CHECK(in[i] == other * 1000 + i, "in[%d] = %d", i, in[i]);
  MPI_Offset sz = 0;
  MPI_File_get_size(fh, &sz);
  CHECK(sz == (MPI_Offset)size * 100 * (MPI_Offset)sizeof(int), "size %lld", (long long)sz);
  /* Reading past the end gives what is there: the count says how much. */
  rc = MPI_File_read_at(fh, sz - 2 * (MPI_Offset)sizeof(int), in, 10, MPI_INT, &st);
  CHECK_RC(rc, "read_at at the end");
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 2, "count at the end %d", n);
  /* Every rank reads the same last bytes and past the end, collectively (overlapping ranges:
   * two-phase with collective buffering forced on): the bytes past the end stay as they were. */
  MPI_Info cb;
  MPI_Info_create(&cb);
  MPI_Info_set(cb, "romio_cb_read", "enable");
  CHECK_RC(MPI_File_set_info(fh, cb), "set_info");
  MPI_Info_free(&cb);
  for (int i = 0; i < 10; ++i) in[i] = -99;
  rc = MPI_File_read_at_all(fh, sz - 3 * (MPI_Offset)sizeof(int), in, 10, MPI_INT, &st);
  CHECK_RC(rc, "read_at_all at the end");
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 3, "collective count at the end %d", n);
  for (int i = 0; i < 3; ++i) CHECK(in[i] == (size - 1) * 1000 + 97 + i, "collective read at the end [%d] = %d", i, in[i]);
  for (int i = 3; i < 10; ++i) CHECK(in[i] == -99, "a read past the end changed [%d] to %d", i, in[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  rc = MPI_File_close(&fh);
  CHECK_RC(rc, "close");
  CHECK(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_RC(MPI_File_delete(name, MPI_INFO_NULL), "delete");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(access(name, F_OK) != 0, "the file is gone after MPI_File_delete");
}

static void test_pointer(int rank, int size) {
  MPI_File fh;
  const char* name = io_path("pointer");
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
  /* Each rank's view starts at its own block: the individual pointer then walks it. */
  double d[10];
  for (int i = 0; i < 10; ++i) d[i] = rank + i / 100.0;
  CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * 20 * sizeof(double), MPI_DOUBLE, MPI_DOUBLE, "native",
                             MPI_INFO_NULL), "set_view");
  CHECK_RC(MPI_File_write(fh, d, 5, MPI_DOUBLE, MPI_STATUS_IGNORE), "write");
  MPI_Offset pos = -1, byte = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == 5, "position %lld", (long long)pos);
  MPI_File_get_byte_offset(fh, pos, &byte);
  CHECK(byte == (MPI_Offset)(rank * 20 + 5) * 8, "byte offset %lld", (long long)byte);
  CHECK_RC(MPI_File_write(fh, d + 5, 5, MPI_DOUBLE, MPI_STATUS_IGNORE), "write");
  CHECK_RC(MPI_File_seek(fh, 2, MPI_SEEK_SET), "seek set");
  double x = -1;
  CHECK_RC(MPI_File_read(fh, &x, 1, MPI_DOUBLE, MPI_STATUS_IGNORE), "read");
  CHECK(x == d[2], "read %g", x);
  CHECK_RC(MPI_File_seek(fh, -2, MPI_SEEK_CUR), "seek cur");
  MPI_File_get_position(fh, &pos);
  CHECK(pos == 1, "position after seek cur %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_RC(MPI_File_seek(fh, -1, MPI_SEEK_END), "seek end");
  MPI_File_get_position(fh, &pos);
  /* The file ends with the last rank's 10 doubles, at etype (size-1)*20 + 10 - rank*20 in my view. */
  MPI_Offset want = (MPI_Offset)((size - 1) * 20 + 10 - rank * 20) - 1;
  CHECK(pos == want, "position after seek end %lld, want %lld", (long long)pos, (long long)want);
  int rc = MPI_File_seek(fh, -1000, MPI_SEEK_SET);
  CHECK(io_class(rc) == MPI_ERR_ARG, "seek to a negative offset gives %d", rc);
  CHECK_RC(MPI_File_close(&fh), "close");
}

static void test_queries(int rank, int size) {
  MPI_File fh;
  const char* name = io_path("queries");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "1048576");
  MPI_Info_set(info, "access_style", "write_once");
  MPI_Info_set(info, "my_own_key", "42");
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN, info, &fh),
           "open");
  MPI_Info_free(&info);
  int amode = 0;
  MPI_File_get_amode(fh, &amode);
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN), "amode %d", amode);
  MPI_Group g, wg;
  int cmp = -1;
  MPI_File_get_group(fh, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(g, wg, &cmp);
  CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Info used;
  CHECK_RC(MPI_File_get_info(fh, &used), "get_info");
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && !strcmp(v, "1048576"), "cb_buffer_size %s", flag ? v : "(absent)");
  MPI_Info_get(used, "access_style", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && !strcmp(v, "write_once"), "access_style %s", flag ? v : "(absent)");
  MPI_Info_get(used, "my_own_key", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && !strcmp(v, "42"), "my_own_key %s", flag ? v : "(absent)");
  MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag, "romio_cb_write reported");
  MPI_Info_free(&used);
  /* cb_nodes set later chooses the aggregators again; get_info reports how many there are. */
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "2");
  CHECK_RC(MPI_File_set_info(fh, info), "set_info cb_nodes");
  MPI_Info_free(&info);
  CHECK_RC(MPI_File_get_info(fh, &used), "get_info");
  MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && atoi(v) == (size < 2 ? size : 2), "cb_nodes %s", flag ? v : "(absent)");
  MPI_Info_free(&used);
  int atom = -1;
  MPI_File_get_atomicity(fh, &atom);
  CHECK(atom == 0, "atomicity starts false");
  CHECK_RC(MPI_File_set_atomicity(fh, 1), "set_atomicity");
  MPI_File_get_atomicity(fh, &atom);
  CHECK(atom == 1, "atomicity set");
  CHECK_RC(MPI_File_set_size(fh, 4096), "set_size");
  MPI_Offset sz = 0;
  MPI_File_get_size(fh, &sz);
  CHECK(sz == 4096, "size after set_size %lld", (long long)sz);
  CHECK_RC(MPI_File_preallocate(fh, 8192), "preallocate");
  MPI_File_get_size(fh, &sz);
  CHECK(sz == 8192, "size after preallocate %lld", (long long)sz);
  CHECK_RC(MPI_File_preallocate(fh, 100), "preallocate smaller");
  MPI_File_get_size(fh, &sz);
  CHECK(sz == 8192, "preallocate never shrinks: %lld", (long long)sz);
  CHECK_RC(MPI_File_set_size(fh, 100), "set_size smaller");
  MPI_File_get_size(fh, &sz);
  CHECK(sz == 100, "set_size shrinks: %lld", (long long)sz);
  CHECK_RC(MPI_File_sync(fh), "sync");
  MPI_Aint ext = 0;
  MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext);
  CHECK(ext == 8, "type extent %ld", (long)ext);
  CHECK_RC(MPI_File_close(&fh), "close");
  (void)rank;
  (void)size;
}

static void test_modes(int rank) {
  const char* name = io_path("modes");
  MPI_File fh;
  /* EXCL on a new file works, then fails on the existing one. */
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
           "open excl");
  int v = 7;
  if (rank == 0) MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK_RC(MPI_File_close(&fh), "close");
  int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK(io_class(rc) == MPI_ERR_FILE_EXISTS, "excl on an existing file gives %d", rc);
  /* APPEND: the pointers start at the end. */
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_APPEND | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open append");
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == 4, "append starts at the end: %lld", (long long)pos);
  MPI_File_get_position_shared(fh, &pos);
  CHECK(pos == 4, "append: the shared pointer starts at the end: %lld", (long long)pos);
  CHECK_RC(MPI_File_close(&fh), "close");
  /* DELETE_ON_CLOSE */
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
           "open delete_on_close");
  int in = 0;
  CHECK_RC(MPI_File_read_at(fh, 0, &in, 1, MPI_INT, MPI_STATUS_IGNORE), "read");
  CHECK(in == 7, "read %d", in);
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(access(name, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE removed the file");
  /* SEQUENTIAL: shared pointer only. */
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL | MPI_MODE_WRONLY |
                                               MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh), "open sequential");
  rc = MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "write_at on a sequential file gives %d", rc);
  rc = MPI_File_seek(fh, 0, MPI_SEEK_SET);
  CHECK(io_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "seek on a sequential file gives %d", rc);
  CHECK_RC(MPI_File_write_ordered(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE), "write_ordered");
  CHECK_RC(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
           "set_view with MPI_DISPLACEMENT_CURRENT");
  MPI_Offset disp = -1;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &et, &ft, rep);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(disp == (MPI_Offset)size * 4, "MPI_DISPLACEMENT_CURRENT gave %lld", (long long)disp);
  CHECK(et == MPI_INT && ft == MPI_INT && !strcmp(rep, "native"), "get_view");
  CHECK_RC(MPI_File_close(&fh), "close");
}

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  test_explicit(rank, size);
  test_pointer(rank, size);
  test_queries(rank, size);
  test_modes(rank);
  return io_finish();
}
