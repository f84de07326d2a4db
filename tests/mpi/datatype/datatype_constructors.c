/* Every datatype constructor (int and large-count forms) against a hand-computed type map:
 * size, lb/extent, true lb/extent, and the exact bytes MPI_Pack produces for two elements of a
 * known buffer (and MPI_Unpack putting exactly those bytes back, leaving gaps alone). Each type is
 * also rebuilt from MPI_Type_get_envelope/get_contents and must pack the same bytes.
 *
 * Type maps are written as lists of (byte displacement, length) in type map order. Local only:
 * every rank runs the same checks. */
#include "mpitest.h"

#include <stddef.h>

struct blk {
    long disp;
    long len;
};

#define ARENA 8192
#define ORIGIN 2048 /* room for negative displacements */

static unsigned char src_arena[ARENA];

static void fill_source(void)
{
    for (int i = 0; i < ARENA; i++) src_arena[i] = (unsigned char)(i * 13 + 7);
}

/* Packs `count` elements of t from the source arena and compares with the map; unpacks into a
 * zeroed arena and checks exactly the mapped bytes came back. */
static void check_bytes(MPI_Datatype t, int count, long extent, const struct blk* map, int nblk,
                        const char* what)
{
    unsigned char packed[4096], expect[4096];
    unsigned char* dst = mpitest_malloc(ARENA);
    unsigned char* want = mpitest_malloc(ARENA);
    long n = 0;
    memset(want, 0, ARENA);
    for (int e = 0; e < count; e++) {
        for (int b = 0; b < nblk; b++) {
            long off = ORIGIN + e * extent + map[b].disp;
            memcpy(expect + n, src_arena + off, (size_t)map[b].len);
            memcpy(want + off, src_arena + off, (size_t)map[b].len);
            n += map[b].len;
        }
    }
    int pos = 0;
    CHECK_MPI(MPI_Pack(src_arena + ORIGIN, count, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == n, "%s: MPI_Pack position %d, expected %ld", what, pos, n);
    CHECK(memcmp(packed, expect, (size_t)n) == 0, "%s: packed bytes differ from the type map", what);
    int psize = -1;
    CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize));
    CHECK(psize >= n, "%s: MPI_Pack_size %d < %ld", what, psize, n);

    memset(dst, 0, ARENA);
    pos = 0;
    CHECK_MPI(MPI_Unpack(expect, (int)n, &pos, dst + ORIGIN, count, t, MPI_COMM_WORLD));
    CHECK(pos == n, "%s: MPI_Unpack position %d, expected %ld", what, pos, n);
    CHECK(memcmp(dst, want, ARENA) == 0, "%s: MPI_Unpack wrote other bytes than the type map's", what);
    free(dst);
    free(want);
}

static void check_metrics(MPI_Datatype t, long size, long lb, long extent, long tlb, long textent,
                          const char* what)
{
    int s = -1;
    MPI_Aint l = -1, e = -1;
    MPI_Count sc = -1, lc = -1, ec = -1;
    CHECK_MPI(MPI_Type_size(t, &s));
    CHECK(s == size, "%s: size %d, expected %ld", what, s, size);
    CHECK_MPI(MPI_Type_size_c(t, &sc));
    CHECK(sc == size, "%s: size_c %lld, expected %ld", what, (long long)sc, size);
    CHECK_MPI(MPI_Type_size_x(t, &sc));
    CHECK(sc == size, "%s: size_x %lld, expected %ld", what, (long long)sc, size);
    CHECK_MPI(MPI_Type_get_extent(t, &l, &e));
    CHECK(l == lb && e == extent, "%s: lb/extent %ld/%ld, expected %ld/%ld", what, (long)l, (long)e, lb,
          extent);
    CHECK_MPI(MPI_Type_get_extent_c(t, &lc, &ec));
    CHECK(lc == lb && ec == extent, "%s: extent_c %lld/%lld", what, (long long)lc, (long long)ec);
    CHECK_MPI(MPI_Type_get_extent_x(t, &lc, &ec));
    CHECK(lc == lb && ec == extent, "%s: extent_x %lld/%lld", what, (long long)lc, (long long)ec);
    CHECK_MPI(MPI_Type_get_true_extent(t, &l, &e));
    CHECK(l == tlb && e == textent, "%s: true lb/extent %ld/%ld, expected %ld/%ld", what, (long)l,
          (long)e, tlb, textent);
    CHECK_MPI(MPI_Type_get_true_extent_c(t, &lc, &ec));
    CHECK(lc == tlb && ec == textent, "%s: true extent_c %lld/%lld", what, (long long)lc,
          (long long)ec);
    CHECK_MPI(MPI_Type_get_true_extent_x(t, &lc, &ec));
    CHECK(lc == tlb && ec == textent, "%s: true extent_x %lld/%lld", what, (long long)lc,
          (long long)ec);
}

