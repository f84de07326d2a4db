/* Atomic mode with overlapping writers: every rank writes the same region (a strided filetype,
 * so a write is several file accesses) with its own value; with MPI_File_set_atomicity(1) the
 * region must come out all one rank's, every time. Independent and collective writes, data
 * sieving on and off. */
#include "io_test.h"

enum { BLOCKS = 4096, ITER = 10 };

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  const char* name = io_path("atomic");
  for (int variant = 0; variant < 3; ++variant) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", variant == 1 ? "enable" : "disable");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open");
    CHECK_RC(MPI_File_set_atomicity(fh, 1), "set_atomicity");
    MPI_Datatype ft;
    MPI_Type_vector(BLOCKS, 2, 3, MPI_INT, &ft);  /* 2 ints of every 3 */
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info), "set_view");
    static int v[2 * BLOCKS], all[3 * BLOCKS];
    for (int it = 0; it < ITER; ++it) {
      for (int i = 0; i < 2 * BLOCKS; ++i) v[i] = rank + 1 + size * it;
      if (variant == 2)
        CHECK_RC(MPI_File_write_at_all(fh, 0, v, 2 * BLOCKS, MPI_INT, MPI_STATUS_IGNORE), "write_at_all");
      else
        CHECK_RC(MPI_File_write_at(fh, 0, v, 2 * BLOCKS, MPI_INT, MPI_STATUS_IGNORE), "write_at");
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        MPI_File rf;
        MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &rf);
        MPI_File_read_at(rf, 0, all, 3 * BLOCKS - 1, MPI_INT, MPI_STATUS_IGNORE);
        MPI_File_close(&rf);
        int first = all[0], mixed = 0;
        for (int b = 0; b < BLOCKS; ++b) mixed += all[3 * b] != first || all[3 * b + 1] != first;
        CHECK(!mixed, "variant %d iteration %d: %d blocks differ from the first one's writer", variant, it, mixed);
        CHECK(first >= 1 + size * it && first <= size * (it + 1), "variant %d: value %d from this iteration", variant,
              first);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_RC(MPI_File_close(&fh), "close");
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
  }
  return io_finish();
}
