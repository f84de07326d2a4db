/* Matching (draft chapter 13.2) and the default queue type (13.3.4, 13.4).
 *
 * - ring exchange through a default queue at every protocol size (8 B, 4 KiB, 20 KiB in several
 *   ring slots, 256 KiB and 2 MiB credit-gated), data changing each round, statuses checked;
 * - the same matched requests with MPI_Start / MPI_Startall / MPI_Wait outside queues;
 * - sends that run ahead of their receive (early arrivals kept in order), 8 KiB ones left in
 *   their ring slots while the ring goes round past them, and a receive freed with some left;
 * - ties broken by the order of the MPI_Match calls, MPI_ANY_SOURCE / MPI_ANY_TAG receives (the
 *   match fixes source and tag), self pairs, MPI_PROC_NULL, a non-contiguous datatype,
 *   synchronous-mode sends;
 * - MPI_Imatch / MPI_Imatchall / MPI_Is_matched;
 * - many queues at once, each with its own requests, all fenced at the end;
 * - matched traffic never meets ordinary messages with the same (source, tag).
 */
#include <mpi.h>

#include "mpitest.h"

static int rank, size;

/* value of element i sent by rank r in round k on stream s */
static double val(int r, int k, int s, int i) { return r * 1.0e6 + k * 1.0e3 + s * 100.0 + (i % 97); }

