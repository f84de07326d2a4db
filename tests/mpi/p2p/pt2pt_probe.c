/* Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC;
 * MPI_Get_count/MPI_Get_elements including MPI_UNDEFINED for a partial element.
 *
 * Ring (rank -> rank+1); each section on its own duplicate of MPI_COMM_WORLD, so the only
 * messages a wildcard probe can see are the ones the section sent. */
#include "mpitest.h"

static int rank, size, next, prev;

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

static void check_proc_null_status(const MPI_Status* st, const char* what)
{
    int n = -1;
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: source %d", what, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: tag %d", what, st->MPI_TAG);
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == 0, "%s: count %d", what, n);
}

/* A, B: Probe (twice: it doesn't consume) and Iprobe, then Recv with the probed size. */
static void test_probe_recv(MPI_Comm comm)
{
    const int counts[] = {0, 3, 1000, 1 << 18};
    enum { N = sizeof counts / sizeof counts[0] };
    MPI_Request sreq[N];
    int* sbuf[N];
    for (int i = 0; i < N; i++) {
        sbuf[i] = mpitest_malloc(sizeof(int) * (size_t)counts[i]);
        fill(sbuf[i], counts[i], (uint32_t)(rank * 17 + i));
        CHECK_MPI(MPI_Isend(sbuf[i], counts[i], MPI_INT, next, 10 + i, comm, &sreq[i]));
    }
    int flag = 1;
    MPI_Status st;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, &st));
    CHECK(!flag, "Iprobe found a message with a tag nobody sent");
    for (int i = 0; i < N; i++) {
        MPI_Status st2;
        int n = -1, n2 = -2;
        if (i % 2 == 0) {
            CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        } else {
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Iprobe(prev, MPI_ANY_TAG, comm, &flag, &st));
        }
        CHECK_STATUS(st, prev, 10 + i, MPI_INT, counts[i]);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
        /* probing again finds the same message */
        CHECK_MPI(MPI_Probe(prev, st.MPI_TAG, comm, &st2));
        CHECK_MPI(MPI_Get_count(&st2, MPI_INT, &n2));
        CHECK(st2.MPI_SOURCE == prev && st2.MPI_TAG == 10 + i && n2 == n,
              "second probe: source %d tag %d count %d", st2.MPI_SOURCE, st2.MPI_TAG, n2);
        if (n < 0 || n > counts[N - 1]) continue;
        int* rbuf = mpitest_malloc(sizeof(int) * (size_t)n);
        CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, &st2));
        CHECK_STATUS(st2, prev, 10 + i, MPI_INT, counts[i]);
        int bad = first_bad(rbuf, n, (uint32_t)(prev * 17 + i));
        CHECK(bad == n, "probed message %d: element %d differs", i, bad);
        free(rbuf);
    }
    CHECK_MPI(MPI_Waitall(N, sreq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) free(sbuf[i]);
}

