/* Where nothing can start processes (run by no_launcher.sh): a singleton (started without a
 * launcher) and a job under Slurm's PMI-2 (simulated: SLURM_MPI_TYPE=pmi2 under mpiexec.hydra
 * speaking PMI-2) get MPI_ERR_SPAWN from MPI_Comm_spawn at once, with every errcode
 * MPI_ERR_SPAWN. A singleton still has ports (open, close, a connect to the closed port gives
 * MPI_ERR_PORT), and its name calls fail with MPI_ERR_UNSUPPORTED_OPERATION unless
 * BATON_NAMESERVER is set. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_test.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int singleton = argc > 1 && strcmp(argv[1], "singleton") == 0;
  int codes[2] = {-1, -1};
  MPI_Comm ic = MPI_COMM_SELF;
  const double t0 = MPI_Wtime();
  int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(error_class(rc) == MPI_ERR_SPAWN, "spawn gave class %d (%s)", error_class(rc), msg);
  CHECK(ic == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "spawn left %p / %d %d",
        (void*)ic, codes[0], codes[1]);
  CHECK(MPI_Wtime() - t0 < 5, "the refusal took %.1f s", MPI_Wtime() - t0);
  printf("refused: %s\n", msg);
  if (singleton) {
    char port[MPI_MAX_PORT_NAME];
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "a singleton cannot open a port");
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    CHECK(error_class(rc) == MPI_ERR_PORT, "connect to a closed port gave class %d", error_class(rc));
    if (!getenv("BATON_NAMESERVER")) {
      rc = MPI_Publish_name("baton-singleton", MPI_INFO_NULL, port);
      CHECK(error_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "publish without a name service gave class %d",
            error_class(rc));
    }
  }
  printf("no launcher: ok\n");
  MPI_Finalize();
  return 0;
}
