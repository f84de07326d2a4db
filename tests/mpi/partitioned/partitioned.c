/* Partitioned point-to-point communication (MPI-4.1 chapter 4): MPI_Psend_init / MPI_Precv_init
 * (and the _c forms), MPI_Pready / _range / _list, MPI_Parrived, started with MPI_Start(all) and
 * completed with the ordinary completion calls.
 *
 * Ranks pair up (r with r ^ 1; a single rank pairs with itself) and both send to and receive from
 * their partner at once, so a hello and a reply of the two directions travel side by side on the
 * same (communicator, peer, tag).
 */
#include <string.h>

#include "mpitest.h"

static int rank, size, partner;
static MPI_Comm sync_comm; /* zero-byte handshakes that must not meet the tested traffic */

static void sync_partner(void)
{
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, partner, 0, NULL, 0, MPI_INT, partner, 0, sync_comm, MPI_STATUS_IGNORE));
}

static int value(int iter, int from, int i)
{
    return (int)(mpitest_value((size_t)i, (uint32_t)(iter * 131 + from)) & 0xffffff);
}

static void fill(int* buf, int n, int iter, int from)
{
    for (int i = 0; i < n; i++) buf[i] = value(iter, from, i);
}

/* Index of the first wrong element, or -1. */
static int first_bad(const int* buf, int lo, int hi, int iter, int from)
{
    for (int i = lo; i < hi; i++)
        if (buf[i] != value(iter, from, i)) return i;
    return -1;
}

static void clear(int* buf, int n)
{
    for (int i = 0; i < n; i++) buf[i] = -1;
}

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

#define CHECK_CLASS(call, expected)                                                                     \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        CHECK(rc_ != MPI_SUCCESS && error_class(rc_) == (expected), "%s returned class %d, expected %d", \
              #call, rc_ == MPI_SUCCESS ? 0 : error_class(rc_), (expected));                            \
    } while (0)

/* Marks every partition of a started send ready in an order chosen by `mode`. */
static void mark_all(MPI_Request req, int parts, int mode, int iter)
{
    static int order[8192];
    if (parts > 8192) {
        CHECK(0, "mark_all handles at most 8192 partitions, not %d", parts);
        return;
    }
    switch (mode % 5) {
        case 0:
            for (int p = 0; p < parts; p++) CHECK_MPI(MPI_Pready(p, req));
            break;
        case 1:
            for (int p = parts - 1; p >= 0; p--) CHECK_MPI(MPI_Pready(p, req));
            break;
        case 2: /* a pseudo-random permutation */
            for (int p = 0; p < parts; p++) order[p] = p;
            for (int p = parts - 1; p > 0; p--) {
                int q = (int)(mpitest_value((size_t)p, (uint32_t)iter) % (uint32_t)(p + 1));
                int t = order[p];
                order[p] = order[q];
                order[q] = t;
            }
            for (int p = 0; p < parts; p++) CHECK_MPI(MPI_Pready(order[p], req));
            break;
        case 3: /* upper half first, as ranges */
            if (parts / 2 < parts) CHECK_MPI(MPI_Pready_range(parts / 2, parts - 1, req));
            if (parts / 2 > 0) CHECK_MPI(MPI_Pready_range(0, parts / 2 - 1, req));
            break;
        default: /* odd partitions, then even ones, as lists */
        {
            int n = 0;
            for (int p = 1; p < parts; p += 2) order[n++] = p;
            CHECK_MPI(MPI_Pready_list(n, order, req));
            n = 0;
            for (int p = 0; p < parts; p += 2) order[n++] = p;
            CHECK_MPI(MPI_Pready_list(n, order, req));
            break;
        }
    }
}

