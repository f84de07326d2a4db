/* 100,000 requests pending at once between ranks 0 and 1 (other ranks, if any, only take part
 * in the final agreement):
 * 1. rank 0 posts 100,000 Irecvs, then rank 1 issues 100,000 Isends; both Waitall;
 * 2. rank 1 issues all the Isends before rank 0 posts anything (unexpected messages), then
 *    rank 0 posts Irecvs with MPI_ANY_TAG; both Waitall;
 * 3. both ranks at once: 50,000 Irecvs and 50,000 Isends each in one array, Waitall.
 * Every receive gets the right value, source and tag (messages with equal source and tag are
 * matched in posting order). Memory: a few MB per rank. */
#include "mpitest.h"

enum { N = 100000, NTAGS = 1000 };

static void check_received(const int* in, const MPI_Status* st, int n, int src, const char* what)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (in[i] != i || st[i].MPI_SOURCE != src || st[i].MPI_TAG != i % NTAGS) {
            if (wrong++ == 0)
                CHECK(0, "%s: receive %d got value %d from %d tag %d", what, i, in[i],
                      st[i].MPI_SOURCE, st[i].MPI_TAG);
        }
    }
    CHECK(wrong == 0, "%s: %d of %d receives wrong", what, wrong, n);
}

int main(int argc, char** argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 ranks, have %d", size);

    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        MPI_Comm ctrl;
        MPI_Request* req = mpitest_malloc(sizeof(MPI_Request) * N);
        MPI_Status* st = mpitest_malloc(sizeof(MPI_Status) * N);
        int* buf = mpitest_malloc(sizeof(int) * N);
        int* out = mpitest_malloc(sizeof(int) * N);
        for (int i = 0; i < N; i++) out[i] = i;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &ctrl));

        /* 1: receives posted first */
        if (rank == 0) {
            for (int i = 0; i < N; i++) {
                buf[i] = -1;
                CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, peer, i % NTAGS, MPI_COMM_WORLD, &req[i]));
            }
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 1, ctrl));
            CHECK_MPI(MPI_Waitall(N, req, st));
            check_received(buf, st, N, peer, "pre-posted");
        } else {
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, ctrl, MPI_STATUS_IGNORE));
            for (int i = 0; i < N; i++)
                CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, peer, i % NTAGS, MPI_COMM_WORLD, &req[i]));
            CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
        }

        /* 2: sends first, received as unexpected messages with MPI_ANY_TAG */
        if (rank == 1) {
            for (int i = 0; i < N; i++)
                CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, peer, i % NTAGS, MPI_COMM_WORLD, &req[i]));
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, 2, ctrl));
            CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, ctrl, MPI_STATUS_IGNORE));
            for (int i = 0; i < N; i++) {
                buf[i] = -1;
                CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &req[i]));
            }
            CHECK_MPI(MPI_Waitall(N, req, st));
            check_received(buf, st, N, peer, "unexpected");
        }

        /* 3: both directions at once, receives and sends in one array */
        for (int i = 0; i < N / 2; i++) {
            buf[i] = -1;
            CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, peer, i % NTAGS, MPI_COMM_WORLD, &req[2 * i]));
            CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, peer, i % NTAGS, MPI_COMM_WORLD, &req[2 * i + 1]));
        }
        CHECK_MPI(MPI_Waitall(N, req, st));
        int wrong = 0;
        for (int i = 0; i < N / 2; i++)
            if (buf[i] != i || st[2 * i].MPI_SOURCE != peer || st[2 * i].MPI_TAG != i % NTAGS)
                wrong++;
        CHECK(wrong == 0, "both directions: %d of %d receives wrong", wrong, N / 2);
        for (int i = 0; i < N; i++)
            if (req[i] != MPI_REQUEST_NULL) {
                CHECK(0, "request %d not null after Waitall", i);
                break;
            }

        CHECK_MPI(MPI_Comm_free(&ctrl));
        free(req);
        free(st);
        free(buf);
        free(out);
    } else {
        /* the split is collective over MPI_COMM_WORLD */
        MPI_Comm other;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 1, rank, &other));
        CHECK_MPI(MPI_Comm_free(&other));
    }

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
