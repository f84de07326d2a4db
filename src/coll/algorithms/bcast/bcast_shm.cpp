// Shared-memory broadcast: the root packs the message into its data buffer in the communicator's
// region and raises its flag; every other rank waits for the flag and unpacks from there (one copy
// in, one copy out per rank; src/coll/shm_region.hpp). Any datatypes: the region holds packed bytes.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Single copy (persistent, shm::region::copy_root): the root raises its flag once, then waits
// until every receiver has read its buffer.
bool root_single_copy(const shm::region& g, uint64_t q) {
  std::atomic<uint64_t>& mine = g.arrived(g.me, g.slot_of(q));
  if (mine.load(std::memory_order_relaxed) < q) g.publish(mine, q);
  for (int r = 0; r < g.n; ++r)
    if (r != g.me && g.done(r, 0).load(std::memory_order_acquire) < q) return false;
  return true;
}

bool root_publish(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_root >= 0) return root_single_copy(g, x.seq);
  const int64_t bytes = s.count * s.type->size();
  if (!g.slot_free(x.seq, bytes)) return false;
  const int sl = g.slot_of(x.seq);
  shm::pack_into(g.data(g.me, x.seq, bytes), x.address(s.a), s.count, s.type);
  g.done(g.me, sl).store(x.seq, std::memory_order_relaxed);  // the root reads nothing back
  g.publish(g.arrived(g.me, sl), x.seq);
  return true;
}
bool receive(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (!g.has_arrived(s.peer, x.seq)) return false;
  if (g.copy_root >= 0) {
    if (!g.read_root(x.address(s.a) + s.type->true_lb(), s.count * s.type->size()))
      x.fail(core::error_set(errc::other, "process_vm_readv of the bcast root's buffer failed"));
    g.publish(g.done(g.me, 0), x.seq);  // at once: the root waits for it
    return true;
  }
  shm::unpack_from(g.data(s.peer, x.seq, s.count * s.type->size()), x.address(s.a), s.count, s.type);
  g.mark_done(x.seq);
  return true;
}
}  // namespace

errc bcast_shm(const coll_args& a, builder& b) {
  const buf_ref buf{slot_recv, 0};
  b.shm_data(a.count * a.type->size());
  b.poll(a.c->rank == a.root ? root_publish : receive, a.root, buf, {}, a.count, a.type);
  return errc::success;
}

}  // namespace baton::coll
