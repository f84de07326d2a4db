/* Matched channels whatever the transport: on one host they use shared memory, with
 * BATON_TRANSPORT=ucx (label ucx) and in the two-host runs (label twohost) the peers are reached
 * through UCX and every start travels as an engine message on the channel's private context.
 *
 * - pairs (r, r + size/2) and the world ring: sends run ahead of their receives at an eager and
 *   a rendezvous size; a receive buffer is untouched until its receive is started, messages
 *   arrive in order, statuses name the matched sender and tag;
 * - a synchronous-mode matched send does not complete before its receive is started;
 * - an ordinary MPI_ANY_SOURCE / MPI_ANY_TAG receive posted while matched traffic flows gets only
 *   the ordinary message sent after it, never matched data;
 * - a matched receive smaller than the message reports MPI_ERR_TRUNCATE through an enqueued wait
 *   (the queue's kept error) and the channel works again afterwards;
 * - the ring of Example 13.1 through a default queue, many rounds, on every rank count.
 */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static int rank, size;

static int val(int from, int k, int i) { return from * 1000003 + k * 7919 + i; }

/* Rank r sends K messages of n ints to its partner before the partner starts any receive. */
static void run_ahead(int n)
{
    enum { K = 5 };
    if (size < 2) return;
    const int half = size / 2;
    if (rank >= 2 * half) return; /* odd count: the last rank sits this out */
    const int sender = rank < half;
    const int peer = sender ? rank + half : rank - half;
    int* buf = mpitest_malloc((size_t)n * sizeof(int));
    MPI_Request r;
    if (sender) {
        CHECK_MPI(MPI_Send_init(buf, n, MPI_INT, peer, 40, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < n; i++) buf[i] = val(rank, k, i);
            CHECK_MPI(MPI_Start(&r));
            /* eager messages complete now; rendezvous ones once the receiver fetched them */
            if (n * (int)sizeof(int) <= 4096) CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            else break;
        }
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, peer, 41, MPI_COMM_WORLD)); /* "sent" */
        if (n * (int)sizeof(int) > 4096) {
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            for (int k = 1; k < K; k++) {
                for (int i = 0; i < n; i++) buf[i] = val(rank, k, i);
                CHECK_MPI(MPI_Start(&r));
                CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
        }
    } else {
        for (int i = 0; i < n; i++) buf[i] = -7;
        CHECK_MPI(MPI_Recv_init(buf, n, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, peer, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* give the data every chance to land early, then check it did not */
        for (int t = 0; t < 20; t++) {
            int flag;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            usleep(1000);
        }
        CHECK(buf[0] == -7 && buf[n - 1] == -7, "n=%d: data landed before the receive was started (%d)", n, buf[0]);
        for (int k = 0; k < K; k++) {
            MPI_Status st;
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK(buf[0] == val(peer, k, 0) && buf[n - 1] == val(peer, k, n - 1),
                  "n=%d: message %d out of order or wrong: %d", n, k, buf[0]);
            CHECK_STATUS(st, peer, 40, MPI_INT, n);
        }
    }
    CHECK_MPI(MPI_Request_free(&r));
    free(buf);
}

/* A synchronous matched send completes only after its receive started. */
static void synchronous(void)
{
    if (size < 2 || rank > 1) return;
    int x = 0;
    MPI_Request r;
    if (rank == 0) {
        x = 4242;
        CHECK_MPI(MPI_Ssend_init(&x, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Start(&r));
        int flag = 0;
        for (int t = 0; t < 30 && !flag; t++) {
            CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            usleep(1000);
        }
        CHECK(!flag, "a synchronous matched send completed before its receive was started");
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 1, 51, MPI_COMM_WORLD)); /* "tested" */
        if (!flag) CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(x == 4242, "synchronous matched message: got %d", x);
    }
    CHECK_MPI(MPI_Request_free(&r));
}

