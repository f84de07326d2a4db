/* MPI_Abort from one rank ends the whole job with that error code. The last rank calls
 * MPI_Abort(MPI_COMM_WORLD, 7); the others wait in a receive from it that is never sent.
 * Run through the errors.cmake wrapper, which requires exit status 7, the "calling" line in the
 * output, no "NOT-REACHED" line, and no hang. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
        printf("env_abort: rank %d calling MPI_Abort(MPI_COMM_WORLD, 7)\n", rank);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 7);
        printf("env_abort: NOT-REACHED: MPI_Abort returned\n");
        fflush(stdout);
        for (int r = 0; r < size - 1; r++) MPI_Send(&x, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("env_abort: NOT-REACHED: rank %d received from the aborting rank\n", rank);
    }
    MPI_Finalize();
    return 0;
}
