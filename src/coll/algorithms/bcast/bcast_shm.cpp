// Shared-memory broadcast: the root packs the message into its data buffer in the communicator's
// region and raises its flag; every other rank waits for the flag and unpacks from there (one copy
// in, one copy out per rank; src/coll/shm_region.hpp). Any datatypes: the region holds packed bytes.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Single copy (persistent, shm::region::copy_root): the root raises its flag once, then waits
// until every receiver has read its buffer. Split (shm::region::split): meanwhile it writes the
// last share of the message into each receiver that has started the run, then stores its done
// flag.
bool root_single_copy(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const uint64_t q = x.seq;
  std::atomic<uint64_t>& mine = g.arrived(g.me, g.slot_of(q));
  if (mine.load(std::memory_order_relaxed) < q) g.publish(mine, q);
  if (g.split && g.done(g.me, 0).load(std::memory_order_relaxed) < q) {
    const int64_t bytes = s.count * s.type->size();
    const int64_t share = g.split_share(bytes);
    const char* src = x.address(s.a) + s.type->true_lb() + (bytes - share);
    bool all = true;
    for (int r = 0; r < g.n; ++r) {
      if (r == g.me || g.wrote[size_t(r)] >= q) continue;
      if (!g.has_arrived(r, q)) {
        all = false;
        continue;
      }
      if (!shm::region::write_to(g.peer_pid[size_t(r)], g.peer_addr[size_t(r)] + uint64_t(bytes - share), src, share))
        x.fail(core::error_set(errc::other, "process_vm_writev into a bcast receiver's buffer failed"));
      g.wrote[size_t(r)] = q;
    }
    if (!all) return false;
    g.publish(g.done(g.me, 0), q);
  }
  for (int r = 0; r < g.n; ++r)
    if (r != g.me && g.done(r, 0).load(std::memory_order_acquire) < q) return false;
  return true;
}

// A single-copy receiver: reads its part of the root's buffer once the root has started the run
// and, split, waits for the root's share.
bool receive_single_copy(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const uint64_t q = x.seq;
  if (g.split) {
    std::atomic<uint64_t>& mine = g.arrived(g.me, g.slot_of(q));
    if (mine.load(std::memory_order_relaxed) < q) g.publish(mine, q);
  }
  if (g.read_run < q) {
    if (!g.has_arrived(s.peer, q)) return false;
    const int64_t bytes = s.count * s.type->size();
    if (!g.read_root(x.address(s.a) + s.type->true_lb(), bytes - g.split_share(bytes)))
      x.fail(core::error_set(errc::other, "process_vm_readv of the bcast root's buffer failed"));
    g.read_run = q;
  }
  if (g.split && g.done(s.peer, 0).load(std::memory_order_acquire) < q) return false;
  g.publish(g.done(g.me, 0), q);  // at once: the root waits for it
  return true;
}

bool root_publish(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_root >= 0) return root_single_copy(x, s);
  const int64_t bytes = s.count * s.type->size();
  if (!g.slot_free(x.seq, bytes)) return false;
  const int sl = g.slot_of(x.seq);
  std::atomic<uint64_t>& flag = g.arrived(g.me, sl);
  shm::pack_into(g.data(g.me, x.seq, bytes), x.address(s.a), s.count, s.type);
  shm::region::put_bytes(flag, bytes);
  g.done(g.me, sl).store(x.seq, std::memory_order_relaxed);  // the root reads nothing back
  g.publish(flag, x.seq);
  return true;
}
bool receive(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (g.copy_root >= 0) return receive_single_copy(x, s);
  const std::atomic<uint64_t>& flag = g.arrived(s.peer, g.slot_of(x.seq));
  if (flag.load(std::memory_order_acquire) < x.seq) return false;
  // The root's message is where its own size put it; more than this rank posted is an error
  // (MPI_ERR_TRUNCATE), and only what fits is unpacked.
  const int64_t mine = s.count * s.type->size(), theirs = shm::region::bytes_at(flag);
  int64_t count = s.count;
  if (!shm::bytes_agree(x, s.peer, theirs, mine, "bcast") && theirs < mine) count = shm::count_in(theirs, s.type);
  shm::unpack_from(g.data(s.peer, x.seq, theirs), x.address(s.a), count, s.type);
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
