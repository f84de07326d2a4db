/* Blocking MPI_Send/MPI_Recv of every predefined C datatype, with values written and checked:
 * counts 0, 1, small and medium for every type, 1 MB and 16 MB for a representative set (so both
 * eager and rendezvous paths run), and MPI_PROC_NULL as destination and source.
 *
 * Each rank sends to rank+1 and receives from rank-1 (a ring; even ranks send first, odd ranks
 * receive first, which cannot deadlock). With one rank the transfers are to self via Sendrecv.
 * The receive buffer is larger than the message: Get_count must equal the sent count and the bytes
 * past it must be untouched. */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

typedef void (*fill_fn)(void* buf, size_t n, uint32_t seed);
typedef size_t (*check_fn)(const void* buf, size_t n, uint32_t seed); /* first bad index, or n */

/* Scalar types: element i has value EXPR(v) where v = mpitest_value(i, seed). */
#define SCALAR_TYPE(NAME, T, EXPR)                                                                 \
    static void fill_##NAME(void* b, size_t n, uint32_t s)                                         \
    {                                                                                              \
        T* p = (T*)b;                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t v = mpitest_value(i, s);                                                      \
            p[i] = (T)(EXPR);                                                                      \
        }                                                                                          \
    }                                                                                              \
    static size_t check_##NAME(const void* b, size_t n, uint32_t s)                                \
    {                                                                                              \
        const T* p = (const T*)b;                                                                  \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t v = mpitest_value(i, s);                                                      \
            T e = (T)(EXPR);                                                                       \
            if (!(p[i] == e)) return i;                                                            \
        }                                                                                          \
        return n;                                                                                  \
    }

/* Pair types (MPI_FLOAT_INT ...): compared field by field, so padding bytes don't matter. */
#define PAIR_TYPE(NAME, T1, T2)                                                                    \
    struct NAME##_pair {                                                                           \
        T1 a;                                                                                      \
        T2 b;                                                                                      \
    };                                                                                             \
    static void fill_##NAME(void* buf, size_t n, uint32_t s)                                       \
    {                                                                                              \
        struct NAME##_pair* p = (struct NAME##_pair*)buf;                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t v = mpitest_value(i, s);                                                      \
            p[i].a = (T1)((v % 20000u) / 2);                                                       \
            p[i].b = (T2)(v >> 17);                                                                \
        }                                                                                          \
    }                                                                                              \
    static size_t check_##NAME(const void* buf, size_t n, uint32_t s)                              \
    {                                                                                              \
        const struct NAME##_pair* p = (const struct NAME##_pair*)buf;                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint32_t v = mpitest_value(i, s);                                                      \
            if (!(p[i].a == (T1)((v % 20000u) / 2) && p[i].b == (T2)(v >> 17))) return i;         \
        }                                                                                          \
        return n;                                                                                  \
    }

SCALAR_TYPE(char, char, v % 128)
SCALAR_TYPE(schar, signed char, (int)(v % 256) - 128)
SCALAR_TYPE(uchar, unsigned char, v)
SCALAR_TYPE(wchar, wchar_t, v % 0xD000)
SCALAR_TYPE(short, short, (int)(v % 65536) - 32768)
SCALAR_TYPE(ushort, unsigned short, v)
SCALAR_TYPE(int, int, (int)v - 0x40000000)
SCALAR_TYPE(uint, unsigned, v * 3u)
SCALAR_TYPE(long, long, (long)v * -977L)
SCALAR_TYPE(ulong, unsigned long, (unsigned long)v * 1000003ul)
SCALAR_TYPE(llong, long long, (long long)v * -1000000007LL)
SCALAR_TYPE(ullong, unsigned long long, (unsigned long long)v << 33 | v)
SCALAR_TYPE(float, float, (float)(v % 1000000u) / 4.0f - 1000.0f)
SCALAR_TYPE(double, double, (double)v / 8.0 - 1.0e6)
SCALAR_TYPE(ldouble, long double, (long double)v / 16.0L + 0.0625L)
SCALAR_TYPE(bool, bool, (v & 4u) != 0)
SCALAR_TYPE(i8, int8_t, (int)(v % 256) - 128)
SCALAR_TYPE(i16, int16_t, (int)(v % 65536) - 32768)
SCALAR_TYPE(i32, int32_t, (int32_t)v - 0x40000000)
SCALAR_TYPE(i64, int64_t, (int64_t)v * -1000000007LL)
SCALAR_TYPE(u8, uint8_t, v)
SCALAR_TYPE(u16, uint16_t, v)
SCALAR_TYPE(u32, uint32_t, v * 7u)
SCALAR_TYPE(u64, uint64_t, (uint64_t)v << 31 | v)
SCALAR_TYPE(fcomplex, float _Complex, (float)(v % 1000u) + (float)(v % 777u) * I)
SCALAR_TYPE(dcomplex, double _Complex, (double)v / 4.0 - (double)(v % 12345u) * I)
SCALAR_TYPE(ldcomplex, long double _Complex, (long double)v / 2.0L + (long double)(v % 99u) * I)
SCALAR_TYPE(aint, MPI_Aint, (MPI_Aint)v * 65537)
SCALAR_TYPE(offset, MPI_Offset, (MPI_Offset)v * -4099)
SCALAR_TYPE(count, MPI_Count, (MPI_Count)v * 4097)
PAIR_TYPE(float_int, float, int)
PAIR_TYPE(double_int, double, int)
PAIR_TYPE(long_int, long, int)
PAIR_TYPE(two_int, int, int)
PAIR_TYPE(short_int, short, int)
PAIR_TYPE(ldouble_int, long double, int)

