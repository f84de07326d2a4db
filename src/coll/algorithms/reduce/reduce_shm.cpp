// Shared-memory reduce: every rank copies its input into its data buffer in the communicator's
// region and raises its flag; the root waits for all of them and reduces in rank order into its
// receive buffer (src/coll/shm_region.hpp). Any op; contiguous datatypes; up to shm::slot_bytes.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
bool publish_root(const poll_ctx& x, const step& s) { return shm::publish_input(x, s, false); }
bool publish_leaf(const poll_ctx& x, const step& s) { return shm::publish_input(x, s, true); }
bool combine(const poll_ctx& x, const step& s) { return shm::combine_inputs(x, s); }
}  // namespace

errc reduce_shm(const coll_args& a, builder& b) {
  b.set_op(a.op);
  b.shm_data(a.count * a.type->size());
  const bool root = a.c->rank == a.root;
  const buf_ref in = a.in_place && root ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(root ? publish_root : publish_leaf, 0, in, {}, a.count, a.type);
  if (root) b.poll(combine, 0, {}, buf_ref{slot_recv, 0}, a.count, a.type, {p});
  return errc::success;
}

}  // namespace baton::coll