static void free_components(MPI_Datatype* types, int nd)
{
    for (int i = 0; i < nd; i++) {
        int ci = 0, ca = 0, cd = 0, cc = 0;
        CHECK_MPI(MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc));
        if (cc != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&types[i]));
    }
}

/* Rebuilds a type made by a large-count constructor from its _c envelope and contents. */
static MPI_Datatype rebuild_c(MPI_Datatype t, const char* what)
{
    MPI_Count ni = -1, na = -1, nl = -1, nd = -1;
    int comb = -1;
    MPI_Datatype out = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    CHECK(na == 0, "%s: large-count type with %lld addresses", what, (long long)na);
    int* ints = mpitest_malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint* addrs = mpitest_malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Count* lc = mpitest_malloc(sizeof(MPI_Count) * (size_t)(nl + 1));
    MPI_Datatype* types = mpitest_malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    CHECK_MPI(MPI_Type_get_contents_c(t, ni, na, nl, nd, ints, addrs, lc, types));
    int rc = MPI_ERR_OTHER;
    MPI_Count n = lc[0];
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: rc = MPI_Type_contiguous_c(n, types[0], &out); break;
    case MPI_COMBINER_VECTOR: rc = MPI_Type_vector_c(n, lc[1], lc[2], types[0], &out); break;
    case MPI_COMBINER_HVECTOR: rc = MPI_Type_create_hvector_c(n, lc[1], lc[2], types[0], &out); break;
    case MPI_COMBINER_INDEXED: rc = MPI_Type_indexed_c(n, lc + 1, lc + 1 + n, types[0], &out); break;
    case MPI_COMBINER_HINDEXED:
        rc = MPI_Type_create_hindexed_c(n, lc + 1, lc + 1 + n, types[0], &out);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        rc = MPI_Type_create_indexed_block_c(n, lc[1], lc + 2, types[0], &out);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = MPI_Type_create_hindexed_block_c(n, lc[1], lc + 2, types[0], &out);
        break;
    case MPI_COMBINER_STRUCT:
        rc = MPI_Type_create_struct_c(n, lc + 1, lc + 1 + n, types, &out);
        break;
    case MPI_COMBINER_RESIZED: rc = MPI_Type_create_resized_c(types[0], lc[0], lc[1], &out); break;
    case MPI_COMBINER_SUBARRAY: {
        int k = ints[0];
        rc = MPI_Type_create_subarray_c(k, lc, lc + k, lc + 2 * k, ints[1], types[0], &out);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int k = ints[2];
        rc = MPI_Type_create_darray_c(ints[0], ints[1], k, lc, ints + 3, ints + 3 + k, ints + 3 + 2 * k,
                                      ints[3 + 3 * k], types[0], &out);
        break;
    }
    default: CHECK(0, "%s: unexpected combiner %d", what, comb);
    }
    CHECK(rc == MPI_SUCCESS, "%s: rebuilding from contents_c (combiner %d) returned %d", what, comb, rc);
    free_components(types, (int)nd);
    if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Type_commit(&out));
    free(ints);
    free(addrs);
    free(lc);
    free(types);
    return out;
}

/* Rebuilds a type from its envelope and contents, frees returned derived handles. */
static MPI_Datatype rebuild(MPI_Datatype t, const char* what)
{
    int ni = -1, na = -1, nd = -1, comb = -1;
    MPI_Datatype out = MPI_DATATYPE_NULL;
    {
        MPI_Count a, b, nl = -1, c;
        CHECK_MPI(MPI_Type_get_envelope_c(t, &a, &b, &nl, &c, &comb));
        if (nl > 0) return rebuild_c(t, what);
    }
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    int* ints = mpitest_malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint* addrs = mpitest_malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype* types = mpitest_malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    CHECK_MPI(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    int rc = MPI_ERR_OTHER;
    switch (comb) {
    case MPI_COMBINER_DUP: rc = MPI_Type_dup(types[0], &out); break;
    case MPI_COMBINER_CONTIGUOUS: rc = MPI_Type_contiguous(ints[0], types[0], &out); break;
    case MPI_COMBINER_VECTOR: rc = MPI_Type_vector(ints[0], ints[1], ints[2], types[0], &out); break;
    case MPI_COMBINER_HVECTOR:
        rc = MPI_Type_create_hvector(ints[0], ints[1], addrs[0], types[0], &out);
        break;
    case MPI_COMBINER_INDEXED:
        rc = MPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], types[0], &out);
        break;
    case MPI_COMBINER_HINDEXED:
        rc = MPI_Type_create_hindexed(ints[0], ints + 1, addrs, types[0], &out);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        rc = MPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, types[0], &out);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = MPI_Type_create_hindexed_block(ints[0], ints[1], addrs, types[0], &out);
        break;
    case MPI_COMBINER_STRUCT:
        rc = MPI_Type_create_struct(ints[0], ints + 1, addrs, types, &out);
        break;
    case MPI_COMBINER_RESIZED:
        rc = MPI_Type_create_resized(types[0], addrs[0], addrs[1], &out);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int nd2 = ints[0];
        rc = MPI_Type_create_subarray(nd2, ints + 1, ints + 1 + nd2, ints + 1 + 2 * nd2,
                                      ints[1 + 3 * nd2], types[0], &out);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int nd2 = ints[2];
        rc = MPI_Type_create_darray(ints[0], ints[1], nd2, ints + 3, ints + 3 + nd2,
                                    ints + 3 + 2 * nd2, ints + 3 + 3 * nd2, ints[3 + 4 * nd2],
                                    types[0], &out);
        break;
    }
    default: CHECK(0, "%s: unexpected combiner %d", what, comb);
    }
    CHECK(rc == MPI_SUCCESS, "%s: rebuilding from contents (combiner %d) returned %d", what, comb, rc);
    free_components(types, nd);
    if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Type_commit(&out));
    free(ints);
    free(addrs);
    free(types);
    return out;
}

