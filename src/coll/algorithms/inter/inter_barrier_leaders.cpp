// Intercommunicator barrier: each group gathers zero-byte messages to its leader along a binomial
// tree, the two leaders exchange one, and each leader releases its group along the same tree. A
// process leaves only after every process of the remote group has entered.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_barrier_leaders(const coll_args& a, builder& b) {
  using namespace inter;
  const int n = a.c->local_size(), me = a.c->rank;
  const core::datatype* t = byte_type();
  const buf_ref none{slot_recv, 0};
  // Fan-in: every child's arrival, then (not at the leader) the message to the parent.
  std::vector<uint32_t> arrived;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (me & mask) break;
    if (me + mask < n) arrived.push_back(add_recv(b, local_peer(a, me + mask), none, 0, t, {}));
  }
  std::vector<uint32_t> released;
  if (me == 0) {
    add_send(b, remote_peer(a, 0), none, 0, t, arrived);
    released = {add_recv(b, remote_peer(a, 0), none, 0, t, {})};
  } else {
    add_send(b, local_peer(a, me - mask), none, 0, t, arrived);
  }
  // Fan-out from the leader once the remote group has all entered.
  group_bcast(a, b, none, 0, t, released);
  return errc::success;
}

}  // namespace baton::coll
