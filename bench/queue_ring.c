/* queue_ring.c - the ring exchange of Example 13.1 (draft chapter on queued communication) and the
 * latency of matched persistent sends.
 *
 * Series (2 or more ranks; every rank exchanges `size` bytes with both ring neighbours):
 *
 *     ring.queue      per iteration: MPI_Enqueue_startall(recvs), MPI_Enqueue_startall(sends),
 *                     MPI_Enqueue_waitall(4) on a default queue, one MPI_Queue_fence per batch,
 *                     on requests matched once with MPI_Matchall (libraries with MPI_Queue only)
 *     ring.startall   per iteration: MPI_Startall(4) + MPI_Waitall(4) on persistent requests
 *                     (with MPI_Queue: the same matched requests)
 *     ring.isend      per iteration: 2 x MPI_Irecv, 2 x MPI_Isend, MPI_Waitall(4)
 *     pingpong.matched    half round trip, MPI_Start + MPI_Wait on matched persistent requests
 *     pingpong.persistent half round trip, MPI_Start + MPI_Wait on (unmatched) persistent requests
 *     pingpong.isend      half round trip, MPI_Irecv + MPI_Isend + MPI_Wait
 *     ring.queue.paired / ring.startall.paired
 *                     (libraries with MPI_Queue; 8 B, 1 KiB, 8 KiB) ring.queue and ring.startall with
 *                     their batches alternating on one set of matched requests, so that both see
 *                     the same machine phase: their ratio is the queue's cost over Startall, which
 *                     separate series measured minutes apart cannot show within a few percent
 *
 * Ring sizes 8 B, 1 KiB, 8 KiB (Example 13.1: 1024 doubles), 64 KiB, 1 MiB; ping-pong 8 B and
 * 1 KiB (sizes above --max-size are skipped). For every series and size: one validated
 * iteration, a warm-up, then `samples` timed batches; rank 0 prints the median time per
 * iteration:
 *
 *     RESULT queue_ring/<series> <size> <microseconds> us
 */
#include "bench_common.h"

static const char *const bench_name = "queue_ring";

#ifdef MPI_QUEUE_NULL
#define HAVE_QUEUE 1
#else
#define HAVE_QUEUE 0
#endif

enum mode { m_queue, m_startall, m_isend, m_pp_matched, m_pp_persistent, m_pp_isend, m_count };
static const char *const mode_names[m_count] = {"ring.queue",       "ring.startall",       "ring.isend",
                                                "pingpong.matched", "pingpong.persistent", "pingpong.isend"};

typedef struct ctx {
    enum mode mode;
    int rank, left, right;
    size_t size;
    char *sl, *sr, *rl, *rr;
    MPI_Request reqs[4];
#if HAVE_QUEUE
    MPI_Queue queue;
#endif
} ctx;

/* Ring requests: receives from left (tag 1) and right (tag 2), sends to left (tag 2) and right
 * (tag 1); distinct tags keep the pairs apart when left == right (2 ranks). */
static void ring_init(ctx *c)
{
    const int n = (int)c->size;
    bench_check(MPI_Recv_init(c->rl, n, MPI_CHAR, c->left, 1, MPI_COMM_WORLD, &c->reqs[0]), "MPI_Recv_init");
    bench_check(MPI_Recv_init(c->rr, n, MPI_CHAR, c->right, 2, MPI_COMM_WORLD, &c->reqs[1]), "MPI_Recv_init");
    bench_check(MPI_Send_init(c->sl, n, MPI_CHAR, c->left, 2, MPI_COMM_WORLD, &c->reqs[2]), "MPI_Send_init");
    bench_check(MPI_Send_init(c->sr, n, MPI_CHAR, c->right, 1, MPI_COMM_WORLD, &c->reqs[3]), "MPI_Send_init");
#if HAVE_QUEUE
    bench_check(MPI_Matchall(4, c->reqs), "MPI_Matchall");
#endif
}

/* Ping-pong requests between ranks 0 and 1 (others idle). */
static void pp_init(ctx *c, int matched)
{
    const int n = (int)c->size;
    const int peer = 1 - c->rank;
    if (c->rank > 1) return;
    bench_check(MPI_Recv_init(c->rl, n, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &c->reqs[0]), "MPI_Recv_init");
    bench_check(MPI_Send_init(c->sl, n, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &c->reqs[1]), "MPI_Send_init");
#if HAVE_QUEUE
    if (matched) bench_check(MPI_Matchall(2, c->reqs), "MPI_Matchall");
#else
    (void)matched;
#endif
}

