/* A topology constructor that fails (MPI_Cart_create / MPI_Graph_create with more grid points
 * than processes) sets the output handle to MPI_COMM_NULL, so the program cannot take a stale
 * value for a communicator. Before the fix the handle was left as it was. */
#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int dims[2] = {size, size + 1}, periods[2] = {0, 0};
    MPI_Comm cart = MPI_COMM_WORLD; /* a stale value the failed call must overwrite */
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    CHECK(rc != MPI_SUCCESS, "Cart_create with %d points on %d processes succeeded", size * (size + 1), size);
    CHECK(cart == MPI_COMM_NULL, "failed Cart_create left the output handle unchanged");

    int nnodes = size + 1, index[64], edges[1] = {0};
    for (int i = 0; i < nnodes && i < 64; i++) index[i] = 0;
    MPI_Comm graph = MPI_COMM_WORLD;
    rc = MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &graph);
    CHECK(rc != MPI_SUCCESS, "Graph_create with %d nodes on %d processes succeeded", nnodes, size);
    CHECK(graph == MPI_COMM_NULL, "failed Graph_create left the output handle unchanged");

    /* a valid one still works */
    dims[0] = size;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    int nd = 0;
    CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 1, "ndims %d", nd);
    MPI_Comm_free(&cart);

    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
