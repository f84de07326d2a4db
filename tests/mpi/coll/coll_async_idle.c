/* Nonblocking collectives complete while every rank sleeps outside MPI (BATON_ASYNC_PROGRESS=1).
 *
 * Each round starts several collectives at once (Iallreduce, Ibcast, Ialltoall on
 * MPI_COMM_WORLD, whose shared-memory region exists, so the shared-memory algorithms run; an
 * Iallreduce on a duplicate without a region, so point-to-point schedules with rendezvous run; a
 * persistent Allreduce started with MPI_Start), then sleeps in steps of 1 ms without calling MPI
 * and watches the receive buffers until every result is there. Only the progress thread can
 * have moved them: the test fails when a result is not complete within BATON_TEST_IDLE_MS
 * (default 5000) ms. Sizes 8 B, 64 KiB and 1 MiB. The same program runs with the thread off
 * (coll_async_idle_nothread, expected to fail), which shows that the check can fail.
 *
 * The buffers are read while the progress thread writes them, on purpose: those reads are done
 * by a function that ThreadSanitizer does not instrument; MPI_Waitall orders everything after.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"

#if defined(__GNUC__) || defined(__clang__)
#define NO_TSAN __attribute__((no_sanitize("thread"), noinline))
#else
#define NO_TSAN
#endif

/* Whether buf equals want, looking from the end and stopping at the first difference, so that a
 * result still in flight costs little to look at (volatile: the progress thread writes it). With
 * a full scan every millisecond, four ranks on two cores kept both cores busy comparing 1 MiB
 * buffers, and a progress thread that runs only on an idle core had none. */
NO_TSAN static int all_there(const double* buf, const double* want, size_t n)
{
    const volatile double* b = buf;
    for (size_t i = n; i-- > 0;) {
        if (b[i] != want[i]) {
            return 0;
        }
    }
    return 1;
}

/* Counts elements of buf that differ from want. */
NO_TSAN static size_t mismatches(const double* buf, const double* want, size_t n)
{
    const volatile double* b = buf;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (b[i] != want[i]) {
            ++bad;
        }
    }
    return bad;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { n_ops = 5 };
static const char* const op_names[n_ops] = {"Iallreduce", "Ibcast", "Ialltoall", "Iallreduce(dup)",
                                            "Allreduce_init+Start"};

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long limit_ms = 5000;
    if (getenv("BATON_TEST_IDLE_MS")) {
        limit_ms = atol(getenv("BATON_TEST_IDLE_MS"));
    }

    /* The world's first blocking collective sets up its shared-memory region; the duplicate
     * has only ever seen nonblocking collectives, so it has none. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Comm dup = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));

    static const size_t sizes[] = {1, 8192, 131072}; /* doubles: 8 B, 64 KiB, 1 MiB */
    int stalled = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        const size_t n = sizes[k];
        /* alltoall: n doubles per peer at 8 B and 64 KiB, 64 KiB per peer at 1 MiB */
        const size_t blk = n > 8192 ? 8192 : n;
        double* in = mpitest_malloc(n * sizeof(double));
        double* sum = mpitest_malloc(n * sizeof(double));
        double* sum_dup = mpitest_malloc(n * sizeof(double));
        double* sum_pers = mpitest_malloc(n * sizeof(double));
        double* bc = mpitest_malloc(n * sizeof(double));
        double* a2a_in = mpitest_malloc(blk * (size_t)np * sizeof(double));
        double* a2a_out = mpitest_malloc(blk * (size_t)np * sizeof(double));
        double* want_sum = mpitest_malloc(n * sizeof(double));
        double* want_bc = mpitest_malloc(n * sizeof(double));
        double* want_a2a = mpitest_malloc(blk * (size_t)np * sizeof(double));
        MPI_Request pers = MPI_REQUEST_NULL;
        CHECK_MPI(MPI_Allreduce_init(in, sum_pers, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                     &pers));

        for (int round = 0; round < 3; ++round) {
            const int root = (round + (int)k) % np;
            for (size_t i = 0; i < n; ++i) {
                in[i] = (double)(rank + 1) * (double)(i % 97 + round);
                double s = 0;
                for (int r = 0; r < np; ++r) {
                    s += (double)(r + 1) * (double)(i % 97 + round);
                }
                want_sum[i] = s;
                want_bc[i] = (double)(root * 1000 + round) + (double)(i % 13);
                sum[i] = sum_dup[i] = sum_pers[i] = -1.0;
                bc[i] = rank == root ? want_bc[i] : -1.0;
            }
            for (int p = 0; p < np; ++p) {
                for (size_t i = 0; i < blk; ++i) {
                    /* I send block p to rank p; I receive block p from rank p */
                    a2a_in[(size_t)p * blk + i] = (double)(rank * 100000 + p * 1000 + round) + (double)(i % 7);
                    want_a2a[(size_t)p * blk + i] = (double)(p * 100000 + rank * 1000 + round) + (double)(i % 7);
                    a2a_out[(size_t)p * blk + i] = -1.0;
                }
            }
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

            MPI_Request req[n_ops];
            CHECK_MPI(MPI_Iallreduce(in, sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]));
            CHECK_MPI(MPI_Ibcast(bc, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD, &req[1]));
            CHECK_MPI(MPI_Ialltoall(a2a_in, (int)blk, MPI_DOUBLE, a2a_out, (int)blk, MPI_DOUBLE, MPI_COMM_WORLD,
                                    &req[2]));
            CHECK_MPI(MPI_Iallreduce(in, sum_dup, (int)n, MPI_DOUBLE, MPI_SUM, dup, &req[3]));
            CHECK_MPI(MPI_Start(&pers));
            req[4] = pers;

            /* Outside MPI from here until every result is in place (or the limit passes). */
            const double* got[n_ops] = {sum, bc, a2a_out, sum_dup, sum_pers};
            const double* want[n_ops] = {want_sum, want_bc, want_a2a, want_sum, want_sum};
            const size_t len[n_ops] = {n, n, blk * (size_t)np, n, n};
            int done[n_ops] = {0};
            const double t0 = now_s();
            int left = n_ops;
            while (left > 0 && !stalled) {
                for (int o = 0; o < n_ops; ++o) {
                    if (!done[o] && all_there(got[o], want[o], len[o])) {
                        done[o] = 1;
                        --left;
                    }
                }
                if (left == 0 || (now_s() - t0) * 1000.0 > (double)limit_ms) {
                    break;
                }
                sleep_ms(1);
            }
            for (int o = 0; o < n_ops && !stalled; ++o) {
                CHECK(done[o], "%s (%zu bytes received, round %d, %d ranks) did not complete within %ld ms while "
                      "every rank slept outside MPI",
                      op_names[o], len[o] * sizeof(double), round, np, limit_ms);
            }
            if (left > 0) {
                stalled = 1; /* don't wait the limit again for every later round */
            }
            CHECK_MPI(MPI_Waitall(n_ops - 1, req, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Wait(&pers, MPI_STATUS_IGNORE));
            /* After the waits the results must be right in any case. */
            for (int o = 0; o < n_ops; ++o) {
                const size_t bad = mismatches(got[o], want[o], len[o]);
                CHECK(bad == 0, "%s: %zu of %zu elements wrong after the wait (round %d)", op_names[o], bad, len[o],
                      round);
            }
        }
        CHECK_MPI(MPI_Request_free(&pers));
        free(in);
        free(sum);
        free(sum_dup);
        free(sum_pers);
        free(bc);
        free(a2a_in);
        free(a2a_out);
        free(want_sum);
        free(want_bc);
        free(want_a2a);
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
