/* Message matching: MPI_ANY_SOURCE and MPI_ANY_TAG, the non-overtaking rule, tags up to
 * MPI_TAG_UB, and communicators (dup, split, self) never matching each other's messages.
 *
 * Each section runs on its own duplicate of MPI_COMM_WORLD, so a rank that is ahead can't feed
 * a wildcard receive of a rank that is behind. Point-to-point traffic goes around a ring
 * (rank -> rank+1); with one rank it is to self. */
#include "mpitest.h"

static int rank, size, next, prev;

enum { NSECTIONS = 8 };
static MPI_Comm sec[NSECTIONS];

/* A: every other rank sends to a root, which receives with ANY_SOURCE/ANY_TAG. */
static void test_any_source(MPI_Comm comm, int root)
{
    if (rank != root) {
        int msg[2] = {rank, 1000 + rank};
        CHECK_MPI(MPI_Send(msg, 2, MPI_INT, root, rank + 1, comm));
        return;
    }
    char* seen = calloc((size_t)size, 1);
    for (int i = 0; i < size - 1; i++) {
        int msg[3] = {-1, -1, -1};
        MPI_Status st;
        CHECK_MPI(MPI_Recv(msg, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        int src = st.MPI_SOURCE;
        CHECK(src >= 0 && src < size && src != root, "ANY_SOURCE receive: source %d", src);
        if (src < 0 || src >= size) continue;
        CHECK(!seen[src], "ANY_SOURCE receive: source %d seen twice", src);
        seen[src] = 1;
        CHECK_STATUS(st, src, src + 1, MPI_INT, 2);
        CHECK(msg[0] == src && msg[1] == 1000 + src && msg[2] == -1,
              "ANY_SOURCE receive from %d: data %d %d %d", src, msg[0], msg[1], msg[2]);
    }
    free(seen);
}

/* B: ANY_TAG from one source receives in send order; C: specific tags in reverse order. */
static void test_tags_order(MPI_Comm comm)
{
    const int tags[] = {5, 3, 9, 0, 3};
    enum { N = sizeof tags / sizeof tags[0] };
    MPI_Request req[N];
    int out[N], in = -1;
    MPI_Status st;

    for (int i = 0; i < N; i++) {
        out[i] = rank * 100 + i;
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, tags[i], comm, &req[i]));
    }
    for (int i = 0; i < N; i++) {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, MPI_ANY_TAG, comm, &st));
        CHECK_STATUS(st, prev, tags[i], MPI_INT, 1);
        CHECK(in == prev * 100 + i, "ANY_TAG receive %d: got %d, expected %d", i, in,
              prev * 100 + i);
    }
    CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));

    /* specific tags, received in the reverse of the send order */
    for (int i = 0; i < 4; i++) {
        out[i] = rank * 100 + 50 + i;
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, 20 + i, comm, &req[i]));
    }
    for (int i = 3; i >= 0; i--) {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, 20 + i, comm, &st));
        CHECK_STATUS(st, prev, 20 + i, MPI_INT, 1);
        CHECK(in == prev * 100 + 50 + i, "tag %d: got %d", 20 + i, in);
    }
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
}

/* D: many messages with the same tag arrive in order, with specific and wildcard receives. */
static void test_non_overtaking_same_size(MPI_Comm comm, int wildcard)
{
    enum { N = 1000, TAG = 7 };
    MPI_Request* req = mpitest_malloc(sizeof(MPI_Request) * N);
    int* out = mpitest_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) {
        out[i] = i;
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, TAG, comm, &req[i]));
    }
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        int in = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, wildcard ? MPI_ANY_SOURCE : prev,
                           wildcard ? MPI_ANY_TAG : TAG, comm, &st));
        if (in != i || st.MPI_SOURCE != prev || st.MPI_TAG != TAG) {
            if (wrong++ == 0)
                CHECK(0, "%s receive %d: got seq %d from %d tag %d", wildcard ? "wildcard" : "specific",
                      i, in, st.MPI_SOURCE, st.MPI_TAG);
        }
    }
    CHECK(wrong == 0, "%d of %d messages out of order", wrong, N);
    CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
    free(req);
    free(out);
}

