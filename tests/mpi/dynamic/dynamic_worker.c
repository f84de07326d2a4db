/* The second program of dynamic_spawn_multiple: reports its MPI_APPNUM, arguments and working
 * directory to the parents' rank 0 through MPI_Comm_get_parent. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent == MPI_COMM_NULL) {
    fprintf(stderr, "dynamic_worker: not spawned\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int* appnum = NULL;
  int found = 0, rank;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &found);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char report[512], cwd[256] = "";
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
  snprintf(report, sizeof report, "worker appnum=%d argc=%d arg1=%s arg2=%s cwd=%s", found ? *appnum : -1, argc,
           argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "", cwd);
  MPI_Send(report, (int)strlen(report) + 1, MPI_CHAR, 0, 9, parent);
  MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}
