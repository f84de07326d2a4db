/* MPI_Comm_accept / MPI_Comm_connect between two independently launched jobs.
 *   dynamic_connect server FILE|-    opens a port, writes its name to FILE (or publishes it as
 *                                    "baton-dynamic-test" when FILE is "-"), accepts on its world
 *   dynamic_connect client FILE|-    reads the name from FILE (waits for it) or looks it up,
 *                                    connects from its world
 * Both check point-to-point in both directions, an intercommunicator allreduce and alltoall, a
 * merge (server group first) with allreduce and allgather, then disconnect. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynamic_test.h"

static const char* service = "baton-dynamic-test";

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3, "usage: dynamic_connect server|client FILE|-");
  const int server = strcmp(argv[1], "server") == 0;
  const char* file = argv[2];
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm ic;
  if (server) {
    if (rank == 0) {
      CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Open_port failed");
      if (strcmp(file, "-") == 0) {
        CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Publish_name failed");
      } else {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", file);
        FILE* f = fopen(tmp, "w");
        CHECK(f, "cannot write %s", tmp);
        fprintf(f, "%s\n", port);
        fclose(f);
        CHECK(rename(tmp, file) == 0, "rename to %s", file);
      }
    }
    CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic) == MPI_SUCCESS, "MPI_Comm_accept failed");
  } else {
    if (rank == 0) {
      if (strcmp(file, "-") == 0) {
        /* The server may not have published yet: retry for a while. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_ERR_NAME;
        for (int i = 0; i < 1000 && rc != MPI_SUCCESS; ++i) {
          rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
          if (rc != MPI_SUCCESS) usleep(10000);
        }
        CHECK(rc == MPI_SUCCESS, "MPI_Lookup_name never found the service");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      } else {
        FILE* f = NULL;
        for (int i = 0; i < 3000 && !f; ++i) {
          f = fopen(file, "r");
          if (!f) usleep(10000);
        }
        CHECK(f, "no port file %s", file);
        CHECK(fgets(port, sizeof port, f), "empty port file");
        fclose(f);
        port[strcspn(port, "\n")] = 0;
      }
    }
    CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic) == MPI_SUCCESS, "MPI_Comm_connect failed");
  }
  int rsize;
  MPI_Comm_remote_size(ic, &rsize);
  /* Point-to-point: every process sends (side, rank) to every remote process and receives theirs. */
  int* in = malloc(2 * rsize * sizeof(int));
  MPI_Request* rq = malloc(2 * rsize * sizeof(MPI_Request));
  int out[2] = {server, rank};
  for (int j = 0; j < rsize; ++j) {
    MPI_Irecv(in + 2 * j, 2, MPI_INT, j, 3, ic, &rq[j]);
    MPI_Isend(out, 2, MPI_INT, j, 3, ic, &rq[rsize + j]);
  }
  MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE);
  for (int j = 0; j < rsize; ++j)
    CHECK(in[2 * j] == !server && in[2 * j + 1] == j, "from remote %d got (%d, %d)", j, in[2 * j], in[2 * j + 1]);
  free(in);
  free(rq);
  /* Collectives across. */
  int one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic);
  CHECK(sum == rsize * (rsize + 1) / 2, "intercomm allreduce %d", sum);
  int* sb = malloc(rsize * sizeof(int));
  int* rb = malloc(rsize * sizeof(int));
  for (int j = 0; j < rsize; ++j) sb[j] = rank * 1000 + j;
  MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic);
  for (int j = 0; j < rsize; ++j) CHECK(rb[j] == j * 1000 + rank, "alltoall from %d: %d", j, rb[j]);
  free(sb);
  free(rb);
  MPI_Comm merged;
  MPI_Intercomm_merge(ic, server ? 0 : 1, &merged);
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + rsize, "merged size %d", msize);
  CHECK(mrank == (server ? rank : rsize + rank), "merged rank %d", mrank);
  int total = 0;
  MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == msize * (msize - 1) / 2, "merged allreduce %d", total);
  MPI_Barrier(merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&ic);
  if (server && rank == 0) {
    if (strcmp(file, "-") == 0) CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "MPI_Close_port failed");
  }
  if (rank == 0) printf("%s: connected %d + %d processes: ok\n", server ? "server" : "client", size, rsize);
  MPI_Finalize();
  return 0;
}
