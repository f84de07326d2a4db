// Single-copy alltoall on one host (the communicator's region, where every rank may read the
// others' memory): each rank announces where its buffers are with its arrived flag, then reads
// block `me` of every peer's send buffer straight into its receive buffer (process_vm_readv),
// starting with the next rank so that the ranks spread over their peers, stores done, copies its
// own block, and completes once every rank is done (nobody reads its send buffer any more). One
// copy per byte and no messages, against the rendezvous handshakes of pairwise exchanges. Types
// whose elements lie back to back; not in place.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {

// s.a / s.b: the first send / receive block's first byte (true lower bounds in the offsets).
bool announce(const poll_ctx& x, const step& s) {
  return shm::announce_buffers(x, x.address(s.a), x.address(s.b), 0, s.count * s.type->size());
}

// s.count elements of s.type per block, the same bytes on both sides.
bool gather(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const uint64_t q = x.seq;
  const int64_t block = s.count * s.type->size();
  return shm::gather_blocks(x, x.address(s.b), x.address(s.a) + g.me * block, block, block,
                            [&g, q](int r) { return g.announced(r, q); }, block);
}

}  // namespace

errc alltoall_single_copy(const coll_args& a, builder& b) {
  const buf_ref send{slot_send, a.type->true_lb()}, recv{slot_recv, a.rtype->true_lb()};
  const uint32_t p = b.poll(announce, 0, send, recv, a.rcount, a.rtype);
  b.poll(gather, 0, send, recv, a.rcount, a.rtype, {p});
  return errc::success;
}

}  // namespace baton::coll
