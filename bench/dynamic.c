/* dynamic.c - time to bring up dynamic processes.
 *
 *     spawn1   MPI_Comm_spawn of 1 child (this program) by the 2 ranks of MPI_COMM_WORLD, then
 *              MPI_Intercomm_merge and a barrier on the merged communicator: the time from the
 *              call until the barrier is over (slowest parent)
 *     spawn4   the same with 4 children
 *     connect  rank 1 MPI_Comm_connect's to a port rank 0 opened and MPI_Comm_accept's on
 *              (over MPI_COMM_SELF each), then sends 8 bytes and waits for 8 back: the time
 *              from the connect call until that answer
 *
 * Each operation also tears its communicators down (disconnect, the children finalize) outside
 * the timed part. One warm-up, then `samples` timed repetitions; rank 0 prints the median:
 *
 *     RESULT dynamic/<op> 0 <microseconds> us
 */
#include "bench_common.h"

static const char* const bench_name = "dynamic";

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* The children: merge, barrier, go. */
static int child(MPI_Comm parent) {
  MPI_Comm merged;
  bench_check(MPI_Intercomm_merge(parent, 1, &merged), "MPI_Intercomm_merge");
  bench_check(MPI_Barrier(merged), "MPI_Barrier");
  bench_check(MPI_Comm_free(&merged), "MPI_Comm_free");
  bench_check(MPI_Comm_disconnect(&parent), "MPI_Comm_disconnect");
  MPI_Finalize();
  return 0;
}

static double spawn_once(const char* self, int n) {
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  MPI_Comm ic, merged;
  char* args[] = {"child", NULL};
  bench_check(MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE),
              "MPI_Comm_spawn");
  bench_check(MPI_Intercomm_merge(ic, 0, &merged), "MPI_Intercomm_merge");
  bench_check(MPI_Barrier(merged), "MPI_Barrier");
  double t = MPI_Wtime() - t0, tmax = 0;
  int size = 0;
  bench_check(MPI_Comm_size(merged, &size), "MPI_Comm_size");
  bench_check(MPI_Comm_free(&merged), "MPI_Comm_free");
  bench_check(MPI_Comm_disconnect(&ic), "MPI_Comm_disconnect");
  int wsize;
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &wsize), "MPI_Comm_size");
  if (size != wsize + n) bench_fail(bench_name, "the merged communicator has the wrong size");
  bench_check(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return tmax;
}

static double connect_once(int rank, const char* port) {
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  MPI_Comm ic;
  long v = 42, w = 0;
  double t = 0;
  if (rank == 0) {
    bench_check(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), "MPI_Comm_accept");
    bench_check(MPI_Recv(&w, 1, MPI_LONG, 0, 0, ic, MPI_STATUS_IGNORE), "MPI_Recv");
    bench_check(MPI_Send(&w, 1, MPI_LONG, 0, 0, ic), "MPI_Send");
  } else if (rank == 1) {
    const double t0 = MPI_Wtime();
    bench_check(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), "MPI_Comm_connect");
    bench_check(MPI_Send(&v, 1, MPI_LONG, 0, 0, ic), "MPI_Send");
    bench_check(MPI_Recv(&w, 1, MPI_LONG, 0, 0, ic, MPI_STATUS_IGNORE), "MPI_Recv");
    t = MPI_Wtime() - t0;
    if (w != v) bench_fail(bench_name, "the first message came back wrong");
  }
  if (rank <= 1) bench_check(MPI_Comm_disconnect(&ic), "MPI_Comm_disconnect");
  double tmax = 0;
  bench_check(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return tmax;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) return child(parent);
  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks < 2) bench_fail(bench_name, "needs at least 2 ranks");
  const int samples = opts.samples < 3 ? 3 : opts.samples;
  double v[BENCH_MAX_SAMPLES];
  const int counts[2] = {1, 4};
  for (int c = 0; c < 2; ++c) {
    (void)spawn_once(argv[0], counts[c]);  /* warm-up */
    for (int s = 0; s < samples; ++s) v[s] = spawn_once(argv[0], counts[c]);
    qsort(v, (size_t)samples, sizeof v[0], cmp_double);
    if (rank == 0) printf("RESULT %s/spawn%d 0 %.1f us\n", bench_name, counts[c], v[samples / 2] * 1e6);
    fflush(stdout);
  }
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) bench_check(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
  bench_check(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  (void)connect_once(rank, port);
  for (int s = 0; s < samples; ++s) v[s] = connect_once(rank, port);
  qsort(v, (size_t)samples, sizeof v[0], cmp_double);
  if (rank == 0) {
    printf("RESULT %s/connect 0 %.1f us\n", bench_name, v[samples / 2] * 1e6);
    bench_check(MPI_Close_port(port), "MPI_Close_port");
  }
  MPI_Finalize();
  return 0;
}
