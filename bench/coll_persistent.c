/* coll_persistent.c - a repeated collective through its three forms: blocking, nonblocking + wait,
 * and persistent (init once, then start + wait).
 *
 * Operations (on MPI_COMM_WORLD, any number of ranks >= 2), each in three forms:
 *
 *     allreduce.blocking     MPI_Allreduce, MPI_SUM of doubles
 *     allreduce.nonblocking  MPI_Iallreduce + MPI_Wait
 *     allreduce.persistent   MPI_Allreduce_init once, then MPI_Start + MPI_Wait
 *     bcast.*                the same for MPI_Bcast from rank 0 (bytes)
 *     alltoall.*             the same for MPI_Alltoall (bytes; the size is the block per peer)
 *
 * at 8 B, 64 KiB and 1 MiB per rank (sizes above --max-size are skipped). The persistent
 * request is created before the timed batches and freed after them, so its setup is not timed
 * (that is the point of the persistent form). Method as coll_latency.c: one validated call, a
 * warm-up, then `samples` timed batches; a batch's value is the slowest rank's mean time per
 * call; rank 0 prints the median over batches:
 *
 *     RESULT coll_persistent/<op>.<form> <size> <microseconds> us
 *
 * Persistent collectives are MPI-4.0: MPICH 4 has them as MPI_<Coll>_init; Open MPI 4.1 has them
 * as MPIX_<Coll>_init in <mpi-ext.h> (the pcollreq extension). A library with neither prints no
 * persistent rows and says why.
 */
#include "bench_common.h"

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#define BENCH_ALLREDUCE_INIT MPI_Allreduce_init
#define BENCH_BCAST_INIT MPI_Bcast_init
#define BENCH_ALLTOALL_INIT MPI_Alltoall_init
#elif defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_PERSISTENT 1
#define BENCH_ALLREDUCE_INIT MPIX_Allreduce_init
#define BENCH_BCAST_INIT MPIX_Bcast_init
#define BENCH_ALLTOALL_INIT MPIX_Alltoall_init
#endif
#endif
#ifndef HAVE_PERSISTENT
#define HAVE_PERSISTENT 0
#endif

static const char* const bench_name = "coll_persistent";

enum op_kind { op_allreduce, op_bcast, op_alltoall, op_count };
enum form_kind { form_blocking, form_nonblocking, form_persistent, form_count };

static const char* const op_names[op_count] = {"allreduce", "bcast", "alltoall"};
static const char* const form_names[form_count] = {"blocking", "nonblocking", "persistent"};

typedef struct step_ctx {
  enum op_kind op;
  enum form_kind form;
  size_t size; /* bytes per rank (alltoall: per peer) */
  int nranks;
  char* sbuf;
  char* rbuf;
  MPI_Request preq; /* the persistent request (form_persistent) */
} step_ctx;

static void make_persistent(step_ctx* c) {
#if HAVE_PERSISTENT
  const int ndoubles = (int)(c->size / sizeof(double));
  const int nbytes = (int)c->size;
  switch (c->op) {
    case op_allreduce:
      bench_check(BENCH_ALLREDUCE_INIT(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       &c->preq),
                  "MPI_Allreduce_init");
      break;
    case op_bcast:
      bench_check(BENCH_BCAST_INIT(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &c->preq),
                  "MPI_Bcast_init");
      break;
    case op_alltoall:
      bench_check(BENCH_ALLTOALL_INIT(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &c->preq),
                  "MPI_Alltoall_init");
      break;
    default:
      break;
  }
#else
  (void)c;
#endif
}

