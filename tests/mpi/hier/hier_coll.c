/* The host-aware collectives (src/coll/algorithms/two_level.hpp): barrier, bcast, reduce,
 * allreduce, allgather and alltoall, each blocking, nonblocking and persistent (a persistent
 * operation started twice, its buffers refilled in between), checked against values computed
 * locally. hier.cmake runs it under layouts faked with BATON_COLL_HOSTS (blocks, 3+1, ranks
 * interleaved across hosts, three uneven hosts), across the two simulated hosts, and with every
 * rank a host of its own (BATON_TRANSPORT=ucx); with or without the BATON_<COLL>_ALGORITHM=two_level
 * overrides.
 *
 * Sizes cross the pipeline's segment size (BATON_COLL_HIER_SEGMENT, 128 KiB by default: 160 KiB
 * and 1.2 MB messages are cut into segments); every root for bcast and reduce; in place and not;
 * SUM, MAX and a non-commutative op (2x2 matrix product mod 2^32, which the two-level reductions
 * take only when each host's ranks are consecutive: otherwise another algorithm must still give
 * the rank-ordered result); non-contiguous datatypes (bcast, allgather's receive side) and a
 * bcast whose root and receivers use different datatypes of one type signature. A communicator
 * split in reverse rank order and one of the odd ranks run the same checks (other layouts of the
 * same hosts). The barrier is checked by time: nobody leaves before the last rank, which enters
 * 20 ms late, has entered. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "mpitest_matrix.h"

enum form { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };
static const char* const form_name[NFORMS] = {"blocking", "nonblocking", "persistent"};

static MPI_Comm comm;
static int rank, size;
static const char* comm_name = "world";

static int ival(int64_t i, int r) { return (int)((i * 7 + r * 13) % 1000) - 300; }

/* Runs a request-returning call in the given form: blocking forms pass req == NULL. */
static void finish(enum form f, MPI_Request* req) {
  if (f == BLOCKING) return;
  if (f == PERSISTENT) {
    CHECK_MPI(MPI_Start(req));
  }
  CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
}
static void release(enum form f, MPI_Request* req) {
  if (f == PERSISTENT) CHECK_MPI(MPI_Request_free(req));
}

static MPI_Op matop;
static MPI_Datatype mat;

/* -- barrier -- */
/* The machine's clock, the same for every process here (MPI_Wtime counts from each process's start). */
static double clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_barrier(void) {
  for (enum form f = 0; f < NFORMS; ++f) {
    MPI_Request req = MPI_REQUEST_NULL;
    if (f == PERSISTENT) CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &req));
    for (int late = 0; late < size; late += (size > 3 ? size - 1 : 1)) {
      for (int rep = 0; rep < 2; ++rep) {
        double entered = 0;
        if (rank == late) {
          const struct timespec ts = {0, 20 * 1000 * 1000};
          nanosleep(&ts, NULL);
          entered = clock_now();
        }
        if (f == BLOCKING) {
          CHECK_MPI(MPI_Barrier(comm));
        } else {
          if (f == NONBLOCKING) CHECK_MPI(MPI_Ibarrier(comm, &req));
          finish(f, &req);
        }
        const double left = clock_now();
        double t[2] = {entered, left}, *all = malloc(sizeof t * (size_t)size);
        CHECK_MPI(MPI_Allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, comm));
        for (int r = 0; r < size; ++r)
          CHECK(all[2 * r + 1] >= all[2 * late], "%s %s barrier: rank %d left %.6f before rank %d entered %.6f",
                comm_name, form_name[f], r, all[2 * r + 1], late, all[2 * late]);
        free(all);
      }
    }
    release(f, &req);
  }
}

