/* pt2pt_mt_rate.c - 8-byte message rate from several threads per rank (MPI_THREAD_MULTIPLE).
 *
 * Rank 0 and rank 1 each run T threads; thread t of rank 0 streams to thread t of rank 1 on a
 * communicator of its own (MPI_Comm_dup of MPI_COMM_WORLD per thread, made before the threads
 * start), as pt2pt_bandwidth does on one: a window of 64 MPI_Isend of 8 bytes and MPI_Waitall at
 * the sender, 64 MPI_Irecv and MPI_Waitall at the receiver, then a 4-byte ack back. The rate is
 * all threads' messages over the batch's wall time (threads start together, the batch ends when
 * the last one is done), in millions of messages per second:
 *
 *     RESULT pt2pt_mt_rate/threads<T> 8 <rate> Mmsg/s      for T = 1 and 2
 *     RESULT pt2pt_mt_rate/threads2.busy 8 <rate> Mmsg/s
 *
 * T = 1 is the same loop from one thread under MPI_THREAD_MULTIPLE: the cost of thread safety
 * itself; T = 2 what two communicators' traffic gets together. On 2 cores with 2 ranks the four
 * threads of T = 2 share two cores, as they would on a node with more ranks than cores to spare.
 * threads2.busy: T = 2 while a third thread of each rank computes (a loop outside MPI) for the
 * whole batch, so the communicating threads compete with work for the cores. Ranks past 1 idle.
 * The first window of every thread is checked (sequence numbers in the data).
 */
#include "bench_common.h"

#include <pthread.h>

static const char* const bench_name = "pt2pt_mt_rate";

enum { window = 64, max_threads = 2, tag_data = 1, tag_ack = 2 };

typedef struct thread_ctx {
    int rank;
    int index;
    MPI_Comm comm;
    long windows;  /* windows to run in the next batch */
    double seconds;
    pthread_barrier_t* start;
} thread_ctx;

static void window_transfer(int rank, MPI_Comm comm, long seq, int check)
{
    MPI_Request reqs[window];
    long data[window];
    int ack = 0;
    if (rank == 0) {
        for (int w = 0; w < window; ++w) {
            data[w] = seq * window + w;
            bench_check(MPI_Isend(&data[w], 8, MPI_BYTE, 1, tag_data, comm, &reqs[w]), "MPI_Isend");
        }
        bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        bench_check(MPI_Recv(&ack, 1, MPI_INT, 1, tag_ack, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    } else {
        for (int w = 0; w < window; ++w) {
            data[w] = -1;
            bench_check(MPI_Irecv(&data[w], 8, MPI_BYTE, 0, tag_data, comm, &reqs[w]), "MPI_Irecv");
        }
        bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        bench_check(MPI_Send(&ack, 1, MPI_INT, 0, tag_ack, comm), "MPI_Send");
        if (check) {
            for (int w = 0; w < window; ++w) {
                if (data[w] != seq * window + w) {
                    bench_fail(bench_name, "a message arrived out of order or damaged");
                }
            }
        }
    }
}

static volatile int busy_on;

static void* busy_main(void* p)
{
    (void)p;
    volatile double x = 1.0;
    while (busy_on) {
        for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    }
    return NULL;
}

static void* thread_main(void* p)
{
    thread_ctx* c = p;
    pthread_barrier_wait(c->start);
    const double t0 = MPI_Wtime();
    for (long i = 0; i < c->windows; ++i) {
        window_transfer(c->rank, c->comm, i, i == 0);
    }
    c->seconds = MPI_Wtime() - t0;
    return NULL;
}

/* One batch on T threads of this rank (ranks 0 and 1): wall seconds from the common start to the
 * last thread's end, the slower rank's. */
static double batch(int rank, int nthreads, int busy, thread_ctx* ctx, long windows)
{
    pthread_t busy_thread;
    if (busy) {
        busy_on = 1;
        if (pthread_create(&busy_thread, NULL, busy_main, NULL) != 0) {
            bench_fail(bench_name, "pthread_create failed");
        }
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    pthread_t th[max_threads];
    for (int t = 0; t < nthreads; ++t) {
        ctx[t].windows = rank <= 1 ? windows : 0;
        ctx[t].start = &start;
        if (pthread_create(&th[t], NULL, thread_main, &ctx[t]) != 0) {
            bench_fail(bench_name, "pthread_create failed");
        }
    }
    bench_sync();
    const double t0 = MPI_Wtime();
    pthread_barrier_wait(&start);
    for (int t = 0; t < nthreads; ++t) {
        pthread_join(th[t], NULL);
    }
    double wall = MPI_Wtime() - t0;
    pthread_barrier_destroy(&start);
    if (busy) {
        busy_on = 0;
        pthread_join(busy_thread, NULL);
    }
    double slowest = 0.0;
    bench_check(MPI_Allreduce(&wall, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return slowest;
}

int main(int argc, char** argv)
{
    int provided = 0;
    bench_check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_MULTIPLE) {
        bench_fail(bench_name, "MPI_THREAD_MULTIPLE not provided");
    }
    int rank = 0;
    int nranks = 0;
    bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
    if (nranks < 2) {
        bench_fail(bench_name, "needs at least 2 ranks");
    }
    bench_opts opts;
    bench_parse_args(argc, argv, &opts);

    thread_ctx ctx[max_threads];
    for (int t = 0; t < max_threads; ++t) {
        ctx[t].rank = rank;
        ctx[t].index = t;
        bench_check(MPI_Comm_dup(MPI_COMM_WORLD, &ctx[t].comm), "MPI_Comm_dup");
    }
    const long max_windows = opts.quick ? 2000 : 20000;
    double samples[BENCH_MAX_SAMPLES];
    /* threads1, threads2, threads2.busy */
    for (int run = 0; run < 3; ++run) {
        const int nthreads = run == 0 ? 1 : 2;
        const int busy = run == 2;
        /* Warm-up batch (checks the data), then the batch length from its pace. */
        const long warm = opts.quick ? 50 : 200;
        const double pace = batch(rank, nthreads, busy, ctx, warm) / (double)warm;
        const long windows = bench_agree_iters(max_windows, 2, pace, opts.batch_seconds);
        for (int s = 0; s < opts.samples; ++s) {
            const double wall = batch(rank, nthreads, busy, ctx, windows);
            samples[s] = (double)nthreads * window * (double)windows / wall / 1e6;
        }
        if (rank == 0) {
            char tag[64];
            snprintf(tag, sizeof tag, "%s/threads%d%s", bench_name, nthreads, busy ? ".busy" : "");
            bench_result(tag, 8, bench_median(samples, opts.samples), "Mmsg/s");
        }
    }
    for (int t = 0; t < max_threads; ++t) {
        bench_check(MPI_Comm_free(&ctx[t].comm), "MPI_Comm_free");
    }
    bench_check(MPI_Finalize(), "MPI_Finalize");
    return 0;
}
