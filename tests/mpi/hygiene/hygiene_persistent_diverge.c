/* Persistent collectives whose ranks' counts disagree across a selection threshold (a bcast root
 * at 400 KB, its receivers at 4 KB; allreduce, reduce, alltoall, reduce_scatter_block, scan
 * likewise) would select different algorithms and hang at the first start. Their init agrees the
 * block size once: every rank refuses the init with MPI_ERR_TRUNCATE, the request stays
 * MPI_REQUEST_NULL, and the communicator keeps working. Equal counts still work. */
#include <mpi.h>

#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int big = 100000, small = 1000; /* ints: 400 KB and 4 KB */
    int* s = calloc((size_t)big * size, sizeof(int));
    int* r = calloc((size_t)big * size, sizeof(int));
    const char* names[] = {"bcast", "allreduce", "reduce", "alltoall", "reduce_scatter_block", "scan"};
    for (int k = 0; k < 6; k++) {
        for (int agree = 0; agree < 2; agree++) {
            const int n = agree ? small : (rank == 0 ? big : small);
            const int nb = k == 3 ? n / size : n; /* alltoall: per block */
            MPI_Request req = MPI_REQUEST_NULL;
            int rc = MPI_SUCCESS;
            switch (k) {
                case 0: rc = MPI_Bcast_init(r, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
                case 1: rc = MPI_Allreduce_init(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
                case 2: rc = MPI_Reduce_init(s, r, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
                case 3:
                    rc = MPI_Alltoall_init(s, nb, MPI_INT, r, nb, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    break;
                case 4:
                    rc = MPI_Reduce_scatter_block_init(s, r, nb / size > 0 ? nb / size : 1, MPI_INT, MPI_SUM,
                                                       MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    break;
                case 5: rc = MPI_Scan_init(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
            }
            int cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (agree || size == 1) {
                CHECK(cls == MPI_SUCCESS, "%s with equal counts: init class %d", names[k], cls);
                if (rc == MPI_SUCCESS) {
                    CHECK_MPI(MPI_Start(&req));
                    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    CHECK_MPI(MPI_Request_free(&req));
                }
            } else {
                CHECK(cls == MPI_ERR_TRUNCATE, "%s, %d against %d ints: init class %d, expected MPI_ERR_TRUNCATE",
                      names[k], n, big, cls);
                CHECK(req == MPI_REQUEST_NULL, "%s: a refused init returned a request", names[k]);
            }
            int one = 1, sum = 0;
            CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(sum == size, "%s: the communicator after the init: %d", names[k], sum);
        }
    }
    free(s);
    free(r);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