/* Everything about one committed type: metrics, bytes, and the same for its rebuilt twin. Frees t. */
static void check_type(MPI_Datatype t, long size, long lb, long extent, long tlb, long textent,
                       const struct blk* map, int nblk, const char* what)
{
    char name[160];
    CHECK_MPI(MPI_Type_commit(&t));
    check_metrics(t, size, lb, extent, tlb, textent, what);
    check_bytes(t, 2, extent, map, nblk, what);
    MPI_Datatype r = rebuild(t, what);
    if (r != MPI_DATATYPE_NULL) {
        snprintf(name, sizeof name, "%s (rebuilt from contents)", what);
        check_metrics(r, size, lb, extent, tlb, textent, name);
        check_bytes(r, 2, extent, map, nblk, name);
        CHECK_MPI(MPI_Type_free(&r));
    }
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "%s: MPI_Type_free did not set the handle to MPI_DATATYPE_NULL", what);
}

static void test_constructors(int rank)
{
    MPI_Datatype t;
    {
        struct blk m[] = {{0, 12}};
        CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
        check_type(t, 12, 0, 12, 0, 12, m, 1, "contiguous(3, INT)");
        CHECK_MPI(MPI_Type_contiguous_c(3, MPI_INT, &t));
        check_type(t, 12, 0, 12, 0, 12, m, 1, "contiguous_c(3, INT)");
    }
    {
        struct blk m[] = {{0, 8}, {16, 8}, {32, 8}};
        CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
        check_type(t, 24, 0, 40, 0, 40, m, 3, "vector(3, 2, 4, INT)");
        CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_INT, &t));
        check_type(t, 24, 0, 40, 0, 40, m, 3, "vector_c(3, 2, 4, INT)");
    }
    {
        struct blk m[] = {{0, 4}, {-8, 4}, {-16, 4}};
        CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &t));
        check_type(t, 12, -16, 20, -16, 20, m, 3, "vector(3, 1, -2, INT)");
    }
    {
        struct blk m[] = {{0, 6}, {20, 6}};
        CHECK_MPI(MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t));
        check_type(t, 12, 0, 26, 0, 26, m, 2, "hvector(2, 3, 20 B, SHORT)");
        CHECK_MPI(MPI_Type_create_hvector_c(2, 3, 20, MPI_SHORT, &t));
        check_type(t, 12, 0, 26, 0, 26, m, 2, "hvector_c(2, 3, 20 B, SHORT)");
    }
    {
        int bl[] = {2, 1, 3}, d[] = {5, 0, 9};
        MPI_Count blc[] = {2, 1, 3}, dc[] = {5, 0, 9};
        struct blk m[] = {{20, 8}, {0, 4}, {36, 12}};
        CHECK_MPI(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        check_type(t, 24, 0, 48, 0, 48, m, 3, "indexed({2,1,3}, {5,0,9}, INT)");
        CHECK_MPI(MPI_Type_indexed_c(3, blc, dc, MPI_INT, &t));
        check_type(t, 24, 0, 48, 0, 48, m, 3, "indexed_c({2,1,3}, {5,0,9}, INT)");
    }
    {
        int bl[] = {1, 2};
        MPI_Aint d[] = {24, 2};
        MPI_Count blc[] = {1, 2}, dc[] = {24, 2};
        struct blk m[] = {{24, 2}, {2, 4}};
        CHECK_MPI(MPI_Type_create_hindexed(2, bl, d, MPI_SHORT, &t));
        check_type(t, 6, 2, 24, 2, 24, m, 2, "hindexed({1,2}, {24,2} B, SHORT)");
        CHECK_MPI(MPI_Type_create_hindexed_c(2, blc, dc, MPI_SHORT, &t));
        check_type(t, 6, 2, 24, 2, 24, m, 2, "hindexed_c({1,2}, {24,2} B, SHORT)");
    }
    {
        int d[] = {4, 0, 8};
        MPI_Count dc[] = {4, 0, 8};
        struct blk m[] = {{8, 4}, {0, 4}, {16, 4}};
        CHECK_MPI(MPI_Type_create_indexed_block(3, 2, d, MPI_SHORT, &t));
        check_type(t, 12, 0, 20, 0, 20, m, 3, "indexed_block(2, {4,0,8}, SHORT)");
        CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_SHORT, &t));
        check_type(t, 12, 0, 20, 0, 20, m, 3, "indexed_block_c(2, {4,0,8}, SHORT)");
    }
    {
        MPI_Aint d[] = {16, 4};
        MPI_Count dc[] = {16, 4};
        struct blk m[] = {{16, 8}, {4, 8}};
        CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, d, MPI_DOUBLE, &t));
        check_type(t, 16, 4, 20, 4, 20, m, 2, "hindexed_block(1, {16,4} B, DOUBLE)");
        CHECK_MPI(MPI_Type_create_hindexed_block_c(2, 1, dc, MPI_DOUBLE, &t));
        check_type(t, 16, 4, 20, 4, 20, m, 2, "hindexed_block_c(1, {16,4} B, DOUBLE)");
    }
    {
        /* struct { char c; double d; int i[2]; } */
        int bl[] = {1, 1, 2};
        MPI_Aint d[] = {0, 8, 16};
        MPI_Count blc[] = {1, 1, 2}, dc[] = {0, 8, 16};
        MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        struct blk m[] = {{0, 1}, {8, 8}, {16, 8}};
        CHECK_MPI(MPI_Type_create_struct(3, bl, d, ty, &t));
        check_type(t, 17, 0, 24, 0, 24, m, 3, "struct{char, double, int[2]}");
        CHECK_MPI(MPI_Type_create_struct_c(3, blc, dc, ty, &t));
        check_type(t, 17, 0, 24, 0, 24, m, 3, "struct_c{char, double, int[2]}");
    }
    {
        /* struct { int i; char c; }: extent padded to the int's alignment */
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 4};
        MPI_Datatype ty[] = {MPI_INT, MPI_CHAR};
        struct blk m[] = {{0, 4}, {4, 1}};
        CHECK_MPI(MPI_Type_create_struct(2, bl, d, ty, &t));
        check_type(t, 5, 0, 8, 0, 5, m, 2, "struct{int, char} (padded)");
        /* contiguous of it: elements at the padded extent */
        MPI_Datatype s, c2;
        struct blk m2[] = {{0, 4}, {4, 1}, {8, 4}, {12, 1}};
        CHECK_MPI(MPI_Type_create_struct(2, bl, d, ty, &s));
        CHECK_MPI(MPI_Type_contiguous(2, s, &c2));
        CHECK_MPI(MPI_Type_free(&s)); /* the contiguous type keeps it alive */
        check_type(c2, 10, 0, 16, 0, 13, m2, 4, "contiguous(2, struct{int, char})");
    }
    {
        struct blk m[] = {{0, 4}};
        CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
        check_type(t, 4, -4, 16, 0, 4, m, 1, "resized(INT, -4, 16)");
        CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 16, &t));
        check_type(t, 4, -4, 16, 0, 4, m, 1, "resized_c(INT, -4, 16)");
    }
    {
        int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 2};
        MPI_Count szc[] = {4, 5}, subc[] = {2, 3}, stc[] = {1, 2};
        struct blk mc[] = {{28, 12}, {48, 12}};
        struct blk mf[] = {{36, 8}, {52, 8}, {68, 8}};
        CHECK_MPI(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t));
        check_type(t, 24, 0, 80, 28, 32, mc, 2, "subarray C {4,5} {2,3} {1,2}");
        CHECK_MPI(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_C, MPI_INT, &t));
        check_type(t, 24, 0, 80, 28, 32, mc, 2, "subarray_c C {4,5} {2,3} {1,2}");
        CHECK_MPI(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t));
        check_type(t, 24, 0, 80, 36, 40, mf, 3, "subarray Fortran {4,5} {2,3} {1,2}");
    }
    {
        /* 10 ints block-distributed over 4 processes: blocks of 3, rank 1 owns 3..5 */
        int gs[] = {10}, di[] = {MPI_DISTRIBUTE_BLOCK}, da[] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {4};
        MPI_Count gsc[] = {10};
        struct blk m[] = {{12, 12}};
        CHECK_MPI(MPI_Type_create_darray(4, 1, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t));
        check_type(t, 12, 0, 40, 12, 12, m, 1, "darray block 10/4 rank 1");
        CHECK_MPI(MPI_Type_create_darray_c(4, 1, 1, gsc, di, da, ps, MPI_ORDER_C, MPI_INT, &t));
        check_type(t, 12, 0, 40, 12, 12, m, 1, "darray_c block 10/4 rank 1");
        /* 4x6, rows cyclic(1) over 2, columns block over 2; rank 3 = coords (1,1): rows 1 and 3,
         * columns 3..5 */
        int gs2[] = {4, 6}, di2[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
        int da2[] = {1, MPI_DISTRIBUTE_DFLT_DARG}, ps2[] = {2, 2};
        struct blk m2[] = {{36, 12}, {84, 12}};
        CHECK_MPI(MPI_Type_create_darray(4, 3, 2, gs2, di2, da2, ps2, MPI_ORDER_C, MPI_INT, &t));
        check_type(t, 24, 0, 96, 36, 60, m2, 2, "darray 4x6 cyclic x block rank 3");
    }
    {
        MPI_Datatype v;
        struct blk m[] = {{0, 8}, {16, 8}, {32, 8}};
        CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
        CHECK_MPI(MPI_Type_dup(v, &t));
        CHECK_MPI(MPI_Type_free(&v));
        check_type(t, 24, 0, 40, 0, 40, m, 3, "dup(vector(3, 2, 4, INT))");
        /* dup of a predefined type */
        struct blk md[] = {{0, 8}};
        CHECK_MPI(MPI_Type_dup(MPI_DOUBLE, &t));
        check_type(t, 8, 0, 8, 0, 8, md, 1, "dup(DOUBLE)");
    }
    {
        /* zero-count types */
        struct blk m[] = {{0, 0}};
        CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
        check_type(t, 0, 0, 0, 0, 0, m, 0, "contiguous(0, INT)");
    }
    (void)rank;
}

