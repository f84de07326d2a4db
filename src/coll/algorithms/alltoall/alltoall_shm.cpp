// Shared-memory alltoall: every rank packs its n send blocks into its data buffer in the
// communicator's region and raises its flag; once all flags show this run, every rank unpacks
// block `me` of every rank's buffer into its receive buffer (src/coll/shm_region.hpp). Any
// datatypes (the region holds packed bytes); in place too (the blocks are packed before anything
// is overwritten); up to shm::slot_bytes of blocks per rank.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Single copy (persistent, shm::region::copy_all): the send buffer is this rank's "data". Publish
// raises the flag; gather reads block `me` of every peer's send buffer straight from its process,
// stores done, copies its own block, and finishes once every peer is done reading this rank's
// send buffer.
bool gather_single_copy(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const int64_t block = s.count * s.type->size(), stride = s.count * s.type->extent();
  const char* own = reinterpret_cast<const char*>(g.peer_addr[size_t(g.me)] + uint64_t(g.me * block));
  return shm::gather_blocks(x, x.address(s.b) + s.type->true_lb(), own, block, stride, [&g](int r) {
    return shm::region::buffers{g.peer_pid[size_t(r)], g.peer_addr[size_t(r)], 0};
  });
}

// s.a: the first send block, s.count elements of s.type per block.
bool publish(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_all) {  // the peers read the send buffer itself; the previous run is done everywhere
    g.publish(g.arrived(g.me, g.slot_of(x.seq)), x.seq);
    return true;
  }
  const int64_t block = s.count * s.type->size(), stride = s.count * s.type->extent();
  if (!g.slot_free(x.seq, g.n * block)) return false;
  const int sl = g.slot_of(x.seq);
  const char* src = x.address(s.a);
  char* mine = g.data(g.me, x.seq, g.n * block);
  for (int j = 0; j < g.n; ++j) shm::pack_into(mine + j * block, src + j * stride, s.count, s.type);
  g.put_bytes(x.seq, block);
  g.publish(g.arrived(g.me, sl), x.seq);
  return true;
}
// s.b: the first receive block, s.count elements of s.type per block.
bool gather(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_all) return gather_single_copy(x, s);
  const int64_t block = s.count * s.type->size(), stride = s.count * s.type->extent();
  int mismatch = -1;
  if (!g.all_arrived(x.seq, block, &mismatch)) return false;
  char* dst = x.address(s.b);
  for (int r = 0; r < g.n; ++r) {
    // Rank r's blocks are its own size apart; a mismatch takes what fits of block `me`.
    const int64_t theirs = mismatch < 0 ? block : g.bytes_of(r, x.seq);
    int64_t count = s.count;
    if (!shm::bytes_agree(x, r, theirs, block, "alltoall") && theirs < block) count = shm::count_in(theirs, s.type);
    shm::unpack_from(g.data(r, x.seq, g.n * theirs) + g.me * theirs, dst + r * stride, count, s.type);
  }
  g.finished(x.seq);
  return true;
}
}  // namespace

errc alltoall_shm(const coll_args& a, builder& b) {
  const buf_ref recv{slot_recv, 0};
  b.shm_data(a.c->size * a.rcount * a.rtype->size());
  const uint32_t p = a.in_place ? b.poll(publish, 0, recv, {}, a.rcount, a.rtype)
                                : b.poll(publish, 0, buf_ref{slot_send, 0}, {}, a.count, a.type);
  b.poll(gather, 0, {}, recv, a.rcount, a.rtype, {p});
  return errc::success;
}

}  // namespace baton::coll
