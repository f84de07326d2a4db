/* Ring exchange: every rank passes a token around the ring, nonblocking, for a few rounds.
 * Run: mpiexec -n 4 ./ring */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int token = rank, sum = 0;
  for (int step = 0; step < size; ++step) {
    int incoming = -1;
    MPI_Request reqs[2];
    MPI_Irecv(&incoming, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    sum += incoming;
    token = incoming;
  }
  int expect = size * (size - 1) / 2;
  printf("rank %d of %d: ring sum %d (%s)\n", rank, size, sum, sum == expect ? "ok" : "WRONG");
  MPI_Finalize();
  return sum == expect ? 0 : 1;
}
