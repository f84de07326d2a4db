/* coll_overlap.c - how much of a nonblocking collective overlaps with work,
 * measured as IMB-NBC does.
 *
 * For MPI_Iallreduce (sum of doubles), MPI_Ibcast (from rank 0) and
 * MPI_Ialltoall (the size is the block per peer) at 64 KiB and 1 MiB:
 *
 *     t_pure  I-call + MPI_Wait
 *     t_cpu   the work alone, calibrated to take about t_pure
 *     t_ovrl  I-call, the work, MPI_Wait
 *     overlap = 100 * (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu), clamped to [0, 100]
 *
 * 100 % means the collective ran entirely behind the work; 0 % means the work
 * and the collective simply added up (nothing progressed until MPI_Wait).
 *
 * Two kinds of work:
 *     busy  a floating-point loop (the result is stored to a volatile, so the
 *           compiler cannot drop it): the application computes on the CPU
 *     idle  nanosleep for t_cpu: the application waits without using the CPU
 *           (on a GPU kernel, a file, another process)
 *
 * Every time is a per-rank mean over a batch of `iters` calls, reduced with
 * MAX over ranks (the slowest rank decides).  Each of the `samples` rounds
 * runs a t_pure batch, then for each kind a t_cpu and a t_ovrl batch, and
 * computes its overlap from those; rank 0 prints the median over rounds:
 *
 *     RESULT coll_overlap/<op>.<kind> <size> <percent> pct
 *
 * and, for the log (the driver's table uses pct only), the medians of the
 * times:
 *
 *     RESULT coll_overlap/<op>.<kind>.<t_pure|t_cpu|t_ovrl> <size> <us> us
 *
 * Idle-work calibration: nanosleep oversleeps by the thread's timer slack (50 µs by
 * default on Linux) plus the wake-up latency, which made a 64 KiB collective's
 * "t_cpu ~ t_pure" of 8 µs a 66 µs sleep, and the overlap a difference of two
 * noisy 66 µs batches divided by 8.  The main thread therefore asks for a 1 ns
 * timer slack (after MPI_Init: threads a library starts keep their own), and
 * sleeps for t_pure less the measured oversleep, so that t_cpu ~ t_pure as
 * IMB-NBC prescribes.  Same for every library measured.
 *
 * Busy-work calibration: each rank times its loop (best of several runs) and
 * sizes it to the agreed t_pure (the maximum over ranks of the warm-up
 * estimate), so t_cpu ~ t_pure as IMB-NBC prescribes; t_cpu is then measured,
 * not assumed.
 */
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "bench_common.h"

static const char* const bench_name = "coll_overlap";

enum op_kind { op_iallreduce, op_ibcast, op_ialltoall, op_count };
static const char* const op_names[op_count] = {"iallreduce", "ibcast", "ialltoall"};

enum work_kind { work_busy, work_idle, work_count };
static const char* const work_names[work_count] = {"busy", "idle"};

typedef struct ctx {
  enum op_kind op;
  size_t size;
  char* sbuf;
  char* rbuf;
  long busy_units; /* loop iterations of the busy work */
  double idle_us;  /* nanosleep length of the idle work */
} ctx;

static volatile double busy_sink;

/* A dependent floating-point chain: cannot be vectorised away or removed. */
static void busy_work(long units) {
  double x = busy_sink + 1.0;
  for (long i = 0; i < units; ++i) {
    x = x * 1.0000001 + 1e-9;
  }
  busy_sink = x;
}

static void idle_work(double us) {
  if (us <= 0.0) {
    return;
  }
  struct timespec ts;
  ts.tv_sec = (time_t)(us / 1e6);
  ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void do_work(const ctx* c, enum work_kind w) {
  if (w == work_busy) {
    busy_work(c->busy_units);
  } else {
    idle_work(c->idle_us);
  }
}

static void start(const ctx* c, MPI_Request* req) {
  const int nbytes = (int)c->size;
  switch (c->op) {
    case op_iallreduce:
      bench_check(
          MPI_Iallreduce(c->sbuf, c->rbuf, (int)(c->size / sizeof(double)), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req),
          "MPI_Iallreduce");
      break;
    case op_ibcast:
      bench_check(MPI_Ibcast(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD, req), "MPI_Ibcast");
      break;
    case op_ialltoall:
      bench_check(MPI_Ialltoall(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD, req),
                  "MPI_Ialltoall");
      break;
    default:
      break;
  }
}

static void finish(MPI_Request* req) {
  bench_check(MPI_Wait(req, MPI_STATUS_IGNORE), "MPI_Wait");
}

static void pure_step(void* p) {
  MPI_Request req = MPI_REQUEST_NULL;
  start(p, &req);
  finish(&req);
}

/* Per-rank mean seconds over iters, MAX over ranks; all ranks get it. */
static double slowest(double mine) {
  double worst = 0.0;
  bench_check(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return worst;
}

static double time_pure(const ctx* c, long iters) {
  bench_sync();
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    MPI_Request req = MPI_REQUEST_NULL;
    start(c, &req);
    finish(&req);
  }
  return slowest((MPI_Wtime() - t0) / (double)iters);
}

static double time_cpu(const ctx* c, enum work_kind w, long iters) {
  bench_sync();
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    do_work(c, w);
  }
  return slowest((MPI_Wtime() - t0) / (double)iters);
}

