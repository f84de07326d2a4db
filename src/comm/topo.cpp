// Process topologies (see topo.hpp): the Cartesian queries and the constructors.
#include "comm/topo.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "coll/coll.hpp"
#include "core/datatype.hpp"

namespace baton::comm {

using namespace core;

errc dims_create(int nnodes, int ndims, int* dims) {
  if (ndims < 0) return error_set(errc::dims, "ndims is %d (must be >= 0)", ndims);
  if (nnodes <= 0) return error_set(errc::arg, "nnodes is %d (must be > 0)", nnodes);
  if (ndims == 0) return errc::success;  // nothing to fill (MPICH and Open MPI accept it too)
  if (!dims) return error_set(errc::arg, "dims is NULL");
  int64_t fixed = 1;
  int nfree = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return error_set(errc::dims, "dims[%d] is %d (must be >= 0)", i, dims[i]);
    if (dims[i] == 0) {
      ++nfree;
    } else {
      fixed *= dims[i];
      if (fixed > nnodes) break;
    }
  }
  if (nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes))
    return error_set(errc::dims, "the fixed entries of dims do not divide nnodes = %d", nnodes);
  if (nfree == 0) return errc::success;
  // The free extents: a non-increasing sequence with product nnodes / fixed whose spread (largest
  // minus smallest) is the least possible, the lexicographically smallest among equals (what
  // MPICH's table of expected decompositions holds in all but a few tie cases).
  const int64_t rest = nnodes / fixed;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d * d <= rest; ++d)
    if (rest % d == 0) {
      divisors.push_back(d);
      if (d != rest / d) divisors.push_back(rest / d);
    }
  std::sort(divisors.begin(), divisors.end());
  std::vector<int64_t> cur(static_cast<size_t>(nfree)), ext;
  int64_t best = INT64_MAX;
  // Position i gets d <= cur[i-1] with d^(nfree-i) >= left (d is the largest of what remains).
  auto search = [&](auto&& self, int i, int64_t left) -> void {
    if (i == nfree) {
      if (left == 1 && cur[0] - cur[size_t(nfree) - 1] < best) {
        best = cur[0] - cur[size_t(nfree) - 1];
        ext = cur;
      }
      return;
    }
    const int64_t cap = i == 0 ? rest : cur[size_t(i) - 1];
    for (int64_t d : divisors) {
      if (d > cap) break;
      if (left % d != 0) continue;
      if (i > 0 && cur[0] - d >= best) continue;  // the spread only grows from here
      int64_t pw = 1;
      bool enough = false;
      for (int k = i; k < nfree && !enough; ++k) enough = (pw *= d) >= left;
      if (!enough) continue;
      cur[size_t(i)] = d;
      self(self, i + 1, left / d);
    }
  };
  search(search, 0, rest);
  size_t k = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = int(ext[k++]);
  return errc::success;
}

errc cart_rank(const topology& t, const int* coords, int* rank) {
  int r = 0;
  for (size_t d = 0; d < t.dims.size(); ++d) {
    int x = coords[d];
    const int n = t.dims[d];
    if (x < 0 || x >= n) {
      if (!t.periods[d])
        return error_set(errc::arg, "coords[%zu] = %d is outside [0, %d) of a non-periodic dimension", d, x, n);
      x = ((x % n) + n) % n;
    }
    r = r * n + x;
  }
  *rank = r;
  return errc::success;
}

void cart_coords(const topology& t, int rank, int* coords) {
  for (size_t d = t.dims.size(); d-- > 0;) {
    coords[d] = rank % t.dims[d];
    rank /= t.dims[d];
  }
}

