// Shared-memory barrier: each rank stores its arrival flag in the communicator's region, then
// waits until every rank's flag shows this run (src/coll/shm_region.hpp).
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Waits for the slot like a data step: flags of one slot must be written in sequence order (a
// later run's arrival must not be taken for an earlier run's data).
bool arrive(const poll_ctx& x, const step&) {
  const shm::region& g = *x.g;
  if (!g.slot_free(x.seq, 0)) return false;
  g.publish(g.arrived(g.me, g.slot_of(x.seq)), x.seq);
  return true;
}
bool leave(const poll_ctx& x, const step&) {
  const shm::region& g = *x.g;
  if (!g.all_arrived(x.seq)) return false;
  g.finished(x.seq);
  return true;
}
}  // namespace

errc barrier_shm(const coll_args&, builder& b) {
  const uint32_t in = b.poll(arrive, 0, {}, {}, 0, nullptr);
  b.poll(leave, 0, {}, {}, 0, nullptr, {in});
  return errc::success;
}

}  // namespace baton::coll
