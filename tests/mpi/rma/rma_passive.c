/* Passive-target RMA: exclusive and shared locks, lock_all + flush, request-based operations,
 * a CAS-based mutex protecting a non-atomic read-modify-write, fetch_and_op counters, dynamic
 * windows (MPI_Win_attach / detach, MPI_BOTTOM-relative addresses). */
#include "mpitest.h"

static int rank, size;

static void test_exclusive_counter(void)
{
    /* a non-atomic get-modify-put under an exclusive lock: the total is exact */
    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const int iters = 100;
    for (int i = 0; i < iters; ++i) {
        int v = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        v += 1;
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(*mem == iters * size, "exclusive counter %d, expected %d", *mem, iters * size);
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_shared_and_lock_all(void)
{
    long* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(sizeof(long) * (size_t)(size + 2), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < size; ++i) mem[i] = 0;
    mem[size] = 0;
    mem[size + 1] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank writes its slot on every target under lock_all, flushing each */
    CHECK_MPI(MPI_Win_lock_all(0, win));
    long v = 100 + rank;
    for (int t = 0; t < size; ++t) {
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, rank, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(t, win));
    }
    CHECK_MPI(MPI_Win_flush_all(win));
    CHECK_MPI(MPI_Win_flush_local(0, win));
    CHECK_MPI(MPI_Win_flush_local_all(win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_sync(win));
    for (int r = 0; r < size; ++r) CHECK(mem[r] == 100 + r, "lock_all put: mem[%d] = %ld", r, mem[r]);
    MPI_Barrier(MPI_COMM_WORLD);
    /* shared locks: every rank reads every slot of its right neighbour */
    int t = (rank + 1) % size;
    long* got = calloc((size_t)size, sizeof(long));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    CHECK_MPI(MPI_Get(got, size, MPI_LONG, t, 0, size, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int r = 0; r < size; ++r) CHECK(got[r] == 100 + r, "shared get: got[%d] = %ld", r, got[r]);
    free(got);
    /* request-based operations under lock_all */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    MPI_Request reqs[3];
    long one = 1, prev = -1, rg = -1;
    CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win, &reqs[0]));
    CHECK_MPI(MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE));
    CHECK(reqs[0] == MPI_REQUEST_NULL, "Raccumulate request not freed");
    CHECK_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &prev, 1, MPI_LONG, t, t, 1, MPI_LONG, MPI_SUM, win, &reqs[0]));
    CHECK_MPI(MPI_Rput(&v, 1, MPI_LONG, rank, size, 1, MPI_LONG, win, &reqs[1]));
    CHECK_MPI(MPI_Rget(&rg, 1, MPI_LONG, t, size + 1, 1, MPI_LONG, win, &reqs[2]));
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    /* slot t of t is incremented by this rank only, except slot 0 of rank 0 (every rank adds 1) */
    if (t != 0) CHECK(prev == 100 + t, "Rget_accumulate fetched %ld, expected %ld", prev, 100L + t);
    else CHECK(prev >= 100 && prev <= 100 + size, "Rget_accumulate fetched %ld from rank 0", prev);
    CHECK(rg == 7, "Rget got %ld, expected 7", rg);
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mem[size] == 100 + rank, "Rput to self: %ld", mem[size]);
    long e = rank == 0 ? 101 + size : 101 + rank;
    CHECK(mem[rank] == e, "slot %d = %ld, expected %ld", rank, mem[rank], e);
    /* MPI_MODE_NOCHECK locks (no conflicting lock exists: each rank reads its own slot) */
    MPI_Barrier(MPI_COMM_WORLD);
    long self = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, MPI_MODE_NOCHECK, win));
    CHECK_MPI(MPI_Get(&self, 1, MPI_LONG, rank, size, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush_local(rank, win));
    CHECK(self == 100 + rank, "NOCHECK lock get: %ld", self);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_cas_mutex(void)
{
    /* a spin lock built from compare_and_swap on rank 0, protecting a plain get/put increment */
    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    mem[0] = 0; /* lock word */
    mem[1] = 0; /* counter */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    const int iters = 30;
    int me = rank + 1, zero = 0;
    for (int i = 0; i < iters; ++i) {
        int prev = -1;
        do {
            CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &prev, MPI_INT, 0, 0, win));
            CHECK_MPI(MPI_Win_flush(0, win));
        } while (prev != 0);
        int c = -1;
        CHECK_MPI(MPI_Get(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        ++c;
        CHECK_MPI(MPI_Put(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        int back = -1;
        CHECK_MPI(MPI_Fetch_and_op(&zero, &back, MPI_INT, 0, 0, MPI_REPLACE, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        CHECK(back == me, "the lock word held %d while rank %d owned it", back, rank);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(mem[1] == iters * size, "CAS-protected counter %d, expected %d", mem[1], iters * size);
    CHECK_MPI(MPI_Win_free(&win));
}

static void test_dynamic(void)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int* region = malloc(8 * sizeof(int));
    for (int i = 0; i < 8; ++i) region[i] = rank * 100 + i;
    CHECK_MPI(MPI_Win_attach(win, region, 8 * sizeof(int)));
    MPI_Aint addr;
    CHECK_MPI(MPI_Get_address(region, &addr));
    MPI_Aint* addrs = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int t = (rank + 1) % size;
    int got[8] = {0};
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    CHECK_MPI(MPI_Get(got, 8, MPI_INT, t, addrs[t], 8, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int i = 0; i < 8; ++i) CHECK(got[i] == t * 100 + i, "dynamic get: got[%d] = %d", i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    int val = -rank - 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(&val, 1, MPI_INT, t, addrs[t] + 7 * (MPI_Aint)sizeof(int), 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + size - 1) % size;
    CHECK(region[7] == -from - 1, "dynamic put: region[7] = %d, expected %d", region[7], -from - 1);
    /* out of the attached memory: reported by the target at the unlock */
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    CHECK_MPI(MPI_Get(got, 8, MPI_INT, t, addrs[t] + 4 * (MPI_Aint)sizeof(int), 8, MPI_INT, win));
    int rc = MPI_Win_unlock(t, win), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "out-of-region get at the target gave class %d, expected MPI_ERR_RMA_RANGE", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_detach(win, region));
    rc = MPI_Win_detach(win, region);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "second detach gave class %d", cls);
    CHECK_MPI(MPI_Win_free(&win));
    free(region);
    free(addrs);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_exclusive_counter();
    test_shared_and_lock_all();
    test_cas_mutex();
    test_dynamic();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
