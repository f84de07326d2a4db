/* Nonblocking point-to-point in a ring (rank -> rank+1):
 * - Isend/Irecv with the receive posted before or after the send, waited in either order,
 *   small (eager) and 1 MB (rendezvous);
 * - sends to self in both orders, and self with one side blocking;
 * - every completion call: Wait, Test, Waitall, Testall, Waitany, Testany, Waitsome, Testsome,
 *   with MPI_REQUEST_NULL entries, real and ignored statuses, all-null and empty arrays;
 * - MPI_Request_get_status (does not free the request);
 * - MPI_Request_free of an active send request: the message is still delivered. */
#include "mpitest.h"

static int rank, size, next, prev;
static MPI_Comm ctrl; /* coordination messages only */

static void check_empty_status(const MPI_Status* st, const char* what)
{
    int n = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE, "%s: empty status source %d", what, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: empty status tag %d", what, st->MPI_TAG);
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == 0, "%s: empty status count %d", what, n);
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

/* A: receive posted before/after the send is issued; waits in either order. */
static void test_orders(int* sbuf, int* rbuf)
{
    const int counts[] = {1, 1 << 18};
    int tag = 10;
    for (int k = 0; k < 2; k++) {
        for (int preposted = 0; preposted < 2; preposted++) {
            for (int recv_first = 0; recv_first < 2; recv_first++, tag++) {
                int n = counts[k];
                MPI_Request sreq, rreq, creq;
                MPI_Status st;
                fill(sbuf, n, (uint32_t)(rank * 31 + tag));
                rbuf[0] = rbuf[n - 1] = -1;
                if (preposted) {
                    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq));
                    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &creq));
                    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
                } else {
                    CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
                    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, tag, ctrl, &creq));
                    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, prev, tag, ctrl, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq));
                }
                if (recv_first) {
                    CHECK_MPI(MPI_Wait(&rreq, &st));
                    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
                } else {
                    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Wait(&rreq, &st));
                }
                CHECK(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL,
                      "Wait did not set the requests to MPI_REQUEST_NULL");
                CHECK_STATUS(st, prev, tag, MPI_INT, n);
                int bad = first_bad(rbuf, n, (uint32_t)(prev * 31 + tag));
                CHECK(bad == n, "%d ints, %s, wait %s first: element %d differs", n,
                      preposted ? "receive first" : "send first", recv_first ? "recv" : "send",
                      bad);
                CHECK_MPI(MPI_Wait(&creq, MPI_STATUS_IGNORE));
            }
        }
    }
}

/* B: messages to self. */
static void test_self(int* sbuf, int* rbuf)
{
    const int counts[] = {0, 1, 1 << 18};
    for (int k = 0; k < 3; k++) {
        int n = counts[k];
        for (int order = 0; order < 4; order++) {
            int tag = 100 + k * 4 + order;
            MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
            MPI_Status st;
            fill(sbuf, n, (uint32_t)tag);
            memset(rbuf, 0, sizeof(int) * (size_t)(n + 1));
            switch (order) {
            case 0: /* Isend then Irecv */
                CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, rank, tag, MPI_COMM_WORLD, &sreq));
                CHECK_MPI(MPI_Irecv(rbuf, n + 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &rreq));
                CHECK_MPI(MPI_Wait(&rreq, &st));
                break;
            case 1: /* Irecv then Isend */
                CHECK_MPI(MPI_Irecv(rbuf, n + 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD,
                                    &rreq));
                CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, rank, tag, MPI_COMM_WORLD, &sreq));
                CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Wait(&rreq, &st));
                break;
            case 2: /* Irecv then blocking Send */
                CHECK_MPI(MPI_Irecv(rbuf, n + 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD,
                                    &rreq));
                CHECK_MPI(MPI_Send(sbuf, n, MPI_INT, rank, tag, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Wait(&rreq, &st));
                break;
            default: /* Isend then blocking Recv */
                CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, rank, tag, MPI_COMM_WORLD, &sreq));
                CHECK_MPI(MPI_Recv(rbuf, n + 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &st));
                break;
            }
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            CHECK_STATUS(st, rank, tag, MPI_INT, n);
            int bad = first_bad(rbuf, n, (uint32_t)tag);
            CHECK(bad == n && rbuf[n] == 0, "self message of %d ints, order %d: element %d", n,
                  order, bad);
        }
    }
}

