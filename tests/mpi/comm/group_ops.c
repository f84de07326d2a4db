/* Every group operation against hand-computed results (MPI-4.1 7.3), at any number of ranks.
 * Local operations only; the verdict is agreed with point-to-point (mpitest.h). */
#include "mpitest.h"

static int group_size(MPI_Group g) { int n = -1; CHECK_MPI(MPI_Group_size(g, &n)); return n; }
static int group_rank(MPI_Group g) { int r = -5; CHECK_MPI(MPI_Group_rank(g, &r)); return r; }

/* Checks that g holds exactly the world ranks in expect[0..n) in that order. */
static void check_members(MPI_Group world, MPI_Group g, int n, const int* expect, const char* what)
{
    int got = group_size(g);
    CHECK(got == n, "%s: size %d, expected %d", what, got, n);
    if (got != n) return;
    int* idx = (int*)mpitest_malloc(sizeof(int) * (size_t)(n + 1));
    int* out = (int*)mpitest_malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) idx[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, world, out));
    for (int i = 0; i < n; i++) CHECK(out[i] == expect[i], "%s: member %d is world %d, expected %d", what, i, out[i], expect[i]);
    free(idx);
    free(out);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* all = (int*)mpitest_malloc(sizeof(int) * (size_t)size);
    int* exp = (int*)mpitest_malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) all[i] = i;

    MPI_Group world, g, h, u;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK(group_size(world) == size, "world group size");
    CHECK(group_rank(world) == rank, "world group rank");
    check_members(world, world, size, all, "world");

    /* MPI_COMM_SELF's group */
    MPI_Group self;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
    check_members(world, self, 1, &rank, "self");
    CHECK(group_rank(self) == 0, "self rank");

    /* incl: reversed order */
    for (int i = 0; i < size; i++) exp[i] = size - 1 - i;
    CHECK_MPI(MPI_Group_incl(world, size, exp, &g));
    check_members(world, g, size, exp, "incl reversed");
    CHECK(group_rank(g) == size - 1 - rank, "incl reversed rank");
    int res = -1;
    CHECK_MPI(MPI_Group_compare(world, g, &res));
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
    CHECK_MPI(MPI_Group_compare(world, world, &res));
    CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK(g == MPI_GROUP_NULL, "Group_free sets MPI_GROUP_NULL");

    /* incl of nothing is the empty group */
    CHECK_MPI(MPI_Group_incl(world, 0, NULL, &g));
    CHECK(group_size(g) == 0, "incl 0");
    CHECK(group_rank(g) == MPI_UNDEFINED, "rank in empty group");
    CHECK_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &res));
    CHECK(res == MPI_IDENT, "empty compare %d", res);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK(group_size(MPI_GROUP_EMPTY) == 0, "MPI_GROUP_EMPTY size");

    /* excl even ranks -> odd ranks */
    int nev = 0, nodd = 0;
    for (int i = 0; i < size; i += 2) exp[nev++] = i;
    CHECK_MPI(MPI_Group_excl(world, nev, exp, &g));
    for (int i = 1; i < size; i += 2) exp[nodd++] = i;
    check_members(world, g, nodd, exp, "excl evens");
    CHECK(group_rank(g) == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "excl evens rank %d", group_rank(g));

    /* range_incl (0, size-1, 2) = evens; (size-1, 0, -3) */
    int r1[1][3] = {{0, size - 1, 2}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, r1, &h));
    nev = 0;
    for (int i = 0; i < size; i += 2) exp[nev++] = i;
    check_members(world, h, nev, exp, "range_incl evens");

    /* union(odds, evens) = odds then evens; intersection empty; difference(world, evens) = odds */
    CHECK_MPI(MPI_Group_union(g, h, &u));
    int n = 0;
    for (int i = 1; i < size; i += 2) exp[n++] = i;
    for (int i = 0; i < size; i += 2) exp[n++] = i;
    check_members(world, u, size, exp, "union(odds, evens)");
    CHECK_MPI(MPI_Group_compare(u, world, &res));
    CHECK(res == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world) = %d", res);
    CHECK_MPI(MPI_Group_free(&u));
    CHECK_MPI(MPI_Group_intersection(g, h, &u));
    CHECK(group_size(u) == 0 && u == MPI_GROUP_EMPTY, "intersection(odds, evens) empty: size %d", group_size(u));
    CHECK_MPI(MPI_Group_free(&u));
    CHECK_MPI(MPI_Group_difference(world, h, &u));
    check_members(world, u, nodd, exp, "difference(world, evens)");
    CHECK_MPI(MPI_Group_compare(u, g, &res));
    CHECK(res == MPI_IDENT, "difference = odds: %d", res);
    CHECK_MPI(MPI_Group_free(&u));
    CHECK_MPI(MPI_Group_intersection(world, h, &u));
    check_members(world, u, nev, exp + nodd, "intersection(world, evens)");
    CHECK_MPI(MPI_Group_free(&u));
    CHECK_MPI(MPI_Group_union(world, world, &u));
    CHECK_MPI(MPI_Group_compare(u, world, &res));
    CHECK(res == MPI_IDENT, "union(world, world) = world: %d", res);
    CHECK_MPI(MPI_Group_free(&u));

    /* translate world ranks into the evens group: i -> i/2 or UNDEFINED; PROC_NULL stays */
    int* tr = (int*)mpitest_malloc(sizeof(int) * (size_t)(size + 1));
    int* src = (int*)mpitest_malloc(sizeof(int) * (size_t)(size + 1));
    for (int i = 0; i < size; i++) src[i] = i;
    src[size] = MPI_PROC_NULL;
    CHECK_MPI(MPI_Group_translate_ranks(world, size + 1, src, h, tr));
    for (int i = 0; i < size; i++)
        CHECK(tr[i] == (i % 2 == 0 ? i / 2 : MPI_UNDEFINED), "translate %d -> %d", i, tr[i]);
    CHECK(tr[size] == MPI_PROC_NULL, "translate PROC_NULL -> %d", tr[size]);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&h));

    /* range_incl with a negative stride and several ranges; range_excl of the same = the rest */
    int r2[2][3] = {{size - 1, 0, -3}, {1, 1, 1}};
    int nr = 1;
    if (size > 1) {
        /* (1,1,1) must not repeat a rank from the first range: size-1-3k == 1 ? */
        int dup = 0;
        for (int i = size - 1; i >= 0; i -= 3)
            if (i == 1) dup = 1;
        if (!dup) nr = 2;
    }
    CHECK_MPI(MPI_Group_range_incl(world, nr, r2, &g));
    n = 0;
    for (int i = size - 1; i >= 0; i -= 3) exp[n++] = i;
    if (nr == 2) exp[n++] = 1;
    check_members(world, g, n, exp, "range_incl (size-1,0,-3)(1,1,1)");
    CHECK_MPI(MPI_Group_range_excl(world, nr, r2, &h));
    int m = 0;
    for (int i = 0; i < size; i++) {
        int in = 0;
        for (int k = 0; k < n; k++) in |= exp[k] == i;
        if (!in) src[m++] = i;
    }
    check_members(world, h, m, src, "range_excl");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&h));

    /* errors: MPI_ERR_RANK for bad or repeated ranks, MPI_ERR_GROUP for MPI_GROUP_NULL, MPI_ERR_ARG for stride 0 */
    int bad[2] = {0, size};
    int eclass = 0;
    int rc = MPI_Group_incl(world, 2, bad, &g);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_RANK, "incl out of range: class %d", eclass);
    bad[1] = 0;
    rc = MPI_Group_excl(world, 2, bad, &g);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_RANK, "excl repeated: class %d", eclass);
    rc = MPI_Group_size(MPI_GROUP_NULL, &n);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_GROUP, "size of GROUP_NULL: class %d", eclass);
    int r0[1][3] = {{0, 0, 0}};
    rc = MPI_Group_range_incl(world, 1, r0, &g);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_ARG, "stride 0: class %d", eclass);
    int rr[1][3] = {{0, size, 1}};
    rc = MPI_Group_range_excl(world, 1, rr, &g);
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_RANK, "range past the end: class %d", eclass);

    /* the empty group may be freed */
    g = MPI_GROUP_EMPTY;
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Group_free(&self));
    CHECK_MPI(MPI_Group_free(&world));
    free(all);
    free(exp);
    free(tr);
    free(src);
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
