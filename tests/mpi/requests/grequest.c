/* Generalized requests (MPI-4.1 13.2), single-threaded: MPI_Grequest_start/_complete with every
 * completion call. The callbacks count their calls and log their order; query_fn writes a status
 * (source, tag, element count, cancelled) that the completion calls must hand back. Covers Wait
 * and Test before/after completion, MPI_STATUS_IGNORE (query_fn still gets a real status),
 * Request_get_status (query_fn only, request kept), Request_free before and after completion
 * (free_fn at the later of the two, query_fn never), Cancel with complete false/true and
 * Test_cancelled, query_fn/free_fn errors (MPI_ERR_IN_STATUS with the per-status code in
 * Waitall, the code itself from Wait/Waitany/Request_get_status*), grequests mixed with
 * Isend/Irecv in Waitall/Waitany/Waitsome/Testsome/Testall, and the error cases of
 * MPI_Grequest_start/_complete with MPI_ERRORS_RETURN. */
#include "mpitest.h"

static int rank, size, next, prev;

enum { LOG_MAX = 32 };

struct gstate {
    int query_calls, free_calls, cancel_calls;
    int null_status; /* query_fn was given a NULL status */
    int cancel_complete_arg;
    char log[LOG_MAX + 1]; /* 'q', 'f', 'c' in call order */
    int nlog;
    /* what query_fn reports */
    int source, tag, count, cancelled;
    int query_rc, free_rc, cancel_rc;
    /* cancel_fn with complete == false: complete the request and report it cancelled */
    int complete_on_cancel;
    MPI_Request req;
};

static void note(struct gstate* g, char c)
{
    if (g->nlog < LOG_MAX) g->log[g->nlog++] = c;
    g->log[g->nlog] = '\0';
}

static int query_fn(void* extra, MPI_Status* st)
{
    struct gstate* g = extra;
    g->query_calls++;
    note(g, 'q');
    if (!st) {
        g->null_status = 1;
        return g->query_rc;
    }
    st->MPI_SOURCE = g->source;
    st->MPI_TAG = g->tag;
    MPI_Status_set_elements(st, MPI_INT, g->count);
    MPI_Status_set_cancelled(st, g->cancelled);
    return g->query_rc;
}

static int free_fn(void* extra)
{
    struct gstate* g = extra;
    g->free_calls++;
    note(g, 'f');
    return g->free_rc;
}

static int cancel_fn(void* extra, int complete)
{
    struct gstate* g = extra;
    g->cancel_calls++;
    g->cancel_complete_arg = complete;
    note(g, 'c');
    if (!complete && g->complete_on_cancel) {
        g->cancelled = 1;
        if (MPI_Grequest_complete(g->req) != MPI_SUCCESS) g->cancel_rc = MPI_ERR_INTERN;
    }
    return g->cancel_rc;
}

static void gstate_init(struct gstate* g, int tag, int count)
{
    memset(g, 0, sizeof *g);
    g->source = rank;
    g->tag = tag;
    g->count = count;
    g->req = MPI_REQUEST_NULL;
}

static void start(struct gstate* g)
{
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &g->req));
    CHECK(g->req != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
}

static int error_class(int rc)
{
    int cls = -1;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) return -1;
    return cls;
}

static void check_calls(const struct gstate* g, int q, int f, int c, const char* log, const char* what)
{
    CHECK(g->query_calls == q, "%s: query_fn called %d times, expected %d", what, g->query_calls, q);
    CHECK(g->free_calls == f, "%s: free_fn called %d times, expected %d", what, g->free_calls, f);
    CHECK(g->cancel_calls == c, "%s: cancel_fn called %d times, expected %d", what, g->cancel_calls, c);
    CHECK(strcmp(g->log, log) == 0, "%s: callbacks ran as \"%s\", expected \"%s\"", what, g->log, log);
    CHECK(!g->null_status, "%s: query_fn was given a NULL status", what);
}

static void check_cancelled(const MPI_Status* st, int expected, const char* what)
{
    int flag = -1;
    CHECK_MPI(MPI_Test_cancelled(st, &flag));
    CHECK(flag == expected, "%s: MPI_Test_cancelled gives %d, expected %d", what, flag, expected);
}

