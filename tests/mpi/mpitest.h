/* Shared helpers for the multi-process test programs in tests/mpi/.
 *
 * Usage:
 *   MPI_Init(&argc, &argv);
 *   mpitest_init();                       // remembers the world rank for messages
 *   CHECK(x == 3, "x is %d, expected 3", x);
 *   CHECK_MPI(MPI_Send(...));             // records a failure if the call does not return MPI_SUCCESS
 *   int rc = mpitest_finish();            // every rank calls it exactly once
 *   MPI_Finalize();
 *   return rc;
 *
 * CHECK never exits and never calls MPI: it counts the failure, prints it at once on stderr
 * ("[rank r] file:line: message") and keeps the first few messages. mpitest_finish() agrees on
 * the result once, with point-to-point only (no collectives): every rank sends its failure count
 * and first message to rank 0, rank 0 prints the details and PASS or FAIL, then sends the verdict
 * to every rank. All ranks return the same exit code (0 pass, 1 fail).
 *
 * Header-only, C99. Not thread-safe: threads keep their own counts and the main thread CHECKs.
 */
#ifndef BATON_TESTS_MPITEST_H
#define BATON_TESTS_MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPITEST_MSG_LEN 400

static int mpitest_rank_ = -1;
static int mpitest_failures_ = 0;
static char mpitest_first_msg_[MPITEST_MSG_LEN];

static inline void mpitest_init(void)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) {
        MPI_Comm_rank(MPI_COMM_WORLD, &mpitest_rank_);
    }
}

static inline int mpitest_failures(void) { return mpitest_failures_; }

static inline void mpitest_fail(const char* file, int line, const char* expr, const char* fmt, ...)
{
    char msg[MPITEST_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: %s\n", mpitest_rank_, file, line, expr, msg);
    fflush(stderr);
    if (mpitest_failures_ == 0) {
        /* truncation is fine; using the result keeps -Wformat-truncation quiet */
        if (snprintf(mpitest_first_msg_, sizeof mpitest_first_msg_, "%s:%d: CHECK(%s): %s", file,
                     line, expr, msg) < 0)
            mpitest_first_msg_[0] = '\0';
    }
    mpitest_failures_++;
}

/* CHECK(condition, printf-format, args...): at least the format string is required. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) mpitest_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                        \
    } while (0)

static inline void mpitest_check_mpi_(int rc, const char* file, int line, const char* call)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        s[0] = '\0';
        if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) s[0] = '\0';
        mpitest_fail(file, line, call, "returned %d (%s)", rc, s);
    }
}

/* CHECK_MPI(call): records a failure if the call does not return MPI_SUCCESS. */
#define CHECK_MPI(call) mpitest_check_mpi_((call), __FILE__, __LINE__, #call)

/* Checks the fields of a receive status; count is in units of dtype. */
#define CHECK_STATUS(st, src, tg, dtype, cnt)                                                      \
    mpitest_check_status_(&(st), (src), (tg), (dtype), (cnt), __FILE__, __LINE__)

static inline void mpitest_check_status_(const MPI_Status* st, int source, int tag, MPI_Datatype dtype,
                                  int count, const char* file, int line)
{
    int n = -12345;
    if (st->MPI_SOURCE != source)
        mpitest_fail(file, line, "status.MPI_SOURCE", "is %d, expected %d", st->MPI_SOURCE, source);
    if (st->MPI_TAG != tag)
        mpitest_fail(file, line, "status.MPI_TAG", "is %d, expected %d", st->MPI_TAG, tag);
    mpitest_check_mpi_(MPI_Get_count(st, dtype, &n), file, line, "MPI_Get_count");
    if (n != count) mpitest_fail(file, line, "MPI_Get_count", "is %d, expected %d", n, count);
}

/* Deterministic test data: value of element i for a given seed (fits in 31 bits). */
static inline uint32_t mpitest_value(size_t i, uint32_t seed)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0xBF58476D1CE4E5B9ull + 1;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (uint32_t)(x & 0x7fffffffu);
}

static inline void mpitest_fill_bytes(void* buf, size_t n, uint32_t seed)
{
    unsigned char* p = (unsigned char*)buf;
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)mpitest_value(i, seed);
}

/* Returns the index of the first wrong byte, or n if all match. */
static inline size_t mpitest_check_bytes(const void* buf, size_t n, uint32_t seed)
{
    const unsigned char* p = (const unsigned char*)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)mpitest_value(i, seed)) return i;
    return n;
}

static inline void* mpitest_malloc(size_t n)
{
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "[rank %d] out of memory allocating %zu bytes\n", mpitest_rank_, n);
        abort();
    }
    return p;
}

/* Baton's shared-memory segments of one kind ("coll": communicators' regions, "pers": persistent
 * collectives' regions) this process maps now: lines of /proc/self/maps naming
 * /dev/shm/baton.<job>.<kind>.<pid>.<random> (docs/architecture.md, "Shared-memory objects"). */
static inline int mpitest_shm_mappings(const char* kind)
{
    FILE* f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[512], part[32];
    snprintf(part, sizeof part, ".%s.", kind);
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "/dev/shm/baton.") && strstr(line, part)) ++n;
    fclose(f);
    return n;
}

/* Agrees on the result with point-to-point only. Every rank calls it exactly once, before
 * MPI_Finalize. Returns 0 if no rank recorded a failure, 1 otherwise. */
static inline int mpitest_finish(void)
{
    enum { TAG_COUNT = 32001, TAG_MSG = 32002, TAG_VERDICT = 32003 };
    MPI_Comm comm;
    int rank = 0, size = 1, total = mpitest_failures_;
    /* A private communicator: messages a test left unreceived on MPI_COMM_WORLD can't match. */
    if (MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] mpitest_finish: MPI_Comm_dup failed\n", mpitest_rank_);
        return 1;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        int* counts = (int*)mpitest_malloc(sizeof(int) * (size_t)size);
        char(*msgs)[MPITEST_MSG_LEN] = mpitest_malloc((size_t)size * MPITEST_MSG_LEN);
        counts[0] = mpitest_failures_;
        memcpy(msgs[0], mpitest_first_msg_, MPITEST_MSG_LEN);
        for (int r = 1; r < size; r++) {
            MPI_Recv(&counts[r], 1, MPI_INT, r, TAG_COUNT, comm, MPI_STATUS_IGNORE);
            MPI_Recv(msgs[r], MPITEST_MSG_LEN, MPI_CHAR, r, TAG_MSG, comm, MPI_STATUS_IGNORE);
            total += counts[r];
        }
        for (int r = 0; r < size; r++) {
            if (counts[r] > 0) {
                msgs[r][MPITEST_MSG_LEN - 1] = '\0';
                printf("rank %d: %d failure(s); first: %s\n", r, counts[r], msgs[r]);
            }
        }
        if (total == 0)
            printf("PASS (%d ranks)\n", size);
        else
            printf("FAIL: %d failure(s) over %d ranks\n", total, size);
        fflush(stdout);
        for (int r = 1; r < size; r++) MPI_Send(&total, 1, MPI_INT, r, TAG_VERDICT, comm);
        free(counts);
        free(msgs);
    } else {
        MPI_Send(&mpitest_failures_, 1, MPI_INT, 0, TAG_COUNT, comm);
        MPI_Send(mpitest_first_msg_, MPITEST_MSG_LEN, MPI_CHAR, 0, TAG_MSG, comm);
        MPI_Recv(&total, 1, MPI_INT, 0, TAG_VERDICT, comm, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&comm);
    return total == 0 ? 0 : 1;
}

#endif /* BATON_TESTS_MPITEST_H */
