// Process topologies (MPI-4.1 chapter 8): Cartesian, graph and distributed graph.
//
// A topology is an immutable object shared by the communicators that carry it (comm::topo):
// MPI_Comm_dup / MPI_Comm_idup share it, the last communicator holding it frees it. Reordering is
// never done (rank r of the parent is rank r of the new communicator), as the standard allows.
//
// Besides the user-visible description, each topology lists this rank's neighbors for the
// neighborhood collectives (src/coll/algorithms/neighbor/): `in` (receive blocks, in order) and
// `out` (send blocks), -1 standing for MPI_PROC_NULL (a non-periodic border: no message, the block
// untouched), and `send_order`, the order in which the send steps are emitted. A pair's k-th
// message matches the pair's k-th receive (plan order), so for a Cartesian topology the sends of
// dimension d go to the +1 neighbor first, then the -1 one, while receives take the -1 neighbor
// first: the block sent "up" lands in the receiver's "from below" block even when both directions
// reach the same rank (periodic dimensions of size 1 or 2).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.hpp"

namespace baton::core {

class comm;

enum class topo_kind : uint8_t { cart, graph, dist_graph };

struct topology {
  topo_kind kind = topo_kind::cart;
  // Cartesian: extents, periodicity (0/1) and this rank's coordinates.
  std::vector<int> dims, periods, coords;
  // Graph: the whole graph as given to MPI_Graph_create.
  std::vector<int> index, edges;
  // Distributed graph: this rank's in- and out-edges, and their weights when weighted.
  bool weighted = false;
  std::vector<int> sources, source_weights, dests, dest_weights;
  // Neighborhood collectives (see above).
  std::vector<int> in, out, send_order;
};

// The topology of c, or nullptr.
const topology* topo_of(const comm* c);

// MPI_Dims_create: fills the zero entries of dims[0..ndims) (checked: errc::dims / errc::arg).
[[nodiscard]] errc dims_create(int nnodes, int ndims, int* dims);

// Constructors: collective over `parent`; *out is nullptr on ranks outside the new communicator.
// Arguments are checked here (errc::arg, errc::dims, errc::rank with a message).
[[nodiscard]] errc cart_create(comm* parent, int ndims, const int* dims, const int* periods, comm** out);
[[nodiscard]] errc cart_sub(comm* parent, const int* remain_dims, comm** out);
[[nodiscard]] errc graph_create(comm* parent, int nnodes, const int* index, const int* edges, comm** out);
// Weights: nullptr = unweighted.
[[nodiscard]] errc dist_graph_create_adjacent(comm* parent, int indegree, const int* sources, const int* sweights,
                                              int outdegree, const int* dests, const int* dweights, comm** out);
[[nodiscard]] errc dist_graph_create(comm* parent, int n, const int* sources, const int* degrees, const int* dests,
                                     const int* weights, comm** out);

// Cartesian helpers. cart_rank wraps periodic coordinates; errc::arg for an out-of-range
// coordinate of a non-periodic dimension.
[[nodiscard]] errc cart_rank(const topology& t, const int* coords, int* rank);
void cart_coords(const topology& t, int rank, int* coords);
// Neighbors at displacement disp along `dim`: -1 (none) at a non-periodic border.
void cart_shift(const topology& t, int rank, int dim, int disp, int* source, int* dest);

// Graph neighbors of `rank` (a range of t.edges).
inline int graph_degree(const topology& t, int rank) {
  return t.index[size_t(rank)] - (rank > 0 ? t.index[size_t(rank) - 1] : 0);
}
inline const int* graph_neighbors(const topology& t, int rank) {
  return t.edges.data() + (rank > 0 ? t.index[size_t(rank) - 1] : 0);
}

}  // namespace baton::core
