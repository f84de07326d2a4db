/* MPIX_QUEUE_TYPE_THREAD: a queue bound to a host executor thread (docs/queues.md).
 *
 * Each round enqueues, with no fence in between:
 *   host(pack round k into the send buffers) ; start(recvs) ; start(sends) ; waitall ;
 *   host(check that the receive buffers hold the neighbours' round k)
 * so a start that began before the host function enqueued before it would send stale data, a
 * host function that ran before the wait enqueued before it completed would see stale data, and a
 * receive of round k+1 started before round k's check would overwrite what the check reads.
 * Two thread queues (different tags, different sizes) run at once beside a default queue, while
 * the main thread keeps exchanging ordinary messages: the program asked for MPI_THREAD_SINGLE,
 * and the library is thread-safe internally because of the executors.
 */
#include <mpi.h>
#include <stdatomic.h>
#include <unistd.h>

#include "mpitest.h"

static int rank, size;

struct stream {
    int n, tag, round, left, right;
    int *sl, *sr, *rl, *rr;
    int bad;      /* touched by the executor only; read after the fence */
    int checked;  /* rounds checked */
    MPI_Request reqs[4];
    MPI_Status st[4];
    MPI_Queue q;
};

static int val(int r, int k, int side, int i) { return r * 1000000 + k * 1000 + side * 500 + (i % 499); }

static void pack(void* arg)
{
    struct stream* s = arg;
    for (int i = 0; i < s->n; i++) {
        s->sl[i] = val(rank, s->round, 0, i);
        s->sr[i] = val(rank, s->round, 1, i);
    }
    usleep(s->round % 3 == 0 ? 2000 : 0); /* a slow host task now and then: starts must wait */
}

static void check(void* arg)
{
    struct stream* s = arg;
    int bad = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->rl[i] != val(s->left, s->round, 1, i)) bad++;
        if (s->rr[i] != val(s->right, s->round, 0, i)) bad++;
    }
    if (s->st[0].MPI_SOURCE != s->left || s->st[1].MPI_SOURCE != s->right || s->st[0].MPI_TAG != s->tag) bad++;
    if (bad && s->bad == 0)
        fprintf(stderr, "[rank %d] tag %d round %d: %d wrong (rl[0]=%d want %d)\n", rank, s->tag, s->round, bad,
                s->rl[0], val(s->left, s->round, 1, 0));
    s->bad += bad;
    s->checked++;
    s->round++;
}

static void setup(struct stream* s, int n, int tag, int type)
{
    s->n = n;
    s->tag = tag;
    s->round = 0;
    s->bad = 0;
    s->checked = 0;
    s->left = (rank - 1 + size) % size;
    s->right = (rank + 1) % size;
    s->sl = mpitest_malloc(sizeof(int) * n);
    s->sr = mpitest_malloc(sizeof(int) * n);
    s->rl = mpitest_malloc(sizeof(int) * n);
    s->rr = mpitest_malloc(sizeof(int) * n);
    CHECK_MPI(MPI_Queue_init(&s->q, type, NULL));
    /* on 1-2 ranks left == right: distinct tags keep the pairs apart */
    CHECK_MPI(MPI_Recv_init(s->rl, n, MPI_INT, s->left, tag, MPI_COMM_WORLD, &s->reqs[0]));
    CHECK_MPI(MPI_Recv_init(s->rr, n, MPI_INT, s->right, tag + 1, MPI_COMM_WORLD, &s->reqs[1]));
    CHECK_MPI(MPI_Send_init(s->sl, n, MPI_INT, s->left, tag + 1, MPI_COMM_WORLD, &s->reqs[2]));
    CHECK_MPI(MPI_Send_init(s->sr, n, MPI_INT, s->right, tag, MPI_COMM_WORLD, &s->reqs[3]));
    CHECK_MPI(MPI_Matchall(4, s->reqs));
}

static void enqueue_round(struct stream* s)
{
    CHECK_MPI(MPIX_Queue_enqueue_host(s->q, pack, s));
    CHECK_MPI(MPI_Enqueue_startall(s->q, 2, &s->reqs[0]));
    CHECK_MPI(MPI_Enqueue_startall(s->q, 2, &s->reqs[2]));
    CHECK_MPI(MPI_Enqueue_waitall(s->q, 4, s->reqs, s->st));
    CHECK_MPI(MPIX_Queue_enqueue_host(&s->q, check, s)); /* the pointer spelling works too */
}

static void finish(struct stream* s, int rounds)
{
    CHECK_MPI(MPI_Queue_fence(s->q));
    CHECK(s->bad == 0, "tag %d: %d wrong values over %d rounds", s->tag, s->bad, rounds);
    CHECK(s->checked == rounds, "tag %d: %d rounds checked, expected %d", s->tag, s->checked, rounds);
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&s->reqs[i]));
    CHECK_MPI(MPI_Queue_free(&s->q));
    free(s->sl);
    free(s->sr);
    free(s->rl);
    free(s->rr);
}

static atomic_int host_order[8];
static atomic_int host_next;
static void record(void* arg) { host_order[atomic_fetch_add(&host_next, 1)] = (int)(intptr_t)arg; }

int main(int argc, char** argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* host functions alone run in order, and a fence waits for them */
    MPI_Queue hq;
    CHECK_MPI(MPI_Queue_init(&hq, MPIX_QUEUE_TYPE_THREAD, NULL));
    for (int i = 0; i < 8; i++) CHECK_MPI(MPIX_Queue_enqueue_host(hq, record, (void*)(intptr_t)i));
    CHECK_MPI(MPI_Queue_fence(hq));
    CHECK(atomic_load(&host_next) == 8, "%d host functions ran before the fence returned", atomic_load(&host_next));
    for (int i = 0; i < 8; i++) CHECK(host_order[i] == i, "host function %d ran at position %d", host_order[i], i);
    CHECK_MPI(MPI_Queue_free(&hq));

    enum { ROUNDS = 40 };
    struct stream a, b, d;
    setup(&a, 2, 10, MPIX_QUEUE_TYPE_THREAD);
    setup(&b, 30000, 20, MPIX_QUEUE_TYPE_THREAD); /* 120 KB: credit-gated */
    setup(&d, 700, 30, MPI_QUEUE_TYPE_DEFAULT);
    int ord_bad = 0;
    for (int k = 0; k < ROUNDS; k++) {
        enqueue_round(&a);
        enqueue_round(&b);
        /* the default queue in lockstep: fence each round (host functions run here) */
        pack(&d);
        CHECK_MPI(MPI_Enqueue_startall(d.q, 2, &d.reqs[0]));
        CHECK_MPI(MPI_Enqueue_startall(d.q, 2, &d.reqs[2]));
        CHECK_MPI(MPI_Enqueue_waitall(d.q, 4, d.reqs, d.st));
        /* ordinary traffic from the main thread meanwhile */
        int x = rank * 7 + k, y = -1;
        CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 10, &y, 1, MPI_INT, (rank - 1 + size) % size, 10,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (y != ((rank - 1 + size) % size) * 7 + k) ord_bad++;
        CHECK_MPI(MPI_Queue_fence(d.q));
        check(&d);
    }
    CHECK(ord_bad == 0, "%d ordinary messages wrong", ord_bad);
    finish(&a, ROUNDS);
    finish(&b, ROUNDS);
    finish(&d, ROUNDS);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
