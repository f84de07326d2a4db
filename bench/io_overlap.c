/* io_overlap - how much of MPI_File_iwrite_all overlaps with work, measured as IMB-NBC measures
 * nonblocking collectives (coll_overlap.c):
 *
 *     t_pure  MPI_File_iwrite_all + MPI_Wait
 *     t_cpu   the work alone, sized to take about t_pure
 *     t_ovrl  MPI_File_iwrite_all, the work, MPI_Wait
 *     overlap = 100 * (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu), clamped to [0, 100]
 *
 * The write is the 64 MiB 3-D block-distributed array of io_coll.c through its subarray view
 * (no MPI_File_sync: the page cache, for every library alike). Two kinds of work:
 *     busy  a floating-point loop (the application computes)
 *     idle  nanosleep (the application waits on something else: a GPU, the network)
 * Each round times one of each, max over ranks; rank 0 prints the median over rounds:
 *     RESULT io_overlap/iwrite_all.<kind> <bytes> <percent> pct
 * and the times (log only): RESULT io_overlap/iwrite_all.<kind>.<t_pure|t_cpu|t_ovrl> <bytes> <us> us */
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "bench_common.h"

static volatile double busy_sink;
static void busy_work(long units) {
  double x = busy_sink + 1.0;
  for (long i = 0; i < units; ++i) x = x * 1.0000001 + 1e-9;
  busy_sink = x;
}
static void idle_work(double us) {
  struct timespec ts = {(time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3)};
  nanosleep(&ts, NULL);
}
static double slowest(double mine) {
  double m = 0;
  MPI_Allreduce(&mine, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static MPI_File fh;
static double* buf;
static int n;

static double t_pure(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now_us();
  MPI_Request rq;
  bench_check(MPI_File_iwrite_at_all(fh, 0, buf, n, MPI_DOUBLE, &rq), "iwrite_at_all");
  bench_check(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
  return slowest(bench_now_us() - t0);
}
static void work(int kind, long units, double us) {
  if (kind == 0)
    busy_work(units);
  else
    idle_work(us);
}
static double t_cpu(int kind, long units, double us) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now_us();
  work(kind, units, us);
  return slowest(bench_now_us() - t0);
}
static double t_ovrl(int kind, long units, double us) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now_us();
  MPI_Request rq;
  bench_check(MPI_File_iwrite_at_all(fh, 0, buf, n, MPI_DOUBLE, &rq), "iwrite_at_all");
  work(kind, units, us);
  bench_check(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
  return slowest(bench_now_us() - t0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
#ifdef PR_SET_TIMERSLACK
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
#endif
  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = getenv("BATON_BENCH_DIR");
  char name[512];
  long id = (long)getpid();
  bench_share_long(&id);
  snprintf(name, sizeof(name), "%s/io_overlap.%ld.dat", dir && *dir ? dir : "/tmp", id);
  int g[3] = {128, 256, 256}, dims[3] = {0, 0, 0}, sub[3], start[3];
  MPI_Dims_create(size, 3, dims);
  int coords[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  for (int d = 0; d < 3; ++d) {
    sub[d] = g[d] / dims[d];
    start[d] = coords[d] * sub[d];
  }
  n = sub[0] * sub[1] * sub[2];
  const size_t total = (size_t)g[0] * g[1] * g[2] * sizeof(double);
  buf = (double*)bench_alloc("io_overlap", (size_t)n * sizeof(double));
  for (int k = 0; k < n; ++k) buf[k] = rank + k * 1e-6;
  MPI_Datatype ft;
  MPI_Type_create_subarray(3, g, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  bench_check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
  bench_check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
  (void)t_pure(); /* makes the file */
  /* Busy loop speed, best of several runs. */
  double best = 1e30;
  const long probe = 2000000;
  for (int i = 0; i < 5; ++i) {
    double t0 = bench_now_us();
    busy_work(probe);
    double t = bench_now_us() - t0;
    if (t < best) best = t;
  }
  const double us_per_unit = best / probe;
  double p[BENCH_MAX_SAMPLES];
  for (int i = 0; i < 3; ++i) p[i] = t_pure();
  double target = bench_median(p, 3);
  static const char* kinds[2] = {"busy", "idle"};
  for (int kind = 0; kind < 2; ++kind) {
    double ov[BENCH_MAX_SAMPLES], tp[BENCH_MAX_SAMPLES], tc[BENCH_MAX_SAMPLES], to[BENCH_MAX_SAMPLES];
    long units = (long)(target / us_per_unit);
    for (int s = 0; s < opts.samples; ++s) {
      tp[s] = t_pure();
      tc[s] = t_cpu(kind, units, target);
      /* The loop's pace moves with the machine's load: resize it so that t_cpu ~ t_pure. */
      if (kind == 0 && tc[s] > 0) units = (long)((double)units * tp[s] / tc[s]);
      if (kind == 0) tc[s] = t_cpu(kind, units, target);
      to[s] = t_ovrl(kind, units, target);
      double m = tp[s] < tc[s] ? tp[s] : tc[s];
      double o = 100.0 * (tp[s] + tc[s] - to[s]) / m;
      ov[s] = o < 0 ? 0 : o > 100 ? 100 : o;
      target = tp[s];
    }
    if (rank == 0) {
      char series[128];
      snprintf(series, sizeof(series), "io_overlap/iwrite_all.%s", kinds[kind]);
      bench_result(series, total, bench_median(ov, opts.samples), "pct");
      const char* what[3] = {"t_pure", "t_cpu", "t_ovrl"};
      double* v[3] = {tp, tc, to};
      for (int w = 0; w < 3; ++w) {
        snprintf(series, sizeof(series), "io_overlap/iwrite_all.%s.%s", kinds[kind], what[w]);
        bench_result(series, total, bench_median(v[w], opts.samples), "us");
      }
      fflush(stdout);
    }
  }
  bench_check(MPI_File_close(&fh), "close");
  if (rank == 0) MPI_File_delete(name, MPI_INFO_NULL);
  MPI_Type_free(&ft);
  free(buf);
  MPI_Finalize();
  return 0;
}