static void call(step_ctx* c) {
  MPI_Request req = MPI_REQUEST_NULL;
  const int ndoubles = (int)(c->size / sizeof(double));
  const int nbytes = (int)c->size;
  if (c->form == form_persistent) {
    bench_check(MPI_Start(&c->preq), "MPI_Start");
    bench_check(MPI_Wait(&c->preq, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  }
  const int nb = c->form == form_nonblocking;
  switch (c->op) {
    case op_allreduce:
      if (nb)
        bench_check(MPI_Iallreduce(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req),
                    "MPI_Iallreduce");
      else
        bench_check(MPI_Allreduce(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      break;
    case op_bcast:
      if (nb)
        bench_check(MPI_Ibcast(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast");
      else
        bench_check(MPI_Bcast(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
      break;
    case op_alltoall:
      if (nb)
        bench_check(MPI_Ialltoall(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD, &req),
                    "MPI_Ialltoall");
      else
        bench_check(MPI_Alltoall(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD), "MPI_Alltoall");
      break;
    default:
      break;
  }
  if (nb) bench_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
}

static void step(void* p) {
  call(p);
}

static double reduce_input(int r, size_t i) {
  return (double)((r + 1) * 3 + (int)(i % 11));
}

static void bad(int rank, const step_ctx* c) {
  char why[160];
  snprintf(why, sizeof why, "rank %d: %s.%s got wrong data at size %zu", rank, op_names[c->op], form_names[c->form],
           c->size);
  bench_fail(bench_name, why);
}

/* One call on known data, checked on every rank. */
static void validate(int rank, step_ctx* c) {
  const int n = c->nranks;
  const size_t nd = c->size / sizeof(double);
  double* sd = (double*)(void*)c->sbuf;
  double* rd = (double*)(void*)c->rbuf;
  switch (c->op) {
    case op_allreduce:
      for (size_t i = 0; i < nd; ++i) {
        sd[i] = reduce_input(rank, i);
        rd[i] = -1.0;
      }
      call(c);
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
    case op_alltoall:
      for (int p = 0; p < n; ++p) bench_fill(c->sbuf + (size_t)p * c->size, c->size, c->size, rank * n + p);
      memset(c->rbuf, 0, c->size * (size_t)n);
      call(c);
      for (int s = 0; s < n; ++s)
        if (!bench_verify(c->rbuf + (size_t)s * c->size, c->size, c->size, s * n + rank)) bad(rank, c);
      break;
    default:
      break;
  }
}

int main(int argc, char** argv) {
  bench_check(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0;
  int nranks = 0;
  bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
  if (nranks < 2) bench_fail(bench_name, "needs at least 2 ranks");

  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  const size_t budget = opts.quick ? ((size_t)8 << 20) : ((size_t)64 << 20);
  const long max_iters = opts.quick ? 500 : 5000;
  const long min_iters = 2;
  const double batch_seconds = opts.quick ? 0.01 : 0.02;
  if (!HAVE_PERSISTENT && rank == 0)
    printf(
        "coll_persistent: this MPI library has no persistent collectives (MPI_Allreduce_init); "
        "persistent rows are skipped\n");

  static const size_t all_sizes[] = {8, (size_t)64 << 10, (size_t)1 << 20};
  size_t largest = 8;
  for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k)
    if (all_sizes[k] <= opts.max_size) largest = all_sizes[k];
  char* sbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  char* rbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  double samples[BENCH_MAX_SAMPLES];

  for (int op = 0; op < op_count; ++op) {
    for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k) {
      const size_t size = all_sizes[k];
      if (size > opts.max_size && k > 0) continue; /* 8 B always runs */
      /* the three forms of one operation and size back to back, so they see the same load */
      for (int form = 0; form < form_count; ++form) {
        if (form == form_persistent && !HAVE_PERSISTENT) continue;
        step_ctx ctx = {.op = (enum op_kind)op,
                        .form = (enum form_kind)form,
                        .size = size,
                        .nranks = nranks,
                        .sbuf = sbuf,
                        .rbuf = rbuf,
                        .preq = MPI_REQUEST_NULL};
        if (form == form_persistent) make_persistent(&ctx);
        size_t traffic = size;
        if (op == op_alltoall) traffic = size * (size_t)nranks;
        const long budget_iters = bench_iters(traffic, budget, min_iters, max_iters);

        validate(rank, &ctx);
        const double pace =
            bench_warmup(step, &ctx, bench_iters(1, (size_t)budget_iters / 10, 2, 100), 2 * batch_seconds);
        const long iters = bench_agree_iters(budget_iters, min_iters, pace, batch_seconds);
        for (int s = 0; s < opts.samples; ++s) {
          bench_sync();
          const double t0 = MPI_Wtime();
          for (long i = 0; i < iters; ++i) call(&ctx);
          double mean = (MPI_Wtime() - t0) * 1e6 / (double)iters;
          double worst = 0.0;
          bench_check(MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
          samples[s] = worst;
        }
        if (ctx.preq != MPI_REQUEST_NULL) bench_check(MPI_Request_free(&ctx.preq), "MPI_Request_free");
        if (rank == 0) {
          char tag[96];
          snprintf(tag, sizeof tag, "%s/%s.%s", bench_name, op_names[op], form_names[form]);
          bench_result(tag, size, bench_median(samples, opts.samples), "us");
        }
      }
    }
  }

  free(sbuf);
  free(rbuf);
  bench_check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
