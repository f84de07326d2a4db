/* MPI_Sendrecv and MPI_Sendrecv_replace:
 * - ring shifts by every distance 1..size-1, both directions, 0 bytes to 1 MB;
 * - wildcard source and tag on the receive side, a larger receive buffer than the message;
 * - a non-periodic chain where the ends talk to MPI_PROC_NULL (status source MPI_PROC_NULL,
 *   buffer untouched);
 * - to self. */
#include "mpitest.h"

static int rank, size;

static void fill(int* buf, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) buf[i] = (int)mpitest_value((size_t)i, seed);
}

static int first_bad(const int* buf, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != (int)mpitest_value((size_t)i, seed)) return i;
    return n;
}

static void test_shifts(int* sbuf, int* rbuf)
{
    const int counts[] = {0, 1, 1000, 1 << 18};
    for (int dist = 1; dist < (size > 1 ? size : 2); dist++) {
        int to = (rank + dist) % size, from = (rank - dist % size + size) % size;
        for (int k = 0; k < 4; k++) {
            int n = counts[k], tag = dist * 10 + k;
            /* the full range of counts at distance 1, small ones further away (keeps it fast) */
            if (dist > 1 && n > 1000) continue;
            MPI_Status st;
            fill(sbuf, n, (uint32_t)(rank * 1000 + tag));
            rbuf[n] = 12345;
            /* wildcards only where a single message can match: every tag is used once, and
             * `from` sends this message to us before any other */
            int wild = (k % 2 == 1);
            CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, to, tag, rbuf, n + 1, MPI_INT,
                                   k == 1 ? MPI_ANY_SOURCE : from, k == 3 ? MPI_ANY_TAG : tag,
                                   MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, from, tag, MPI_INT, n);
            int bad = first_bad(rbuf, n, (uint32_t)(from * 1000 + tag));
            CHECK(bad == n && rbuf[n] == 12345, "Sendrecv shift %d, %d ints: element %d", dist, n,
                  bad);

            /* the same in place, the other direction */
            fill(rbuf, n, (uint32_t)(rank * 1000 + tag + 5));
            CHECK_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_INT, from, tag + 5,
                                           wild ? MPI_ANY_SOURCE : to, tag + 5, MPI_COMM_WORLD,
                                           &st));
            CHECK_STATUS(st, to, tag + 5, MPI_INT, n);
            bad = first_bad(rbuf, n, (uint32_t)(to * 1000 + tag + 5));
            CHECK(bad == n, "Sendrecv_replace shift -%d, %d ints: element %d", dist, n, bad);
        }
    }
}

/* A chain 0 -> 1 -> ... -> size-1: the ends send to / receive from MPI_PROC_NULL. */
static void test_chain(int* sbuf, int* rbuf)
{
    int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int n = 100;
    MPI_Status st;
    fill(sbuf, n, (uint32_t)rank);
    for (int i = 0; i < n; i++) rbuf[i] = -5;
    CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, to, 3, rbuf, n, MPI_INT, from, 3, MPI_COMM_WORLD, &st));
    if (from == MPI_PROC_NULL) {
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        CHECK(rbuf[0] == -5 && rbuf[n - 1] == -5, "receive from MPI_PROC_NULL wrote the buffer");
    } else {
        CHECK_STATUS(st, from, 3, MPI_INT, n);
        int bad = first_bad(rbuf, n, (uint32_t)from);
        CHECK(bad == n, "chain Sendrecv: element %d", bad);
    }
    /* replace, backwards along the chain */
    fill(rbuf, n, (uint32_t)rank + 50);
    CHECK_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_INT, from, 4, to, 4, MPI_COMM_WORLD, &st));
    if (to == MPI_PROC_NULL) {
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        int bad = first_bad(rbuf, n, (uint32_t)rank + 50);
        CHECK(bad == n, "Sendrecv_replace from MPI_PROC_NULL changed element %d", bad);
    } else {
        CHECK_STATUS(st, to, 4, MPI_INT, n);
        int bad = first_bad(rbuf, n, (uint32_t)to + 50);
        CHECK(bad == n, "chain Sendrecv_replace: element %d", bad);
    }
    /* both sides MPI_PROC_NULL */
    rbuf[0] = 99;
    CHECK_MPI(MPI_Sendrecv_replace(rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                   MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
    CHECK(rbuf[0] == 99, "Sendrecv_replace with MPI_PROC_NULL changed the buffer");
}

static void test_self(int* sbuf, int* rbuf)
{
    const int counts[] = {0, 7, 1 << 18};
    for (int k = 0; k < 3; k++) {
        int n = counts[k];
        MPI_Status st;
        fill(sbuf, n, 42u + (uint32_t)k);
        CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, rank, 9, rbuf, n, MPI_INT, rank, 9, MPI_COMM_WORLD,
                               &st));
        CHECK_STATUS(st, rank, 9, MPI_INT, n);
        int bad = first_bad(rbuf, n, 42u + (uint32_t)k);
        CHECK(bad == n, "Sendrecv to self, %d ints: element %d", n, bad);
        CHECK_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_INT, 0, 10, 0, 10, MPI_COMM_SELF, &st));
        CHECK_STATUS(st, 0, 10, MPI_INT, n);
        bad = first_bad(rbuf, n, 42u + (uint32_t)k);
        CHECK(bad == n, "Sendrecv_replace on MPI_COMM_SELF, %d ints: element %d", n, bad);
    }
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* sbuf = mpitest_malloc(sizeof(int) * ((1 << 18) + 1));
    int* rbuf = mpitest_malloc(sizeof(int) * ((1 << 18) + 1));

    test_shifts(sbuf, rbuf);
    test_chain(sbuf, rbuf);
    test_self(sbuf, rbuf);

    free(sbuf);
    free(rbuf);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
