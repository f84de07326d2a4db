/* Faults around dynamic processes (run by fault.sh, which checks exit codes and timing):
 *   dynamic_fault crash-child TAG     two children; child 1 exits with code 3 right after
 *                                     MPI_Init while the parents wait for a message from it:
 *                                     the whole job must end (non-zero) within seconds
 *   dynamic_fault parent-exits TAG    the parents finalize and exit at once; the children go on
 *                                     (allreduce among themselves after the parents are gone),
 *                                     print "children done" and finalize: exit 0
 *   dynamic_fault server FILE / client FILE   two launches: the client connects and then dies
 *                                     (SIGKILL); the server, waiting for a message from it, must
 *                                     end within seconds
 * TAG is an argument the children carry, so the script can look for leftover processes. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: dynamic_fault MODE TAG|FILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parent != MPI_COMM_NULL) {
    if (strcmp(mode, "crash-child") == 0) {
      if (rank == 1) _exit(3);
      /* Never completes: rank 1 is gone. (Point-to-point, not a barrier: a process killed while it
       * sets up a shared-memory collective region leaves its name behind, which is the region
       * code's business, not what this test is about.) */
      int v;
      MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      usleep(300000);  /* the parents are gone by now */
      int one = 1, sum = 0;
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) printf("children done (%d)\n", sum);
    }
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "crash-child") == 0 || strcmp(mode, "parent-exits") == 0) {
    char* args[] = {(char*)mode, argv[2], NULL};
    MPI_Comm ic;
    MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    if (strcmp(mode, "crash-child") == 0) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, 1, 0, ic, MPI_STATUS_IGNORE);
      fprintf(stderr, "FAIL: a message came from a crashed child\n");
      return 1;
    }
    if (rank == 0) printf("parents leave\n");
    MPI_Comm_free(&ic);  /* not disconnect: that would wait for nothing, but the point is leaving */
    MPI_Finalize();
    return 0;
  }
  /* server / client */
  const char* file = argv[2];
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm ic;
  if (strcmp(mode, "server") == 0) {
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      char tmp[4096];
      snprintf(tmp, sizeof tmp, "%s.tmp", file);
      FILE* f = fopen(tmp, "w");
      fprintf(f, "%s\n", port);
      fclose(f);
      rename(tmp, file);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL: a message came from a dead client\n");
    return 1;
  }
  if (rank == 0) {
    FILE* f = NULL;
    for (int i = 0; i < 3000 && !f; ++i) {
      f = fopen(file, "r");
      if (!f) usleep(10000);
    }
    if (!f || !fgets(port, sizeof port, f)) MPI_Abort(MPI_COMM_WORLD, 2);
    fclose(f);
    port[strcspn(port, "\n")] = 0;
  }
  MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
  raise(SIGKILL);
  return 0;
}
