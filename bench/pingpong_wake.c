/* pingpong_wake.c - how long a message takes to reach a receiver that has gone to sleep.
 *
 * Rank 1 answers each of rank 0's pings after `delay` microseconds of nanosleep, stamping the answer
 * with CLOCK_MONOTONIC just before MPI_Send; rank 0, idle in MPI_Recv meanwhile (long enough to
 * pass its spin and yield windows and sleep), takes now - stamp when MPI_Recv returns. Both ranks
 * must share one clock: one machine, e.g. the two simulated hosts of ../shared/tools/twohost.
 * Prints the median, mean, 90th percentile and maximum, in microseconds:
 *
 *     RESULT pingpong_wake <delay us> <median> <mean> <p90> <max>
 *
 * This is the cost a batch average pays every time a rank has to be woken; on a loaded machine
 * (and across hosts, where the UCX waker thread has to run first) it can be a scheduler slice.
 *
 *     pingpong_wake [delay_us] [iterations]      (defaults: 3000, 200)
 */
#include "bench_common.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int delay = argc > 1 ? atoi(argv[1]) : 3000;
    const int iters = argc > 2 ? atoi(argv[2]) : 200;
    double *t = malloc(sizeof(double) * (size_t)(iters > 0 ? iters : 1));
    if (size < 2 || iters < 1 || !t) {
        if (rank == 0) fprintf(stderr, "pingpong_wake: needs 2 ranks and iterations > 0\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double stamp = 0;
    for (int i = -5; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(&stamp, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&stamp, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            const double d = bench_now_us() - stamp;
            if (d < 0 || d > 60e6) {
                fprintf(stderr, "pingpong_wake: stamp off by %.0f us (ranks on different clocks?)\n", d);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (i >= 0) t[i] = d;
        } else if (rank == 1) {
            MPI_Recv(&stamp, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            nanosleep(&(struct timespec){delay / 1000000, (delay % 1000000) * 1000L}, NULL);
            stamp = bench_now_us();
            MPI_Send(&stamp, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        double sum = 0;
        for (int i = 0; i < iters; i++) sum += t[i];
        qsort(t, (size_t)iters, sizeof *t, bench_cmp_double);
        printf("RESULT pingpong_wake %d %.1f %.1f %.1f %.1f\n", delay, t[iters / 2], sum / iters,
               t[(iters * 9) / 10], t[iters - 1]);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
