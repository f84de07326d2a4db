/* coll_latency.c - time per call of blocking and nonblocking collectives.
 *
 * Operations (on MPI_COMM_WORLD, any number of ranks >= 2):
 *
 *     allreduce   MPI_Allreduce, MPI_SUM of doubles
 *     iallreduce  MPI_Iallreduce + MPI_Wait
 *     bcast       MPI_Bcast from rank 0 (bytes)
 *     ibcast      MPI_Ibcast + MPI_Wait
 *     alltoall    MPI_Alltoall (bytes); the size is the block sent to each peer
 *     ialltoall   MPI_Ialltoall + MPI_Wait
 *     ibarrier    MPI_Ibarrier + MPI_Wait (reported at size 0)
 *     iallreduce.nbcomm  MPI_Iallreduce + MPI_Wait on a duplicate of MPI_COMM_WORLD that
 *                 never sees a blocking collective (a communicator kept for overlapped
 *                 reductions; its first collective is this series' first call)
 *
 * at 8 B, 64 KiB and 1 MiB per rank (sizes above --max-size are skipped).  For
 * every operation and size: one validated call, a warm-up, then `samples`
 * timed batches of `iters` back-to-back calls.  A batch's value is the largest
 * per-rank mean time per call (the slowest rank decides, as in IMB); rank 0
 * prints the median over batches:
 *
 *     RESULT coll_latency/<op> <size> <microseconds> us
 *
 * Batches start after bench_sync (point-to-point), so no collective under test
 * doubles as the barrier; the per-batch maximum is gathered with MPI_Reduce
 * outside the timed region.
 *
 * Paired series (8 B): allreduce / iallreduce, bcast / ibcast, alltoall /
 * ialltoall with their batches alternating, so both forms see the same machine
 * phase (separate launches differ by more than the nonblocking form's cost):
 *
 *     RESULT coll_latency/<op>.paired 8 <microseconds> us
 */
#include "bench_common.h"

static const char* const bench_name = "coll_latency";

enum op_kind {
  op_allreduce,
  op_iallreduce,
  op_bcast,
  op_ibcast,
  op_alltoall,
  op_ialltoall,
  op_ibarrier,
  op_iallreduce_nbcomm,
  op_count
};

static const char* const op_names[op_count] = {"allreduce", "iallreduce", "bcast",    "ibcast",
                                               "alltoall",  "ialltoall",  "ibarrier", "iallreduce.nbcomm"};

/* The communicator of op_iallreduce_nbcomm: only nonblocking collectives ever run on it. */
static MPI_Comm nb_comm = MPI_COMM_NULL;

typedef struct step_ctx {
  enum op_kind op;
  size_t size; /* bytes per rank (alltoall: per peer) */
  int nranks;
  char* sbuf;
  char* rbuf;
} step_ctx;

static void wait_one(MPI_Request* req) {
  bench_check(MPI_Wait(req, MPI_STATUS_IGNORE), "MPI_Wait");
}

