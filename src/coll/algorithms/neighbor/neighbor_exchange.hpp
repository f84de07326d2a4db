// Shared by the neighborhood collectives: one receive per in-neighbor and one send per
// out-neighbor of the communicator's topology (core/topo.hpp), all independent. Receives follow
// the topology's `in` order and sends its `send_order`, so the k-th message of a pair of ranks
// pairs the right blocks (duplicate edges keep their order; a Cartesian periodic dimension whose
// -1 and +1 neighbors coincide still delivers "up" into the receiver's "from below" block).
// MPI_PROC_NULL neighbors (-1) get no step: their blocks stay untouched.
#pragma once

#include "coll/algorithms/algorithms.hpp"
#include "core/topo.hpp"

namespace baton::coll {

// One block of a neighborhood collective: where it is, how many elements of which type.
struct nbr_block {
  buf_ref at;
  int64_t count = 0;
  const core::datatype* type = nullptr;
};

// send_block(i) describes the block for out-neighbor i, recv_block(i) the one of in-neighbor i.
template <class SendBlock, class RecvBlock>
errc neighbor_exchange(const coll_args& a, builder& b, SendBlock send_block, RecvBlock recv_block) {
  const core::topology* t = core::topo_of(a.c);
  if (!t) return core::error_set(errc::topology, "the communicator has no process topology");
  for (size_t i = 0; i < t->in.size(); ++i) {
    if (t->in[i] < 0) continue;
    const nbr_block k = recv_block(i);
    b.recv(t->in[i], k.at, k.count, k.type);
  }
  for (int i : t->send_order) {
    if (t->out[size_t(i)] < 0) continue;
    const nbr_block k = send_block(size_t(i));
    b.send(t->out[size_t(i)], k.at, k.count, k.type);
  }
  if (b.size() == 0) join(b, {});  // no neighbors: a plan of one empty step
  return errc::success;
}

}  // namespace baton::coll
