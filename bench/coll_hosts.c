/* coll_hosts.c - blocking collectives on a communicator that spans hosts: time per call and the
 * bytes that cross between hosts per call.
 *
 * Operations (MPI_COMM_WORLD): barrier, bcast (bytes from rank 0), reduce (doubles, MPI_SUM, to
 * rank 0), allreduce (doubles, MPI_SUM), allgather (bytes; the size is one rank's block),
 * alltoall (bytes; the size is the block for each peer). Sizes 8 B to 1 MiB (allgather and
 * alltoall up to 64 KiB per block). For each: one validated call, a warm-up, then `samples` timed
 * batches; a batch's value is the slowest rank's mean time per call; rank 0 prints the median:
 *
 *     RESULT coll_hosts/<op> <size> <microseconds> us
 *
 * Bytes between hosts: where the library has the MPI_T counter baton_coll_remote_bytes (Baton:
 * every collective message sent to a rank on another host), the sum over all ranks during the
 * timed batches divided by the calls, and the messages likewise:
 *
 *     RESULT coll_hosts/<op>.remote_bytes <size> <bytes per call> B
 *     RESULT coll_hosts/<op>.remote_messages <size> <messages per call> msgs
 *
 * bench/hier.sh runs it across the two simulated hosts with Baton's flat algorithms
 * (BATON_COLL_HIER=0) and the host-aware ones in alternating launches. */
#include "bench_common.h"

static const char* const bench_name = "coll_hosts";

enum op_kind { op_barrier, op_bcast, op_reduce, op_allreduce, op_allgather, op_alltoall, op_count };
static const char* const op_names[op_count] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};

typedef struct step_ctx {
  enum op_kind op;
  size_t size;
  int nranks;
  char* sbuf;
  char* rbuf;
} step_ctx;

