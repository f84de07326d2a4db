/* NULL output pointers give MPI_ERR_ARG (through the error handler, here MPI_ERRORS_RETURN)
 * instead of a crash, and the library keeps working. Before the fix each of these calls wrote
 * through the NULL pointer (segmentation fault). */
#include "mpitest.h"

static void expect_arg(int rc, const char* what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "%s: rc %d class %d, expected MPI_ERR_ARG", what, rc, cls);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank, size, x = 0, flag = 0, idx = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    expect_arg(MPI_Comm_size(MPI_COMM_WORLD, NULL), "Comm_size");
    expect_arg(MPI_Comm_rank(MPI_COMM_WORLD, NULL), "Comm_rank");
    expect_arg(MPI_Type_size(MPI_INT, NULL), "Type_size");
    expect_arg(MPI_Type_size_c(MPI_INT, NULL), "Type_size_c");
    expect_arg(MPI_Type_size_x(MPI_INT, NULL), "Type_size_x");
    expect_arg(MPI_Pack_external_size("external32", 1, MPI_INT, NULL), "Pack_external_size");
    expect_arg(MPI_Query_thread(NULL), "Query_thread");
    expect_arg(MPI_Is_thread_main(NULL), "Is_thread_main");
    expect_arg(MPI_Finalized(NULL), "Finalized");
    expect_arg(MPI_Get_version(NULL, &x), "Get_version");
    expect_arg(MPI_Get_library_version(NULL, &x), "Get_library_version");
    expect_arg(MPI_Get_processor_name(NULL, &x), "Get_processor_name");
    expect_arg(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), "Comm_get_errhandler");

    MPI_Status st;
    memset(&st, 0, sizeof st);
    expect_arg(MPI_Get_count(&st, MPI_INT, NULL), "Get_count count");
    expect_arg(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &x), "Get_count status");
    expect_arg(MPI_Get_elements(&st, MPI_INT, NULL), "Get_elements count");
    expect_arg(MPI_Get_elements_x(MPI_STATUS_IGNORE, MPI_INT, NULL), "Get_elements_x status");
    expect_arg(MPI_Test_cancelled(&st, NULL), "Test_cancelled flag");
    expect_arg(MPI_Test_cancelled(MPI_STATUS_IGNORE, &flag), "Test_cancelled status");
    expect_arg(MPI_Status_set_cancelled(NULL, 1), "Status_set_cancelled");
    expect_arg(MPI_Status_set_elements(NULL, MPI_INT, 1), "Status_set_elements");
    expect_arg(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, NULL, &st), "Iprobe flag");
    MPI_Message m;
    expect_arg(MPI_Improbe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, NULL, &m, &st), "Improbe flag");
    expect_arg(MPI_Improbe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, NULL, &st), "Improbe message");
    expect_arg(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, NULL, &st), "Mprobe message");

    /* requests: a pending receive from the right neighbour, checked before anything waits */
    int from = (rank + size - 1) % size, to = (rank + 1) % size, got = -1;
    MPI_Request r;
    MPI_Irecv(&got, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &r);
    expect_arg(MPI_Test(&r, NULL, &st), "Test flag");
    expect_arg(MPI_Testall(1, &r, NULL, MPI_STATUSES_IGNORE), "Testall flag");
    expect_arg(MPI_Testany(1, &r, NULL, &flag, &st), "Testany index");
    expect_arg(MPI_Testany(1, &r, &idx, NULL, &st), "Testany flag");
    expect_arg(MPI_Waitany(1, &r, NULL, &st), "Waitany index");
    expect_arg(MPI_Testsome(1, &r, NULL, &idx, MPI_STATUSES_IGNORE), "Testsome outcount");
    expect_arg(MPI_Waitsome(1, &r, &x, NULL, MPI_STATUSES_IGNORE), "Waitsome indices");
    expect_arg(MPI_Request_get_status(r, NULL, &st), "Request_get_status flag");
    CHECK(r != MPI_REQUEST_NULL, "a refused call freed the request");

    /* the request and the library still work */
    int v = rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, to, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(got == from && st.MPI_SOURCE == from, "received %d from %d, expected %d", got, st.MPI_SOURCE, from);
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &x));
    CHECK(x == size, "size %d", x);

    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
