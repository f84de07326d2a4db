/* Receives freed while pending (MPI_Request_free) are completed by MPI_Finalize (MPI-4.1 3.7.3:
 * the operation continues; MPI_Finalize completes it). Ranks pair up (even sender, odd receiver).
 * The receiver posts a rendezvous-sized and a small receive, frees both and finalizes at once;
 * its sender sends only 100 ms later, with blocking sends. A large send completes only once the
 * receiver has fetched its data, so a receiver that left MPI_Finalize without completing its
 * freed receives leaves the sender waiting forever (the test's timeout). After MPI_Finalize the
 * receiver checks that both messages landed in its buffers (the rqfree pattern of MPICH's
 * test/mpi/pt2pt, which hung in 8 of 30 launches at 4 ranks before). */
#include <stdlib.h>
#include <unistd.h>

#include "mpitest.h"

#define BIG (256 * 1024 / (int)sizeof(int)) /* past the eager limits of shared memory and UCX */

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank + 1 < size || rank % 2 == 1;
    const int receiver = rank % 2 == 1;
    int* big = calloc(BIG, sizeof(int));
    int small[4] = {0, 0, 0, 0};
    if (paired && receiver) {
        MPI_Request r[2];
        CHECK_MPI(MPI_Irecv(big, BIG, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Irecv(small, 4, MPI_INT, rank - 1, 8, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Request_free(&r[0]));
        CHECK_MPI(MPI_Request_free(&r[1]));
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "MPI_Request_free left a handle");
    }
    int rc = mpitest_finish();
    if (paired && !receiver) {
        for (int i = 0; i < BIG; ++i) big[i] = i * 7 + rank;
        for (int i = 0; i < 4; ++i) small[i] = 100 + i;
        usleep(100 * 1000);  /* the receiver is in MPI_Finalize by now */
        if (MPI_Send(big, BIG, MPI_INT, rank + 1, 7, MPI_COMM_WORLD) != MPI_SUCCESS) rc = 1;
        if (MPI_Send(small, 4, MPI_INT, rank + 1, 8, MPI_COMM_WORLD) != MPI_SUCCESS) rc = 1;
    }
    MPI_Finalize();
    if (paired && receiver) {
        for (int i = 0; i < BIG; ++i)
            if (big[i] != i * 7 + rank - 1) {
                fprintf(stderr, "[rank %d] freed large receive: element %d is %d, expected %d\n", rank, i, big[i],
                        i * 7 + rank - 1);
                rc = 1;
                break;
            }
        for (int i = 0; i < 4; ++i)
            if (small[i] != 100 + i) {
                fprintf(stderr, "[rank %d] freed small receive: element %d is %d, expected %d\n", rank, i, small[i],
                        100 + i);
                rc = 1;
                break;
            }
    }
    free(big);
    return rc;
}
