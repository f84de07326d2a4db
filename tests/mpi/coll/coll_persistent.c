/* Persistent collectives (MPI-4.1 7.13): every MPI_<Coll>_init checked against locally computed
 * results over many starts, with the send buffers changed between starts; starts in different
 * orders on different ranks; hundreds alive on one communicator; MPI_Startall over persistent
 * point-to-point and collective requests together; the baton_algorithm info key and communicator
 * hint. Erroneous uses: coll_persistent_errors.c. Allocations per start: coll_persistent_alloc.c. */
#include <stdint.h>

#include "mpitest.h"

static int rank, size;

enum { starts = 6 };

/* The value rank r contributes at element i in start `it` (small: sums stay exact). */
static int val(int r, int it, int i) {
  return r * 1000 + it * 37 + i % 101;
}

static void start_wait(MPI_Request* req) {
  CHECK_MPI(MPI_Start(req));
  CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
  CHECK(*req != MPI_REQUEST_NULL, "a completed persistent request was freed");
}

static int* ialloc(size_t n) {
  return (int*)mpitest_malloc((n ? n : 1) * sizeof(int));
}

/* ---- reductions: allreduce (out of place and in place), reduce, scan, exscan, reduce_scatter(_block) ---- */
static void test_reductions(int count) {
  const size_t cap = (size_t)(count + 3) * (size_t)size;
  int* sb = ialloc(cap);
  int* rb = ialloc(cap);
  int* ip = ialloc((size_t)count);
  MPI_Request req[7];
  const int root = size - 1;
  CHECK_MPI(MPI_Allreduce_init(sb, rb, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, ip, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Reduce_init(sb, rb, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
  CHECK_MPI(MPI_Scan_init(sb, rb, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]));
  CHECK_MPI(MPI_Exscan_init(sb, rb, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]));
  CHECK_MPI(MPI_Reduce_scatter_block_init(sb, rb, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[5]));
  int* rcounts = ialloc((size_t)size);
  int total = 0;
  for (int r = 0; r < size; ++r) total += rcounts[r] = count > 0 ? (r % 3) + count / 2 : 0;
  CHECK_MPI(MPI_Reduce_scatter_init(sb, rb, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[6]));
  for (int r = 0; r < size; ++r) rcounts[r] = -7; /* arrays are captured at init */
  int myoff = 0;
  for (int r = 0; r < rank; ++r) myoff += (r % 3) + count / 2;
  const int mycount = count > 0 ? (rank % 3) + count / 2 : 0;

  for (int it = 0; it < starts; ++it) {
    for (int k = 0; k < 7; ++k) {
      const int n = k == 5 ? count * size : k == 6 ? total : count;
      for (int i = 0; i < n; ++i) sb[i] = val(rank, it * 7 + k, i);
      for (size_t i = 0; i < cap; ++i) rb[i] = -1;
      for (int i = 0; i < count; ++i) ip[i] = val(rank, it * 7 + k, i);
      start_wait(&req[k]);
      for (int i = 0; i < count; ++i) {
        int sum = 0, pre = 0, ex = 0, mx = 0;
        for (int r = 0; r < size; ++r) {
          sum += val(r, it * 7 + k, i);
          if (r <= rank) pre += val(r, it * 7 + k, i);
          if (r < rank) ex += val(r, it * 7 + k, i);
          if (val(r, it * 7 + k, i) > mx) mx = val(r, it * 7 + k, i);
        }
        if (k == 0) CHECK(rb[i] == sum, "allreduce count %d start %d [%d] = %d, expected %d", count, it, i, rb[i], sum);
        if (k == 1)
          CHECK(ip[i] == mx, "allreduce in place count %d start %d [%d] = %d, expected %d", count, it, i, ip[i], mx);
        if (k == 2 && rank == root)
          CHECK(rb[i] == sum, "reduce count %d start %d [%d] = %d, expected %d", count, it, i, rb[i], sum);
        if (k == 3) CHECK(rb[i] == pre, "scan count %d start %d [%d] = %d, expected %d", count, it, i, rb[i], pre);
        if (k == 4 && rank > 0)
          CHECK(rb[i] == ex, "exscan count %d start %d [%d] = %d, expected %d", count, it, i, rb[i], ex);
      }
      if (k == 5) {
        for (int i = 0; i < count; ++i) {
          int sum = 0;
          for (int r = 0; r < size; ++r) sum += val(r, it * 7 + k, rank * count + i);
          CHECK(rb[i] == sum, "reduce_scatter_block count %d start %d [%d] = %d, expected %d", count, it, i, rb[i],
                sum);
        }
      }
      if (k == 6) {
        for (int i = 0; i < mycount; ++i) {
          int sum = 0;
          for (int r = 0; r < size; ++r) sum += val(r, it * 7 + k, myoff + i);
          CHECK(rb[i] == sum, "reduce_scatter count %d start %d [%d] = %d, expected %d", count, it, i, rb[i], sum);
        }
      }
    }
  }
  for (int k = 0; k < 7; ++k) {
    CHECK_MPI(MPI_Request_free(&req[k]));
    CHECK(req[k] == MPI_REQUEST_NULL, "MPI_Request_free did not set MPI_REQUEST_NULL");
  }
  free(sb);
  free(rb);
  free(ip);
  free(rcounts);
}

/* ---- data movement: bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), barrier ---- */
static void test_movement(int count) {
  const size_t big = (size_t)(count + size) * (size_t)size + 1;
  int* sb = ialloc(big);
  int* rb = ialloc(big);
  int* bb = ialloc((size_t)count);
  int* counts = ialloc((size_t)size);
  int* displs = ialloc((size_t)size);
  int* scounts = ialloc((size_t)size);
  int* sdispls = ialloc((size_t)size);
  int* rcounts = ialloc((size_t)size);
  int* rdispls = ialloc((size_t)size);
  int* wsd = ialloc((size_t)size);
  int* wrd = ialloc((size_t)size);
  MPI_Datatype* wtypes = (MPI_Datatype*)mpitest_malloc(sizeof(MPI_Datatype) * (size_t)size);
  const int root = size > 1 ? 1 : 0;
  /* v forms: rank r contributes count + r elements, packed with a gap of one */
  int vtotal = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = count + r;
    displs[r] = vtotal;
    vtotal += counts[r] + 1;
  }
  /* alltoallv: this rank sends (count + dest) to dest, receives (count + rank) from each */
  int so = 0, ro = 0;
  for (int r = 0; r < size; ++r) {
    scounts[r] = count + r;
    sdispls[r] = so;
    so += scounts[r];
    rcounts[r] = count + rank;
    rdispls[r] = ro;
    ro += rcounts[r];
    wsd[r] = sdispls[r] * (int)sizeof(int);
    wrd[r] = rdispls[r] * (int)sizeof(int);
    wtypes[r] = MPI_INT;
  }
  MPI_Request req[11];
  CHECK_MPI(MPI_Bcast_init(bb, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Gather_init(sb, count, MPI_INT, rb, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Gatherv_init(sb, count + rank, MPI_INT, rb, counts, displs, MPI_INT, root, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req[2]));
  CHECK_MPI(MPI_Scatter_init(sb, count, MPI_INT, rb, count, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]));
  CHECK_MPI(MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, count + rank, MPI_INT, root, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &req[4]));
  CHECK_MPI(MPI_Allgather_init(sb, count, MPI_INT, rb, count, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[5]));
  CHECK_MPI(MPI_Allgatherv_init(sb, count + rank, MPI_INT, rb, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &req[6]));
  CHECK_MPI(MPI_Alltoall_init(sb, count, MPI_INT, rb, count, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[7]));
  CHECK_MPI(MPI_Alltoallv_init(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[8]));
  CHECK_MPI(
      MPI_Alltoallw_init(sb, scounts, wsd, wtypes, rb, rcounts, wrd, wtypes, MPI_COMM_WORLD, MPI_INFO_NULL, &req[9]));
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[10]));
  /* arrays are used as given at init: scribble over them */
  for (int r = 0; r < size; ++r) {
    counts[r] = displs[r] = scounts[r] = sdispls[r] = rcounts[r] = rdispls[r] = wsd[r] = wrd[r] = -3;
    wtypes[r] = MPI_DATATYPE_NULL;
  }

  for (int it = 0; it < starts; ++it) {
    for (int k = 0; k < 11; ++k) {
      const int tag = it * 11 + k;
      for (size_t i = 0; i < big; ++i) {
        sb[i] = val(rank, tag, (int)i);
        rb[i] = -1;
      }
      for (int i = 0; i < count; ++i) bb[i] = rank == root ? val(root, tag, i) : -1;
      start_wait(&req[k]);
      int off = 0;
      switch (k) {
        case 0:
          for (int i = 0; i < count; ++i) CHECK(bb[i] == val(root, tag, i), "bcast start %d [%d] = %d", it, i, bb[i]);
          break;
        case 1:
          if (rank == root)
            for (int r = 0; r < size; ++r)
              for (int i = 0; i < count; ++i)
                CHECK(rb[r * count + i] == val(r, tag, i), "gather start %d from %d [%d] = %d", it, r, i,
                      rb[r * count + i]);
          break;
        case 2:
          if (rank == root)
            for (int r = 0; r < size; ++r) {
              for (int i = 0; i < count + r; ++i)
                CHECK(rb[off + i] == val(r, tag, i), "gatherv start %d from %d [%d] = %d", it, r, i, rb[off + i]);
              CHECK(rb[off + count + r] == -1, "gatherv wrote the gap after rank %d's block", r);
              off += count + r + 1;
            }
          break;
        case 3:
          for (int i = 0; i < count; ++i)
            CHECK(rb[i] == val(root, tag, rank * count + i), "scatter start %d [%d] = %d", it, i, rb[i]);
          break;
        case 4:
          for (int r = 0; r < rank; ++r) off += count + r + 1;
          for (int i = 0; i < count + rank; ++i)
            CHECK(rb[i] == val(root, tag, off + i), "scatterv start %d [%d] = %d", it, i, rb[i]);
          CHECK(rb[count + rank] == -1, "scatterv wrote past the block");
          break;
        case 5:
          for (int r = 0; r < size; ++r)
            for (int i = 0; i < count; ++i)
              CHECK(rb[r * count + i] == val(r, tag, i), "allgather start %d from %d [%d] = %d", it, r, i,
                    rb[r * count + i]);
          break;
        case 6:
          for (int r = 0; r < size; ++r) {
            for (int i = 0; i < count + r; ++i)
              CHECK(rb[off + i] == val(r, tag, i), "allgatherv start %d from %d [%d] = %d", it, r, i, rb[off + i]);
            off += count + r + 1;
          }
          break;
        case 7:
          for (int r = 0; r < size; ++r)
            for (int i = 0; i < count; ++i)
              CHECK(rb[r * count + i] == val(r, tag, rank * count + i), "alltoall start %d from %d [%d] = %d", it, r, i,
                    rb[r * count + i]);
          break;
        case 8:
        case 9:
          for (int r = 0; r < size; ++r) {
            /* rank r sent its elements [sum_{d<rank}(count+d), +count+rank) to this rank */
            int soff = 0;
            for (int d = 0; d < rank; ++d) soff += count + d;
            for (int i = 0; i < count + rank; ++i)
              CHECK(rb[off + i] == val(r, tag, soff + i), "alltoall%c start %d from %d [%d] = %d", k == 8 ? 'v' : 'w',
                    it, r, i, rb[off + i]);
            off += count + rank;
          }
          break;
        default:
          break;
      }
    }
  }
  for (int k = 0; k < 11; ++k) CHECK_MPI(MPI_Request_free(&req[k]));
  free(sb);
  free(rb);
  free(bb);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
  free(wsd);
  free(wrd);
  free(wtypes);
}