/* 1. One pair started many times, new data each start, every ready order. */
static void test_repeat(void)
{
    enum { P = 8, C = 16, N = P * C, ITERS = 15 };
    int sbuf[N] = {0}, rbuf[N] = {0};
    MPI_Request sreq, rreq;
    CHECK_MPI(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (int it = 0; it < ITERS; it++) {
        fill(sbuf, N, it, rank);
        clear(rbuf, N);
        if (it % 2) {
            CHECK_MPI(MPI_Start(&rreq));
            CHECK_MPI(MPI_Start(&sreq));
        } else {
            CHECK_MPI(MPI_Start(&sreq));
            CHECK_MPI(MPI_Start(&rreq));
        }
        mark_all(sreq, P, it, it);
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&rreq, &st));
        CHECK_STATUS(st, partner, 1, MPI_INT, N);
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        int bad = first_bad(rbuf, 0, N, it, partner);
        CHECK(bad < 0, "start %d: element %d is %d, expected %d", it, bad, bad < 0 ? 0 : rbuf[bad],
              bad < 0 ? 0 : value(it, partner, bad));
        CHECK(sreq != MPI_REQUEST_NULL && rreq != MPI_REQUEST_NULL, "persistent requests stay after Wait");
    }
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
    CHECK(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL, "Request_free sets MPI_REQUEST_NULL");
}

/* 2. MPI_Parrived polling: a partition reported arrived holds its data; the loop ends; Wait
 * follows. The sender marks partitions one at a time and polls in between. */
