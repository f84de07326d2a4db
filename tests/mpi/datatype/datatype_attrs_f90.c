/* Datatype attributes (copy callbacks at MPI_Type_dup, delete callbacks at delete_attr, replace and
 * the last MPI_Type_free, predefined types, errors) and the predefined-like types of
 * MPI_Type_create_f90_real/complex/integer and MPI_Type_match_size (sizes, envelope and contents,
 * same handle for the same arguments, cannot be freed, usable for communication and reduction). */
#include <float.h>
#include <stdint.h>

#include "mpitest.h"

static int rank, size;

struct log {
    int copies, deletes;
    void* last_deleted;
    MPI_Datatype last_type;
};
static struct log lg;

static int copy_cb(MPI_Datatype t, int keyval, void* extra, void* in, void* out, int* flag)
{
    (void)keyval;
    CHECK(extra == &lg, "copy callback got extra_state %p", extra);
    lg.copies++;
    lg.last_type = t;
    *(void**)out = (char*)in + 100;
    *flag = 1;
    return MPI_SUCCESS;
}
static int nocopy_cb(MPI_Datatype t, int keyval, void* extra, void* in, void* out, int* flag)
{
    (void)t, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
static int failing_copy_cb(MPI_Datatype t, int keyval, void* extra, void* in, void* out, int* flag)
{
    (void)t, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}
static int delete_cb(MPI_Datatype t, int keyval, void* val, void* extra)
{
    (void)keyval;
    CHECK(extra == &lg, "delete callback got extra_state %p", extra);
    lg.deletes++;
    lg.last_deleted = val;
    lg.last_type = t;
    return MPI_SUCCESS;
}
static int failing_delete_cb(MPI_Datatype t, int keyval, void* val, void* extra)
{
    (void)t, (void)keyval, (void)val, (void)extra;
    return MPI_ERR_OTHER;
}

static char a[8];

static void test_type_attributes(void)
{
    int k1, k2, k3;
    CHECK_MPI(MPI_Type_create_keyval(copy_cb, delete_cb, &k1, &lg));
    CHECK_MPI(MPI_Type_create_keyval(nocopy_cb, MPI_TYPE_NULL_DELETE_FN, &k2, &lg));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_cb, &k3, &lg));
    CHECK(k1 != k2 && k2 != k3 && k1 != MPI_KEYVAL_INVALID, "keyvals %d %d %d", k1, k2, k3);

    MPI_Datatype v, d;
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    void* got = NULL;
    int flag = 1;
    CHECK_MPI(MPI_Type_get_attr(v, k1, &got, &flag));
    CHECK(flag == 0, "attribute present before set");
    CHECK_MPI(MPI_Type_set_attr(v, k1, &a[0]));
    CHECK_MPI(MPI_Type_set_attr(v, k2, &a[1]));
    CHECK_MPI(MPI_Type_set_attr(v, k3, &a[2]));
    CHECK_MPI(MPI_Type_get_attr(v, k2, &got, &flag));
    CHECK(flag == 1 && got == &a[1], "get_attr k2: flag %d", flag);

    /* replace: the delete callback sees the old value */
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_set_attr(v, k1, &a[3]));
    CHECK(lg.deletes == 1 && lg.last_deleted == &a[0], "replace ran %d deletes", lg.deletes);
    CHECK(lg.last_type == v, "delete callback got another datatype handle");

    /* dup: k1 copied through the callback, k2 not copied, k3 copied as is */
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_dup(v, &d));
    CHECK(lg.copies == 1 && lg.last_type == v, "dup ran %d copy callbacks", lg.copies);
    CHECK_MPI(MPI_Type_get_attr(d, k1, &got, &flag));
    CHECK(flag == 1 && (uintptr_t)got == (uintptr_t)&a[3] + 100, "dup k1: flag %d", flag);
    CHECK_MPI(MPI_Type_get_attr(d, k2, &got, &flag));
    CHECK(flag == 0, "dup k2 copied although its callback said no");
    CHECK_MPI(MPI_Type_get_attr(d, k3, &got, &flag));
    CHECK(flag == 1 && got == &a[2], "dup k3 (MPI_TYPE_DUP_FN): flag %d", flag);

    /* delete_attr runs the callback; a second delete is an error */
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_delete_attr(d, k3));
    CHECK(lg.deletes == 1 && lg.last_deleted == &a[2], "delete_attr ran %d deletes", lg.deletes);
    CHECK_MPI(MPI_Type_get_attr(d, k3, &got, &flag));
    CHECK(flag == 0, "attribute still there after delete_attr");
    CHECK(MPI_Type_delete_attr(d, k3) == MPI_ERR_KEYVAL, "deleting a missing attribute did not give MPI_ERR_KEYVAL");

    /* free runs the delete callbacks (last set first) */
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_free(&d));
    CHECK(lg.deletes == 1 && (uintptr_t)lg.last_deleted == (uintptr_t)&a[3] + 100, "free of the dup ran %d deletes", lg.deletes);
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_free(&v));
    CHECK(lg.deletes == 2 && lg.last_deleted == &a[3], "free ran %d deletes, last %p", lg.deletes, lg.last_deleted);

    /* attributes on a predefined type */
    CHECK_MPI(MPI_Type_set_attr(MPI_DOUBLE, k2, &a[5]));
    CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, k2, &got, &flag));
    CHECK(flag == 1 && got == &a[5], "attribute on MPI_DOUBLE: flag %d", flag);
    CHECK_MPI(MPI_Type_get_attr(MPI_INT, k2, &got, &flag));
    CHECK(flag == 0, "attribute on MPI_DOUBLE visible on MPI_INT");
    CHECK_MPI(MPI_Type_delete_attr(MPI_DOUBLE, k2));

    /* a failing copy callback fails the dup; a failing delete callback fails the free and keeps the type */
    int kf, kd;
    CHECK_MPI(MPI_Type_create_keyval(failing_copy_cb, MPI_TYPE_NULL_DELETE_FN, &kf, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, failing_delete_cb, &kd, NULL));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &v));
    CHECK_MPI(MPI_Type_set_attr(v, kf, &a[6]));
    d = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_dup(v, &d) != MPI_SUCCESS, "dup succeeded with a failing copy callback");
    CHECK_MPI(MPI_Type_delete_attr(v, kf));
    CHECK_MPI(MPI_Type_set_attr(v, kd, &a[7]));
    MPI_Datatype keep = v;
    CHECK(MPI_Type_free(&v) != MPI_SUCCESS, "free succeeded with a failing delete callback");
    int sz = 0;
    CHECK_MPI(MPI_Type_size(keep, &sz));
    CHECK(sz == 8, "type kept after the failed free has size %d", sz);
    CHECK(MPI_Type_delete_attr(keep, kd) != MPI_SUCCESS, "delete_attr succeeded with a failing callback");
    /* set the attribute of a keyval without callbacks instead, then the free works */
    int kn;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kn, NULL));
    CHECK_MPI(MPI_Type_free_keyval(&kd));
    CHECK(kd == MPI_KEYVAL_INVALID, "free_keyval did not reset the keyval");

    /* errors: a communicator keyval on a datatype, an invalid keyval */
    int ck;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK(MPI_Type_set_attr(MPI_INT, ck, NULL) == MPI_ERR_KEYVAL, "comm keyval accepted on a datatype");
    CHECK(MPI_Type_get_attr(MPI_INT, 999999, &got, &flag) == MPI_ERR_KEYVAL, "made-up keyval accepted");
    CHECK(MPI_Type_free_keyval(&ck) == MPI_ERR_KEYVAL, "type free_keyval accepted a comm keyval");
    CHECK_MPI(MPI_Comm_free_keyval(&ck));

    /* a keyval freed while attached stays usable by the attribute until deleted */
    MPI_Datatype w;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_CHAR, &w));
    CHECK_MPI(MPI_Type_set_attr(w, k1, &a[1]));
    int k1copy = k1;
    CHECK_MPI(MPI_Type_free_keyval(&k1));
    lg = (struct log){0};
    CHECK_MPI(MPI_Type_free(&w));
    CHECK(lg.deletes == 1 && lg.last_deleted == &a[1], "freed keyval's delete callback ran %d times", lg.deletes);
    CHECK(MPI_Type_get_attr(MPI_INT, k1copy, &got, &flag) == MPI_ERR_KEYVAL, "freed keyval accepted");
    CHECK_MPI(MPI_Type_free_keyval(&k2));
    CHECK_MPI(MPI_Type_free_keyval(&k3));
    CHECK_MPI(MPI_Type_free_keyval(&kf));
    CHECK_MPI(MPI_Type_free_keyval(&kn));
    /* `keep` keeps its failing attribute's keyval alive; it is never freed (an erroneous program) */
}

