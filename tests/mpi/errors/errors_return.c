/* With MPI_ERRORS_RETURN, erroneous point-to-point calls return an error code of the right class
 * (MPI_Error_class) and the library keeps working afterwards:
 *   invalid rank, invalid tag (negative, MPI_ANY_TAG on a send, > MPI_TAG_UB), negative count,
 *   MPI_DATATYPE_NULL, MPI_COMM_NULL, NULL buffer with a nonzero count, truncation (blocking,
 *   nonblocking, Waitall with MPI_ERR_IN_STATUS, eager and rendezvous sizes), MPI_Start of an
 *   active persistent request;
 * (the other receive in that Waitall may report MPI_SUCCESS or MPI_ERR_PENDING);
 * MPI_Error_string gives a non-empty string for every class used; a user error handler made
 * with MPI_Comm_create_errhandler is called with the communicator and an error of the right
 * class, is inherited by MPI_Comm_dup, and MPI_Comm_call_errhandler invokes it. */
#include "mpitest.h"

#include <limits.h>

static int rank, size, next, prev;

#define CHECK_CLASS(call, expected) check_class_((call), (expected), #call, #expected, __LINE__)

static void check_class_(int rc, int expected, const char* call, const char* ename, int line)
{
    int cls = -1;
    if (rc == MPI_SUCCESS) {
        mpitest_fail(__FILE__, line, call, "succeeded, expected %s", ename);
        return;
    }
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) {
        mpitest_fail(__FILE__, line, call, "MPI_Error_class(%d) failed", rc);
        return;
    }
    if (cls != expected) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(rc, s, &len);
        mpitest_fail(__FILE__, line, call, "error class %d (%s), expected %s (%d)", cls, s, ename,
                     expected);
    }
}

/* One correct exchange around the ring: the library still works. */
static void ring_ok(const char* after)
{
    int out = rank * 3 + 1, in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 0, &in, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, &st));
    CHECK(in == prev * 3 + 1, "exchange after %s: got %d", after, in);
    CHECK_STATUS(st, prev, 0, MPI_INT, 1);
}