/* Start, complete, Wait: the status comes from query_fn, then free_fn runs, the handle is freed. */
static void test_wait(void)
{
    struct gstate g;
    gstate_init(&g, 42, 3);
    start(&g);
    check_calls(&g, 0, 0, 0, "", "wait: after start");
    CHECK_MPI(MPI_Grequest_complete(g.req));
    check_calls(&g, 0, 0, 0, "", "wait: after Grequest_complete");
    MPI_Status st;
    memset(&st, 0x5a, sizeof st);
    CHECK_MPI(MPI_Wait(&g.req, &st));
    CHECK(g.req == MPI_REQUEST_NULL, "wait: the handle is not MPI_REQUEST_NULL");
    check_calls(&g, 1, 1, 0, "qf", "wait");
    CHECK_STATUS(st, rank, 42, MPI_INT, 3);
    check_cancelled(&st, 0, "wait");

    /* MPI_STATUS_IGNORE: query_fn still gets a status of its own to fill */
    gstate_init(&g, 7, 1);
    start(&g);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    CHECK_MPI(MPI_Wait(&g.req, MPI_STATUS_IGNORE));
    check_calls(&g, 1, 1, 0, "qf", "wait with MPI_STATUS_IGNORE");
    CHECK(g.req == MPI_REQUEST_NULL, "wait with MPI_STATUS_IGNORE: handle not freed");

    /* a null handle afterwards is the empty status, no callback */
    CHECK_MPI(MPI_Wait(&g.req, &st));
    check_calls(&g, 1, 1, 0, "qf", "wait on the freed handle");
}

static void test_test(void)
{
    struct gstate g;
    gstate_init(&g, 11, 5);
    start(&g);
    MPI_Status st;
    int flag = -1;
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Test(&g.req, &flag, &st));
        CHECK(flag == 0, "test: flag %d before Grequest_complete", flag);
    }
    CHECK(g.req != MPI_REQUEST_NULL, "test: the handle was freed before completion");
    check_calls(&g, 0, 0, 0, "", "test before completion");
    int idx = -2;
    CHECK_MPI(MPI_Testany(1, &g.req, &idx, &flag, &st));
    CHECK(flag == 0 && idx == MPI_UNDEFINED, "testany before completion: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    CHECK_MPI(MPI_Test(&g.req, &flag, &st));
    CHECK(flag == 1, "test: flag %d after Grequest_complete", flag);
    CHECK(g.req == MPI_REQUEST_NULL, "test: the handle is not MPI_REQUEST_NULL");
    check_calls(&g, 1, 1, 0, "qf", "test after completion");
    CHECK_STATUS(st, rank, 11, MPI_INT, 5);
}

