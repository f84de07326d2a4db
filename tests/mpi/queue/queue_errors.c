/* Every locally detectable misuse (generalized requests do not exist in Baton yet; the refusal of
 * req_kind::grequest in src/queue is there for them) of matching and queues (draft chapter 13) is refused with its
 * error class and changes nothing; errors found while a queue runs are reported by the next
 * enqueue or fence; the library keeps working afterwards (a final matched exchange). */
#include <mpi.h>

#include "mpitest.h"

static int rank, size;

#define EXPECT(call, cls)                                                                          \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        int cl_ = -1;                                                                              \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &cl_);                                        \
        CHECK(rc_ != MPI_SUCCESS && cl_ == (cls), "%s returned class %d, expected %d", #call, cl_, \
              (cls));                                                                              \
    } while (0)


int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    int a = 0, b = 0, flag = 0;
    MPI_Queue q, q2;
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    CHECK_MPI(MPI_Queue_init(&q2, MPI_QUEUE_TYPE_DEFAULT, NULL));

    /* ---- queue creation ---- */
    MPI_Queue bad = MPI_QUEUE_NULL;
    EXPECT(MPI_Queue_init(&bad, 12345, NULL), MPI_ERR_ARG);
    CHECK(bad == MPI_QUEUE_NULL, "a refused MPI_Queue_init wrote the handle");
    EXPECT(MPI_Queue_init(NULL, MPI_QUEUE_TYPE_DEFAULT, NULL), MPI_ERR_ARG);
    {
        int rc = MPI_Queue_init(&bad, MPIX_QUEUE_TYPE_CUDA, NULL);
        int cl = -1;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cl);
        CHECK(rc != MPI_SUCCESS && cl == MPI_ERR_UNSUPPORTED_OPERATION,
              "CUDA queue without a CUDA context: class %d", cl);
        if (rank == 0 && rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            printf("queue_errors: MPIX_QUEUE_TYPE_CUDA refused as expected here (no GPU context): %s\n", msg);
        }
    }
    EXPECT(MPI_Queue_fence(MPI_QUEUE_NULL), MPI_ERR_ARG);
    EXPECT(MPI_Queue_free(&bad), MPI_ERR_ARG);
    EXPECT(MPIX_Queue_enqueue_host(q, (void (*)(void*))free, NULL), MPI_ERR_ARG); /* not a thread queue */

    /* ---- matching ---- */
    MPI_Request nb, s, r, s2;
    CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, from, 99, MPI_COMM_WORLD, &nb));
    EXPECT(MPI_Match(&nb), MPI_ERR_REQUEST); /* nonblocking */
    EXPECT(MPI_Is_matched(nb, &flag), MPI_ERR_REQUEST); /* not persistent */
    MPI_Request nullreq = MPI_REQUEST_NULL;
    EXPECT(MPI_Match(&nullreq), MPI_ERR_REQUEST);
    /* s -> r is a self pair, so that only this process decides when r's message comes */
    CHECK_MPI(MPI_Send_init(&a, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &s));
    CHECK_MPI(MPI_Recv_init(&b, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send_init(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &s2));
    /* Matchall with one bad request matches none */
    MPI_Request mix[3] = {s, nb, r};
    EXPECT(MPI_Matchall(3, mix), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Is_matched(s, &flag));
    CHECK(!flag, "Matchall with a bad request matched another one");
    MPI_Request twice[2] = {s, s};
    EXPECT(MPI_Matchall(2, twice), MPI_ERR_REQUEST);
    /* active persistent request */
    CHECK_MPI(MPI_Start(&s2));
    EXPECT(MPI_Match(&s2), MPI_ERR_REQUEST);
    /* a pending Imatch cannot be cancelled, and its request cannot be freed or started */
    MPI_Request m;
    CHECK_MPI(MPI_Imatch(&s, &m));
    EXPECT(MPI_Cancel(&m), MPI_ERR_REQUEST);
    EXPECT(MPI_Match(&s), MPI_ERR_REQUEST); /* being matched */
    CHECK_MPI(MPI_Match(&r));
    CHECK_MPI(MPI_Wait(&m, MPI_STATUS_IGNORE));
    EXPECT(MPI_Match(&s), MPI_ERR_REQUEST); /* matched twice */

    /* ---- enqueuing ---- */
    EXPECT(MPI_Enqueue_start(q, &nb), MPI_ERR_REQUEST);  /* nonblocking */
    MPI_Request un;
    CHECK_MPI(MPI_Send_init(&a, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &un));
    EXPECT(MPI_Enqueue_start(q, &un), MPI_ERR_REQUEST);  /* unmatched */
    EXPECT(MPI_Enqueue_start(q, &s2), MPI_ERR_REQUEST);  /* unmatched and active */
    MPI_Request sr_bad[2] = {r, un};
    EXPECT(MPI_Enqueue_startall(q, 2, sr_bad), MPI_ERR_REQUEST); /* one bad: none enqueued */
    EXPECT(MPI_Enqueue_wait(q, &r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST); /* so r has no start here */
    CHECK_MPI(MPI_Queue_free(&q2)); /* q2 untouched and empty */
    CHECK_MPI(MPI_Queue_init(&q2, MPI_QUEUE_TYPE_DEFAULT, NULL));
    EXPECT(MPI_Enqueue_start(MPI_QUEUE_NULL, &r), MPI_ERR_ARG);
    EXPECT(MPI_Enqueue_startall(q, -1, sr_bad), MPI_ERR_COUNT);

    MPI_Request ss2[2] = {s, s};
    EXPECT(MPI_Enqueue_startall(q, 2, ss2), MPI_ERR_REQUEST); /* twice: none enqueued (s starts below) */

    /* r's start pending on q (its send is not started yet, so it stays pending) */
    CHECK_MPI(MPI_Enqueue_start(q, &r));
    EXPECT(MPI_Enqueue_start(q, &r), MPI_ERR_REQUEST);               /* no wait enqueued yet */
    EXPECT(MPI_Enqueue_wait(q2, &r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST); /* another queue */
    EXPECT(MPI_Enqueue_start(q2, &r), MPI_ERR_REQUEST);              /* pending on another queue */
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
    CHECK(r != MPI_REQUEST_NULL, "a refused MPI_Request_free cleared the handle");
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_get_status_all(1, &r, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Testany(1, &r, &flag, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    MPI_Request rr2[2] = {r, r};
    /* the same request twice in one waitall, its first wait valid: refused, nothing claimed
       (the single wait below still works) */
    EXPECT(MPI_Enqueue_waitall(q, 2, rr2, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Enqueue_wait(q, &r, MPI_STATUS_IGNORE));
    EXPECT(MPI_Enqueue_wait(q, &r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST); /* second wait */
    EXPECT(MPI_Enqueue_waitall(q, 2, rr2, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    EXPECT(MPI_Queue_free(&q), MPI_ERR_ARG); /* not empty: r waits for its message */
    CHECK(q != MPI_QUEUE_NULL, "a refused MPI_Queue_free cleared the handle");
    a = 4242 + rank;
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Queue_fence(q));
    CHECK(b == 4242 + rank, "enqueued receive got %d", b);
    /* the request is inactive again: standard calls work */
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* ---- asynchronous error: a truncated matched message, reported by the fence ---- */
    int big[4] = {1, 2, 3, 4}, small[2];
    MPI_Request ts, tr;
    CHECK_MPI(MPI_Send_init(big, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &ts));
    CHECK_MPI(MPI_Recv_init(small, 2, MPI_INT, from, 5, MPI_COMM_WORLD, &tr));
    MPI_Request tpair[2] = {tr, ts};
    CHECK_MPI(MPI_Matchall(2, tpair));
    MPI_Status tst[2];
    CHECK_MPI(MPI_Enqueue_startall(q, 2, tpair));
    CHECK_MPI(MPI_Enqueue_waitall(q, 2, tpair, tst));
    EXPECT(MPI_Queue_fence(q), MPI_ERR_TRUNCATE);
    CHECK(tst[0].MPI_ERROR == MPI_ERR_TRUNCATE, "waitall status MPI_ERROR is %d", tst[0].MPI_ERROR);
    CHECK_MPI(MPI_Queue_fence(q)); /* reported once */
    /* the same error through an enqueue call */
    CHECK_MPI(MPI_Enqueue_startall(q, 2, tpair));
    CHECK_MPI(MPI_Enqueue_waitall(q, 2, tpair, MPI_STATUSES_IGNORE));
    {
        /* wait until the queue is done with them without a fence: progress in MPI_Test of an
         * unrelated pending request (13.4: test calls progress queues) */
        int done = 0, got = -1, one = 1;
        MPI_Request probe;
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &probe));
        CHECK_MPI(MPI_Send(&one, 1, MPI_INT, peer, 77, MPI_COMM_WORLD));
        for (long i = 0; i < 100000000 && !done; i++) {
            int f = 0;
            if (probe != MPI_REQUEST_NULL) MPI_Test(&probe, &f, MPI_STATUS_IGNORE);
            else MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
            int rc = MPI_Request_get_status(tr, &flag, MPI_STATUS_IGNORE);
            done = rc == MPI_SUCCESS; /* refused while the enqueued start is pending */
            rc = MPI_Request_get_status(ts, &flag, MPI_STATUS_IGNORE);
            done = done && rc == MPI_SUCCESS;
        }
        if (probe != MPI_REQUEST_NULL) CHECK_MPI(MPI_Wait(&probe, MPI_STATUS_IGNORE));
        CHECK(done, "the queue never finished");
    }
    EXPECT(MPI_Enqueue_start(q, &s), MPI_ERR_TRUNCATE); /* the kept error, nothing enqueued */
    CHECK_MPI(MPI_Queue_fence(q));
    CHECK_MPI(MPI_Queue_free(&q)); /* s was not enqueued: the queue is empty */
    CHECK(q == MPI_QUEUE_NULL, "handle not cleared");

    /* ---- clean up, then the library still works: a final matched exchange ---- */
    CHECK_MPI(MPI_Wait(&s2, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* s2's message */
    CHECK_MPI(MPI_Send(&a, 1, MPI_INT, peer, 99, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    MPI_Request all[6] = {s, r, s2, un, ts, tr};
    for (int i = 0; i < 6; i++) CHECK_MPI(MPI_Request_free(&all[i]));
    CHECK_MPI(MPI_Queue_free(&q2));
    int x = rank, y = -1;
    MPI_Request fin[2];
    CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &fin[0]));
    CHECK_MPI(MPI_Send_init(&x, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &fin[1]));
    CHECK_MPI(MPI_Matchall(2, fin));
    CHECK_MPI(MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL));
    CHECK_MPI(MPI_Enqueue_startall(q, 2, fin));
    CHECK_MPI(MPI_Enqueue_waitall(q, 2, fin, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Queue_fence(q));
    CHECK(y == from, "final exchange got %d", y);
    CHECK_MPI(MPI_Queue_free(&q));
    for (int i = 0; i < 2; i++) CHECK_MPI(MPI_Request_free(&fin[i]));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
