/* mpi_fortran.h: MPI_Fint and the classic MPI_<Handle>_c2f / _f2c names on the standard ABI map
 * to MPI_<Handle>_toint / _fromint (predefined handles keep their ABI value, user handles round
 * trip), and MPI_Status_c2f / _f2c copy a status to Fortran's integer array and back. Before
 * mpi_fortran.h, code written for MPICH or Open MPI with these names did not compile (mpi4py 3.1's
 * configure found them missing and its Fortran-handle tests failed). */
#include "../mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));

    MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
    CHECK(f == (MPI_Fint)MPI_Comm_toint(MPI_COMM_WORLD), "MPI_Comm_c2f(MPI_COMM_WORLD) = %d", (int)f);
    CHECK(MPI_Comm_f2c(f) == MPI_COMM_WORLD, "MPI_COMM_WORLD does not round trip");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "a duplicated communicator does not round trip");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t, "a derived datatype does not round trip");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_DOUBLE does not round trip");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_SUM does not round trip");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "MPI_INFO_NULL");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "MPI_REQUEST_NULL");
    CHECK(PMPI_Comm_f2c(PMPI_Comm_c2f(dup)) == dup, "PMPI_ names");

    /* A status through Fortran's integer array: a received message's source, tag and count. */
    int rank = 0, size = 1, x = 7, y = 0, count = -1;
    MPI_Comm_rank(dup, &rank);
    MPI_Comm_size(dup, &size);
    MPI_Status st, back;
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 42, &y, 1, MPI_INT, (rank + size - 1) % size, 42, dup, &st));
    CHECK_MPI(MPI_Status_c2f(&st, fst));
    CHECK(fst[MPI_F_SOURCE] == (rank + size - 1) % size && fst[MPI_F_TAG] == 42, "Fortran status: source %d tag %d",
          (int)fst[MPI_F_SOURCE], (int)fst[MPI_F_TAG]);
    memset(&back, 0, sizeof back);
    CHECK_MPI(MPI_Status_f2c(fst, &back));
    CHECK_MPI(MPI_Get_count(&back, MPI_INT, &count));
    CHECK(back.MPI_SOURCE == st.MPI_SOURCE && back.MPI_TAG == 42 && count == 1, "status back: source %d tag %d count %d",
          back.MPI_SOURCE, back.MPI_TAG, count);

    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Comm_free(&dup));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