static void ring_queue(int n, int rounds)
{
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    double* sl = mpitest_malloc(sizeof(double) * n);
    double* sr = mpitest_malloc(sizeof(double) * n);
    double* rl = mpitest_malloc(sizeof(double) * n);
    double* rr = mpitest_malloc(sizeof(double) * n);
    MPI_Request reqs[4];
    MPI_Status st[4];
    MPI_Queue q;
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    /* different tags, so that on 1-2 ranks the pairing is unambiguous */
    CHECK_MPI(MPI_Recv_init(rl, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Recv_init(rr, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Send_init(sl, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Send_init(sr, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[3]));
    int flag = 1;
    CHECK_MPI(MPI_Is_matched(reqs[0], &flag));
    CHECK(flag == 0, "Is_matched before matching is %d", flag);
    CHECK_MPI(MPI_Matchall(4, reqs));
    for (int i = 0; i < 4; i++) {
        CHECK_MPI(MPI_Is_matched(reqs[i], &flag));
        CHECK(flag == 1, "Is_matched after Matchall is %d (request %d)", flag, i);
    }
    for (int k = 0; k < rounds; k++) {
        for (int i = 0; i < n; i++) {
            sl[i] = val(rank, k, 0, i);
            sr[i] = val(rank, k, 1, i);
            rl[i] = rr[i] = -1;
        }
        CHECK_MPI(MPI_Enqueue_startall(&q, 2, &reqs[0]));
        CHECK_MPI(MPI_Enqueue_startall(&q, 2, &reqs[2]));
        CHECK_MPI(MPI_Enqueue_waitall(&q, 4, reqs, st));
        CHECK_MPI(MPI_Queue_fence(&q));
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (rl[i] != val(left, k, 1, i) || rr[i] != val(right, k, 0, i)) bad = i;
        CHECK(bad < 0, "n=%d round %d: wrong data at element %d (%g %g)", n, k, bad, rl[bad < 0 ? 0 : bad],
              rr[bad < 0 ? 0 : bad]);
        CHECK_STATUS(st[0], left, 1, MPI_DOUBLE, n);
        CHECK_STATUS(st[1], right, 2, MPI_DOUBLE, n);
    }
    /* the same requests outside the queue */
    for (int k = rounds; k < rounds + 3; k++) {
        for (int i = 0; i < n; i++) {
            sl[i] = val(rank, k, 0, i);
            sr[i] = val(rank, k, 1, i);
        }
        CHECK_MPI(MPI_Startall(4, reqs));
        CHECK_MPI(MPI_Waitall(4, reqs, st));
        CHECK(rl[n - 1] == val(left, k, 1, n - 1) && rr[0] == val(right, k, 0, 0), "n=%d round %d via Startall", n, k);
        CHECK_STATUS(st[0], left, 1, MPI_DOUBLE, n);
    }
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&reqs[i]));
    CHECK_MPI(MPI_Queue_free(&q));
    CHECK(q == MPI_QUEUE_NULL, "MPI_Queue_free did not set the handle to MPI_QUEUE_NULL");
    free(sl);
    free(sr);
    free(rl);
    free(rr);
}

/* The sender runs ahead: eager sends complete locally, the receive starts later. */
static void run_ahead(void)
{
    if (size < 2 || rank > 1) return;
    enum { K = 6, N = 300 };
    int buf[N];
    MPI_Request r;
    if (rank == 0) {
        CHECK_MPI(MPI_Send_init(buf, N, MPI_INT, 1, 7, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < N; i++) buf[i] = k * 1000 + i;
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Send(buf, 0, MPI_INT, 1, 8, MPI_COMM_WORLD)); /* "all sent" */
    } else {
        CHECK_MPI(MPI_Recv_init(buf, N, MPI_INT, 0, 7, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Recv(buf, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < K; k++) {
            MPI_Status st;
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK(buf[0] == k * 1000 && buf[N - 1] == k * 1000 + N - 1, "early arrival %d out of order: %d", k, buf[0]);
            CHECK_STATUS(st, 0, 7, MPI_INT, N);
        }
    }
    CHECK_MPI(MPI_Request_free(&r));
}

/* Early arrivals of one ring slot (8 KiB) stay in their slots until the receive starts. Here three
 * of them wait while 100 ordinary 8 KiB messages from the same sender go round the 32-slot ring
 * three times (the receiver must copy each parked message out when it comes round to it, or the
 * sender could never write that slot again); two more arrive after; all five come out in order.
 * Then a receive freed with two messages still parked lets go of their slots (the 100 messages
 * after it would otherwise wait forever). */
static void parked_early(void)
{
    if (size < 2 || rank > 1) return;
    enum { N = 2048, M = 100 };
    static int buf[N], other[N];
    MPI_Request r, f;
    if (rank == 0) {
        CHECK_MPI(MPI_Send_init(buf, N, MPI_INT, 1, 11, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Send_init(buf, N, MPI_INT, 1, 12, MPI_COMM_WORLD, &f));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Match(&f));
        for (int k = 0; k < 5; k++) {
            for (int i = 0; i < N; i++) buf[i] = k * 100000 + i;
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            if (k == 2)
                for (int m = 0; m < M; m++) {
                    for (int i = 0; i < N; i++) other[i] = -m - i;
                    CHECK_MPI(MPI_Send(other, N, MPI_INT, 1, 13, MPI_COMM_WORLD));
                }
        }
        for (int k = 0; k < 2; k++) {
            CHECK_MPI(MPI_Start(&f));
            CHECK_MPI(MPI_Wait(&f, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Send(buf, 0, MPI_INT, 1, 14, MPI_COMM_WORLD)); /* "freed" comes back */
        CHECK_MPI(MPI_Recv(buf, 0, MPI_INT, 1, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int m = 0; m < M; m++) {
            for (int i = 0; i < N; i++) other[i] = m + i;
            CHECK_MPI(MPI_Send(other, N, MPI_INT, 1, 15, MPI_COMM_WORLD));
        }
    } else {
        CHECK_MPI(MPI_Recv_init(buf, N, MPI_INT, 0, 11, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv_init(buf, N, MPI_INT, 0, 12, MPI_COMM_WORLD, &f));
        CHECK_MPI(MPI_Match(&r));
        CHECK_MPI(MPI_Match(&f));
        for (int m = 0; m < M; m++) {
            CHECK_MPI(MPI_Recv(other, N, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(other[0] == -m && other[N - 1] == -m - (N - 1), "ordinary message %d wrong: %d", m, other[0]);
        }
        for (int k = 0; k < 5; k++) {
            MPI_Status st;
            CHECK_MPI(MPI_Start(&r));
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK(buf[0] == k * 100000 && buf[N - 1] == k * 100000 + N - 1, "parked message %d wrong: %d", k, buf[0]);
            CHECK_STATUS(st, 0, 11, MPI_INT, N);
        }
        CHECK_MPI(MPI_Recv(buf, 0, MPI_INT, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(&f));
        CHECK_MPI(MPI_Send(buf, 0, MPI_INT, 0, 14, MPI_COMM_WORLD));
        for (int m = 0; m < M; m++) {
            CHECK_MPI(MPI_Recv(other, N, MPI_INT, 0, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(other[0] == m && other[N - 1] == m + N - 1, "message %d after the free wrong: %d", m, other[0]);
        }
    }
    CHECK_MPI(MPI_Request_free(&r));
    if (rank == 0) CHECK_MPI(MPI_Request_free(&f));
}

/* Two sends with the same (dest, tag) and two receives: the order of the Match calls decides.
 * The sender matches A then B; the receiver matches X then Y; so X gets A and Y gets B, even
 * though the receiver starts Y first. Also ANY_SOURCE / ANY_TAG receives. */
static void ties_and_wildcards(void)
{
    if (size < 2 || rank > 1) return;
    int a = 11, b = 22, x = 0, y = 0;
    MPI_Request s[2], rq[2];
    MPI_Status st[2];
    if (rank == 0) {
        CHECK_MPI(MPI_Send_init(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &s[0]));
        CHECK_MPI(MPI_Send_init(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &s[1]));
        CHECK_MPI(MPI_Match(&s[0]));
        CHECK_MPI(MPI_Match(&s[1]));
        CHECK_MPI(MPI_Start(&s[1]));
        CHECK_MPI(MPI_Start(&s[0]));
        CHECK_MPI(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 2; i++) CHECK_MPI(MPI_Request_free(&s[i]));
        /* wildcard pair */
        int w = 77;
        MPI_Request sw;
        CHECK_MPI(MPI_Send_init(&w, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &sw));
        CHECK_MPI(MPI_Match(&sw));
        CHECK_MPI(MPI_Start(&sw));
        CHECK_MPI(MPI_Wait(&sw, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(&sw));
    } else {
        CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Matchall(2, rq));
        CHECK_MPI(MPI_Start(&rq[1]));
        CHECK_MPI(MPI_Wait(&rq[1], &st[1]));
        CHECK_MPI(MPI_Start(&rq[0]));
        CHECK_MPI(MPI_Wait(&rq[0], &st[0]));
        CHECK(x == 11 && y == 22, "pairing by Match order: x=%d (want 11) y=%d (want 22)", x, y);
        CHECK_STATUS(st[1], 0, 5, MPI_INT, 1);
        for (int i = 0; i < 2; i++) CHECK_MPI(MPI_Request_free(&rq[i]));
        int w = 0;
        MPI_Request rw;
        MPI_Status sts;
        CHECK_MPI(MPI_Recv_init(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rw));
        CHECK_MPI(MPI_Match(&rw));
        CHECK_MPI(MPI_Start(&rw));
        CHECK_MPI(MPI_Wait(&rw, &sts));
        CHECK(w == 77, "wildcard matched receive got %d", w);
        CHECK_STATUS(sts, 0, 9, MPI_INT, 1);
        CHECK_MPI(MPI_Request_free(&rw));
    }
}

/* Self pairs, MPI_PROC_NULL, a vector type, synchronous mode, Imatch / Imatchall. */
static void kinds(void)
{
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    enum { N = 64 };
    int sbuf[2 * N], rbuf[2 * N], self_in[N], self_out[N];
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    MPI_Request r[6], m;
    CHECK_MPI(MPI_Recv_init(rbuf, 1, vec, from, 3, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Ssend_init(sbuf, 1, vec, peer, 3, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Recv_init(self_in, N, MPI_INT, rank, 4, MPI_COMM_WORLD, &r[2]));
    CHECK_MPI(MPI_Send_init(self_out, N, MPI_INT, rank, 4, MPI_COMM_WORLD, &r[3]));
    CHECK_MPI(MPI_Recv_init(rbuf, N, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[4]));
    CHECK_MPI(MPI_Send_init(sbuf, N, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[5]));
    MPI_Type_free(&vec); /* the requests keep it */
    CHECK_MPI(MPI_Imatch(&r[0], &m));
    MPI_Request m2;
    CHECK_MPI(MPI_IMatchall(5, &r[1], &m2));
    int flag = 0;
    for (int spins = 0; !flag; spins++) CHECK_MPI(MPI_Test(&m2, &flag, MPI_STATUS_IGNORE));
    CHECK(m2 == MPI_REQUEST_NULL, "the completed match request was not freed");
    CHECK_MPI(MPI_Wait(&m, MPI_STATUS_IGNORE));
    for (int i = 0; i < 6; i++) {
        CHECK_MPI(MPI_Is_matched(r[i], &flag));
        CHECK(flag, "request %d not matched after Imatch/Imatchall", i);
    }
    MPI_Queue q;
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 2 * N; i++) {
            sbuf[i] = rank * 100000 + k * 1000 + i;
            rbuf[i] = -1;
        }
        for (int i = 0; i < N; i++) self_out[i] = k * 7 + i;
        MPI_Status st[6];
        /* receives last this time: the synchronous send waits for them */
        CHECK_MPI(MPI_Enqueue_startall(q, 2, &r[4]));
        CHECK_MPI(MPI_Enqueue_start(q, &r[3]));
        CHECK_MPI(MPI_Enqueue_start(q, &r[1]));
        CHECK_MPI(MPI_Enqueue_start(q, &r[2]));
        CHECK_MPI(MPI_Enqueue_start(q, &r[0]));
        CHECK_MPI(MPI_Enqueue_waitall(q, 6, r, st));
        CHECK_MPI(MPI_Queue_fence(q));
        int bad = 0;
        for (int i = 0; i < 2 * N; i++) {
            int want = (i % 2 == 0) ? from * 100000 + k * 1000 + i : -1;
            if (rbuf[i] != want) bad++;
        }
        for (int i = 0; i < N; i++)
            if (self_in[i] != k * 7 + i) bad++;
        CHECK(bad == 0, "round %d: %d wrong elements (vector / self)", k, bad);
        CHECK(st[4].MPI_SOURCE == MPI_PROC_NULL && st[4].MPI_TAG == MPI_ANY_TAG, "PROC_NULL status %d %d",
              st[4].MPI_SOURCE, st[4].MPI_TAG);
        CHECK_STATUS(st[2], rank, 4, MPI_INT, N);
        CHECK_STATUS(st[0], from, 3, MPI_INT, N);
    }
    CHECK_MPI(MPI_Queue_free(&q));
    for (int i = 0; i < 6; i++) CHECK_MPI(MPI_Request_free(&r[i]));
}

/* Many queues, each with its own pair per neighbour; plus ordinary traffic with the same tags in
 * between (matched traffic never meets it). */
static void many_queues(void)
{
    enum { Q = 8, N = 100 };
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Queue qs[Q];
    MPI_Request r[Q][2];
    static int in[Q][N], out[Q][N];
    for (int j = 0; j < Q; j++) {
        CHECK_MPI(MPI_Queue_init(&qs[j], MPI_QUEUE_TYPE_DEFAULT, NULL));
        CHECK_MPI(MPI_Recv_init(in[j], N, MPI_INT, from, 0, MPI_COMM_WORLD, &r[j][0]));
        CHECK_MPI(MPI_Send_init(out[j], N, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[j][1]));
        CHECK_MPI(MPI_Matchall(2, r[j]));
    }
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < Q; j++)
            for (int i = 0; i < N; i++) out[j][i] = rank * 10000 + j * 100 + k + i;
        int o = 1000 + rank, oi = -1;
        MPI_Request ord[2];
        CHECK_MPI(MPI_Irecv(&oi, 1, MPI_INT, from, 0, MPI_COMM_WORLD, &ord[0]));
        for (int j = Q - 1; j >= 0; j--) {
            CHECK_MPI(MPI_Enqueue_startall(qs[j], 2, r[j]));
            CHECK_MPI(MPI_Enqueue_waitall(qs[j], 2, r[j], MPI_STATUSES_IGNORE));
        }
        CHECK_MPI(MPI_Isend(&o, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &ord[1]));
        CHECK_MPI(MPI_Waitall(2, ord, MPI_STATUSES_IGNORE)); /* progresses the queues too */
        for (int j = 0; j < Q; j++) CHECK_MPI(MPI_Queue_fence(qs[j]));
        CHECK(oi == 1000 + from, "ordinary message got %d", oi);
        int bad = 0;
        for (int j = 0; j < Q; j++)
            for (int i = 0; i < N; i++)
                if (in[j][i] != from * 10000 + j * 100 + k + i) bad++;
        CHECK(bad == 0, "round %d: %d wrong elements over %d queues", k, bad, Q);
    }
    for (int j = 0; j < Q; j++) {
        CHECK_MPI(MPI_Request_free(&r[j][0]));
        CHECK_MPI(MPI_Request_free(&r[j][1]));
        CHECK_MPI(MPI_Queue_free(&qs[j]));
    }
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int sizes[] = {1, 512, 2560, 32768, 262144};
    for (int i = 0; i < 5; i++) ring_queue(sizes[i], sizes[i] > 10000 ? 4 : 20);
    run_ahead();
    parked_early();
    ties_and_wildcards();
    kinds();
    many_queues();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
