/* pt2pt_latency.c - ping-pong latency between ranks 0 and 1.
 *
 * Rank 0 sends `size` bytes to rank 1 with MPI_Send, rank 1 answers with the
 * same size; one-way latency is half the round trip.  For every size (0 B,
 * then 1 B .. max size in powers of two): one validated exchange, a warm-up,
 * then `samples` timed batches of `iters` round trips; rank 0 prints the median
 * batch result:
 *
 *     RESULT pt2pt_latency <size> <microseconds> us
 *
 * Iterations scale with size (about a fixed byte budget per batch, clamped,
 * and cut to about opts.batch_seconds per batch at the warm-up's pace).
 * Ranks above 1 only join the barriers.
 */
#include "bench_common.h"

static const char *const bench_name = "pt2pt_latency";

enum { tag_ping = 1, tag_pong = 2 };

/* One round trip; returns after rank 0 got the answer. */
static void round_trip(int rank, char *buf, size_t size)
{
    const int n = (int)size;
    if (rank == 0) {
        bench_check(MPI_Send(buf, n, MPI_CHAR, 1, tag_ping, MPI_COMM_WORLD), "MPI_Send");
        bench_check(MPI_Recv(buf, n, MPI_CHAR, 1, tag_pong, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv");
    } else if (rank == 1) {
        bench_check(MPI_Recv(buf, n, MPI_CHAR, 0, tag_ping, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv");
        bench_check(MPI_Send(buf, n, MPI_CHAR, 0, tag_pong, MPI_COMM_WORLD), "MPI_Send");
    }
}

typedef struct step_ctx {
    int rank;
    char *buf;
    size_t size;
} step_ctx;

static void step(void *p)
{
    const step_ctx *c = p;
    round_trip(c->rank, c->buf, c->size);
}

/* Rank 0 sends a pattern, rank 1 checks it and sends it back, rank 0 checks. */
static void validate(int rank, char *buf, size_t size)
{
    if (rank == 0) {
        bench_fill(buf, size, size, 0);
    } else {
        memset(buf, 0, size);
    }
    round_trip(rank, buf, size);
    if ((rank == 0 || rank == 1) && !bench_verify(buf, size, size, 0)) {
        char why[96];
        snprintf(why, sizeof why, "rank %d received wrong data at size %zu", rank, size);
        bench_fail(bench_name, why);
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
    /* Full run: about 20-30 ms per timed batch at every size on a quiet desktop CPU. */
    const size_t budget = opts.quick ? ((size_t)16 << 20) : ((size_t)256 << 20);
    const long max_iters = opts.quick ? 5000 : 50000;
    const long min_iters = 3;

    size_t sizes[64];
    const int nsizes = bench_sizes(opts.max_size, 1, sizes, 64);
    char *buf = bench_alloc(bench_name, opts.max_size);
    double samples[BENCH_MAX_SAMPLES];

    for (int k = 0; k < nsizes; ++k) {
        const size_t size = sizes[k];
        const long budget_iters = bench_iters(2 * size, budget, min_iters, max_iters);
        step_ctx ctx = {.rank = rank, .buf = buf, .size = size};

        validate(rank, buf, size);
        const double pace = bench_warmup(step, &ctx, bench_iters(1, (size_t)budget_iters / 10, 2, 200),
                                         2 * opts.batch_seconds);
        const long iters = bench_agree_iters(budget_iters, min_iters, pace, opts.batch_seconds);
        for (int s = 0; s < opts.samples; ++s) {
            bench_sync();
            const double t0 = MPI_Wtime();
            for (long i = 0; i < iters; ++i) {
                round_trip(rank, buf, size);
            }
            const double t1 = MPI_Wtime();
            samples[s] = (t1 - t0) * 1e6 / (2.0 * (double)iters);
        }
        if (rank == 0) {
            bench_result(bench_name, size, bench_median(samples, opts.samples), "us");
        }
    }

    free(buf);
    bench_check(MPI_Finalize(), "MPI_Finalize");
    return 0;
}
