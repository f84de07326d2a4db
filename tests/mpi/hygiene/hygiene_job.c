/* A job that ends abnormally at a chosen point, for hygiene_end.sh (which checks afterwards that
 * /dev/shm holds nothing of the job).
 *
 *   hygiene_job STAGE END
 *
 * STAGE: where the last rank ("the late rank") stops while the others go on:
 *   init  before MPI_Init (the others wait in MPI_Init with the host segment made)
 *   coll  before the first collective on a new communicator (the others wait inside it)
 *   win   before MPI_Win_allocate_shared (the others wait inside it)
 *   pers  before a persistent collective's init (the others wait inside it)
 *   start nobody: every rank goes through MPI_Init and one collective of each kind, then sleeps
 *         (the script ends the job at some moment of its start-up)
 * END: what the late rank does there:
 *   wait   sleeps (the script ends the job: kill -9 of a rank, a signal to mpiexec, --timeout)
 *   abort  MPI_Abort (coll, win, pers: it has called MPI_Init)
 *   exit   exits with code 3 without finalizing
 * Every rank first prints "pid R PID BATON_JOBID" and the late rank "late R" once it has stopped. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void stop_here(int rank, const char* end)
{
    printf("late %d\n", rank);
    fflush(stdout);
    if (strcmp(end, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 9);
    if (strcmp(end, "exit") == 0) _exit(3);
    for (;;) pause();
}

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hygiene_job init|coll|win|pers wait|abort|exit\n");
        return 2;
    }
    const char* stage = argv[1];
    const char* end = argv[2];
    const char* r_env = getenv("PMI_RANK");
    const char* n_env = getenv("PMI_SIZE");
    int rank = r_env ? atoi(r_env) : 0, size = n_env ? atoi(n_env) : 1;
    const int late = rank == size - 1;
    const char* jobid = getenv("BATON_JOBID");
    printf("pid %d %ld %s\n", rank, (long)getpid(), jobid ? jobid : "-");
    fflush(stdout);
    if (late && strcmp(stage, "init") == 0) stop_here(rank, end);
    MPI_Init(&argc, &argv);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* no collective on dup yet: its first one sets up its region */
    if (late && strcmp(stage, "coll") == 0) stop_here(rank, end);
    int one = 1, sum = 0;
    if (strcmp(stage, "coll") == 0) MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    if (late && strcmp(stage, "win") == 0) stop_here(rank, end);
    if (strcmp(stage, "win") == 0) {
        int* base;
        MPI_Win win;
        MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, dup, &base, &win);
    }
    if (late && strcmp(stage, "pers") == 0) stop_here(rank, end);
    if (strcmp(stage, "pers") == 0) {
        MPI_Request req;
        MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &req);
    }
    if (strcmp(stage, "start") == 0) {
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
        int* base;
        MPI_Win win;
        MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, dup, &base, &win);
        for (;;) pause();
    }
    /* never reached by the late rank, so the job never gets here as a whole */
    MPI_Finalize();
    return 0;
}
