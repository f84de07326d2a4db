/* All four send modes, blocking and nonblocking: Send/Bsend/Ssend/Rsend and
 * Isend/Ibsend/Issend/Irsend, with sizes from 0 bytes to 1 MB, in a ring (rank -> rank+1).
 *
 * - Every mode with the receive posted first (a "ready" message on a separate communicator tells
 *   the sender, which makes Rsend/Irsend legal).
 * - Buffered sends complete locally: with a buffer attached and sized exactly with
 *   MPI_BSEND_OVERHEAD, a rank Bsends/Ibsends several messages before its receiver has posted
 *   anything (the receiver waits for a "go" sent after them), then overwrites its send buffer;
 *   the receiver must still get the original data. MPI_Buffer_detach returns the attached
 *   buffer and size.
 * - A synchronous send does not complete before the matching receive is posted: Issend, then
 *   MPI_Test returns false for a while (the receiver is waiting for a "go" on another
 *   communicator before posting), then true once the receiver has posted. */
#define _POSIX_C_SOURCE 200809L
#include "mpitest.h"

#include <time.h>

enum mode { M_STANDARD, M_BUFFERED, M_SYNCHRONOUS, M_READY, M_COUNT };
static const char* mode_name[M_COUNT] = {"standard", "buffered", "synchronous", "ready"};

static int rank, size, next, prev;
static MPI_Comm ctrl; /* for coordination messages, so they can never match data messages */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int blocking_send(enum mode m, const void* buf, int n, int dest, int tag)
{
    switch (m) {
    case M_STANDARD: return MPI_Send(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD);
    case M_BUFFERED: return MPI_Bsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD);
    case M_SYNCHRONOUS: return MPI_Ssend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD);
    default: return MPI_Rsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD);
    }
}

static int nonblocking_send(enum mode m, const void* buf, int n, int dest, int tag, MPI_Request* r)
{
    switch (m) {
    case M_STANDARD: return MPI_Isend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
    case M_BUFFERED: return MPI_Ibsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
    case M_SYNCHRONOUS: return MPI_Issend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
    default: return MPI_Irsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
    }
}

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

/* Every mode, receive pre-posted, blocking or nonblocking send. */
static void test_modes_preposted(int* sbuf, int* rbuf)
{
    const int counts[] = {0, 1, 1000, 1 << 18}; /* up to 1 MB */
    int tag = 100;
    for (int nb = 0; nb < 2; nb++) {
        for (int m = 0; m < M_COUNT; m++) {
            for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++, tag++) {
                int n = counts[k];
                MPI_Request rreq, ready_req, sreq;
                MPI_Status st;
                fill(sbuf, n, (uint32_t)(rank * 7919 + tag));
                memset(rbuf, 0, sizeof(int) * (size_t)(n + 1));
                CHECK_MPI(MPI_Irecv(rbuf, n + 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq));
                CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &ready_req));
                CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
                if (nb) {
                    CHECK_MPI(nonblocking_send((enum mode)m, sbuf, n, next, tag, &sreq));
                    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
                    CHECK(sreq == MPI_REQUEST_NULL, "completed send request not set to null");
                } else {
                    CHECK_MPI(blocking_send((enum mode)m, sbuf, n, next, tag));
                }
                CHECK_MPI(MPI_Wait(&rreq, &st));
                CHECK_MPI(MPI_Wait(&ready_req, MPI_STATUS_IGNORE));
                CHECK_STATUS(st, prev, tag, MPI_INT, n);
                int bad = first_bad(rbuf, n, (uint32_t)(prev * 7919 + tag));
                CHECK(bad == n, "%s %s send of %d ints: element %d differs",
                      nb ? "nonblocking" : "blocking", mode_name[m], n, bad);
            }
        }
    }
}

/* Buffered sends complete before the receiver posts, and the attached buffer sized exactly with
 * MPI_BSEND_OVERHEAD holds all of them at once. */
