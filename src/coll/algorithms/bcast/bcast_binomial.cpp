// Binomial-tree broadcast: log2 n rounds; a rank receives once from its parent, then forwards to
// its children, largest subtree first. The buffer is the receive slot on every rank.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc bcast_binomial(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  const int vr = (me - root + n) % n;
  const buf_ref buf{slot_recv, 0};
  bool have_parent = false;
  uint32_t got = 0;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      got = b.recv((vr - mask + root) % n, buf, a.count, a.type);
      have_parent = true;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < n) {
      const int child = (vr + mask + root) % n;
      if (have_parent)
        b.send(child, buf, a.count, a.type, {got});
      else
        b.send(child, buf, a.count, a.type);
    }
  }
  return errc::success;
}

}  // namespace baton::coll
