/* The generated init check (tools/api): a datatype function called after MPI_Finalize is an error
 * (no communicator is left, so MPI_ERRORS_ARE_FATAL ends the job with a message naming the call),
 * where it used to run as if MPI were still initialized. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int n = 0;
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    fprintf(stderr, "calling MPI_Type_size after MPI_Finalize\n");
    fflush(stderr);
    MPI_Type_size(MPI_INT, &n);
    printf("NOT-REACHED: MPI_Type_size returned after MPI_Finalize\n");
    return 0;
}