static void check_f90(MPI_Datatype t, int combiner, int p, int r, int expect_size, MPI_Datatype expect_like,
                      const char* what)
{
    int sz = -1;
    CHECK_MPI(MPI_Type_size(t, &sz));
    CHECK(sz == expect_size, "%s: size %d, expected %d", what, sz, expect_size);
    int ni, na, nd, comb;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == combiner, "%s: combiner %d, expected %d", what, comb, combiner);
    const int want_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    CHECK(ni == want_ni && na == 0 && nd == 0, "%s: envelope %d/%d/%d", what, ni, na, nd);
    int ints[2] = {-7, -7};
    CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    if (combiner == MPI_COMBINER_F90_INTEGER)
        CHECK(ints[0] == r, "%s: contents r %d", what, ints[0]);
    else
        CHECK(ints[0] == p && ints[1] == r, "%s: contents %d %d", what, ints[0], ints[1]);
    MPI_Aint lb, ext, elb, eext;
    CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));
    CHECK_MPI(MPI_Type_get_extent(expect_like, &elb, &eext));
    CHECK(lb == elb && ext == eext, "%s: extent %ld", what, (long)ext);
    /* the result is predefined: freeing it is an error and leaves it usable */
    MPI_Datatype copy = t;
    CHECK(MPI_Type_free(&copy) == MPI_ERR_TYPE, "%s: MPI_Type_free accepted it", what);
    CHECK_MPI(MPI_Type_size(t, &sz));
}

