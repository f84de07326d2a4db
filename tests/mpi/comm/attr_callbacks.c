/* Communicator attributes: copy callbacks at dup (order, values, flag), the predefined
 * MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN, delete callbacks at replace,
 * delete_attr and free (last set first), extra_state, a keyval freed while attached, failing
 * callbacks, predefined keys, error classes, deprecated MPI-1 names. */
#include <limits.h>
#include <mpix.h>

#include "mpitest.h"

#define LOG_MAX 64
static struct { char ev; int key; long val; void* extra; } logv[LOG_MAX];
static int nlog = 0;
static int fail_delete = 0;

static void log_ev(char ev, int key, void* val, void* extra)
{
    if (nlog < LOG_MAX) {
        logv[nlog].ev = ev;
        logv[nlog].key = key;
        logv[nlog].val = (long)(intptr_t)val;
        logv[nlog].extra = extra;
    }
    nlog++;
}

static int copy_plus100(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag)
{
    (void)c;
    log_ev('c', key, in, extra);
    *(void**)out = (void*)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}
static int copy_none(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag)
{
    (void)c;
    (void)out;
    log_ev('c', key, in, extra);
    *flag = 0;
    return MPI_SUCCESS;
}
static int copy_fail(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag)
{
    (void)c;
    (void)out;
    (void)flag;
    log_ev('c', key, in, extra);
    return MPI_ERR_OTHER;
}
static int del_log(MPI_Comm c, int key, void* val, void* extra)
{
    (void)c;
    log_ev('d', key, val, extra);
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Checks the log against "ev key val" triples and clears it. */
static void expect_log(const char* what, int n, const char* evs, const int* keys, const long* vals)
{
    CHECK(nlog == n, "%s: %d callbacks, expected %d", what, nlog, n);
    for (int i = 0; i < n && i < nlog; i++)
        CHECK(logv[i].ev == evs[i] && logv[i].key == keys[i] && logv[i].val == vals[i],
              "%s: callback %d is %c(key %d, value %ld), expected %c(key %d, value %ld)", what, i, logv[i].ev,
              logv[i].key, logv[i].val, evs[i], keys[i], vals[i]);
    nlog = 0;
}

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void* V(long x) { return (void*)(intptr_t)x; }

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int A, B, C, D, E, flag;
    void* v;
    int extraA = 0;
    MPI_Comm c, d, e;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_create_keyval(copy_plus100, del_log, &A, &extraA));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &B, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &C, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(copy_none, MPI_COMM_NULL_DELETE_FN, &D, NULL));
    int keys[4] = {A, B, C, D};
    for (int i = 0; i < 4; i++) {
        CHECK(keys[i] > 1099, "user keyval %d collides with a predefined range", keys[i]);
        for (int j = 0; j < i; j++) CHECK(keys[i] != keys[j], "keyvals %d and %d equal", i, j);
    }
    CHECK_MPI(MPI_Comm_get_attr(c, A, &v, &flag));
    CHECK(flag == 0, "unset attribute reported");
    CHECK_MPI(MPI_Comm_set_attr(c, A, V(1)));
    CHECK_MPI(MPI_Comm_set_attr(c, B, V(2)));
    CHECK_MPI(MPI_Comm_set_attr(c, C, V(3)));
    CHECK_MPI(MPI_Comm_set_attr(c, D, V(4)));
    expect_log("set", 0, "", NULL, NULL);

    /* dup: copy_plus100(A) then copy_none(D), in the order set; B copied as is; C not copied */
    CHECK_MPI(MPI_Comm_dup(c, &d));
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    {
        int k[2] = {A, D};
        long x[2] = {1, 4};
        expect_log("dup", 2, "cc", k, x);
        CHECK(logv[0].extra == &extraA, "extra_state not passed to the copy callback");
    }
    CHECK_MPI(MPI_Comm_get_attr(d, A, &v, &flag));
    CHECK(flag && v == V(101), "dup A: flag %d value %ld", flag, (long)(intptr_t)v);
    CHECK_MPI(MPI_Comm_get_attr(d, B, &v, &flag));
    CHECK(flag && v == V(2), "dup B: flag %d value %ld", flag, (long)(intptr_t)v);
    CHECK_MPI(MPI_Comm_get_attr(d, C, &v, &flag));
    CHECK(!flag, "NULL_COPY_FN attribute copied");
    CHECK_MPI(MPI_Comm_get_attr(d, D, &v, &flag));
    CHECK(!flag, "copy with flag 0 attached");

    /* replace: delete callback on the old value first; delete_attr */
    CHECK_MPI(MPI_Comm_set_attr(c, A, V(5)));
    {
        int k[1] = {A};
        long x[1] = {1};
        expect_log("replace", 1, "d", k, x);
    }
    CHECK_MPI(MPI_Comm_delete_attr(c, B));
    {
        int k[1] = {B};
        long x[1] = {2};
        expect_log("delete_attr", 1, "d", k, x);
    }
    CHECK_MPI(MPI_Comm_get_attr(c, B, &v, &flag));
    CHECK(!flag, "deleted attribute still there");
    CHECK(err_class(MPI_Comm_delete_attr(c, B)) == MPI_ERR_KEYVAL, "delete of an absent attribute");

    /* free: remaining A(5), C(3), D(4 - null delete) deleted last set first: D (no callback), C, A */
    CHECK_MPI(MPI_Comm_free(&c));
    {
        int k[2] = {C, A};
        long x[2] = {3, 5};
        expect_log("free", 2, "dd", k, x);
    }

    /* keyval freed while attached: the attribute lives on (get still sees it); no new attribute
     * may use the number */
    int oldA = A;
    CHECK_MPI(MPI_Comm_free_keyval(&A));
    CHECK(A == MPI_KEYVAL_INVALID, "free_keyval sets MPI_KEYVAL_INVALID");
    flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(d, oldA, &v, &flag));
    CHECK(flag == 1, "get with a freed keyval still attached: flag %d", flag);
    CHECK(err_class(MPI_Comm_set_attr(d, oldA, V(9))) == MPI_ERR_KEYVAL, "set with a freed keyval");
    /* dup still runs A's copy callback */
    CHECK_MPI(MPI_Comm_dup(d, &e));
    {
        int k[1] = {oldA};
        long x[1] = {101};
        expect_log("dup after free_keyval", 1, "c", k, x);
    }
    CHECK_MPI(MPI_Comm_free(&e));
    {
        int k[2] = {B, oldA};
        long x[2] = {2, 201};
        expect_log("free of dup of dup", 2, "dd", k, x);
    }
    CHECK_MPI(MPI_Comm_free(&d));
    {
        int k[2] = {B, oldA};
        long x[2] = {2, 101};
        expect_log("free with a freed keyval", 2, "dd", k, x);
    }

    /* a failing copy callback fails the dup */
    CHECK_MPI(MPI_Comm_create_keyval(copy_fail, del_log, &E, NULL));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_set_attr(c, B, V(7)));
    CHECK_MPI(MPI_Comm_set_attr(c, E, V(8)));
    d = MPI_COMM_WORLD;
    int rc = MPI_Comm_dup(c, &d);
    CHECK(err_class(rc) == MPI_ERR_OTHER, "dup with a failing copy callback: class %d", err_class(rc));
    CHECK(d == MPI_COMM_NULL, "failed dup leaves MPI_COMM_NULL");
    {
        /* copy E fails after B was copied with DUP_FN: B's copy is deleted again */
        int k[2] = {E, B};
        long x[2] = {8, 7};
        expect_log("failed dup", 2, "cd", k, x);
    }
    /* a failing delete callback fails delete_attr and keeps the attribute */
    fail_delete = 1;
    rc = MPI_Comm_delete_attr(c, E);
    CHECK(err_class(rc) == MPI_ERR_OTHER, "failing delete callback: class %d", err_class(rc));
    fail_delete = 0;
    CHECK_MPI(MPI_Comm_get_attr(c, E, &v, &flag));
    CHECK(flag && v == V(8), "attribute kept after a failed delete");
    nlog = 0;
    CHECK_MPI(MPI_Comm_free(&c));
    {
        int k[2] = {E, B};
        long x[2] = {8, 7};
        expect_log("free after failed delete", 2, "dd", k, x);
    }

    /* attributes on MPI_COMM_WORLD; deprecated names */
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, C, V(42)));
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, C, &v, &flag));
    CHECK(flag && v == V(42), "world attribute");
    CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, C));
    CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, C, V(43)));
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, C));
    nlog = 0;
    int K;
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &K, NULL));
    CHECK_MPI(MPI_Keyval_free(&K));

    /* predefined keys */
    int* ip;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
    CHECK(flag && *ip == INT_MAX, "MPI_TAG_UB");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_ICOLL_MAX_OUTSTANDING, &ip, &flag));
    CHECK(flag && *ip > 0, "MPIX_ICOLL_MAX_OUTSTANDING");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag));
    CHECK(flag && *ip == MPI_PROC_NULL, "MPI_HOST");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag));
    CHECK(flag && *ip == MPI_ANY_SOURCE, "MPI_IO");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag));
    CHECK(flag && (*ip == 0 || *ip == 1), "MPI_WTIME_IS_GLOBAL");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag));
    CHECK(flag && *ip >= 0, "MPI_APPNUM");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag));
    if (flag) CHECK(*ip >= 1, "MPI_UNIVERSE_SIZE %d", *ip);
    CHECK(err_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1))) == MPI_ERR_KEYVAL, "set MPI_TAG_UB");
    CHECK(err_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB)) == MPI_ERR_KEYVAL, "delete MPI_TAG_UB");
    CHECK(err_class(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag)) == MPI_ERR_KEYVAL,
          "get MPI_KEYVAL_INVALID");
    CHECK(err_class(MPI_Comm_set_attr(MPI_COMM_WORLD, 987654, V(1))) == MPI_ERR_KEYVAL, "set unknown keyval");
    int bad = MPI_TAG_UB;
    CHECK(err_class(MPI_Comm_free_keyval(&bad)) == MPI_ERR_KEYVAL, "free a predefined keyval");

    /* many keyvals: none in a predefined range */
    int many[300];
    for (int i = 0; i < 300; i++) {
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &many[i], NULL));
        CHECK(!(many[i] == 0 || (many[i] >= 501 && many[i] <= 507) || (many[i] >= 601 && many[i] <= 605) ||
                (many[i] >= 1001 && many[i] <= 1099)),
              "keyval %d is predefined", many[i]);
    }
    for (int i = 0; i < 300; i++) CHECK_MPI(MPI_Comm_free_keyval(&many[i]));
    CHECK_MPI(MPI_Comm_free_keyval(&B));
    CHECK_MPI(MPI_Comm_free_keyval(&C));
    CHECK_MPI(MPI_Comm_free_keyval(&D));
    CHECK_MPI(MPI_Comm_free_keyval(&E));
    CHECK(nlog == 0, "%d unexpected callbacks", nlog);

    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
