/* Nonblocking collective I/O completes while every rank sleeps outside MPI (BATON_ASYNC_PROGRESS=1:
 * the progress thread drives the exchanges, the I/O worker the file accesses). Each rank watches
 * the result without calling MPI: the file's bytes (through its own descriptor) after
 * MPI_File_iwrite_at_all, its buffer after MPI_File_iread_at_all. */
#include <fcntl.h>
#include <time.h>

#include "io_test.h"

enum { N = 1 << 20 }; /* ints per rank: 4 MiB */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  const char* name = io_path("async");
  /* How long to watch (BATON_TEST_IDLE_MS: the run without the thread shortens it). */
  const char* lim = getenv("BATON_TEST_IDLE_MS");
  const double limit = lim && *lim ? atof(lim) / 1000.0 : 30.0;
  int* buf = malloc(sizeof(int) * N);
  for (int i = 0; i < N; ++i) buf[i] = rank * N + i;
  const char* modes[][2] = {{"romio_cb_write", "enable"}, {"romio_cb_write", "disable"}};
  for (int m = 0; m < 2; ++m) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, modes[m][0], modes[m][1]);
    MPI_Info_set(info, "romio_cb_read", modes[m][1]);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open");
    /* Interleaved blocks of 64 KiB, so that two-phase really exchanges data. */
    MPI_Datatype ft;
    MPI_Type_vector(N / 16384, 16384, 16384 * size, MPI_INT, &ft);
    MPI_Datatype rft;
    MPI_Type_create_resized(ft, 0, (MPI_Aint)sizeof(int) * N * size, &rft);
    MPI_Type_commit(&rft);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * 16384 * sizeof(int), MPI_INT, rft, "native", info), "set_view");
    MPI_Request rq;
    double t0 = now();
    CHECK_RC(MPI_File_iwrite_at_all(fh, 0, buf, N, MPI_INT, &rq), "iwrite_at_all");
    /* Sleep, looking at the file through a descriptor of our own, until every rank's last block is there. */
    int fd = open(name, O_RDONLY);
    int done = 0;
    while (!done && now() - t0 < limit) {
      usleep(2000);
      done = 1;
      for (int q = 0; q < size && done; ++q) {
        int v = -1;
        off_t last = ((off_t)(N / 16384 - 1) * 16384 * size + (off_t)q * 16384 + 16383) * (off_t)sizeof(int);
        if (pread(fd, &v, sizeof(v), last) != sizeof(v) || v != q * N + N - 1) done = 0;
      }
    }
    close(fd);
    CHECK(done, "mode %d: the write did not complete within %.1f s while every rank slept outside MPI", m,
          now() - t0);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&rq, &st), "wait");
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "wrote %d", cnt);
    MPI_Barrier(MPI_COMM_WORLD);
    /* And a read: watch the buffer. */
    volatile int* in = malloc(sizeof(int) * N);
    for (int i = 0; i < N; ++i) in[i] = -1;
    t0 = now();
    CHECK_RC(MPI_File_iread_at_all(fh, 0, (void*)in, N, MPI_INT, &rq), "iread_at_all");
#if !defined(__SANITIZE_THREAD__)
    /* (Under TSan, watching the buffer while the progress thread fills it is a race by design:
     * there the write's progress, checked through the file above, has to do.) */
    while ((in[N - 1] != rank * N + N - 1 || in[0] != rank * N) && now() - t0 < limit) usleep(2000);
    CHECK(in[N - 1] == rank * N + N - 1, "mode %d: the read did not complete within %.1f s while every rank slept "
          "outside MPI", m, now() - t0);
#endif
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
    for (int i = 0; i < N; i += 4099) CHECK(in[i] == rank * N + i, "read [%d] = %d", i, in[i]);
    free((void*)in);
    CHECK_RC(MPI_File_close(&fh), "close");
    MPI_Type_free(&ft);
    MPI_Type_free(&rft);
    MPI_Info_free(&info);
    if (rank == 0) MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(buf);
  return io_finish();
}