struct type_case {
    const char* name;
    MPI_Datatype dtype;
    size_t size; /* sizeof the C element (extent) */
    int elements; /* basic elements per item, for MPI_Get_elements */
    fill_fn fill;
    check_fn check;
    int large; /* 1: also run a 1 MB transfer, 2: 1 MB and 16 MB */
};

#define TC(MPINAME, NAME, CTYPE, NELEM, LARGE)                                                     \
    t[n].name = #MPINAME;                                                                          \
    t[n].dtype = MPINAME;                                                                          \
    t[n].size = sizeof(CTYPE);                                                                     \
    t[n].elements = NELEM;                                                                         \
    t[n].fill = fill_##NAME;                                                                       \
    t[n].check = check_##NAME;                                                                     \
    t[n].large = LARGE;                                                                            \
    n++;

static int make_cases(struct type_case* t)
{
    int n = 0;
    TC(MPI_CHAR, char, char, 1, 0)
    TC(MPI_SIGNED_CHAR, schar, signed char, 1, 0)
    TC(MPI_UNSIGNED_CHAR, uchar, unsigned char, 1, 0)
    TC(MPI_BYTE, uchar, unsigned char, 1, 2)
    TC(MPI_PACKED, uchar, unsigned char, 1, 0)
    TC(MPI_WCHAR, wchar, wchar_t, 1, 0)
    TC(MPI_SHORT, short, short, 1, 0)
    TC(MPI_UNSIGNED_SHORT, ushort, unsigned short, 1, 0)
    TC(MPI_INT, int, int, 1, 1)
    TC(MPI_UNSIGNED, uint, unsigned, 1, 0)
    TC(MPI_LONG, long, long, 1, 0)
    TC(MPI_UNSIGNED_LONG, ulong, unsigned long, 1, 0)
    TC(MPI_LONG_LONG_INT, llong, long long, 1, 0)
    TC(MPI_LONG_LONG, llong, long long, 1, 0)
    TC(MPI_UNSIGNED_LONG_LONG, ullong, unsigned long long, 1, 0)
    TC(MPI_FLOAT, float, float, 1, 0)
    TC(MPI_DOUBLE, double, double, 1, 2)
    TC(MPI_LONG_DOUBLE, ldouble, long double, 1, 1)
    TC(MPI_C_BOOL, bool, bool, 1, 0)
    TC(MPI_INT8_T, i8, int8_t, 1, 0)
    TC(MPI_INT16_T, i16, int16_t, 1, 0)
    TC(MPI_INT32_T, i32, int32_t, 1, 0)
    TC(MPI_INT64_T, i64, int64_t, 1, 0)
    TC(MPI_UINT8_T, u8, uint8_t, 1, 0)
    TC(MPI_UINT16_T, u16, uint16_t, 1, 0)
    TC(MPI_UINT32_T, u32, uint32_t, 1, 0)
    TC(MPI_UINT64_T, u64, uint64_t, 1, 0)
    TC(MPI_C_COMPLEX, fcomplex, float _Complex, 1, 0)
    TC(MPI_C_FLOAT_COMPLEX, fcomplex, float _Complex, 1, 0)
    TC(MPI_C_DOUBLE_COMPLEX, dcomplex, double _Complex, 1, 1)
    TC(MPI_C_LONG_DOUBLE_COMPLEX, ldcomplex, long double _Complex, 1, 0)
    TC(MPI_AINT, aint, MPI_Aint, 1, 0)
    TC(MPI_OFFSET, offset, MPI_Offset, 1, 0)
    TC(MPI_COUNT, count, MPI_Count, 1, 0)
    TC(MPI_FLOAT_INT, float_int, struct float_int_pair, 2, 0)
    TC(MPI_DOUBLE_INT, double_int, struct double_int_pair, 2, 1)
    TC(MPI_LONG_INT, long_int, struct long_int_pair, 2, 0)
    TC(MPI_2INT, two_int, struct two_int_pair, 2, 0)
    TC(MPI_SHORT_INT, short_int, struct short_int_pair, 2, 0)
    TC(MPI_LONG_DOUBLE_INT, ldouble_int, struct ldouble_int_pair, 2, 0)
    return n;
}

