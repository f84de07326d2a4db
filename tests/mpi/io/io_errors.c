/* Error classes of file I/O (MPI-4.1 14.7): a missing file, permissions, MPI_MODE_EXCL, invalid
 * access modes, writes to a read-only file, reads of a write-only one, a full disk (simulated by
 * RLIMIT_FSIZE), bad counts and datatypes, a handle used after close; file error handlers (the
 * default MPI_ERRORS_RETURN, user handlers on a file and on MPI_FILE_NULL, call_errhandler). The
 * library keeps working after each. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "io_test.h"

static int handler_calls = 0, handler_code = 0;
static MPI_File handler_file = MPI_FILE_NULL;
static void handler(MPI_File* fh, int* code, ...) {
  handler_calls++;
  handler_code = *code;
  handler_file = *fh;
}

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  MPI_File fh;
  int rc;
  /* The default error handler of files is MPI_ERRORS_RETURN. */
  MPI_Errhandler eh;
  MPI_File_get_errhandler(MPI_FILE_NULL, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is MPI_ERRORS_RETURN");
  MPI_Errhandler_free(&eh);

  rc = MPI_File_open(MPI_COMM_WORLD, io_path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(io_class(rc) == MPI_ERR_NO_SUCH_FILE, "missing file: %d", rc);
  CHECK(fh == MPI_FILE_NULL, "a failed open gives MPI_FILE_NULL");
  rc = MPI_File_open(MPI_COMM_WORLD, "/nonexistent-dir/x/y", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK(io_class(rc) == MPI_ERR_NO_SUCH_FILE, "missing directory: %d", rc);
  rc = MPI_File_delete(io_path("missing"), MPI_INFO_NULL);
  CHECK(io_class(rc) == MPI_ERR_NO_SUCH_FILE, "delete of a missing file: %d", rc);
  int bad_modes[] = {MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                     MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, 0, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_MODE_RDWR | 4096};
  for (int k = 0; k < 6; ++k) {
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("amode"), bad_modes[k], MPI_INFO_NULL, &fh);
    CHECK(io_class(rc) == MPI_ERR_AMODE, "amode 0x%x: %d", bad_modes[k], rc);
  }
  if (size > 1) {
    rc = MPI_File_open(MPI_COMM_WORLD, io_path("notsame"),
                       rank ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS, "different access modes are refused everywhere: %d", rc);
  }

  /* Permissions: a file without write permission, opened for writing (as a user without rights). */
  const char* ro = io_path("readonly");
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, ro, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "create");
  CHECK_RC(MPI_File_close(&fh), "close");
  if (rank == 0) chmod(ro, 0444);
  MPI_Barrier(MPI_COMM_WORLD);
  const int root = geteuid() == 0;
  if (root) {
    chmod(io_dir, 0755);
    if (seteuid(65534) != 0) perror("seteuid");
  }
  rc = MPI_File_open(MPI_COMM_WORLD, ro, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECK(io_class(rc) == MPI_ERR_ACCESS, "no write permission: %d", rc);
  if (root && seteuid(0) != 0) perror("seteuid back");

  /* Writes to a file opened read-only, reads of one opened write-only. */
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, ro, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open rdonly");
  int v = 1;
  rc = MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_READ_ONLY, "write on a read-only file: %d", rc);
  rc = MPI_File_write_at_all(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_READ_ONLY, "write_all on a read-only file: %d", rc);
  rc = MPI_File_set_size(fh, 10);
  CHECK(io_class(rc) == MPI_ERR_READ_ONLY, "set_size on a read-only file: %d", rc);
  CHECK_RC(MPI_File_close(&fh), "close");
  const char* wo = io_path("writeonly");
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, wo, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open wronly");
  rc = MPI_File_read_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_ACCESS, "read on a write-only file: %d", rc);
  /* Bad arguments. */
  rc = MPI_File_write_at(fh, 0, &v, -1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_COUNT, "negative count: %d", rc);
  MPI_Datatype unc;
  MPI_Type_contiguous(2, MPI_INT, &unc);
  rc = MPI_File_write_at(fh, 0, &v, 1, unc, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_TYPE, "uncommitted datatype: %d", rc);
  MPI_Type_free(&unc);
  rc = MPI_File_write_at(fh, -4, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_ARG, "negative offset: %d", rc);
  rc = MPI_File_seek(fh, 0, 12345);
  CHECK(io_class(rc) == MPI_ERR_ARG, "bad whence: %d", rc);
  rc = MPI_File_read_all_end(fh, &v, MPI_STATUS_IGNORE);
  CHECK(rc != MPI_SUCCESS, "an _end without _begin is refused: %d", rc);

  /* A full disk: the process may not grow files past 64 KiB. */
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 65536;
  setrlimit(RLIMIT_FSIZE, &lim);
  static char big[1 << 17];
  rc = MPI_File_write_at(fh, (MPI_Offset)rank * sizeof(big), big, sizeof(big), MPI_BYTE, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_NO_SPACE, "writing past the size limit: %d", rc);
  rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof(big), big, sizeof(big), MPI_BYTE, MPI_STATUS_IGNORE);
  CHECK(io_class(rc) == MPI_ERR_NO_SPACE, "collective write past the size limit: %d", rc);
  setrlimit(RLIMIT_FSIZE, &old);
  CHECK_RC(MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof(big), big, sizeof(big), MPI_BYTE, MPI_STATUS_IGNORE),
           "writes work again");

  /* A user error handler on the file: called with the file and the code. */
  MPI_Errhandler mine;
  CHECK_RC(MPI_File_create_errhandler(handler, &mine), "create_errhandler");
  CHECK_RC(MPI_File_set_errhandler(fh, mine), "set_errhandler");
  rc = MPI_File_read_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(handler_calls == 1 && io_class(handler_code) == MPI_ERR_ACCESS && handler_file == fh,
        "user handler: calls %d code %d", handler_calls, handler_code);
  CHECK_RC(MPI_File_call_errhandler(fh, MPI_ERR_IO), "call_errhandler");
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_IO, "call_errhandler ran the handler");
  MPI_Errhandler back;
  MPI_File_get_errhandler(fh, &back);
  CHECK(back == mine, "get_errhandler");
  MPI_Errhandler_free(&back);
  MPI_File keep = fh;
  CHECK_RC(MPI_File_close(&fh), "close");

  /* Handles after close, and MPI_FILE_NULL. */
  MPI_Offset sz;
  rc = MPI_File_get_size(keep, &sz);
  CHECK(io_class(rc) == MPI_ERR_FILE, "a handle used after close: %d", rc);
  rc = MPI_File_get_size(MPI_FILE_NULL, &sz);
  CHECK(io_class(rc) == MPI_ERR_FILE, "MPI_FILE_NULL: %d", rc);
  rc = MPI_File_close(&keep);
  CHECK(io_class(rc) == MPI_ERR_FILE, "closing twice: %d", rc);

  /* A handler on MPI_FILE_NULL is the default of errors without a file and of new files. */
  CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, mine), "set_errhandler on MPI_FILE_NULL");
  handler_calls = 0;
  rc = MPI_File_open(MPI_COMM_WORLD, io_path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(handler_calls == 1 && io_class(handler_code) == MPI_ERR_NO_SUCH_FILE && handler_file == MPI_FILE_NULL,
        "MPI_FILE_NULL's user handler: calls %d", handler_calls);
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, wo, MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
  MPI_File_get_errhandler(fh, &back);
  CHECK(back == mine, "a new file takes MPI_FILE_NULL's handler");
  MPI_Errhandler_free(&back);
  CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN), "restore");
  MPI_Errhandler_free(&mine);
  /* Still working. */
  CHECK_RC(MPI_File_write_at_all(fh, rank * 4, &rank, 1, MPI_INT, MPI_STATUS_IGNORE), "write after errors");
  CHECK_RC(MPI_File_close(&fh), "close");
  return io_finish();
}
