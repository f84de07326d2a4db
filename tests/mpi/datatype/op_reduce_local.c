/* MPI_Reduce_local with every class of predefined op (arithmetic, min/max, logical, bitwise,
 * MINLOC/MAXLOC, REPLACE, NO_OP) on predefined and derived datatypes (strided and padded pair
 * layouts: only the type map's bytes may change), user ops (commutative or not, int and _c
 * forms, called with the caller's datatype handle, order inout = in op inout), a user op freed
 * right after use, MPI_Op_commutative, and the error classes. Local only. */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>

static void test_arith(void)
{
    int a[4] = {1, -2, 3, 7}, b[4] = {10, 20, -30, 7};
    int r[4];
#define RL(op, in, io, n, ty) CHECK_MPI(MPI_Reduce_local(in, io, n, ty, op))
    memcpy(r, b, sizeof r);
    RL(MPI_SUM, a, r, 4, MPI_INT);
    CHECK(r[0] == 11 && r[1] == 18 && r[2] == -27 && r[3] == 14, "SUM int");
    memcpy(r, b, sizeof r);
    RL(MPI_PROD, a, r, 4, MPI_INT);
    CHECK(r[0] == 10 && r[1] == -40 && r[2] == -90 && r[3] == 49, "PROD int");
    memcpy(r, b, sizeof r);
    RL(MPI_MIN, a, r, 4, MPI_INT);
    CHECK(r[0] == 1 && r[1] == -2 && r[2] == -30 && r[3] == 7, "MIN int");
    memcpy(r, b, sizeof r);
    RL(MPI_MAX, a, r, 4, MPI_INT);
    CHECK(r[0] == 10 && r[1] == 20 && r[2] == 3 && r[3] == 7, "MAX int");

    double x[3] = {1.5, -2.0, 0.25}, y[3] = {2.0, 4.0, 8.0};
    RL(MPI_SUM, x, y, 3, MPI_DOUBLE);
    CHECK(y[0] == 3.5 && y[1] == 2.0 && y[2] == 8.25, "SUM double");
    RL(MPI_MAX, x, y, 3, MPI_DOUBLE);
    CHECK(y[0] == 3.5 && y[1] == 2.0 && y[2] == 8.25, "MAX double");
    RL(MPI_PROD, x, y, 3, MPI_DOUBLE);
    CHECK(y[0] == 5.25 && y[1] == -4.0 && y[2] == 2.0625, "PROD double");

    unsigned long long u[2] = {1ull << 40, 5}, v[2] = {3, 6};
    RL(MPI_MIN, u, v, 2, MPI_UNSIGNED_LONG_LONG);
    CHECK(v[0] == 3 && v[1] == 5, "MIN unsigned long long");

    float _Complex c[2] = {1.0f + 2.0f * I, 3.0f}, d[2] = {1.0f * I, 2.0f + 1.0f * I};
    RL(MPI_PROD, c, d, 2, MPI_C_FLOAT_COMPLEX);
    CHECK(crealf(d[0]) == -2.0f && cimagf(d[0]) == 1.0f && crealf(d[1]) == 6.0f && cimagf(d[1]) == 3.0f,
          "PROD float complex");
    RL(MPI_SUM, c, d, 2, MPI_C_FLOAT_COMPLEX);
    CHECK(crealf(d[0]) == -1.0f && cimagf(d[0]) == 3.0f, "SUM float complex");

    /* logical */
    int l1[4] = {0, 0, 5, 7}, l2[4];
    const int l2v[4] = {0, 3, 0, -1};
    memcpy(l2, l2v, sizeof l2);
    RL(MPI_LAND, l1, l2, 4, MPI_INT);
    CHECK(l2[0] == 0 && l2[1] == 0 && l2[2] == 0 && l2[3] == 1, "LAND int");
    memcpy(l2, l2v, sizeof l2);
    RL(MPI_LOR, l1, l2, 4, MPI_INT);
    CHECK(l2[0] == 0 && l2[1] == 1 && l2[2] == 1 && l2[3] == 1, "LOR int");
    memcpy(l2, l2v, sizeof l2);
    RL(MPI_LXOR, l1, l2, 4, MPI_INT);
    CHECK(l2[0] == 0 && l2[1] == 1 && l2[2] == 1 && l2[3] == 0, "LXOR int");
    bool b1[2] = {true, false}, b2[2] = {true, true};
    RL(MPI_LAND, b1, b2, 2, MPI_C_BOOL);
    CHECK(b2[0] && !b2[1], "LAND C_BOOL");

    /* bitwise */
    unsigned w1[2] = {0xF0F0u, 0x1234u}, w2[2];
    const unsigned w2v[2] = {0x0FF0u, 0x00FFu};
    memcpy(w2, w2v, sizeof w2);
    RL(MPI_BAND, w1, w2, 2, MPI_UNSIGNED);
    CHECK(w2[0] == 0x00F0u && w2[1] == 0x0034u, "BAND unsigned");
    memcpy(w2, w2v, sizeof w2);
    RL(MPI_BOR, w1, w2, 2, MPI_UNSIGNED);
    CHECK(w2[0] == 0xFFF0u && w2[1] == 0x12FFu, "BOR unsigned");
    memcpy(w2, w2v, sizeof w2);
    RL(MPI_BXOR, w1, w2, 2, MPI_UNSIGNED);
    CHECK(w2[0] == 0xFF00u && w2[1] == 0x12CBu, "BXOR unsigned");
    unsigned char y1[2] = {0xAA, 0x0F}, y2[2] = {0xFF, 0xF0};
    RL(MPI_BXOR, y1, y2, 2, MPI_BYTE);
    CHECK(y2[0] == 0x55 && y2[1] == 0xFF, "BXOR BYTE");

    /* MINLOC / MAXLOC, ties take the smaller index */
    struct {
        int v, i;
    } p1[3] = {{5, 1}, {2, 7}, {4, 4}}, p2[3] = {{5, 0}, {3, 2}, {4, 9}};
    RL(MPI_MINLOC, p1, p2, 3, MPI_2INT);
    CHECK(p2[0].v == 5 && p2[0].i == 0 && p2[1].v == 2 && p2[1].i == 7 && p2[2].i == 4, "MINLOC 2INT");
    struct {
        double v;
        int i;
    } q1[2] = {{1.5, 3}, {-1.0, 8}}, q2[2] = {{1.5, 1}, {0.5, 2}};
    RL(MPI_MAXLOC, q1, q2, 2, MPI_DOUBLE_INT);
    CHECK(q2[0].v == 1.5 && q2[0].i == 1 && q2[1].v == 0.5 && q2[1].i == 2, "MAXLOC DOUBLE_INT");

    /* REPLACE and NO_OP */
    memcpy(r, b, sizeof r);
    RL(MPI_REPLACE, a, r, 4, MPI_INT);
    CHECK(memcmp(r, a, sizeof r) == 0, "REPLACE");
    memcpy(r, b, sizeof r);
    RL(MPI_NO_OP, a, r, 4, MPI_INT);
    CHECK(memcmp(r, b, sizeof r) == 0, "NO_OP");

    /* count 0 touches nothing */
    memcpy(r, b, sizeof r);
    RL(MPI_SUM, a, r, 0, MPI_INT);
    CHECK(memcmp(r, b, sizeof r) == 0, "count 0");
    CHECK_MPI(MPI_Reduce_local_c(a, r, 2, MPI_INT, MPI_SUM));
    CHECK(r[0] == 11 && r[1] == 18 && r[2] == -30, "Reduce_local_c");
#undef RL
}

