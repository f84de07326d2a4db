/* Collective calls that disagree so far that the ranks select algorithms that never meet fail
 * instead of hanging (src/coll/mismatch.cpp): within seconds the call of every rank that
 * receives more than it posted, or waits for a collective its peers did not call, returns an
 * error (MPI_ERR_TRUNCATE for counts on both sides of a selection threshold, MPI_ERR_OTHER for
 * different collectives at the same point), nothing is written past a receive buffer, and the
 * communicator refuses later collectives with the same class: a rank whose own part of the call
 * could finish learns it at its next collective there. Point-to-point on it still works, and
 * MPI_Comm_dup of it gives a communicator that works.
 *
 *   case 0: MPI_Bcast, root 400 KB, receivers 4 KB (shared memory against messages)
 *   case 1: MPI_Ibcast + MPI_Wait, the same
 *   case 2: MPI_Gather, the root posts 256-byte blocks, the others send 64 KiB
 *   case 3: rank 0 calls MPI_Allreduce (one int), the others MPI_Bcast (400 KB from rank 1)
 *   case 4: MPI_Iallgather + MPI_Wait, rank 0 64 KiB blocks, the others 256 bytes
 *   case 5: MPI_Ibcast as case 1, completed by an MPI_Test loop (a rank that never sleeps in MPI;
 *           given up after 20 s)
 *   case 6: MPI_Bcast, root 4 KB, receivers 400 KB (they wait for more than the root sends)
 *
 * HYGIENE_DIVERGE_FIRST=1: each case's call is its communicator's first collective (no barrier
 * before it), so a nonblocking one is deferred while the shared region is set up and is logged
 * when the setup ends.
 *
 * HYGIENE_DIVERGE_CASE=k runs case k alone; HYGIENE_DIVERGE_SHOW=1 prints what each rank got
 * (HYGIENE_DIVERGE_ALL=1 as well: every rank's messages).
 *
 * HYGIENE_DIVERGE_MESSAGES=1: for communicators without a shared-memory region (BATON_COLL_SHM=0,
 * all ranks through UCX, ranks on two hosts), where only the messages show a mismatch: a message
 * for a collective that the receiver's plan has no receive or room for, one that arrives after
 * the receiver's call had taken all it expected, or a later collective's from a rank that the
 * receiver still waits for; a rank that waits with no such message asks the ranks it waits for
 * (a probe), and one that never sends what is asked for finds it (case 6 across two hosts: the
 * root that passed less goes on to a collective that first waits for a receiver); the rank that
 * finds it tells the others. No call may hang or write past a buffer, and some rank must report
 * the error (a receive given less than it posted reports it at once: case 6 at 2 ranks, one 4 KB
 * message into a 400 KB receive), but a receiver that got exactly what it posted may return
 * success (only the logs of a region show it the root's count), a different collective may be
 * reported as MPI_ERR_TRUNCATE, and a later
 * collective already started when a rank learns of the failure may still complete on some ranks. */
#include <mpi.h>
#include <time.h>

#include "mpitest.h"

#define BIG 100000
#define SMALL 1000
#define GUARD 64
#define FILL 0x5a5a5a5a

static int rank, size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int err_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