/* Envelopes and contents: exact arrays for a few types, _c layout, retained component handles. */
static void test_contents(void)
{
    MPI_Datatype v, c, got[2];
    int ints[8], ni, na, nd, comb;
    MPI_Aint addrs[4];

    CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "MPI_INT envelope %d %d %d %d",
          ni, na, nd, comb);

    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    CHECK_MPI(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope %d %d %d %d",
          ni, na, nd, comb);
    CHECK_MPI(MPI_Type_get_contents(v, 8, 4, 2, ints, addrs, got));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && got[0] == MPI_INT,
          "vector contents %d %d %d", ints[0], ints[1], ints[2]);

    /* The contiguous type's component comes back as a new handle, valid after the user freed
     * the original one, and must be freed itself. */
    CHECK_MPI(MPI_Type_contiguous(2, v, &c));
    CHECK_MPI(MPI_Type_free(&v));
    CHECK_MPI(MPI_Type_get_contents(c, 8, 4, 2, ints, addrs, got));
    CHECK(ints[0] == 2, "contiguous contents count %d", ints[0]);
    int s = 0;
    CHECK_MPI(MPI_Type_size(got[0], &s));
    CHECK(s == 24, "component size %d, expected 24", s);
    CHECK_MPI(MPI_Type_free(&got[0]));
    CHECK_MPI(MPI_Type_commit(&c));
    CHECK_MPI(MPI_Type_size(c, &s));
    CHECK(s == 48, "contiguous(2, vector) size %d", s);
    CHECK_MPI(MPI_Type_free(&c));

    /* Large-count layout: everything in large counts; the int calls refuse it. */
    {
        MPI_Count nic, nac, nlc, ndc, lc[8];
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_INT, &t));
        CHECK_MPI(MPI_Type_get_envelope_c(t, &nic, &nac, &nlc, &ndc, &comb));
        CHECK(comb == MPI_COMBINER_VECTOR && nic == 0 && nac == 0 && nlc == 3 && ndc == 1,
              "vector_c envelope_c %lld %lld %lld %lld", (long long)nic, (long long)nac, (long long)nlc,
              (long long)ndc);
        CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 8, 2, ints, addrs, lc, got));
        CHECK(lc[0] == 3 && lc[1] == 2 && lc[2] == 4 && got[0] == MPI_INT, "vector_c contents");
        CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_ERR_TYPE,
              "int envelope of a large-count type must fail with MPI_ERR_TYPE");
        CHECK_MPI(MPI_Type_free(&t));

        int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 2};
        MPI_Count szc[] = {4, 5}, subc[] = {2, 3}, stc[] = {1, 2};
        CHECK_MPI(MPI_Type_create_subarray_c(2, szc, subc, stc, MPI_ORDER_FORTRAN, MPI_INT, &t));
        CHECK_MPI(MPI_Type_get_envelope_c(t, &nic, &nac, &nlc, &ndc, &comb));
        CHECK(comb == MPI_COMBINER_SUBARRAY && nic == 2 && nac == 0 && nlc == 6 && ndc == 1,
              "subarray_c envelope_c %lld %lld %lld %lld", (long long)nic, (long long)nac,
              (long long)nlc, (long long)ndc);
        CHECK_MPI(MPI_Type_get_contents_c(t, 2, 0, 6, 1, ints, addrs, lc, got));
        CHECK(ints[0] == 2 && ints[1] == MPI_ORDER_FORTRAN && lc[0] == 4 && lc[3] == 3 && lc[5] == 2,
              "subarray_c contents");
        CHECK_MPI(MPI_Type_free(&t));
        (void)sz, (void)sub, (void)st;
    }
    /* darray keeps MPI_DISTRIBUTE_DFLT_DARG in its contents */
    {
        int gs[] = {10}, di[] = {MPI_DISTRIBUTE_BLOCK}, da[] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {4};
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_create_darray(4, 1, 1, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t));
        CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 8 && nd == 1, "darray envelope %d %d", ni, nd);
        CHECK_MPI(MPI_Type_get_contents(t, 8, 4, 2, ints, addrs, got));
        CHECK(ints[5] == MPI_DISTRIBUTE_DFLT_DARG, "darray darg %d", ints[5]);
        CHECK_MPI(MPI_Type_free(&t));
    }
    /* too-small arrays */
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    CHECK(MPI_Type_get_contents(v, 2, 0, 1, ints, addrs, got) == MPI_ERR_ARG,
          "get_contents with max_integers too small must fail with MPI_ERR_ARG");
    CHECK_MPI(MPI_Type_free(&v));
}

