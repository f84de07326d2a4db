/* MPI-4.1 buffered-mode buffers: the communicator's buffer before the process buffer (and the
 * reverse on another communicator), Ibsend and Bsend_init through the communicator's buffer,
 * detach giving back the same address and size, MPI_BUFFER_AUTOMATIC (many buffered sends of
 * growing size before any receive, detach giving back MPI_BUFFER_AUTOMATIC), a communicator freed
 * with its buffer attached, MPI_Comm_get_parent, and the error cases with MPI_ERRORS_RETURN, the
 * library still working after each. */
#include <stdlib.h>

#include "mpitest.h"

static int rank, size, next, prev;

/* One message around the ring on comm, in standard mode: the library still works. */
static void ring_ok(MPI_Comm comm, int tag)
{
    int out = rank * 1000 + tag, in = -1;
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, tag, comm, &r));
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, tag, comm));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in == prev * 1000 + tag, "ring on tag %d got %d, expected %d", tag, in, prev * 1000 + tag);
}

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* Receives n ints from prev on comm and checks they are base + i. */
static void recv_check(MPI_Comm comm, int n, int tag, int base)
{
    int* in = malloc(sizeof(int) * (size_t)n);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(in, n, MPI_INT, prev, tag, comm, &st));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += in[i] != base + i;
    CHECK(bad == 0, "%d of %d ints wrong on tag %d", bad, n, tag);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
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

    MPI_Comm parent = (MPI_Comm)1;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent gave a communicator: Baton has no spawn");

    enum { N = 1000 };
    int* data = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) data[i] = rank * 100000 + i;
    const int need = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;

    MPI_Comm ca, cb;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ca));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &cb));
    MPI_Comm_set_errhandler(ca, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(cb, MPI_ERRORS_RETURN);

    /* 1. Process buffer too small, ca's buffer large enough: the Bsend on ca succeeds, the one on
     * MPI_COMM_WORLD fails with MPI_ERR_BUFFER. */
    char* small = malloc(MPI_BSEND_OVERHEAD + 16);
    char* big = malloc((size_t)need * 4);
    CHECK_MPI(MPI_Buffer_attach(small, MPI_BSEND_OVERHEAD + 16));
    CHECK_MPI(MPI_Comm_attach_buffer(ca, big, need * 4));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 1, ca));
    int rc = MPI_Bsend(data, N, MPI_INT, next, 2, MPI_COMM_WORLD);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend through a too small process buffer gave class %d",
          err_class(rc));
    /* Ibsend and a persistent Bsend_init on ca use its buffer too (three blocks in it at once). */
    MPI_Request ri, rp;
    CHECK_MPI(MPI_Ibsend(data, N, MPI_INT, next, 3, ca, &ri));
    CHECK_MPI(MPI_Bsend_init(data, N, MPI_INT, next, 4, ca, &rp));
    CHECK_MPI(MPI_Start(&rp));
    CHECK_MPI(MPI_Wait(&ri, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rp, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&rp));
    recv_check(ca, N, 1, prev * 100000);
    recv_check(ca, N, 3, prev * 100000);
    recv_check(ca, N, 4, prev * 100000);
    ring_ok(MPI_COMM_WORLD, 5);

    /* detach gives back the same address and size */
    void* got = NULL;
    int got_size = -1;
    CHECK_MPI(MPI_Comm_detach_buffer(ca, &got, &got_size));
    CHECK(got == big && got_size == need * 4, "Comm_detach_buffer gave %p/%d, attached %p/%d", got, got_size,
          (void*)big, need * 4);
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == small && got_size == MPI_BSEND_OVERHEAD + 16, "Buffer_detach gave %p/%d", got, got_size);

    /* 2. The reverse: cb's own buffer is too small while the process buffer is large: the Bsend on
     * cb fails (its buffer wins), the one on MPI_COMM_WORLD succeeds; ca (no buffer of its own
     * now) falls back on the process buffer. */
    CHECK_MPI(MPI_Buffer_attach(big, need * 4));
    CHECK_MPI(MPI_Comm_attach_buffer(cb, small, MPI_BSEND_OVERHEAD + 16));
    rc = MPI_Bsend(data, N, MPI_INT, next, 6, cb);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend through cb's too small buffer gave class %d", err_class(rc));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 8, ca));
    /* a message that fits cb's small buffer goes */
    CHECK_MPI(MPI_Bsend(data, 4, MPI_INT, next, 9, cb));
    recv_check(MPI_COMM_WORLD, N, 7, prev * 100000);
    recv_check(ca, N, 8, prev * 100000);
    recv_check(cb, 4, 9, prev * 100000);
    ring_ok(cb, 10);

    /* 3. Errors, each followed by a working call. */
    rc = MPI_Comm_attach_buffer(cb, big, need);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "attaching twice to a communicator gave class %d", err_class(rc));
    ring_ok(cb, 11);
    rc = MPI_Buffer_attach(small, 64);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "attaching twice to the process gave class %d", err_class(rc));
    ring_ok(MPI_COMM_WORLD, 12);
    rc = MPI_Comm_detach_buffer(ca, &got, &got_size);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "detaching from a communicator without buffer gave class %d",
          err_class(rc));
    ring_ok(ca, 13);
    rc = MPI_Comm_attach_buffer(ca, big, -5);
    CHECK(err_class(rc) == MPI_ERR_ARG, "a negative size gave class %d", err_class(rc));
    rc = MPI_Comm_attach_buffer_c(ca, big, (MPI_Count)-1);
    CHECK(err_class(rc) == MPI_ERR_ARG, "a negative size (_c) gave class %d", err_class(rc));
    rc = MPI_Comm_detach_buffer(ca, &got, &got_size);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "the refused attach left a buffer attached (class %d)", err_class(rc));
    rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, big, need);
    CHECK(err_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL gave class %d", err_class(rc));
    rc = MPI_Comm_flush_buffer(MPI_COMM_NULL);
    CHECK(err_class(rc) == MPI_ERR_COMM, "flush on MPI_COMM_NULL gave class %d", err_class(rc));
    ring_ok(ca, 14);
    /* flush with no buffer attached: nothing to wait for */
    CHECK_MPI(MPI_Comm_flush_buffer(ca));
    MPI_Request rf;
    CHECK_MPI(MPI_Comm_iflush_buffer(ca, &rf));
    CHECK_MPI(MPI_Wait(&rf, MPI_STATUS_IGNORE));
    CHECK(rf == MPI_REQUEST_NULL, "iflush request not freed by MPI_Wait");

    CHECK_MPI(MPI_Comm_detach_buffer(cb, &got, &got_size));
    CHECK(got == small && got_size == MPI_BSEND_OVERHEAD + 16, "cb detach gave %p/%d", got, got_size);
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == big, "process detach gave %p", got);
    /* no buffer anywhere: MPI_ERR_BUFFER */
    rc = MPI_Bsend(data, 1, MPI_INT, next, 15, ca);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "Bsend with no buffer attached gave class %d", err_class(rc));
    ring_ok(ca, 15);

    /* 4. Automatic buffers: many buffered sends of growing size before the receiver receives. */
    enum { K = 12 };
    CHECK_MPI(MPI_Comm_attach_buffer(ca, MPI_BUFFER_AUTOMATIC, 0));
    int* big_data = malloc(sizeof(int) << K);
    for (int i = 0; i < (1 << K); i++) big_data[i] = rank * 100000 + i;
    for (int k = 0; k <= K; k++) CHECK_MPI(MPI_Bsend(big_data, 1 << k, MPI_INT, next, 100 + k, ca));
    /* rendezvous-sized ones too (1 MB each, several at once) */
    int* huge = malloc(sizeof(int) << 18);
    for (int i = 0; i < (1 << 18); i++) huge[i] = rank * 100000 + i;
    for (int j = 0; j < 3; j++) CHECK_MPI(MPI_Bsend(huge, 1 << 18, MPI_INT, next, 200 + j, ca));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = K; k >= 0; k--) recv_check(ca, 1 << k, 100 + k, prev * 100000);
    for (int j = 0; j < 3; j++) recv_check(ca, 1 << 18, 200 + j, prev * 100000);
    CHECK_MPI(MPI_Comm_detach_buffer(ca, &got, &got_size));
    CHECK(got == MPI_BUFFER_AUTOMATIC, "detach of an automatic buffer gave %p", got);
    /* the process buffer can be automatic too */
    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    CHECK_MPI(MPI_Bsend(huge, 1 << 18, MPI_INT, next, 300, MPI_COMM_WORLD));
    recv_check(MPI_COMM_WORLD, 1 << 18, 300, prev * 100000);
    MPI_Count got_c = -1;
    CHECK_MPI(MPI_Buffer_detach_c(&got, &got_c));
    CHECK(got == MPI_BUFFER_AUTOMATIC, "process detach_c of an automatic buffer gave %p", got);

    /* 5. A communicator freed with its buffer attached (implicitly detached when the object
     * goes, after its pending operations): the receive posted before the free and the buffered
     * send made before it both complete. */
    CHECK_MPI(MPI_Comm_attach_buffer_c(cb, big, (MPI_Count)need * 4));
    int* in5 = malloc(sizeof(int) * N);
    MPI_Request r5;
    CHECK_MPI(MPI_Irecv(in5, N, MPI_INT, prev, 400, cb, &r5));
    CHECK_MPI(MPI_Bsend(data, N, MPI_INT, next, 400, cb));
    CHECK_MPI(MPI_Comm_free(&cb));
    CHECK(cb == MPI_COMM_NULL, "Comm_free did not null the handle");
    CHECK_MPI(MPI_Wait(&r5, MPI_STATUS_IGNORE));
    int bad5 = 0;
    for (int i = 0; i < N; i++) bad5 += in5[i] != prev * 100000 + i;
    CHECK(bad5 == 0, "%d ints wrong after Comm_free with a buffer attached", bad5);
    free(in5);
    ring_ok(MPI_COMM_WORLD, 401);

    free(huge);
    free(big_data);
    CHECK_MPI(MPI_Comm_free(&ca));
    int result = mpitest_finish();
    free(data);
    free(small);
    free(big);
    MPI_Finalize();
    return result;
}