static void test_argument_errors(void)
{
    int buf[4] = {0}, tag_ub = 32767, flag = 0, *ub = NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    if (flag && ub) tag_ub = *ub;

    /* ranks */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Ssend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    ring_ok("invalid ranks");

    /* tags */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, next, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, next, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    if (tag_ub < INT_MAX)
        CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, next, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, prev, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, next, -3, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
    ring_ok("invalid tags");

    /* counts */
    CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Recv(buf, -1, MPI_INT, prev, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Irecv(buf, -2, MPI_INT, prev, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    ring_ok("negative counts");

    /* datatype */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, next, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, prev, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
    ring_ok("MPI_DATATYPE_NULL");

    /* communicator */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    ring_ok("MPI_COMM_NULL");

    /* NULL buffer with a nonzero count */
    CHECK_CLASS(MPI_Send(NULL, 3, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Recv(NULL, 3, MPI_INT, prev, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    ring_ok("NULL buffers");

    /* NULL request pointers: refused, never run as the blocking call */
    int one = 1, sum = 0;
    CHECK_CLASS(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK(sum == 0, "MPI_Iallreduce with a NULL request ran anyway (sum %d)", sum);
    CHECK_CLASS(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Ibcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, next, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, NULL),
                MPI_ERR_ARG);
    ring_ok("NULL request pointers");
}

/* Messages larger than the receive buffer: MPI_ERR_TRUNCATE, then the next message is fine. */
static void test_truncation(void)
{
    enum { BIG = 1 << 18 };
    int* out = mpitest_malloc(sizeof(int) * BIG);
    int* in = mpitest_malloc(sizeof(int) * BIG);
    MPI_Request sreq[3], rreq[2];
    MPI_Status st, sts[2];
    for (int i = 0; i < BIG; i++) out[i] = i;

    /* blocking, small */
    CHECK_MPI(MPI_Isend(out, 10, MPI_INT, next, 20, MPI_COMM_WORLD, &sreq[0]));
    CHECK_CLASS(MPI_Recv(in, 5, MPI_INT, prev, 20, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    /* blocking, large (rendezvous) into 1 KB */
    CHECK_MPI(MPI_Isend(out, BIG, MPI_INT, next, 21, MPI_COMM_WORLD, &sreq[0]));
    CHECK_CLASS(MPI_Recv(in, 256, MPI_INT, prev, 21, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    ring_ok("truncated receives");

    /* nonblocking: the error comes from Wait */
    CHECK_MPI(MPI_Irecv(in, 5, MPI_INT, prev, 22, MPI_COMM_WORLD, &rreq[0]));
    CHECK_MPI(MPI_Isend(out, 10, MPI_INT, next, 22, MPI_COMM_WORLD, &sreq[0]));
    CHECK_CLASS(MPI_Wait(&rreq[0], &st), MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));

    /* Waitall: MPI_ERR_IN_STATUS, the truncated one has MPI_ERR_TRUNCATE, the other succeeds */
    CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, prev, 23, MPI_COMM_WORLD, &rreq[0]));
    CHECK_MPI(MPI_Irecv(in + 4, 4, MPI_INT, prev, 24, MPI_COMM_WORLD, &rreq[1]));
    CHECK_MPI(MPI_Isend(out, BIG, MPI_INT, next, 23, MPI_COMM_WORLD, &sreq[0]));
    CHECK_MPI(MPI_Isend(out + 100, 4, MPI_INT, next, 24, MPI_COMM_WORLD, &sreq[1]));
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
    CHECK_CLASS(MPI_Waitall(2, rreq, sts), MPI_ERR_IN_STATUS);
    int cls = -1;
    MPI_Error_class(sts[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Waitall: truncated receive has error class %d", cls);
    /* the good receive is MPI_SUCCESS, or MPI_ERR_PENDING (MPICH) and then still active */
    cls = -1;
    MPI_Error_class(sts[1].MPI_ERROR, &cls);
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_PENDING, "Waitall: good receive has error class %d",
          cls);
    if (cls == MPI_ERR_PENDING) CHECK_MPI(MPI_Wait(&rreq[1], MPI_STATUS_IGNORE));
    CHECK(rreq[0] == MPI_REQUEST_NULL && rreq[1] == MPI_REQUEST_NULL,
          "Waitall: requests not freed");
    CHECK(in[4] == 100 && in[7] == 103, "Waitall: good receive got %d..%d", in[4], in[7]);
    CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    ring_ok("truncation in Waitall");
    free(out);
    free(in);
}

/* MPI_Start of a persistent request that is already active. */
static void test_start_active(void)
{
    int in = -1, out = rank + 40;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, prev, 30, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_CLASS(MPI_Start(&req), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Startall(1, &req), MPI_ERR_REQUEST);
    /* the first start is still there and completes normally */
    MPI_Request sreq;
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, 30, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_STATUS(st, prev, 30, MPI_INT, 1);
    CHECK(in == prev + 40, "persistent receive after the failed Start got %d", in);
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&req));
    ring_ok("MPI_Start of an active request");
}

static void test_error_strings(void)
{
    const int classes[] = {MPI_SUCCESS,   MPI_ERR_RANK,    MPI_ERR_TAG,       MPI_ERR_COUNT,
                           MPI_ERR_TYPE,  MPI_ERR_COMM,    MPI_ERR_BUFFER,    MPI_ERR_TRUNCATE,
                           MPI_ERR_REQUEST, MPI_ERR_IN_STATUS, MPI_ERR_OTHER, MPI_ERR_ARG};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1, cls = -1;
        memset(s, 'x', sizeof s);
        CHECK_MPI(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "Error_string(%d): length %d", classes[i], len);
        if (len > 0 && len < MPI_MAX_ERROR_STRING)
            CHECK(s[len] == '\0' && (int)strlen(s) == len, "Error_string(%d): not terminated at %d",
                  classes[i], len);
        CHECK_MPI(MPI_Error_class(classes[i], &cls));
        CHECK(cls == classes[i], "Error_class of class %d is %d", classes[i], cls);
    }
    CHECK(MPI_SUCCESS == 0, "MPI_SUCCESS is %d", MPI_SUCCESS);
    CHECK(MPI_ERR_LASTCODE > MPI_ERR_TRUNCATE, "MPI_ERR_LASTCODE is %d", MPI_ERR_LASTCODE);
}

/* A user error handler. */
static int handler_calls;
static int handler_class;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm* comm, int* code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

static void test_user_errhandler(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup, dup2;
    int buf = 0, rc;
    CHECK_MPI(MPI_Comm_create_errhandler(my_handler, &eh));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
    CHECK_MPI(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh, "Comm_get_errhandler returned a different handler");
    CHECK_MPI(MPI_Errhandler_free(&got));

    handler_calls = 0;
    rc = MPI_Send(&buf, 1, MPI_INT, size + 1, 0, dup);
    CHECK(handler_calls == 1, "user handler called %d times for an invalid rank", handler_calls);
    CHECK(handler_class == MPI_ERR_RANK, "user handler got class %d, expected MPI_ERR_RANK",
          handler_class);
    CHECK(handler_comm == dup, "user handler got another communicator");
    CHECK(rc != MPI_SUCCESS, "the call returned MPI_SUCCESS after the handler ran");

    handler_calls = 0;
    rc = MPI_Recv(&buf, 1, MPI_INT, prev, -9, dup, MPI_STATUS_IGNORE);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_TAG,
          "invalid tag: handler calls %d class %d", handler_calls, handler_class);

    /* inherited by a duplicate */
    CHECK_MPI(MPI_Comm_dup(dup, &dup2));
    handler_calls = 0;
    rc = MPI_Send(&buf, -4, MPI_INT, next, 0, dup2);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_COUNT && handler_comm == dup2,
          "duplicate: handler calls %d class %d", handler_calls, handler_class);

    /* MPI_Comm_call_errhandler */
    handler_calls = 0;
    CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_OTHER && handler_comm == dup,
          "Comm_call_errhandler: calls %d class %d", handler_calls, handler_class);

    /* MPI_COMM_WORLD still returns errors without calling the handler */
    handler_calls = 0;
    CHECK_CLASS(MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK(handler_calls == 0, "user handler called for an error on another communicator");

    /* communication on the communicator with the handler still works */
    int out = rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 1, &in, 1, MPI_INT, prev, 1, dup2,
                           MPI_STATUS_IGNORE));
    CHECK(in == prev, "exchange on the duplicate got %d", in);
    CHECK(handler_calls == 0, "user handler called for a correct exchange");

    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
    CHECK_MPI(MPI_Comm_free(&dup2));
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
    /* errors without a communicator (MPI_COMM_NULL) go to MPI_COMM_SELF's handler in MPI 4 and
     * later, to MPI_COMM_WORLD's before */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Errhandler got;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_COMM_WORLD's handler is not MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&got));

    test_argument_errors();
    test_truncation();
    test_start_active();
    test_error_strings();
    test_user_errhandler();
    ring_ok("all errors");

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
