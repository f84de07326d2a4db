/* pingpong_typical.c - one-way latency between ranks 0 and 1 as ucx_perftest reports it.
 *
 * Times every round trip separately (clock_gettime) and prints the median ("typical", the
 * statistic ucx_perftest's first latency column shows) and the mean, each halved:
 *
 *     RESULT pingpong_typical <size> <median us> <mean us>
 *
 * On a loaded machine the mean (and a batch average, as pt2pt_latency reports) grows with every
 * time a rank is descheduled, while the median still shows the cost of the path itself, so this
 * is the figure to hold against ucx_perftest measured in the same run.
 *
 *     pingpong_typical [size] [iterations]      (defaults: 8 bytes, 20000)
 */
#include "bench_common.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int bytes = argc > 1 ? atoi(argv[1]) : 8;
    const int iters = argc > 2 ? atoi(argv[2]) : 20000;
    const int warmup = iters / 10 + 10;
    char *buf = calloc((size_t)bytes + 1, 1);
    double *t = malloc(sizeof(double) * (size_t)iters);
    if (size < 2 || !buf || !t) {
        if (rank == 0) fprintf(stderr, "pingpong_typical: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = -warmup; i < iters; i++) {
        if (rank == 0) {
            buf[0] = (char)i;
            double t0 = bench_now_us();
            MPI_Send(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t1 = bench_now_us();
            if (bytes > 0 && buf[0] != (char)(i + 1)) {
                fprintf(stderr, "pingpong_typical: wrong data at iteration %d\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (i >= 0) t[i] = (t1 - t0) / 2;
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (bytes > 0) buf[0] = (char)(buf[0] + 1);
            MPI_Send(buf, bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        double sum = 0;
        for (int i = 0; i < iters; i++) sum += t[i];
        qsort(t, (size_t)iters, sizeof *t, bench_cmp_double);
        printf("RESULT pingpong_typical %d %.3f %.3f\n", bytes, t[iters / 2], sum / iters);
    }
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