enum which {
    W_WAIT, W_TEST, W_WAITALL, W_TESTALL, W_WAITANY, W_TESTANY, W_WAITSOME, W_TESTSOME, W_COUNT
};
static const char* which_name[W_COUNT] = {"Wait",    "Test",    "Waitall",  "Testall",
                                          "Waitany", "Testany", "Waitsome", "Testsome"};

/* C: K receives in an array of N entries with MPI_REQUEST_NULL in between, completed by one
 * completion call; the sender sends in reverse tag order. */
static void test_completion(enum which w, int ignore_status, int tag0)
{
    enum { N = 9, K = 6 };
    const int real[K] = {1, 2, 4, 5, 6, 8}; /* entries 0, 3 and 7 are MPI_REQUEST_NULL */
    MPI_Request req[N], sreq[K];
    MPI_Status st[N];
    int in[N], out[K], done[N];
    const char* name = which_name[w];

    for (int i = 0; i < N; i++) {
        req[i] = MPI_REQUEST_NULL;
        in[i] = -1;
        done[i] = 0;
        st[i].MPI_SOURCE = st[i].MPI_TAG = -7;
    }
    for (int j = 0; j < K; j++) {
        int i = real[j];
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, prev, tag0 + i, MPI_COMM_WORLD, &req[i]));
    }
    for (int j = K - 1; j >= 0; j--) {
        out[j] = rank * 1000 + tag0 + real[j];
        CHECK_MPI(MPI_Isend(&out[j], 1, MPI_INT, next, tag0 + real[j], MPI_COMM_WORLD, &sreq[j]));
    }

    MPI_Status* sts = ignore_status ? MPI_STATUSES_IGNORE : st;
    int ncompleted = 0, flag = 0, idx = -1, outcount = -1, indices[N], spins = 0;
    switch (w) {
    case W_WAIT:
        for (int i = 0; i < N; i++) {
            CHECK_MPI(MPI_Wait(&req[i], ignore_status ? MPI_STATUS_IGNORE : &st[i]));
            done[i]++;
        }
        break;
    case W_TEST:
        for (int i = 0; i < N; i++) {
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Test(&req[i], &flag, ignore_status ? MPI_STATUS_IGNORE : &st[i]));
            done[i]++;
        }
        break;
    case W_WAITALL:
        CHECK_MPI(MPI_Waitall(N, req, sts));
        for (int i = 0; i < N; i++) done[i]++;
        break;
    case W_TESTALL:
        while (!flag) {
            CHECK_MPI(MPI_Testall(N, req, &flag, sts));
            spins++;
        }
        for (int i = 0; i < N; i++) done[i]++;
        break;
    case W_WAITANY:
    case W_TESTANY:
        while (ncompleted < K) {
            MPI_Status one;
            idx = -1;
            if (w == W_WAITANY) {
                CHECK_MPI(MPI_Waitany(N, req, &idx, ignore_status ? MPI_STATUS_IGNORE : &one));
                flag = 1;
            } else {
                CHECK_MPI(MPI_Testany(N, req, &idx, &flag, ignore_status ? MPI_STATUS_IGNORE : &one));
            }
            if (!flag) {
                CHECK(idx == MPI_UNDEFINED, "%s: flag false but index %d", name, idx);
                continue;
            }
            CHECK(idx >= 0 && idx < N, "%s returned index %d", name, idx);
            if (idx < 0 || idx >= N) break;
            CHECK(req[idx] == MPI_REQUEST_NULL, "%s: request %d not set to null", name, idx);
            done[idx]++;
            if (!ignore_status) st[idx] = one;
            ncompleted++;
        }
        /* everything is null now */
        idx = -1;
        flag = 0;
        if (w == W_WAITANY) {
            MPI_Status one;
            CHECK_MPI(MPI_Waitany(N, req, &idx, &one));
            check_empty_status(&one, "Waitany over null requests");
            flag = 1;
        } else {
            CHECK_MPI(MPI_Testany(N, req, &idx, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(flag && idx == MPI_UNDEFINED, "%s over null requests: flag %d index %d", name, flag,
              idx);
        for (int i = 0; i < N; i++)
            if (req[i] == MPI_REQUEST_NULL && !done[i]) done[i]++; /* the null entries */
        break;
    case W_WAITSOME:
    case W_TESTSOME:
        while (ncompleted < K) {
            MPI_Status some[N];
            outcount = -1;
            if (w == W_WAITSOME)
                CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, ignore_status ? MPI_STATUSES_IGNORE : some));
            else
                CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, ignore_status ? MPI_STATUSES_IGNORE : some));
            CHECK(outcount >= (w == W_WAITSOME ? 1 : 0) && outcount <= K - ncompleted,
                  "%s: outcount %d with %d pending", name, outcount, K - ncompleted);
            if (outcount < 0 || outcount > K - ncompleted) break;
            for (int j = 0; j < outcount; j++) {
                int i = indices[j];
                CHECK(i >= 0 && i < N, "%s index %d", name, i);
                if (i < 0 || i >= N) continue;
                done[i]++;
                if (!ignore_status) st[i] = some[j];
            }
            ncompleted += outcount;
        }
        outcount = -1;
        if (w == W_WAITSOME)
            CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, MPI_STATUSES_IGNORE));
        else
            CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
        CHECK(outcount == MPI_UNDEFINED, "%s over null requests: outcount %d", name, outcount);
        for (int i = 0; i < N; i++)
            if (req[i] == MPI_REQUEST_NULL && !done[i]) done[i]++;
        break;
    default: break;
    }

    for (int i = 0; i < N; i++) {
        int is_real = 0;
        for (int j = 0; j < K; j++) is_real |= real[j] == i;
        CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d not null afterwards", name, i);
        CHECK(done[i] == 1, "%s: entry %d completed %d times", name, i, done[i]);
        if (is_real) {
            CHECK(in[i] == prev * 1000 + tag0 + i, "%s: entry %d received %d", name, i, in[i]);
            if (!ignore_status) CHECK_STATUS(st[i], prev, tag0 + i, MPI_INT, 1);
        } else if (!ignore_status && (w == W_WAIT || w == W_TEST || w == W_WAITALL ||
                                      w == W_TESTALL)) {
            check_empty_status(&st[i], name); /* a null request gives an empty status */
        }
    }
    CHECK_MPI(MPI_Waitall(K, sreq, MPI_STATUSES_IGNORE));
}

