/* Messages above 2 GiB between two ranks (2200 MiB buffers): MPI_Send_c / MPI_Recv_c of MPI_BYTE
 * with a count above INT_MAX, then one element of a contiguous derived type whose size exceeds
 * 2 GiB, received as that type and as its basic elements, then an Isend_c / Irecv_c pair;
 * MPI_Get_count(_c) / MPI_Get_elements(_c) / MPI_Type_size(_c) checked (the int forms must say
 * MPI_UNDEFINED). Every byte is checked. Run once through the default rendezvous path and once
 * with the single-copy (process_vm_readv) path. Rank pairs beyond the first two only take part in
 * the final verdict. */
#include <limits.h>
#include <sys/mman.h>

#include "mpitest.h"

#define N_BYTES ((MPI_Count)2200 * 1024 * 1024)
#define N_WORDS (N_BYTES / 8)

/* The fill and check loops touch only this program's own buffer: left uninstrumented under ASan,
 * where the checks on their 2.2 GiB passes were most of the run (the library's copies stay checked). */
#if defined(__SANITIZE_ADDRESS__)
#define OWN_LOOP __attribute__((no_sanitize_address))
#else
#define OWN_LOOP
#endif

OWN_LOOP static void fill(uint64_t* w, MPI_Count n, uint64_t seed)
{
    for (MPI_Count i = 0; i < n; ++i) w[i] = ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ seed;
}

/* Index of the first wrong word, or -1. */
OWN_LOOP static MPI_Count check(const uint64_t* w, MPI_Count n, uint64_t seed)
{
    for (MPI_Count i = 0; i < n; ++i)
        if (w[i] != (((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ seed)) return i;
    return -1;
}

int main(int argc, char** argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 2 && size >= 2) {
        /* Transparent huge pages where the kernel offers them (madvise mode): 2 MiB pages cut the
         * page faults of first touch and the page walks of the single-copy path ~500-fold. */
        uint64_t* buf = mmap(NULL, (size_t)N_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
            fprintf(stderr, "[rank %d] mmap of %lld bytes failed\n", rank, (long long)N_BYTES);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        (void)madvise(buf, (size_t)N_BYTES, MADV_HUGEPAGE);
        MPI_Status st;
        MPI_Count cnt = -1;
        int icnt = 0;

        /* 1. bytes, count > INT_MAX */
        if (rank == 0) {
            fill(buf, N_WORDS, 1);
            CHECK_MPI(MPI_Send_c(buf, N_BYTES, MPI_BYTE, 1, 10, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv_c(buf, N_BYTES, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &cnt));
            CHECK(cnt == N_BYTES, "Get_count_c gave %lld", (long long)cnt);
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &icnt));
            CHECK(icnt == MPI_UNDEFINED, "Get_count (int) of %lld bytes gave %d", (long long)N_BYTES, icnt);
            CHECK_MPI(MPI_Get_elements_c(&st, MPI_BYTE, &cnt));
            CHECK(cnt == N_BYTES, "Get_elements_c gave %lld", (long long)cnt);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 10, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
            MPI_Count bad = check(buf, N_WORDS, 1);
            CHECK(bad < 0, "bytes: word %lld wrong", (long long)bad);
        }

        /* 2. one element of a contiguous type larger than 2 GiB */
        MPI_Datatype big;
        CHECK_MPI(MPI_Type_contiguous_c(N_WORDS, MPI_INT64_T, &big));
        CHECK_MPI(MPI_Type_commit(&big));
        MPI_Count tsz = 0;
        int itsz = 0;
        CHECK_MPI(MPI_Type_size_c(big, &tsz));
        CHECK(tsz == N_BYTES, "Type_size_c gave %lld", (long long)tsz);
        CHECK_MPI(MPI_Type_size(big, &itsz));
        CHECK(itsz == MPI_UNDEFINED, "Type_size (int) gave %d", itsz);
        if (rank == 0) {
            fill(buf, N_WORDS, 2);
            CHECK_MPI(MPI_Send(buf, 1, big, 1, 11, MPI_COMM_WORLD));
            fill(buf, N_WORDS, 3);
            CHECK_MPI(MPI_Send(buf, 1, big, 1, 12, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv(buf, 1, big, 0, 11, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Get_count_c(&st, big, &cnt));
            CHECK(cnt == 1, "Get_count_c (big type) gave %lld", (long long)cnt);
            CHECK_MPI(MPI_Get_count(&st, big, &icnt));
            CHECK(icnt == 1, "Get_count (big type) gave %d", icnt);
            CHECK_MPI(MPI_Get_elements_c(&st, big, &cnt));
            CHECK(cnt == N_WORDS, "Get_elements_c (big type) gave %lld", (long long)cnt);
            CHECK_MPI(MPI_Get_elements(&st, big, &icnt));
            CHECK(icnt == (N_WORDS > INT_MAX ? MPI_UNDEFINED : (int)N_WORDS), "Get_elements (big type) gave %d", icnt);
            MPI_Count bad = check(buf, N_WORDS, 2);
            CHECK(bad < 0, "big type: word %lld wrong", (long long)bad);
            /* the same message shape received as basic elements */
            CHECK_MPI(MPI_Recv_c(buf, N_WORDS, MPI_INT64_T, 0, 12, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Get_count_c(&st, MPI_INT64_T, &cnt));
            CHECK(cnt == N_WORDS, "Get_count_c (int64 elements) gave %lld", (long long)cnt);
            CHECK_MPI(MPI_Get_count_c(&st, big, &cnt));
            CHECK(cnt == 1, "Get_count_c of the elements message as the big type gave %lld", (long long)cnt);
            bad = check(buf, N_WORDS, 3);
            CHECK(bad < 0, "as elements: word %lld wrong", (long long)bad);
        }
        CHECK_MPI(MPI_Type_free(&big));

        /* 3. nonblocking, the other direction */
        MPI_Request rq;
        if (rank == 1) {
            fill(buf, N_WORDS, 4);
            CHECK_MPI(MPI_Isend_c(buf, N_BYTES, MPI_BYTE, 0, 13, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Irecv_c(buf, N_BYTES, MPI_BYTE, 1, 13, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Wait(&rq, &st));
            CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &cnt));
            CHECK(cnt == N_BYTES, "Irecv_c: Get_count_c gave %lld", (long long)cnt);
            MPI_Count bad = check(buf, N_WORDS, 4);
            CHECK(bad < 0, "Irecv_c: word %lld wrong", (long long)bad);
        }
        munmap(buf, (size_t)N_BYTES);
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
