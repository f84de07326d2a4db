/* MPI_Reduce_local refuses MPI_IN_PLACE (for either buffer) and aliased buffers with
 * MPI_ERR_BUFFER, without touching the buffers, and keeps working afterwards. Before the fix,
 * MPI_IN_PLACE as inbuf was read as an address (crash) and aliased buffers were reduced silently. */
#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int in[4] = {1, 2, 3, 4}, io[4] = {10, 20, 30, 40};
    int cls = 0;

    int rc = MPI_Reduce_local(MPI_IN_PLACE, io, 4, MPI_INT, MPI_SUM);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "MPI_IN_PLACE inbuf: rc %d class %d", rc, cls);
    CHECK(io[0] == 10 && io[3] == 40, "inoutbuf changed by a refused call: %d %d", io[0], io[3]);

    rc = MPI_Reduce_local(in, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "MPI_IN_PLACE inoutbuf: rc %d class %d", rc, cls);

    rc = MPI_Reduce_local(io, io, 4, MPI_INT, MPI_SUM);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "aliased buffers: rc %d class %d", rc, cls);
    CHECK(io[0] == 10 && io[3] == 40, "aliased call changed the buffer: %d %d", io[0], io[3]);

    /* the _c form too */
    rc = MPI_Reduce_local_c(MPI_IN_PLACE, io, 4, MPI_INT, MPI_SUM);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "_c MPI_IN_PLACE inbuf: rc %d class %d", rc, cls);

    /* still works */
    CHECK_MPI(MPI_Reduce_local(in, io, 4, MPI_INT, MPI_SUM));
    CHECK(io[0] == 11 && io[1] == 22 && io[2] == 33 && io[3] == 44, "sum %d %d %d %d", io[0], io[1], io[2],
          io[3]);
    /* zero elements: nothing to alias */
    CHECK_MPI(MPI_Reduce_local(io, io, 0, MPI_INT, MPI_SUM));

    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
