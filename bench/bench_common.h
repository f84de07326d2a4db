/* bench_common.h - helpers shared by the Baton benchmark programs.
 *
 * Plain C11 over the standard MPI API only: every benchmark is compiled once
 * per library with that library's mpicc, so nothing here may depend on Baton.
 *
 * Output contract (parsed by bench/driver.py): one line per measurement,
 *
 *     RESULT <bench> <size-in-bytes> <value> <unit>
 *
 * printed by rank 0 only.  A benchmark may print the same size in several
 * units (bandwidth prints MB/s and GB/s); the driver picks the unit named in
 * its registry.  Any other output is ignored by the driver and kept in the log.
 *
 * Command-line options understood by every benchmark (bench_parse_args):
 *     --quick          fewer iterations and samples (smoke runs, CI)
 *     --max-size N     largest message size in bytes (default 4 MiB)
 *     --samples N      timed batches per size; rank 0 reports their median
 *
 * Iteration counts: a byte budget per batch gives the count on a quiet
 * machine; bench_agree_iters then cuts it so one batch lasts about
 * batch_seconds at the pace seen in the warm-up (itself capped at two batch
 * lengths), which keeps a run short when the machine is loaded (busy-polling
 * ranks time-slicing a core can take milliseconds per message).
 */
#ifndef BATON_BENCH_COMMON_H
#define BATON_BENCH_COMMON_H

/* Include this header first: posix_memalign needs POSIX before any system header. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

/* GCC (12+) misreads MPI_STATUSES_IGNORE, a sentinel pointer in MPICH's mpi.h,
 * as a zero-sized array and warns at every MPI_Waitall; it is a false alarm. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define BENCH_MAX_SIZE_DEFAULT ((size_t)4 << 20)
#define BENCH_MAX_SAMPLES 64

typedef struct bench_opts {
    int quick;       /* 1 with --quick */
    size_t max_size; /* largest message size, bytes */
    int samples;     /* timed batches per size */
    double batch_seconds; /* a timed batch is cut to about this long */
} bench_opts;

/* Abort the whole job with a message if an MPI call failed.  MPI's default
 * handler (MPI_ERRORS_ARE_FATAL) normally fires first; this keeps every return
 * code looked at and names the call when a library returns instead. */
static inline void bench_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) {
            snprintf(msg, sizeof msg, "error code %d", rc);
        }
        fprintf(stderr, "BENCH ERROR: %s failed: %s\n", what, msg);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Stop the job: used for usage errors and data-validation failures. */
static inline void bench_fail(const char *bench, const char *why)
{
    fprintf(stderr, "BENCH ERROR: %s: %s\n", bench, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Harness synchronisation uses point-to-point only, so the point-to-point
 * benchmarks run on a library that has no collectives yet.  Linear through
 * rank 0 on a tag of its own; cheap at the few ranks benchmarks use. */
enum { bench_tag_sync = 32001, bench_tag_value = 32002 };

/* Barrier: everyone reports to rank 0, rank 0 releases everyone. */
static inline void bench_sync(void)
{
    int rank = 0;
    int nranks = 0;
    char token = 0;
    bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
    if (rank == 0) {
        for (int r = 1; r < nranks; ++r) {
            bench_check(MPI_Recv(&token, 0, MPI_CHAR, r, bench_tag_sync, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE),
                        "MPI_Recv");
        }
        for (int r = 1; r < nranks; ++r) {
            bench_check(MPI_Send(&token, 0, MPI_CHAR, r, bench_tag_sync, MPI_COMM_WORLD),
                        "MPI_Send");
        }
    } else {
        bench_check(MPI_Send(&token, 0, MPI_CHAR, 0, bench_tag_sync, MPI_COMM_WORLD), "MPI_Send");
        bench_check(MPI_Recv(&token, 0, MPI_CHAR, 0, bench_tag_sync, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE),
                    "MPI_Recv");
    }
}

/* Broadcast of one long from rank 0. */
static inline void bench_share_long(long *value)
{
    int rank = 0;
    int nranks = 0;
    bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
    if (rank == 0) {
        for (int r = 1; r < nranks; ++r) {
            bench_check(MPI_Send(value, 1, MPI_LONG, r, bench_tag_value, MPI_COMM_WORLD),
                        "MPI_Send");
        }
    } else {
        bench_check(MPI_Recv(value, 1, MPI_LONG, 0, bench_tag_value, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE),
                    "MPI_Recv");
    }
}

static inline void bench_parse_args(int argc, char **argv, bench_opts *opts)
{
    opts->quick = 0;
    opts->max_size = BENCH_MAX_SIZE_DEFAULT;
    opts->samples = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            opts->quick = 1;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
            opts->max_size = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            opts->samples = atoi(argv[++i]);
        } else {
            bench_fail(argv[0], "usage: [--quick] [--max-size BYTES] [--samples N]");
        }
    }
    if (opts->samples <= 0) {
        opts->samples = opts->quick ? 3 : 5;
    }
    if (opts->samples > BENCH_MAX_SAMPLES) {
        opts->samples = BENCH_MAX_SAMPLES;
    }
    opts->batch_seconds = opts->quick ? 0.01 : 0.05;
}