/* MPI_Request_get_status: query_fn each time, never free_fn, the request stays. */
static void test_get_status(void)
{
    struct gstate g;
    gstate_init(&g, 13, 2);
    start(&g);
    MPI_Status st;
    int flag = -1;
    CHECK_MPI(MPI_Request_get_status(g.req, &flag, &st));
    CHECK(flag == 0, "get_status: flag %d before completion", flag);
    check_calls(&g, 0, 0, 0, "", "get_status before completion");
    CHECK_MPI(MPI_Grequest_complete(g.req));
    CHECK_MPI(MPI_Request_get_status(g.req, &flag, &st));
    CHECK(flag == 1, "get_status: flag %d after completion", flag);
    CHECK_STATUS(st, rank, 13, MPI_INT, 2);
    check_calls(&g, 1, 0, 0, "q", "get_status after completion");
    g.count = 4;
    CHECK_MPI(MPI_Request_get_status(g.req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1, "get_status (ignore): flag %d", flag);
    check_calls(&g, 2, 0, 0, "qq", "get_status twice");
    MPI_Status sts[1];
    CHECK_MPI(MPI_Request_get_status_all(1, &g.req, &flag, sts));
    CHECK(flag == 1, "get_status_all: flag %d", flag);
    CHECK_STATUS(sts[0], rank, 13, MPI_INT, 4);
    int idx = -2;
    CHECK_MPI(MPI_Request_get_status_any(1, &g.req, &idx, &flag, &st));
    CHECK(flag == 1 && idx == 0, "get_status_any: flag %d index %d", flag, idx);
    int out = -2, indices[1] = {-2};
    CHECK_MPI(MPI_Request_get_status_some(1, &g.req, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 0, "get_status_some: outcount %d index %d", out, indices[0]);
    check_calls(&g, 5, 0, 0, "qqqqq", "get_status_*");
    CHECK(g.req != MPI_REQUEST_NULL, "get_status freed the request");
    CHECK_MPI(MPI_Wait(&g.req, &st));
    check_calls(&g, 6, 1, 0, "qqqqqqf", "wait after get_status");
    CHECK_STATUS(st, rank, 13, MPI_INT, 4);
}

/* MPI_Request_free: free_fn when both freed and completed, query_fn never. */
static void test_request_free(void)
{
    struct gstate g;
    gstate_init(&g, 1, 1);
    start(&g);
    MPI_Request copy = g.req;
    CHECK_MPI(MPI_Request_free(&g.req));
    CHECK(g.req == MPI_REQUEST_NULL, "request_free before completion: handle not MPI_REQUEST_NULL");
    check_calls(&g, 0, 0, 0, "", "request_free before completion");
    CHECK_MPI(MPI_Grequest_complete(copy)); /* the user's copy stays valid until free_fn ran */
    check_calls(&g, 0, 1, 0, "f", "Grequest_complete after request_free");

    gstate_init(&g, 1, 1);
    start(&g);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    check_calls(&g, 0, 0, 0, "", "request_free after completion: before the free");
    CHECK_MPI(MPI_Request_free(&g.req));
    CHECK(g.req == MPI_REQUEST_NULL, "request_free after completion: handle not MPI_REQUEST_NULL");
    check_calls(&g, 0, 1, 0, "f", "request_free after completion");

    /* free_fn's error is returned by the call that ran it */
    gstate_init(&g, 1, 1);
    g.free_rc = MPI_ERR_OTHER;
    start(&g);
    copy = g.req;
    CHECK_MPI(MPI_Request_free(&g.req));
    int rc = MPI_Grequest_complete(copy);
    CHECK(error_class(rc) == MPI_ERR_OTHER, "Grequest_complete running a failing free_fn returned %d", rc);
    check_calls(&g, 0, 1, 0, "f", "failing free_fn in Grequest_complete");
    gstate_init(&g, 1, 1);
    g.free_rc = MPI_ERR_OTHER;
    start(&g);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    rc = MPI_Request_free(&g.req);
    CHECK(error_class(rc) == MPI_ERR_OTHER, "Request_free running a failing free_fn returned %d", rc);
    CHECK(g.req == MPI_REQUEST_NULL, "Request_free with a failing free_fn: handle not MPI_REQUEST_NULL");
    check_calls(&g, 0, 1, 0, "f", "failing free_fn in Request_free");
}

static void test_cancel(void)
{
    /* not completed yet: cancel_fn gets complete = false, completes it and query_fn reports it
     * cancelled */
    struct gstate g;
    gstate_init(&g, 3, 0);
    g.complete_on_cancel = 1;
    start(&g);
    CHECK_MPI(MPI_Cancel(&g.req));
    CHECK(g.cancel_complete_arg == 0, "cancel before completion: cancel_fn got complete = %d", g.cancel_complete_arg);
    check_calls(&g, 0, 0, 1, "c", "cancel before completion");
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&g.req, &st));
    check_calls(&g, 1, 1, 1, "cqf", "wait after cancel");
    check_cancelled(&st, 1, "cancel before completion");

    /* already completed: complete = true, the operation stays uncancelled */
    gstate_init(&g, 3, 6);
    g.complete_on_cancel = 1;
    start(&g);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    CHECK_MPI(MPI_Cancel(&g.req));
    CHECK(g.cancel_complete_arg == 1, "cancel after completion: cancel_fn got complete = %d", g.cancel_complete_arg);
    CHECK_MPI(MPI_Wait(&g.req, &st));
    check_calls(&g, 1, 1, 1, "cqf", "wait after late cancel");
    check_cancelled(&st, 0, "cancel after completion");
    CHECK_STATUS(st, rank, 3, MPI_INT, 6);

    /* cancel_fn's error is MPI_Cancel's */
    gstate_init(&g, 3, 0);
    g.cancel_rc = MPI_ERR_OTHER;
    start(&g);
    int rc = MPI_Cancel(&g.req);
    CHECK(error_class(rc) == MPI_ERR_OTHER, "MPI_Cancel with a failing cancel_fn returned %d", rc);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    CHECK_MPI(MPI_Wait(&g.req, MPI_STATUS_IGNORE));
    check_calls(&g, 1, 1, 1, "cqf", "failing cancel_fn");
}