static void test_misc(void)
{
    MPI_Datatype t;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10, "MPI_DOUBLE name \"%s\" (%d)", name, len);
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0', "new type name \"%s\"", name);
    CHECK_MPI(MPI_Type_set_name(t, "two ints"));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "two ints") == 0 && len == 8, "set name \"%s\"", name);
    {
        char longname[300];
        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        CHECK_MPI(MPI_Type_set_name(t, longname));
        CHECK_MPI(MPI_Type_get_name(t, name, &len));
        CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == (size_t)len, "long name truncated to %d", len);
    }
    CHECK_MPI(MPI_Type_free(&t));

    MPI_Datatype m;
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    CHECK(m == MPI_REAL8, "match_size(REAL, 8)");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK(m == MPI_INTEGER4, "match_size(INTEGER, 4)");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
    CHECK(m == MPI_COMPLEX16, "match_size(COMPLEX, 16)");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m) == MPI_ERR_ARG, "match_size(REAL, 3) must fail");

    CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &m));
    CHECK(m == MPI_DOUBLE_INT, "value_index(DOUBLE, INT)");
    CHECK_MPI(MPI_Type_get_value_index(MPI_INT, MPI_INT, &m));
    CHECK(m == MPI_2INT, "value_index(INT, INT)");
    CHECK_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &m));
    CHECK(m == MPI_DATATYPE_NULL, "value_index(CHAR, DOUBLE) should be MPI_DATATYPE_NULL");

    double arr[4];
    MPI_Aint a0, a2;
    CHECK_MPI(MPI_Get_address(&arr[0], &a0));
    CHECK_MPI(MPI_Get_address(&arr[2], &a2));
    CHECK(MPI_Aint_diff(a2, a0) == 16, "Aint_diff %ld", (long)MPI_Aint_diff(a2, a0));
    CHECK(MPI_Aint_add(a0, 16) == a2, "Aint_add");

    /* struct with absolute addresses, sent from MPI_BOTTOM via Pack */
    {
        int x = 0x11223344;
        double y = 2.5;
        int bl[] = {1, 1};
        MPI_Aint d[2];
        MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE};
        MPI_Get_address(&x, &d[0]);
        MPI_Get_address(&y, &d[1]);
        CHECK_MPI(MPI_Type_create_struct(2, bl, d, ty, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        char buf[12];
        int pos = 0;
        CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, t, buf, 12, &pos, MPI_COMM_WORLD));
        int xi;
        double yd;
        memcpy(&xi, buf, 4);
        memcpy(&yd, buf + 4, 8);
        CHECK(pos == 12 && xi == x && yd == y, "pack from MPI_BOTTOM");
        CHECK_MPI(MPI_Type_free(&t));
    }
}

