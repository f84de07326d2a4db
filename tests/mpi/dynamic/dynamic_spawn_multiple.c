/* MPI_Comm_spawn_multiple with two different executables and arguments:
 *   command 0: this program ("self A"), 2 processes, info wdir=/tmp
 *   command 1: dynamic_worker (argv[1] here), 1 process, arguments "B" and "x y" (a blank inside)
 * Every child reports appnum, arguments and working directory to the parents' rank 0, which
 * checks them; the children of command 0 also find each other in their shared MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynamic_test.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {  /* command 0's children */
    int* appnum = NULL;
    int found = 0, wsize;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &found);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    char report[512], cwd[256] = "";
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
    snprintf(report, sizeof report, "self appnum=%d argc=%d arg1=%s wsize=%d cwd=%s", found ? *appnum : -1, argc,
             argc > 1 ? argv[1] : "", wsize, cwd);
    MPI_Send(report, (int)strlen(report) + 1, MPI_CHAR, 0, 9, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  CHECK(argc > 1, "usage: dynamic_spawn_multiple WORKER");
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* cmds[2] = {argv[0], argv[1]};
  char* argv0[] = {"A", NULL};
  char* argv1[] = {"B", "x y", NULL};
  char** argvs[2] = {argv0, argv1};
  int maxprocs[2] = {2, 1};
  MPI_Info infos[2];
  MPI_Info_create(&infos[0]);
  MPI_Info_set(infos[0], "wdir", "/tmp");
  infos[1] = MPI_INFO_NULL;
  int codes[3] = {-1, -1, -1};
  MPI_Comm ic;
  CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &ic, codes) == MPI_SUCCESS,
        "spawn_multiple failed");
  MPI_Info_free(&infos[0]);
  for (int i = 0; i < 3; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, codes[i]);
  int rsize;
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(rsize == 3, "remote size %d", rsize);
  if (rank == 0) {
    char cwd[256] = "";
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
    for (int j = 0; j < 3; ++j) {
      char report[512] = "";
      MPI_Recv(report, sizeof report, MPI_CHAR, j, 9, ic, MPI_STATUS_IGNORE);
      char want[512];
      if (j < 2)
        snprintf(want, sizeof want, "self appnum=0 argc=2 arg1=A wsize=3 cwd=/tmp");
      else
        snprintf(want, sizeof want, "worker appnum=1 argc=3 arg1=B arg2=x y cwd=%s", cwd);
      CHECK(strcmp(report, want) == 0, "child %d reported '%s', expected '%s'", j, report, want);
    }
    printf("spawn_multiple: ok\n");
  }
  MPI_Comm_disconnect(&ic);
  MPI_Finalize();
  return 0;
}
