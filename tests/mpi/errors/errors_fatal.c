/* MPI_ERRORS_ARE_FATAL (the default on MPI_COMM_WORLD) ends the whole job with a non-zero exit
 * status. The last rank makes an erroneous call (send to an invalid rank); the other ranks wait
 * in a receive that only a surviving last rank would satisfy, so the launcher must take them down
 * too. Run through the errors.cmake wrapper, which requires a non-zero exit status, the
 * "calling" line below in the output, no "NOT-REACHED" line, and no hang. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int culprit = size - 1;

    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    if (eh != MPI_ERRORS_ARE_FATAL) {
        printf("errors_fatal: NOT-REACHED: the default handler is not MPI_ERRORS_ARE_FATAL\n");
        fflush(stdout);
    }

    if (rank == culprit) {
        printf("errors_fatal: rank %d calling MPI_Send with invalid rank %d\n", rank, size);
        fflush(stdout);
        int rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
        printf("errors_fatal: NOT-REACHED: MPI_Send returned %d under MPI_ERRORS_ARE_FATAL\n", rc);
        fflush(stdout);
        for (int r = 0; r < size; r++)
            if (r != rank) MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, culprit, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
