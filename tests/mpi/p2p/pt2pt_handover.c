/* A nonblocking receive that matches a large message which has already arrived leaves the copy
 * to the progress thread (BATON_ASYNC_PROGRESS=1, set by the test's registration): MPI_Irecv and
 * MPI_Start match at once and return, and the data are fetched by the next poll, so an
 * application that sleeps or computes after posting gets the copy done meanwhile.
 *
 * Rank 1 makes sure each message from rank 0 waits in its unexpected queue (MPI_Probe) before it
 * posts the receive, and reads the pvar baton_p2p_fetches_handed_over around each start:
 *   - MPI_Irecv of 1 MiB and 256 KiB: handed over (+1 each); data intact after MPI_Wait, or after
 *     an MPI_Test loop;
 *   - a 65,535-byte message (rendezvous on shared memory, below the 64 KiB threshold), and a
 *     blocking MPI_Recv of 1 MiB: copied in the call (+0);
 *   - a persistent receive's MPI_Start of 1 MiB, twice: handed over each time;
 *   - MPI_Cancel of a handed-over receive: it is matched, so it is not cancelled, and its data
 *     arrive.
 * The message order holds throughout: two messages with the same tag arrive in the order sent.
 * Ranks past 1 only take part in the final agreement. */
#include <time.h>

#include "../mpitest.h"

enum { big = 1 << 20, mid = 256 << 10, small = 65535 };

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;

static unsigned long handed_over(void)
{
    unsigned long v = 0;
    CHECK_MPI(MPI_T_pvar_read(session, handle, &v));
    return v;
}

static unsigned char pattern(size_t i, int salt) { return (unsigned char)((i * 7u + (size_t)salt * 31u) & 0xffu); }

static void fill(unsigned char* b, size_t n, int salt)
{
    for (size_t i = 0; i < n; ++i) b[i] = pattern(i, salt);
}

static int intact(const unsigned char* b, size_t n, int salt)
{
    for (size_t i = 0; i < n; ++i)
        if (b[i] != pattern(i, salt)) return 0;
    return 1;
}

/* Rank 1: waits for the message (tag) to be in the unexpected queue, then receives it with
 * MPI_Irecv; `expect` is how much the counter must move inside the call. */
static void irecv_checked(unsigned char* buf, int n, int tag, int salt, unsigned long expect, int by_test)
{
    MPI_Status st;
    CHECK_MPI(MPI_Probe(0, tag, MPI_COMM_WORLD, &st));
    memset(buf, 0, (size_t)n);
    const unsigned long before = handed_over();
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &r));
    const unsigned long moved = handed_over() - before;
    CHECK(moved == expect, "MPI_Irecv of %d bytes (tag %d): counter moved by %lu, expected %lu", n, tag, moved,
          expect);
    if (by_test) {
        int done = 0;
        while (!done) CHECK_MPI(MPI_Test(&r, &done, &st));
    } else {
        CHECK_MPI(MPI_Wait(&r, &st));
    }
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == n && st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "tag %d: count %d source %d tag %d", tag, count,
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK(intact(buf, (size_t)n, salt), "tag %d: %d bytes arrived damaged", tag, n);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, size = 0, provided = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int idx = -1;
    int rc = MPI_T_pvar_get_index("baton_p2p_fetches_handed_over", MPI_T_PVAR_CLASS_COUNTER, &idx);
    CHECK(rc == MPI_SUCCESS, "no counter baton_p2p_fetches_handed_over (%d)", rc);
    if (rc != MPI_SUCCESS || size < 2) {
        MPI_T_finalize();
        rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    int count = 0;
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &count));
    CHECK_MPI(MPI_T_pvar_start(session, handle));

    unsigned char* s1 = malloc(big);
    unsigned char* s2 = malloc(big);
    unsigned char* buf = malloc(big);
    fill(s1, big, 1);
    fill(s2, big, 2);
    if (rank == 0) {
        MPI_Request r[10];
        int k = 0;
        CHECK_MPI(MPI_Isend(s1, big, MPI_BYTE, 1, 10, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s2, mid, MPI_BYTE, 1, 11, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s1, small, MPI_BYTE, 1, 12, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s2, big, MPI_BYTE, 1, 13, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s1, big, MPI_BYTE, 1, 14, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s2, big, MPI_BYTE, 1, 14, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s1, big, MPI_BYTE, 1, 15, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Isend(s2, big, MPI_BYTE, 1, 16, MPI_COMM_WORLD, &r[k++]));
        CHECK_MPI(MPI_Waitall(k, r, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        irecv_checked(buf, big, 10, 1, 1, 0);
        irecv_checked(buf, mid, 11, 2, 1, 1);
        irecv_checked(buf, small, 12, 1, 0, 0);

        /* A blocking receive copies in the call. */
        MPI_Status st;
        CHECK_MPI(MPI_Probe(0, 13, MPI_COMM_WORLD, &st));
        unsigned long before = handed_over();
        CHECK_MPI(MPI_Recv(buf, big, MPI_BYTE, 0, 13, MPI_COMM_WORLD, &st));
        CHECK(handed_over() == before, "a blocking MPI_Recv handed its copy over");
        CHECK(intact(buf, big, 2), "the blocking receive's data arrived damaged");

        /* A persistent receive, started twice on the two tag-14 messages: each start is handed
         * over, and they arrive in the order sent (s1, then s2). */
        MPI_Request pr;
        CHECK_MPI(MPI_Recv_init(buf, big, MPI_BYTE, 0, 14, MPI_COMM_WORLD, &pr));
        for (int round = 0; round < 2; ++round) {
            CHECK_MPI(MPI_Probe(0, 14, MPI_COMM_WORLD, &st));
            memset(buf, 0, big);
            before = handed_over();
            CHECK_MPI(MPI_Start(&pr));
            CHECK(handed_over() == before + 1, "MPI_Start %d of a persistent receive was not handed over", round);
            CHECK_MPI(MPI_Wait(&pr, &st));
            CHECK(intact(buf, big, round == 0 ? 1 : 2), "persistent receive %d: wrong data (order?)", round);
        }
        CHECK_MPI(MPI_Request_free(&pr));

        /* MPI_Cancel of a handed-over receive: matched, so not cancelled; the data arrive. */
        CHECK_MPI(MPI_Probe(0, 15, MPI_COMM_WORLD, &st));
        memset(buf, 0, big);
        MPI_Request r;
        before = handed_over();
        CHECK_MPI(MPI_Irecv(buf, big, MPI_BYTE, 0, 15, MPI_COMM_WORLD, &r));
        CHECK(handed_over() == before + 1, "the receive to cancel was not handed over");
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        int cancelled = 1;
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "a matched (handed-over) receive was cancelled");
        CHECK(intact(buf, big, 1), "the receive MPI_Cancel could not stop arrived damaged");

        /* A handed-over receive completes while the rank sleeps between status checks. */
        CHECK_MPI(MPI_Probe(0, 16, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Irecv(buf, big, MPI_BYTE, 0, 16, MPI_COMM_WORLD, &r));
        int done = 0;
        for (int tries = 0; tries < 200 && !done; ++tries) {
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
            CHECK_MPI(MPI_Request_get_status(r, &done, &st));
        }
        CHECK(done, "a handed-over receive did not complete in 10 s of sleeping");
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK(intact(buf, big, 2), "the receive completed while sleeping arrived damaged");
    }
    free(s1);
    free(s2);
    free(buf);
    CHECK_MPI(MPI_T_pvar_handle_free(session, &handle));
    CHECK_MPI(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
