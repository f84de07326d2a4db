/* Generalized requests under MPI_THREAD_MULTIPLE: the main thread blocks in a completion call
 * while a helper thread calls MPI_Grequest_complete after a delay. The call must not return
 * before the completion, must return promptly after it (the waiter sleeps without the engine
 * lock and is woken), and must run query_fn then free_fn once, in the waiting thread:
 *   1. MPI_Wait on one grequest;
 *   2. MPI_Waitall on a grequest and an Irecv whose message the helper sends after a delay;
 *   3. MPI_Waitany on two grequests, the second completed by the helper;
 *   4. MPI_Request_free first, then the helper's MPI_Grequest_complete runs free_fn (query_fn
 *      never), seen by the main thread. */
#define _GNU_SOURCE
#include "mpitest.h"

#include <pthread.h>
#include <time.h>

static int rank, size, next, prev;

/* after the completion, the waiter must be back within this (the wake-up is a futex wake;
 * the bound leaves room for a loaded machine) */
static const double max_wake_s = 0.3;
static const double delay_s = 0.2;

struct gstate {
    int query_calls, free_calls;
    pthread_t query_thread, free_thread;
    int tag;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int query_fn(void* extra, MPI_Status* st)
{
    struct gstate* g = extra;
    g->query_calls++;
    g->query_thread = pthread_self();
    st->MPI_SOURCE = rank;
    st->MPI_TAG = g->tag;
    MPI_Status_set_elements(st, MPI_BYTE, 8);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int free_fn(void* extra)
{
    struct gstate* g = extra;
    g->free_calls++;
    g->free_thread = pthread_self();
    return MPI_SUCCESS;
}

static int cancel_fn(void* extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* What the helper thread does: optionally send to next, then complete the request. */
struct helper_job {
    MPI_Request req;
    double send_after, complete_after; /* seconds from the start; send_after < 0: no send */
    int send_tag;
    int rc_send, rc_complete;
    double completed_at;
};

static void* helper(void* arg)
{
    struct helper_job* j = arg;
    double t0 = now();
    if (j->send_after >= 0) {
        sleep_s(j->send_after);
        int v = rank * 10 + 7;
        j->rc_send = MPI_Send(&v, 1, MPI_INT, next, j->send_tag, MPI_COMM_WORLD);
    }
    double left = j->complete_after - (now() - t0);
    if (left > 0) sleep_s(left);
    j->completed_at = now();
    j->rc_complete = MPI_Grequest_complete(j->req);
    return NULL;
}

static void run_helper(pthread_t* th, struct helper_job* j)
{
    if (pthread_create(th, NULL, helper, j) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void check_timing(const char* what, double t0, double t1, const struct helper_job* j)
{
    CHECK(t1 >= j->completed_at, "%s returned %.3f s before MPI_Grequest_complete was called", what,
          j->completed_at - t1);
    CHECK(t1 - j->completed_at < max_wake_s, "%s returned %.3f s after MPI_Grequest_complete (limit %.1f s)", what,
          t1 - j->completed_at, max_wake_s);
    CHECK(t1 - t0 >= delay_s * 0.9, "%s took only %.3f s, the completion came after %.1f s", what, t1 - t0, delay_s);
    CHECK(j->rc_complete == MPI_SUCCESS, "%s: the helper's MPI_Grequest_complete returned %d", what, j->rc_complete);
}

static void check_callbacks(const char* what, const struct gstate* g, int query_calls)
{
    CHECK(g->query_calls == query_calls, "%s: query_fn called %d times, expected %d", what, g->query_calls,
          query_calls);
    CHECK(g->free_calls == 1, "%s: free_fn called %d times", what, g->free_calls);
    if (query_calls)
        CHECK(pthread_equal(g->query_thread, pthread_self()), "%s: query_fn ran outside the waiting thread", what);
}

static void test_wait(void)
{
    struct gstate g = {0};
    g.tag = 5;
    struct helper_job j = {MPI_REQUEST_NULL, -1, delay_s, 0, 0, -1, 0};
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &j.req));
    MPI_Request req = j.req;
    pthread_t th;
    double t0 = now();
    run_helper(&th, &j);
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&req, &st));
    double t1 = now();
    pthread_join(th, NULL);
    check_timing("MPI_Wait", t0, t1, &j);
    check_callbacks("MPI_Wait", &g, 1);
    CHECK(pthread_equal(g.free_thread, pthread_self()), "MPI_Wait: free_fn ran outside the waiting thread");
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait: handle not freed");
    CHECK_STATUS(st, rank, 5, MPI_BYTE, 8);
}

static void test_waitall_with_irecv(void)
{
    struct gstate g = {0};
    g.tag = 6;
    struct helper_job j = {MPI_REQUEST_NULL, delay_s / 2, delay_s, 31, -1, -1, 0};
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &j.req));
    int v = -1;
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, prev, 31, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = j.req;
    pthread_t th;
    double t0 = now();
    run_helper(&th, &j);
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, reqs, sts));
    double t1 = now();
    pthread_join(th, NULL);
    check_timing("MPI_Waitall", t0, t1, &j);
    check_callbacks("MPI_Waitall", &g, 1);
    CHECK(j.rc_send == MPI_SUCCESS, "MPI_Waitall: the helper's MPI_Send returned %d", j.rc_send);
    CHECK(v == prev * 10 + 7, "MPI_Waitall: received %d, expected %d", v, prev * 10 + 7);
    CHECK_STATUS(sts[0], prev, 31, MPI_INT, 1);
    CHECK_STATUS(sts[1], rank, 6, MPI_BYTE, 8);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "MPI_Waitall: handles not freed");
}

static void test_waitany(void)
{
    struct gstate g0 = {0}, g1 = {0};
    g0.tag = 7;
    g1.tag = 8;
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g0, &reqs[0]));
    struct helper_job j = {MPI_REQUEST_NULL, -1, delay_s, 0, 0, -1, 0};
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g1, &j.req));
    reqs[1] = j.req;
    pthread_t th;
    double t0 = now();
    run_helper(&th, &j);
    int idx = -2;
    MPI_Status st;
    CHECK_MPI(MPI_Waitany(2, reqs, &idx, &st));
    double t1 = now();
    pthread_join(th, NULL);
    check_timing("MPI_Waitany", t0, t1, &j);
    CHECK(idx == 1, "MPI_Waitany: index %d, expected 1", idx);
    check_callbacks("MPI_Waitany", &g1, 1);
    CHECK(g0.query_calls == 0 && g0.free_calls == 0, "MPI_Waitany: callbacks of the incomplete request ran");
    CHECK_STATUS(st, rank, 8, MPI_BYTE, 8);
    CHECK_MPI(MPI_Grequest_complete(reqs[0]));
    CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    check_callbacks("MPI_Wait after MPI_Waitany", &g0, 1);
}

static void test_free_then_complete(void)
{
    struct gstate g = {0};
    struct helper_job j = {MPI_REQUEST_NULL, -1, delay_s / 4, 0, 0, -1, 0};
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &j.req));
    MPI_Request req = j.req;
    CHECK_MPI(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free: handle not freed");
    pthread_t th;
    run_helper(&th, &j);
    pthread_join(th, NULL);
    CHECK(j.rc_complete == MPI_SUCCESS, "free then complete: MPI_Grequest_complete returned %d", j.rc_complete);
    check_callbacks("free then complete", &g, 0);
    CHECK(pthread_equal(g.free_thread, th), "free then complete: free_fn did not run in the completing thread");
}

int main(int argc, char** argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d", provided);

    test_wait();
    test_waitall_with_irecv();
    test_waitany();
    test_free_then_complete();

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
