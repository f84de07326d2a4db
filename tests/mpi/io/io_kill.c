/* Nothing acknowledged is lost: what a rank wrote and MPI_File_sync'ed is in the file even when
 * that rank is killed right after. Two phases, driven by io_kill.sh:
 *   io_kill write FILE   every rank writes its block (collectively, then one more record
 *                        independently), syncs, and the last rank kills itself with SIGKILL at
 *                        once; the others wait in a barrier that never completes (the launcher
 *                        ends the job)
 *   io_kill check FILE NP  one process checks every block. */
#include <signal.h>

#include "io_test.h"

enum { N = 100000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    fprintf(stderr, "usage: io_kill write|check FILE [NP]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  static int buf[N];
  MPI_File fh;
  if (!strcmp(argv[1], "write")) {
    for (int i = 0; i < N; ++i) buf[i] = rank * N + i;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
    CHECK_RC(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, MPI_STATUS_IGNORE), "write_at_all");
    int tail = -rank - 1;
    CHECK_RC(MPI_File_write_at(fh, ((MPI_Offset)size * N + rank) * 4, &tail, 1, MPI_INT, MPI_STATUS_IGNORE), "write_at");
    CHECK_RC(MPI_File_sync(fh), "sync");
    if (rank == size - 1) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD);  /* never completes: the launcher ends the job */
    return 3;
  }
  int np = argc > 3 ? atoi(argv[3]) : 2;
  CHECK_RC(MPI_File_open(MPI_COMM_SELF, argv[2], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open");
  for (int q = 0; q < np; ++q) {
    CHECK_RC(MPI_File_read_at(fh, (MPI_Offset)q * N * 4, buf, N, MPI_INT, MPI_STATUS_IGNORE), "read");
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += buf[i] != q * N + i;
    CHECK(!bad, "rank %d's block has %d wrong ints", q, bad);
    int tail = 0;
    MPI_File_read_at(fh, ((MPI_Offset)np * N + q) * 4, &tail, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(tail == -q - 1, "rank %d's last record is %d", q, tail);
  }
  MPI_File_close(&fh);
  printf(io_failures ? "FAILED\n" : "OK\n");
  MPI_Finalize();
  return io_failures ? 1 : 0;
}
