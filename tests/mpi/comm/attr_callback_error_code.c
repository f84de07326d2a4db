/* A user error code or class (MPI_Add_error_class/_code) returned by an attribute copy or delete
 * callback is what MPI_Comm_dup / MPI_Comm_delete_attr / MPI_Type_dup / MPI_Win_delete_attr
 * return (and hand to the error handler), with its class and string; an unknown code becomes
 * MPI_ERR_OTHER. Before the fix every user code came back as MPI_ERR_OTHER. */
#include "mpitest.h"

static int g_ret;
static int copy_fail(MPI_Comm c, int k, void* x, void* in, void* out, int* flag)
{
    (void)c, (void)k, (void)x, (void)in;
    *(void**)out = NULL;
    *flag = 0;
    return g_ret;
}
static int del_fail(MPI_Comm c, int k, void* v, void* x)
{
    (void)c, (void)k, (void)v, (void)x;
    return g_ret;
}
static int type_copy_fail(MPI_Datatype t, int k, void* x, void* in, void* out, int* flag)
{
    (void)t, (void)k, (void)x, (void)in;
    *(void**)out = NULL;
    *flag = 0;
    return g_ret;
}
static int win_del_fail(MPI_Win w, int k, void* v, void* x)
{
    (void)w, (void)k, (void)v, (void)x;
    return g_ret;
}
static int handler_code = -1;
static void eh(MPI_Comm* c, int* code, ...)
{
    (void)c;
    handler_code = *code;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(eh, &h);

    int myclass, mycode, cls, len;
    char msg[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Add_error_class(&myclass));
    CHECK_MPI(MPI_Add_error_code(myclass, &mycode));
    CHECK_MPI(MPI_Add_error_string(mycode, "copy refused"));

    MPI_Comm base, dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    MPI_Comm_set_errhandler(base, h);
    int key, val = 1;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fail, del_fail, &key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(base, key, &val));

    /* a user code from the copy callback */
    g_ret = mycode;
    handler_code = -1;
    int rc = MPI_Comm_dup(base, &dup);
    CHECK(rc == mycode, "Comm_dup returned %d, expected the callback's code %d", rc, mycode);
    CHECK(handler_code == mycode, "handler got %d, expected %d", handler_code, mycode);
    CHECK(dup == MPI_COMM_NULL, "failed dup left a communicator");
    MPI_Error_class(rc, &cls);
    CHECK(cls == myclass, "class %d, expected %d", cls, myclass);
    MPI_Error_string(rc, msg, &len);
    CHECK(strcmp(msg, "copy refused") == 0, "string '%s'", msg);

    /* a user class returned as a code */
    g_ret = myclass;
    rc = MPI_Comm_dup(base, &dup);
    CHECK(rc == myclass, "Comm_dup returned %d, expected the class %d", rc, myclass);

    /* a predefined class passes too; an unknown number becomes MPI_ERR_OTHER */
    g_ret = MPI_ERR_NAME;
    rc = MPI_Comm_dup(base, &dup);
    CHECK(rc == MPI_ERR_NAME, "Comm_dup returned %d, expected MPI_ERR_NAME", rc);
    g_ret = mycode + 1000;
    rc = MPI_Comm_dup(base, &dup);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "unknown code %d gave class %d, expected MPI_ERR_OTHER", g_ret, cls);

    /* the delete callback: MPI_Comm_delete_attr returns its user code */
    g_ret = mycode;
    rc = MPI_Comm_delete_attr(base, key);
    CHECK(rc == mycode, "Comm_delete_attr returned %d, expected %d", rc, mycode);
    g_ret = MPI_SUCCESS;
    CHECK_MPI(MPI_Comm_delete_attr(base, key));
    CHECK_MPI(MPI_Comm_free_keyval(&key));

    /* datatypes: MPI_Type_dup returns the copy callback's user code (errors with no object go to
     * the communicator handler Baton uses for them; make it return) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype t, t2 = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &t);
    int tkey;
    CHECK_MPI(MPI_Type_create_keyval(type_copy_fail, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL));
    CHECK_MPI(MPI_Type_set_attr(t, tkey, &val));
    g_ret = mycode;
    rc = MPI_Type_dup(t, &t2);
    CHECK(rc == mycode, "Type_dup returned %d, expected %d", rc, mycode);
    if (rc == MPI_SUCCESS) MPI_Type_free(&t2);
    CHECK_MPI(MPI_Type_delete_attr(t, tkey));
    CHECK_MPI(MPI_Type_free_keyval(&tkey));
    MPI_Type_free(&t);

    /* windows: the delete callback's user code */
    int wbuf = 0;
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(&wbuf, sizeof wbuf, sizeof wbuf, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    int wkey;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_del_fail, &wkey, NULL));
    CHECK_MPI(MPI_Win_set_attr(w, wkey, &val));
    g_ret = mycode;
    rc = MPI_Win_delete_attr(w, wkey);
    CHECK(rc == mycode, "Win_delete_attr returned %d, expected %d", rc, mycode);
    g_ret = MPI_SUCCESS;
    CHECK_MPI(MPI_Win_delete_attr(w, wkey));
    CHECK_MPI(MPI_Win_free_keyval(&wkey));
    CHECK_MPI(MPI_Win_free(&w));

    MPI_Comm_free(&base);
    MPI_Errhandler_free(&h);
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