/* query_fn's error is the request's error; free_fn's too when query_fn succeeded. */
static void test_errors_from_callbacks(void)
{
    struct gstate g[3];
    MPI_Request reqs[3];
    MPI_Status sts[3];
    for (int i = 0; i < 3; i++) {
        gstate_init(&g[i], 20 + i, i);
        start(&g[i]);
        reqs[i] = g[i].req;
        CHECK_MPI(MPI_Grequest_complete(reqs[i]));
    }
    g[1].query_rc = MPI_ERR_OTHER;
    g[2].free_rc = MPI_ERR_UNKNOWN;
    for (int i = 0; i < 3; i++) sts[i].MPI_ERROR = -1;
    int rc = MPI_Waitall(3, reqs, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "waitall with failing callbacks returned %d, expected MPI_ERR_IN_STATUS", rc);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "waitall: status 0 error %d", sts[0].MPI_ERROR);
    CHECK(error_class(sts[1].MPI_ERROR) == MPI_ERR_OTHER, "waitall: status 1 error %d (query_fn's)",
          sts[1].MPI_ERROR);
    CHECK(error_class(sts[2].MPI_ERROR) == MPI_ERR_UNKNOWN, "waitall: status 2 error %d (free_fn's)",
          sts[2].MPI_ERROR);
    for (int i = 0; i < 3; i++) {
        CHECK(reqs[i] == MPI_REQUEST_NULL, "waitall: request %d not freed", i);
        check_calls(&g[i], 1, 1, 0, "qf", "waitall with failing callbacks");
        CHECK_STATUS(sts[i], rank, 20 + i, MPI_INT, i);
    }

    /* MPI_STATUSES_IGNORE: still MPI_ERR_IN_STATUS */
    gstate_init(&g[0], 1, 1);
    g[0].query_rc = MPI_ERR_OTHER;
    start(&g[0]);
    CHECK_MPI(MPI_Grequest_complete(g[0].req));
    rc = MPI_Waitall(1, &g[0].req, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_ERR_IN_STATUS, "waitall (statuses ignored) returned %d", rc);
    check_calls(&g[0], 1, 1, 0, "qf", "waitall (statuses ignored)");

    /* single completion calls return the code */
    gstate_init(&g[0], 1, 1);
    g[0].query_rc = MPI_ERR_OTHER;
    start(&g[0]);
    CHECK_MPI(MPI_Grequest_complete(g[0].req));
    int flag = -1;
    rc = MPI_Request_get_status(g[0].req, &flag, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_OTHER && flag == 1, "get_status with a failing query_fn: rc %d flag %d", rc,
          flag);
    rc = MPI_Wait(&g[0].req, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_OTHER, "wait with a failing query_fn returned %d", rc);
    CHECK(g[0].req == MPI_REQUEST_NULL, "wait with a failing query_fn: request not freed");
    check_calls(&g[0], 2, 1, 0, "qqf", "wait with a failing query_fn");

    gstate_init(&g[0], 1, 1);
    g[0].free_rc = MPI_ERR_UNKNOWN;
    start(&g[0]);
    CHECK_MPI(MPI_Grequest_complete(g[0].req));
    int idx = -2;
    rc = MPI_Waitany(1, &g[0].req, &idx, MPI_STATUS_IGNORE);
    CHECK(error_class(rc) == MPI_ERR_UNKNOWN && idx == 0, "waitany with a failing free_fn: rc %d index %d", rc, idx);
    check_calls(&g[0], 1, 1, 0, "qf", "waitany with a failing free_fn");

    /* Testsome: MPI_ERR_IN_STATUS with the code in the status */
    gstate_init(&g[0], 1, 1);
    gstate_init(&g[1], 2, 2);
    g[1].query_rc = MPI_ERR_OTHER;
    start(&g[0]);
    start(&g[1]);
    reqs[0] = g[0].req;
    reqs[1] = g[1].req;
    CHECK_MPI(MPI_Grequest_complete(reqs[1]));
    int out = -2, indices[2] = {-2, -2};
    sts[0].MPI_ERROR = -1;
    rc = MPI_Testsome(2, reqs, &out, indices, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "testsome with a failing query_fn returned %d", rc);
    CHECK(out == 1 && indices[0] == 1, "testsome: outcount %d index %d", out, indices[0]);
    CHECK(error_class(sts[0].MPI_ERROR) == MPI_ERR_OTHER, "testsome: status error %d", sts[0].MPI_ERROR);
    check_calls(&g[0], 0, 0, 0, "", "testsome: the incomplete one");
    check_calls(&g[1], 1, 1, 0, "qf", "testsome: the failing one");
    CHECK_MPI(MPI_Grequest_complete(reqs[0]));
    CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
}