static void iteration(ctx *c)
{
    const int n = (int)c->size;
    switch (c->mode) {
    case m_queue:
#if HAVE_QUEUE
        bench_check(MPI_Enqueue_startall(&c->queue, 2, &c->reqs[0]), "MPI_Enqueue_startall");
        bench_check(MPI_Enqueue_startall(&c->queue, 2, &c->reqs[2]), "MPI_Enqueue_startall");
        bench_check(MPI_Enqueue_waitall(&c->queue, 4, c->reqs, MPI_STATUSES_IGNORE), "MPI_Enqueue_waitall");
#endif
        break;
    case m_startall:
        bench_check(MPI_Startall(4, c->reqs), "MPI_Startall");
        bench_check(MPI_Waitall(4, c->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        break;
    case m_isend:
        bench_check(MPI_Irecv(c->rl, n, MPI_CHAR, c->left, 1, MPI_COMM_WORLD, &c->reqs[0]), "MPI_Irecv");
        bench_check(MPI_Irecv(c->rr, n, MPI_CHAR, c->right, 2, MPI_COMM_WORLD, &c->reqs[1]), "MPI_Irecv");
        bench_check(MPI_Isend(c->sl, n, MPI_CHAR, c->left, 2, MPI_COMM_WORLD, &c->reqs[2]), "MPI_Isend");
        bench_check(MPI_Isend(c->sr, n, MPI_CHAR, c->right, 1, MPI_COMM_WORLD, &c->reqs[3]), "MPI_Isend");
        bench_check(MPI_Waitall(4, c->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        break;
    case m_pp_matched:
    case m_pp_persistent:
        if (c->rank == 0) {
            bench_check(MPI_Start(&c->reqs[0]), "MPI_Start");
            bench_check(MPI_Start(&c->reqs[1]), "MPI_Start");
            bench_check(MPI_Wait(&c->reqs[1], MPI_STATUS_IGNORE), "MPI_Wait");
            bench_check(MPI_Wait(&c->reqs[0], MPI_STATUS_IGNORE), "MPI_Wait");
        } else if (c->rank == 1) {
            bench_check(MPI_Start(&c->reqs[0]), "MPI_Start");
            bench_check(MPI_Wait(&c->reqs[0], MPI_STATUS_IGNORE), "MPI_Wait");
            bench_check(MPI_Start(&c->reqs[1]), "MPI_Start");
            bench_check(MPI_Wait(&c->reqs[1], MPI_STATUS_IGNORE), "MPI_Wait");
        }
        break;
    case m_pp_isend:
        if (c->rank == 0) {
            bench_check(MPI_Irecv(c->rl, n, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &c->reqs[0]), "MPI_Irecv");
            bench_check(MPI_Isend(c->sl, n, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &c->reqs[1]), "MPI_Isend");
            bench_check(MPI_Wait(&c->reqs[1], MPI_STATUS_IGNORE), "MPI_Wait");
            bench_check(MPI_Wait(&c->reqs[0], MPI_STATUS_IGNORE), "MPI_Wait");
        } else if (c->rank == 1) {
            bench_check(MPI_Irecv(c->rl, n, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &c->reqs[0]), "MPI_Irecv");
            bench_check(MPI_Wait(&c->reqs[0], MPI_STATUS_IGNORE), "MPI_Wait");
            bench_check(MPI_Isend(c->sl, n, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &c->reqs[1]), "MPI_Isend");
            bench_check(MPI_Wait(&c->reqs[1], MPI_STATUS_IGNORE), "MPI_Wait");
        }
        break;
    default:
        break;
    }
}

/* Completes what a batch enqueued (queue mode); nothing otherwise. */
static void batch_end(ctx *c)
{
#if HAVE_QUEUE
    if (c->mode == m_queue) bench_check(MPI_Queue_fence(&c->queue), "MPI_Queue_fence");
#else
    (void)c;
#endif
}

static void step(void *p)
{
    ctx *c = p;
    iteration(c);
    batch_end(c);
}

/* One timed batch of `iters` iterations (and its batch end), all ranks starting together: µs per
 * iteration. */
static double timed_batch(ctx *c, long iters)
{
    bench_sync();
    const double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) iteration(c);
    batch_end(c);
    return (MPI_Wtime() - t0) * 1e6 / (double)iters;
}

static int is_pingpong(enum mode m) { return m >= m_pp_matched; }

static void validate(ctx *c)
{
    const int pp = is_pingpong(c->mode);
    bench_fill(c->sl, c->size, c->size, 2 * c->rank);
    bench_fill(c->sr, c->size, c->size, 2 * c->rank + 1);
    memset(c->rl, 0, c->size);
    memset(c->rr, 0, c->size);
    step(c);
    int ok = 1;
    if (pp) {
        if (c->rank <= 1) ok = bench_verify(c->rl, c->size, c->size, 2 * (1 - c->rank));
    } else {
        ok = bench_verify(c->rl, c->size, c->size, 2 * c->left + 1) && bench_verify(c->rr, c->size, c->size, 2 * c->right);
    }
    if (!ok) {
        char why[128];
        snprintf(why, sizeof why, "rank %d received wrong data (%s, %zu B)", c->rank, mode_names[c->mode], c->size);
        bench_fail(bench_name, why);
    }
}

int main(int argc, char **argv)
{
    bench_check(MPI_Init(&argc, &argv), "MPI_Init");
    int rank = 0, nranks = 0;
    bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
    if (nranks < 2) bench_fail(bench_name, "needs at least 2 ranks");
    bench_opts opts;
    bench_parse_args(argc, argv, &opts);
    const size_t budget = opts.quick ? ((size_t)16 << 20) : ((size_t)256 << 20);
    const long max_iters = opts.quick ? 5000 : 50000;
    const long min_iters = 3;
    const size_t ring_sizes[] = {8, 1024, 8192, 65536, 1048576};
    const size_t pp_sizes[] = {8, 1024};
    double samples[BENCH_MAX_SAMPLES];
    size_t maxbuf = 1048576 < opts.max_size ? 1048576 : opts.max_size;
    ctx c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.left = (rank - 1 + nranks) % nranks;
    c.right = (rank + 1) % nranks;
    c.sl = bench_alloc(bench_name, maxbuf);
    c.sr = bench_alloc(bench_name, maxbuf);
    c.rl = bench_alloc(bench_name, maxbuf);
    c.rr = bench_alloc(bench_name, maxbuf);
#if HAVE_QUEUE
    bench_check(MPI_Queue_init(&c.queue, MPI_QUEUE_TYPE_DEFAULT, NULL), "MPI_Queue_init");
#endif
    for (int m = 0; m < m_count; ++m) {
        c.mode = (enum mode)m;
        if ((m == m_queue || m == m_pp_matched) && !HAVE_QUEUE) continue;
        const int pp = is_pingpong(c.mode);
        const size_t *sizes = pp ? pp_sizes : ring_sizes;
        const int nsizes = pp ? 2 : 5;
        for (int k = 0; k < nsizes; ++k) {
            const size_t size = sizes[k];
            if (size > opts.max_size) continue;
            c.size = size;
            const int persistent = m == m_queue || m == m_startall || m == m_pp_matched || m == m_pp_persistent;
            if (persistent) {
                if (pp) {
                    pp_init(&c, m == m_pp_matched);
                } else {
                    ring_init(&c);
                }
            }
            const long budget_iters = bench_iters((pp ? 2 : 4) * size, budget, min_iters, max_iters);
            validate(&c);
            const double pace =
                bench_warmup(step, &c, bench_iters(1, (size_t)budget_iters / 10, 2, 200), 2 * opts.batch_seconds);
            const long iters = bench_agree_iters(budget_iters, min_iters, pace, opts.batch_seconds);
            for (int s = 0; s < opts.samples; ++s) {
                samples[s] = timed_batch(&c, iters) / (pp ? 2.0 : 1.0);
            }
            if (rank == 0) {
                char name[64];
                snprintf(name, sizeof name, "%s/%s", bench_name, mode_names[m]);
                bench_result(name, size, bench_median(samples, opts.samples), "us");
            }
            if (persistent && !(pp && rank > 1)) {
                const int nreq = pp ? 2 : 4;
                for (int i = 0; i < nreq; ++i) bench_check(MPI_Request_free(&c.reqs[i]), "MPI_Request_free");
            }
        }
    }
#if HAVE_QUEUE
    for (int k = 0; k < 3; ++k) {
        const size_t size = ring_sizes[k];
        if (size > opts.max_size) continue;
        c.size = size;
        ring_init(&c);
        c.mode = m_startall;
        validate(&c);
        c.mode = m_queue;
        validate(&c);
        const long budget_iters = bench_iters(4 * size, budget, min_iters, max_iters);
        const double pace =
            bench_warmup(step, &c, bench_iters(1, (size_t)budget_iters / 10, 2, 200), 2 * opts.batch_seconds);
        const long iters = bench_agree_iters(budget_iters, min_iters, pace, opts.batch_seconds);
        double paired[2][BENCH_MAX_SAMPLES];
        for (int s = 0; s < opts.samples; ++s) {
            for (int m = m_queue; m <= m_startall; ++m) {
                c.mode = (enum mode)m;
                paired[m][s] = timed_batch(&c, iters);
            }
        }
        if (rank == 0) {
            bench_result("queue_ring/ring.queue.paired", size, bench_median(paired[m_queue], opts.samples), "us");
            bench_result("queue_ring/ring.startall.paired", size, bench_median(paired[m_startall], opts.samples), "us");
        }
        for (int i = 0; i < 4; ++i) bench_check(MPI_Request_free(&c.reqs[i]), "MPI_Request_free");
    }
    bench_check(MPI_Queue_free(&c.queue), "MPI_Queue_free");
#endif
    free(c.sl);
    free(c.sr);
    free(c.rl);
    free(c.rr);
    bench_check(MPI_Finalize(), "MPI_Finalize");
    return 0;
}
