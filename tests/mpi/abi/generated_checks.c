/* The checks the generated entry points run (tools/api/README.md): a NULL output pointer of a
 * datatype or reduction-op function gives MPI_ERR_ARG on MPI_COMM_WORLD's handler (here
 * MPI_ERRORS_RETURN), and everything works afterwards. Before the generated checks most of these
 * calls wrote through the NULL pointer. */
#include "../mpitest.h"

static void expect_arg(int rc, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "%s: rc %d class %d, expected MPI_ERR_ARG", what, rc, cls);
}

static void noop(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in; (void)inout; (void)len; (void)type;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Aint lb = 0, ext = 0;
    MPI_Count clb = 0, cext = 0;
    int x = 0, blens[2] = {1, 1}, displs[2] = {0, 2}, n = 0;
    const int sizes[1] = {4}, subsizes[1] = {2}, starts[1] = {1};
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Datatype t = MPI_DATATYPE_NULL;

    expect_arg(MPI_Type_get_extent(MPI_INT, NULL, &ext), "Type_get_extent lb");
    expect_arg(MPI_Type_get_extent(MPI_INT, &lb, NULL), "Type_get_extent extent");
    expect_arg(MPI_Type_get_extent_c(MPI_INT, NULL, &cext), "Type_get_extent_c lb");
    expect_arg(MPI_Type_get_true_extent(MPI_INT, &lb, NULL), "Type_get_true_extent");
    expect_arg(MPI_Type_get_true_extent_c(MPI_INT, &clb, NULL), "Type_get_true_extent_c");
    expect_arg(MPI_Type_get_envelope(MPI_INT, NULL, &x, &x, &x), "Type_get_envelope");
    expect_arg(MPI_Type_contiguous(2, MPI_INT, NULL), "Type_contiguous");
    expect_arg(MPI_Type_contiguous_c(2, MPI_INT, NULL), "Type_contiguous_c");
    expect_arg(MPI_Type_vector(2, 1, 2, MPI_INT, NULL), "Type_vector");
    expect_arg(MPI_Type_indexed(2, blens, displs, MPI_INT, NULL), "Type_indexed");
    expect_arg(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, NULL), "Type_create_subarray");
    expect_arg(MPI_Type_dup(MPI_INT, NULL), "Type_dup");
    expect_arg(MPI_Type_create_resized(MPI_INT, 0, 8, NULL), "Type_create_resized");
    expect_arg(MPI_Type_commit(NULL), "Type_commit");
    expect_arg(MPI_Type_free(NULL), "Type_free");
    expect_arg(MPI_Type_get_name(MPI_INT, name, NULL), "Type_get_name");
    expect_arg(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, NULL), "Type_match_size");
    expect_arg(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL), "Type_create_keyval");
    expect_arg(MPI_Get_address(&x, NULL), "Get_address");
    expect_arg(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), "Pack_size");
    expect_arg(MPI_Pack(&x, 1, MPI_INT, name, (int)sizeof name, NULL, MPI_COMM_WORLD), "Pack position");
    expect_arg(MPI_Op_create(noop, 1, NULL), "Op_create");
    expect_arg(MPI_Op_commutative(MPI_SUM, NULL), "Op_commutative");
    expect_arg(MPI_Op_free(NULL), "Op_free");

    /* Still working: a derived type built, used and freed, the error classes as before. */
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Type_size(t, &n));
    CHECK(n == 2 * (int)sizeof(int), "size of 2 ints is %d", n);
    int in[2] = {1, 2}, out[2] = {0, 0}, size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == size && out[1] == 2 * size, "allreduce gave %d %d", out[0], out[1]);
    CHECK_MPI(MPI_Sendrecv(in, 1, t, 0, 5, out, 1, t, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(out[0] == 1 && out[1] == 2, "sendrecv of the derived type gave %d %d", out[0], out[1]);
    CHECK_MPI(MPI_Type_free(&t));
    int cls = -1, rc0 = MPI_Type_size(MPI_DATATYPE_NULL, &n);
    MPI_Error_class(rc0, &cls);
    CHECK(cls == MPI_ERR_TYPE, "Type_size(MPI_DATATYPE_NULL): class %d, expected MPI_ERR_TYPE", cls);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