/* -- bcast -- */
static void test_bcast(void) {
  MPI_Datatype strided; /* 2 ints with a hole of one int (extent 3 ints) */
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  const int64_t counts[] = {0, 1, 1000, 40001, 300000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int64_t n = counts[c];
    int* buf = malloc(sizeof(int) * (size_t)(3 * n + 1));
    for (int root = 0; root < size; ++root) {
      if (n >= 40001 && root != 0 && root != size - 1) continue;
      for (enum form f = 0; f < NFORMS; ++f) {
        MPI_Request req = MPI_REQUEST_NULL;
        if (f == PERSISTENT) CHECK_MPI(MPI_Bcast_init(buf, (int)n, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        for (int rep = 0; rep < (f == PERSISTENT ? 2 : 1); ++rep) {
          const int salt = root + 10 * rep + 100 * (int)f;
          for (int64_t i = 0; i < n; ++i) buf[i] = rank == root ? ival(i, salt) : -7;
          if (f == BLOCKING) CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_INT, root, comm));
          if (f == NONBLOCKING) CHECK_MPI(MPI_Ibcast(buf, (int)n, MPI_INT, root, comm, &req));
          finish(f, &req);
          int64_t bad = 0;
          for (int64_t i = 0; i < n; ++i) bad += buf[i] != ival(i, salt);
          CHECK(bad == 0, "%s %s bcast n=%lld root=%d: %lld wrong", comm_name, form_name[f], (long long)n, root,
                (long long)bad);
        }
        release(f, &req);
      }
      /* root sends n strided elements, the others receive 2n ints, and the reverse */
      for (int dir = 0; dir < 2; ++dir) {
        for (int64_t i = 0; i < 3 * n; ++i) buf[i] = rank == root ? ival(i, root + 5) : -7;
        const int strided_here = (rank == root) == (dir == 0);
        CHECK_MPI(MPI_Bcast(buf, (int)(strided_here ? n : 2 * n), strided_here ? strided : MPI_INT, root, comm));
        int64_t bad = 0;
        for (int64_t k = 0; k < n && rank != root; ++k) {
          if (dir == 0)
            bad += buf[2 * k] != ival(3 * k, root + 5) || buf[2 * k + 1] != ival(3 * k + 2, root + 5);
          else
            bad += buf[3 * k] != ival(2 * k, root + 5) || buf[3 * k + 1] != -7 ||
                   buf[3 * k + 2] != ival(2 * k + 1, root + 5);
        }
        CHECK(bad == 0, "%s bcast mixed types (%d) n=%lld root=%d: %lld wrong", comm_name, dir, (long long)n, root,
              (long long)bad);
      }
    }
    free(buf);
  }
  MPI_Type_free(&strided);
}

/* -- reduce and allreduce (root < 0) -- */
enum kind { SUM, MAX, MATMUL, NKINDS };
static const char* const kind_name[NKINDS] = {"sum", "max", "matmul"};

static void expected(enum kind k, int64_t i, int salt, int* out) {
  if (k == MATMUL) {
    unsigned acc[4], m[4];
    int len = 1;
    mpitest_matrix(i, salt, acc);
    for (int r = 1; r < size; ++r) {
      mpitest_matrix(i, r + salt, m);
      mpitest_matmul(acc, m, &len, NULL); /* m = acc x m */
      memcpy(acc, m, sizeof m);
    }
    memcpy(out, acc, sizeof acc);
    return;
  }
  int v = k == SUM ? 0 : -1000000;
  for (int r = 0; r < size; ++r) {
    const int x = ival(i, r + salt);
    v = k == SUM ? v + x : (x > v ? x : v);
  }
  *out = v;
}

static void reduction(enum kind k, int64_t n, int root, int in_place, enum form f) {
  const int all = root < 0, receives = all || rank == root;
  const int w = k == MATMUL ? 4 : 1; /* ints per element */
  MPI_Datatype t = k == MATMUL ? mat : MPI_INT;
  MPI_Op op = k == SUM ? MPI_SUM : k == MAX ? MPI_MAX : matop;
  int* in = malloc(sizeof(int) * (size_t)(w * n + 1));
  int* out = malloc(sizeof(int) * (size_t)(w * n + 1));
  int* want = malloc(sizeof(int) * (size_t)(w * n + 1));
  const int use_in_place = in_place && receives;
  const void* sbuf = use_in_place ? MPI_IN_PLACE : in;
  MPI_Request req = MPI_REQUEST_NULL;
  if (f == PERSISTENT) {
    if (all)
      CHECK_MPI(MPI_Allreduce_init(sbuf, out, (int)n, t, op, comm, MPI_INFO_NULL, &req));
    else
      CHECK_MPI(MPI_Reduce_init(sbuf, out, (int)n, t, op, root, comm, MPI_INFO_NULL, &req));
  }
  for (int rep = 0; rep < (f == PERSISTENT ? 2 : 1); ++rep) {
    const int salt = 3 * rep + (int)f;
    int* fill = use_in_place ? out : in;
    for (int64_t i = 0; i < n; ++i) {
      if (k == MATMUL)
        mpitest_matrix(i, rank + salt, (unsigned*)fill + 4 * i);
      else
        fill[i] = ival(i, rank + salt);
    }
    if (!use_in_place)
      for (int64_t i = 0; i < w * n; ++i) out[i] = -5;
    if (f == BLOCKING) {
      if (all)
        CHECK_MPI(MPI_Allreduce(sbuf, out, (int)n, t, op, comm));
      else
        CHECK_MPI(MPI_Reduce(sbuf, out, (int)n, t, op, root, comm));
    } else {
      if (f == NONBLOCKING) {
        if (all)
          CHECK_MPI(MPI_Iallreduce(sbuf, out, (int)n, t, op, comm, &req));
        else
          CHECK_MPI(MPI_Ireduce(sbuf, out, (int)n, t, op, root, comm, &req));
      }
      finish(f, &req);
    }
    if (receives) {
      int64_t bad = 0, first = -1;
      for (int64_t i = 0; i < n; ++i) {
        expected(k, i, salt, want);
        if (memcmp(want, out + w * i, sizeof(int) * (size_t)w) != 0) {
          if (first < 0) first = i;
          ++bad;
        }
      }
      CHECK(bad == 0, "%s %s %s %s n=%lld root=%d in_place=%d: %lld wrong, first at %lld", comm_name, form_name[f],
            all ? "allreduce" : "reduce", kind_name[k], (long long)n, root, in_place, (long long)bad,
            (long long)first);
    }
  }
  release(f, &req);
  free(in);
  free(out);
  free(want);
}

