// Recursive-doubling allgatherv (n a power of two): log2 n rounds; in the round of distance d a
// rank and its partner rank ^ d swap the d blocks each holds, one message per block (the blocks
// need not be adjacent in the receive buffer). A send waits only for the step that brought its
// block.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc allgatherv_recursive_doubling(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* rt = a.rtype;
  const buf_ref rbuf{slot_recv, 0};
  std::vector<std::vector<uint32_t>> brought(static_cast<size_t>(n));  // per block: its step (none: ready)
  if (!a.in_place)
    brought[static_cast<size_t>(me)].push_back(copy_convert(b, me, buf_ref{slot_send, 0}, a.count, a.type,
                                                            at(rbuf, rt, a.rdispls[me]), a.rcounts[me], rt, {}));
  for (int d = 1; d < n; d <<= 1) {
    const int partner = me ^ d;
    const int mine = me & ~(d - 1), theirs = partner & ~(d - 1);
    for (int j = mine; j < mine + d; ++j)
      send_after(b, partner, at(rbuf, rt, a.rdispls[j]), a.rcounts[j], rt, brought[static_cast<size_t>(j)]);
    for (int j = theirs; j < theirs + d; ++j)
      brought[static_cast<size_t>(j)].assign(1, b.recv(partner, at(rbuf, rt, a.rdispls[j]), a.rcounts[j], rt));
  }
  return errc::success;
}

}  // namespace baton::coll
