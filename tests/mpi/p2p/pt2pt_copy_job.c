/* Large contiguous messages on one host copied by both ends at once (copy jobs, from 256 KiB):
 * the receiver reads chunks with process_vm_readv while the sender writes others with
 * process_vm_writev, claiming them from one counter in the shared segment.
 *
 * Each rank sends to the next one around a ring (at two ranks both directions at once: an
 * exchange, where the receiver reads alone) and checks every byte received, for sizes that are
 * and are not multiples of the chunk size, with:
 *   - both ends waiting inside MPI (both copy),
 *   - a sender busy outside MPI for a few milliseconds after MPI_Isend (the receiver copies
 *     everything; the sender joins a finished job),
 *   - an unexpected message (the receive is posted after the sender's request-to-send arrived),
 *   - twelve messages in flight to one peer at once (more than its eight job slots),
 *   - receive buffers longer than the message (the job copies the message's length).
 * The first large message of a pair is read the plain way (it shows that single copy works);
 * every pattern runs twice, so later ones go through jobs.
 */
#include <time.h>

#include "mpitest.h"

static unsigned char pattern(size_t i, int src, int round) { return (unsigned char)((i * 131u + (size_t)src * 7u + (size_t)round * 29u) & 0xff); }

static void fill(unsigned char* b, size_t n, int src, int round)
{
    for (size_t i = 0; i < n; ++i) b[i] = pattern(i, src, round);
}

static long wrong_bytes(const unsigned char* b, size_t n, int src, int round)
{
    long w = 0;
    for (size_t i = 0; i < n; ++i) w += b[i] != pattern(i, src, round);
    return w;
}

static void busy_ms(double ms)
{
    const double t0 = MPI_Wtime();
    volatile double x = 0;
    while ((MPI_Wtime() - t0) * 1e3 < ms) x += 1.0;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    const size_t sizes[] = {300000, (size_t)1 << 20, ((size_t)4 << 20) + 13};
    const size_t most = ((size_t)4 << 20) + 8192; /* the largest message and 4 KiB past it */
    unsigned char* sbuf = malloc(most);
    unsigned char* rbuf = malloc(most);
    int round = 0;
    for (int rep = 0; rep < 2; ++rep) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            const size_t n = sizes[k];
            for (int mode = 0; mode < 3; ++mode) {
                ++round;
                fill(sbuf, n, rank, round);
                memset(rbuf, 0, n + 4096);
                MPI_Request rq, sq;
                MPI_Status st;
                if (mode == 0) { /* both ends wait inside MPI */
                    CHECK_MPI(MPI_Irecv(rbuf, (int)(n + 4096), MPI_BYTE, from, round, MPI_COMM_WORLD, &rq));
                    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, to, round, MPI_COMM_WORLD, &sq));
                    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Wait(&rq, &st));
                } else if (mode == 1) { /* the sender computes after its Isend */
                    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD, &rq));
                    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, to, round, MPI_COMM_WORLD, &sq));
                    if (rank % 2 == 0) busy_ms(3.0);
                    CHECK_MPI(MPI_Wait(&rq, &st));
                    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
                } else { /* unexpected: the receive comes after the request-to-send */
                    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, to, round, MPI_COMM_WORLD, &sq));
                    int flag = 0;
                    while (!flag) CHECK_MPI(MPI_Iprobe(from, round, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, from, round, MPI_COMM_WORLD, &st));
                    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
                }
                int count = -1;
                CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(count == (int)n, "mode %d: received %d bytes, expected %zu", mode, count, n);
                const long w = wrong_bytes(rbuf, n, from, round);
                CHECK(w == 0, "mode %d, %zu bytes: %ld bytes wrong", mode, n, w);
                long past = 0;
                for (size_t i = n; i < n + 4096 && mode == 0; ++i) past += rbuf[i] != 0;
                CHECK(past == 0, "mode %d: %ld bytes written past the message", mode, past);
            }
        }
    }

    /* Twelve 300000-byte messages in flight to one peer: more than its job slots. */
    enum { nmsg = 12 };
    const size_t m = 300000;
    unsigned char* many_s = malloc(m * nmsg);
    unsigned char* many_r = malloc(m * nmsg);
    for (int rep = 0; rep < 3; ++rep) {
        MPI_Request q[2 * nmsg];
        for (int i = 0; i < nmsg; ++i) {
            fill(many_s + (size_t)i * m, m, rank, 1000 + rep * nmsg + i);
            CHECK_MPI(MPI_Irecv(many_r + (size_t)i * m, (int)m, MPI_BYTE, from, i, MPI_COMM_WORLD, &q[i]));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < nmsg; ++i)
            CHECK_MPI(MPI_Isend(many_s + (size_t)i * m, (int)m, MPI_BYTE, to, i, MPI_COMM_WORLD, &q[nmsg + i]));
        CHECK_MPI(MPI_Waitall(2 * nmsg, q, MPI_STATUSES_IGNORE));
        long w = 0;
        for (int i = 0; i < nmsg; ++i) w += wrong_bytes(many_r + (size_t)i * m, m, from, 1000 + rep * nmsg + i);
        CHECK(w == 0, "%d messages in flight: %ld bytes wrong", nmsg, w);
    }
    free(many_s);
    free(many_r);
    free(sbuf);
    free(rbuf);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