static void test_reductions(void) {
  const int64_t counts[] = {0, 1, 13, 1000, 40001, 300000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int64_t n = counts[c];
    for (enum kind k = 0; k < NKINDS; ++k) {
      if (k == MATMUL && n > 40001) continue;
      for (enum form f = 0; f < NFORMS; ++f)
        for (int in_place = 0; in_place < 2; ++in_place) {
          if (n >= 40001 && (in_place || f == NONBLOCKING) && k != SUM) continue;
          reduction(k, n, -1, in_place, f);
          for (int root = 0; root < size; ++root) {
            if (n >= 40001 && root != 0 && root != size - 1) continue;
            reduction(k, n, root, in_place, f);
          }
        }
    }
  }
}

/* -- allgather -- */
static void test_allgather(void) {
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  const int64_t counts[] = {0, 1, 100, 5000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int64_t n = counts[c]; /* ints per block */
    int* in = malloc(sizeof(int) * (size_t)(n + 1));
    int* out = malloc(sizeof(int) * (size_t)(3 * n * size + 1));
    for (enum form f = 0; f < NFORMS; ++f)
      for (int variant = 0; variant < 3; ++variant) {
        /* 0: ints; 1: in place; 2: the receive side as n/2 strided elements per block */
        if (variant == 2 && n % 2) continue;
        const int strided_recv = variant == 2;
        const int in_place = variant == 1;
        const int64_t rcount = strided_recv ? n / 2 : n;
        MPI_Datatype rt = strided_recv ? strided : MPI_INT;
        const int64_t block_ints = strided_recv ? 3 * (n / 2) : n; /* extent of a block in ints */
        MPI_Request req = MPI_REQUEST_NULL;
        const void* sbuf = in_place ? MPI_IN_PLACE : in;
        if (f == PERSISTENT)
          CHECK_MPI(MPI_Allgather_init(sbuf, (int)n, MPI_INT, out, (int)rcount, rt, comm, MPI_INFO_NULL, &req));
        for (int rep = 0; rep < (f == PERSISTENT ? 2 : 1); ++rep) {
          const int salt = 7 * rep + 2 * (int)f + variant;
          for (int64_t i = 0; i < 3 * n * size; ++i) out[i] = -9;
          for (int64_t i = 0; i < n; ++i) in[i] = ival(i, rank + salt);
          if (in_place)
            for (int64_t i = 0; i < n; ++i) out[rank * n + i] = ival(i, rank + salt);
          if (f == BLOCKING) CHECK_MPI(MPI_Allgather(sbuf, (int)n, MPI_INT, out, (int)rcount, rt, comm));
          if (f == NONBLOCKING)
            CHECK_MPI(MPI_Iallgather(sbuf, (int)n, MPI_INT, out, (int)rcount, rt, comm, &req));
          finish(f, &req);
          int64_t bad = 0;
          for (int r = 0; r < size; ++r)
            for (int64_t i = 0; i < n; ++i) {
              const int64_t at = strided_recv ? r * block_ints + 3 * (i / 2) + 2 * (i % 2) : r * n + i;
              bad += out[at] != ival(i, r + salt);
            }
          if (strided_recv)
            for (int r = 0; r < size; ++r)
              for (int64_t e = 0; e < n / 2; ++e) bad += out[r * block_ints + 3 * e + 1] != -9;
          CHECK(bad == 0, "%s %s allgather n=%lld variant=%d: %lld wrong", comm_name, form_name[f], (long long)n,
                variant, (long long)bad);
        }
        release(f, &req);
      }
    free(in);
    free(out);
  }
  MPI_Type_free(&strided);
}

