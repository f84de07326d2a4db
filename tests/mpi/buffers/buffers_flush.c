/* MPI_Comm_flush_buffer / MPI_Comm_iflush_buffer / MPI_Buffer_flush / MPI_Buffer_iflush complete
 * only once the buffered messages have left the buffer, which for a rendezvous-sized message
 * (1 MB) means once the receiver took it. In each round half the ranks are late receivers.
 *  - blocking flush: the late receiver sleeps, takes CLOCK_MONOTONIC just before posting its
 *    receive and sends that time back; the sender's flush must have returned after it (all ranks
 *    run on one machine, twohost runs included, so the clock is shared);
 *  - nonblocking flush: the late receiver posts nothing until the sender says "go", which the
 *    sender sends only after testing its iflush request: that test must say "not complete". A
 *    message buffered after the iflush (received later) does not hold the request up.
 * At 1 rank the messages go to self. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mpitest.h"

#define DELAY_US 200000
#define BIG (1 << 18) /* ints: 1 MB, well above the eager limit */

static int rank, size, next, prev;
static int* data;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void recv_check(MPI_Comm comm, int tag)
{
    int* in = malloc(sizeof(int) * BIG);
    CHECK_MPI(MPI_Recv(in, BIG, MPI_INT, prev, tag, comm, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < BIG; i++) bad += in[i] != prev * 7 + i;
    CHECK(bad == 0, "%d ints wrong on tag %d", bad, tag);
    free(in);
}

/* Late receivers: odd ranks in round 0, even ones in round 1 (none at 1 rank). */
static int is_late(int r, int round) { return size > 1 && (r % 2) == (round == 0); }

/* Blocking flush of `comm`'s buffer (MPI_COMM_WORLD: the process buffer, flushed with
 * MPI_Buffer_flush). */
static void blocking_round(MPI_Comm comm, int round, int tag)
{
    const int late = is_late(rank, round), next_late = is_late(next, round);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Bsend(data, BIG, MPI_INT, next, tag, comm));
    if (late) {
        usleep(DELAY_US);
        double t_post = now();
        recv_check(comm, tag);
        CHECK_MPI(MPI_Send(&t_post, 1, MPI_DOUBLE, prev, 50, MPI_COMM_WORLD));
    }
    MPI_Request rr = MPI_REQUEST_NULL;
    int* in = malloc(sizeof(int) * BIG);
    if (!late && size > 1) CHECK_MPI(MPI_Irecv(in, BIG, MPI_INT, prev, tag, comm, &rr));
    if (size == 1) recv_check(comm, tag);
    CHECK_MPI(comm == MPI_COMM_WORLD ? MPI_Buffer_flush() : MPI_Comm_flush_buffer(comm));
    const double t_done = now();
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    free(in);
    if (next_late) {
        double t_post = 0;
        CHECK_MPI(MPI_Recv(&t_post, 1, MPI_DOUBLE, next, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(t_done >= t_post, "round %d tag %d: the flush returned %.3f s before the receiver posted its receive",
              round, tag, t_post - t_done);
    }
}

static void nonblocking_round(MPI_Comm comm, int round, int tag)
{
    const int late = is_late(rank, round), next_late = is_late(next, round);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Bsend(data, BIG, MPI_INT, next, tag, comm));
    MPI_Request rf;
    CHECK_MPI(comm == MPI_COMM_WORLD ? MPI_Buffer_iflush(&rf) : MPI_Comm_iflush_buffer(comm, &rf));
    CHECK_MPI(MPI_Bsend(data, BIG, MPI_INT, next, tag + 1, comm)); /* after the iflush */
    int flag = 1;
    CHECK_MPI(MPI_Test(&rf, &flag, MPI_STATUS_IGNORE));
    if (next_late || size == 1) CHECK(!flag, "round %d tag %d: iflush complete before the receiver posted", round, tag);
    if (next_late) {
        int go = 1;
        CHECK_MPI(MPI_Send(&go, 1, MPI_INT, next, 51, MPI_COMM_WORLD));
    }
    if (late) {
        int go = 0;
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, prev, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        recv_check(comm, tag);
        if (!flag) CHECK_MPI(MPI_Wait(&rf, MPI_STATUS_IGNORE));
    } else {
        MPI_Request rr;
        int* in = malloc(sizeof(int) * BIG);
        CHECK_MPI(MPI_Irecv(in, BIG, MPI_INT, prev, tag, comm, &rr));
        /* the message after the iflush is received only once the iflush completed */
        if (!flag) CHECK_MPI(MPI_Wait(&rf, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < BIG; i++) bad += in[i] != prev * 7 + i;
        CHECK(bad == 0, "%d ints wrong on tag %d", bad, tag);
        free(in);
    }
    recv_check(comm, tag + 1);
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
    data = malloc(sizeof(int) * BIG);
    for (int i = 0; i < BIG; i++) data[i] = rank * 7 + i;
    const int bufsize = 3 * (BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char* buf = malloc((size_t)bufsize);
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);

    CHECK_MPI(MPI_Comm_attach_buffer(c, buf, bufsize));
    for (int round = 0; round < 2; round++) {
        blocking_round(c, round, 10 * round + 1);
        nonblocking_round(c, round, 10 * round + 2);
    }
    void* got = NULL;
    int got_size = 0;
    CHECK_MPI(MPI_Comm_detach_buffer(c, &got, &got_size));
    CHECK(got == buf && got_size == bufsize, "detach gave %p/%d", got, got_size);

    /* the process buffer, MPI_Buffer_flush / MPI_Buffer_iflush */
    CHECK_MPI(MPI_Buffer_attach(buf, bufsize));
    for (int round = 0; round < 2; round++) {
        blocking_round(MPI_COMM_WORLD, round, 100 + 10 * round + 1);
        nonblocking_round(MPI_COMM_WORLD, round, 100 + 10 * round + 2);
    }
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == buf && got_size == bufsize, "process detach gave %p/%d", got, got_size);

    CHECK_MPI(MPI_Comm_free(&c));
    int result = mpitest_finish();
    free(data);
    free(buf);
    MPI_Finalize();
    return result;
}