static void test_f90(void)
{
    MPI_Datatype t, t2;
    CHECK_MPI(MPI_Type_create_f90_real(6, 30, &t));
    check_f90(t, MPI_COMBINER_F90_REAL, 6, 30, 4, MPI_REAL4, "real(6,30)");
    CHECK_MPI(MPI_Type_create_f90_real(6, 30, &t2));
    CHECK(t == t2, "same arguments gave different handles");
    CHECK_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t));
    check_f90(t, MPI_COMBINER_F90_REAL, 15, MPI_UNDEFINED, 8, MPI_REAL8, "real(15,undef)");
    CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &t));
    check_f90(t, MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 300, 8, MPI_REAL8, "real(undef,300)");
    CHECK_MPI(MPI_Type_create_f90_real(30, 1000, &t));
    check_f90(t, MPI_COMBINER_F90_REAL, 30, 1000, 16, MPI_REAL16, "real(30,1000)");
    CHECK_MPI(MPI_Type_create_f90_complex(7, MPI_UNDEFINED, &t));
    check_f90(t, MPI_COMBINER_F90_COMPLEX, 7, MPI_UNDEFINED, 16, MPI_COMPLEX16, "complex(7,undef)");
    CHECK_MPI(MPI_Type_create_f90_complex(3, 10, &t));
    check_f90(t, MPI_COMBINER_F90_COMPLEX, 3, 10, 8, MPI_COMPLEX8, "complex(3,10)");
    const int ranges[] = {2, 4, 9, 18};
    const int sizes[] = {1, 2, 4, 8};
    const MPI_Datatype likes[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    for (int i = 0; i < 4; ++i) {
        char what[32];
        snprintf(what, sizeof what, "integer(%d)", ranges[i]);
        CHECK_MPI(MPI_Type_create_f90_integer(ranges[i], &t));
        check_f90(t, MPI_COMBINER_F90_INTEGER, 0, ranges[i], sizes[i], likes[i], what);
    }
    /* out of range and missing arguments */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_create_f90_real(40, 10, &t) == MPI_ERR_ARG, "real(40) accepted");
    CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) == MPI_ERR_ARG, "real(undef,undef) accepted");
    CHECK(MPI_Type_create_f90_integer(39, &t) == MPI_ERR_ARG, "integer(39) accepted");

    /* in a derived type, contents return the f90 type itself (not a new handle to free) */
    MPI_Datatype r8, c;
    CHECK_MPI(MPI_Type_create_f90_real(15, 300, &r8));
    CHECK_MPI(MPI_Type_contiguous(4, r8, &c));
    CHECK_MPI(MPI_Type_commit(&c));
    int ints[1];
    MPI_Datatype inner;
    CHECK_MPI(MPI_Type_get_contents(c, 1, 0, 1, ints, NULL, &inner));
    CHECK(inner == r8 && ints[0] == 4, "contents of contiguous(f90 real) gave another handle");

    /* communication and reduction with f90 types */
    double x[4] = {rank + 0.5, rank + 1.5, 2.0 * rank, -1.0 * rank}, sum[4];
    CHECK_MPI(MPI_Allreduce(x, sum, 4, r8, MPI_SUM, MPI_COMM_WORLD));
    const double n = size, rs = (double)size * (size - 1) / 2.0;
    CHECK(sum[0] == rs + 0.5 * n && sum[1] == rs + 1.5 * n && sum[2] == 2 * rs && sum[3] == -rs,
          "allreduce over the f90 real gave %g %g %g %g", sum[0], sum[1], sum[2], sum[3]);
    double y[4] = {0};
    if (size > 1) {
        if (rank == 0) CHECK_MPI(MPI_Send(x, 1, c, 1, 5, MPI_COMM_WORLD));
        if (rank == 1) {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(y, 4, r8, 0, 5, MPI_COMM_WORLD, &st));
            int cnt = -1;
            CHECK_MPI(MPI_Get_count(&st, r8, &cnt));
            CHECK(cnt == 4 && y[0] == 0.5 && y[1] == 1.5 && y[2] == 0.0, "received %d: %g %g %g", cnt, y[0], y[1],
                  y[2]);
        }
    }
    CHECK_MPI(MPI_Type_free(&c));

    /* match_size: predefined types of the class and size, errors otherwise */
    MPI_Datatype m;
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, (int)sizeof(double), &m));
    int msz = 0;
    CHECK_MPI(MPI_Type_size(m, &msz));
    CHECK(msz == (int)sizeof(double), "match_size real 8 has size %d", msz);
    CHECK(MPI_Type_free(&m) == MPI_ERR_TYPE, "the match_size result could be freed");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK_MPI(MPI_Type_size(m, &msz));
    CHECK(msz == 4, "match_size integer 4 has size %d", msz);
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
    CHECK_MPI(MPI_Type_size(m, &msz));
    CHECK(msz == 16, "match_size complex 16 has size %d", msz);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m) == MPI_ERR_ARG, "match_size real 3 accepted");
    CHECK(MPI_Type_match_size(12345, 4, &m) == MPI_ERR_ARG, "match_size of an unknown class accepted");
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_type_attributes();
    test_f90();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
