/* Nonblocking access: many requests outstanding at once, completed by MPI_Waitall, MPI_Test
 * loops, MPI_Waitany; MPI_Request_free on a pending request (MPI_File_close then waits for it);
 * MPI_Cancel, which lets a file request run to completion. */
#include "io_test.h"

enum { N = 4096, R = 6 };

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  const char* name = io_path("nb");
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
  static int buf[R][N], in[R][N];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < N; ++i) buf[r][i] = (rank * R + r) * N + i;
  /* Rank q's block r lies at ((q * R) + r) * N ints. */
  MPI_Request rq[R];
  for (int r = 0; r < R; ++r) {
    MPI_Offset off = (MPI_Offset)(rank * R + r) * N * (MPI_Offset)sizeof(int);
    if (r % 2 == 0)
      CHECK_RC(MPI_File_iwrite_at(fh, off, buf[r], N, MPI_INT, &rq[r]), "iwrite_at");
    else
      CHECK_RC(MPI_File_iwrite_at_all(fh, off, buf[r], N, MPI_INT, &rq[r]), "iwrite_at_all");
  }
  MPI_Status st[R];
  CHECK_RC(MPI_Waitall(R, rq, st), "waitall");
  for (int r = 0; r < R; ++r) {
    int c = -1;
    MPI_Get_count(&st[r], MPI_INT, &c);
    CHECK(c == N, "request %d wrote %d", r, c);
    CHECK(rq[r] == MPI_REQUEST_NULL, "request %d freed", r);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Read someone else's blocks, with MPI_Test loops and MPI_Waitany. */
  int q = (rank + 1) % size;
  for (int r = 0; r < R; ++r) {
    MPI_Offset off = (MPI_Offset)(q * R + r) * N * (MPI_Offset)sizeof(int);
    if (r % 2 == 0)
      CHECK_RC(MPI_File_iread_at(fh, off, in[r], N, MPI_INT, &rq[r]), "iread_at");
    else
      CHECK_RC(MPI_File_iread_at_all(fh, off, in[r], N, MPI_INT, &rq[r]), "iread_at_all");
  }
  int flag = 0;
  while (!flag) MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
  for (int k = 1; k < R; ++k) {
    int idx = -1;
    CHECK_RC(MPI_Waitany(R, rq, &idx, MPI_STATUS_IGNORE), "waitany");
  }
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < N; i += 97) CHECK(in[r][i] == (q * R + r) * N + i, "block %d [%d] = %d", r, i, in[r][i]);
  /* Individual pointer forms: the pointer moves at the call. */
  MPI_File_seek(fh, (MPI_Offset)(rank * R) * N * (MPI_Offset)sizeof(int), MPI_SEEK_SET);
  CHECK_RC(MPI_File_iread(fh, in[0], N, MPI_INT, &rq[0]), "iread");
  CHECK_RC(MPI_File_iread(fh, in[1], N, MPI_INT, &rq[1]), "iread");
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == (MPI_Offset)(rank * R + 2) * N * (MPI_Offset)sizeof(int), "position after two iread %lld", (long long)pos);
  CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
  CHECK(in[0][5] == buf[0][5] && in[1][7] == buf[1][7], "iread data");
  MPI_File_seek(fh, (MPI_Offset)(rank * R) * N * (MPI_Offset)sizeof(int), MPI_SEEK_SET);
  CHECK_RC(MPI_File_iread_all(fh, in[2], N, MPI_INT, &rq[0]), "iread_all");
  CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), "wait");
  CHECK(in[2][11] == buf[0][11], "iread_all data");
  MPI_File_seek(fh, (MPI_Offset)(rank * R) * N * (MPI_Offset)sizeof(int), MPI_SEEK_SET);
  CHECK_RC(MPI_File_iwrite(fh, buf[0], N, MPI_INT, &rq[0]), "iwrite");
  CHECK_RC(MPI_File_iwrite_all(fh, buf[1], N, MPI_INT, &rq[1]), "iwrite_all");
  CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
  /* Cancel: the request still completes (a file request runs to its end). */
  CHECK_RC(MPI_File_iwrite_at(fh, (MPI_Offset)(rank * R) * N * (MPI_Offset)sizeof(int), buf[0], N, MPI_INT, &rq[0]),
           "iwrite_at");
  CHECK_RC(MPI_Cancel(&rq[0]), "cancel");
  CHECK_RC(MPI_Wait(&rq[0], &st[0]), "wait after cancel");
  int cancelled = 1;
  MPI_Test_cancelled(&st[0], &cancelled);
  CHECK(!cancelled, "a file request completes rather than cancels");
  /* A freed request finishes before the file closes. */
  CHECK_RC(MPI_File_iwrite_at(fh, (MPI_Offset)(rank * R + 3) * N * (MPI_Offset)sizeof(int), buf[3], N, MPI_INT, &rq[0]),
           "iwrite_at");
  CHECK_RC(MPI_Request_free(&rq[0]), "request_free");
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_RC(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "reopen");
    for (int p = 0; p < size; ++p) {
      int v = -1;
      MPI_File_read_at(fh, ((MPI_Offset)(p * R + 3) * N + 100) * (MPI_Offset)sizeof(int), &v, 1, MPI_INT,
                       MPI_STATUS_IGNORE);
      CHECK(v == (p * R + 3) * N + 100, "rank %d's freed write landed: %d", p, v);
    }
    MPI_File_close(&fh);
  }
  return io_finish();
}
