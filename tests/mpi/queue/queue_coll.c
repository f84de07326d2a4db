/* Persistent collectives in queues (draft chapter 13.2): MPI_Match on a persistent collective
 * request is collective and completes when every member's init has; matched collective requests
 * start and complete through queues (default and thread type), mixed with matched point-to-point
 * requests in one MPI_Matchall, and through MPI_Start/MPI_Wait as well. */
#include <mpi.h>

#include "mpitest.h"

static int rank, size;

struct coll_round {
    long in, sum, bcast, round;
    int ring_in, ring_out;
    int bad;
};

static void prepare(void* arg)
{
    struct coll_round* c = arg;
    c->in = (long)(rank + 1) * (c->round + 1);
    c->bcast = rank == 0 ? 1000 + c->round : -1;
    c->ring_out = rank * 100 + (int)c->round;
}

static void verify(void* arg)
{
    struct coll_round* c = arg;
    long want = (long)size * (size + 1) / 2 * (c->round + 1);
    int from = (rank - 1 + size) % size;
    if (c->sum != want || c->bcast != 1000 + c->round || c->ring_in != from * 100 + (int)c->round) {
        if (c->bad == 0)
            fprintf(stderr, "[rank %d] round %ld: sum %ld (want %ld) bcast %ld ring %d\n", rank, c->round, c->sum,
                    want, c->bcast, c->ring_in);
        c->bad++;
    }
    c->round++;
}

static void run(int type, int rounds)
{
    struct coll_round c = {0};
    MPI_Request r[4];
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    CHECK_MPI(MPI_Allreduce_init(&c.in, &c.sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_MPI(MPI_Bcast_init(&c.bcast, 1, MPI_LONG, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    CHECK_MPI(MPI_Recv_init(&c.ring_in, 1, MPI_INT, from, 4, MPI_COMM_WORLD, &r[2]));
    CHECK_MPI(MPI_Send_init(&c.ring_out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[3]));
    int flag = 1;
    CHECK_MPI(MPI_Is_matched(r[0], &flag));
    CHECK(!flag, "a persistent collective request is matched before MPI_Match");
    CHECK_MPI(MPI_Matchall(4, r));
    for (int i = 0; i < 4; i++) {
        CHECK_MPI(MPI_Is_matched(r[i], &flag));
        CHECK(flag, "request %d not matched", i);
    }
    MPI_Request again = r[0];
    int rc = MPI_Match(&again);
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "matching a matched collective request twice: class %d", cls);
    MPI_Queue q;
    CHECK_MPI(MPI_Queue_init(&q, type, NULL));
    for (int k = 0; k < rounds; k++) {
        if (type == MPIX_QUEUE_TYPE_THREAD) {
            CHECK_MPI(MPIX_Queue_enqueue_host(q, prepare, &c));
        } else {
            prepare(&c);
        }
        CHECK_MPI(MPI_Enqueue_start(q, &r[2]));
        CHECK_MPI(MPI_Enqueue_startall(q, 2, r));
        CHECK_MPI(MPI_Enqueue_start(q, &r[3]));
        CHECK_MPI(MPI_Enqueue_waitall(q, 4, r, MPI_STATUSES_IGNORE));
        if (type == MPIX_QUEUE_TYPE_THREAD) {
            CHECK_MPI(MPIX_Queue_enqueue_host(q, verify, &c));
        } else {
            CHECK_MPI(MPI_Queue_fence(q));
            verify(&c);
        }
    }
    CHECK_MPI(MPI_Queue_fence(q));
    CHECK(c.bad == 0 && c.round == rounds, "%d bad rounds of %ld", c.bad, c.round);
    /* the same requests outside the queue */
    prepare(&c);
    CHECK_MPI(MPI_Startall(4, r));
    CHECK_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    verify(&c);
    CHECK(c.bad == 0, "Startall round wrong");
    CHECK_MPI(MPI_Queue_free(&q));
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&r[i]));
}

/* Imatch of a collective request completes only once every member matched: rank 0 matches late. */
static void late_member(void)
{
    long x = rank, y = 0;
    MPI_Request r, m;
    CHECK_MPI(MPI_Allreduce_init(&x, &y, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    int token = 0;
    if (rank == 0) {
        /* everybody else has called MPI_Imatch and tested it once */
        for (int p = 1; p < size; p++) CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, p, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Match(&r));
    } else {
        int flag = 0;
        CHECK_MPI(MPI_Imatch(&r, &m));
        for (int i = 0; i < 100; i++) CHECK_MPI(MPI_Test(&m, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a collective match completed before rank 0 matched");
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        if (!flag) CHECK_MPI(MPI_Wait(&m, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(y == size - 1, "allreduce max %ld", y);
    CHECK_MPI(MPI_Request_free(&r));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run(MPI_QUEUE_TYPE_DEFAULT, 20);
    run(MPIX_QUEUE_TYPE_THREAD, 30);
    late_member();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