static void test_pack(void)
{
    /* several Pack calls append; Unpack reads them back in order */
    int a[3] = {1, 2, 3}, a2[3] = {0, 0, 0};
    double b[2] = {1.5, -2.25}, b2[2] = {0, 0};
    char buf[64];
    int pos = 0;
    CHECK_MPI(MPI_Pack(a, 3, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(b, 2, MPI_DOUBLE, buf, 64, &pos, MPI_COMM_WORLD));
    CHECK(pos == 28, "position after two packs %d", pos);
    int end = pos;
    pos = 0;
    CHECK_MPI(MPI_Unpack(buf, end, &pos, a2, 3, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(buf, end, &pos, b2, 2, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(pos == 28 && a2[2] == 3 && b2[1] == -2.25, "unpack in order");
    /* _c forms */
    MPI_Count pc = 0, sc = 0;
    CHECK_MPI(MPI_Pack_c(a, 3, MPI_INT, buf, 64, &pc, MPI_COMM_WORLD));
    CHECK(pc == 12, "Pack_c position %lld", (long long)pc);
    CHECK_MPI(MPI_Pack_size_c(3, MPI_INT, MPI_COMM_WORLD, &sc));
    CHECK(sc >= 12, "Pack_size_c %lld", (long long)sc);
    pc = 0;
    memset(a2, 0, sizeof a2);
    CHECK_MPI(MPI_Unpack_c(buf, 12, &pc, a2, 3, MPI_INT, MPI_COMM_WORLD));
    CHECK(pc == 12 && a2[0] == 1 && a2[2] == 3, "Unpack_c");

    /* external32: big-endian, the standard's sizes */
    {
        int i = 0x01020304;
        double d = 1.0;
        long l = -2;
        unsigned char ext[32];
        MPI_Aint p = 0, sz = 0;
        CHECK_MPI(MPI_Pack_external("external32", &i, 1, MPI_INT, ext, 32, &p));
        CHECK_MPI(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, ext, 32, &p));
        CHECK_MPI(MPI_Pack_external("external32", &l, 1, MPI_LONG, ext, 32, &p));
        CHECK(p == 16, "external32 position %ld, expected 16 (LONG is 4 bytes)", (long)p);
        static const unsigned char want[16] = {1, 2, 3, 4, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe};
        CHECK(memcmp(ext, want, 16) == 0, "external32 bytes differ (byte order)");
        CHECK_MPI(MPI_Pack_external_size("external32", 1, MPI_LONG, &sz));
        CHECK(sz == 4, "external32 size of LONG %ld", (long)sz);
        MPI_Count szc = 0;
        CHECK_MPI(MPI_Pack_external_size_c("external32", 3, MPI_DOUBLE, &szc));
        CHECK(szc == 24, "external32 size_c of 3 DOUBLE %lld", (long long)szc);
        int i2 = 0;
        double d2 = 0;
        long l2 = 0;
        p = 0;
        CHECK_MPI(MPI_Unpack_external("external32", ext, 16, &p, &i2, 1, MPI_INT));
        CHECK_MPI(MPI_Unpack_external("external32", ext, 16, &p, &d2, 1, MPI_DOUBLE));
        CHECK_MPI(MPI_Unpack_external("external32", ext, 16, &p, &l2, 1, MPI_LONG));
        CHECK(i2 == i && d2 == d && l2 == l && p == 16, "external32 round trip");
        /* a derived type in external32: vector of shorts */
        MPI_Datatype v;
        short sh[6] = {0x0102, 99, 0x0304, 99, 0x0506, 99};
        CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_SHORT, &v));
        CHECK_MPI(MPI_Type_commit(&v));
        MPI_Count pcx = 0;
        CHECK_MPI(MPI_Pack_external_c("external32", sh, 1, v, ext, 32, &pcx));
        static const unsigned char wv[6] = {1, 2, 3, 4, 5, 6};
        CHECK(pcx == 6 && memcmp(ext, wv, 6) == 0, "external32 of a vector of shorts");
        short back[6] = {0, 0, 0, 0, 0, 0};
        pcx = 0;
        CHECK_MPI(MPI_Unpack_external_c("external32", ext, 6, &pcx, back, 1, v));
        CHECK(back[0] == 0x0102 && back[1] == 0 && back[4] == 0x0506, "external32 unpack of a vector");
        CHECK_MPI(MPI_Type_free(&v));
        p = 0;
        CHECK(MPI_Pack_external("native", &i, 1, MPI_INT, ext, 32, &p) == MPI_ERR_ARG,
              "datarep other than external32 must fail with MPI_ERR_ARG");
        p = 0;
        CHECK(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, ext, 4, &p) != MPI_SUCCESS,
              "external32 into a too small buffer must fail");
    }
}

