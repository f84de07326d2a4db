/* Target datatypes of more contiguous pieces than the target's header receive holds (the
 * segment list then travels with the data): put, get, accumulate and get_accumulate with an
 * indexed type of 6000 irregular pieces (count 2, so the list repeats at the type's extent),
 * each checked element by element, holes untouched. Used to be refused with MPI_ERR_TYPE. */
#include "mpitest.h"

#define NB 6000

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *bl = mpitest_malloc(sizeof(int) * NB), *dp = mpitest_malloc(sizeof(int) * NB);
    /* gaps alternate 1 and 2 ints: no regular stride to merge pieces into one segment */
    int span = 0;
    for (int i = 0; i < NB; i++) {
        bl[i] = 1;
        dp[i] = span;
        span += (i % 2) ? 2 : 3;
    }
    MPI_Datatype frag;
    CHECK_MPI(MPI_Type_indexed(NB, bl, dp, MPI_INT, &frag));
    CHECK_MPI(MPI_Type_commit(&frag));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(frag, &lb, &ext);
    const int words = (int)(2 * ext / (MPI_Aint)sizeof(int)) + 4;
    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(words * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < words; i++) mem[i] = -1;
    int *src = mpitest_malloc(sizeof(int) * 2 * NB), *back = mpitest_malloc(sizeof(int) * 2 * NB),
        *old = mpitest_malloc(sizeof(int) * 2 * NB);
    for (int i = 0; i < 2 * NB; i++) src[i] = rank * 1000000 + i;
    const int t = (rank + 1) % size, from = (rank + size - 1) % size;
    const int ext_words = (int)(ext / (MPI_Aint)sizeof(int));
#define AT(k) (1 + ((k) / NB) * ext_words + dp[(k) % NB]) /* window index of the k-th element */

    /* put (fence) */
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(src, 2 * NB, MPI_INT, t, 1, 2, frag, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int bad = 0;
    for (int k = 0; k < 2 * NB; k++) bad += mem[AT(k)] != from * 1000000 + k;
    CHECK(bad == 0, "put: %d of %d elements wrong", bad, 2 * NB);
    CHECK(mem[0] == -1 && mem[2] == -1 && mem[3] == -1, "put wrote a hole: %d %d %d", mem[0], mem[2], mem[3]);

    /* accumulate (lock): adds k to element k */
    for (int i = 0; i < 2 * NB; i++) back[i] = i;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Accumulate(back, 2 * NB, MPI_INT, t, 1, 2, frag, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    bad = 0;
    for (int k = 0; k < 2 * NB; k++) bad += mem[AT(k)] != from * 1000000 + 2 * k;
    CHECK(bad == 0, "accumulate: %d of %d elements wrong", bad, 2 * NB);
    CHECK(mem[2] == -1, "accumulate wrote a hole: %d", mem[2]);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* get_accumulate (replace, fetching the old values), then get */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Get_accumulate(src, 2 * NB, MPI_INT, old, 2 * NB, MPI_INT, t, 1, 2, frag, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Get(back, 2 * NB, MPI_INT, t, 1, 2, frag, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    bad = 0;
    int badold = 0;
    for (int k = 0; k < 2 * NB; k++) {
        bad += back[k] != rank * 1000000 + k;
        badold += old[k] != rank * 1000000 + 2 * k;
    }
    CHECK(badold == 0, "get_accumulate: %d of %d fetched elements wrong", badold, 2 * NB);
    CHECK(bad == 0, "get after get_accumulate: %d of %d elements wrong", bad, 2 * NB);

    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Type_free(&frag));
    free(bl);
    free(dp);
    free(src);
    free(back);
    free(old);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