/* Message sizes: optionally 0, then 1, 2, 4, ... up to max_size (8 B is in
 * the list as a power of two).  Returns how many were written (<= cap). */
static inline int bench_sizes(size_t max_size, int with_zero, size_t *out, int cap)
{
    int n = 0;
    if (with_zero && n < cap) {
        out[n++] = 0;
    }
    for (size_t s = 1; s <= max_size && n < cap; s *= 2) {
        out[n++] = s;
    }
    return n;
}

/* Iterations for one timed batch: about budget_bytes of payload, clamped. */
static inline long bench_iters(size_t bytes_per_iter, size_t budget_bytes, long min_iters,
                               long max_iters)
{
    long iters = bytes_per_iter == 0 ? max_iters : (long)(budget_bytes / bytes_per_iter);
    if (iters < min_iters) {
        iters = min_iters;
    }
    if (iters > max_iters) {
        iters = max_iters;
    }
    return iters;
}

/* Warm-up: run step(ctx) in doubling chunks until max_iters ran or
 * max_seconds passed on rank 0 (rank 0 decides after each chunk and
 * broadcasts, so every rank runs the same count).  Returns rank 0's seconds
 * per step, the pace bench_agree_iters sizes the timed batches with. */
static inline double bench_warmup(void (*step)(void *), void *ctx, long max_iters,
                                  double max_seconds)
{
    long done = 0;
    long chunk = 1;
    long more = 1;
    const double t0 = MPI_Wtime();
    double elapsed = 0.0;
    while (more) {
        for (long i = 0; i < chunk; ++i) {
            step(ctx);
        }
        done += chunk;
        elapsed = MPI_Wtime() - t0;
        more = done < max_iters && elapsed < max_seconds;
        bench_share_long(&more);
        chunk = 2 * chunk < max_iters - done ? 2 * chunk : max_iters - done;
    }
    return elapsed / (double)done;
}

/* Timed-batch iteration count, the same on every rank: the budget's count,
 * lowered so a batch takes about batch_seconds at seconds_per_iter (rank 0's
 * warm-up pace), never below min_iters.  Rank 0 decides and broadcasts. */
static inline long bench_agree_iters(long budget_iters, long min_iters, double seconds_per_iter,
                                     double batch_seconds)
{
    long iters = budget_iters;
    if (seconds_per_iter > 0.0 && batch_seconds / seconds_per_iter < (double)iters) {
        iters = (long)(batch_seconds / seconds_per_iter);
    }
    if (iters < min_iters) {
        iters = min_iters;
    }
    bench_share_long(&iters);
    return iters;
}

/* CLOCK_MONOTONIC in microseconds: the same clock in every process of a machine (pingpong_wake
 * compares stamps taken by two ranks). */
static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n values; sorts v in place.  Even n: mean of the middle two. */
static inline double bench_median(double *v, int n)
{
    if (n <= 0) {
        return 0.0;
    }
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline void bench_result(const char *bench, size_t size, double value, const char *unit)
{
    printf("RESULT %s %zu %.6g %s\n", bench, size, value, unit);
    fflush(stdout);
}

/* Page-aligned buffer, touched so first-use page faults stay out of timings. */
static inline char *bench_alloc(const char *bench, size_t bytes)
{
    void *p = NULL;
    size_t n = bytes == 0 ? 1 : bytes;
    if (posix_memalign(&p, 4096, n) != 0 || p == NULL) {
        bench_fail(bench, "out of memory");
    }
    memset(p, 0, n);
    return (char *)p;
}

/* Deterministic pattern so a receiver can validate what arrived. */
static inline unsigned char bench_pattern(size_t i, size_t size, int salt)
{
    return (unsigned char)((i * 131u + size + (size_t)salt * 7u) & 0xffu);
}

static inline void bench_fill(char *buf, size_t n, size_t size, int salt)
{
    for (size_t i = 0; i < n; ++i) {
        buf[i] = (char)bench_pattern(i, size, salt);
    }
}

/* Returns 1 if buf holds the pattern written by bench_fill. */
static inline int bench_verify(const char *buf, size_t n, size_t size, int salt)
{
    for (size_t i = 0; i < n; ++i) {
        if ((unsigned char)buf[i] != bench_pattern(i, size, salt)) {
            return 0;
        }
    }
    return 1;
}

#endif /* BATON_BENCH_COMMON_H */
