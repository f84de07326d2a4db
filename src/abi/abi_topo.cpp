// Process topologies (MPI-4.1 chapter 8): Cartesian, graph and distributed graph constructors and
// queries. The core (src/core/topo.hpp) keeps the topology on the communicator, src/comm/topo.cpp
// builds it; reorder is ignored (identity mapping), which the standard allows.
#include <algorithm>

#include "abi/abi_coll.hpp"
#include "abi/abi_objects.hpp"
#include "comm/topo.hpp"
#include "core/topo.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

int empty_weights_dummy = 0;  // stands for a zero-length weight array (MPI_WEIGHTS_EMPTY)

errc non_null(const void* p, const char* what) {
  if (!p) return core::error_set(errc::arg, "%s is NULL", what);
  return errc::success;
}

// A valid communicator (*c set) with a topology of kind k (any kind when k is null).
errc check_topo(const char* fn, MPI_Comm comm, core::comm** c, const core::topology** t,
                const core::topo_kind* k) {
  if (errc e = abi::comm_check(fn, comm, c); e != errc::success) return e;
  *t = core::topo_of(*c);
  static const char* const names[] = {"a Cartesian", "a graph", "a distributed graph"};
  if (k && (!*t || (*t)->kind != *k))
    return core::error_set(errc::topology, "the communicator does not have %s topology", names[int(*k)]);
  return errc::success;
}

constexpr core::topo_kind cart = core::topo_kind::cart;
constexpr core::topo_kind graph = core::topo_kind::graph;
constexpr core::topo_kind dist = core::topo_kind::dist_graph;

errc check_info(MPI_Info info) {
  if (info != MPI_INFO_NULL && !abi::to_info(info)) return errc::info;
  return errc::success;
}

// Weight arrays of the distributed graph constructors: MPI_UNWEIGHTED gives nullptr,
// MPI_WEIGHTS_EMPTY (or NULL) is only valid for zero entries.
errc weights_of(const int* w, int64_t n, const char* what, const int** out) {
  if (w == MPI_UNWEIGHTED) {
    *out = nullptr;
    return errc::success;
  }
  if (w == MPI_WEIGHTS_EMPTY || !w) {
    if (n > 0)
      return core::error_set(errc::arg, "%s is %s but there are %lld edges", what,
                             w ? "MPI_WEIGHTS_EMPTY" : "NULL", static_cast<long long>(n));
    *out = &empty_weights_dummy;
    return errc::success;
  }
  *out = w;
  return errc::success;
}

MPI_Comm handle_or_null(core::comm* c) { return c ? abi::to_handle(c) : MPI_COMM_NULL; }

// What every constructor does around its own work: the output pointer checked first, then the
// new communicator stored (MPI_COMM_NULL for a rank the new one leaves out).
template <class Make>
errc new_comm(MPI_Comm* out, const char* what, Make make) {
  if (errc e = non_null(out, what); e != errc::success) return e;
  core::comm* n = nullptr;
  errc e = make(&n);
  *out = e == errc::success ? handle_or_null(n) : MPI_COMM_NULL;  // a failed call gives no communicator
  return e;
}

}  // namespace