/* E: small and large messages interleaved on one tag arrive in order, whether the receives are
 * posted before the messages arrive or after (unexpected). Every receive buffer is large enough
 * for any message, so a wrong match shows as a wrong sequence number, not a truncation. */
static void test_non_overtaking_mixed(MPI_Comm comm, int preposted, int wildcard)
{
    enum { N = 24, BIG = 1 << 17, TAG = 9 }; /* large messages: 512 KB */
    MPI_Request sreq[N], rreq[N], go_req;
    int* sbuf[N];
    int* rbuf[N];
    int src = wildcard ? MPI_ANY_SOURCE : prev;
    for (int i = 0; i < N; i++) {
        int n = (i % 2) ? BIG : 2;
        sbuf[i] = mpitest_malloc(sizeof(int) * (size_t)n);
        sbuf[i][0] = i;
        sbuf[i][n - 1] = rank * 1000 + i;
        rbuf[i] = mpitest_malloc(sizeof(int) * BIG);
        rbuf[i][0] = -1;
    }
    if (preposted) {
        for (int i = 0; i < N; i++)
            CHECK_MPI(MPI_Irecv(rbuf[i], BIG, MPI_INT, src, TAG, comm, &rreq[i]));
        /* tell the sender the receives are posted */
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, TAG + 1, comm, &go_req));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, TAG + 1, comm, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < N; i++)
        CHECK_MPI(MPI_Isend(sbuf[i], (i % 2) ? BIG : 2, MPI_INT, next, TAG, comm, &sreq[i]));
    if (!preposted) {
        /* the sends are issued before the receiver posts anything */
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, TAG + 1, comm, &go_req));
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, prev, TAG + 1, comm, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK_MPI(MPI_Irecv(rbuf[i], BIG, MPI_INT, src, TAG, comm, &rreq[i]));
    }
    MPI_Status st[N];
    CHECK_MPI(MPI_Waitall(N, rreq, st));
    for (int i = 0; i < N; i++) {
        int n = (i % 2) ? BIG : 2;
        CHECK_STATUS(st[i], prev, TAG, MPI_INT, n);
        CHECK(rbuf[i][0] == i && rbuf[i][n - 1] == prev * 1000 + i,
              "%s%s receive %d: got seq %d / %d", preposted ? "pre-posted" : "unexpected",
              wildcard ? " wildcard" : "", i, rbuf[i][0], rbuf[i][n - 1]);
    }
    CHECK_MPI(MPI_Waitall(N, sreq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Wait(&go_req, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
}

/* F: tags up to the MPI_TAG_UB attribute. */
static void test_tag_ub(MPI_Comm comm)
{
    int* ub = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag, "MPI_TAG_UB attribute not set");
    if (!flag || !ub) return;
    int tag_ub = *ub;
    CHECK(tag_ub >= 32767, "MPI_TAG_UB is %d, the standard requires at least 32767", tag_ub);
    /* the attribute is the same on a duplicated communicator */
    int* ub2 = NULL;
    CHECK_MPI(MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub2, &flag));
    CHECK(flag && ub2 && *ub2 == tag_ub, "MPI_TAG_UB differs on a duplicate");

    const int tags[] = {tag_ub, tag_ub - 1, 0, 32767, tag_ub / 2};
    enum { N = sizeof tags / sizeof tags[0] };
    MPI_Request req[N];
    int out[N];
    for (int i = 0; i < N; i++) {
        out[i] = tags[i];
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, next, tags[i], comm, &req[i]));
    }
    /* tag_ub via ANY_TAG (the first one sent), the rest by specific tag in reverse order */
    int in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, MPI_ANY_TAG, comm, &st));
    CHECK_STATUS(st, prev, tag_ub, MPI_INT, 1);
    CHECK(in == tag_ub, "ANY_TAG receive of tag %d got %d", tag_ub, in);
    for (int i = N - 1; i >= 1; i--) {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, tags[i], comm, &st));
        CHECK_STATUS(st, prev, tags[i], MPI_INT, 1);
        CHECK(in == tags[i], "tag %d: got %d", tags[i], in);
    }
    CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
}

