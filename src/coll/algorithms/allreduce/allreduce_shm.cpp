// Shared-memory allreduce: every rank copies its input into its data buffer in the communicator's
// region and raises its flag; once all flags show this run, every rank reduces all inputs in rank
// order into its receive buffer (src/coll/shm_region.hpp). Any op, commutative or not; contiguous
// datatypes; messages up to shm::slot_bytes.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
bool publish(const poll_ctx& x, const step& s) { return shm::publish_input(x, s, false); }
bool combine(const poll_ctx& x, const step& s) { return shm::combine_inputs(x, s); }
}  // namespace

errc allreduce_shm(const coll_args& a, builder& b) {
  b.set_op(a.op);
  b.shm_data(a.count * a.type->size());
  const buf_ref in = a.in_place ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(publish, 0, in, {}, a.count, a.type);
  b.poll(combine, 0, {}, buf_ref{slot_recv, 0}, a.count, a.type, {p});
  return errc::success;
}

}  // namespace baton::coll
