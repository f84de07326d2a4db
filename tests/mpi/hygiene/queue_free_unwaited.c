/* MPI_Queue_free refuses a queue that holds an enqueued start without its enqueued wait (the
 * request would stay bound to a freed queue, where no call could complete it): MPI_ERR_ARG with a
 * message, the handle untouched, and the queue stays usable (the wait, a fence, then the free
 * succeed). Self pairs, so this process alone decides when each message comes. */
#include <mpi.h>

#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int a = 7 + rank, b = 0;
    MPI_Request s, r;
    CHECK_MPI(MPI_Send_init(&a, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &s));
    CHECK_MPI(MPI_Recv_init(&b, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
    MPI_Request both[2] = {s, r};
    CHECK_MPI(MPI_Matchall(2, both));

    for (int round = 0; round < 3; round++) {
        MPI_Queue q;
        CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
        /* round 0: both starts, no wait; round 1: a wait for one of them only; round 2: done right */
        CHECK_MPI(MPI_Enqueue_start(&q, &s));
        CHECK_MPI(MPI_Enqueue_start(&q, &r));
        if (round >= 1) CHECK_MPI(MPI_Enqueue_wait(&q, &s, MPI_STATUS_IGNORE));
        if (round <= 1) {
            MPI_Queue keep = q;
            int rc = MPI_Queue_free(&q), cls = -1;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "round %d: MPI_Queue_free with an unwaited start: class %d",
                  round, cls);
            CHECK(q == keep, "round %d: a refused MPI_Queue_free changed the handle", round);
            if (round == 0) CHECK_MPI(MPI_Enqueue_wait(&q, &s, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Enqueue_wait(&q, &r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Queue_fence(q));
        CHECK(b == 7 + rank, "round %d: received %d", round, b);
        b = 0;
        CHECK_MPI(MPI_Queue_free(&q));
        CHECK(q == MPI_QUEUE_NULL, "round %d: MPI_Queue_free did not set MPI_QUEUE_NULL", round);
        /* the requests are free again: usable with MPI_Start / MPI_Wait */
        CHECK_MPI(MPI_Startall(2, both));
        CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        CHECK(b == 7 + rank, "round %d: Start/Wait after the queue received %d", round, b);
    }
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
