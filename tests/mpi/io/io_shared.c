/* The shared file pointer from every rank at once (write_shared, read_shared, their nonblocking
 * forms), seek_shared / get_position_shared, and the ordered collectives (blocking and split). */
#include "io_test.h"

enum { K = 25 };

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  const char* name = io_path("shared");
  MPI_File fh;
  CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  CHECK_RC(MPI_File_set_view(fh, 0, pair, pair, "native", MPI_INFO_NULL), "set_view");
  /* Every rank appends K records (rank, k) through the shared pointer, some nonblocking. */
  for (int k = 0; k < K; ++k) {
    int r[2] = {rank, k};
    if (k % 5 == 4) {
      MPI_Request rq;
      CHECK_RC(MPI_File_iwrite_shared(fh, r, 1, pair, &rq), "iwrite_shared");
      CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
    } else {
      CHECK_RC(MPI_File_write_shared(fh, r, 1, pair, MPI_STATUS_IGNORE), "write_shared");
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset pos = -1;
  CHECK_RC(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
  CHECK(pos == (MPI_Offset)size * K, "shared position %lld, want %d", (long long)pos, size * K);
  if (rank == 0) {
    int* all = malloc(sizeof(int) * 2 * (size_t)(size * K));
    int* next = calloc((size_t)size, sizeof(int));
    CHECK_RC(MPI_File_read_at(fh, 0, all, size * K, pair, MPI_STATUS_IGNORE), "read_at");
    for (int i = 0; i < size * K; ++i) {
      int q = all[2 * i], k = all[2 * i + 1];
      CHECK(q >= 0 && q < size, "record %d names rank %d", i, q);
      if (q >= 0 && q < size) {
        CHECK(k == next[q], "rank %d's record %d came as %d (each once, in its order)", q, next[q], k);
        next[q] = k + 1;
      }
    }
    for (int q = 0; q < size; ++q) CHECK(next[q] == K, "rank %d wrote %d records", q, next[q]);
    free(all);
    free(next);
  }
  /* seek_shared back to the start; every rank reads K records; together they read each once. */
  CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
  int got[2 * K];
  for (int k = 0; k < K; ++k) {
    if (k % 7 == 3) {
      MPI_Request rq;
      CHECK_RC(MPI_File_iread_shared(fh, got + 2 * k, 1, pair, &rq), "iread_shared");
      CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
    } else {
      CHECK_RC(MPI_File_read_shared(fh, got + 2 * k, 1, pair, MPI_STATUS_IGNORE), "read_shared");
    }
  }
  long mine = 0, total = 0;
  for (int k = 0; k < K; ++k) mine += (long)got[2 * k] * K + got[2 * k + 1];
  MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long want = 0;
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < K; ++k) want += (long)q * K + k;
  CHECK(total == want, "read_shared read every record once (sum %ld, want %ld)", total, want);
  CHECK_RC(MPI_File_seek_shared(fh, -2, MPI_SEEK_END), "seek_shared end");
  CHECK_RC(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
  CHECK(pos == (MPI_Offset)size * K - 2, "seek_shared end gives %lld", (long long)pos);
  /* Ordered: rank q writes q + 1 ints of value q after the ranks before it. */
  CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view ints");
  MPI_File_get_position_shared(fh, &pos);
  CHECK(pos == 0, "set_view resets the shared pointer: %lld", (long long)pos);
  int vals[64];
  for (int i = 0; i < rank + 1; ++i) vals[i] = rank;
  CHECK_RC(MPI_File_write_ordered(fh, vals, rank + 1, MPI_INT, MPI_STATUS_IGNORE), "write_ordered");
  CHECK_RC(MPI_File_write_ordered_begin(fh, vals, rank + 1, MPI_INT), "write_ordered_begin");
  CHECK_RC(MPI_File_write_ordered_end(fh, vals, MPI_STATUS_IGNORE), "write_ordered_end");
  int tri = size * (size + 1) / 2;
  MPI_File_get_position_shared(fh, &pos);
  CHECK(pos == 2 * tri, "after two ordered writes the shared pointer is %lld, want %d", (long long)pos, 2 * tri);
  CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
  int in[64];
  MPI_Status st;
  CHECK_RC(MPI_File_read_ordered(fh, in, rank + 1, MPI_INT, &st), "read_ordered");
  for (int i = 0; i < rank + 1; ++i) CHECK(in[i] == rank, "read_ordered [%d] = %d", i, in[i]);
  CHECK_RC(MPI_File_read_ordered_begin(fh, in, rank + 1, MPI_INT), "read_ordered_begin");
  CHECK_RC(MPI_File_read_ordered_end(fh, in, &st), "read_ordered_end");
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == rank + 1, "read_ordered_end count %d", cnt);
  for (int i = 0; i < rank + 1; ++i) CHECK(in[i] == rank, "read_ordered_end [%d] = %d", i, in[i]);
  CHECK_RC(MPI_File_close(&fh), "close");
  MPI_Type_free(&pair);
  return io_finish();
}
