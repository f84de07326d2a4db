/* MPI_Comm_join over a TCP connection between the two ranks of a launch (rank 0 listens, rank 1
 * connects): data through the intercommunicator, then a merge. A descriptor that is not open
 * gives MPI_ERR_ARG. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dynamic_test.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks");
  int fd = -1, port = 0;
  if (rank == 0) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    CHECK(bind(ls, (struct sockaddr*)&a, sizeof a) == 0 && listen(ls, 1) == 0 &&
              getsockname(ls, (struct sockaddr*)&a, &len) == 0,
          "listen");
    port = ntohs(a.sin_port);
    MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    fd = accept(ls, NULL, NULL);
    close(ls);
  } else {
    MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    CHECK(connect(fd, (struct sockaddr*)&a, sizeof a) == 0, "connect");
  }
  CHECK(fd >= 0, "no socket");
  MPI_Comm ic;
  CHECK(MPI_Comm_join(fd, &ic) == MPI_SUCCESS, "join");
  int rsize, lsize;
  MPI_Comm_remote_size(ic, &rsize);
  MPI_Comm_size(ic, &lsize);
  CHECK(rsize == 1 && lsize == 1, "join gave %d + %d", lsize, rsize);
  int v = 100 + rank, w = -1;
  MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE);
  CHECK(w == 101 - rank, "got %d", w);
  MPI_Comm m;
  MPI_Intercomm_merge(ic, rank, &m);
  int mr;
  MPI_Comm_rank(m, &mr);
  CHECK(mr == rank, "merged rank %d", mr);
  MPI_Comm_free(&m);
  MPI_Comm_disconnect(&ic);
  close(fd);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_join(1000, &ic), cls = rc;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG && ic == MPI_COMM_NULL, "join on a closed descriptor gave class %d", cls);
  if (rank == 0) printf("join: ok\n");
  MPI_Finalize();
  return 0;
}
