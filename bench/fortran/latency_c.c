/* 8-byte ping-pong and 8-byte allreduce in C: the same loops as latency_f08.f90.
 *   mpicc -O2 latency_c.c -o latency_c && mpiexec -n 2 ./latency_c [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

int main(int argc, char **argv) {
  int rank, nprocs, iters = argc > 1 ? atoi(argv[1]) : 100000;
  double x, y, best_pp = 1e30, best_ar = 1e30;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  x = rank;
  for (int batch = 0; batch < 5; batch++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      if (rank == 0) {
        MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(&y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
      }
    }
    double t = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    if (t < best_pp) best_pp = t;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t = (MPI_Wtime() - t0) / iters * 1e6;
    if (t < best_ar) best_ar = t;
  }
  if (rank == 0)
    printf("C:   pingpong 8 B %8.3f us (one way), allreduce 8 B %8.3f us (best of 5 batches)\n", best_pp, best_ar);
  MPI_Finalize();
  return 0;
}
