// Process topologies (MPI-4.1 chapter 8): Cartesian, graph and distributed graph. This is the
// object a communicator carries (core, as the neighborhood collectives read it); building one is
// communicator construction (src/comm/topo.hpp).
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

#include "core/comm.hpp"
#include "core/error.hpp"

namespace baton::core {


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
inline const topology* topo_of(const comm* c) { return c ? c->topo.get() : nullptr; }

// Graph neighbors of `rank` (a range of t.edges).
inline int graph_degree(const topology& t, int rank) {
  return t.index[size_t(rank)] - (rank > 0 ? t.index[size_t(rank) - 1] : 0);
}
inline const int* graph_neighbors(const topology& t, int rank) {
  return t.edges.data() + (rank > 0 ? t.index[size_t(rank) - 1] : 0);
}

}  // namespace baton::core