/* Matched traffic never satisfies an ordinary wildcard receive. */
static void no_collision(void)
{
    if (size < 2 || rank > 1) return;
    const int peer = 1 - rank;
    int m = -1, got = -1;
    MPI_Request r, any;
    if (rank == 1) {
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any));
        CHECK_MPI(MPI_Recv_init(&m, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &r));
    } else {
        m = 606;
        CHECK_MPI(MPI_Send_init(&m, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &r));
    }
    CHECK_MPI(MPI_Match(&r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (rank == 0) {
        int o = 707;
        CHECK_MPI(MPI_Send(&o, 1, MPI_INT, peer, 61, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&any, &st));
        CHECK(m == 606, "matched receive got %d", m);
        CHECK(got == 707 && st.MPI_TAG == 61, "the wildcard receive got %d (tag %d), not the ordinary message", got,
              st.MPI_TAG);
    }
    CHECK_MPI(MPI_Request_free(&r));
}

/* Truncation through an enqueued wait, reported by the fence; the channel is usable after. */
static void truncation(void)
{
    if (size < 2 || rank > 1) return;
    const int peer = 1 - rank;
    int big[64], small[8];
    MPI_Request r;
    MPI_Queue q;
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    if (rank == 0) {
        for (int i = 0; i < 64; i++) big[i] = i;
        CHECK_MPI(MPI_Send_init(big, 64, MPI_INT, peer, 70, MPI_COMM_WORLD, &r));
    } else {
        CHECK_MPI(MPI_Recv_init(small, 8, MPI_INT, peer, 70, MPI_COMM_WORLD, &r));
    }
    CHECK_MPI(MPI_Match(&r));
    CHECK_MPI(MPI_Enqueue_start(&q, &r));
    CHECK_MPI(MPI_Enqueue_wait(&q, &r, MPI_STATUS_IGNORE));
    int rc = MPI_Queue_fence(&q);
    if (rank == 1) {
        int cls = -1;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "truncated matched receive: fence returned %d (class %d)", rc, cls);
    } else {
        CHECK(rc == MPI_SUCCESS, "sender's fence returned %d", rc);
    }
    /* again, through the queue: the kept error was reported once */
    CHECK_MPI(MPI_Enqueue_start(&q, &r));
    CHECK_MPI(MPI_Enqueue_wait(&q, &r, MPI_STATUS_IGNORE));
    rc = MPI_Queue_fence(&q);
    CHECK(rank == 0 ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "second round: fence returned %d", rc);
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Queue_free(&q));
}

/* Example 13.1's ring through a default queue, many rounds, data changing every round. */
static void ring(int n, int rounds)
{
    if (size < 2) return;
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int* sl = mpitest_malloc((size_t)n * sizeof(int));
    int* sr = mpitest_malloc((size_t)n * sizeof(int));
    int* rl = mpitest_malloc((size_t)n * sizeof(int));
    int* rr = mpitest_malloc((size_t)n * sizeof(int));
    MPI_Request reqs[4];
    MPI_Status st[4];
    MPI_Queue q;
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    CHECK_MPI(MPI_Recv_init(rl, n, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Recv_init(rr, n, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Send_init(sl, n, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Send_init(sr, n, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[3]));
    CHECK_MPI(MPI_Matchall(4, reqs));
    for (int k = 0; k < rounds; k++) {
        for (int i = 0; i < n; i++) {
            sl[i] = val(rank, 2 * k, i);
            sr[i] = val(rank, 2 * k + 1, i);
        }
        CHECK_MPI(MPI_Enqueue_startall(&q, 2, &reqs[0]));
        CHECK_MPI(MPI_Enqueue_startall(&q, 2, &reqs[2]));
        CHECK_MPI(MPI_Enqueue_waitall(&q, 4, reqs, st));
        CHECK_MPI(MPI_Queue_fence(&q));
        CHECK(rl[0] == val(left, 2 * k + 1, 0) && rl[n - 1] == val(left, 2 * k + 1, n - 1),
              "ring n=%d round %d: wrong data from the left (%d)", n, k, rl[0]);
        CHECK(rr[0] == val(right, 2 * k, 0) && rr[n - 1] == val(right, 2 * k, n - 1),
              "ring n=%d round %d: wrong data from the right (%d)", n, k, rr[0]);
        CHECK_STATUS(st[0], left, 1, MPI_INT, n);
        CHECK_STATUS(st[1], right, 2, MPI_INT, n);
    }
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&reqs[i]));
    CHECK_MPI(MPI_Queue_free(&q));
    free(sl);
    free(sr);
    free(rl);
    free(rr);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run_ahead(100);    /* eager on every transport */
    run_ahead(40000);  /* rendezvous on UCX, credit-gated on shared memory */
    synchronous();
    no_collision();
    truncation();
    ring(2, 200);
    ring(3000, 20);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
