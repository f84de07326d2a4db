/* pt2pt_bandwidth.c - streaming (unidirectional) bandwidth from rank 0 to 1.
 *
 * One iteration: rank 0 posts a window of 64 MPI_Isend of `size` bytes and
 * waits for them; rank 1 posts 64 MPI_Irecv (each into its own slot of a
 * window-sized buffer, since overlapping pending receives are erroneous),
 * waits, then sends a 4-byte ack that rank 0 receives before the next window.
 * Bandwidth = 64 * size * iters / elapsed, decimal units (1 MB = 1e6 B).
 * For every size (1 B .. max size in powers of two): one validated window, a
 * warm-up, then `samples` timed batches; rank 0 prints the median batch as
 *
 *     RESULT pt2pt_bandwidth <size> <MB/s> MB/s
 *     RESULT pt2pt_bandwidth <size> <GB/s> GB/s
 *
 * Windows per batch: about a fixed byte budget, clamped, and cut to about
 * opts.batch_seconds per batch at the warm-up's pace.  All sends share one
 * source buffer (allowed since MPI-3.0).
 */
#include "bench_common.h"

static const char *const bench_name = "pt2pt_bandwidth";

enum { window = 64, tag_data = 1, tag_ack = 2 };

static void window_transfer(int rank, char *sbuf, char *rbuf, size_t size)
{
    MPI_Request reqs[window];
    const int n = (int)size;
    int ack = 0;
    if (rank == 0) {
        for (int w = 0; w < window; ++w) {
            bench_check(MPI_Isend(sbuf, n, MPI_CHAR, 1, tag_data, MPI_COMM_WORLD, &reqs[w]),
                        "MPI_Isend");
        }
        bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        bench_check(MPI_Recv(&ack, 1, MPI_INT, 1, tag_ack, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv");
    } else if (rank == 1) {
        for (int w = 0; w < window; ++w) {
            bench_check(MPI_Irecv(rbuf + (size_t)w * size, n, MPI_CHAR, 0, tag_data,
                                  MPI_COMM_WORLD, &reqs[w]),
                        "MPI_Irecv");
        }
        bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        bench_check(MPI_Send(&ack, 1, MPI_INT, 0, tag_ack, MPI_COMM_WORLD), "MPI_Send");
    }
}

typedef struct step_ctx {
    int rank;
    char *sbuf;
    char *rbuf;
    size_t size;
} step_ctx;

static void step(void *p)
{
    const step_ctx *c = p;
    window_transfer(c->rank, c->sbuf, c->rbuf, c->size);
}

static void validate(int rank, char *sbuf, char *rbuf, size_t size)
{
    if (rank == 0) {
        bench_fill(sbuf, size, size, 1);
    } else if (rank == 1) {
        memset(rbuf, 0, (size_t)window * size);
    }
    window_transfer(rank, sbuf, rbuf, size);
    if (rank == 1) {
        for (int w = 0; w < window; ++w) {
            if (!bench_verify(rbuf + (size_t)w * size, size, size, 1)) {
                char why[96];
                snprintf(why, sizeof why, "slot %d received wrong data at size %zu", w, size);
                bench_fail(bench_name, why);
            }
        }
    }
}

int main(int argc, char **argv)
{
    bench_check(MPI_Init(&argc, &argv), "MPI_Init");
    int rank = 0;
    int nranks = 0;
    bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
    if (nranks < 2) {
        bench_fail(bench_name, "needs at least 2 ranks");
    }

    bench_opts opts;
    bench_parse_args(argc, argv, &opts);
    /* Full run: up to about 0.5 GB moved per timed batch. */
    const size_t budget = opts.quick ? ((size_t)64 << 20) : ((size_t)512 << 20);
    const long max_iters = opts.quick ? 200 : 1000;
    const long min_iters = opts.quick ? 1 : 2;

    size_t sizes[64];
    const int nsizes = bench_sizes(opts.max_size, 0, sizes, 64);
    char *sbuf = bench_alloc(bench_name, rank == 0 ? opts.max_size : 0);
    char *rbuf = bench_alloc(bench_name, rank == 1 ? (size_t)window * opts.max_size : 0);
    double samples[BENCH_MAX_SAMPLES];

    for (int k = 0; k < nsizes; ++k) {
        const size_t size = sizes[k];
        const long budget_iters =
            bench_iters((size_t)window * size, budget, min_iters, max_iters);
        step_ctx ctx = {.rank = rank, .sbuf = sbuf, .rbuf = rbuf, .size = size};

        validate(rank, sbuf, rbuf, size);
        const double pace = bench_warmup(step, &ctx, bench_iters(1, (size_t)budget_iters / 10, 1, 20),
                                         2 * opts.batch_seconds);
        const long iters =
            bench_agree_iters(budget_iters, min_iters, pace, opts.batch_seconds);
        for (int s = 0; s < opts.samples; ++s) {
            bench_sync();
            const double t0 = MPI_Wtime();
            for (long i = 0; i < iters; ++i) {
                window_transfer(rank, sbuf, rbuf, size);
            }
            const double t1 = MPI_Wtime();
            samples[s] = (double)window * (double)size * (double)iters / (t1 - t0);
        }
        if (rank == 0) {
            const double bytes_per_s = bench_median(samples, opts.samples);
            bench_result(bench_name, size, bytes_per_s / 1e6, "MB/s");
            bench_result(bench_name, size, bytes_per_s / 1e9, "GB/s");
        }
    }

    free(sbuf);
    free(rbuf);
    bench_check(MPI_Finalize(), "MPI_Finalize");
    return 0;
}
