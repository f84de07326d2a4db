// Shared-memory allreduce: every rank copies its input into its data buffer in the communicator's
// region and raises its flag; once all flags show this run, every rank reduces all inputs in rank
// order into its receive buffer (src/coll/shm_region.hpp). Any op, commutative or not; contiguous
// datatypes; messages up to shm::slot_bytes, or single copy for persistent ones (below).
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Single copy (persistent, shm::region::copy_all with peer_recv): once every rank has started the
// run, each reduces its share of the elements straight from the peers' bound send buffers and
// writes it into every bound receive buffer (shm::reduce_share), stores done, and finishes once
// every rank is done (its share is here and nobody reads this rank's send buffer any more).
bool combine_single_copy(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  // Scratch: one chunk of this rank's buffer in the operation's region (sized for the message).
  const int64_t bytes = s.count * s.type->size();
  return shm::single_copy_step(
      x,
      [&] {
        shm::reduce_share(x, s, g.data(g.me, x.seq, bytes), std::min(bytes, shm::slot_bytes), -1, [&g](int r) {
          return shm::region::buffers{g.peer_pid[size_t(r)], g.peer_addr[size_t(r)], g.peer_recv[size_t(r)]};
        });
      },
      [] {});
}

bool publish(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (!g.peer_recv.empty()) {  // single copy: the peers read the send buffer itself
    g.publish(g.arrived(g.me, g.slot_of(x.seq)), x.seq);
    return true;
  }
  return shm::publish_input(x, s, false);
}
bool combine(const poll_ctx& x, const step& s) {
  if (!x.g->peer_recv.empty()) return combine_single_copy(x, s);
  return shm::combine_inputs(x, s);
}
}  // namespace

errc allreduce_shm(const coll_args& a, builder& b) {
  b.set_op(a.op);
  b.shm_data(a.count * a.type->size());
  const buf_ref in = a.in_place ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(publish, 0, in, {}, a.count, a.type);
  b.poll(combine, 0, in, buf_ref{slot_recv, 0}, a.count, a.type, {p});  // s.a: single copy reads its own block
  return errc::success;
}

}  // namespace baton::coll
