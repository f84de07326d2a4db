/* A buffered send reuses the space of an earlier buffered message that its receiver has already
 * received, even when the sender has not called MPI since (MPI-4.1 3.6.2: the buffer space of a
 * message is free once its transfer has completed; a Bsend reclaims it before it gives up).
 *
 * Rank 0 attaches room for exactly one rendezvous-sized message. Rank 1 receives each message and
 * then raises a flag in a shared-memory window; rank 0 spins on that flag with plain memory loads
 * (no MPI call, so no progress) and sends the next message. The receiver's completion notice is
 * then still unread at rank 0: the Bsend must read it and reuse the block instead of failing with
 * MPI_ERR_BUFFER. A buffer that is really full (its message not received yet) must still fail
 * with MPI_ERR_BUFFER, at once.
 *
 * Without one-copy reads (BATON_SHM_CMA=0) the receive of a rendezvous message needs the sender's
 * progress, so rank 1 cannot finish while rank 0 spins: after a while rank 0 flushes the buffer
 * instead (the fix is then not exercised, but the full-buffer error and the data still are).
 */
#include <sched.h>
#include <time.h>

#include "mpitest.h"

#define LEN (1 << 20) /* past the eager limit: the block stays in use until the receiver reads */
#define ROUNDS 6

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nsize;
    MPI_Comm_size(node, &nsize);
    if (size != 2 || nsize != 2) {
        CHECK(0, "needs 2 ranks on one host (got %d, %d on this host)", size, nsize);
        MPI_Comm_free(&node);
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }

    int* flag = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, node,
                                      &flag, &win));
    MPI_Aint qsize;
    int qdisp;
    CHECK_MPI(MPI_Win_shared_query(win, 0, &qsize, &qdisp, &flag));
    if (rank == 0) __atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    unsigned char* msg = malloc(LEN);
    if (rank == 0) {
        int bsize = LEN + MPI_BSEND_OVERHEAD; /* room for exactly one message */
        char* attached = malloc((size_t)bsize);
        CHECK_MPI(MPI_Buffer_attach(attached, bsize));

        /* round 0: the buffer holds one message nobody has received yet; a second one must fail */
        memset(msg, 0, LEN);
        CHECK_MPI(MPI_Bsend(msg, LEN, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
        int rc = MPI_Bsend(msg, LEN, MPI_BYTE, 1, 99, MPI_COMM_WORLD);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "Bsend into a full buffer: error class %d, expected MPI_ERR_BUFFER (%d)", cls,
              MPI_ERR_BUFFER);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 receives round 0 after this */

        int fallback = 0;
        for (int i = 1; i <= ROUNDS; ++i) {
            /* wait, without calling MPI, until rank 1 has received round i - 1 */
            double t0 = now();
            while (!fallback && __atomic_load_n(flag, __ATOMIC_ACQUIRE) < i) {
                if (now() - t0 > 5.0) {
                    fprintf(stderr, "[rank 0] the receiver did not finish on its own (no one-copy reads?): "
                                    "flushing the buffer instead\n");
                    fallback = 1;
                }
                sched_yield();
            }
            if (fallback) CHECK_MPI(MPI_Buffer_flush());
            memset(msg, i, LEN);
            rc = MPI_Bsend(msg, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "round %d: Bsend after the previous message was received returned %d", i, rc);
            if (rc != MPI_SUCCESS) {
                /* keep the ranks in step: free the block and send again */
                CHECK_MPI(MPI_Buffer_flush());
                CHECK_MPI(MPI_Bsend(msg, LEN, MPI_BYTE, 1, i, MPI_COMM_WORLD));
            }
        }
        void* b;
        int bs;
        CHECK_MPI(MPI_Buffer_detach(&b, &bs));
        CHECK(b == attached && bs == bsize, "detach gave %p/%d, expected %p/%d", b, bs, (void*)attached, bsize);
        free(attached);
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i <= ROUNDS; ++i) {
            memset(msg, 0xee, LEN);
            MPI_Status st;
            CHECK_MPI(MPI_Recv(msg, LEN, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == i, "round %d: got tag %d", i, st.MPI_TAG);
            int n = -1;
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK(n == LEN, "round %d: got %d bytes", i, n);
            int bad = 0;
            for (int k = 0; k < LEN; ++k) bad += msg[k] != (unsigned char)i;
            CHECK(bad == 0, "round %d: %d bytes differ", i, bad);
            __atomic_store_n(flag, i + 1, __ATOMIC_RELEASE);
        }
    }
    free(msg);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