namespace baton::impl {

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* fn = "MPI_Dims_create";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return comm::dims_create(nnodes, ndims, dims); });
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int /*reorder*/,
                     MPI_Comm* comm_cart) {
  const char* fn = "MPI_Cart_create";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm_old, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm_old"); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    return new_comm(comm_cart, "comm_cart", [&](core::comm** n) { return comm::cart_create(c, ndims, dims, periods, n); });
  });
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const char* fn = "MPI_Cartdim_get";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = non_null(ndims, "ndims"); e != errc::success) return abi::raise(fn, c, e);
  *ndims = int(t->dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* fn = "MPI_Cart_get";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  const int nd = int(t->dims.size());
  if (maxdims < nd) {
    (void)core::error_set(errc::arg, "maxdims is %d but the topology has %d dimensions", maxdims, nd);
    return abi::raise(fn, c, errc::arg);
  }
  if (nd > 0 && (!dims || !periods || !coords)) {
    (void)core::error_set(errc::arg, "%s is NULL", !dims ? "dims" : !periods ? "periods" : "coords");
    return abi::raise(fn, c, errc::arg);
  }
  std::copy(t->dims.begin(), t->dims.end(), dims);
  std::copy(t->periods.begin(), t->periods.end(), periods);
  std::copy(t->coords.begin(), t->coords.end(), coords);
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* fn = "MPI_Cart_rank";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = non_null(rank, "rank"); e != errc::success) return abi::raise(fn, c, e);
  if (!t->dims.empty()) {
    if (errc e = non_null(coords, "coords"); e != errc::success) return abi::raise(fn, c, e);
  }
  if (errc e = comm::cart_rank(*t, coords, rank); e != errc::success) return abi::raise(fn, c, e);
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* fn = "MPI_Cart_coords";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  const int nd = int(t->dims.size());
  if (rank < 0 || rank >= c->size) {
    (void)core::error_set(errc::rank, "rank %d is not in [0, %d)", rank, c->size);
    return abi::raise(fn, c, errc::rank);
  }
  if (maxdims < nd) {
    (void)core::error_set(errc::arg, "maxdims is %d but the topology has %d dimensions", maxdims, nd);
    return abi::raise(fn, c, errc::arg);
  }
  if (nd > 0) {
    if (errc e = non_null(coords, "coords"); e != errc::success) return abi::raise(fn, c, e);
  }
  comm::cart_coords(*t, rank, coords);
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* fn = "MPI_Cart_shift";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  if (direction < 0 || direction >= int(t->dims.size())) {
    (void)core::error_set(errc::arg, "direction %d is not in [0, %d)", direction, int(t->dims.size()));
    return abi::raise(fn, c, errc::arg);
  }
  if (!rank_source || !rank_dest) {
    (void)core::error_set(errc::arg, "%s is NULL", rank_source ? "rank_dest" : "rank_source");
    return abi::raise(fn, c, errc::arg);
  }
  int s = -1, d = -1;
  comm::cart_shift(*t, c->rank, direction, disp, &s, &d);
  *rank_source = s < 0 ? MPI_PROC_NULL : s;
  *rank_dest = d < 0 ? MPI_PROC_NULL : d;
  return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* fn = "MPI_Cart_sub";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &cart); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    return new_comm(newcomm, "newcomm", [&](core::comm** n) { return comm::cart_sub(c, remain_dims, n); });
  });
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* fn = "MPI_Cart_map";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm"); e != errc::success) return abi::raise(fn, c, e);
  (void)periods;
  errc e = errc::success;
  int64_t n = 1;
  if (ndims < 0) e = core::error_set(errc::dims, "ndims is %d (must be >= 0)", ndims);
  else if (ndims > 0 && !dims) e = core::error_set(errc::arg, "dims is NULL");
  else if (!newrank) e = core::error_set(errc::arg, "newrank is NULL");
  for (int i = 0; e == errc::success && i < ndims && n <= c->size; ++i) {
    if (dims[i] <= 0) e = core::error_set(errc::dims, "dims[%d] is %d (must be > 0)", i, dims[i]);
    n *= dims[i];
  }
  if (e == errc::success && n > c->size)
    e = core::error_set(errc::arg, "the grid has more processes than the communicator (size %d)", c->size);
  if (e != errc::success) return abi::raise(fn, c, e);
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int /*reorder*/,
                      MPI_Comm* comm_graph) {
  const char* fn = "MPI_Graph_create";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm_old, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm_old"); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    return new_comm(comm_graph, "comm_graph", [&](core::comm** n) { return comm::graph_create(c, nnodes, indx, edges, n); });
  });
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* fn = "MPI_Graphdims_get";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &graph); e != errc::success) return abi::raise(fn, c, e);
  if (!nnodes || !nedges) {
    (void)core::error_set(errc::arg, "%s is NULL", nnodes ? "nedges" : "nnodes");
    return abi::raise(fn, c, errc::arg);
  }
  *nnodes = int(t->index.size());
  *nedges = int(t->edges.size());
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  const char* fn = "MPI_Graph_get";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &graph); e != errc::success) return abi::raise(fn, c, e);
  errc e = errc::success;
  if (maxindex < int(t->index.size()))
    e = core::error_set(errc::arg, "maxindex is %d but the graph has %zu nodes", maxindex, t->index.size());
  else if (maxedges < int(t->edges.size()))
    e = core::error_set(errc::arg, "maxedges is %d but the graph has %zu edges", maxedges, t->edges.size());
  else if (!t->index.empty() && !indx)
    e = core::error_set(errc::arg, "index is NULL");
  else if (!t->edges.empty() && !edges)
    e = core::error_set(errc::arg, "edges is NULL");
  if (e != errc::success) return abi::raise(fn, c, e);
  std::copy(t->index.begin(), t->index.end(), indx);
  std::copy(t->edges.begin(), t->edges.end(), edges);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* fn = "MPI_Graph_neighbors_count";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &graph); e != errc::success) return abi::raise(fn, c, e);
  if (rank < 0 || rank >= c->size) {
    (void)core::error_set(errc::rank, "rank %d is not in [0, %d)", rank, c->size);
    return abi::raise(fn, c, errc::rank);
  }
  if (errc e = non_null(nneighbors, "nneighbors"); e != errc::success) return abi::raise(fn, c, e);
  *nneighbors = core::graph_degree(*t, rank);
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* fn = "MPI_Graph_neighbors";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &graph); e != errc::success) return abi::raise(fn, c, e);
  if (rank < 0 || rank >= c->size) {
    (void)core::error_set(errc::rank, "rank %d is not in [0, %d)", rank, c->size);
    return abi::raise(fn, c, errc::rank);
  }
  const int deg = core::graph_degree(*t, rank);
  if (maxneighbors < deg) {
    (void)core::error_set(errc::arg, "maxneighbors is %d but rank %d has %d neighbors", maxneighbors, rank, deg);
    return abi::raise(fn, c, errc::arg);
  }
  if (deg > 0) {
    if (errc e = non_null(neighbors, "neighbors"); e != errc::success) return abi::raise(fn, c, e);
  }
  std::copy(core::graph_neighbors(*t, rank), core::graph_neighbors(*t, rank) + deg, neighbors);
  return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int* newrank) {
  const char* fn = "MPI_Graph_map";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm"); e != errc::success) return abi::raise(fn, c, e);
  (void)edges;
  errc e = errc::success;
  if (nnodes < 1 || nnodes > c->size)
    e = core::error_set(errc::arg, "nnodes is %d (must be in [1, %d], the communicator's size)", nnodes, c->size);
  else if (!indx) e = core::error_set(errc::arg, "index is NULL");
  else if (!newrank) e = core::error_set(errc::arg, "newrank is NULL");
  if (e != errc::success) return abi::raise(fn, c, e);
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int /*reorder*/, MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create_adjacent";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm_old, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm_old"); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] { return new_comm(comm_dist_graph, "comm_dist_graph", [&](core::comm** n) -> errc {
    if (errc e = check_info(info); e != errc::success) return e;
    const bool s_unw = sourceweights == MPI_UNWEIGHTED, d_unw = destweights == MPI_UNWEIGHTED;
    const int* sw = nullptr;
    const int* dw = nullptr;
    if (s_unw != d_unw) {
      // One side unweighted: the other must have no edges (its array then says nothing).
      if ((s_unw ? outdegree : indegree) > 0)
        return core::error_set(errc::arg, "%s is MPI_UNWEIGHTED but %s is not",
                               s_unw ? "sourceweights" : "destweights", s_unw ? "destweights" : "sourceweights");
    } else if (!s_unw) {
      if (errc e = weights_of(sourceweights, indegree, "sourceweights", &sw); e != errc::success) return e;
      if (errc e = weights_of(destweights, outdegree, "destweights", &dw); e != errc::success) return e;
    }
    return comm::dist_graph_create_adjacent(c, indegree, sources, sw, outdegree, destinations, dw, n);
  }); });
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int /*reorder*/,
                           MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, comm_old, &c); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_intra(fn, c, "comm_old"); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] { return new_comm(comm_dist_graph, "comm_dist_graph", [&](core::comm** nc) -> errc {
    if (errc e = check_info(info); e != errc::success) return e;
    int64_t nedges = 0;
    for (int i = 0; degrees && i < n; ++i) nedges += std::max(degrees[i], 0);
    const int* w = nullptr;
    if (errc e = weights_of(weights, nedges, "weights", &w); e != errc::success) return e;
    return comm::dist_graph_create(c, n, sources, degrees, destinations, w, nc);
  }); });
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* fn = "MPI_Dist_graph_neighbors_count";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &dist); e != errc::success) return abi::raise(fn, c, e);
  if (!indegree || !outdegree || !weighted) {
    (void)core::error_set(errc::arg, "%s is NULL", !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    return abi::raise(fn, c, errc::arg);
  }
  *indegree = int(t->sources.size());
  *outdegree = int(t->dests.size());
  *weighted = t->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  const char* fn = "MPI_Dist_graph_neighbors";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, &dist); e != errc::success) return abi::raise(fn, c, e);
  const int in = int(t->sources.size()), out = int(t->dests.size());
  errc e = errc::success;
  if (maxindegree < in)
    e = core::error_set(errc::arg, "maxindegree is %d but the indegree is %d", maxindegree, in);
  else if (maxoutdegree < out)
    e = core::error_set(errc::arg, "maxoutdegree is %d but the outdegree is %d", maxoutdegree, out);
  else if (in > 0 && !sources)
    e = core::error_set(errc::arg, "sources is NULL");
  else if (out > 0 && !destinations)
    e = core::error_set(errc::arg, "destinations is NULL");
  if (e != errc::success) return abi::raise(fn, c, e);
  std::copy(t->sources.begin(), t->sources.end(), sources);
  std::copy(t->dests.begin(), t->dests.end(), destinations);
  auto usable = [](const int* w) { return w && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
  if (t->weighted) {
    if (usable(sourceweights)) std::copy(t->source_weights.begin(), t->source_weights.end(), sourceweights);
    if (usable(destweights)) std::copy(t->dest_weights.begin(), t->dest_weights.end(), destweights);
  }
  return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  const char* fn = "MPI_Topo_test";
  core::comm* c = nullptr;
  const core::topology* t = nullptr;
  if (errc e = check_topo(fn, comm, &c, &t, nullptr); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = non_null(status, "status"); e != errc::success) return abi::raise(fn, c, e);
  if (!t) *status = MPI_UNDEFINED;
  else *status = t->kind == cart ? MPI_CART : t->kind == graph ? MPI_GRAPH : MPI_DIST_GRAPH;
  return MPI_SUCCESS;
}


}  // namespace baton::impl