static void call(const step_ctx* c) {
  const int nd = (int)(c->size / sizeof(double)), nb = (int)c->size;
  switch (c->op) {
    case op_barrier:
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      break;
    case op_bcast:
      bench_check(MPI_Bcast(c->rbuf, nb, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
      break;
    case op_reduce:
      bench_check(MPI_Reduce(c->sbuf, c->rbuf, nd, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      break;
    case op_allreduce:
      bench_check(MPI_Allreduce(c->sbuf, c->rbuf, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      break;
    case op_allgather:
      bench_check(MPI_Allgather(c->sbuf, nb, MPI_CHAR, c->rbuf, nb, MPI_CHAR, MPI_COMM_WORLD), "MPI_Allgather");
      break;
    case op_alltoall:
      bench_check(MPI_Alltoall(c->sbuf, nb, MPI_CHAR, c->rbuf, nb, MPI_CHAR, MPI_COMM_WORLD), "MPI_Alltoall");
      break;
    default:
      break;
  }
}

static void step(void* p) { call(p); }

static double reduce_input(int r, size_t i) { return (double)((r + 1) * 3 + (int)(i % 11)); }

static void bad(int rank, const step_ctx* c) {
  char why[128];
  snprintf(why, sizeof why, "rank %d: %s got wrong data at size %zu", rank, op_names[c->op], c->size);
  bench_fail(bench_name, why);
}

/* One call on known data, checked on every rank. */
static void validate(int rank, const step_ctx* c) {
  const int n = c->nranks;
  const size_t nd = c->size / sizeof(double);
  double* sd = (double*)(void*)c->sbuf;
  double* rd = (double*)(void*)c->rbuf;
  switch (c->op) {
    case op_reduce:
    case op_allreduce:
      for (size_t i = 0; i < nd; ++i) {
        sd[i] = reduce_input(rank, i);
        rd[i] = -1.0;
      }
      call(c);
      if (c->op == op_allreduce || rank == 0)
        for (size_t i = 0; i < nd; ++i) {
          double want = 0.0;
          for (int r = 0; r < n; ++r) want += reduce_input(r, i);
          if (rd[i] != want) bad(rank, c);
        }
      break;
    case op_bcast:
      if (rank == 0)
        bench_fill(c->rbuf, c->size, c->size, 1);
      else
        memset(c->rbuf, 0, c->size);
      call(c);
      if (!bench_verify(c->rbuf, c->size, c->size, 1)) bad(rank, c);
      break;
    case op_allgather:
      bench_fill(c->sbuf, c->size, c->size, rank);
      memset(c->rbuf, 0, c->size * (size_t)n);
      call(c);
      for (int s = 0; s < n; ++s)
        if (!bench_verify(c->rbuf + (size_t)s * c->size, c->size, c->size, s)) bad(rank, c);
      break;
    case op_alltoall:
      for (int p = 0; p < n; ++p) bench_fill(c->sbuf + (size_t)p * c->size, c->size, c->size, rank * n + p);
      memset(c->rbuf, 0, c->size * (size_t)n);
      call(c);
      for (int s = 0; s < n; ++s)
        if (!bench_verify(c->rbuf + (size_t)s * c->size, c->size, c->size, s * n + rank)) bad(rank, c);
      break;
    default:
      call(c);
      break;
  }
}

/* MPI_T counters of the bytes and messages collectives send to other hosts (Baton), if any. */
static MPI_T_pvar_session tsession;
static MPI_T_pvar_handle counter[2];
static int have_counters;

static void counters_open(void) {
  int provided, n = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
  if (MPI_T_pvar_get_num(&n) != MPI_SUCCESS) return;
  int idx[2] = {-1, -1};
  for (int i = 0; i < n; ++i) {
    char name[128], desc[1024];
    int nlen = sizeof name, dlen = sizeof desc, verb, cls, bind, ro, cont, atomic;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro, &cont, &atomic) !=
        MPI_SUCCESS)
      continue;
    if (strcmp(name, "baton_coll_remote_bytes") == 0) idx[0] = i;
    if (strcmp(name, "baton_coll_remote_messages") == 0) idx[1] = i;
  }
  if (idx[0] < 0 || idx[1] < 0) return;
  if (MPI_T_pvar_session_create(&tsession) != MPI_SUCCESS) return;
  for (int k = 0; k < 2; ++k) {
    int count = 0;
    if (MPI_T_pvar_handle_alloc(tsession, idx[k], NULL, &counter[k], &count) != MPI_SUCCESS) return;
    if (MPI_T_pvar_start(tsession, counter[k]) != MPI_SUCCESS) return;
  }
  have_counters = 1;
}

static void counters_read(unsigned long long* v) {
  v[0] = v[1] = 0;
  if (!have_counters) return;
  for (int k = 0; k < 2; ++k) bench_check(MPI_T_pvar_read(tsession, counter[k], &v[k]), "MPI_T_pvar_read");
}

/* One timed batch: the slowest rank's mean time per call in us (on rank 0). */
static double timed_batch(const step_ctx* c, long iters) {
  bench_sync();
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) call(c);
  double mean = (MPI_Wtime() - t0) * 1e6 / (double)iters;
  double worst = 0.0;
  bench_check(MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
  return worst;
}

int main(int argc, char** argv) {
  bench_check(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0, nranks = 0;
  bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
  if (nranks < 2) bench_fail(bench_name, "needs at least 2 ranks");
  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  counters_open();
  const size_t budget = opts.quick ? ((size_t)8 << 20) : ((size_t)64 << 20);
  const long max_iters = opts.quick ? 300 : 2000, min_iters = 2;
  const double batch_seconds = opts.quick ? 0.02 : 0.05;
  static const size_t sizes[] = {8, 1024, (size_t)64 << 10, (size_t)1 << 20};
  const size_t block_max = (size_t)64 << 10; /* allgather, alltoall */
  char* sbuf = bench_alloc(bench_name, ((size_t)1 << 20) + block_max * (size_t)nranks);
  char* rbuf = bench_alloc(bench_name, ((size_t)1 << 20) + block_max * (size_t)nranks);
  double samples[BENCH_MAX_SAMPLES];

  for (int op = 0; op < op_count; ++op)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
      size_t size = sizes[k];
      if (op == op_barrier) {
        if (k > 0) break;
        size = 0;
      }
      if (size > opts.max_size) continue;
      if ((op == op_allgather || op == op_alltoall) && size > block_max) continue;
      step_ctx ctx = {.op = (enum op_kind)op, .size = size, .nranks = nranks, .sbuf = sbuf, .rbuf = rbuf};
      const size_t traffic = (op == op_allgather || op == op_alltoall) ? size * (size_t)nranks : size;
      const long budget_iters = bench_iters(traffic, budget, min_iters, max_iters);
      validate(rank, &ctx);
      const double pace =
          bench_warmup(step, &ctx, bench_iters(1, (size_t)budget_iters / 10, 2, 100), 2 * batch_seconds);
      const long iters = bench_agree_iters(budget_iters, min_iters, pace, batch_seconds);
      unsigned long long before[2], after[2];
      counters_read(before);
      for (int s = 0; s < opts.samples; ++s) samples[s] = timed_batch(&ctx, iters);
      counters_read(after);
      /* The harness's own MPI_Reduce per batch is a collective too: measure what one costs. */
      unsigned long long h0[2], h1[2];
      counters_read(h0);
      double dummy = 0, sink = 0;
      bench_check(MPI_Reduce(&dummy, &sink, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
      counters_read(h1);
      double mine[2], sum[2] = {0, 0};
      for (int j = 0; j < 2; ++j)
        mine[j] = (double)(after[j] - before[j]) - (double)opts.samples * (double)(h1[j] - h0[j]);
      bench_check(MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      if (rank == 0) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s/%s", bench_name, op_names[op]);
        bench_result(tag, size, bench_median(samples, opts.samples), "us");
        if (have_counters) {
          const double calls = (double)iters * opts.samples;
          snprintf(tag, sizeof tag, "%s/%s.remote_bytes", bench_name, op_names[op]);
          bench_result(tag, size, sum[0] / calls, "B");
          snprintf(tag, sizeof tag, "%s/%s.remote_messages", bench_name, op_names[op]);
          bench_result(tag, size, sum[1] / calls, "msgs");
        }
      }
    }
  if (have_counters) {
    for (int k = 0; k < 2; ++k) MPI_T_pvar_handle_free(tsession, &counter[k]);
    MPI_T_pvar_session_free(&tsession);
    MPI_T_finalize();
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
