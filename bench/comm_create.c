/* comm_create.c - time to create (and free) a communicator.
 *
 * Operations (on MPI_COMM_WORLD, any number of ranks >= 2), each creating one
 * communicator and freeing it:
 *
 *     dup         MPI_Comm_dup + MPI_Comm_free
 *     idup        MPI_Comm_idup + MPI_Wait + MPI_Comm_free
 *     idup8       8 x MPI_Comm_idup outstanding, MPI_Waitall, 8 x MPI_Comm_free
 *                 (reported per communicator)
 *     split       MPI_Comm_split (two colors) + MPI_Comm_free
 *
 * reported at size 0.  Every created communicator is checked once (size and
 * rank).  One warm-up, then `samples` timed batches; a batch's value is the
 * largest per-rank mean time per communicator; rank 0 prints the median:
 *
 *     RESULT comm_create/<op> 0 <microseconds> us
 */
#include "bench_common.h"

static const char* const bench_name = "comm_create";

enum op_kind { op_dup, op_idup, op_idup8, op_split, op_count };
static const char* const op_names[op_count] = {"dup", "idup", "idup8", "split"};
static const int per_call[op_count] = {1, 1, 8, 1};

typedef struct step_ctx {
  enum op_kind op;
  int rank;
  int nranks;
  int check;
} step_ctx;

static void verify(const step_ctx* c, MPI_Comm n, int want_size, int want_rank) {
  int s = -1, r = -1;
  bench_check(MPI_Comm_size(n, &s), "MPI_Comm_size");
  bench_check(MPI_Comm_rank(n, &r), "MPI_Comm_rank");
  if (s != want_size || r != want_rank) {
    char why[128];
    snprintf(why, sizeof why, "rank %d: %s made a communicator of size %d rank %d", c->rank, op_names[c->op], s, r);
    bench_fail(bench_name, why);
  }
}

static void call(const step_ctx* c) {
  MPI_Comm n[8];
  MPI_Request rq[8];
  switch (c->op) {
    case op_dup:
      bench_check(MPI_Comm_dup(MPI_COMM_WORLD, &n[0]), "MPI_Comm_dup");
      if (c->check) verify(c, n[0], c->nranks, c->rank);
      bench_check(MPI_Comm_free(&n[0]), "MPI_Comm_free");
      break;
    case op_idup:
      bench_check(MPI_Comm_idup(MPI_COMM_WORLD, &n[0], &rq[0]), "MPI_Comm_idup");
      bench_check(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), "MPI_Wait");
      if (c->check) verify(c, n[0], c->nranks, c->rank);
      bench_check(MPI_Comm_free(&n[0]), "MPI_Comm_free");
      break;
    case op_idup8:
      for (int k = 0; k < 8; ++k) bench_check(MPI_Comm_idup(MPI_COMM_WORLD, &n[k], &rq[k]), "MPI_Comm_idup");
      bench_check(MPI_Waitall(8, rq, MPI_STATUSES_IGNORE), "MPI_Waitall");
      for (int k = 0; k < 8; ++k) {
        if (c->check) verify(c, n[k], c->nranks, c->rank);
        bench_check(MPI_Comm_free(&n[k]), "MPI_Comm_free");
      }
      break;
    case op_split: {
      const int color = c->rank % 2;
      bench_check(MPI_Comm_split(MPI_COMM_WORLD, color, c->rank, &n[0]), "MPI_Comm_split");
      if (c->check) verify(c, n[0], (c->nranks - color + 1) / 2, c->rank / 2);
      bench_check(MPI_Comm_free(&n[0]), "MPI_Comm_free");
      break;
    }
    default:
      break;
  }
}

static void step(void* p) {
  call(p);
}

int main(int argc, char** argv) {
  bench_check(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0;
  int nranks = 0;
  bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
  if (nranks < 2) {
    bench_fail(bench_name, "needs at least 2 ranks");
  }
  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  const long max_iters = opts.quick ? 200 : 2000;
  const long min_iters = 2;
  const double batch_seconds = opts.quick ? 0.01 : 0.02;
  double samples[BENCH_MAX_SAMPLES];

  for (int op = 0; op < op_count; ++op) {
    step_ctx ctx = {.op = (enum op_kind)op, .rank = rank, .nranks = nranks, .check = 1};
    call(&ctx); /* validated once */
    ctx.check = 0;
    const double pace = bench_warmup(step, &ctx, max_iters / 10 + 2, 2 * batch_seconds);
    const long iters = bench_agree_iters(max_iters, min_iters, pace, batch_seconds);
    for (int s = 0; s < opts.samples; ++s) {
      bench_sync();
      const double t0 = MPI_Wtime();
      for (long i = 0; i < iters; ++i) {
        call(&ctx);
      }
      double mean = (MPI_Wtime() - t0) * 1e6 / (double)(iters * per_call[op]);
      double worst = 0.0;
      bench_check(MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
      samples[s] = worst;
    }
    if (rank == 0) {
      char tag[64];
      snprintf(tag, sizeof tag, "%s/%s", bench_name, op_names[op]);
      bench_result(tag, 0, bench_median(samples, opts.samples), "us");
    }
  }
  bench_check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
