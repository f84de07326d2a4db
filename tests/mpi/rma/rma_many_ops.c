/* Many RMA operations outstanding must not slow down the matching of a window's other messages.
 * The target's header receive is a wildcard (any source); it used to share its matching context
 * with the reply receives a process posts as an origin, so while it was posted every arriving
 * header was matched by walking all those reply receives: O(outstanding operations) per message.
 *
 * Rank 1 issues N accumulates to rank 2, which sleeps outside MPI (N reply receives stay posted
 * at rank 1). Meanwhile rank 0 does M accumulate + flush round trips to rank 1. Their time is
 * compared with the same round trips when rank 1 has nothing outstanding: before the fix each
 * round trip cost a walk of N receives (5.2 s against 0.011 s idle on a 2-core VM); now the two
 * phases are about equal. Sums are checked too. Ranks beyond 3 only take part in the window.
 *
 * Rank 2 must make no MPI call until rank 0 has timed phase B: where ranks 0 and 2 share a host
 * it waits, outside MPI, for a flag rank 0 raises in shared memory; otherwise (two hosts,
 * BATON_TRANSPORT=ucx) it sleeps 3 s, longer than phase B takes on a quiet machine. */
#include <time.h>

#include "mpitest.h"

#define N 65536
#define M 2000

static double round_trips(MPI_Win win, int* errs)
{
    const int one = 1;
    double t0 = MPI_Wtime();
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    for (int i = 0; i < M; i++) {
        if (MPI_Accumulate(&one, 1, MPI_INT, 1, i, 1, MPI_INT, MPI_SUM, win) != MPI_SUCCESS) ++*errs;
        if (MPI_Win_flush(1, win) != MPI_SUCCESS) ++*errs;
    }
    CHECK_MPI(MPI_Win_unlock(1, win));
    return MPI_Wtime() - t0;
}

/* A flag in memory shared by ranks 0 and 2 when they are on one host (else NULL). */
static int* phase_b_flag(MPI_Win* flag_win)
{
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Group world_group, node_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(node, &node_group);
    const int ends[2] = {0, 2};
    int in_node[2];
    MPI_Group_translate_ranks(world_group, 2, ends, node_group, in_node);
    MPI_Group_free(&world_group);
    MPI_Group_free(&node_group);
    const int shared = in_node[0] != MPI_UNDEFINED && in_node[1] != MPI_UNDEFINED;
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    int* flag = NULL;
    /* collective on every host's communicator; only rank 0's host has memory in it */
    CHECK_MPI(MPI_Win_allocate_shared(shared && node_rank == in_node[0] ? (MPI_Aint)sizeof(int) : 0, sizeof(int),
                                      MPI_INFO_NULL, node, &flag, flag_win));
    MPI_Comm_free(&node);
    if (!shared) return NULL;
    MPI_Aint sz;
    int du;
    CHECK_MPI(MPI_Win_shared_query(*flag_win, in_node[0], &sz, &du, &flag));
    if (in_node[0] == node_rank) __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
    return flag;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        CHECK(0, "needs 3 ranks");
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    int* mem = mpitest_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) mem[i] = 0;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win flag_win;
    int* flag = phase_b_flag(&flag_win);
    int errs = 0;
    double idle = 0, busy = 0;
    /* phase A: rank 1 has nothing outstanding */
    if (rank == 0) idle = round_trips(win, &errs);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* phase B: rank 1 has N operations to the sleeping rank 2 outstanding */
    if (rank == 1) {
        const int one = 1;
        CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        for (int i = 0; i < N; i++) CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 2, i, 1, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 0, 5, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_unlock_all(win)); /* progresses (rank 0's headers) until rank 2 answers */
    } else if (rank == 2) {
        const struct timespec ms = {0, 1000000};
        if (flag) {
            while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) nanosleep(&ms, NULL);
        } else {
            for (int i = 0; i < 3000; i++) nanosleep(&ms, NULL);
        }
    } else if (rank == 0) {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        busy = round_trips(win, &errs);
        if (flag) __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(errs == 0, "%d RMA calls failed", errs);
    if (rank == 0) {
        printf("%d accumulate+flush round trips: %.3f s with the target idle, %.3f s with %d operations of the "
               "target outstanding\n", M, idle, busy, N);
        CHECK(busy < 4 * idle + 2.0, "round trips took %.3f s with the target's operations outstanding, %.3f s "
              "without", busy, idle);
    }
    for (int i = 0; i < N; i++) {
        int expect = rank == 1 ? (i < M ? 2 : 0) : rank == 2 ? 1 : 0;
        if (mem[i] != expect) {
            CHECK(mem[i] == expect, "element %d is %d, expected %d", i, mem[i], expect);
            break;
        }
    }
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Win_free(&flag_win));
    free(mem);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