/* Completion calls on empty and all-null arrays, and on a single MPI_REQUEST_NULL. */
static void test_null_and_empty(void)
{
    MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    int flag = 0, idx = -1, outcount = -1, indices[3];

    CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    check_empty_status(&st[0], "Wait(MPI_REQUEST_NULL)");
    CHECK_MPI(MPI_Test(&req[0], &flag, &st[0]));
    CHECK(flag, "Test(MPI_REQUEST_NULL) flag false");
    check_empty_status(&st[0], "Test(MPI_REQUEST_NULL)");
    CHECK_MPI(MPI_Waitall(3, req, st));
    for (int i = 0; i < 3; i++) check_empty_status(&st[i], "Waitall over nulls");
    flag = 0;
    CHECK_MPI(MPI_Testall(3, req, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "Testall over nulls: flag false");
    CHECK_MPI(MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "Waitany over nulls: index %d", idx);
    flag = 0;
    CHECK_MPI(MPI_Testany(3, req, &idx, &flag, &st[0]));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany over nulls: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Waitsome(3, req, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome over nulls: outcount %d", outcount);
    outcount = -1;
    CHECK_MPI(MPI_Testsome(3, req, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK(outcount == MPI_UNDEFINED, "Testsome over nulls: outcount %d", outcount);

    /* count 0 */
    CHECK_MPI(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    CHECK_MPI(MPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "Testall of 0 requests: flag false");
    idx = -1;
    CHECK_MPI(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "Waitany of 0 requests: index %d", idx);
    flag = 0;
    CHECK_MPI(MPI_Testany(0, NULL, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany of 0 requests: flag %d index %d", flag, idx);
    outcount = -1;
    CHECK_MPI(MPI_Waitsome(0, NULL, &outcount, NULL, MPI_STATUSES_IGNORE));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome of 0 requests: outcount %d", outcount);
}

/* D: Request_get_status reports completion without freeing the request. */
static void test_get_status(void)
{
    const int tag = 300;
    int in = -1, out = rank + 5, flag = 1;
    MPI_Request rreq, sreq, creq;
    MPI_Status st;

    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &rreq));
    /* nothing has been sent yet: not complete */
    CHECK_MPI(MPI_Request_get_status(rreq, &flag, &st));
    CHECK(!flag, "Request_get_status: complete before the message was sent");
    /* now let prev send; wait until next lets us send */
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &creq));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Request_get_status(rreq, &flag, &st));
    CHECK(rreq != MPI_REQUEST_NULL, "Request_get_status freed the request");
    CHECK_STATUS(st, prev, tag, MPI_INT, 1);
    CHECK(in == prev + 5, "after Request_get_status: received %d", in);
    /* asking again is fine; Wait then frees it and reports the same status */
    CHECK_MPI(MPI_Request_get_status(rreq, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Request_get_status: second call flag false");
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK_STATUS(st, prev, tag, MPI_INT, 1);
    CHECK(rreq == MPI_REQUEST_NULL, "Wait after get_status did not free the request");
    flag = 0;
    CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag, "Request_get_status(MPI_REQUEST_NULL): flag false");
    check_empty_status(&st, "Request_get_status(MPI_REQUEST_NULL)");
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&creq, MPI_STATUS_IGNORE));
}

/* E: Request_free of an active send; the receiver acknowledges before the buffer is reused. */
static void test_request_free_send(int* sbuf, int* rbuf)
{
    const int counts[] = {1, 1 << 18};
    for (int k = 0; k < 2; k++) {
        int n = counts[k], tag = 400 + k;
        MPI_Request sreq, areq;
        MPI_Status st;
        fill(sbuf, n, (uint32_t)(rank + tag));
        CHECK_MPI(MPI_Isend(sbuf, n, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
        CHECK_MPI(MPI_Request_free(&sreq));
        CHECK(sreq == MPI_REQUEST_NULL, "Request_free did not set the request to null");
        CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, prev, tag, MPI_INT, n);
        int bad = first_bad(rbuf, n, (uint32_t)(prev + tag));
        CHECK(bad == n, "message of %d ints after Request_free: element %d differs", n, bad);
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &areq));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&areq, MPI_STATUS_IGNORE));
    }
}