/* ---- large-count forms ---- */
static void test_large_count_forms(void) {
  MPI_Count n = 5;
  int sb[5], rb[5];
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init_c(sb, rb, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  for (int it = 0; it < 3; ++it) {
    for (int i = 0; i < 5; ++i) sb[i] = val(rank, it, i);
    start_wait(&req);
    for (int i = 0; i < 5; ++i) {
      int sum = 0;
      for (int r = 0; r < size; ++r) sum += val(r, it, i);
      CHECK(rb[i] == sum, "Allreduce_init_c [%d] = %d, expected %d", i, rb[i], sum);
    }
  }
  CHECK_MPI(MPI_Request_free(&req));
  CHECK_MPI(MPI_Bcast_init_c(rb, n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  for (int i = 0; i < 5; ++i) rb[i] = rank == 0 ? 40 + i : -1;
  start_wait(&req);
  for (int i = 0; i < 5; ++i) CHECK(rb[i] == 40 + i, "Bcast_init_c [%d] = %d", i, rb[i]);
  CHECK_MPI(MPI_Request_free(&req));
}

/* ---- starts in different orders on different ranks ---- */
static void test_start_orders(void) {
  enum { k = 9 };
  int sb[k][4], rb[k][4];
  MPI_Request req[k], perm[k];
  for (int j = 0; j < k; ++j)
    CHECK_MPI(MPI_Allreduce_init(sb[j], rb[j], 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[j]));
  for (int it = 0; it < 5; ++it) {
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < 4; ++i) {
        sb[j][i] = val(rank, it * k + j, i);
        rb[j][i] = -1;
      }
    /* rank-dependent order: rotated by rank + start, reversed on odd ranks */
    for (int j = 0; j < k; ++j) {
      int idx = (j + rank + it) % k;
      if (rank % 2) idx = k - 1 - idx;
      perm[j] = req[idx];
    }
    if (it % 2 == 0) {
      for (int j = 0; j < k; ++j) CHECK_MPI(MPI_Start(&perm[j]));
    } else {
      CHECK_MPI(MPI_Startall(k, perm));
    }
    /* complete in yet another order: one by one with Waitany */
    for (int done = 0; done < k; ++done) {
      int index = -1;
      CHECK_MPI(MPI_Waitany(k, perm, &index, MPI_STATUS_IGNORE));
      CHECK(index >= 0 && index < k, "Waitany index %d", index);
    }
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < 4; ++i) {
        int sum = 0;
        for (int r = 0; r < size; ++r) sum += val(r, it * k + j, i);
        CHECK(rb[j][i] == sum, "out-of-order start %d op %d [%d] = %d, expected %d", it, j, i, rb[j][i], sum);
      }
  }
  for (int j = 0; j < k; ++j) CHECK_MPI(MPI_Request_free(&req[j]));
}

/* ---- hundreds alive on one communicator ---- */
static void test_many_alive(void) {
  enum { k = 400 };
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  int* sb = ialloc(k);
  int* rb = ialloc(k);
  MPI_Request* req = (MPI_Request*)mpitest_malloc(sizeof(MPI_Request) * k);
  for (int j = 0; j < k; ++j) {
    if (j % 2)
      CHECK_MPI(MPI_Allreduce_init(&sb[j], &rb[j], 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req[j]));
    else
      CHECK_MPI(MPI_Bcast_init(&rb[j], 1, MPI_INT, j % size, comm, MPI_INFO_NULL, &req[j]));
  }
  /* a blocking and a nonblocking collective in between never match the persistent ones */
  int x = rank, y = -1;
  MPI_Request nb;
  CHECK_MPI(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, comm, &nb));
  for (int it = 0; it < 3; ++it) {
    for (int j = 0; j < k; ++j) {
      sb[j] = val(rank, it, j);
      rb[j] = (j % 2 == 0 && rank == j % size) ? val(rank, it, j) : -1;
    }
    CHECK_MPI(MPI_Startall(k, req));
    int z = -1;
    CHECK_MPI(MPI_Allreduce(&rank, &z, 1, MPI_INT, MPI_SUM, comm));
    CHECK(z == size * (size - 1) / 2, "blocking allreduce among persistent ones: %d", z);
    CHECK_MPI(MPI_Waitall(k, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < k; ++j) {
      int want = 0;
      if (j % 2)
        for (int r = 0; r < size; ++r) want += val(r, it, j);
      else
        want = val(j % size, it, j);
      CHECK(rb[j] == want, "op %d of %d alive, start %d: %d, expected %d", j, k, it, rb[j], want);
    }
  }
  CHECK_MPI(MPI_Wait(&nb, MPI_STATUS_IGNORE));
  CHECK(y == size - 1, "nonblocking allreduce among persistent ones: %d", y);
  for (int j = 0; j < k; ++j) CHECK_MPI(MPI_Request_free(&req[j]));
  CHECK_MPI(MPI_Comm_free(&comm));
  free(sb);
  free(rb);
  free(req);
}

/* ---- Startall over persistent point-to-point and collective requests ---- */
static void test_mixed_startall(void) {
  int out = 0, in = -1, sb = 0, rb = -1, bc = -1;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request req[4];
  CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Allreduce_init(&sb, &rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &req[2]));
  CHECK_MPI(MPI_Bcast_init(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]));
  for (int it = 0; it < 10; ++it) {
    out = val(rank, it, 0);
    sb = val(rank, it, 1);
    bc = rank == 0 ? val(0, it, 2) : -1;
    in = rb = -1;
    CHECK_MPI(MPI_Startall(4, req));
    MPI_Status st[4];
    if (it % 2) {
      CHECK_MPI(MPI_Waitall(4, req, st));
    } else {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Testall(4, req, &flag, st));
    }
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += val(r, it, 1);
    CHECK(in == val(left, it, 0), "persistent recv got %d", in);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 5, "persistent recv status %d/%d", st[0].MPI_SOURCE,
          st[0].MPI_TAG);
    CHECK(rb == sum, "persistent allreduce beside p2p: %d, expected %d", rb, sum);
    CHECK(bc == val(0, it, 2), "persistent bcast beside p2p: %d", bc);
  }
  for (int j = 0; j < 4; ++j) CHECK_MPI(MPI_Request_free(&req[j]));
}

