/* Ports and names inside one launch (2 ranks): rank 0 opens a port and publishes it through the
 * launcher, rank 1 looks it up; they accept / connect over MPI_COMM_SELF and exchange data. Then
 * the error cases: unknown names (MPI_ERR_NAME), unpublishing twice (MPI_ERR_SERVICE), closing a
 * port twice, connecting to a closed port, to a bogus name, and to an open port that nobody
 * accepts on (info timeout): MPI_ERR_PORT, each within a bounded time. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dynamic_test.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  char port[MPI_MAX_PORT_NAME] = "";
  char found[MPI_MAX_PORT_NAME] = "";
  MPI_Comm ic;
  if (rank == 0) {
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open");
    CHECK(MPI_Publish_name("baton-np-svc", MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    CHECK(MPI_Lookup_name("baton-np-svc", MPI_INFO_NULL, found) == MPI_SUCCESS, "lookup");
    int rc = MPI_Lookup_name("baton-no-such-svc", MPI_INFO_NULL, port);
    CHECK(error_class(rc) == MPI_ERR_NAME, "lookup of an unknown name gave class %d", error_class(rc));
    CHECK(MPI_Comm_connect(found, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic) == MPI_SUCCESS, "connect");
  } else {
    CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic) == MPI_SUCCESS, "accept");
  }
  int v = rank * 10 + 1, w = -1;
  MPI_Sendrecv(&v, 1, MPI_INT, 0, 5, &w, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
  CHECK(w == (1 - rank) * 10 + 1, "got %d", w);
  MPI_Comm_disconnect(&ic);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK(MPI_Unpublish_name("baton-np-svc", MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
    int rc = MPI_Unpublish_name("baton-np-svc", MPI_INFO_NULL, port);
    CHECK(error_class(rc) == MPI_ERR_SERVICE, "second unpublish gave class %d", error_class(rc));
    rc = MPI_Lookup_name("baton-np-svc", MPI_INFO_NULL, found);
    CHECK(error_class(rc) == MPI_ERR_NAME, "lookup after unpublish gave class %d", error_class(rc));
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close");
    rc = MPI_Close_port(port);
    CHECK(error_class(rc) == MPI_ERR_PORT, "second close gave class %d", error_class(rc));
    /* A closed port, a bogus name, an open port nobody accepts on. */
    double t0 = MPI_Wtime();
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    CHECK(error_class(rc) == MPI_ERR_PORT && ic == MPI_COMM_NULL, "connect to a closed port gave class %d",
          error_class(rc));
    rc = MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    CHECK(error_class(rc) == MPI_ERR_PORT, "connect to a bogus port gave class %d", error_class(rc));
    rc = MPI_Comm_connect("baton-port:1:0123:1:127.0.0.1", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    CHECK(error_class(rc) == MPI_ERR_PORT, "connect to TCP port 1 gave class %d", error_class(rc));
    CHECK(MPI_Wtime() - t0 < 5, "refused connects took %.1f s", MPI_Wtime() - t0);
    char idle[MPI_MAX_PORT_NAME];
    CHECK(MPI_Open_port(MPI_INFO_NULL, idle) == MPI_SUCCESS, "open idle");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "0.3");
    t0 = MPI_Wtime();
    rc = MPI_Comm_connect(idle, info, 0, MPI_COMM_SELF, &ic);
    const double waited = MPI_Wtime() - t0;
    CHECK(error_class(rc) == MPI_ERR_PORT, "connect to an idle port gave class %d", error_class(rc));
    CHECK(waited >= 0.25 && waited < 5, "the idle connect gave up after %.2f s (timeout 0.3)", waited);
    MPI_Info_set(info, "timeout", "soon");
    rc = MPI_Comm_connect(idle, info, 0, MPI_COMM_SELF, &ic);
    CHECK(error_class(rc) == MPI_ERR_INFO_VALUE, "timeout=soon gave class %d", error_class(rc));
    MPI_Info_free(&info);
    CHECK(MPI_Close_port(idle) == MPI_SUCCESS, "close idle");
    printf("names and ports: ok\n");
  }
  MPI_Finalize();
  return 0;
}
