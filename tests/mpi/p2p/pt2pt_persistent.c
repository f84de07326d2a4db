/* Persistent requests: Send_init, Bsend_init, Ssend_init and Rsend_init with Recv_init, started
 * with Start and Startall over many iterations in a ring (rank -> rank+1) with the data changing
 * every iteration (a persistent send must send the buffer's current contents). Statuses are
 * checked each time; completed persistent requests stay allocated and inactive, and
 * Wait/Test/Request_get_status on an inactive one return at once with an empty status;
 * MPI_Request_free of inactive persistent requests sets them to MPI_REQUEST_NULL. */
#include "mpitest.h"

enum mode { M_STANDARD, M_BUFFERED, M_SYNCHRONOUS, M_READY, M_COUNT };
static const char* mode_name[M_COUNT] = {"Send_init", "Bsend_init", "Ssend_init", "Rsend_init"};

static int rank, size, next, prev;
static MPI_Comm ctrl;

static void fill(int* buf, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) buf[i] = (int)mpitest_value((size_t)i, seed);
}

static int first_bad(const int* buf, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != (int)mpitest_value((size_t)i, seed)) return i;
    return n;
}

static void check_empty_status(const MPI_Status* st, const char* what)
{
    int n = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
          "%s: not an empty status (source %d tag %d)", what, st->MPI_SOURCE, st->MPI_TAG);
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == 0, "%s: empty status count %d", what, n);
}

static void run_mode(enum mode m, int n, int iters, int tag, int* sbuf, int* rbuf)
{
    MPI_Request sreq, rreq, ready_s = MPI_REQUEST_NULL, ready_r = MPI_REQUEST_NULL;
    MPI_Status st[2];
    /* the standard-mode receive uses MPI_ANY_SOURCE: only prev sends on this tag */
    int src = (m == M_STANDARD) ? MPI_ANY_SOURCE : prev;
    CHECK_MPI(MPI_Recv_init(rbuf, n, MPI_INT, src, tag, MPI_COMM_WORLD, &rreq));
    switch (m) {
    case M_STANDARD: CHECK_MPI(MPI_Send_init(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq)); break;
    case M_BUFFERED: CHECK_MPI(MPI_Bsend_init(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq)); break;
    case M_SYNCHRONOUS: CHECK_MPI(MPI_Ssend_init(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq)); break;
    default:
        CHECK_MPI(MPI_Rsend_init(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
        /* "my receive is posted": to prev; "next's receive is posted": from next */
        CHECK_MPI(MPI_Send_init(NULL, 0, MPI_BYTE, prev, tag, ctrl, &ready_s));
        CHECK_MPI(MPI_Recv_init(NULL, 0, MPI_BYTE, next, tag, ctrl, &ready_r));
        break;
    }
    CHECK(sreq != MPI_REQUEST_NULL && rreq != MPI_REQUEST_NULL, "%s: null request", mode_name[m]);

    /* inactive persistent requests complete at once with an empty status */
    int flag = 0;
    CHECK_MPI(MPI_Test(&rreq, &flag, &st[0]));
    CHECK(flag, "%s: Test of an inactive request: flag false", mode_name[m]);
    check_empty_status(&st[0], "Test of an inactive persistent request");
    CHECK(rreq != MPI_REQUEST_NULL, "Test freed an inactive persistent request");

    /* Start/Startall take the requests INOUT: Open MPI may replace a persistent request's
     * handle when it is started again, so the handles live in arrays that every call updates. */
    MPI_Request req[2] = {rreq, sreq}, ready[2] = {ready_s, ready_r};
    for (int it = 0; it < iters; it++) {
        fill(sbuf, n, (uint32_t)(rank * 100003 + it * 7 + tag));
        rbuf[0] = rbuf[n - 1] = -1;
        if (m == M_READY) {
            CHECK_MPI(MPI_Start(&req[0]));
            CHECK_MPI(MPI_Startall(2, ready));
            CHECK_MPI(MPI_Wait(&ready[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Start(&req[1]));
            CHECK_MPI(MPI_Wait(&ready[0], MPI_STATUS_IGNORE));
        } else if (it % 2) {
            CHECK_MPI(MPI_Start(&req[0]));
            CHECK_MPI(MPI_Start(&req[1]));
        } else {
            CHECK_MPI(MPI_Startall(2, req));
        }
        switch (it % 3) {
        case 0: CHECK_MPI(MPI_Waitall(2, req, st)); break;
        case 1:
            CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&req[0], &st[0]));
            break;
        default:
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Testall(2, req, &flag, st));
            break;
        }
        CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
              "%s: completing a persistent request freed it", mode_name[m]);
        CHECK_STATUS(st[0], prev, tag, MPI_INT, n);
        int bad = first_bad(rbuf, n, (uint32_t)(prev * 100003 + it * 7 + tag));
        CHECK(bad == n, "%s, %d ints, iteration %d: element %d differs", mode_name[m], n, it, bad);
    }
    rreq = req[0];
    sreq = req[1];
    ready_s = ready[0];
    ready_r = ready[1];

    /* inactive again: Wait and Request_get_status return at once with an empty status */
    CHECK_MPI(MPI_Wait(&rreq, &st[0]));
    check_empty_status(&st[0], "Wait of an inactive persistent request");
    flag = 0;
    CHECK_MPI(MPI_Request_get_status(sreq, &flag, &st[1]));
    CHECK(flag, "Request_get_status of an inactive request: flag false");
    check_empty_status(&st[1], "Request_get_status of an inactive persistent request");

    CHECK_MPI(MPI_Request_free(&rreq));
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK(rreq == MPI_REQUEST_NULL && sreq == MPI_REQUEST_NULL,
          "Request_free of an inactive persistent request did not set it to null");
    if (m == M_READY) {
        CHECK_MPI(MPI_Request_free(&ready_s));
        CHECK_MPI(MPI_Request_free(&ready_r));
    }
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ctrl));

    enum { SMALL = 16, BIG = 1 << 18 };
    int* sbuf = mpitest_malloc(sizeof(int) * BIG);
    int* rbuf = mpitest_malloc(sizeof(int) * BIG);
    /* in a ring a rank can run up to size-1 iterations ahead of its receiver, so the buffer for
     * Bsend_init holds size+1 messages of the largest size */
    int bsize = (size + 1) * (BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char* bbuf = mpitest_malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

    int tag = 1;
    for (int m = 0; m < M_COUNT; m++) {
        run_mode((enum mode)m, SMALL, 40, tag++, sbuf, rbuf);
        run_mode((enum mode)m, BIG, 5, tag++, sbuf, rbuf);
    }

    void* det;
    int dsize;
    CHECK_MPI(MPI_Buffer_detach(&det, &dsize));
    free(bbuf);
    free(sbuf);
    free(rbuf);
    CHECK_MPI(MPI_Comm_free(&ctrl));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