static void test_parrived(void)
{
    enum { P = 16, C = 64, N = P * C, ITERS = 4 };
    int* sbuf = mpitest_malloc(N * sizeof(int));
    int* rbuf = mpitest_malloc(N * sizeof(int));
    MPI_Request sreq, rreq;
    CHECK_MPI(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    int flag = 0;
    CHECK_MPI(MPI_Parrived(rreq, 3, &flag)); /* inactive: true */
    CHECK(flag == 1, "MPI_Parrived on an inactive request gives %d, expected true", flag);
    flag = 0;
    CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    CHECK(flag == 1, "MPI_Parrived on MPI_REQUEST_NULL gives %d, expected true", flag);
    for (int it = 0; it < ITERS; it++) {
        fill(sbuf, N, it + 100, rank);
        clear(rbuf, N);
        CHECK_MPI(MPI_Start(&rreq));
        CHECK_MPI(MPI_Start(&sreq));
        int seen[P];
        int nseen = 0, next_ready = 0;
        const double t0 = MPI_Wtime();
        memset(seen, 0, sizeof seen);
        while (nseen < P || next_ready < P) {
            if (next_ready < P) { /* reverse order on odd starts */
                int p = it % 2 ? P - 1 - next_ready : next_ready;
                CHECK_MPI(MPI_Pready(p, sreq));
                next_ready++;
            }
            for (int p = 0; p < P; p++) {
                if (seen[p]) continue;
                flag = 0;
                CHECK_MPI(MPI_Parrived(rreq, p, &flag));
                if (!flag) continue;
                seen[p] = 1;
                nseen++;
                int bad = first_bad(rbuf, p * C, (p + 1) * C, it + 100, partner);
                CHECK(bad < 0, "start %d: partition %d reported arrived but element %d is %d", it, p, bad,
                      bad < 0 ? 0 : rbuf[bad]);
            }
            if (MPI_Wtime() - t0 > 20) {
                CHECK(0, "MPI_Parrived never reported every partition (%d of %d)", nseen, P);
                break;
            }
        }
        /* Arrived partitions stay arrived until the request completes. */
        for (int p = 0; p < P; p++) {
            flag = 0;
            CHECK_MPI(MPI_Parrived(rreq, p, &flag));
            CHECK(flag == 1, "partition %d no longer arrived", p);
        }
        MPI_Request both[2] = {sreq, rreq};
        CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        sreq = both[0];
        rreq = both[1];
        CHECK(first_bad(rbuf, 0, N, it + 100, partner) < 0, "start %d: data wrong after Waitall", it);
    }
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
}

/* 3. Different partitionings at the two ends (equal totals), derived types, _c forms, and
 * Parrived on receiver partitions. */
static void test_repartition(void)
{
    static const int shapes[][4] = {/* send partitions, send count, recv partitions, recv count (ints) */
                                    {4, 12, 6, 8},
                                    {3, 16, 16, 3},
                                    {1, 48, 48, 1},
                                    {48, 1, 2, 24},
                                    {6, 8, 4, 12}};
    enum { N = 48 };
    int sbuf[N], rbuf[N];
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
        const int sp = shapes[s][0], sc = shapes[s][1], rp = shapes[s][2], rc = shapes[s][3];
        MPI_Request sreq, rreq;
        CHECK_MPI(MPI_Psend_init_c(sbuf, sp, sc, MPI_INT, partner, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
        CHECK_MPI(MPI_Precv_init_c(rbuf, rp, rc, MPI_INT, partner, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
        for (int it = 0; it < 3; it++) {
            fill(sbuf, N, 200 + s * 10 + it, rank);
            clear(rbuf, N);
            CHECK_MPI(MPI_Startall(1, &rreq));
            CHECK_MPI(MPI_Startall(1, &sreq));
            mark_all(sreq, sp, it + s, it);
            int all = 0;
            while (!all) {
                all = 1;
                for (int p = 0; p < rp; p++) {
                    int flag = 0;
                    CHECK_MPI(MPI_Parrived(rreq, p, &flag));
                    if (!flag) {
                        all = 0;
                        continue;
                    }
                    int bad = first_bad(rbuf, p * rc, (p + 1) * rc, 200 + s * 10 + it, partner);
                    CHECK(bad < 0, "shape %d: receive partition %d arrived, element %d wrong", s, p, bad);
                }
            }
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&rreq, &st));
            CHECK_STATUS(st, partner, 3, MPI_INT, N);
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            int bad = first_bad(rbuf, 0, N, 200 + s * 10 + it, partner);
            CHECK(bad < 0, "shape %d (%dx%d -> %dx%d) start %d: element %d wrong", s, sp, sc, rp, rc, it, bad);
        }
        CHECK_MPI(MPI_Request_free(&sreq));
        CHECK_MPI(MPI_Request_free(&rreq));
    }

    /* A vector type (every other int) at the sender, MPI_INT at the receiver. */
    enum { SP = 4, SC = 3, M = SP * SC };
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &strided));
    MPI_Datatype strided2;
    CHECK_MPI(MPI_Type_create_resized(strided, 0, 2 * (MPI_Aint)sizeof(int), &strided2));
    CHECK_MPI(MPI_Type_commit(&strided2));
    int wide[2 * M], narrow[M];
    MPI_Request sreq, rreq;
    CHECK_MPI(MPI_Psend_init(wide, SP, SC, strided2, partner, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(narrow, 2, M / 2, MPI_INT, partner, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    CHECK_MPI(MPI_Type_free(&strided));
    CHECK_MPI(MPI_Type_free(&strided2)); /* the requests keep the type */
    for (int it = 0; it < 2; it++) {
        for (int i = 0; i < M; i++) {
            wide[2 * i] = value(300 + it, rank, i);
            wide[2 * i + 1] = -7;
        }
        clear(narrow, M);
        CHECK_MPI(MPI_Start(&rreq));
        CHECK_MPI(MPI_Start(&sreq));
        mark_all(sreq, SP, 1, it);
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        int bad = first_bad(narrow, 0, M, 300 + it, partner);
        CHECK(bad < 0, "strided send start %d: element %d is %d", it, bad, bad < 0 ? 0 : narrow[bad]);
    }
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
}

/* 4. Startall over partitioned requests and ordinary persistent point-to-point on the same tag. */
static void test_startall_mixed(void)
{
    enum { P = 4, C = 8, N = P * C };
    int ps[N], pr[N], os[N], orv[N];
    MPI_Request reqs[4];
    CHECK_MPI(MPI_Send_init(os, N, MPI_INT, partner, 5, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Psend_init(ps, P, C, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    CHECK_MPI(MPI_Precv_init(pr, P, C, MPI_INT, partner, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    CHECK_MPI(MPI_Recv_init(orv, N, MPI_INT, partner, 5, MPI_COMM_WORLD, &reqs[3]));
    for (int it = 0; it < 5; it++) {
        fill(ps, N, 400 + it, rank);
        fill(os, N, 450 + it, rank);
        clear(pr, N);
        clear(orv, N);
        CHECK_MPI(MPI_Startall(4, reqs));
        mark_all(reqs[1], P, it, it);
        if (it % 2) {
            CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        } else {
            int done = 0;
            while (done < 4) {
                int idx = -1;
                MPI_Status st;
                CHECK_MPI(MPI_Waitany(4, reqs, &idx, &st));
                if (idx == MPI_UNDEFINED) break;
                done++;
            }
            CHECK(done == 4, "Waitany completed %d of 4", done);
        }
        CHECK(first_bad(pr, 0, N, 400 + it, partner) < 0, "start %d: partitioned data wrong", it);
        CHECK(first_bad(orv, 0, N, 450 + it, partner) < 0, "start %d: ordinary persistent data wrong", it);
    }
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&reqs[i]));
}

/* 5. Two partitioned pairs on the same (comm, peer, tag) match in init order, whatever the start
 * order; on a duplicated communicator, beside the same pairs on MPI_COMM_WORLD. */
static void test_init_order(void)
{
    enum { P = 4, C = 4, N = P * C };
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int sa[N], sb[N], ra[N], rb[N], sw[N], rw[N];
    MPI_Request a, b, rqa, rqb, w, rw_req;
    CHECK_MPI(MPI_Psend_init(sa, P, C, MPI_INT, partner, 6, dup, MPI_INFO_NULL, &a));
    CHECK_MPI(MPI_Precv_init(ra, P, C, MPI_INT, partner, 6, dup, MPI_INFO_NULL, &rqa));
    CHECK_MPI(MPI_Psend_init(sw, P, C, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &w));
    CHECK_MPI(MPI_Psend_init(sb, P, C, MPI_INT, partner, 6, dup, MPI_INFO_NULL, &b));
    CHECK_MPI(MPI_Precv_init(rw, P, C, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &rw_req));
    CHECK_MPI(MPI_Precv_init(rb, P, C, MPI_INT, partner, 6, dup, MPI_INFO_NULL, &rqb));
    for (int it = 0; it < 6; it++) {
        fill(sa, N, 500 + it, rank);
        fill(sb, N, 550 + it, rank);
        fill(sw, N, 580 + it, rank);
        clear(ra, N);
        clear(rb, N);
        clear(rw, N);
        CHECK_MPI(MPI_Start(&w));
        CHECK_MPI(MPI_Start(&rw_req));
        if (it % 3 < 2) {
            /* one pair entirely before the other: a first (it % 3 == 0) or b first */
            MPI_Request first[2] = {it % 3 ? b : a, it % 3 ? rqb : rqa};
            MPI_Request second[2] = {it % 3 ? a : b, it % 3 ? rqa : rqb};
            CHECK_MPI(MPI_Startall(2, first));
            CHECK_MPI(MPI_Pready_range(0, P - 1, first[0]));
            CHECK_MPI(MPI_Waitall(2, first, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Startall(2, second));
            CHECK_MPI(MPI_Pready_range(0, P - 1, second[0]));
            CHECK_MPI(MPI_Waitall(2, second, MPI_STATUSES_IGNORE));
        } else {
            /* both receives active, the second send alone goes: only the second receive completes */
            MPI_Request recvs[2] = {rqa, rqb};
            CHECK_MPI(MPI_Startall(2, recvs));
            CHECK_MPI(MPI_Start(&b));
            CHECK_MPI(MPI_Pready_range(0, P - 1, b));
            int fa = 0, fb = 0;
            const double t0 = MPI_Wtime();
            while (!fb && !fa && MPI_Wtime() - t0 < 20) {
                CHECK_MPI(MPI_Request_get_status(rqb, &fb, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Request_get_status(rqa, &fa, MPI_STATUS_IGNORE));
            }
            CHECK(fb && !fa, "start %d: the second send completed %s", it,
                  fa ? "the first receive" : "no receive");
            for (int p = 0; p < P; p++) {
                int flag = 1;
                CHECK_MPI(MPI_Parrived(rqa, p, &flag));
                CHECK(!flag, "start %d: partition %d of the first receive arrived before the first send started",
                      it, p);
            }
            CHECK_MPI(MPI_Wait(&b, MPI_STATUS_IGNORE));
            sync_partner(); /* both ends checked before the first sends start */
            CHECK_MPI(MPI_Start(&a));
            CHECK_MPI(MPI_Pready_range(0, P - 1, a));
            MPI_Request rest[3] = {a, rqa, rqb};
            CHECK_MPI(MPI_Waitall(3, rest, MPI_STATUSES_IGNORE));
        }
        CHECK_MPI(MPI_Pready_range(0, P - 1, w));
        CHECK_MPI(MPI_Wait(&w, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&rw_req, MPI_STATUS_IGNORE));
        CHECK(first_bad(ra, 0, N, 500 + it, partner) < 0, "start %d: the first receive did not get the first send", it);
        CHECK(first_bad(rb, 0, N, 550 + it, partner) < 0, "start %d: the second receive did not get the second send",
              it);
        CHECK(first_bad(rw, 0, N, 580 + it, partner) < 0, "start %d: MPI_COMM_WORLD pair got wrong data", it);
    }
    MPI_Request all[6] = {a, b, rqa, rqb, w, rw_req};
    for (int i = 0; i < 6; i++) CHECK_MPI(MPI_Request_free(&all[i]));
    CHECK_MPI(MPI_Comm_free(&dup));
}

/* 6. Partitioned traffic never matches ordinary sends and receives on the same tag, not even an
 * MPI_ANY_SOURCE / MPI_ANY_TAG receive, and leaves nothing for a probe. */
static void test_no_cross_match(void)
{
    enum { P = 2, C = 8, N = P * C };
    int ps[N], pr[N], os[N], orv[N], anyv[N];
    MPI_Request sreq, rreq, oreq, ireq, anyreq;
    /* the ordinary receives are posted before any partitioned traffic exists */
    CHECK_MPI(MPI_Irecv(anyv, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &anyreq));
    CHECK_MPI(MPI_Irecv(orv, N, MPI_INT, partner, 7, MPI_COMM_WORLD, &ireq));
    CHECK_MPI(MPI_Psend_init(ps, P, C, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(pr, P, C, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    fill(ps, N, 600, rank);
    fill(os, N, 650, rank);
    clear(pr, N);
    clear(orv, N);
    clear(anyv, N);
    CHECK_MPI(MPI_Start(&sreq));
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Pready_range(0, P - 1, sreq));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(first_bad(pr, 0, N, 600, partner) < 0, "partitioned receive got other data");
    int flag = 1;
    MPI_Status st;
    CHECK_MPI(MPI_Test(&anyreq, &flag, &st));
    CHECK(!flag, "an MPI_ANY_SOURCE/MPI_ANY_TAG receive matched partitioned traffic (source %d, tag %d, error %d)",
          flag ? st.MPI_SOURCE : 0, flag ? st.MPI_TAG : 0, flag ? st.MPI_ERROR : 0);
    CHECK_MPI(MPI_Test(&ireq, &flag, &st));
    CHECK(!flag, "an ordinary receive on the same tag matched partitioned traffic");
    sync_partner(); /* both ends tested before any ordinary message leaves */
    /* now the ordinary messages: the first goes to the wildcard receive (posted first) */
    CHECK_MPI(MPI_Isend(os, N, MPI_INT, partner, 7, MPI_COMM_WORLD, &oreq));
    CHECK_MPI(MPI_Wait(&anyreq, &st));
    CHECK_STATUS(st, partner, 7, MPI_INT, N);
    CHECK(first_bad(anyv, 0, N, 650, partner) < 0, "wildcard receive got wrong data");
    CHECK_MPI(MPI_Wait(&oreq, MPI_STATUS_IGNORE));
    fill(os, N, 660, rank);
    CHECK_MPI(MPI_Send(os, N, MPI_INT, partner, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&ireq, &st));
    CHECK_STATUS(st, partner, 7, MPI_INT, N);
    CHECK(first_bad(orv, 0, N, 660, partner) < 0, "ordinary receive got wrong data");
    /* an ordinary message on the tag does not complete a partitioned receive either */
    clear(pr, N);
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Isend(os, N, MPI_INT, partner, 7, MPI_COMM_WORLD, &oreq));
    CHECK_MPI(MPI_Wait(&oreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(orv, N, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100; i++) CHECK_MPI(MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a partitioned receive completed without its partitioned send");
    sync_partner(); /* the partner starts its partitioned send only once this rank has tested */
    fill(ps, N, 670, rank);
    CHECK_MPI(MPI_Start(&sreq));
    CHECK_MPI(MPI_Pready_range(0, P - 1, sreq));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(first_bad(pr, 0, N, 670, partner) < 0, "partitioned data wrong after ordinary traffic");
    /* nothing is left over for a probe */
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, partner, 8, NULL, 0, MPI_INT, partner, 8, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a probe found a message (source %d, tag %d) after partitioned traffic", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
}

/* 7. MPI_PROC_NULL: complete at once, Parrived true, empty status. */
static void test_proc_null(void)
{
    int buf[8];
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int it = 0; it < 2; it++) {
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        int flag = 0;
        CHECK_MPI(MPI_Parrived(r, 2, &flag));
        CHECK(flag, "MPI_Parrived on a MPI_PROC_NULL receive is false");
        CHECK_MPI(MPI_Pready_range(0, 3, s));
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
}

/* 8. Request_free: pairs freed before any start (either end first) keep later pairs on the same
 * tag matched right; a freed active request is refused. */
static void test_free(void)
{
    enum { P = 2, C = 4, N = P * C };
    int sbuf[N], rbuf[N];
    MPI_Request s, r;
    for (int round = 0; round < 3; round++) {
        CHECK_MPI(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
        CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        CHECK_MPI(MPI_Request_free(&s));
        CHECK_MPI(MPI_Request_free(&r));
    }
    CHECK_MPI(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    fill(sbuf, N, 700, rank);
    clear(rbuf, N);
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Start(&r));
    CHECK_CLASS(MPI_Request_free(&s), MPI_ERR_REQUEST);
    CHECK(s != MPI_REQUEST_NULL, "a refused Request_free cleared the handle");
    CHECK_MPI(MPI_Pready_range(0, P - 1, s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(first_bad(rbuf, 0, N, 700, partner) < 0, "the pair after freed pairs got wrong data");
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
}

/* 9. Large partitions (rendezvous), zero-size messages, and many partitions. */
static void test_sizes(void)
{
    /* 4 x 256 KiB */
    enum { LP = 4, LC = 64 * 1024, LN = LP * LC };
    int* sbuf = mpitest_malloc(LN * sizeof(int));
    int* rbuf = mpitest_malloc(LN * sizeof(int));
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sbuf, LP, LC, MPI_INT, partner, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, LP, LC, MPI_INT, partner, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int it = 0; it < 3; it++) {
        fill(sbuf, LN, 800 + it, rank);
        clear(rbuf, LN);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        mark_all(s, LP, it + 1, it);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int bad = first_bad(rbuf, 0, LN, 800 + it, partner);
        CHECK(bad < 0, "large start %d: element %d wrong", it, bad);
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));

    /* zero partitions, and partitions of zero elements */
    for (int z = 0; z < 2; z++) {
        int parts = z ? 3 : 0, cnt = z ? 0 : 5;
        CHECK_MPI(MPI_Psend_init(sbuf, parts, cnt, MPI_INT, partner, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
        CHECK_MPI(MPI_Precv_init(rbuf, parts, cnt, MPI_INT, partner, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        for (int it = 0; it < 2; it++) {
            CHECK_MPI(MPI_Start(&s));
            CHECK_MPI(MPI_Start(&r));
            if (parts) CHECK_MPI(MPI_Pready_range(0, parts - 1, s));
            MPI_Status st;
            CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&r, &st));
            CHECK_STATUS(st, partner, 12, MPI_INT, 0);
        }
        CHECK_MPI(MPI_Request_free(&s));
        CHECK_MPI(MPI_Request_free(&r));
    }

    /* 5000 partitions of one int (more partitions than messages per start) */
    enum { MP = 5000 };
    CHECK_MPI(MPI_Psend_init(sbuf, MP, 1, MPI_INT, partner, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, MP / 2, 2, MPI_INT, partner, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int it = 0; it < 2; it++) {
        fill(sbuf, MP, 900 + it, rank);
        clear(rbuf, MP);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Start(&s));
        mark_all(s, MP, it + 1, it);
        int left = MP / 2;
        const double t0 = MPI_Wtime();
        while (left > 0 && MPI_Wtime() - t0 < 20) {
            left = 0;
            for (int p = 0; p < MP / 2; p++) {
                int flag = 0;
                CHECK_MPI(MPI_Parrived(r, p, &flag));
                if (!flag) left++;
                else if (first_bad(rbuf, 2 * p, 2 * p + 2, 900 + it, partner) >= 0)
                    CHECK(0, "partition %d arrived with wrong data", p);
            }
        }
        CHECK(left == 0, "%d partitions never arrived", left);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(first_bad(rbuf, 0, MP, 900 + it, partner) < 0, "many partitions start %d: data wrong", it);
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
    free(sbuf);
    free(rbuf);
}

/* 10. Every error, each with MPI_ERRORS_RETURN; the requests keep working afterwards. */
static void test_errors(void)
{
    enum { P = 4, C = 2, N = P * C };
    int sbuf[N], rbuf[N];
    MPI_Request s = MPI_REQUEST_NULL, r = MPI_REQUEST_NULL, x = MPI_REQUEST_NULL;
    /* init arguments */
    CHECK_CLASS(MPI_Psend_init(sbuf, -1, C, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Precv_init(rbuf, -3, C, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, -1, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Precv_init_c(rbuf, P, -1, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_INT, size, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(rbuf, P, C, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(rbuf, P, C, MPI_INT, -7, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_TAG);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, -4, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_TAG);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_DATATYPE_NULL, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x),
                MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 20, MPI_COMM_NULL, MPI_INFO_NULL, &x), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Psend_init(NULL, P, C, MPI_INT, partner, 20, MPI_COMM_WORLD, MPI_INFO_NULL, &x), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Psend_init_c(sbuf, 1 << 30, (MPI_Count)1 << 40, MPI_INT, partner, 20, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &x),
                MPI_ERR_COUNT);
    CHECK(x == MPI_REQUEST_NULL, "a refused init gave a request");

    /* a working pair, with an info object */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "some_hint", "1"));
    CHECK_MPI(MPI_Psend_init(sbuf, P, C, MPI_INT, partner, 20, MPI_COMM_WORLD, info, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 20, MPI_COMM_WORLD, info, &r));
    CHECK_MPI(MPI_Info_free(&info));

    /* calls on an inactive request */
    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Pready_range(0, 1, s), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    /* wrong side */
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
    int flag = 0;
    CHECK_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST);
    /* not partitioned */
    MPI_Request ord;
    CHECK_MPI(MPI_Send_init(sbuf, N, MPI_INT, partner, 21, MPI_COMM_WORLD, &ord));
    CHECK_CLASS(MPI_Pready(0, ord), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Parrived(ord, 0, &flag), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Request_free(&ord));
    /* partitioned requests are matched at init: MPI_Match (queued communication) refuses them */
    CHECK_CLASS(MPI_Match(&s), MPI_ERR_REQUEST);

    fill(sbuf, N, 1000, rank);
    clear(rbuf, N);
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Start(&r));
    CHECK_CLASS(MPI_Start(&s), MPI_ERR_REQUEST); /* already active */
    CHECK_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Parrived(r, P, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Parrived(r, -1, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Parrived(r, 0, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(P, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(2, 1, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(2, P, s), MPI_ERR_ARG); /* marks nothing */
    int dup_list[3] = {3, 1, 3};
    CHECK_CLASS(MPI_Pready_list(3, dup_list, s), MPI_ERR_ARG); /* marks nothing */
    CHECK_CLASS(MPI_Pready_list(-1, dup_list, s), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_list(2, NULL, s), MPI_ERR_ARG);
    CHECK_MPI(MPI_Pready_list(0, NULL, s));
    CHECK_MPI(MPI_Pready(1, s));
    CHECK_CLASS(MPI_Pready(1, s), MPI_ERR_ARG); /* twice in one start */
    int bad_list[2] = {0, 1};
    CHECK_CLASS(MPI_Pready_list(2, bad_list, s), MPI_ERR_ARG); /* 1 is ready: 0 stays unmarked */
    int rest[2] = {3, 0};
    CHECK_MPI(MPI_Pready_list(2, rest, s));
    CHECK_MPI(MPI_Pready(2, s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(first_bad(rbuf, 0, N, 1000, partner) < 0, "data wrong after the refused calls");
    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* inactive again */

    /* unequal totals: MPI_ERR_TRUNCATE at the receiver, both ways */
    int big[2 * N];
    for (int w = 0; w < 2; w++) {
        MPI_Request ms, mr;
        int scount = w ? C + 1 : C - 1; /* per partition; the receive holds P * C */
        fill(big, 2 * N, 1100 + w, rank);
        CHECK_MPI(MPI_Psend_init(big, 2, scount * P / 2, MPI_INT, partner, 22, MPI_COMM_WORLD, MPI_INFO_NULL, &ms));
        CHECK_MPI(MPI_Precv_init(rbuf, P, C, MPI_INT, partner, 22, MPI_COMM_WORLD, MPI_INFO_NULL, &mr));
        CHECK_MPI(MPI_Start(&ms));
        CHECK_MPI(MPI_Start(&mr));
        CHECK_MPI(MPI_Pready_range(0, 1, ms));
        CHECK_MPI(MPI_Wait(&ms, MPI_STATUS_IGNORE));
        MPI_Status st;
        st.MPI_ERROR = MPI_SUCCESS;
        int rc = MPI_Wait(&mr, &st);
        CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_TRUNCATE,
              "a %s partitioned message gave %d, expected MPI_ERR_TRUNCATE", w ? "larger" : "smaller",
              rc == MPI_SUCCESS ? 0 : error_class(rc));
        CHECK_MPI(MPI_Request_free(&ms));
        CHECK_MPI(MPI_Request_free(&mr));
    }

    /* the good pair still works */
    fill(sbuf, N, 1200, rank);
    clear(rbuf, N);
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Pready_range(0, P - 1, s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(first_bad(rbuf, 0, N, 1200, partner) < 0, "data wrong at the end");
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &sync_comm);

    test_repeat();
    test_parrived();
    test_repartition();
    test_startall_mixed();
    test_init_order();
    test_no_cross_match();
    test_proc_null();
    test_free();
    test_sizes();
    test_errors();

    MPI_Comm_free(&sync_comm);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
