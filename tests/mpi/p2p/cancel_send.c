/* MPI_Cancel of pending sends (MPI-4.1 3.8.4): every send mode, persistent sends, to oneself and
 * to another rank. Ranks pair up (even sender, odd receiver). A send whose message no receive has
 * matched must report cancelled, and its message must never arrive: a later message with the same
 * envelope is received instead. A cancel racing a posted receive gives exactly one of cancelled /
 * delivered with the right data. A matched send is not cancelled; an eager one whose data has left
 * (complete, not yet waited for) is still withdrawn while unmatched. A cancelled MPI_Ibsend gives
 * its space in the attached buffer back. */
#include "mpitest.h"

#define BIG (256 * 1024) /* past the eager limits of shared memory (32 KiB) and UCX (64 KiB) */

static int rank, size, peer;
static int sender; /* this rank sends in the pair */

static void fill(int* b, int n, int seed)
{
    for (int i = 0; i < n; ++i) b[i] = seed * 131 + i;
}

static int check_data(const int* b, int n, int seed)
{
    for (int i = 0; i < n; ++i)
        if (b[i] != seed * 131 + i) return i;
    return -1;
}

static int cancelled_of(MPI_Status* st)
{
    int flag = -1;
    CHECK_MPI(MPI_Test_cancelled(st, &flag));
    return flag;
}

/* Cancel of a send nobody receives: the sender starts it (start), cancels and waits; then it sends
 * a replacement with the same tag (standard mode) and the receiver must get that one. */
enum kind { K_ISSEND, K_ISEND_BIG, K_IBSEND, K_IBSEND_BIG, K_SEND_INIT_BIG, K_SSEND_INIT, K_BSEND_INIT,
            K_RSEND_INIT_BIG, K_ISSEND_BIG, K_ISEND, K_SEND_INIT, K_NKINDS };
static const char* kind_name[] = {"Issend", "Isend(big)", "Ibsend", "Ibsend(big)", "Send_init(big)",
                                  "Ssend_init", "Bsend_init", "Rsend_init(big)", "Issend(big)", "Isend",
                                  "Send_init"};