void cart_shift(const topology& t, int rank, int dim, int disp, int* source, int* dest) {
  std::vector<int> c(t.dims.size());
  cart_coords(t, rank, c.data());
  const int n = t.dims[size_t(dim)];
  const int here = c[size_t(dim)];
  auto at = [&](int64_t x) {
    if (x < 0 || x >= n) {
      if (!t.periods[size_t(dim)]) return -1;
      x = ((x % n) + n) % n;
    }
    c[size_t(dim)] = int(x);
    int r = 0;
    (void)cart_rank(t, c.data(), &r);
    c[size_t(dim)] = here;
    return r;
  };
  *dest = at(int64_t(here) + disp);
  *source = at(int64_t(here) - disp);
}

namespace {

// A Cartesian topology for rank `rank` of a communicator.
std::shared_ptr<topology> make_cart(std::vector<int> dims, std::vector<int> periods, int rank) {
  auto t = std::make_shared<topology>();
  t->kind = topo_kind::cart;
  t->dims = std::move(dims);
  t->periods = std::move(periods);
  t->coords.resize(t->dims.size());
  cart_coords(*t, rank, t->coords.data());
  for (size_t d = 0; d < t->dims.size(); ++d) {
    int lo = -1, hi = -1;
    cart_shift(*t, rank, int(d), 1, &lo, &hi);
    t->in.push_back(lo);
    t->in.push_back(hi);
    t->out.push_back(lo);
    t->out.push_back(hi);
    t->send_order.push_back(int(2 * d + 1));
    t->send_order.push_back(int(2 * d));
  }
  return t;
}

void identity_order(topology& t) {
  t.send_order.resize(t.out.size());
  for (size_t i = 0; i < t.out.size(); ++i) t.send_order[i] = int(i);
}

// The first n ranks of parent, as world ranks (the new communicator of a constructor).
std::vector<int> first_ranks(const comm* parent, int n) {
  return std::vector<int>(parent->world.begin(), parent->world.begin() + n);
}

errc check_weights(const int* w, int n, const char* what) {
  for (int i = 0; i < n; ++i)
    if (w[i] < 0) return error_set(errc::arg, "%s[%d] is %d (weights must be >= 0)", what, i, w[i]);
  return errc::success;
}

errc check_ranks(const comm* parent, const int* r, int n, const char* what) {
  for (int i = 0; i < n; ++i)
    if (r[i] < 0 || r[i] >= parent->size)
      return error_set(errc::rank, "%s[%d] = %d is not a rank of the communicator (size %d)", what, i, r[i],
                       parent->size);
  return errc::success;
}

}  // namespace

errc cart_create(comm* parent, int ndims, const int* dims, const int* periods, comm** out) {
  if (ndims < 0) return error_set(errc::dims, "ndims is %d (must be >= 0)", ndims);
  if (ndims > 0 && (!dims || !periods)) return error_set(errc::arg, "%s is NULL", dims ? "periods" : "dims");
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return error_set(errc::dims, "dims[%d] is %d (must be > 0)", i, dims[i]);
    n *= dims[i];
    if (n > parent->size) break;
  }
  if (n > parent->size)
    return error_set(errc::arg, "the grid has more processes than the communicator (size %d)", parent->size);
  std::vector<int> d(dims, dims + ndims), p(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) p[size_t(i)] = periods[i] ? 1 : 0;
  comm* c = nullptr;
  if (errc e = comm_create(parent, first_ranks(parent, int(n)), &c); e != errc::success) return e;
  if (c) c->topo = make_cart(std::move(d), std::move(p), c->rank);
  *out = c;
  return errc::success;
}

errc cart_sub(comm* parent, const int* remain_dims, comm** out) {
  const topology& t = *parent->topo;
  if (!remain_dims && !t.dims.empty()) return error_set(errc::arg, "remain_dims is NULL");
  int color = 0, key = 0;
  std::vector<int> d, p;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (remain_dims[i]) {
      key = key * t.dims[i] + t.coords[i];
      d.push_back(t.dims[i]);
      p.push_back(t.periods[i]);
    } else {
      color = color * t.dims[i] + t.coords[i];
    }
  }
  comm* c = nullptr;
  if (errc e = comm_split(parent, color, key, &c); e != errc::success) return e;
  c->topo = make_cart(std::move(d), std::move(p), c->rank);
  *out = c;
  return errc::success;
}

