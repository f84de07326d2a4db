// Host-aware barrier (two_level.hpp): each host's ranks signal their leader along a binomial tree
// (zero-byte messages), the leaders run a dissemination barrier among themselves, and each leader
// releases its host along the same tree. One message per leader pair per round crosses hosts.
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc barrier_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int me = a.c->rank;
  const core::datatype* byte = byte_type();
  const group host = host_group(L, me);
  const group leaders = leader_group(L, me);
  // Fan-in towards index 0: a rank signals its parent once all its children have signalled.
  const int n = host.size(), vr = host.me;
  std::vector<uint32_t> children;
  uint32_t in = no_step;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (vr & mask) {
      in = b.add(make_step(step_kind::send, host[vr - mask], {}, {}, 0, byte), children);
      break;
    }
    if (vr + mask < n) children.push_back(b.recv(host[vr + mask], {}, 0, byte));
  }
  if (mask >= n && !children.empty()) in = join(b, children);
  // Dissemination among the leaders.
  const int h = leaders.size(), lm = leaders.me;
  if (lm >= 0) {
    for (int k = 1; k < h; k <<= 1) {
      b.add(make_step(step_kind::send, leaders[(lm + k) % h], {}, {}, 0, byte), after(in));
      in = b.add(make_step(step_kind::recv, leaders[(lm - k + h) % h], {}, {}, 0, byte), after(in));
    }
  }
  tree_bcast(b, host, 0, buf_ref{}, 0, byte, in);
  return errc::success;
}

}  // namespace baton::coll