static double time_ovrl(const ctx* c, enum work_kind w, long iters) {
  bench_sync();
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    MPI_Request req = MPI_REQUEST_NULL;
    start(c, &req);
    do_work(c, w);
    finish(&req);
  }
  return slowest((MPI_Wtime() - t0) / (double)iters);
}

/* Seconds per busy-loop unit on this rank: best of a few timed runs. */
static double busy_seconds_per_unit(void) {
  const long units = 200000;
  double best = 1e30;
  busy_work(units); /* warm */
  for (int k = 0; k < 5; ++k) {
    const double t0 = MPI_Wtime();
    busy_work(units);
    const double t = MPI_Wtime() - t0;
    if (t > 0.0 && t < best) {
      best = t;
    }
  }
  return best / (double)units;
}

/* The start-up rate is a best case; at this length (cache, frequency, other
 * work on the core) the loop may run slower.  Two corrections from the median
 * of three timed runs bring t_cpu close to t_target on this rank. */
static void recalibrate(ctx* c, double t_target) {
  for (int round = 0; round < 2 && c->busy_units > 0; ++round) {
    double d[3];
    for (int k = 0; k < 3; ++k) {
      const double t0 = MPI_Wtime();
      busy_work(c->busy_units);
      d[k] = MPI_Wtime() - t0;
    }
    const double m = bench_median(d, 3);
    if (m > 0.0) {
      c->busy_units = (long)((double)c->busy_units * (t_target / m));
    }
  }
  if (c->busy_units < 1) {
    c->busy_units = 1;
  }
}

static double overlap_pct(double t_pure, double t_cpu, double t_ovrl) {
  const double lo = t_pure < t_cpu ? t_pure : t_cpu;
  if (lo <= 0.0) {
    return 0.0;
  }
  double pct = 100.0 * (t_pure + t_cpu - t_ovrl) / lo;
  if (pct < 0.0) {
    pct = 0.0;
  }
  if (pct > 100.0) {
    pct = 100.0;
  }
  return pct;
}

/* Validation: one start/finish on known data, checked on every rank. */
static void validate(int rank, int nranks, const ctx* c) {
  const size_t nd = c->size / sizeof(double);
  double* sd = (double*)(void*)c->sbuf;
  double* rd = (double*)(void*)c->rbuf;
  int ok = 1;
  if (c->op == op_iallreduce) {
    for (size_t i = 0; i < nd; ++i) {
      sd[i] = (double)(rank + 1 + (int)(i % 5));
      rd[i] = -1.0;
    }
  } else if (c->op == op_ibcast) {
    if (rank == 0) {
      bench_fill(c->rbuf, c->size, c->size, 2);
    } else {
      memset(c->rbuf, 0, c->size);
    }
  } else {
    for (int p = 0; p < nranks; ++p) {
      bench_fill(c->sbuf + (size_t)p * c->size, c->size, c->size, rank * nranks + p);
    }
    memset(c->rbuf, 0, c->size * (size_t)nranks);
  }
  pure_step((void*)c);
  if (c->op == op_iallreduce) {
    for (size_t i = 0; i < nd && ok; ++i) {
      double want = 0.0;
      for (int r = 0; r < nranks; ++r) {
        want += (double)(r + 1 + (int)(i % 5));
      }
      ok = rd[i] == want;
    }
  } else if (c->op == op_ibcast) {
    ok = bench_verify(c->rbuf, c->size, c->size, 2);
  } else {
    for (int s = 0; s < nranks && ok; ++s) {
      ok = bench_verify(c->rbuf + (size_t)s * c->size, c->size, c->size, s * nranks + rank);
    }
  }
  if (!ok) {
    char why[128];
    snprintf(why, sizeof why, "rank %d: %s got wrong data at size %zu", rank, op_names[c->op], c->size);
    bench_fail(bench_name, why);
  }
}

