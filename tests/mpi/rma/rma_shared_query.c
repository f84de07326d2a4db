/* MPI_Win_shared_query on windows of every flavor (MPI-4.1 allows MPI_Win_create and
 * MPI_Win_allocate windows): a segment the caller cannot load from gives size 0 and a NULL
 * baseptr, the caller's own segment is its window memory, a dynamic window is refused with
 * MPI_ERR_RMA_FLAVOR, and shared windows answer for every rank. */
#include "mpitest.h"

static void query_private(MPI_Win win, int rank, int size, void* mybase, MPI_Aint mysize, int du, const char* what)
{
    for (int r = 0; r < size; r++) {
        MPI_Aint qs = -1;
        int qd = -1;
        void* qb = (void*)&qs;
        CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &qd, &qb));
        if (r == rank) {
            CHECK(qs == mysize && qb == mybase && qd == du, "%s: own segment: size %ld base %p unit %d", what,
                  (long)qs, qb, qd);
        } else {
            CHECK(qs == 0 && qb == NULL, "%s: rank %d's private segment: size %ld base %p", what, r, (long)qs, qb);
        }
    }
    MPI_Aint qs = -1;
    int qd = -1;
    void* qb = NULL;
    /* MPI_PROC_NULL: the lowest rank whose segment is not empty (rank 0 here, or nobody), which
       only that rank can reach (mpi4py 4's testSharedQuery) */
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qd, &qb));
    if (rank == 0)
        CHECK(qs == mysize && qb == mybase, "%s: MPI_PROC_NULL: size %ld base %p", what, (long)qs, qb);
    else
        CHECK(qs == 0 && qb == NULL, "%s: MPI_PROC_NULL (rank 0's segment): size %ld base %p", what, (long)qs, qb);
    int rc = MPI_Win_shared_query(win, size, &qs, &qd, &qb), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "%s: rank %d gave class %d, expected MPI_ERR_RANK", what, size, cls);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int mem[8];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    query_private(win, rank, size, mem, sizeof mem, (int)sizeof(int), "MPI_Win_create");
    CHECK_MPI(MPI_Win_free(&win));

    double* dmem = NULL;
    CHECK_MPI(MPI_Win_allocate(16 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dmem, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    query_private(win, rank, size, dmem, 16 * sizeof(double), (int)sizeof(double), "MPI_Win_allocate");
    CHECK_MPI(MPI_Win_free(&win));

    /* segments of different sizes (10 + rank bytes) */
    char* cmem = NULL;
    CHECK_MPI(MPI_Win_allocate(10 + rank, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cmem, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    query_private(win, rank, size, cmem, 10 + rank, 1, "MPI_Win_allocate of 10 + rank bytes");
    CHECK_MPI(MPI_Win_free(&win));

    /* a zero-size segment of the caller: size 0 and NULL, for its rank and MPI_PROC_NULL */
    CHECK_MPI(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    query_private(win, rank, size, NULL, 0, 1, "zero-size MPI_Win_create");
    CHECK_MPI(MPI_Win_free(&win));

    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Aint qs;
    int qd, cls = -1;
    void* qb;
    MPI_Error_class(MPI_Win_shared_query(win, rank, &qs, &qd, &qb), &cls);
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "dynamic window: class %d, expected MPI_ERR_RMA_FLAVOR", cls);
    CHECK_MPI(MPI_Win_free(&win));

    /* shared windows: every rank's segment, writable through the queried pointer */
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int* smem = NULL;
    CHECK_MPI(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &smem, &win));
    for (int i = 0; i < 4; i++) smem[i] = nr * 10 + i;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_sync(win));
    for (int r = 0; r < ns; r++) {
        int* p = NULL;
        CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &qd, &p));
        CHECK(qs == 4 * (MPI_Aint)sizeof(int) && qd == (int)sizeof(int) && p != NULL, "shared rank %d: size %ld unit %d",
              r, (long)qs, qd);
        if (p) CHECK(p[3] == r * 10 + 3, "shared rank %d holds %d", r, p[3]);
    }
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Comm_free(&node));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