/* C, D: a matched message is removed from matching; Mrecv/Imrecv receive it later. */
static void test_mprobe(MPI_Comm comm)
{
    int a[2] = {rank, 1}, b[3] = {rank, 2, 2}, in[4];
    int* big = mpitest_malloc(sizeof(int) * (1 << 18));
    int* rbig = mpitest_malloc(sizeof(int) * (1 << 18));
    MPI_Request sreq[3], rreq;
    MPI_Message msg_a, msg_big;
    MPI_Status st;
    int flag = 0, n = -1;

    fill(big, 1 << 18, (uint32_t)rank + 77);
    CHECK_MPI(MPI_Isend(a, 2, MPI_INT, next, 5, comm, &sreq[0]));
    CHECK_MPI(MPI_Isend(b, 3, MPI_INT, next, 5, comm, &sreq[1]));
    CHECK_MPI(MPI_Isend(big, 1 << 18, MPI_INT, next, 6, comm, &sreq[2]));

    CHECK_MPI(MPI_Mprobe(prev, 5, comm, &msg_a, &st));
    CHECK(msg_a != MPI_MESSAGE_NULL && msg_a != MPI_MESSAGE_NO_PROC, "Mprobe returned no message");
    CHECK_STATUS(st, prev, 5, MPI_INT, 2);
    /* the first message is taken: probing the same source and tag finds the second */
    while (!flag) CHECK_MPI(MPI_Iprobe(prev, 5, comm, &flag, &st));
    CHECK_STATUS(st, prev, 5, MPI_INT, 3);
    CHECK_MPI(MPI_Recv(in, 4, MPI_INT, prev, 5, comm, &st));
    CHECK_STATUS(st, prev, 5, MPI_INT, 3);
    CHECK(in[0] == prev && in[1] == 2, "Recv after Mprobe got message %d (expected the second)",
          in[1]);
    /* Improbe of the large message, received with Imrecv */
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &msg_big, &st));
    CHECK_STATUS(st, prev, 6, MPI_INT, 1 << 18);
    CHECK_MPI(MPI_Imrecv(rbig, 1 << 18, MPI_INT, &msg_big, &rreq));
    CHECK(msg_big == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
    /* now receive the first message through its handle */
    in[0] = in[1] = -1;
    CHECK_MPI(MPI_Mrecv(in, 4, MPI_INT, &msg_a, &st));
    CHECK(msg_a == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
    CHECK_STATUS(st, prev, 5, MPI_INT, 2);
    CHECK(in[0] == prev && in[1] == 1, "Mrecv got %d %d", in[0], in[1]);
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK_STATUS(st, prev, 6, MPI_INT, 1 << 18);
    n = first_bad(rbig, 1 << 18, (uint32_t)prev + 77);
    CHECK(n == 1 << 18, "Imrecv of 1 MB: element %d differs", n);
    CHECK_MPI(MPI_Waitall(3, sreq, MPI_STATUSES_IGNORE));
    free(big);
    free(rbig);
}

/* Every rank sends to rank 0, which Mprobes all the messages first and Mrecvs them in
 * reverse order. */
static void test_mprobe_many(MPI_Comm comm)
{
    if (rank != 0) {
        int v[2] = {rank, -rank};
        CHECK_MPI(MPI_Send(v, 2, MPI_INT, 0, rank, comm));
        return;
    }
    MPI_Message* msg = mpitest_malloc(sizeof(MPI_Message) * (size_t)size);
    int* src = mpitest_malloc(sizeof(int) * (size_t)size);
    for (int i = 1; i < size; i++) {
        MPI_Status st;
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg[i], &st));
        src[i] = st.MPI_SOURCE;
        CHECK(st.MPI_TAG == st.MPI_SOURCE, "Mprobe: tag %d from %d", st.MPI_TAG, st.MPI_SOURCE);
    }
    for (int i = size - 1; i >= 1; i--) {
        int v[2] = {-1, -1};
        MPI_Status st;
        CHECK_MPI(MPI_Mrecv(v, 2, MPI_INT, &msg[i], &st));
        CHECK_STATUS(st, src[i], src[i], MPI_INT, 2);
        CHECK(v[0] == src[i] && v[1] == -src[i], "Mrecv from %d got %d %d", src[i], v[0], v[1]);
    }
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message is left after all were Mprobed and Mrecvd");
    free(msg);
    free(src);
}

/* E: probes from MPI_PROC_NULL. */
static void test_proc_null(MPI_Comm comm)
{
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0, buf[2] = {11, 12};

    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 3, comm, &st));
    check_proc_null_status(&st, "Probe(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &st));
    CHECK(flag, "Iprobe(MPI_PROC_NULL): flag false");
    check_proc_null_status(&st, "Iprobe(MPI_PROC_NULL)");

    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, comm, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    check_proc_null_status(&st, "Mprobe(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Mrecv(buf, 2, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(MPI_MESSAGE_NO_PROC) did not set MPI_MESSAGE_NULL");
    check_proc_null_status(&st, "Mrecv(MPI_MESSAGE_NO_PROC)");
    CHECK(buf[0] == 11 && buf[1] == 12, "Mrecv(MPI_MESSAGE_NO_PROC) wrote the buffer");

    flag = 0;
    msg = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL): flag %d", flag);
    check_proc_null_status(&st, "Improbe(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Imrecv(buf, 2, MPI_INT, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) did not set MPI_MESSAGE_NULL");
    CHECK_MPI(MPI_Wait(&req, &st));
    check_proc_null_status(&st, "Imrecv(MPI_MESSAGE_NO_PROC)");
    CHECK(buf[0] == 11 && buf[1] == 12, "Imrecv(MPI_MESSAGE_NO_PROC) wrote the buffer");
}

