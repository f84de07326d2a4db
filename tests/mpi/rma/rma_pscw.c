/* General active target (post/start/complete/wait/test) with subgroups, and shared-memory windows
 * (MPI_Win_allocate_shared + MPI_Win_shared_query, load/store with MPI_Win_sync and a barrier). */
#include "mpitest.h"

static int rank, size;

static void test_pscw(void)
{
    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int) * (size_t)size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < size; ++i) mem[i] = -1;
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ne = (size + 1) / 2, no = size / 2;
    int* er = malloc(sizeof(int) * (size_t)ne);
    int* orr = malloc(sizeof(int) * (size_t)(no > 0 ? no : 1));
    for (int i = 0; i < ne; ++i) er[i] = 2 * i;
    for (int i = 0; i < no; ++i) orr[i] = 2 * i + 1;
    MPI_Group_incl(world, ne, er, &evens);
    MPI_Group_incl(world, no, orr, &odds);
    MPI_Barrier(MPI_COMM_WORLD);
    /* odd ranks expose to the even ranks; even ranks put their rank into every odd target */
    if (rank % 2 == 1) {
        CHECK_MPI(MPI_Win_post(evens, 0, win));
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
        for (int i = 0; i < ne; ++i) CHECK(mem[2 * i] == 2 * i, "pscw: mem[%d] = %d", 2 * i, mem[2 * i]);
    } else if (no > 0) {
        CHECK_MPI(MPI_Win_start(odds, 0, win));
        for (int i = 0; i < no; ++i) CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, 2 * i + 1, rank, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_complete(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank both exposes to and accesses its two neighbours (overlapping epochs) */
    int l = (rank + size - 1) % size, r = (rank + 1) % size;
    int nb[2] = {l, r};
    MPI_Group ng;
    MPI_Group_incl(world, l == r ? 1 : 2, nb, &ng);
    CHECK_MPI(MPI_Win_post(ng, MPI_MODE_NOSTORE, win));
    CHECK_MPI(MPI_Win_start(ng, 0, win));
    int v = 1000 + rank;
    CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, l, rank, 1, MPI_INT, MPI_REPLACE, win));
    if (r != l) CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, r, rank, 1, MPI_INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MPI(MPI_Win_wait(win));
    CHECK(mem[l] == 1000 + l && mem[r] == 1000 + r, "neighbour pscw: mem[%d] = %d, mem[%d] = %d", l, mem[l], r, mem[r]);
    /* a get in a PSCW epoch */
    int g = -1;
    CHECK_MPI(MPI_Win_post(ng, 0, win));
    CHECK_MPI(MPI_Win_start(ng, 0, win));
    CHECK_MPI(MPI_Get(&g, 1, MPI_INT, r, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    CHECK_MPI(MPI_Win_wait(win));
    CHECK(g == 1000 + rank, "pscw get: %d, expected %d", g, 1000 + rank);
    MPI_Group_free(&ng);
    MPI_Group_free(&world);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    free(er);
    free(orr);
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int* mine;
    MPI_Win win;
    MPI_Aint bytes = (nr % 2 == 0 ? 4 : 2) * (MPI_Aint)sizeof(int);
    CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    int* flav;
    int flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flav, &flag));
    CHECK(flag && *flav == MPI_WIN_FLAVOR_SHARED, "flavor %d", *flav);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < bytes / (MPI_Aint)sizeof(int); ++i) mine[i] = nr * 10 + i;
    CHECK_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    for (int p = 0; p < ns; ++p) {
        MPI_Aint sz;
        int du;
        int* base;
        CHECK_MPI(MPI_Win_shared_query(win, p, &sz, &du, &base));
        CHECK(du == sizeof(int) && sz == (p % 2 == 0 ? 4 : 2) * (MPI_Aint)sizeof(int), "query %d: size %ld unit %d", p, (long)sz, du);
        for (int i = 0; i < sz / (MPI_Aint)sizeof(int); ++i)
            CHECK(base[i] == p * 10 + i, "load from rank %d: [%d] = %d", p, i, base[i]);
    }
    /* contiguous by default: rank 1's memory follows rank 0's */
    if (ns > 1) {
        int* b0; int* b1; MPI_Aint s0, s1; int du;
        MPI_Win_shared_query(win, 0, &s0, &du, &b0);
        MPI_Win_shared_query(win, 1, &s1, &du, &b1);
        CHECK((char*)b1 >= (char*)b0 + s0, "segments overlap");
    }
    MPI_Barrier(node); /* every load above is done before the accumulates */
    /* RMA operations on the shared window work too */
    int one = 1;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    MPI_Barrier(node);
    CHECK_MPI(MPI_Win_sync(win));
    int* b0; MPI_Aint s0; int du;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &s0, &du, &b0);
    CHECK(b0[0] == ns, "accumulated through the shared window: %d, expected %d", b0[0], ns);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_pscw();
    test_shared();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