static void test_derived(void)
{
    /* vector: every other double; the gaps keep their values */
    double in[8], io[8];
    MPI_Datatype v;
    for (int i = 0; i < 8; i++) {
        in[i] = i;
        io[i] = 100 + i;
    }
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    CHECK_MPI(MPI_Reduce_local(in, io, 2, v, MPI_SUM)); /* elements at 0, 2 and 3*... extent 3 */
    /* extent of vector(2,1,2) is 3 doubles: element 0 covers 0 and 2, element 1 covers 3 and 5 */
    CHECK(io[0] == 100 && io[2] == 104 && io[3] == 106 && io[5] == 110, "SUM over vector data");
    CHECK(io[1] == 101 && io[4] == 104 && io[6] == 106 && io[7] == 107, "SUM over vector gaps");
    CHECK_MPI(MPI_Type_free(&v));

    /* contiguous of DOUBLE_INT: padded pairs */
    struct di {
        double v;
        int i;
    } a[3] = {{1, 1}, {5, 2}, {3, 3}}, b[3] = {{2, 9}, {5, 0}, {1, 7}};
    MPI_Datatype c;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &c));
    CHECK_MPI(MPI_Type_commit(&c));
    CHECK_MPI(MPI_Reduce_local(a, b, 1, c, MPI_MAXLOC));
    CHECK(b[0].v == 2 && b[0].i == 9 && b[1].v == 5 && b[1].i == 0 && b[2].v == 3 && b[2].i == 3,
          "MAXLOC over contiguous(3, DOUBLE_INT)");
    CHECK_MPI(MPI_Type_free(&c));

    /* contiguous ints: fast path */
    int x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {1, 1, 1, 1, 1, 1};
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &c));
    CHECK_MPI(MPI_Type_commit(&c));
    CHECK_MPI(MPI_Reduce_local(x, y, 2, c, MPI_PROD));
    CHECK(y[0] == 1 && y[5] == 6, "PROD over contiguous(3, INT)");
    CHECK_MPI(MPI_Type_free(&c));
}

