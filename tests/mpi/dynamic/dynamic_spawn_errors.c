/* MPI_Comm_spawn's error cases and info keys, under Baton's mpiexec:
 * - a program that does not exist, a working directory that does not exist, info arch of
 *   another machine, info host naming another host: MPI_ERR_SPAWN everywhere, every errcode
 *   MPI_ERR_SPAWN, no intercommunicator, and the job goes on;
 * - maxprocs 0: MPI_ERR_ARG; root out of range: MPI_ERR_ROOT;
 * - info soft "1:3" with maxprocs 4: three children, errcode[3] = MPI_ERR_SPAWN;
 * - info path (the program given by its base name) and host=localhost: honoured. */
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_test.h"

/* Spawns with one info key; checks the outcome's class and codes. Returns the intercomm. */
static MPI_Comm try_spawn(const char* cmd, int n, const char* key, const char* value, int want_class) {
  MPI_Info info = MPI_INFO_NULL;
  if (key) {
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
  }
  int codes[8];
  for (int i = 0; i < 8; ++i) codes[i] = -7;
  MPI_Comm ic = MPI_COMM_NULL;
  char* args[] = {"child", NULL};
  int rc = MPI_Comm_spawn(cmd, args, n, info, 0, MPI_COMM_WORLD, &ic, codes);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  CHECK(error_class(rc) == want_class, "spawn '%s' %s=%s: class %d, expected %d", cmd, key ? key : "-",
        value ? value : "-", error_class(rc), want_class);
  if (want_class == MPI_ERR_SPAWN) {
    CHECK(ic == MPI_COMM_NULL, "a failed spawn gave a communicator");
    for (int i = 0; i < n; ++i) CHECK(codes[i] == MPI_ERR_SPAWN, "errcode[%d] = %d after a failed spawn", i, codes[i]);
  }
  return ic;
}

static void meet_children(MPI_Comm ic, int expect) {
  int rsize;
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(rsize == expect, "%d children, expected %d", rsize, expect);
  MPI_Barrier(ic);
  MPI_Comm_disconnect(&ic);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    MPI_Barrier(parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try_spawn("/nonexistent/baton-no-such-program", 2, NULL, NULL, MPI_ERR_SPAWN);
  try_spawn(argv[0], 1, "wdir", "/nonexistent/dir", MPI_ERR_SPAWN);
  try_spawn(argv[0], 1, "arch", "pdp11", MPI_ERR_SPAWN);
  try_spawn(argv[0], 1, "host", "baton-other-host.invalid", MPI_ERR_SPAWN);
  try_spawn(argv[0], 0, NULL, NULL, MPI_ERR_ARG);
  MPI_Comm ic;
  int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 5, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
  CHECK(error_class(rc) == MPI_ERR_ROOT, "root 5: class %d", error_class(rc));
  /* soft: 1:3 of at most 4. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "soft", "1:3");
  int codes[4] = {-1, -1, -1, -1};
  char* args[] = {"child", NULL};
  CHECK(MPI_Comm_spawn(argv[0], args, 4, info, 0, MPI_COMM_WORLD, &ic, codes) == MPI_SUCCESS, "soft spawn");
  MPI_Info_free(&info);
  CHECK(codes[0] == 0 && codes[1] == 0 && codes[2] == 0 && codes[3] == MPI_ERR_SPAWN, "soft codes %d %d %d %d",
        codes[0], codes[1], codes[2], codes[3]);
  meet_children(ic, 3);
  /* path + base name, and host=localhost. */
  char* full = strdup(argv[0]);
  char* base = strdup(argv[0]);
  ic = try_spawn(basename(base), 1, "path", dirname(full), MPI_SUCCESS);
  meet_children(ic, 1);
  ic = try_spawn(argv[0], 2, "host", "localhost", MPI_SUCCESS);
  meet_children(ic, 2);
  free(full);
  free(base);
  if (rank == 0) printf("spawn errors and info keys: ok\n");
  MPI_Finalize();
  return 0;
}