/* G: a message sent on one communicator never matches a receive on another. */
static void test_communicators(MPI_Comm comm)
{
    MPI_Comm dup;
    MPI_Request sreq[2], rreq;
    MPI_Status st;
    int a = 1000 + rank, b = 2000 + rank, in = -1, in_dup = -1;

    CHECK_MPI(MPI_Comm_dup(comm, &dup));
    /* send on comm first, then on dup; the receiver posts the wildcard dup receive first */
    CHECK_MPI(MPI_Irecv(&in_dup, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &rreq));
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, next, 7, comm, &sreq[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, next, 7, dup, &sreq[1]));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
    CHECK_STATUS(st, prev, 7, MPI_INT, 1);
    CHECK(in == 1000 + prev, "receive on comm got %d, expected %d", in, 1000 + prev);
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK_STATUS(st, prev, 7, MPI_INT, 1);
    CHECK(in_dup == 2000 + prev, "receive on dup got %d, expected %d", in_dup, 2000 + prev);
    CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));

    /* split by parity, ranks reversed by the key: ranks and sources are those of the new comm */
    MPI_Comm half;
    int hrank = -1, hsize = -1;
    CHECK_MPI(MPI_Comm_split(comm, rank % 2, size - rank, &half));
    CHECK_MPI(MPI_Comm_rank(half, &hrank));
    CHECK_MPI(MPI_Comm_size(half, &hsize));
    int expect_hsize = (size + 1 - rank % 2) / 2;
    CHECK(hsize == expect_hsize, "split size %d, expected %d", hsize, expect_hsize);
    CHECK(hrank == (hsize - 1 - rank / 2), "split rank %d, expected %d", hrank, hsize - 1 - rank / 2);
    int hnext = (hrank + 1) % hsize, hprev = (hrank + hsize - 1) % hsize;
    /* the same tag on comm at the same time, to the same world neighbours */
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, next, 8, comm, &sreq[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, hnext, 8, half, &sreq[1]));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 8, half, &st));
    CHECK_STATUS(st, hprev, 8, MPI_INT, 1);
    /* world rank of half-rank h in my half: parity + 2 * (hsize - 1 - h) */
    int wprev = rank % 2 + 2 * (hsize - 1 - hprev);
    CHECK(in == 2000 + wprev, "receive on split comm got %d, expected %d", in, 2000 + wprev);
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 8, comm, &st));
    CHECK_STATUS(st, prev, 8, MPI_INT, 1);
    CHECK(in == 1000 + prev, "receive on comm after split got %d", in);
    CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK(half == MPI_COMM_NULL, "Comm_free did not set the handle to MPI_COMM_NULL");

    /* MPI_COMM_SELF and a world duplicate, both to self */
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &sreq[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, rank, 9, dup, &sreq[1]));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
    CHECK_STATUS(st, rank, 9, MPI_INT, 1);
    CHECK(in == b, "self receive on dup got %d, expected %d", in, b);
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
    CHECK_STATUS(st, 0, 9, MPI_INT, 1);
    CHECK(in == a, "receive on MPI_COMM_SELF got %d, expected %d", in, a);
    CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    for (int i = 0; i < NSECTIONS; i++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &sec[i]));

    test_any_source(sec[0], 0);
    test_any_source(sec[0], size - 1);
    test_tags_order(sec[1]);
    test_non_overtaking_same_size(sec[2], 0);
    test_non_overtaking_same_size(sec[3], 1);
    test_non_overtaking_mixed(sec[4], 1, 0);
    test_non_overtaking_mixed(sec[4], 0, 0);
    test_non_overtaking_mixed(sec[5], 1, 1);
    test_non_overtaking_mixed(sec[5], 0, 1);
    test_tag_ub(sec[6]);
    test_communicators(sec[7]);

    for (int i = 0; i < NSECTIONS; i++) CHECK_MPI(MPI_Comm_free(&sec[i]));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