static void test_errors(int rank)
{
    MPI_Datatype t, copy;
    int s;
    CHECK(MPI_Type_free(&(MPI_Datatype){MPI_INT}) == MPI_ERR_TYPE, "freeing MPI_INT must fail with MPI_ERR_TYPE");
    CHECK(MPI_Type_contiguous(-1, MPI_INT, &t) == MPI_ERR_COUNT, "negative count must fail with MPI_ERR_COUNT");
    CHECK(MPI_Type_contiguous_c(-5, MPI_INT, &t) == MPI_ERR_COUNT, "negative count (_c) must fail");
    CHECK(MPI_Type_vector(2, -1, 3, MPI_INT, &t) == MPI_ERR_ARG, "negative blocklength must fail with MPI_ERR_ARG");
    {
        int bl[] = {1, -2}, d[] = {0, 4};
        CHECK(MPI_Type_indexed(2, bl, d, MPI_INT, &t) == MPI_ERR_ARG, "negative blocklength in indexed");
        CHECK(MPI_Type_indexed(-1, bl, d, MPI_INT, &t) == MPI_ERR_COUNT, "negative count in indexed");
    }
    CHECK(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL as old type");
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 8};
        MPI_Datatype ty[] = {MPI_INT, MPI_DATATYPE_NULL};
        CHECK(MPI_Type_create_struct(2, bl, d, ty, &t) == MPI_ERR_TYPE, "null type in a struct");
    }
    {
        int sz[] = {4}, sub[] = {5}, st[] = {0};
        CHECK(MPI_Type_create_subarray(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
              "subsize larger than size");
        sub[0] = 2;
        CHECK(MPI_Type_create_subarray(1, sz, sub, st, 77, MPI_INT, &t) == MPI_ERR_ARG, "bad order");
    }
    CHECK(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL) == MPI_ERR_TYPE,
          "contents of a predefined type must fail with MPI_ERR_TYPE");

    /* a freed handle, and a made-up one, are refused without a crash */
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    copy = t;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(MPI_Type_free(&copy) == MPI_ERR_TYPE, "double free must fail with MPI_ERR_TYPE");
    CHECK(MPI_Type_size(copy, &s) == MPI_ERR_TYPE, "size of a freed type must fail with MPI_ERR_TYPE");
    {
        static long junk[8];
        MPI_Datatype bogus = (MPI_Datatype)(void*)junk;
        CHECK(MPI_Type_size(bogus, &s) == MPI_ERR_TYPE, "made-up handle must fail with MPI_ERR_TYPE");
        CHECK(MPI_Type_commit(&bogus) == MPI_ERR_TYPE, "commit of a made-up handle");
        CHECK(MPI_Type_size((MPI_Datatype)0x300, &s) == MPI_ERR_TYPE, "unknown small handle");
    }

    /* an uncommitted type cannot be used for communication or packing */
    {
        int v[4] = {0, 1, 2, 3}, r[4];
        char buf[64];
        int pos = 0;
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
        CHECK(MPI_Send(v, 1, t, rank, 5, MPI_COMM_WORLD) == MPI_ERR_TYPE,
              "send with an uncommitted type must fail with MPI_ERR_TYPE");
        CHECK(MPI_Recv(r, 1, t, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_TYPE,
              "recv with an uncommitted type must fail with MPI_ERR_TYPE");
        CHECK(MPI_Pack(v, 1, t, buf, 64, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE,
              "pack with an uncommitted type must fail with MPI_ERR_TYPE");
        CHECK(MPI_Send(v, -1, MPI_INT, rank, 5, MPI_COMM_WORLD) == MPI_ERR_COUNT, "negative send count");
        CHECK_MPI(MPI_Type_commit(&t));
        pos = 0;
        CHECK(MPI_Pack(v, 2, t, buf, 10, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE,
              "pack into a too small buffer must fail with MPI_ERR_TRUNCATE");
        pos = 0;
        CHECK(MPI_Unpack(buf, 4, &pos, r, 1, t, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE,
              "unpack past the input must fail with MPI_ERR_TRUNCATE");
        CHECK(MPI_Pack(v, 1, t, buf, 64, &pos, MPI_COMM_NULL) == MPI_ERR_COMM, "pack with MPI_COMM_NULL");
        CHECK_MPI(MPI_Type_free(&t));
    }
}

int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Failures come back as codes (CHECK_MPI records them), so one bad call shows every other. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    fill_source();
    test_constructors(rank);
    test_contents();
    test_misc();
    test_pack();
    test_errors(rank);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