/* Lets prev send its message tagged `tag` to this rank: a receive posted before this call cannot
 * have completed yet. */
static void handshake(int tag)
{
    int x = rank, y = -1;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, prev, 1000 + tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, next, 1000 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == next, "handshake %d: got %d from %d", tag, y, next);
}

/* Grequests with point-to-point requests in the array completion calls. */
static void test_mixed(void)
{
    int sbuf[4] = {rank, rank + 1, rank + 2, rank + 3}, rbuf[4] = {-1, -1, -1, -1};
    struct gstate g1, g2;
    MPI_Request reqs[4];
    MPI_Status sts[4];

    /* Waitall: Irecv, Isend, a completed grequest */
    gstate_init(&g1, 100, 9);
    start(&g1);
    CHECK_MPI(MPI_Irecv(rbuf, 4, MPI_INT, prev, 50, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(sbuf, 4, MPI_INT, next, 50, MPI_COMM_WORLD, &reqs[1]));
    reqs[2] = g1.req;
    CHECK_MPI(MPI_Grequest_complete(g1.req));
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    CHECK_STATUS(sts[0], prev, 50, MPI_INT, 4);
    CHECK(rbuf[0] == prev && rbuf[3] == prev + 3, "waitall: received %d..%d from %d", rbuf[0], rbuf[3], prev);
    CHECK_STATUS(sts[2], rank, 100, MPI_INT, 9);
    check_calls(&g1, 1, 1, 0, "qf", "waitall mixed");
    for (int i = 0; i < 3; i++) CHECK(reqs[i] == MPI_REQUEST_NULL, "waitall mixed: request %d not freed", i);

    /* Waitany: the receive cannot complete (nothing sent before the handshake), the completed
     * grequest is reported */
    gstate_init(&g1, 101, 1);
    start(&g1);
    CHECK_MPI(MPI_Irecv(rbuf, 4, MPI_INT, prev, 51, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = g1.req;
    CHECK_MPI(MPI_Grequest_complete(g1.req));
    int idx = -2;
    MPI_Status st;
    CHECK_MPI(MPI_Waitany(2, reqs, &idx, &st));
    CHECK(idx == 1, "waitany mixed: index %d, expected the grequest (1)", idx);
    CHECK_STATUS(st, rank, 101, MPI_INT, 1);
    check_calls(&g1, 1, 1, 0, "qf", "waitany mixed");
    handshake(51);
    CHECK_MPI(MPI_Isend(sbuf, 4, MPI_INT, next, 51, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Waitany(2, reqs, &idx, &st));
    CHECK(idx == 0, "waitany mixed: index %d, expected the receive (0)", idx);
    CHECK_STATUS(st, prev, 51, MPI_INT, 4);
    CHECK_MPI(MPI_Wait(&reqs[2], MPI_STATUS_IGNORE));

    /* Testsome/Waitsome: an unsatisfiable receive, an incomplete and a complete grequest */
    gstate_init(&g1, 102, 2);
    gstate_init(&g2, 103, 3);
    start(&g1);
    start(&g2);
    CHECK_MPI(MPI_Irecv(rbuf, 4, MPI_INT, prev, 52, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = g1.req;
    reqs[2] = g2.req;
    CHECK_MPI(MPI_Grequest_complete(g2.req));
    int out = -2, indices[4];
    CHECK_MPI(MPI_Testsome(3, reqs, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 2, "testsome mixed: outcount %d first index %d", out, indices[0]);
    CHECK_STATUS(sts[0], rank, 103, MPI_INT, 3);
    check_calls(&g1, 0, 0, 0, "", "testsome mixed: incomplete grequest");
    check_calls(&g2, 1, 1, 0, "qf", "testsome mixed: complete grequest");
    CHECK_MPI(MPI_Grequest_complete(g1.req));
    CHECK_MPI(MPI_Waitsome(3, reqs, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 1, "waitsome mixed: outcount %d first index %d", out, indices[0]);
    CHECK_STATUS(sts[0], rank, 102, MPI_INT, 2);
    check_calls(&g1, 1, 1, 0, "qf", "waitsome mixed");
    handshake(52);
    CHECK_MPI(MPI_Isend(sbuf, 4, MPI_INT, next, 52, MPI_COMM_WORLD, &reqs[3]));
    CHECK_MPI(MPI_Waitsome(3, reqs, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 0, "waitsome mixed: outcount %d first index %d", out, indices[0]);
    CHECK_STATUS(sts[0], prev, 52, MPI_INT, 4);
    CHECK_MPI(MPI_Waitsome(3, reqs, &out, indices, sts));
    CHECK(out == MPI_UNDEFINED, "waitsome on null requests: outcount %d", out);
    CHECK_MPI(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));

    /* Testall: false while the grequest is incomplete (no callback), then true */
    gstate_init(&g1, 104, 4);
    start(&g1);
    CHECK_MPI(MPI_Irecv(rbuf, 4, MPI_INT, prev, 53, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(sbuf, 4, MPI_INT, next, 53, MPI_COMM_WORLD, &reqs[1]));
    reqs[2] = g1.req;
    int flag = -1;
    double t0 = MPI_Wtime();
    int recv_done = 0;
    while (!recv_done && MPI_Wtime() - t0 < 10) { /* the receive alone completes: the grequest holds Testall */
        CHECK_MPI(MPI_Testall(3, reqs, &flag, sts));
        CHECK(flag == 0, "testall mixed: flag %d while the grequest is incomplete", flag);
        if (flag) break;
        CHECK_MPI(MPI_Request_get_status(reqs[0], &recv_done, MPI_STATUS_IGNORE));
    }
    check_calls(&g1, 0, 0, 0, "", "testall mixed before completion");
    CHECK_MPI(MPI_Grequest_complete(g1.req));
    flag = 0;
    t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 10) CHECK_MPI(MPI_Testall(3, reqs, &flag, sts));
    CHECK(flag == 1, "testall mixed: never true");
    CHECK_STATUS(sts[0], prev, 53, MPI_INT, 4);
    CHECK_STATUS(sts[2], rank, 104, MPI_INT, 4);
    check_calls(&g1, 1, 1, 0, "qf", "testall mixed");
}

static void test_bad_arguments(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    struct gstate g;
    gstate_init(&g, 0, 0);
    int rc = MPI_Grequest_complete(MPI_REQUEST_NULL);
    CHECK(error_class(rc) == MPI_ERR_REQUEST, "Grequest_complete(MPI_REQUEST_NULL) returned %d", rc);

    int buf = 0;
    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    rc = MPI_Grequest_complete(r);
    CHECK(error_class(rc) == MPI_ERR_REQUEST, "Grequest_complete on an Irecv request returned %d", rc);
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    rc = MPI_Grequest_start(NULL, free_fn, cancel_fn, &g, &r);
    CHECK(error_class(rc) == MPI_ERR_ARG, "Grequest_start with NULL query_fn returned %d", rc);
    rc = MPI_Grequest_start(query_fn, NULL, cancel_fn, &g, &r);
    CHECK(error_class(rc) == MPI_ERR_ARG, "Grequest_start with NULL free_fn returned %d", rc);
    rc = MPI_Grequest_start(query_fn, free_fn, NULL, &g, &r);
    CHECK(error_class(rc) == MPI_ERR_ARG, "Grequest_start with NULL cancel_fn returned %d", rc);
    rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, NULL);
    CHECK(error_class(rc) == MPI_ERR_ARG, "Grequest_start with NULL request returned %d", rc);

    /* twice: the second call fails, the request still works */
    start(&g);
    CHECK_MPI(MPI_Grequest_complete(g.req));
    rc = MPI_Grequest_complete(g.req);
    CHECK(error_class(rc) == MPI_ERR_REQUEST, "second Grequest_complete returned %d", rc);
    /* not persistent: cannot be started */
    rc = MPI_Start(&g.req);
    CHECK(error_class(rc) == MPI_ERR_REQUEST, "MPI_Start on a grequest returned %d", rc);
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&g.req, &st));
    check_calls(&g, 1, 1, 0, "qf", "after the error cases");
    CHECK_STATUS(st, rank, 0, MPI_INT, 0);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    /* errors not tied to a communicator may be raised on either */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    test_wait();
    test_test();
    test_get_status();
    test_request_free();
    test_cancel();
    test_errors_from_callbacks();
    test_mixed();
    test_bad_arguments();

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
