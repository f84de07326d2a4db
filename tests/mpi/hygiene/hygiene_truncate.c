/* Collective argument mismatches are detected where the data shows them: a rank whose receive
 * buffer is smaller than what the others send gets MPI_ERR_TRUNCATE (never a silent cut, never a
 * hang, never a write past its buffer), in blocking, nonblocking and persistent form.
 *
 *   hygiene_truncate COLLECTIVE
 *
 * hygiene.cmake runs it once per algorithm of the collective (BATON_<COLL>_ALGORITHM), so every
 * rank runs the same algorithm: the sizes differ only by what the arguments say. Sizes 2, 300 and
 * 1000 ints against twice as many (the shared-memory algorithms' inline data, small buffer and
 * large buffer, and crossing from one to the other). The "short" ranks post n elements where the
 * others send 2n; afterwards the communicator must still work (a correct allreduce). Other ranks
 * may report an error too (their data is wrong as well) but must not hang. */
#include <mpi.h>

#include "mpitest.h"

#define GUARD 16
#define FILL 0x5a5a5a5a

static int rank, size;
static const char* coll;

static int is_short(void)
{
    /* who receives more than it posted */
    if (!strcmp(coll, "bcast") || !strcmp(coll, "scatter") || !strcmp(coll, "scatterv")) return rank != 0;
    if (!strcmp(coll, "scan") || !strcmp(coll, "exscan")) return rank == size - 1;
    return rank == 0;
}

/* One call of the collective in `mode` (0 blocking, 1 nonblocking, 2 persistent); n: this rank's
 * element count (per block, where blocks). Returns the MPI error class. */
static int call(int mode, int n, int* sbuf, int* rbuf, MPI_Comm c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    int counts[64], displs[64];
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * n;
    }