errc graph_create(comm* parent, int nnodes, const int* index, const int* edges, comm** out) {
  if (nnodes < 0 || nnodes > parent->size)
    return error_set(errc::arg, "nnodes is %d (must be in [0, %d], the communicator's size)", nnodes, parent->size);
  if (nnodes > 0 && !index) return error_set(errc::arg, "index is NULL");
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev) return error_set(errc::arg, "index[%d] = %d is below index[%d] = %d", i, index[i], i - 1, prev);
    prev = index[i];
  }
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  if (nedges > 0 && !edges) return error_set(errc::arg, "edges is NULL");
  for (int i = 0; i < nedges; ++i)
    if (edges[i] < 0 || edges[i] >= nnodes)
      return error_set(errc::arg, "edges[%d] = %d is not a node of the graph (nnodes %d)", i, edges[i], nnodes);
  comm* c = nullptr;
  if (errc e = comm_create(parent, first_ranks(parent, nnodes), &c); e != errc::success) return e;
  if (c) {
    auto t = std::make_shared<topology>();
    t->kind = topo_kind::graph;
    t->index.assign(index, index + nnodes);
    t->edges.assign(edges, edges + nedges);
    const int* nb = graph_neighbors(*t, c->rank);
    t->in.assign(nb, nb + graph_degree(*t, c->rank));
    t->out = t->in;
    identity_order(*t);
    c->topo = std::move(t);
  }
  *out = c;
  return errc::success;
}

errc dist_graph_create_adjacent(comm* parent, int indegree, const int* sources, const int* sweights, int outdegree,
                                const int* dests, const int* dweights, comm** out) {
  if (indegree < 0) return error_set(errc::arg, "indegree is %d (must be >= 0)", indegree);
  if (outdegree < 0) return error_set(errc::arg, "outdegree is %d (must be >= 0)", outdegree);
  if (indegree > 0 && !sources) return error_set(errc::arg, "sources is NULL");
  if (outdegree > 0 && !dests) return error_set(errc::arg, "destinations is NULL");
  if (errc e = check_ranks(parent, sources, indegree, "sources"); e != errc::success) return e;
  if (errc e = check_ranks(parent, dests, outdegree, "destinations"); e != errc::success) return e;
  const bool weighted = sweights || dweights;
  if (weighted) {
    if (!sweights || !dweights)
      return error_set(errc::arg, "sourceweights and destweights must both be MPI_UNWEIGHTED or neither");
    if (errc e = check_weights(sweights, indegree, "sourceweights"); e != errc::success) return e;
    if (errc e = check_weights(dweights, outdegree, "destweights"); e != errc::success) return e;
  }
  comm* c = nullptr;
  if (errc e = comm_dup(parent, &c); e != errc::success) return e;
  auto t = std::make_shared<topology>();
  t->kind = topo_kind::dist_graph;
  t->weighted = weighted;
  t->sources.assign(sources, sources + indegree);
  t->dests.assign(dests, dests + outdegree);
  if (weighted) {
    t->source_weights.assign(sweights, sweights + indegree);
    t->dest_weights.assign(dweights, dweights + outdegree);
  }
  t->in = t->sources;
  t->out = t->dests;
  identity_order(*t);
  c->topo = std::move(t);
  *out = c;
  return errc::success;
}