static void report(const char* op, const char* kind, const char* what, size_t size, double v, const char* unit) {
  char tag[96];
  if (what) {
    snprintf(tag, sizeof tag, "%s/%s.%s.%s", bench_name, op, kind, what);
  } else {
    snprintf(tag, sizeof tag, "%s/%s.%s", bench_name, op, kind);
  }
  bench_result(tag, size, v, unit);
}

int main(int argc, char** argv) {
  bench_check(MPI_Init(&argc, &argv), "MPI_Init");
#ifdef __linux__
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  int rank = 0;
  int nranks = 0;
  bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
  if (nranks < 2) {
    bench_fail(bench_name, "needs at least 2 ranks");
  }

  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  /* Each batch lasts about batch_seconds (an overlapped call costs up to
   * 2 x t_pure); at least min_iters calls. */
  const double batch_seconds = opts.quick ? 0.006 : 0.015;
  const long min_iters = 2;
  const long max_iters = opts.quick ? 100 : 1000;

  static const size_t all_sizes[] = {(size_t)64 << 10, (size_t)1 << 20};
  size_t largest = 0;
  for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k) {
    if (all_sizes[k] <= opts.max_size || k == 0) {
      largest = all_sizes[k];
    }
  }
  char* sbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  char* rbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  const double sec_per_unit = busy_seconds_per_unit();
  /* nanosleep oversleeps (timer slack, wake-up latency: tens of µs, more on
   * a loaded machine); the batch sizing accounts for it.  Rank 0's median. */
  double oversleep = 0.0;
  {
    double d[7];
    for (int k = 0; k < 7; ++k) {
      const double t0 = MPI_Wtime();
      idle_work(10.0);
      d[k] = MPI_Wtime() - t0 - 10e-6;
    }
    oversleep = bench_median(d, 7);
    oversleep = oversleep > 0.0 ? oversleep : 0.0;
  }

  double pure[BENCH_MAX_SAMPLES];
  double cpu[work_count][BENCH_MAX_SAMPLES];
  double ovrl[work_count][BENCH_MAX_SAMPLES];
  double pct[work_count][BENCH_MAX_SAMPLES];

  for (int op = 0; op < op_count; ++op) {
    for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k) {
      const size_t size = all_sizes[k];
      if (size > opts.max_size && k > 0) {
        continue; /* 64 KiB always runs */
      }
      ctx c = {.op = (enum op_kind)op, .size = size, .sbuf = sbuf, .rbuf = rbuf};
      validate(rank, nranks, &c);

      /* The warm-up's pace (first calls included) sizes one t_pure batch,
       * whose value (max over ranks, as IMB-NBC does) is the work's target. */
      const double pace = slowest(bench_warmup(pure_step, &c, opts.quick ? 20 : 50, 2 * batch_seconds));
      long iters = (long)(batch_seconds / pace);
      iters = iters < min_iters ? min_iters : (iters > max_iters ? max_iters : iters);
      bench_share_long(&iters);
      const double t_target = time_pure(&c, iters);
      /* An overlapped call costs up to t_pure + the work (idle: plus oversleep). */
      iters = (long)(batch_seconds / (2.0 * t_target + oversleep));
      iters = iters < min_iters ? min_iters : (iters > max_iters ? max_iters : iters);
      bench_share_long(&iters);
      c.busy_units = (long)(t_target / sec_per_unit);
      recalibrate(&c, t_target);
      c.idle_us = (t_target - oversleep) * 1e6;
      if (c.idle_us < 1.0) c.idle_us = 1.0; /* always a real sleep (t_cpu > 0) */

      for (int s = 0; s < opts.samples; ++s) {
        pure[s] = time_pure(&c, iters);
        for (int w = 0; w < work_count; ++w) {
          cpu[w][s] = time_cpu(&c, (enum work_kind)w, iters);
          ovrl[w][s] = time_ovrl(&c, (enum work_kind)w, iters);
          pct[w][s] = overlap_pct(pure[s], cpu[w][s], ovrl[w][s]);
        }
      }
      if (rank == 0) {
        const double t_pure = bench_median(pure, opts.samples) * 1e6;
        for (int w = 0; w < work_count; ++w) {
          const char* o = op_names[op];
          const char* kind = work_names[w];
          report(o, kind, NULL, size, bench_median(pct[w], opts.samples), "pct");
          report(o, kind, "t_pure", size, t_pure, "us");
          report(o, kind, "t_cpu", size, bench_median(cpu[w], opts.samples) * 1e6, "us");
          report(o, kind, "t_ovrl", size, bench_median(ovrl[w], opts.samples) * 1e6, "us");
        }
      }
    }
  }

  free(sbuf);
  free(rbuf);
  bench_check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
