/* pt2pt_wake.c - a message wakes a receiver that has gone to sleep, promptly.
 *
 * Rank 1 sends to rank 0 (and, at more ranks, every odd rank to the even one below it) after a
 * pause long enough for the receiver to pass its spin and yield windows and sleep on its
 * doorbell (the test runs with BATON_SPIN_US=20 BATON_YIELD_US=50). The message must wake it:
 * the time from the sender's stamp (CLOCK_MONOTONIC, one host) to MPI_Recv's return stays well
 * under the 10 ms futex timeout that would otherwise end the sleep. A lost wake-up shows as
 * receives that take the timeout; more than a quarter of them fails the test. Registered with the
 * asymmetric fence (membarrier on the sleeper, compiler barrier on the sender) and without it
 * (BATON_ASYM_FENCE=0: a fence on both sides), and with several tags and a wildcard receive so
 * both the matching's short lists and its index are on the path.
 */
#include "mpitest.h"

#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { ITERS = 60, PAUSE_US = 2000, EXTRA = 20 };
    const int peer = rank ^ 1;
    if (peer < size) {
        int late = 0;
        double worst = 0;
        for (int i = 0; i < ITERS; i++) {
            if (rank % 2 == 1) {
                struct timespec d = {0, PAUSE_US * 1000L};
                nanosleep(&d, NULL);
                /* Some messages the receiver has not asked for yet, on other tags: they wait
                 * in its unexpected list, long enough (past 16) to be indexed on some rounds. */
                int extra = (i % 3 == 0) ? EXTRA : 0;
                for (int k = 0; k < extra; k++) CHECK_MPI(MPI_Send(&k, 1, MPI_INT, peer, 100 + k, MPI_COMM_WORLD));
                double stamp = now_us();
                CHECK_MPI(MPI_Send(&stamp, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD));
            } else {
                double stamp = 0;
                /* Every other round the receive names no source (a wildcard receive, which
                 * the matching walks the list for). */
                const int src = (i % 2 == 0) ? peer : MPI_ANY_SOURCE;
                MPI_Status st;
                CHECK_MPI(MPI_Recv(&stamp, 1, MPI_DOUBLE, src, 7, MPI_COMM_WORLD, &st));
                double lat = now_us() - stamp;
                if (lat > worst) worst = lat;
                if (lat > 5000) late++;
                CHECK(st.MPI_SOURCE == peer, "message from %d, expected %d", st.MPI_SOURCE, peer);
                int extra = (i % 3 == 0) ? EXTRA : 0;
                for (int k = extra - 1; k >= 0; k--) { /* out of order: matching by tag */
                    int v = -1;
                    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    CHECK(v == k, "extra message %d carried %d", k, v);
                }
            }
        }
        if (rank % 2 == 0)
            CHECK(late <= ITERS / 4, "%d of %d sleeping receives took over 5 ms (worst %.0f us): wake-ups lost",
                  late, ITERS, worst);
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