errc dist_graph_create(comm* parent, int n, const int* sources, const int* degrees, const int* dests,
                       const int* weights, comm** out) {
  if (n < 0) return error_set(errc::arg, "n is %d (must be >= 0)", n);
  if (n > 0 && (!sources || !degrees))
    return error_set(errc::arg, "%s is NULL", sources ? "degrees" : "sources");
  if (errc e = check_ranks(parent, sources, n, "sources"); e != errc::success) return e;
  int64_t nedges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return error_set(errc::arg, "degrees[%d] is %d (must be >= 0)", i, degrees[i]);
    nedges += degrees[i];
  }
  if (nedges > 0 && !dests) return error_set(errc::arg, "destinations is NULL");
  if (errc e = check_ranks(parent, dests, int(nedges), "destinations"); e != errc::success) return e;
  if (weights) {
    if (errc e = check_weights(weights, int(nedges), "weights"); e != errc::success) return e;
  }
  // Every edge s -> d goes to s (an out-edge) and to d (an in-edge). Records from each rank arrive
  // in that rank's edge order, and ranks in rank order, so the edges between one pair are listed in
  // the same order by both ends (which the neighborhood collectives' matching relies on).
  struct record {
    int32_t is_out, peer, weight;
  };
  const int size = parent->size;
  std::vector<std::vector<record>> to(static_cast<size_t>(size));
  int64_t k = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      const int s = sources[i], d = dests[k], w = weights ? weights[k] : 1;
      to[size_t(s)].push_back(record{1, d, w});
      to[size_t(d)].push_back(record{0, s, w});
    }
  // Counts (bytes, times 2, plus whether this rank's edges are weighted), then the records.
  std::vector<int64_t> scount(static_cast<size_t>(size)), rcount(static_cast<size_t>(size)), sdispl(static_cast<size_t>(size)), rdispl(static_cast<size_t>(size));
  std::vector<record> sbuf;
  for (int r = 0; r < size; ++r) {
    sdispl[size_t(r)] = int64_t(sbuf.size() * sizeof(record));
    scount[size_t(r)] = int64_t(to[size_t(r)].size() * sizeof(record));
    sbuf.insert(sbuf.end(), to[size_t(r)].begin(), to[size_t(r)].end());
  }
  std::vector<int64_t> shdr(static_cast<size_t>(size)), rhdr(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) shdr[size_t(r)] = scount[size_t(r)] * 2 + (weights ? 1 : 0);
  const datatype* bt = predefined_datatype(0x247);  // MPI_BYTE
  coll::coll_args a;
  a.kind = coll::coll_kind::alltoall;
  a.c = parent;
  a.sendbuf = shdr.data();
  a.recvbuf = rhdr.data();
  a.count = a.rcount = sizeof(int64_t);
  a.type = a.rtype = bt;
  if (errc e = coll::run_blocking(a); e != errc::success) return e;
  bool weighted = false;
  int64_t total = 0;
  for (int r = 0; r < size; ++r) {
    weighted |= (rhdr[size_t(r)] & 1) != 0;
    rcount[size_t(r)] = rhdr[size_t(r)] / 2;
    rdispl[size_t(r)] = total;
    total += rcount[size_t(r)];
  }
  std::vector<record> rbuf(size_t(total) / sizeof(record) + 1);
  coll::coll_args v;
  v.kind = coll::coll_kind::alltoallv;
  v.c = parent;
  v.sendbuf = sbuf.empty() ? static_cast<const void*>(rbuf.data()) : sbuf.data();
  v.recvbuf = rbuf.data();
  v.type = v.rtype = bt;
  v.scounts = scount.data();
  v.sdispls = sdispl.data();
  v.rcounts = rcount.data();
  v.rdispls = rdispl.data();
  if (errc e = coll::run_blocking(v); e != errc::success) return e;
  comm* c = nullptr;
  if (errc e = comm_dup(parent, &c); e != errc::success) return e;
  auto t = std::make_shared<topology>();
  t->kind = topo_kind::dist_graph;
  t->weighted = weighted;
  for (size_t i = 0; i < size_t(total) / sizeof(record); ++i) {
    const record& rec = rbuf[i];
    (rec.is_out ? t->dests : t->sources).push_back(rec.peer);
    if (weighted) (rec.is_out ? t->dest_weights : t->source_weights).push_back(rec.weight);
  }
  t->in = t->sources;
  t->out = t->dests;
  identity_order(*t);
  c->topo = std::move(t);
  *out = c;
  return errc::success;
}

}  // namespace baton::comm