static int run_case(int k, MPI_Comm c, int* buf, int* sbuf, int* expect_class)
{
    MPI_Request req = MPI_REQUEST_NULL;
    const int n = rank == 0 ? BIG : SMALL;
    int rc = MPI_SUCCESS;
    *expect_class = MPI_ERR_TRUNCATE;
    switch (k) {
        case 0:
            rc = MPI_Bcast(buf, n, MPI_INT, 0, c);
            break;
        case 1:
            rc = MPI_Ibcast(buf, n, MPI_INT, 0, c, &req);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        case 2:
            if (rank == 0)
                rc = MPI_Gather(sbuf, 64, MPI_INT, buf, 64, MPI_INT, 0, c);
            else
                rc = MPI_Gather(sbuf, 16384, MPI_INT, buf, 16384, MPI_INT, 0, c);
            break;
        case 3:
            *expect_class = MPI_ERR_OTHER;
            if (rank == 0)
                rc = MPI_Allreduce(sbuf, buf, 1, MPI_INT, MPI_SUM, c);
            else
                rc = MPI_Bcast(buf, BIG, MPI_INT, 1, c);
            break;
        case 4: {
            const int blk = rank == 0 ? 16384 : 64;
            rc = MPI_Iallgather(sbuf, blk, MPI_INT, buf, blk, MPI_INT, c, &req);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        }
        case 6:
            rc = MPI_Bcast(buf, rank == 0 ? SMALL : BIG, MPI_INT, 0, c);
            break;
        case 5: {
            rc = MPI_Ibcast(buf, n, MPI_INT, 0, c, &req);
            int flag = 0;
            const double t0 = now();
            while (rc == MPI_SUCCESS && !flag && now() - t0 < 20.0) rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && !flag) {
                CHECK(0, "case 5: MPI_Test never completed the request in 20 s");
                rc = MPI_ERR_OTHER; /* the request stays pending: the communicator is left as it is */
            }
            break;
        }
    }
    return rc;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const size_t cap = (size_t)BIG * (size_t)(size > 4 ? size : 4) + GUARD;
    int* buf = malloc(cap * sizeof(int));
    int* sbuf = malloc(cap * sizeof(int));
    for (size_t i = 0; i < cap; i++) sbuf[i] = rank;

    const char* only = getenv("HYGIENE_DIVERGE_CASE");
    const int messages = getenv("HYGIENE_DIVERGE_MESSAGES") != NULL;
    const int first = getenv("HYGIENE_DIVERGE_FIRST") != NULL;
    for (int k = 0; k < 7; k++) {
        if (only && atoi(only) != k) continue;
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        /* The first collective sets up the shared region; HYGIENE_DIVERGE_FIRST=1 leaves that to
         * the case's own call (a nonblocking one then waits for the setup, deferred). */
        if (!first) CHECK_MPI(MPI_Barrier(c));
        /* What a rank that receives more than it posted posted; a guard follows. */
        /* (In case 4 the receivers of a recursive-doubling allgather may get rank 0's block
         * through a peer, already cut: some rank reports it, not necessarily each.) */
        const int is_short = k == 4 || k == 6 ? 0 : (k == 0 || k == 1 || k == 5) ? rank != 0 : rank == 0;
        size_t posted = SMALL;
        if (k == 2) posted = (size_t)64 * (size_t)size;
        if (k == 3) posted = 1;
        if (k == 4) posted = (size_t)64 * (size_t)size;
        for (size_t i = 0; i < cap; i++) buf[i] = FILL;
        if (((k <= 1 || k == 5 || k == 6) && rank == 0) || (k == 3 && rank == 1))
            for (size_t i = 0; i < (size_t)BIG; i++) buf[i] = (int)i;
        int expect = 0;
        const double t0 = now();
        const int rc = run_case(k, c, buf, sbuf, &expect);
        const double took = now() - t0;
        const int cls = err_class(rc);
        if (size == 1) {
            CHECK(rc == MPI_SUCCESS, "case %d at 1 rank: error class %d", k, cls);
        } else {
            const int alt = messages ? MPI_ERR_TRUNCATE : expect; /* a different collective, seen in the data */
            CHECK(cls == expect || cls == alt || (cls == MPI_SUCCESS && (!is_short || messages)),
                  "case %d: error class %d, expected %d", k, cls, expect);
            CHECK(took < 10.0, "case %d: the call took %.1f s", k, took);
            if (is_short && k != 3)
                for (size_t i = posted; i < posted + GUARD; i++)
                    if (buf[i] != FILL) {
                        CHECK(0, "case %d: written past the receive buffer at element %zu", k, i);
                        break;
                    }
            if (rc != MPI_SUCCESS) {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(rc, msg, &len);
                CHECK(len > 20, "case %d: a message names the problem: '%s'", k, msg);
                if ((rank == 1 || getenv("HYGIENE_DIVERGE_ALL")) && getenv("HYGIENE_DIVERGE_SHOW")) printf("case %d: %s\n", k, msg);
            }
            /* Later collectives on it are refused with the same class, on every rank: refused at
             * once where the call failed, found by the stall check where it had finished. */
            int one = 1, sum = 0;
            const double t1 = now();
            const int rc2 = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
            const int cls2 = err_class(rc2);
            CHECK(cls2 == expect || cls2 == alt || cls2 == MPI_SUCCESS,
                  "case %d: a later collective gave class %d, expected %d", k, cls2, expect);
            if (getenv("HYGIENE_DIVERGE_SHOW")) {
                printf("rank %d case %d: classes %d then %d (sum %d)\n", rank, k, cls, cls2, sum);
                if (rc2 != MPI_SUCCESS && getenv("HYGIENE_DIVERGE_ALL")) {
                    char msg[MPI_MAX_ERROR_STRING];
                    int len = 0;
                    MPI_Error_string(rc2, msg, &len);
                    printf("rank %d case %d, later: %s\n", rank, k, msg);
                }
            }
            CHECK(now() - t1 < 10.0, "case %d: the later collective took %.1f s", k, now() - t1);
            MPI_Comm d;
            CHECK_MPI(MPI_Comm_dup(c, &d));
            sum = 0;
            CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
            CHECK(sum == size, "case %d: allreduce on the dup gave %d, expected %d", k, sum, size);
            int v = rank == 0 ? 77 : 0;
            CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, d));
            CHECK(v == 77, "case %d: bcast on the dup gave %d", k, v);
            /* Either the mismatch failed the communicator, and then every rank's later call was
             * refused, or it did not (the ranks' messages met: the point-to-point truncation
             * reported it), and then every rank's later call worked. */
            int lo = cls2, hi = cls2, any = cls != MPI_SUCCESS;
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, d));
            CHECK(any == 1, "case %d: no rank reported an error", k);
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, d));
            CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, d));
            CHECK(lo == hi || messages, "case %d: later collectives gave classes %d to %d across the ranks", k, lo, hi);
            CHECK_MPI(MPI_Comm_free(&d));
            /* Point-to-point on the failed communicator still works. */
            int token = rank;
            const int right = (rank + 1) % size, left = (rank + size - 1) % size;
            int got = -1;
            CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, c, MPI_STATUS_IGNORE));
            CHECK(got == left, "case %d: sendrecv on the failed communicator gave %d", k, got);
        }
        CHECK_MPI(MPI_Comm_free(&c));
    }
    free(buf);
    free(sbuf);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
