/* Two behaviours aligned with MPICH and Open MPI:
 * - MPI_Win_shared_query on a rank whose segment of a shared window has size 0 gives size 0 and
 *   a NULL base (MPICH's rma/win_shared_noncontig_put asserts on it), also for MPI_PROC_NULL when
 *   every segment is empty;
 * - MPI_Compare_and_swap accepts MPI_CHAR (an 8-bit integer, as the reductions take it; OSU's
 *   osu_cas_latency uses it). */
#include <mpi.h>

#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);

    /* even ranks give nothing, odd ranks 16 bytes */
    MPI_Aint mine = (nr % 2) ? 16 : 0;
    char* base = NULL;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, node, &base, &win));
    for (int r = 0; r < ns; r++) {
        MPI_Aint qs = -1;
        int du = -1;
        char* qb = (char*)&qs;
        CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &du, &qb));
        if (r % 2 == 0)
            CHECK(qs == 0 && qb == NULL, "rank %d's empty segment: size %ld base %p", r, (long)qs, (void*)qb);
        else
            CHECK(qs == 16 && qb != NULL, "rank %d's segment: size %ld base %p", r, (long)qs, (void*)qb);
    }
    CHECK_MPI(MPI_Win_free(&win));

    CHECK_MPI(MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, node, &base, &win));
    {
        MPI_Aint qs = -1;
        int du = -1;
        char* qb = (char*)&qs;
        CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &du, &qb));
        CHECK(qs == 0 && qb == NULL, "all segments empty, MPI_PROC_NULL: size %ld base %p", (long)qs, (void*)qb);
    }
    CHECK_MPI(MPI_Win_free(&win));

    /* MPI_CHAR compare-and-swap on every rank's byte at rank 0, one swap per rank in turn */
    char* cell = NULL;
    CHECK_MPI(MPI_Win_allocate(rank == 0 ? 1 : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cell, &win));
    if (rank == 0) *cell = 'a';
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int turn = 0; turn < size; turn++) {
        char expect = (char)('a' + turn), next = (char)('a' + turn + 1), old = 0, old2 = 0, wrong = 'Z', zero = 0;
        if (turn == rank) CHECK_MPI(MPI_Compare_and_swap(&next, &expect, &old, MPI_CHAR, 0, 0, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        if (turn == rank) {
            CHECK(old == expect, "turn %d: old value '%c', expected '%c'", turn, old, expect);
            /* a comparison that fails leaves the byte alone */
            CHECK_MPI(MPI_Compare_and_swap(&zero, &wrong, &old2, MPI_CHAR, 0, 0, win));
        }
        CHECK_MPI(MPI_Win_fence(0, win));
        if (turn == rank) CHECK(old2 == next, "turn %d: failed comparison saw '%c', expected '%c'", turn, old2, next);
    }
    if (rank == 0) CHECK(*cell == (char)('a' + size), "final byte '%c', expected '%c'", *cell, (char)('a' + size));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Comm_free(&node));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
