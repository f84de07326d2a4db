/* Active-target RMA with MPI_Win_fence: put/get/accumulate of contiguous and derived types (the
 * target's type map applied at the target), ring and all-to-all patterns, accumulate atomicity,
 * every predefined accumulate op, get_accumulate, fetch_and_op, compare_and_swap, window
 * attributes, MPI_Win_create over user memory and MPI_Win_allocate. */
#include "mpitest.h"

#define N 64

static int rank, size;

static void test_ring_put_get(void)
{
    int* buf;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    for (int i = 0; i < N; ++i) buf[i] = -1;
    int src[N];
    for (int i = 0; i < N; ++i) src[i] = rank * 1000 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) CHECK(buf[i] == left * 1000 + i, "ring put: buf[%d] = %d, expected %d", i, buf[i], left * 1000 + i);
    int got[N];
    memset(got, 0, sizeof got);
    CHECK_MPI(MPI_Get(got, N, MPI_INT, left, 0, N, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    /* rank `left` holds the data of its own left neighbour */
    int ll = (left + size - 1) % size;
    for (int i = 0; i < N; ++i) CHECK(got[i] == ll * 1000 + i, "ring get: got[%d] = %d, expected %d", i, got[i], ll * 1000 + i);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
}

static void test_alltoall_and_derived(void)
{
    /* each rank owns size*4 doubles; rank r puts 4 doubles into slot r of every target */
    int n = size * 4;
    double* mem = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) mem[i] = -1.0;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(sizeof(double) * (size_t)n), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    double src[4];
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int t = 0; t < size; ++t) {
        for (int k = 0; k < 4; ++k) src[k] = rank * 10.0 + t + k * 0.25;
        CHECK_MPI(MPI_Put(src, 4, MPI_DOUBLE, t, rank * 4, 4, MPI_DOUBLE, win));
        CHECK_MPI(MPI_Win_fence(0, win)); /* src is reused: complete each round */
    }
    for (int r = 0; r < size; ++r)
        for (int k = 0; k < 4; ++k) {
            double e = r * 10.0 + rank + k * 0.25;
            CHECK(mem[r * 4 + k] == e, "alltoall: mem[%d] = %g, expected %g", r * 4 + k, mem[r * 4 + k], e);
        }
    CHECK_MPI(MPI_Win_fence(0, win)); /* the reads above end before the next epoch's puts */
    /* derived target type: a vector of 2 blocks of 1 double, stride 2, into slot of rank r (strided
       write), from a contiguous origin */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    double two[2] = {rank + 0.5, rank + 0.75};
    int t = (rank + 1) % size;
    CHECK_MPI(MPI_Put(two, 2, MPI_DOUBLE, t, rank * 4, 1, vec, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int from = (rank + size - 1) % size;
    CHECK(mem[from * 4 + 0] == from + 0.5 && mem[from * 4 + 2] == from + 0.75,
          "vector put: got %g %g, expected %g %g", mem[from * 4], mem[from * 4 + 2], from + 0.5, from + 0.75);
    CHECK(mem[from * 4 + 1] == from * 10.0 + rank + 0.25, "vector put wrote the hole: %g", mem[from * 4 + 1]);
    /* derived origin type, contiguous target: get 2 strided doubles from target slot */
    double back[4] = {0, 0, 0, 0};
    CHECK_MPI(MPI_Get(back, 1, vec, t, rank * 4, 2, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(back[0] == rank + 0.5, "vector get: back[0] = %g, expected %g", back[0], rank + 0.5);
    CHECK(back[2] == rank * 10.0 + t + 0.25, "vector get: back[2] = %g, expected %g", back[2], rank * 10.0 + t + 0.25);
    CHECK(back[1] == 0 && back[3] == 0, "vector get wrote the holes of the origin");
    /* accumulate with a derived target type (indexed) */
    int bl[2] = {1, 1}, dp[2] = {0, 3};
    MPI_Datatype idx;
    CHECK_MPI(MPI_Type_indexed(2, bl, dp, MPI_DOUBLE, &idx));
    CHECK_MPI(MPI_Type_commit(&idx));
    double inc[2] = {1.0, 2.0};
    CHECK_MPI(MPI_Accumulate(inc, 2, MPI_DOUBLE, 0, 0, 1, idx, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) {
        double e0 = 0 * 10.0 + 0 + 0.0 + size * 1.0, e3 = 0 * 10.0 + 0 + 0.75 + size * 2.0;
        /* slot 0 holds rank 0's data; with one rank, the vector put above changed slots 0 and 2 */
        if (size == 1) { e0 = 0.5 + 1.0; e3 = 0.75 + 2.0; }
        CHECK(mem[0] == e0 && mem[3] == e3, "indexed accumulate: mem[0] = %g (expected %g), mem[3] = %g (expected %g)", mem[0], e0, mem[3], e3);
    }
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Type_free(&idx));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
}

static void test_atomicity(void)
{
    long long* ctr;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &ctr, &win));
    ctr[0] = 0;
    ctr[1] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    const int iters = 500;
    long long one = 1, me = rank + 1;
    for (int i = 0; i < iters; ++i) {
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Accumulate(&me, 1, MPI_LONG_LONG, size - 1, 1, 1, MPI_LONG_LONG, MPI_SUM, win));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) CHECK(ctr[0] == (long long)iters * size, "sum: %lld, expected %lld", ctr[0], (long long)iters * size);
    if (rank == size - 1) {
        long long e = (long long)iters * size * (size + 1) / 2;
        CHECK(ctr[1] == e, "weighted sum: %lld, expected %lld", ctr[1], e);
    }
    /* fetch_and_op counter: every rank takes `iters` tickets; all tickets distinct */
    ctr[0] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    long long got = -1, sum = 0;
    for (int i = 0; i < 50; ++i) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Win_fence(0, win));
        sum += got;
    }
    long long total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long n = 50LL * size;
    CHECK(total == n * (n - 1) / 2, "fetch_and_op tickets sum %lld, expected %lld", total, n * (n - 1) / 2);
    if (rank == 0) CHECK(ctr[0] == n, "counter %lld, expected %lld", ctr[0], n);
    /* NO_OP fetch reads the value */
    CHECK_MPI(MPI_Fetch_and_op(NULL, &got, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(got == n, "fetch NO_OP: %lld, expected %lld", got, n);
    /* compare_and_swap: only one rank wins */
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) ctr[1] = -1;
    CHECK_MPI(MPI_Win_fence(0, win));
    long long cmp = -1, res = 0;
    CHECK_MPI(MPI_Compare_and_swap(&me, &cmp, &res, MPI_LONG_LONG, 0, 1, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int won = res == -1, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
    if (rank == 0) CHECK(ctr[1] >= 1 && ctr[1] <= size, "cas value %lld", ctr[1]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_ops(void)
{
    /* rank r accumulates into target 0 with each op; checked against the serial result */
    int* mem;
    MPI_Win win;
    enum { NOPS = 11 };
    MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
    CHECK_MPI(MPI_Win_allocate(NOPS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    int init[NOPS] = {0, 1, 1000, -1000, -1, 0, 0, 1, 0, 0, 7};
    for (int i = 0; i < NOPS; ++i) mem[i] = init[i];
    CHECK_MPI(MPI_Win_fence(0, win));
    int v = rank + 2;
    for (int i = 0; i < NOPS; ++i) {
        int x = (i == 4) ? (0xff ^ (1 << rank % 8)) : (i >= 7 && i <= 9) ? (rank % 2) : v;
        if (i == 10 && rank != size - 1) continue; /* one REPLACE */
        CHECK_MPI(MPI_Accumulate(&x, 1, MPI_INT, 0, i, 1, MPI_INT, ops[i], win));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) {
        int e[NOPS];
        for (int i = 0; i < NOPS; ++i) e[i] = init[i];
        for (int r = 0; r < size; ++r) {
            int x = r + 2;
            e[0] += x; e[1] *= x; e[2] = e[2] < x ? e[2] : x; e[3] = e[3] > x ? e[3] : x;
            e[4] &= (0xff ^ (1 << r % 8)); e[5] |= x; e[6] ^= x;
            e[7] = e[7] && (r % 2); e[8] = e[8] || (r % 2); e[9] = (!e[9]) != (!(r % 2));
        }
        e[10] = size + 1;
        for (int i = 0; i < NOPS; ++i) CHECK(mem[i] == e[i], "op %d: %d, expected %d", i, mem[i], e[i]);
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));

    /* MAXLOC on 2INT, and get_accumulate returning the previous contents */
    int* pair;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &pair, &win));
    pair[0] = -1; pair[1] = -1; pair[2] = 0; pair[3] = 0;
    CHECK_MPI(MPI_Win_fence(0, win));
    int mine[2] = {rank * 3 % 5, rank};
    CHECK_MPI(MPI_Accumulate(mine, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_MAXLOC, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) {
        int bv = -1, bi = -1;
        for (int r = 0; r < size; ++r) if (r * 3 % 5 > bv) { bv = r * 3 % 5; bi = r; }
        CHECK(pair[0] == bv && pair[1] == bi, "maxloc: (%d, %d), expected (%d, %d)", pair[0], pair[1], bv, bi);
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    /* MINLOC on DOUBLE_INT and SUM on doubles through a second window */
    {
        struct { double v; int i; } *di, mdi;
        MPI_Win w2;
        CHECK_MPI(MPI_Win_allocate(2 * sizeof mdi, sizeof mdi, MPI_INFO_NULL, MPI_COMM_WORLD, &di, &w2));
        di[0].v = 1e9; di[0].i = -1; di[1].v = 0.0; di[1].i = 0;
        CHECK_MPI(MPI_Win_fence(0, w2));
        mdi.v = (double)((rank * 7) % 5) - 0.5; mdi.i = rank;
        CHECK_MPI(MPI_Accumulate(&mdi, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MINLOC, w2));
        double half = 0.5;
        CHECK_MPI(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, MPI_SUM, w2));
        CHECK_MPI(MPI_Win_fence(0, w2));
        if (rank == 0) {
            double bv = 1e9; int bi = -1;
            for (int r = 0; r < size; ++r) { double x = (double)((r * 7) % 5) - 0.5; if (x < bv) { bv = x; bi = r; } }
            CHECK(di[0].v == bv && di[0].i == bi, "minloc: (%g, %d), expected (%g, %d)", di[0].v, di[0].i, bv, bi);
            CHECK(di[1].v == 0.5 * size, "double sum %g, expected %g", di[1].v, 0.5 * size);
        }
        /* get_accumulate MAXLOC through a derived type (2 SHORT_INT elements, 2 apart) from a
           contiguous origin: the old values come back, then the maximum is stored */
        CHECK_MPI(MPI_Win_free(&w2));
        struct si { short v; int i; } *m3, o3[2], r3[2];
        CHECK_MPI(MPI_Win_allocate(4 * sizeof(struct si), sizeof(struct si), MPI_INFO_NULL, MPI_COMM_WORLD, &m3, &w2));
        for (int j = 0; j < 4; ++j) { m3[j].v = -100; m3[j].i = 99; }
        MPI_Datatype v2;
        MPI_Type_vector(2, 1, 2, MPI_SHORT_INT, &v2);
        MPI_Type_commit(&v2);
        CHECK_MPI(MPI_Win_fence(0, w2));
        for (int r = 0; r < size; ++r) {
            if (r == rank) {
                o3[0].v = (short)(rank * 3); o3[0].i = rank;
                o3[1].v = (short)(-rank); o3[1].i = rank;
                CHECK_MPI(MPI_Get_accumulate(o3, 2, MPI_SHORT_INT, r3, 2, MPI_SHORT_INT, 0, 0, 1, v2, MPI_MAXLOC, w2));
            }
            CHECK_MPI(MPI_Win_fence(0, w2));
        }
        /* before this rank: max over ranks < rank */
        short e0 = rank == 0 ? -100 : (short)((rank - 1) * 3);
        int i0 = rank == 0 ? 99 : rank - 1;
        CHECK(r3[0].v == e0 && r3[0].i == i0, "get_accumulate maxloc old (%d, %d), expected (%d, %d)", r3[0].v, r3[0].i, e0, i0);
        CHECK(r3[1].v == (rank == 0 ? -100 : 0) && r3[1].i == (rank == 0 ? 99 : 0), "old[1] (%d, %d)", r3[1].v, r3[1].i);
        if (rank == 0) {
            CHECK(m3[0].v == (size - 1) * 3 && m3[0].i == size - 1, "maxloc[0] (%d, %d)", m3[0].v, m3[0].i);
            CHECK(m3[2].v == 0 && m3[2].i == 0, "maxloc[2] (%d, %d)", m3[2].v, m3[2].i);
            CHECK(m3[1].v == -100 && m3[3].v == -100, "holes changed");
        }
        MPI_Type_free(&v2);
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w2));
        CHECK_MPI(MPI_Win_free(&w2));
    }
    /* get_accumulate: each rank adds 1 to two ints in turn; the fetched values are distinct */
    int add[2] = {1, 1}, old[2] = {-5, -5};
    for (int r = 0; r < size; ++r) {
        if (r == rank) CHECK_MPI(MPI_Get_accumulate(add, 2, MPI_INT, old, 2, MPI_INT, 0, 2, 2, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Win_fence(0, win));
    }
    CHECK(old[0] == rank && old[1] == rank, "get_accumulate fetched (%d, %d), expected (%d, %d)", old[0], old[1], rank, rank);
    if (rank == 0) CHECK(pair[2] == size && pair[3] == size, "get_accumulate result (%d, %d)", pair[2], pair[3]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_large(void)
{
    /* beyond the inline size: data in its own message, and a big get reply */
    const int n = 100000;
    double* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)sizeof(double) * n, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < n; ++i) mem[i] = 0;
    double* src = malloc(sizeof(double) * n);
    for (int i = 0; i < n; ++i) src[i] = rank + i * 1e-3;
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(src, n, MPI_DOUBLE, t, 0, n, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int bad = 0;
    for (int i = 0; i < n; ++i) if (mem[i] != from + i * 1e-3) ++bad;
    CHECK(bad == 0, "large put: %d wrong elements", bad);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Accumulate(src, n, MPI_DOUBLE, t, 0, n, MPI_DOUBLE, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    bad = 0;
    for (int i = 0; i < n; ++i) if (mem[i] != 2 * (from + i * 1e-3)) ++bad;
    CHECK(bad == 0, "large accumulate: %d wrong elements", bad);
    CHECK_MPI(MPI_Win_fence(0, win));
    memset(src, 0, sizeof(double) * n);
    CHECK_MPI(MPI_Get(src, n, MPI_DOUBLE, from, 0, n, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int ff = (from + size - 1) % size;
    bad = 0;
    for (int i = 0; i < n; ++i) if (src[i] != 2 * (ff + i * 1e-3)) ++bad;
    CHECK(bad == 0, "large get: %d wrong elements", bad);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Win_free(&win));
    free(src);
}

static void test_attributes(void)
{
    int buf[10];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    void* base; MPI_Aint* sz; int* du; int* fl; int* model; int flag = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, expected %p", base, (void*)buf);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == (MPI_Aint)sizeof buf, "MPI_WIN_SIZE %ld", (long)*sz);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag && *du == 4, "MPI_WIN_DISP_UNIT %d", *du);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == MPI_WIN_FLAVOR_CREATE, "flavor %d", *fl);
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", *model);
    MPI_Group g, wg;
    CHECK_MPI(MPI_Win_get_group(win, &g));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int cmp = -1;
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "window group differs from the communicator's (%d)", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    CHECK_MPI(MPI_Win_free(&win));
    double* p;
    CHECK_MPI(MPI_Win_allocate(0, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == MPI_WIN_FLAVOR_ALLOCATE, "flavor %d", *fl);
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_ring_put_get();
    test_alltoall_and_derived();
    test_atomicity();
    test_ops();
    test_large();
    test_attributes();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
