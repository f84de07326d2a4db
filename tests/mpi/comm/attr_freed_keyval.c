/* Attribute corner cases found by MPICH's attr tests:
 *  - a delete callback that deletes other attributes of the same object (attrdelete): at
 *    delete_attr, at replacement and at free, for communicators and datatypes;
 *  - a keyval freed while attributes use it stays usable for those attributes (MPI-4.1 7.7.2:
 *    they are "freed via MPI_COMM_DELETE_ATTR"): get_attr and delete_attr accept its number, a
 *    second free_keyval (even from inside a delete callback) is harmless (fkeyvalcomm,
 *    keyval_double_free_*); set_attr refuses it; once the last attribute is gone it is invalid. */
#include "mpitest.h"

static int k1, k2, k3;
static int deletes;

static int comm_del_others(MPI_Comm c, int k, void* v, void* x)
{
    (void)k, (void)v, (void)x;
    ++deletes;
    MPI_Comm_delete_attr(c, k1); /* may be gone already: result not checked */
    MPI_Comm_delete_attr(c, k3);
    return MPI_SUCCESS;
}
static int comm_count(MPI_Comm c, int k, void* v, void* x)
{
    (void)c, (void)k, (void)v, (void)x;
    ++deletes;
    return MPI_SUCCESS;
}
static int comm_free_own_keyval(MPI_Comm c, int k, void* v, void* x)
{
    (void)c, (void)v, (void)x;
    ++deletes;
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    return MPI_SUCCESS;
}
static int type_del_others(MPI_Datatype t, int k, void* v, void* x)
{
    (void)k, (void)v, (void)x;
    ++deletes;
    MPI_Type_delete_attr(t, k1);
    MPI_Type_delete_attr(t, k3);
    return MPI_SUCCESS;
}
static int type_count(MPI_Datatype t, int k, void* v, void* x)
{
    (void)t, (void)k, (void)v, (void)x;
    ++deletes;
    return MPI_SUCCESS;
}

static void comm_delete_others(int how)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_count, &k1, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del_others, &k2, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_count, &k3, NULL));
    CHECK_MPI(MPI_Comm_set_attr(c, k1, (void*)1));
    CHECK_MPI(MPI_Comm_set_attr(c, k2, (void*)2));
    CHECK_MPI(MPI_Comm_set_attr(c, k3, (void*)3));
    deletes = 0;
    int flag = 1;
    void* v;
    if (how == 0) {
        CHECK_MPI(MPI_Comm_delete_attr(c, k2));
        CHECK(deletes == 3, "comm delete_attr ran %d delete callbacks, expected 3", deletes);
        CHECK_MPI(MPI_Comm_get_attr(c, k1, &v, &flag));
        CHECK(flag == 0, "k1 still attached");
        CHECK_MPI(MPI_Comm_get_attr(c, k2, &v, &flag));
        CHECK(flag == 0, "k2 still attached");
    } else if (how == 1) {
        CHECK_MPI(MPI_Comm_set_attr(c, k2, (void*)22));
        CHECK(deletes == 3, "comm replace ran %d delete callbacks, expected 3", deletes);
        CHECK_MPI(MPI_Comm_get_attr(c, k2, &v, &flag));
        CHECK(flag == 1 && v == (void*)22, "replaced k2: flag %d", flag);
        CHECK_MPI(MPI_Comm_get_attr(c, k3, &v, &flag));
        CHECK(flag == 0, "k3 still attached");
        CHECK_MPI(MPI_Comm_delete_attr(c, k2));
        deletes = 0;
    }
    CHECK_MPI(MPI_Comm_free(&c));
    if (how == 2) CHECK(deletes == 3, "comm free ran %d delete callbacks, expected 3", deletes);
    CHECK_MPI(MPI_Comm_free_keyval(&k1));
    CHECK_MPI(MPI_Comm_free_keyval(&k2));
    CHECK_MPI(MPI_Comm_free_keyval(&k3));
}

