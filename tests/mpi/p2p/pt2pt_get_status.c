/* MPI_Request_get_status_all/any/some (MPI-4.1 3.7.5): they report completion like
 * Testall/Testany/Testsome but leave every request allocated and active, so a later Wait still
 * retires it; null and inactive requests give empty statuses; no active request gives
 * flag = true / MPI_UNDEFINED. Ring exchange with the left and right neighbours. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sendval = 100 + rank, recvval = -1;
    MPI_Request reqs[3];
    MPI_Status st[3];
    int flag = 0, idx = -2, outcount = -2, indices[3];

    /* Receive posted first: get_status on a pending receive must not complete or free it. */
    CHECK_MPI(MPI_Irecv(&recvval, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]));
    reqs[1] = MPI_REQUEST_NULL;
    if (size > 1) {
        CHECK_MPI(MPI_Request_get_status_all(2, reqs, &flag, MPI_STATUSES_IGNORE));
        /* the left neighbour has not sent yet unless it raced ahead: only check consistency */
        CHECK(reqs[0] != MPI_REQUEST_NULL, "get_status_all freed a request");
    }
    CHECK_MPI(MPI_Isend(&sendval, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[2]));

    /* Poll with get_status_all until both complete; the handles must stay valid. */
    do {
        CHECK_MPI(MPI_Request_get_status_all(3, reqs, &flag, st));
    } while (!flag);
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL, "get_status_all freed a request");
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7, "status of the receive: source %d tag %d",
          st[0].MPI_SOURCE, st[0].MPI_TAG);
    CHECK(st[1].MPI_SOURCE == MPI_ANY_SOURCE && st[1].MPI_TAG == MPI_ANY_TAG, "null request: empty status");
    CHECK(recvval == 100 + left, "received %d, expected %d", recvval, 100 + left);

    /* any / some on complete requests report them and still leave them active. */
    CHECK_MPI(MPI_Request_get_status_any(3, reqs, &idx, &flag, &st[0]));
    CHECK(flag && (idx == 0 || idx == 2), "get_status_any: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Request_get_status_some(3, reqs, &outcount, indices, st));
    CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 2, "get_status_some: outcount %d", outcount);
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL, "get_status_some freed a request");

    /* Waitall retires them as usual afterwards. */
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL, "Waitall did not free the requests");

    /* Nothing active: all -> flag true with empty statuses; any -> flag true, MPI_UNDEFINED;
     * some -> MPI_UNDEFINED. Inactive persistent requests count as inactive. */
    MPI_Request inactive[2];
    CHECK_MPI(MPI_Recv_init(&recvval, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &inactive[0]));
    inactive[1] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Request_get_status_all(2, inactive, &flag, st));
    CHECK(flag == 1 && st[0].MPI_SOURCE == MPI_ANY_SOURCE, "all over inactive requests");
    CHECK_MPI(MPI_Request_get_status_any(2, inactive, &idx, &flag, &st[0]));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "any over inactive requests: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Request_get_status_some(2, inactive, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "some over inactive requests: outcount %d", outcount);
    CHECK_MPI(MPI_Request_free(&inactive[0]));

    /* Bad arguments are refused and change nothing. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Request_get_status_all(-1, reqs, &flag, st) == MPI_ERR_COUNT, "negative count");
    CHECK(MPI_Request_get_status_any(1, NULL, &idx, &flag, st) == MPI_ERR_ARG, "NULL array");
    MPI_Request bogus = (MPI_Request)(void *)&sendval;
    CHECK(MPI_Request_get_status_some(1, &bogus, &outcount, indices, st) == MPI_ERR_REQUEST, "made-up handle");

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