/* -- alltoall -- */
static int a2a_val(int from, int to, int64_t i, int salt) { return (int)((from * 131 + to * 17 + i * 3 + salt) % 9973); }

static void test_alltoall(void) {
  const int64_t counts[] = {0, 1, 16, 500, 5000};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int64_t n = counts[c]; /* ints per block */
    int* in = malloc(sizeof(int) * (size_t)(n * size + 1));
    int* out = malloc(sizeof(int) * (size_t)(n * size + 1));
    for (enum form f = 0; f < NFORMS; ++f) {
      MPI_Request req = MPI_REQUEST_NULL;
      if (f == PERSISTENT)
        CHECK_MPI(MPI_Alltoall_init(in, (int)n, MPI_INT, out, (int)n, MPI_INT, comm, MPI_INFO_NULL, &req));
      for (int rep = 0; rep < (f == PERSISTENT ? 2 : 1); ++rep) {
        const int salt = 5 * rep + (int)f;
        for (int to = 0; to < size; ++to)
          for (int64_t i = 0; i < n; ++i) in[to * n + i] = a2a_val(rank, to, i, salt);
        for (int64_t i = 0; i < n * size; ++i) out[i] = -1;
        if (f == BLOCKING) CHECK_MPI(MPI_Alltoall(in, (int)n, MPI_INT, out, (int)n, MPI_INT, comm));
        if (f == NONBLOCKING) CHECK_MPI(MPI_Ialltoall(in, (int)n, MPI_INT, out, (int)n, MPI_INT, comm, &req));
        finish(f, &req);
        int64_t bad = 0;
        for (int from = 0; from < size; ++from)
          for (int64_t i = 0; i < n; ++i) bad += out[from * n + i] != a2a_val(from, rank, i, salt);
        CHECK(bad == 0, "%s %s alltoall n=%lld: %lld wrong", comm_name, form_name[f], (long long)n, (long long)bad);
      }
      release(f, &req);
    }
    /* Ranks use different datatypes of one signature: odd ranks send n/2 elements of 2 ints with a
     * hole between them (3 ints of extent) per block, even ranks receive like that. */
    if (n % 2 == 0) {
      MPI_Datatype strided;
      CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
      CHECK_MPI(MPI_Type_commit(&strided));
      const int64_t ext = 3 * (n / 2); /* ints per strided block */
      int* sin = malloc(sizeof(int) * (size_t)(ext * size + 1));
      int* sout = malloc(sizeof(int) * (size_t)(ext * size + 1));
      const int odd = rank % 2;
      for (int to = 0; to < size; ++to)
        for (int64_t i = 0; i < n; ++i) {
          if (odd)
            sin[to * ext + 3 * (i / 2) + 2 * (i % 2)] = a2a_val(rank, to, i, 99);
          else
            sin[to * n + i] = a2a_val(rank, to, i, 99);
        }
      for (int64_t i = 0; i < ext * size; ++i) sout[i] = -1;
      CHECK_MPI(MPI_Alltoall(sin, (int)(odd ? n / 2 : n), odd ? strided : MPI_INT, sout, (int)(odd ? n : n / 2),
                             odd ? MPI_INT : strided, comm));
      int64_t bad = 0;
      for (int from = 0; from < size; ++from)
        for (int64_t i = 0; i < n; ++i) {
          const int64_t at = odd ? from * n + i : from * ext + 3 * (i / 2) + 2 * (i % 2);
          bad += sout[at] != a2a_val(from, rank, i, 99);
        }
      for (int from = 0; from < size && !odd; ++from)
        for (int64_t e = 0; e < n / 2; ++e) bad += sout[from * ext + 3 * e + 1] != -1;
      CHECK(bad == 0, "%s alltoall mixed types n=%lld: %lld wrong", comm_name, (long long)n, (long long)bad);
      free(sin);
      free(sout);
      MPI_Type_free(&strided);
    }
    free(in);
    free(out);
  }
}

static void run_all(void) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  test_barrier();
  test_bcast();
  test_reductions();
  test_allgather();
  test_alltoall();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  CHECK_MPI(MPI_Op_create(mpitest_matmul, 0, &matop));
  CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);

  comm = MPI_COMM_WORLD;
  run_all();
  /* the same hosts, other layouts: ranks in reverse order, and the odd ranks only */
  if (wsize > 2) {
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comm));
    comm_name = "reversed";
    run_all();
    MPI_Comm_free(&comm);
    MPI_Comm odd;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &odd));
    if (wrank % 2) {
      comm = odd;
      comm_name = "odd";
      run_all();
    }
    MPI_Comm_free(&odd);
  }
  MPI_Op_free(&matop);
  MPI_Type_free(&mat);
  const int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
