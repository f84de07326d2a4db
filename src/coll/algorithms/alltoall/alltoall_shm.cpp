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
  std::atomic<uint64_t>& mine = g.done(g.me, 0);
  if (mine.load(std::memory_order_relaxed) < x.seq) {
    if (!g.all_arrived(x.seq)) return false;
    const int64_t block = s.count * s.type->size(), stride = s.count * s.type->extent();
    char* dst = x.address(s.b) + s.type->true_lb();
    for (int r = 0; r < g.n; ++r) {
      const uint64_t src = g.peer_addr[size_t(r)] + uint64_t(g.me * block);
      if (r != g.me && !shm::region::read_from(g.peer_pid[size_t(r)], src, dst + r * stride, block))
        x.fail(core::error_set(errc::other, "process_vm_readv of an alltoall peer's send buffer failed"));
    }
    g.publish(mine, x.seq);  // at once: the peers wait for it
    // This rank's own block last: the peers' wait for `done` then overlaps with this copy.
    const char* own = reinterpret_cast<const char*>(g.peer_addr[size_t(g.me)] + uint64_t(g.me * block));
    core::copy_bytes(dst + g.me * stride, own, size_t(block));
  }
  for (int r = 0; r < g.n; ++r)
    if (g.done(r, 0).load(std::memory_order_acquire) < x.seq) return false;
  return true;
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
  g.publish(g.arrived(g.me, sl), x.seq);
  return true;
}
// s.b: the first receive block, s.count elements of s.type per block.
bool gather(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_all) return gather_single_copy(x, s);
  if (!g.all_arrived(x.seq)) return false;
  const int64_t block = s.count * s.type->size(), stride = s.count * s.type->extent();
  char* dst = x.address(s.b);
  for (int r = 0; r < g.n; ++r)
    shm::unpack_from(g.data(r, x.seq, g.n * block) + g.me * block, dst + r * stride, s.count, s.type);
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
