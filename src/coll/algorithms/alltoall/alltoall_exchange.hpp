// Shared by the alltoall, alltoallv and alltoallw algorithms: the per-peer blocks of one call
// (where each block lives, its count and type on both sides) and the direct exchange that the
// pairwise and windowed linear algorithms both are.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

// Every peer's send and receive block. With MPI_IN_PLACE the blocks to send are first copied out
// of the receive buffer into a temporary; `ready` then holds those copies, and every step that
// reads or writes a block must wait for them.
struct a2a_blocks {
  std::vector<buf_ref> src, dst;
  std::vector<int64_t> scount, rcount;
  std::vector<const core::datatype*> stype, rtype;
  std::vector<uint32_t> ready;
};

// Fills `out` from the arguments of an alltoall, alltoallv or alltoallw call.
void a2a_blocks_build(const coll_args& a, builder& b, a2a_blocks& out);

// Moves scount elements of stype at src to rcount elements of rtype at dst (same type signature):
// a local copy when both sides are alike, else a message to self. Returns the step to wait for.
uint32_t a2a_convert(builder& b, int self, buf_ref src, int64_t scount, const core::datatype* stype, buf_ref dst,
                     int64_t rcount, const core::datatype* rtype, const std::vector<uint32_t>& after);

// Direct exchange: one message to and from every other rank. `window` is how many exchange steps
// may be in flight (1: pairwise; step k's messages start when step k-1's have completed). With
// `xor_peers` (power-of-two ranks, pairwise) step k pairs rank r with r ^ k; otherwise it sends to
// r + k and receives from r - k. Messages that carry no bytes are left out on both sides (their
// type signatures agree, so both sides agree).
errc a2a_exchange(const coll_args& a, builder& b, int window, bool xor_peers);

}  // namespace baton::coll