/* user ops */
static MPI_Datatype seen_type;
static int seen_len, calls;

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* dt)
{
    const int* a = in;
    int* b = inout;
    int n = *len;
    int size = 0;
    MPI_Type_size(*dt, &size);
    n = n * size / (int)sizeof(int);
    for (int i = 0; i < n; i++) b[i] += a[i];
    seen_type = *dt;
    seen_len = *len;
    calls++;
}

/* inout = in * 10 + inout: tells the operand order */
static void user_order(void* in, void* inout, int* len, MPI_Datatype* dt)
{
    const int* a = in;
    int* b = inout;
    for (int i = 0; i < *len; i++) b[i] = a[i] * 10 + b[i];
    (void)dt;
    calls++;
}

static void user_order_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* dt)
{
    const int* a = in;
    int* b = inout;
    for (MPI_Count i = 0; i < *len; i++) b[i] = a[i] * 100 + b[i];
    seen_type = *dt;
    calls++;
}

static void test_user(void)
{
    MPI_Op sum, ord, ordc;
    int commute = -1;
    CHECK_MPI(MPI_Op_create(user_sum, 1, &sum));
    CHECK_MPI(MPI_Op_create(user_order, 0, &ord));
    CHECK_MPI(MPI_Op_create_c(user_order_c, 0, &ordc));
    CHECK_MPI(MPI_Op_commutative(sum, &commute));
    CHECK(commute == 1, "user sum commutative %d", commute);
    CHECK_MPI(MPI_Op_commutative(ord, &commute));
    CHECK(commute == 0, "user order commutative %d", commute);
    CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM commutative %d", commute);

    int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    calls = 0;
    CHECK_MPI(MPI_Reduce_local(a, b, 4, MPI_INT, ord));
    CHECK(calls == 1 && b[0] == 15 && b[3] == 48, "non-commutative user op order: %d %d", b[0], b[3]);

    /* called with the caller's derived datatype handle and the count of its elements */
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    calls = 0;
    CHECK_MPI(MPI_Reduce_local(a, b, 2, pair, sum));
    CHECK(calls == 1 && seen_type == pair && seen_len == 2, "user op got type/len %d", seen_len);
    CHECK(b[0] == 16 && b[3] == 52, "user sum over pairs %d %d", b[0], b[3]);
    /* a user op on a mixed struct is fine */
    CHECK_MPI(MPI_Type_free(&pair));

    calls = 0;
    b[0] = 1;
    CHECK_MPI(MPI_Reduce_local_c(a, b, 1, MPI_INT, ordc));
    CHECK(calls == 1 && b[0] == 101 && seen_type == MPI_INT, "large-count user op %d", b[0]);

    /* count 0: not called */
    calls = 0;
    CHECK_MPI(MPI_Reduce_local(a, b, 0, MPI_INT, sum));
    CHECK(calls == 0, "user op called for count 0");

    /* freed right after use: the handle becomes MPI_OP_NULL, a stale copy is refused */
    MPI_Op stale = sum;
    CHECK_MPI(MPI_Op_free(&sum));
    CHECK(sum == MPI_OP_NULL, "Op_free did not set MPI_OP_NULL");
    CHECK(MPI_Reduce_local(a, b, 1, MPI_INT, stale) == MPI_ERR_OP, "freed op must give MPI_ERR_OP");
    CHECK(MPI_Op_free(&stale) == MPI_ERR_OP, "double Op_free must give MPI_ERR_OP");
    CHECK_MPI(MPI_Op_free(&ord));
    CHECK_MPI(MPI_Op_free(&ordc));
}

