/* Session buffers (MPI_Session_attach_buffer and friends): a communicator made from a session's
 * process set (and its dup) sends buffered through the session's buffer when it has none of its
 * own; MPI_COMM_WORLD does not see it; a communicator buffer on a session communicator wins over
 * the session's; detach gives back address and size; flush/iflush; errors through the session's
 * error handler (MPI_ERRORS_RETURN); MPI_Session_finalize with a buffer attached. */
#include <stdlib.h>

#include "mpitest.h"

static int rank, size, next, prev;

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void recv_check(MPI_Comm comm, int n, int tag, int base)
{
    int* in = malloc(sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Recv(in, n, MPI_INT, prev, tag, comm, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += in[i] != base + i;
    CHECK(bad == 0, "%d of %d ints wrong on tag %d", bad, n, tag);
    free(in);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    enum { N = 2000 };
    int* data = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) data[i] = rank * 1000 + i;
    const int need = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;

    MPI_Session s;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm sc, sc2;
    CHECK_MPI(MPI_Comm_create_from_group(g, "baton.buffers.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
    CHECK_MPI(MPI_Comm_dup(sc, &sc2));
    /* a communicator made from a group of a session communicator derives from the session too */
    MPI_Group g2;
    MPI_Comm sc3;
    CHECK_MPI(MPI_Comm_group(sc, &g2));
    CHECK_MPI(MPI_Comm_create_from_group(g2, "baton.buffers.session3", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc3));

    /* no buffer anywhere yet */
    int rc = MPI_Bsend(data, N, MPI_INT, next, 1, sc);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend with no buffer gave class %d", err_class(rc));

    /* room for every buffered send of this test on the session's buffer (6): a block comes back
     * only when its send completes at the sender, which over a network may be after the receive */
    char* sbuf = malloc((size_t)need * 8);
    CHECK_MPI(MPI_Session_attach_buffer(s, sbuf, need * 8));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 2, sc));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 3, sc2));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 4, sc3));
    /* MPI_COMM_WORLD does not derive from the session: no buffer for it */
    rc = MPI_Bsend(data, N, MPI_INT, next, 5, MPI_COMM_WORLD);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend on MPI_COMM_WORLD used the session's buffer (class %d)",
          err_class(rc));
    recv_check(sc, N, 2, prev * 1000);
    recv_check(sc2, N, 3, prev * 1000);
    recv_check(sc3, N, 4, prev * 1000);

    /* a communicator buffer on sc2 wins over the session's: too small, the send fails */
    char small[MPI_BSEND_OVERHEAD + 8];
    CHECK_MPI(MPI_Comm_attach_buffer(sc2, small, (int)sizeof small));
    rc = MPI_Bsend(data, N, MPI_INT, next, 6, sc2);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend on sc2 did not use its own small buffer (class %d)", err_class(rc));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 7, sc)); /* sc still uses the session's */
    recv_check(sc, N, 7, prev * 1000);
    void* got = NULL;
    int got_size = 0;
    CHECK_MPI(MPI_Comm_detach_buffer(sc2, &got, &got_size));
    CHECK(got == small && got_size == (int)sizeof small, "sc2 detach gave %p/%d", got, got_size);

    /* flush and iflush on the session's buffer */
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 8, sc));
    MPI_Request rf;
    CHECK_MPI(MPI_Session_iflush_buffer(s, &rf));
    recv_check(sc, N, 8, prev * 1000);
    CHECK_MPI(MPI_Wait(&rf, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Session_flush_buffer(s));

    /* errors, through the session's handler (MPI_ERRORS_RETURN) */
    rc = MPI_Session_attach_buffer(s, sbuf, need);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "attaching twice to a session gave class %d", err_class(rc));
    rc = MPI_Session_attach_buffer(MPI_SESSION_NULL, sbuf, need);
    CHECK(err_class(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL gave class %d", err_class(rc));
    CHECK_MPI(MPI_Bsend(data, 10, MPI_INT, next, 9, sc)); /* still works */
    recv_check(sc, 10, 9, prev * 1000);

    MPI_Count got_c = 0;
    CHECK_MPI(MPI_Session_detach_buffer_c(s, &got, &got_c));
    CHECK(got == sbuf && got_c == (MPI_Count)need * 8, "session detach gave %p/%lld", got, (long long)got_c);
    rc = MPI_Session_detach_buffer(s, &got, &got_size);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "detaching from a session without buffer gave class %d", err_class(rc));
    rc = MPI_Session_attach_buffer(s, sbuf, -1);
    CHECK(err_class(rc) == MPI_ERR_ARG, "a negative session buffer size gave class %d", err_class(rc));

    /* the process buffer serves session communicators with no session buffer */
    CHECK_MPI(MPI_Buffer_attach(sbuf, need * 8));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 10, sc));
    recv_check(sc, N, 10, prev * 1000);
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));

    /* automatic session buffer, left attached at MPI_Session_finalize (detached implicitly after
     * its messages left) */
    CHECK_MPI(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    int* in = malloc(sizeof(int) * N);
    MPI_Request rr;
    CHECK_MPI(MPI_Irecv(in, N, MPI_INT, prev, 11, sc, &rr));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 11, sc));
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += in[i] != prev * 1000 + i;
    CHECK(bad == 0, "%d ints wrong through the automatic session buffer", bad);
    free(in);

    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&g2));
    CHECK_MPI(MPI_Comm_free(&sc3));
    CHECK_MPI(MPI_Comm_free(&sc2));
    CHECK_MPI(MPI_Comm_free(&sc));
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "Session_finalize did not null the handle");

    int result = mpitest_finish();
    free(data);
    free(sbuf);
    MPI_Finalize();
    return result;
}