static void unreceived_cancel(enum kind k, int tag)
{
    const int n = (k == K_ISEND_BIG || k == K_IBSEND_BIG || k == K_SEND_INIT_BIG || k == K_RSEND_INIT_BIG ||
                   k == K_ISSEND_BIG)
                      ? BIG / (int)sizeof(int)
                      : 2;
    int* buf = malloc(sizeof(int) * (size_t)n);
    if (sender) {
        MPI_Request req;
        MPI_Status st;
        fill(buf, n, 1);
        int persistent = 0;
        switch (k) {
        case K_ISSEND: case K_ISSEND_BIG: CHECK_MPI(MPI_Issend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); break;
        case K_ISEND: case K_ISEND_BIG: CHECK_MPI(MPI_Isend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); break;
        case K_IBSEND: case K_IBSEND_BIG: CHECK_MPI(MPI_Ibsend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); break;
        case K_SEND_INIT_BIG: case K_SEND_INIT: CHECK_MPI(MPI_Send_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); persistent = 1; break;
        case K_SSEND_INIT: CHECK_MPI(MPI_Ssend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); persistent = 1; break;
        case K_BSEND_INIT: CHECK_MPI(MPI_Bsend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); persistent = 1; break;
        case K_RSEND_INIT_BIG: CHECK_MPI(MPI_Rsend_init(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req)); persistent = 1; break;
        default: break;
        }
        /* persistent: two rounds on the same request */
        for (int round = 0; round < (persistent ? 2 : 1); ++round) {
            if (persistent) CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Cancel(&req));
            CHECK_MPI(MPI_Wait(&req, &st));
            CHECK(cancelled_of(&st) == 1, "%s round %d to rank %d: not cancelled", kind_name[k], round, peer);
        }
        if (persistent) CHECK_MPI(MPI_Request_free(&req));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        fill(buf, n, 2);
        CHECK_MPI(MPI_Send(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Status st;
        memset(buf, 0, sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Recv(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
        int bad = check_data(buf, n, 2);
        CHECK(bad < 0, "%s: received the wrong message (element %d is %d; a cancelled one arrived?)", kind_name[k],
              bad, bad < 0 ? 0 : buf[bad]);
        CHECK(cancelled_of(&st) == 0, "%s: the replacement receive reports cancelled", kind_name[k]);
    }
    /* nothing else is left for the receiver */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "%s: a message with tag %d is still pending after the replacement", kind_name[k], tag);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
}

/* Cancel racing a posted receive: exactly one of cancelled (the receive then gets the replacement)
 * or delivered with the original data. pre: the receive is posted before the send starts. */
static void racing_cancel(int mode, int n, int tag, int pre, int* counts)
{
    int* buf = malloc(sizeof(int) * (size_t)n);
    int outcome = -1;
    if (sender) {
        MPI_Request req;
        MPI_Status st;
        fill(buf, n, 3);
        if (pre) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (mode == 0) CHECK_MPI(MPI_Issend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
        else if (mode == 1) CHECK_MPI(MPI_Isend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Irsend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Cancel(&req));
        CHECK_MPI(MPI_Wait(&req, &st));
        outcome = cancelled_of(&st);
        CHECK_MPI(MPI_Send(&outcome, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD));
        if (outcome == 1) {
            fill(buf, n, 4);
            CHECK_MPI(MPI_Send(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD));
        }
    } else {
        MPI_Request req;
        MPI_Status st;
        memset(buf, 0, sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
        if (pre) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&outcome, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK(outcome == 0 || outcome == 1, "racing cancel: flag %d", outcome);
        int bad = check_data(buf, n, outcome == 1 ? 4 : 3);
        CHECK(bad < 0, "racing cancel (mode %d, %d ints, outcome %d): wrong data at %d", mode, n, outcome, bad);
        CHECK(cancelled_of(&st) == 0, "racing cancel: the receive reports cancelled");
    }
    if (outcome == 0 || outcome == 1) ++counts[outcome];
    free(buf);
}

/* Cancel of a send that has completed (its receive matched it): not cancelled. */
static void completed_cancel(int tag)
{
    int v = 7;
    if (sender) {
        MPI_Request req;
        MPI_Status st;
        CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* received */
        CHECK_MPI(MPI_Cancel(&req));
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK(cancelled_of(&st) == 0, "a matched Issend reports cancelled");
    } else {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 7, "completed send: received %d", v);
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD));
    }
}

/* Sends to oneself. */
static void self_cancel(void)
{
    int small[2] = {5, 6}, got[2] = {0, 0};
    int* big = malloc(BIG);
    MPI_Request req;
    MPI_Status st;
    /* synchronous: waits in the queue with the request: cancelled */
    CHECK_MPI(MPI_Issend(small, 2, MPI_INT, rank, 90, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(cancelled_of(&st) == 1, "Issend to self: not cancelled");
    /* large standard: cancelled */
    fill(big, BIG / (int)sizeof(int), 8);
    CHECK_MPI(MPI_Isend(big, BIG / (int)sizeof(int), MPI_INT, rank, 90, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(cancelled_of(&st) == 1, "large Isend to self: not cancelled");
    /* small standard: copied at once, complete: not cancelled, and it arrives */
    CHECK_MPI(MPI_Isend(small, 2, MPI_INT, rank, 90, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    int c = cancelled_of(&st);
    CHECK(c == 0 || c == 1, "small Isend to self: flag %d", c);
    if (c == 0) {
        CHECK_MPI(MPI_Recv(got, 2, MPI_INT, rank, 90, MPI_COMM_WORLD, &st));
        CHECK(got[0] == 5 && got[1] == 6, "self: received %d %d", got[0], got[1]);
    }
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(rank, 90, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "a cancelled send to self left a message");
    /* matched by a posted receive: not cancelled */
    got[0] = 0;
    MPI_Request rr;
    CHECK_MPI(MPI_Irecv(got, 2, MPI_INT, rank, 91, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Issend(small, 2, MPI_INT, rank, 91, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(cancelled_of(&st) == 0, "Issend to self matched by a posted receive reports cancelled");
    CHECK_MPI(MPI_Wait(&rr, &st));
    CHECK(got[0] == 5, "self matched: received %d", got[0]);
    free(big);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0, "needs an even number of ranks");
    peer = rank ^ 1;
    sender = (rank % 2) == 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    self_cancel();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* one buffer holds exactly one big buffered message: a cancelled one must give its space back */
    int bsize = BIG + MPI_BSEND_OVERHEAD;
    char* bbuf = malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

    /* a big buffered send to oneself waits in the queue with its internal request: cancelled */
    {
        int* b = malloc(BIG);
        MPI_Request req;
        MPI_Status st;
        CHECK_MPI(MPI_Ibsend(b, BIG / (int)sizeof(int), MPI_INT, rank, 95, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Cancel(&req));
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK(cancelled_of(&st) == 1, "big Ibsend to self: not cancelled");
        int flag = 1;
        CHECK_MPI(MPI_Iprobe(rank, 95, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 0, "a cancelled Ibsend to self left a message");
        free(b);
    }

    for (int k = 0; k < K_NKINDS; ++k) unreceived_cancel((enum kind)k, 10 + 2 * k);

    /* MPI_Request_free right after MPI_Cancel: nobody waits for the outcome (the receive below may
     * be posted before the cancel request is handled), but exactly one of the two happens: the
     * message arrives before the replacement, or only the replacement arrives. */
    {
        int v = 41, w = 0;
        if (sender) {
            MPI_Request req;
            CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Cancel(&req));
            CHECK_MPI(MPI_Request_free(&req));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            v = 42;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 80, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (w == 41) CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(w == 42, "after Cancel + Request_free: received %d, expected the replacement 42", w);
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int flag = 1;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 80, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 0, "after Cancel + Request_free: a message is left over");
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* the buffer is empty again: another big Ibsend fits, and detach returns at once */
    if (sender) {
        int* b = malloc(BIG);
        MPI_Request req;
        MPI_Status st;
        fill(b, BIG / (int)sizeof(int), 9);
        int rc = MPI_Ibsend(b, BIG / (int)sizeof(int), MPI_INT, peer, 70, MPI_COMM_WORLD, &req);
        CHECK(rc == MPI_SUCCESS, "Ibsend after a cancelled Ibsend: error %d (buffer space not given back?)", rc);
        if (rc == MPI_SUCCESS) {
            CHECK_MPI(MPI_Cancel(&req));
            CHECK_MPI(MPI_Wait(&req, &st));
            CHECK(cancelled_of(&st) == 1, "second big Ibsend: not cancelled");
        }
        free(b);
    }
    void* dbuf;
    int dsize;
    CHECK_MPI(MPI_Buffer_detach(&dbuf, &dsize));
    CHECK(dbuf == bbuf && dsize == bsize, "detach gave %p/%d", dbuf, dsize);
    free(bbuf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* racing a posted receive */
    int counts[2] = {0, 0};
    for (int i = 0; i < 20; ++i) {
        racing_cancel(i % 3, 2, 100, 1, counts);
        racing_cancel(i % 2, BIG / (int)sizeof(int), 102, 0, counts);
        racing_cancel(0, 2, 104, 0, counts);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    completed_cancel(110);

    /* a persistent request that was never started cannot be cancelled */
    {
        int v = 0;
        MPI_Request req;
        CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, peer, 120, MPI_COMM_WORLD, &req));
        int rc = MPI_Cancel(&req), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST, "Cancel of an inactive persistent send: class %d", cls);
        CHECK_MPI(MPI_Request_free(&req));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