static void test_buffered_local(int* sbuf, int* rbuf)
{
    /* Small messages are 4 ints: with one-int messages the exact sum did not fit in MPICH 4.0.2
     * (it pads buffered messages for alignment beyond MPI_BSEND_OVERHEAD); 16 bytes does. */
    enum { NSMALL = 10, SMALL = 4, BIG = 1 << 18, TAG = 500 };
    int bufsize = 2 * (BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD) +
                  NSMALL * (SMALL * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char* attached = mpitest_malloc((size_t)bufsize);
    MPI_Request req, go_req;
    MPI_Status st;

    CHECK_MPI(MPI_Buffer_attach(attached, bufsize));

    /* two 1 MB messages (blocking and nonblocking) and NSMALL small messages, all pending */
    fill(sbuf, BIG, (uint32_t)rank);
    CHECK_MPI(MPI_Bsend(sbuf, BIG, MPI_INT, next, TAG, MPI_COMM_WORLD));
    fill(sbuf, BIG, (uint32_t)rank + 1000);
    CHECK_MPI(MPI_Ibsend(sbuf, BIG, MPI_INT, next, TAG + 1, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)); /* local completion: receiver hasn't posted */
    for (int i = 0; i < NSMALL; i++) {
        int v[SMALL] = {rank * 100 + i, i, -i, rank};
        CHECK_MPI(MPI_Bsend(v, SMALL, MPI_INT, next, TAG + 2, MPI_COMM_WORLD));
    }
    memset(sbuf, 0xEE, sizeof(int) * BIG); /* the library must have copied the data */

    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, TAG, ctrl, &go_req));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, prev, TAG, ctrl, MPI_STATUS_IGNORE));

    CHECK_MPI(MPI_Recv(rbuf, BIG, MPI_INT, prev, TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, prev, TAG, MPI_INT, BIG);
    int bad = first_bad(rbuf, BIG, (uint32_t)prev);
    CHECK(bad == BIG, "Bsend of 1 MB: element %d differs", bad);
    CHECK_MPI(MPI_Recv(rbuf, BIG, MPI_INT, prev, TAG + 1, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, prev, TAG + 1, MPI_INT, BIG);
    bad = first_bad(rbuf, BIG, (uint32_t)prev + 1000);
    CHECK(bad == BIG, "Ibsend of 1 MB: element %d differs", bad);
    for (int i = 0; i < NSMALL; i++) {
        int v[SMALL] = {-1, -1, -1, -1};
        CHECK_MPI(MPI_Recv(v, SMALL, MPI_INT, prev, TAG + 2, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, prev, TAG + 2, MPI_INT, SMALL);
        CHECK(v[0] == prev * 100 + i && v[1] == i && v[2] == -i && v[3] == prev,
              "small Bsend %d: got %d %d %d %d", i, v[0], v[1], v[2], v[3]);
    }
    CHECK_MPI(MPI_Wait(&go_req, MPI_STATUS_IGNORE));

    void* detached = NULL;
    int detached_size = 0;
    CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == (void*)attached, "Buffer_detach returned %p, attached %p", detached,
          (void*)attached);
    CHECK(detached_size == bufsize, "Buffer_detach size %d, attached %d", detached_size, bufsize);
    free(attached);

    /* a buffer can be attached again after detach; detach waits for the pending message */
    attached = mpitest_malloc(1000 + MPI_BSEND_OVERHEAD);
    CHECK_MPI(MPI_Buffer_attach(attached, 1000 + MPI_BSEND_OVERHEAD));
    int v = rank;
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, next, TAG + 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, prev, TAG + 3, MPI_COMM_WORLD, &st));
    CHECK(v == prev, "Bsend after re-attach: got %d, expected %d", v, prev);
    CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == (void*)attached && detached_size == 1000 + MPI_BSEND_OVERHEAD,
          "second Buffer_detach returned %p/%d", detached, detached_size);
    free(attached);
}

/* Issend must not complete while the receiver has not posted the receive. */
static void test_synchronous_waits(int* sbuf, int* rbuf)
{
    const int counts[] = {0, 1, 1 << 18};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k], tag = 600 + (int)k, flag = 0, early = 0;
        MPI_Request sreq, go_req;
        MPI_Status st;
        fill(sbuf, n, (uint32_t)(rank + tag));
        CHECK_MPI(MPI_Issend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
        /* the receiver is in this same loop, and posts its receive only after our "go" */
        for (int i = 0; i < 40; i++) {
            CHECK_MPI(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                early = 1;
                break;
            }
            sleep_ms(1);
        }
        CHECK(!early, "Issend of %d ints completed before the receive was posted", n);
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, tag, ctrl, &go_req));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, prev, tag, ctrl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, prev, tag, MPI_INT, n);
        int bad = first_bad(rbuf, n, (uint32_t)(prev + tag));
        CHECK(bad == n, "Issend of %d ints: element %d differs", n, bad);
        /* now the receive is posted: the Issend completes */
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
        CHECK(sreq == MPI_REQUEST_NULL, "completed Issend request not set to null");
        CHECK_MPI(MPI_Wait(&go_req, MPI_STATUS_IGNORE));
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

    int* sbuf = mpitest_malloc(sizeof(int) * ((1 << 18) + 1));
    int* rbuf = mpitest_malloc(sizeof(int) * ((1 << 18) + 1));

    /* Bsend in the pre-posted test needs a buffer for one message of up to 1 MB */
    int bsize = (1 << 18) * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char* bbuf = mpitest_malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
    test_modes_preposted(sbuf, rbuf);
    void* detached;
    int dsize;
    CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
    free(bbuf);

    test_buffered_local(sbuf, rbuf);
    test_synchronous_waits(sbuf, rbuf);

    free(sbuf);
    free(rbuf);
    CHECK_MPI(MPI_Comm_free(&ctrl));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
