/* Communicator construction: split, split_type, create (same and disjoint groups), create_group
 * (disjoint concurrent groups, reversed order), dup / dup_with_info / idup / idup_with_info,
 * compare, names, info hints, test_inter. Every new communicator carries a ring exchange that
 * checks its rank order against the expected world ranks. */
#include "mpitest.h"

static int wrank, wsize;

/* Ring shift of world ranks on c; `expect` maps c's ranks to world ranks. */
static void ring_check(MPI_Comm c, int n, const int* expect, const char* what)
{
    int r = -1, s = -1;
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK_MPI(MPI_Comm_size(c, &s));
    CHECK(s == n, "%s: size %d, expected %d", what, s, n);
    if (s != n || r < 0 || r >= n) return;
    CHECK(expect[r] == wrank, "%s: rank %d holds world rank %d, expected %d", what, r, wrank, expect[r]);
    int got = -1;
    CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, (r + 1) % n, 5, &got, 1, MPI_INT, (r - 1 + n) % n, 5, c,
                           MPI_STATUS_IGNORE));
    CHECK(got == expect[(r - 1 + n) % n], "%s: got world rank %d from the left, expected %d", what, got,
          expect[(r - 1 + n) % n]);
}

static void check_name(MPI_Comm c, const char* expect)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Comm_get_name(c, name, &len));
    CHECK(strcmp(name, expect) == 0 && len == (int)strlen(expect), "name \"%s\" (%d), expected \"%s\"", name, len,
          expect);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int* exp = (int*)mpitest_malloc(sizeof(int) * (size_t)wsize);
    int n, res, flag;
    MPI_Comm c, d;

    /* ---- split: color rank%3, key -rank (reverse order); rank 0 undefined when size > 2 ---- */
    int color = (wsize > 2 && wrank == 0) ? MPI_UNDEFINED : wrank % 3;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &c));
    if (color == MPI_UNDEFINED) {
        CHECK(c == MPI_COMM_NULL, "split with MPI_UNDEFINED gives MPI_COMM_NULL");
    } else {
        n = 0;
        for (int i = wsize - 1; i >= 0; i--)
            if (i % 3 == color && !(wsize > 2 && i == 0)) exp[n++] = i;
        ring_check(c, n, exp, "split");
        CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
        CHECK(res == (n == wsize ? (wsize == 1 ? MPI_CONGRUENT : MPI_SIMILAR) : MPI_UNEQUAL), "compare split %d", res);
        CHECK_MPI(MPI_Comm_free(&c));
        CHECK(c == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    }
    /* one color, reversed keys: SIMILAR to world (size > 1) */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &c));
    for (int i = 0; i < wsize; i++) exp[i] = wsize - 1 - i;
    ring_check(c, wsize, exp, "split reversed");
    CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (wsize == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare reversed %d", res);
    CHECK_MPI(MPI_Comm_free(&c));

    /* ---- split_type ---- */
    for (int i = 0; i < wsize; i++) exp[i] = i;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    ring_check(c, wsize, exp, "split_type shared");  /* one host */
    CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "compare shared %d", res);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, wrank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &c));
    if (wrank % 2) {
        CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED");
    } else {
        n = 0;
        for (int i = 0; i < wsize; i += 2) exp[n++] = i;
        ring_check(c, n, exp, "split_type shared, odd ranks undefined");
        CHECK_MPI(MPI_Comm_free(&c));
    }
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    for (int i = 0; i < wsize; i++) exp[i] = i;
    ring_check(c, wsize, exp, "split_type hw_guided shared memory");
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "no-such-level"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    CHECK(c == MPI_COMM_NULL, "hw_guided with an unknown level gives MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "hw_unguided on one host gives MPI_COMM_NULL");
    /* resource_guided (MPI-4.1): the hardware key as hw_guided, or a process set by name */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    CHECK(c == MPI_COMM_NULL, "resource_guided with an unknown level gives MPI_COMM_NULL");
    CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
    ring_check(c, wsize, exp, "split_type resource_guided shared memory");
    CHECK_MPI(MPI_Comm_free(&c));
    /* only the rank passing the type gets a communicator, of itself */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, wrank == 0 ? MPI_COMM_TYPE_RESOURCE_GUIDED : MPI_UNDEFINED, 0, info,
                                  &c));
    CHECK((wrank == 0) == (c != MPI_COMM_NULL), "resource_guided by rank 0 alone");
    if (c != MPI_COMM_NULL) {
        int n = 0;
        CHECK_MPI(MPI_Comm_size(c, &n));
        CHECK(n == 1, "resource_guided by rank 0 alone has %d ranks", n);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    MPI_Info pinfo;
    CHECK_MPI(MPI_Info_create(&pinfo));
    CHECK_MPI(MPI_Info_set(pinfo, "mpi_pset_name", "mpi://WORLD"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, pinfo, &c));
    ring_check(c, wsize, exp, "split_type resource_guided mpi://WORLD");
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Info_set(pinfo, "mpi_pset_name", "mpi://SELF"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, pinfo, &c));
    {
        int n = 0;
        CHECK_MPI(MPI_Comm_size(c, &n));
        CHECK(n == 1, "resource_guided mpi://SELF has %d ranks", n);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Info_set(pinfo, "mpi_pset_name", "mpi://no-such-set"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, pinfo, &c));
    CHECK(c == MPI_COMM_NULL, "resource_guided with an unknown process set gives MPI_COMM_NULL");
    CHECK_MPI(MPI_Info_free(&pinfo));
    CHECK_MPI(MPI_Info_free(&info));

    /* ---- create: evens; then disjoint groups (evens and odds each pass their own) ---- */
    MPI_Group world, evens, odds, mine;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int r1[1][3] = {{0, wsize - 1, 2}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, r1, &evens));
    CHECK_MPI(MPI_Group_difference(world, evens, &odds));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    n = 0;
    for (int i = 0; i < wsize; i += 2) exp[n++] = i;
    if (wrank % 2) {
        CHECK(c == MPI_COMM_NULL, "create: non-member gets MPI_COMM_NULL");
    } else {
        ring_check(c, n, exp, "create evens");
        CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
        CHECK(res == (wsize == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare create %d", res);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    mine = wrank % 2 ? odds : evens;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
    n = 0;
    for (int i = wrank % 2; i < wsize; i += 2) exp[n++] = i;
    ring_check(c, n, exp, "create disjoint");
    /* ---- create_group: evens and odds concurrently, same tag; then over c's reversed group ---- */
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 7, &d));
    ring_check(d, n, exp, "create_group disjoint");
    CHECK_MPI(MPI_Comm_compare(c, d, &res));
    CHECK(res == MPI_CONGRUENT, "create vs create_group %d", res);
    CHECK_MPI(MPI_Comm_free(&d));
    MPI_Group cg, rev;
    CHECK_MPI(MPI_Comm_group(c, &cg));
    int r2[1][3] = {{n - 1, 0, -1}};
    CHECK_MPI(MPI_Group_range_incl(cg, 1, r2, &rev));
    CHECK_MPI(MPI_Comm_create_group(c, rev, 12345, &d));
    for (int i = 0; i < n / 2; i++) {
        int t = exp[i];
        exp[i] = exp[n - 1 - i];
        exp[n - 1 - i] = t;
    }
    ring_check(d, n, exp, "create_group reversed");
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Group_free(&rev));
    CHECK_MPI(MPI_Group_free(&cg));
    CHECK_MPI(MPI_Comm_free(&c));
    /* create_group by a subset only: world rank 0 and the last rank; others do not call */
    if (wrank == 0 || wrank == wsize - 1) {
        int two[2] = {wsize - 1, 0};
        MPI_Group g2;
        CHECK_MPI(MPI_Group_incl(world, wsize > 1 ? 2 : 1, two, &g2));
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g2, 0, &d));
        ring_check(d, wsize > 1 ? 2 : 1, two, "create_group pair");
        CHECK_MPI(MPI_Comm_free(&d));
        CHECK_MPI(MPI_Group_free(&g2));
    }
    CHECK_MPI(MPI_Group_free(&evens));
    CHECK_MPI(MPI_Group_free(&odds));
    CHECK_MPI(MPI_Group_free(&world));

    /* ---- dup, dup_with_info, idup, idup_with_info, names, hints ---- */
    for (int i = 0; i < wsize; i++) exp[i] = i;
    check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    check_name(MPI_COMM_SELF, "MPI_COMM_SELF");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    check_name(c, "");
    CHECK_MPI(MPI_Comm_set_name(c, "mine"));
    check_name(c, "mine");
    char longname[300];
    memset(longname, 'x', sizeof longname);
    longname[299] = 0;
    CHECK_MPI(MPI_Comm_set_name(c, longname));
    longname[MPI_MAX_OBJECT_NAME - 1] = 0;
    check_name(c, longname);
    CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
    CHECK_MPI(MPI_Comm_compare(c, c, &res));
    CHECK(res == MPI_IDENT, "compare self %d", res);
    CHECK_MPI(MPI_Comm_test_inter(c, &flag));
    CHECK(flag == 0, "test_inter");
    ring_check(c, wsize, exp, "dup");

    MPI_Info hints, got;
    char val[MPI_MAX_INFO_VAL];
    int len;
    CHECK_MPI(MPI_Info_create(&hints));
    CHECK_MPI(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
    CHECK_MPI(MPI_Comm_dup_with_info(c, hints, &d));
    check_name(d, "");
    ring_check(d, wsize, exp, "dup_with_info");
    CHECK_MPI(MPI_Comm_get_info(d, &got));
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(got, "mpi_assert_no_any_tag", &len, val, &flag));
    CHECK(flag && strcmp(val, "true") == 0, "dup_with_info hint: flag %d value \"%s\"", flag, flag ? val : "");
    CHECK_MPI(MPI_Info_free(&got));
    CHECK_MPI(MPI_Info_set(hints, "mpi_assert_exact_length", "true"));
    CHECK_MPI(MPI_Info_delete(hints, "mpi_assert_no_any_tag"));
    CHECK_MPI(MPI_Comm_set_info(d, hints));  /* merges: no_any_tag stays */
    CHECK_MPI(MPI_Comm_get_info(d, &got));
    CHECK_MPI(MPI_Info_get_nkeys(got, &n));
    CHECK(n == 2, "hints after set_info: %d keys", n);
    CHECK_MPI(MPI_Info_free(&got));
    MPI_Comm e;
    CHECK_MPI(MPI_Comm_dup(d, &e));  /* a dup keeps the parent's hints */
    CHECK_MPI(MPI_Comm_get_info(e, &got));
    CHECK_MPI(MPI_Info_get_nkeys(got, &n));
    CHECK(n == 2, "hints of a dup: %d keys", n);
    CHECK_MPI(MPI_Info_free(&got));
    CHECK_MPI(MPI_Comm_free(&e));
    CHECK_MPI(MPI_Comm_get_info(c, &got));  /* the parent never had any */
    CHECK_MPI(MPI_Info_get_nkeys(got, &n));
    CHECK(n == 0, "hints of c: %d keys", n);
    CHECK_MPI(MPI_Info_free(&got));
    CHECK_MPI(MPI_Comm_free(&d));

    MPI_Request req[2];
    CHECK_MPI(MPI_Comm_idup(c, &d, &req[0]));
    CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, hints, &e, &req[1]));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "idup requests retired");
    ring_check(d, wsize, exp, "idup");
    ring_check(e, wsize, exp, "idup_with_info");
    CHECK_MPI(MPI_Comm_compare(d, e, &res));
    CHECK(res == MPI_CONGRUENT, "idup compare %d", res);
    CHECK_MPI(MPI_Comm_get_info(e, &got));
    CHECK_MPI(MPI_Info_get_nkeys(got, &n));
    CHECK(n == 1, "idup_with_info hints: %d keys", n);
    CHECK_MPI(MPI_Info_free(&got));
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&e));
    CHECK_MPI(MPI_Info_free(&hints));

    /* messages on c and a dup of it never cross */
    CHECK_MPI(MPI_Comm_dup(c, &d));
    if (wsize > 1) {
        int a = 1, b = 2, x = 0, y = 0;
        int to = (wrank + 1) % wsize, from = (wrank - 1 + wsize) % wsize;
        MPI_Request rq[4];
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 0, d, &rq[0]));
        CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq[1]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 0, c, &rq[2]));
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 0, d, &rq[3]));
        CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(x == 1 && y == 2, "dup isolation: x %d y %d", x, y);
    }
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&c));

    free(exp);
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
