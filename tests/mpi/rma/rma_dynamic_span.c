/* Dynamic windows: one RMA access may span several adjacent attached regions (every byte it
 * touches is attached), and a strided target datatype may skip memory that is not attached.
 * An access touching a byte outside attached memory is still MPI_ERR_RMA_RANGE. */
#include "mpitest.h"

#define N 256

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* one array in four pieces: [0, N) and [N, 2N) are attached (two adjacent regions),
     * [2N, 3N) is not, [3N, 4N) is attached again */
    static int mem[4 * N];
    for (int i = 0; i < 4 * N; i++) mem[i] = -1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_attach(win, &mem[0], N * sizeof(int)));
    CHECK_MPI(MPI_Win_attach(win, &mem[N], N * sizeof(int)));
    CHECK_MPI(MPI_Win_attach(win, &mem[3 * N], N * sizeof(int)));
    MPI_Aint mine, *addr = mpitest_malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Get_address(mem, &mine);
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    const int t = (rank + 1) % size;
    int src[2 * N], back[2 * N];
    for (int i = 0; i < 2 * N; i++) src[i] = rank * 100000 + i;

    /* put across the boundary of the two adjacent regions: [N/2, N/2 + N) */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(src, N, MPI_INT, t, addr[t] + (MPI_Aint)(N / 2 * sizeof(int)), N, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    /* accumulate across it too: adds 1 to [N - 8, N + 8) */
    int ones[16];
    for (int i = 0; i < 16; i++) ones[i] = 1;
    CHECK_MPI(MPI_Accumulate(ones, 16, MPI_INT, t, addr[t] + (MPI_Aint)((N - 8) * sizeof(int)), 16, MPI_INT, MPI_SUM,
                             win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < 2 * N; i++) back[i] = -7;
    CHECK_MPI(MPI_Get(back, 2 * N, MPI_INT, t, addr[t], 2 * N, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int i = 0; i < 2 * N; i++) {
        int expect = -1;
        if (i >= N / 2 && i < N / 2 + N) expect = rank * 100000 + (i - N / 2);
        if (i >= N - 8 && i < N + 8) expect += 1;
        if (back[i] != expect) {
            CHECK(back[i] == expect, "element %d of rank %d's regions is %d, expected %d", i, t, back[i], expect);
            break;
        }
    }

    /* a vector over the whole array that touches only the attached parts: 2 blocks of N ints
     * with a stride of 3N, i.e. [0, N) and [3N, 4N), skipping the unattached [2N, 3N) */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(2, N, 3 * N, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(src, 2 * N, MPI_INT, t, addr[t], 1, vec, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < 2 * N; i++) back[i] = -7;
    CHECK_MPI(MPI_Get(back, 2 * N, MPI_INT, t, addr[t], 1, vec, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < 2 * N; i++)
        if (back[i] != src[i]) {
            CHECK(back[i] == src[i], "strided element %d is %d, expected %d", i, back[i], src[i]);
            break;
        }
    /* touching the unattached piece is still an error, reported by the next synchronization */
    CHECK_MPI(MPI_Put(src, 4, MPI_INT, t, addr[t] + (MPI_Aint)((2 * N - 2) * sizeof(int)), 4, MPI_INT, win));
    int rc = MPI_Win_flush(t, win), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "a put into unattached memory gave class %d, expected MPI_ERR_RMA_RANGE", cls);
    CHECK_MPI(MPI_Win_unlock(t, win));
    CHECK_MPI(MPI_Type_free(&vec));

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* the unattached piece of my array was never written */
    for (int i = 2 * N; i < 3 * N; i++)
        if (mem[i] != -1) {
            CHECK(mem[i] == -1, "unattached element %d was written: %d", i, mem[i]);
            break;
        }
    CHECK_MPI(MPI_Win_detach(win, &mem[0]));
    CHECK_MPI(MPI_Win_detach(win, &mem[N]));
    CHECK_MPI(MPI_Win_detach(win, &mem[3 * N]));
    CHECK_MPI(MPI_Win_free(&win));
    free(addr);
    int rc2 = mpitest_finish();
    MPI_Finalize();
    return rc2;
}