static void call(const step_ctx* c) {
  MPI_Request req = MPI_REQUEST_NULL;
  const int ndoubles = (int)(c->size / sizeof(double));
  const int nbytes = (int)c->size;
  switch (c->op) {
    case op_allreduce:
      bench_check(MPI_Allreduce(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      break;
    case op_iallreduce:
      bench_check(MPI_Iallreduce(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req),
                  "MPI_Iallreduce");
      wait_one(&req);
      break;
    case op_iallreduce_nbcomm:
      bench_check(MPI_Iallreduce(c->sbuf, c->rbuf, ndoubles, MPI_DOUBLE, MPI_SUM, nb_comm, &req), "MPI_Iallreduce");
      wait_one(&req);
      break;
    case op_bcast:
      bench_check(MPI_Bcast(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
      break;
    case op_ibcast:
      bench_check(MPI_Ibcast(c->rbuf, nbytes, MPI_CHAR, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast");
      wait_one(&req);
      break;
    case op_alltoall:
      bench_check(MPI_Alltoall(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD), "MPI_Alltoall");
      break;
    case op_ialltoall:
      bench_check(MPI_Ialltoall(c->sbuf, nbytes, MPI_CHAR, c->rbuf, nbytes, MPI_CHAR, MPI_COMM_WORLD, &req),
                  "MPI_Ialltoall");
      wait_one(&req);
      break;
    case op_ibarrier:
      bench_check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
      wait_one(&req);
      break;
    default:
      break;
  }
}

static void step(void* p) {
  call(p);
}

/* Value rank r puts at element i of its allreduce input: small integers, so
 * the sum over ranks is exact in any order. */
static double reduce_input(int r, size_t i) {
  return (double)((r + 1) * 3 + (int)(i % 11));
}

static void bad(int rank, const step_ctx* c) {
  char why[128];
  snprintf(why, sizeof why, "rank %d: %s got wrong data at size %zu", rank, op_names[c->op], c->size);
  bench_fail(bench_name, why);
}

/* One call on known data, checked on every rank; leaves the buffers holding
 * valid data for the timed calls. */
static void validate(int rank, const step_ctx* c) {
  const int n = c->nranks;
  const size_t nd = c->size / sizeof(double);
  double* sd = (double*)(void*)c->sbuf;
  double* rd = (double*)(void*)c->rbuf;
  switch (c->op) {
    case op_allreduce:
    case op_iallreduce:
    case op_iallreduce_nbcomm:
      for (size_t i = 0; i < nd; ++i) {
        sd[i] = reduce_input(rank, i);
        rd[i] = -1.0;
      }
      call(c);
      for (size_t i = 0; i < nd; ++i) {
        double want = 0.0;
        for (int r = 0; r < n; ++r) {
          want += reduce_input(r, i);
        }
        if (rd[i] != want) {
          bad(rank, c);
        }
      }
      break;
    case op_bcast:
    case op_ibcast:
      if (rank == 0) {
        bench_fill(c->rbuf, c->size, c->size, 1);
      } else {
        memset(c->rbuf, 0, c->size);
      }
      call(c);
      if (!bench_verify(c->rbuf, c->size, c->size, 1)) {
        bad(rank, c);
      }
      break;
    case op_alltoall:
    case op_ialltoall:
      for (int p = 0; p < n; ++p) {
        bench_fill(c->sbuf + (size_t)p * c->size, c->size, c->size, rank * n + p);
      }
      memset(c->rbuf, 0, c->size * (size_t)n);
      call(c);
      for (int s = 0; s < n; ++s) {
        if (!bench_verify(c->rbuf + (size_t)s * c->size, c->size, c->size, s * n + rank)) {
          bad(rank, c);
        }
      }
      break;
    default:
      call(c);
      break;
  }
}

/* One timed batch of `iters` calls, all ranks starting together (bench_sync): the slowest rank's
 * mean time per call in µs (on rank 0; MPI_Reduce outside the timed region). */
static double timed_batch(const step_ctx* c, long iters) {
  bench_sync();
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    call(c);
  }
  double mean = (MPI_Wtime() - t0) * 1e6 / (double)iters;
  double worst = 0.0;
  bench_check(MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
  return worst;
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
  bench_check(MPI_Comm_dup(MPI_COMM_WORLD, &nb_comm), "MPI_Comm_dup");
  /* Byte budget per batch (per rank); the time cap usually decides. */
  const size_t budget = opts.quick ? ((size_t)8 << 20) : ((size_t)64 << 20);
  const long max_iters = opts.quick ? 500 : 5000;
  const long min_iters = 2;
  const double batch_seconds = opts.quick ? 0.01 : 0.02;

  static const size_t all_sizes[] = {8, (size_t)64 << 10, (size_t)1 << 20};
  size_t largest = 8;
  for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k) {
    if (all_sizes[k] <= opts.max_size) {
      largest = all_sizes[k];
    }
  }
  char* sbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  char* rbuf = bench_alloc(bench_name, largest * (size_t)nranks);
  double samples[BENCH_MAX_SAMPLES];

  for (int op = 0; op < op_count; ++op) {
    for (size_t k = 0; k < sizeof all_sizes / sizeof all_sizes[0]; ++k) {
      size_t size = all_sizes[k];
      if (op == op_ibarrier) {
        if (k > 0) {
          break;
        }
        size = 0;
      } else if (size > opts.max_size && k > 0) {
        continue; /* 8 B always runs */
      }
      step_ctx ctx = {.op = (enum op_kind)op, .size = size, .nranks = nranks, .sbuf = sbuf, .rbuf = rbuf};
      size_t traffic = size;
      if (op == op_alltoall || op == op_ialltoall) {
        traffic = size * (size_t)nranks;
      }
      const long budget_iters = bench_iters(traffic, budget, min_iters, max_iters);

      validate(rank, &ctx);
      const double pace =
          bench_warmup(step, &ctx, bench_iters(1, (size_t)budget_iters / 10, 2, 100), 2 * batch_seconds);
      const long iters = bench_agree_iters(budget_iters, min_iters, pace, batch_seconds);
      for (int s = 0; s < opts.samples; ++s) {
        samples[s] = timed_batch(&ctx, iters);
      }
      if (rank == 0) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s/%s", bench_name, op_names[op]);
        bench_result(tag, size, bench_median(samples, opts.samples), "us");
      }
    }
  }

  /* Paired series: the blocking and nonblocking form of each 8-byte collective, batches
   * alternating. */
  static const enum op_kind pairs[][2] = {
      {op_allreduce, op_iallreduce}, {op_bcast, op_ibcast}, {op_alltoall, op_ialltoall}};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
    step_ctx ctx[2];
    double paired[2][BENCH_MAX_SAMPLES];
    for (int f = 0; f < 2; ++f) {
      ctx[f] = (step_ctx){.op = pairs[k][f], .size = 8, .nranks = nranks, .sbuf = sbuf, .rbuf = rbuf};
      validate(rank, &ctx[f]);
    }
    const double pace = bench_warmup(step, &ctx[1], 100, 2 * batch_seconds);
    const long iters = bench_agree_iters(max_iters, min_iters, pace, batch_seconds);
    for (int s = 0; s < opts.samples; ++s) {
      for (int f = 0; f < 2; ++f) {
        paired[f][s] = timed_batch(&ctx[f], iters);
      }
    }
    if (rank == 0) {
      for (int f = 0; f < 2; ++f) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s/%s.paired", bench_name, op_names[pairs[k][f]]);
        bench_result(tag, 8, bench_median(paired[f], opts.samples), "us");
      }
    }
  }

  free(sbuf);
  free(rbuf);
  bench_check(MPI_Comm_free(&nb_comm), "MPI_Comm_free");
  bench_check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
