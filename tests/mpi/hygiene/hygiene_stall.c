/* A deliberate deadlock for the stall watchdog (run with BATON_STALL_WARN=1 and --timeout):
 *   recv: ranks 0 and 1 each wait in MPI_Recv for the other (tags 7 and 8), the others stay
 *         outside MPI (pause);
 *   coll: every rank but the last waits in MPI_Allreduce on a communicator whose shared-memory
 *         region is set up; the last rank stays outside MPI.
 * mpiexec is expected to print what each rank waits on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    const int coll = argc > 1 && strcmp(argv[1], "coll") == 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* sets up the region */
    if (coll) {
        if (rank == size - 1)
            for (;;) pause();
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (rank < 2) {
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7 + rank, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (;;) pause();
    }
    MPI_Finalize();
    return 0;
}
