/* MPI_Cancel of receives, checked with MPI_Test_cancelled:
 * - a posted receive no message can match is cancelled (specific and wildcard source/tag), the
 *   Wait/Test completes and the request becomes MPI_REQUEST_NULL;
 * - a message sent afterwards with the cancelled receive's tag goes to the next receive;
 * - a receive that has already matched (the sender's Ssend returned, eager and rendezvous
 *   sizes) is not cancelled and its data arrives intact;
 * - a started persistent receive is cancelled and the request can be started again.
 * Ring (rank -> rank+1); "go"/"done" coordination on a separate communicator. */
#include "mpitest.h"

static int rank, size, next, prev;
static MPI_Comm ctrl;

static void test_cancel_unmatched(void)
{
    MPI_Comm quiet;
    MPI_Request req;
    MPI_Status st;
    int buf = -1, flag = 0;

    /* nobody ever sends tag 77 on MPI_COMM_WORLD */
    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, prev, 77, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK(req != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "Wait of a cancelled receive did not free it");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "unmatched receive (specific source/tag) not cancelled");
    CHECK(buf == -1, "cancelled receive wrote the buffer");

    /* wildcard receive on a communicator with no traffic, completed with Test */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &req));
    CHECK_MPI(MPI_Cancel(&req));
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "unmatched wildcard receive not cancelled");
    CHECK_MPI(MPI_Comm_free(&quiet));
}

/* After a cancelled receive, a message with its tag is received by the next receive. */
static void test_cancel_then_send(void)
{
    const int tag = 5;
    MPI_Request req, go;
    MPI_Status st;
    int buf = -1, flag = 0, out = 500 + rank;

    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive cancelled before any send: not cancelled");
    /* only now may prev send */
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &go));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
    MPI_Request sreq;
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Recv(&buf, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_STATUS(st, prev, tag, MPI_INT, 1);
    CHECK(buf == 500 + prev, "message after a cancelled receive: got %d", buf);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "a normal receive reports cancelled");
    CHECK_MPI(MPI_Wait(&go, MPI_STATUS_IGNORE));
}

/* Cancelling receives that have already matched has no effect. */
static void test_cancel_matched(void)
{
    enum { BIG = 1 << 18 };
    int* big = mpitest_malloc(sizeof(int) * BIG);
    int* rbig = mpitest_malloc(sizeof(int) * BIG);
    int small = -1, out = 600 + rank, flag = 1;
    MPI_Request req[2], done;
    MPI_Status st[2];

    for (int i = 0; i < BIG; i++) big[i] = rank * 7 + i;
    CHECK_MPI(MPI_Irecv(&small, 1, MPI_INT, prev, 6, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Irecv(rbig, BIG, MPI_INT, prev, 7, MPI_COMM_WORLD, &req[1]));
    /* Ssend returns only once the receive has matched */
    CHECK_MPI(MPI_Ssend(&out, 1, MPI_INT, next, 6, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(big, BIG, MPI_INT, next, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, 6, ctrl, &done));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, prev, 6, ctrl, MPI_STATUS_IGNORE));
    /* both of our receives have matched by now */
    CHECK_MPI(MPI_Cancel(&req[0]));
    CHECK_MPI(MPI_Cancel(&req[1]));
    CHECK_MPI(MPI_Waitall(2, req, st));
    for (int i = 0; i < 2; i++) {
        CHECK_MPI(MPI_Test_cancelled(&st[i], &flag));
        CHECK(!flag, "matched receive %d was cancelled", i);
    }
    CHECK_STATUS(st[0], prev, 6, MPI_INT, 1);
    CHECK_STATUS(st[1], prev, 7, MPI_INT, BIG);
    CHECK(small == 600 + prev, "matched small receive got %d", small);
    int bad = BIG;
    for (int i = 0; i < BIG; i++)
        if (rbig[i] != prev * 7 + i) {
            bad = i;
            break;
        }
    CHECK(bad == BIG, "matched large receive: element %d differs", bad);
    CHECK_MPI(MPI_Wait(&done, MPI_STATUS_IGNORE));
    free(big);
    free(rbig);
}

/* A started persistent receive can be cancelled and started again. */
static void test_cancel_persistent(void)
{
    const int tag = 8;
    MPI_Request req, go;
    MPI_Status st;
    int buf = -1, flag = 0, out = 800 + rank;

    CHECK_MPI(MPI_Recv_init(&buf, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req != MPI_REQUEST_NULL, "Wait freed a cancelled persistent request");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "started persistent receive not cancelled");

    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, tag, ctrl, &go));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, tag, ctrl, MPI_STATUS_IGNORE));
    MPI_Request sreq;
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_STATUS(st, prev, tag, MPI_INT, 1);
    CHECK(buf == 800 + prev, "restarted persistent receive got %d", buf);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "restarted persistent receive reports cancelled");
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_MPI(MPI_Wait(&go, MPI_STATUS_IGNORE));
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

    test_cancel_unmatched();
    test_cancel_then_send();
    test_cancel_matched();
    test_cancel_persistent();

    CHECK_MPI(MPI_Comm_free(&ctrl));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