/* F: sends and receives mixed in one Waitsome array. */
static void test_mixed_waitsome(void)
{
    enum { M = 4 };
    MPI_Request req[2 * M];
    int in[M], out[M], done = 0, indices[2 * M], seen[2 * M] = {0};
    MPI_Status st[2 * M];
    for (int i = 0; i < M; i++) {
        out[i] = rank * 10 + i;
        CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, prev, 500 + i, MPI_COMM_WORLD, &req[2 * i]));
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, 500 + i, MPI_COMM_WORLD, &req[2 * i + 1]));
    }
    while (done < 2 * M) {
        int outcount = -1;
        CHECK_MPI(MPI_Waitsome(2 * M, req, &outcount, indices, st));
        CHECK(outcount >= 1 && outcount <= 2 * M - done, "mixed Waitsome outcount %d", outcount);
        if (outcount < 1 || outcount > 2 * M - done) break;
        for (int j = 0; j < outcount; j++) {
            int i = indices[j];
            if (i < 0 || i >= 2 * M) continue;
            seen[i]++;
            if (i % 2 == 0) CHECK_STATUS(st[j], prev, 500 + i / 2, MPI_INT, 1);
        }
        done += outcount;
    }
    for (int i = 0; i < 2 * M; i++) CHECK(seen[i] == 1, "mixed Waitsome: entry %d seen %d times", i, seen[i]);
    for (int i = 0; i < M; i++) CHECK(in[i] == prev * 10 + i, "mixed Waitsome: in[%d] = %d", i, in[i]);
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

    test_orders(sbuf, rbuf);
    test_self(sbuf, rbuf);
    test_null_and_empty();
    for (int w = 0; w < W_COUNT; w++)
        for (int ignore = 0; ignore < 2; ignore++)
            test_completion((enum which)w, ignore, 1000 + (w * 2 + ignore) * 16);
    test_get_status();
    test_request_free_send(sbuf, rbuf);
    test_mixed_waitsome();

    free(sbuf);
    free(rbuf);
    CHECK_MPI(MPI_Comm_free(&ctrl));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