static void type_delete_others(int how)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_count, &k1, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del_others, &k2, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_count, &k3, NULL));
    CHECK_MPI(MPI_Type_set_attr(t, k1, (void*)1));
    CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)2));
    CHECK_MPI(MPI_Type_set_attr(t, k3, (void*)3));
    deletes = 0;
    int flag = 1;
    void* v;
    if (how == 0) {
        CHECK_MPI(MPI_Type_delete_attr(t, k2));
        CHECK(deletes == 3, "type delete_attr ran %d delete callbacks, expected 3", deletes);
        CHECK_MPI(MPI_Type_get_attr(t, k1, &v, &flag));
        CHECK(flag == 0, "type k1 still attached");
    } else if (how == 1) {
        CHECK_MPI(MPI_Type_set_attr(t, k2, (void*)22));
        CHECK(deletes == 3, "type replace ran %d delete callbacks, expected 3", deletes);
        CHECK_MPI(MPI_Type_get_attr(t, k2, &v, &flag));
        CHECK(flag == 1 && v == (void*)22, "type replaced k2: flag %d", flag);
        CHECK_MPI(MPI_Type_delete_attr(t, k2));
        deletes = 0;
    }
    CHECK_MPI(MPI_Type_free(&t));
    if (how == 2) CHECK(deletes == 3, "type free ran %d delete callbacks, expected 3", deletes);
    CHECK_MPI(MPI_Type_free_keyval(&k1));
    CHECK_MPI(MPI_Type_free_keyval(&k2));
    CHECK_MPI(MPI_Type_free_keyval(&k3));
}

static void freed_keyval(void)
{
    MPI_Comm c;
    int k, copy;
    void* v;
    int flag = 0;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_count, &k, NULL));
    copy = k;
    CHECK_MPI(MPI_Comm_set_attr(c, k, (void*)7));
    CHECK_MPI(MPI_Comm_free_keyval(&k));
    CHECK_MPI(MPI_Comm_get_attr(c, copy, &v, &flag));
    CHECK(flag == 1 && v == (void*)7, "get through a freed keyval: flag %d", flag);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, copy, (void*)8) == MPI_ERR_KEYVAL, "set with a freed keyval accepted");
    k = copy;
    CHECK_MPI(MPI_Comm_free_keyval(&k)); /* second free while still attached: harmless */
    deletes = 0;
    CHECK_MPI(MPI_Comm_delete_attr(c, copy)); /* the way MPI-4.1 7.7.2 says such attributes go */
    CHECK(deletes == 1, "delete_attr through a freed keyval ran %d callbacks", deletes);
    CHECK(MPI_Comm_get_attr(c, copy, &v, &flag) == MPI_ERR_KEYVAL, "keyval still valid after its last attribute");
    k = copy;
    CHECK(MPI_Comm_free_keyval(&k) == MPI_ERR_KEYVAL, "free of a dead keyval accepted");

    /* a delete callback freeing its own keyval, on two communicators (keyval_double_free_comm) */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &d));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_free_own_keyval, &k, NULL));
    copy = k;
    CHECK_MPI(MPI_Comm_set_attr(c, k, NULL));
    CHECK_MPI(MPI_Comm_set_attr(d, k, NULL));
    deletes = 0;
    CHECK_MPI(MPI_Comm_free(&d)); /* first free (in the callback) */
    CHECK_MPI(MPI_Comm_free_keyval(&k)); /* second */
    k = copy;
    CHECK_MPI(MPI_Comm_free_keyval(&k)); /* third */
    CHECK_MPI(MPI_Comm_free(&c)); /* the callback frees it a fourth time, then it dies */
    CHECK(deletes == 2, "callbacks ran %d times", deletes);
    k = copy;
    CHECK(MPI_Comm_free_keyval(&k) == MPI_ERR_KEYVAL, "dead keyval accepted");
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int how = 0; how < 3; ++how) {
        comm_delete_others(how);
        type_delete_others(how);
    }
    freed_keyval();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
