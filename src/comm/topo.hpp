// Process topologies: constructing communicators that carry one, and the Cartesian queries. The
// topology object and its neighbor lists are core's (core/topo.hpp), read by the neighborhood
// collectives.
#pragma once

#include "comm/comm.hpp"
#include "core/topo.hpp"

namespace baton::comm {

using core::topology;

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

}  // namespace baton::comm
