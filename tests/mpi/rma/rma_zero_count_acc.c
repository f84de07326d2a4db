/* Accumulate operations that move no data (zero counts, or datatypes of size zero) are valid
 * no-ops whatever their datatypes: an empty derived type as target, or different element types
 * on the two sides when nothing is transferred. Data-moving mismatches are still MPI_ERR_TYPE. */
#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mem[4] = {5, 6, 7, 8}, buf[4] = {1, 1, 1, 1}, res[4] = {-1, -1, -1, -1};
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Datatype empty;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    const int t = (rank + 1) % size;
    CHECK_MPI(MPI_Win_fence(0, win));
    /* empty target datatype, count 0 and count 2 */
    CHECK_MPI(MPI_Accumulate(buf, 0, MPI_INT, t, 0, 0, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(buf, 2, empty, t, 0, 2, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(NULL, 1, empty, t, 0, 1, empty, MPI_REPLACE, win));
    CHECK_MPI(MPI_Get_accumulate(buf, 0, MPI_INT, res, 1, empty, t, 0, 2, empty, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, t, 0, 1, empty, MPI_NO_OP, win));
    /* different element types on the sides, nothing moved */
    CHECK_MPI(MPI_Accumulate(buf, 0, MPI_DOUBLE, t, 0, 0, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(buf, 0, MPI_INT, res, 0, MPI_DOUBLE, t, 0, 0, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(buf, 0, MPI_INT, res, 0, MPI_INT, t, 0, 0, MPI_DOUBLE, MPI_MAX, win));
    /* still errors when data moves: mixed element types, an invalid op */
    int cls = -1;
    MPI_Error_class(MPI_Accumulate(buf, 1, MPI_FLOAT, t, 0, 1, MPI_INT, MPI_SUM, win), &cls);
    CHECK(cls == MPI_ERR_TYPE, "INT target with FLOAT origin gave class %d, expected MPI_ERR_TYPE", cls);
    MPI_Error_class(MPI_Accumulate(buf, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_NO_OP, win), &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_NO_OP in MPI_Accumulate gave class %d, expected MPI_ERR_OP", cls);
    /* and a real accumulate still works */
    CHECK_MPI(MPI_Accumulate(buf, 2, MPI_INT, t, 1, 2, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(mem[0] == 5 && mem[1] == 7 && mem[2] == 8 && mem[3] == 8, "window holds %d %d %d %d, expected 5 7 8 8",
          mem[0], mem[1], mem[2], mem[3]);
    CHECK(res[0] == -1, "an empty get-accumulate wrote its result buffer: %d", res[0]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK_MPI(MPI_Type_free(&empty));
    CHECK_MPI(MPI_Win_free(&win));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