#define RUN3(blocking, nonblocking, persistent)          \
    do {                                                 \
        if (mode == 0)                                   \
            rc = blocking;                               \
        else if (mode == 1)                              \
            rc = nonblocking;                            \
        else                                             \
            rc = persistent;                             \
    } while (0)
    MPI_Info I = MPI_INFO_NULL;
    if (!strcmp(coll, "bcast"))
        RUN3(MPI_Bcast(rbuf, n, MPI_INT, 0, c), MPI_Ibcast(rbuf, n, MPI_INT, 0, c, &req),
             MPI_Bcast_init(rbuf, n, MPI_INT, 0, c, I, &req));
    else if (!strcmp(coll, "reduce"))
        RUN3(MPI_Reduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, c), MPI_Ireduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, c, &req),
             MPI_Reduce_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, c, I, &req));
    else if (!strcmp(coll, "allreduce"))
        RUN3(MPI_Allreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, c), MPI_Iallreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, &req),
             MPI_Allreduce_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, I, &req));
    else if (!strcmp(coll, "gather"))
        RUN3(MPI_Gather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c),
             MPI_Igather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c, &req),
             MPI_Gather_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c, I, &req));
    else if (!strcmp(coll, "gatherv"))
        RUN3(MPI_Gatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, 0, c),
             MPI_Igatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, 0, c, &req),
             MPI_Gatherv_init(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, 0, c, I, &req));
    else if (!strcmp(coll, "scatter"))
        RUN3(MPI_Scatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c),
             MPI_Iscatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c, &req),
             MPI_Scatter_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, c, I, &req));
    else if (!strcmp(coll, "scatterv"))
        RUN3(MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, n, MPI_INT, 0, c),
             MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, n, MPI_INT, 0, c, &req),
             MPI_Scatterv_init(sbuf, counts, displs, MPI_INT, rbuf, n, MPI_INT, 0, c, I, &req));
    else if (!strcmp(coll, "allgather"))
        RUN3(MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c),
             MPI_Iallgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c, &req),
             MPI_Allgather_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c, I, &req));
    else if (!strcmp(coll, "allgatherv"))
        RUN3(MPI_Allgatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, c),
             MPI_Iallgatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, c, &req),
             MPI_Allgatherv_init(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, c, I, &req));
    else if (!strcmp(coll, "alltoall"))
        RUN3(MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c), MPI_Ialltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c, &req),
             MPI_Alltoall_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, c, I, &req));
    else if (!strcmp(coll, "alltoallv"))
        RUN3(MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, c),
             MPI_Ialltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, c, &req),
             MPI_Alltoallv_init(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, c, I, &req));
    else if (!strcmp(coll, "reduce_scatter_block"))
        RUN3(MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, c),
             MPI_Ireduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, &req),
             MPI_Reduce_scatter_block_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, I, &req));
    else if (!strcmp(coll, "reduce_scatter"))
        RUN3(MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c),
             MPI_Ireduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c, &req),
             MPI_Reduce_scatter_init(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c, I, &req));
    else if (!strcmp(coll, "scan"))
        RUN3(MPI_Scan(sbuf, rbuf, n, MPI_INT, MPI_SUM, c), MPI_Iscan(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, &req),
             MPI_Scan_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, I, &req));
    else if (!strcmp(coll, "exscan"))
        RUN3(MPI_Exscan(sbuf, rbuf, n, MPI_INT, MPI_SUM, c), MPI_Iexscan(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, &req),
             MPI_Exscan_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, c, I, &req));
    else {
        fprintf(stderr, "hygiene_truncate: unknown collective %s\n", coll);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rc == MPI_SUCCESS && mode == 2) rc = MPI_Start(&req);
    if (rc == MPI_SUCCESS && mode >= 1) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (mode == 2 && req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    coll = argc > 1 ? argv[1] : "bcast";
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (size < 2 || size > 64) {
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    const int sizes[] = {2, 300, 1000};
    const char* modes[] = {"blocking", "nonblocking", "persistent"};
    for (int si = 0; si < 3; si++) {
        for (int mode = 0; mode < 3; mode++) {
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
            MPI_Barrier(c); /* the first blocking collective sets up the region */
            const int n = is_short() ? sizes[si] : 2 * sizes[si];
            const size_t total = (size_t)2 * sizes[si] * size + GUARD;
            int* sbuf = malloc(total * sizeof(int));
            int* rbuf = malloc(total * sizeof(int));
            for (size_t i = 0; i < total; i++) sbuf[i] = (int)i + rank;
            /* the posted part and the guard after it */
            const size_t posted = !strcmp(coll, "bcast") || !strcmp(coll, "reduce") || !strcmp(coll, "allreduce") ||
                                          !strcmp(coll, "scatter") || !strcmp(coll, "scatterv") ||
                                          !strcmp(coll, "reduce_scatter_block") || !strcmp(coll, "reduce_scatter") ||
                                          !strcmp(coll, "scan") || !strcmp(coll, "exscan")
                                      ? (size_t)n
                                      : (size_t)n * size;
            for (size_t i = 0; i < total; i++) rbuf[i] = !strcmp(coll, "bcast") && rank == 0 ? (int)i : FILL;
            const int cls = call(mode, n, sbuf, rbuf, c);
            /* A short rank fed by another short rank (a tree algorithm's inner node forwards what it
             * kept) gets what it posted: only ranks whose sender sent more see the truncation, and
             * in every algorithm at least one does. */
            int trunc = cls == MPI_ERR_TRUNCATE, any = 0;
            CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_COUNT,
                  "%s %s, %d ints: class %d, expected success, MPI_ERR_TRUNCATE or MPI_ERR_COUNT", modes[mode], coll, n,
                  cls);
            CHECK_MPI(MPI_Allreduce(&trunc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
            CHECK(any, "%s %s, %d against %d ints: no rank reported MPI_ERR_TRUNCATE (this one: class %d)", modes[mode],
                  coll, sizes[si], 2 * sizes[si], cls);
            if (is_short() && rank == (!strcmp(coll, "bcast") || !strcmp(coll, "scatter") || !strcmp(coll, "scatterv")
                                           ? 1
                                           : rank))
                CHECK(cls == MPI_ERR_TRUNCATE, "%s %s, %d against %d ints: class %d, expected MPI_ERR_TRUNCATE (%d)",
                      modes[mode], coll, n, 2 * n, cls, MPI_ERR_TRUNCATE);
            if (!(!strcmp(coll, "bcast") && rank == 0))
                for (size_t i = posted; i < posted + GUARD; i++)
                    if (rbuf[i] != FILL) {
                        CHECK(0, "%s %s: written past the posted %zu ints (at %zu)", modes[mode], coll, posted, i);
                        break;
                    }
            /* the communicator still works */
            int one = 1, sum = 0;
            CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == size, "%s %s: allreduce afterwards gave %d", modes[mode], coll, sum);
            free(sbuf);
            free(rbuf);
            MPI_Comm_free(&c);
        }
    }
    if (rank == 0) printf("hygiene_truncate %s: checked\n", coll);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