#define MAX_CASES 48
#define SLACK 3 /* extra receive elements that must stay untouched */
#define GUARD 0xA5

static int rank, size;

/* Checks a received message: status, element count, data and the guard bytes after it. */
static void check_received(const struct type_case* tc, int count, int tag, const void* rbuf,
                           const MPI_Status* st)
{
    int prev = (rank + size - 1) % size;
    CHECK_STATUS(*st, prev, tag, tc->dtype, count);
    /* Pair types are left out: MPICH 4.0.2 divides by zero in Get_elements for them and Open MPI
     * 4.1 counts one element per pair where the standard's basic elements would be two. */
    if (tc->elements == 1) {
        int elements = -1;
        CHECK_MPI(MPI_Get_elements(st, tc->dtype, &elements));
        CHECK(elements == count, "%s count %d: Get_elements %d", tc->name, count, elements);
    }
    size_t bad = tc->check(rbuf, (size_t)count, (uint32_t)(prev * 1000 + tag));
    CHECK(bad == (size_t)count, "%s count %d: element %zu differs", tc->name, count, bad);
    const unsigned char* tail = (const unsigned char*)rbuf + tc->size * (size_t)count;
    for (size_t i = 0; i < tc->size * SLACK; i++) {
        if (tail[i] != GUARD) {
            CHECK(0, "%s count %d: byte %zu past the message was overwritten", tc->name, count, i);
            break;
        }
    }
}

/* Sends each count in turn to rank+1 and receives each from rank-1, message k with tag tag0+k.
 * Even ranks send all then receive all, odd ranks the reverse; every blocking send meets a
 * receive that is (or will be) posted in the same order, so this cannot deadlock. */
static void ring_transfers(const struct type_case* tc, const int* counts, int ncounts, int tag0,
                           void* sbuf, void* rbuf)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    for (int phase = 0; phase < 2; phase++) {
        int sending = (phase == 0) == (rank % 2 == 0);
        for (int k = 0; k < ncounts; k++) {
            int count = counts[k], tag = tag0 + k;
            if (size == 1) {
                if (phase == 1) break;
                tc->fill(sbuf, (size_t)count, (uint32_t)(rank * 1000 + tag));
                memset(rbuf, GUARD, tc->size * (size_t)(count + SLACK));
                CHECK_MPI(MPI_Sendrecv(sbuf, count, tc->dtype, 0, tag, rbuf, count + SLACK,
                                       tc->dtype, 0, tag, MPI_COMM_WORLD, &st));
                check_received(tc, count, tag, rbuf, &st);
            } else if (sending) {
                tc->fill(sbuf, (size_t)count, (uint32_t)(rank * 1000 + tag));
                CHECK_MPI(MPI_Send(sbuf, count, tc->dtype, next, tag, MPI_COMM_WORLD));
            } else {
                memset(rbuf, GUARD, tc->size * (size_t)(count + SLACK));
                CHECK_MPI(MPI_Recv(rbuf, count + SLACK, tc->dtype, prev, tag, MPI_COMM_WORLD, &st));
                check_received(tc, count, tag, rbuf, &st);
            }
        }
    }
}

static void test_proc_null(void)
{
    int buf[4] = {1, 2, 3, 4};
    MPI_Status st;
    CHECK_MPI(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
    CHECK(buf[0] == 1 && buf[3] == 4, "receive from MPI_PROC_NULL modified the buffer");
    /* any tag and a zero-byte receive */
    st.MPI_SOURCE = 77;
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0);
    int n = -1;
    CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &n));
    CHECK(n == 0, "Get_elements after PROC_NULL receive is %d", n);
    /* MPI_STATUS_IGNORE is accepted */
    CHECK_MPI(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct type_case cases[MAX_CASES];
    int ncases = make_cases(cases);

    const size_t big = 16u << 20;
    void* sbuf = mpitest_malloc(big + 64 * SLACK);
    void* rbuf = mpitest_malloc(big + 64 * SLACK);

    test_proc_null();

    int tag = 0;
    for (int c = 0; c < ncases; c++) {
        const struct type_case* tc = &cases[c];
        int counts[16], n = 0;
        counts[n++] = 0;
        counts[n++] = 1;
        counts[n++] = 2;
        counts[n++] = 7;
        counts[n++] = 100;
        counts[n++] = (int)(4096 / tc->size);
        counts[n++] = (int)(65536 / tc->size);
        if (tc->large) counts[n++] = (int)((1u << 20) / tc->size);
        if (tc->large > 1) counts[n++] = (int)(big / tc->size);
        ring_transfers(tc, counts, n, tag, sbuf, rbuf);
        tag += n;
    }
    /* a message whose size is not a multiple of the page or of common eager limits */
    int odd = (1 << 20) + 13;
    ring_transfers(&cases[3], &odd, 1, tag, sbuf, rbuf);

    test_proc_null();

    free(sbuf);
    free(rbuf);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