/* F: counts in other units, partial elements, and MPI_Status_set_elements. */
static void test_counts(MPI_Comm comm)
{
    unsigned char out[10], in[16];
    MPI_Request sreq;
    MPI_Status pst, st;
    int n;
    for (int i = 0; i < 10; i++) out[i] = (unsigned char)(rank + i);
    CHECK_MPI(MPI_Isend(out, 10, MPI_BYTE, next, 1, comm, &sreq));
    CHECK_MPI(MPI_Probe(prev, 1, comm, &pst));
    CHECK_MPI(MPI_Recv(in, 16, MPI_BYTE, prev, 1, comm, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        CHECK(in[i] == (unsigned char)(prev + i), "byte %d is %d", i, in[i]);
    for (int p = 0; p < 2; p++) {
        const MPI_Status* s = p ? &st : &pst;
        const char* what = p ? "received" : "probed";
        n = -1;
        CHECK_MPI(MPI_Get_count(s, MPI_BYTE, &n));
        CHECK(n == 10, "%s: Get_count(MPI_BYTE) %d", what, n);
        CHECK_MPI(MPI_Get_count(s, MPI_SHORT, &n));
        CHECK(n == 5, "%s: Get_count(MPI_SHORT) %d", what, n);
        CHECK_MPI(MPI_Get_count(s, MPI_INT, &n));
        CHECK(n == MPI_UNDEFINED, "%s: Get_count(MPI_INT) of 10 bytes is %d, not MPI_UNDEFINED", what, n);
        CHECK_MPI(MPI_Get_elements(s, MPI_BYTE, &n));
        CHECK(n == 10, "%s: Get_elements(MPI_BYTE) %d", what, n);
        CHECK_MPI(MPI_Get_elements(s, MPI_INT, &n));
        CHECK(n == MPI_UNDEFINED, "%s: Get_elements(MPI_INT) of 10 bytes is %d, not MPI_UNDEFINED",
              what, n);
    }

    MPI_Status made;
    int flag = 1;
    CHECK_MPI(MPI_Status_set_elements(&made, MPI_INT, 3));
    CHECK_MPI(MPI_Status_set_cancelled(&made, 0));
    CHECK_MPI(MPI_Get_count(&made, MPI_INT, &n));
    CHECK(n == 3, "Status_set_elements(MPI_INT, 3): Get_count %d", n);
    CHECK_MPI(MPI_Get_elements(&made, MPI_INT, &n));
    CHECK(n == 3, "Status_set_elements(MPI_INT, 3): Get_elements %d", n);
    CHECK_MPI(MPI_Get_count(&made, MPI_BYTE, &n));
    CHECK(n == 3 * (int)sizeof(int), "Status_set_elements(MPI_INT, 3): %d bytes", n);
    CHECK_MPI(MPI_Test_cancelled(&made, &flag));
    CHECK(!flag, "Status_set_cancelled(0): Test_cancelled true");
    CHECK_MPI(MPI_Status_set_cancelled(&made, 1));
    CHECK_MPI(MPI_Test_cancelled(&made, &flag));
    CHECK(flag, "Status_set_cancelled(1): Test_cancelled false");
    CHECK_MPI(MPI_Status_set_elements(&made, MPI_BYTE, 6));
    CHECK_MPI(MPI_Get_count(&made, MPI_INT, &n));
    CHECK(n == MPI_UNDEFINED, "6 bytes as MPI_INT: Get_count %d, not MPI_UNDEFINED", n);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm comm[5];
    for (int i = 0; i < 5; i++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm[i]));

    test_probe_recv(comm[0]);
    test_mprobe(comm[1]);
    test_mprobe_many(comm[2]);
    test_proc_null(comm[3]);
    test_counts(comm[4]);

    for (int i = 0; i < 5; i++) CHECK_MPI(MPI_Comm_free(&comm[i]));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
