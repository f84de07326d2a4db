// Dissemination barrier: ceil(log2 n) rounds; in round k each rank signals rank + 2^k and waits
// for rank - 2^k. Round k's signal goes out only after round k-1's arrived.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc barrier_dissemination(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* byte = core::predefined_datatype(0x247);
  uint32_t prev = 0;
  bool first = true;
  for (int k = 1; k < n; k <<= 1) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    if (first) {
      b.send(to, {}, 0, byte);
      prev = b.recv(from, {}, 0, byte);
      first = false;
    } else {
      b.send(to, {}, 0, byte, {prev});
      prev = b.recv(from, {}, 0, byte, {prev});
    }
  }
  return errc::success;
}

}  // namespace baton::coll