/* ---- algorithm choice: info key per operation, communicator hint ---- */
static void test_algorithms(void) {
  static const char* const names[] = {"recursive_doubling", "ring", "rabenseifner"};
  enum { n = 3000 };
  int* sb = ialloc(n);
  int* rb = ialloc(n);
  for (int a = 0; a < 3; ++a) {
    MPI_Info info;
    MPI_Request req;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "baton_algorithm", names[a]));
    CHECK_MPI(MPI_Allreduce_init(sb, rb, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &req));
    CHECK_MPI(MPI_Info_free(&info)); /* the request does not need it */
    for (int it = 0; it < 3; ++it) {
      for (int i = 0; i < n; ++i) sb[i] = val(rank, it + a, i);
      start_wait(&req);
      int bad = 0;
      for (int i = 0; i < n; ++i) {
        int sum = 0;
        for (int r = 0; r < size; ++r) sum += val(r, it + a, i);
        bad += rb[i] != sum;
      }
      CHECK(bad == 0, "allreduce with baton_algorithm=%s: %d wrong elements", names[a], bad);
    }
    CHECK_MPI(MPI_Request_free(&req));
  }
  /* communicator default */
  MPI_Comm comm;
  MPI_Info info;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "baton_bcast_algorithm", "scatter_allgather"));
  CHECK_MPI(MPI_Comm_set_info(comm, info));
  CHECK_MPI(MPI_Info_free(&info));
  MPI_Request req;
  CHECK_MPI(MPI_Bcast_init(rb, n, MPI_INT, 0, comm, MPI_INFO_NULL, &req));
  for (int it = 0; it < 3; ++it) {
    for (int i = 0; i < n; ++i) rb[i] = rank == 0 ? val(0, it, i) : -1;
    start_wait(&req);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += rb[i] != val(0, it, i);
    CHECK(bad == 0, "bcast with the communicator's baton_bcast_algorithm: %d wrong elements", bad);
  }
  CHECK_MPI(MPI_Request_free(&req));
  CHECK_MPI(MPI_Comm_free(&comm));
  free(sb);
  free(rb);
}

/* ---- inactive requests: tests return at once, waits too, status empty ---- */
static void test_inactive(void) {
  int a = rank, b = -1;
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  int flag = 0;
  MPI_Status st;
  CHECK_MPI(MPI_Test(&req, &flag, &st));
  CHECK(flag == 1, "MPI_Test on a never-started persistent collective gave flag %d", flag);
  CHECK(b == -1, "the operation ran before MPI_Start");
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  flag = 0;
  CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1, "MPI_Request_get_status on an inactive request gave flag %d", flag);
  start_wait(&req);
  CHECK(b == size * (size - 1) / 2, "allreduce gave %d", b);
  flag = 0;
  CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE)); /* inactive again */
  CHECK(flag == 1, "MPI_Test on a completed persistent collective gave flag %d", flag);
  CHECK_MPI(MPI_Request_free(&req));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const int counts[] = {0, 1, 7, 9000};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    test_reductions(counts[c]);
    test_movement(counts[c]);
  }
  test_large_count_forms();
  test_start_orders();
  test_many_alive();
  test_mixed_startall();
  test_algorithms();
  test_inactive();
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