static void test_errors(void)
{
    int a[2] = {1, 2}, b[2] = {3, 4};
    MPI_Op op = MPI_SUM;
    CHECK(MPI_Op_free(&op) == MPI_ERR_OP, "freeing MPI_SUM must give MPI_ERR_OP");
    CHECK(op == MPI_SUM, "failed Op_free changed the handle");
    CHECK(MPI_Reduce_local(a, b, 2, MPI_INT, MPI_OP_NULL) == MPI_ERR_OP, "MPI_OP_NULL");
    CHECK(MPI_Reduce_local(a, b, 2, MPI_INT, (MPI_Op)(void*)a) == MPI_ERR_OP, "made-up op handle");
    CHECK(MPI_Reduce_local(a, b, 1, MPI_2INT, MPI_SUM) == MPI_ERR_OP, "SUM on 2INT must give MPI_ERR_OP");
    double d[2] = {1, 2}, e[2] = {1, 2};
    CHECK(MPI_Reduce_local(d, e, 2, MPI_DOUBLE, MPI_BAND) == MPI_ERR_OP, "BAND on DOUBLE");
    CHECK(MPI_Reduce_local(d, e, 2, MPI_DOUBLE, MPI_MINLOC) == MPI_ERR_OP, "MINLOC on DOUBLE");
    char s1[2] = "a", s2[2] = "b";
    CHECK(MPI_Reduce_local(s1, s2, 1, MPI_CHARACTER, MPI_MAX) == MPI_ERR_OP, "MAX on CHARACTER");
    /* C char reduces as a small integer, as in MPICH and Open MPI */
    CHECK(MPI_Reduce_local(s1, s2, 1, MPI_CHAR, MPI_MAX) == MPI_SUCCESS && s2[0] == 'b', "MAX on CHAR");
    s1[0] = 3; s2[0] = 4;
    CHECK(MPI_Reduce_local(s1, s2, 1, MPI_CHAR, MPI_SUM) == MPI_SUCCESS && s2[0] == 7, "SUM on CHAR");
    CHECK(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM) == MPI_ERR_COUNT, "negative count");
    CHECK(MPI_Reduce_local(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    /* mixed struct with a predefined op */
    {
        int bl[] = {1, 1};
        MPI_Aint dp[] = {0, 8};
        MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE}, t;
        char buf1[32] = {0}, buf2[32] = {0};
        CHECK_MPI(MPI_Type_create_struct(2, bl, dp, ty, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        CHECK(MPI_Reduce_local(buf1, buf2, 1, t, MPI_SUM) == MPI_ERR_OP, "SUM on a mixed struct");
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
        CHECK(MPI_Reduce_local(a, b, 1, t, MPI_SUM) == MPI_ERR_TYPE, "uncommitted type");
        CHECK_MPI(MPI_Type_free(&t));
    }
    int c = 0;
    CHECK(MPI_Op_commutative(MPI_OP_NULL, &c) == MPI_ERR_OP, "Op_commutative(MPI_OP_NULL)");
    CHECK(MPI_Op_create(NULL, 1, &op) == MPI_ERR_ARG, "Op_create(NULL)");
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_arith();
    test_derived();
    test_user();
    test_errors();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
