/* Helpers of the file I/O tests: a directory of the test's own (removed at the end, whatever the
 * test left in it), checks that count failures, and one agreement on the outcome at the end.
 *
 * The directory is made by rank 0 under $BATON_IO_TEST_DIR (a folder both simulated hosts see,
 * in the two-host run), else $TMPDIR, else /tmp, and its name is broadcast. */
#ifndef BATON_IO_TEST_H
#define BATON_IO_TEST_H

#include <dirent.h>
#include <stddef.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int io_failures = 0;
static char io_dir[512];

#define CHECK(cond, ...)                                                         \
  do {                                                                           \
    if (!(cond)) {                                                               \
      int r_;                                                                    \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                        \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, "\n");                                                     \
      io_failures++;                                                             \
    }                                                                            \
  } while (0)

#define CHECK_RC(rc, what) CHECK((rc) == MPI_SUCCESS, "%s returned %d", what, rc)

static inline int io_class(int rc) {
  int c = rc;
  MPI_Error_class(rc, &c);
  return c;
}

static inline void io_dir_init(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const char* base = getenv("BATON_IO_TEST_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(io_dir, sizeof(io_dir), "%s/baton-io-XXXXXX", base);
    if (!mkdtemp(io_dir)) {
      perror("mkdtemp");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Bcast(io_dir, sizeof(io_dir), MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* MPI_Init, this rank and the size of MPI_COMM_WORLD, and the test's directory. */
static inline void io_start(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  io_dir_init();
}

/* A path in the test's directory. */
static inline const char* io_path(const char* name) {
  static char p[4][640];
  static int k = 0;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof(p[k]), "%s/%s", io_dir, name);
  return p[k];
}

/* Removes the directory and everything in it; agrees on the outcome; returns main's exit code. */
static inline int io_finish(void) {
  int rank, total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    DIR* d = opendir(io_dir);
    if (d) {
      struct dirent* e;
      while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[1024];
        snprintf(p, sizeof(p), "%s/%s", io_dir, e->d_name);
        unlink(p);
      }
      closedir(d);
    }
    if (rmdir(io_dir) != 0) {
      perror("rmdir");
      io_failures++;
    }
  }
  MPI_Allreduce(&io_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "FAILED (%d checks)\n" : "OK\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}

#endif
