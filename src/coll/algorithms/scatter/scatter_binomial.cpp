// Binomial-tree scatter, the gather tree run backwards: the root sends each child its subtree's
// blocks (split in two messages where the subtree's ranks wrap past n - 1); an inner node receives
// them as packed bytes in a temporary, forwards its children's parts and unpacks its own block.
// Leaves receive straight into the user buffer.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc scatter_binomial(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  const int vr = (me - root + n) % n;
  const buf_ref rbuf{slot_recv, 0};
  if (me == root) {
    const core::datatype* st = a.type;
    const int64_t sc = a.count;
    const buf_ref sbuf{slot_send, 0};
    int top = 1;
    while (top < n) top <<= 1;
    for (int mask = top >> 1; mask > 0; mask >>= 1) {  // largest subtree first
      if (mask >= n) continue;
      const int sub = subtree_size(mask, n);
      const int first = (mask + root) % n;
      const int before_wrap = std::min(sub, n - first);
      b.send(first, at(sbuf, st, first * sc), before_wrap * sc, st);
      if (before_wrap < sub) b.send(first, at(sbuf, st, 0), (sub - before_wrap) * sc, st);
    }
    if (!a.in_place) copy_convert(b, me, at(sbuf, st, me * sc), sc, st, rbuf, a.rcount, a.rtype, {});
    return errc::success;
  }
  const int low = lowbit(vr, n), sub = subtree_size(vr, n);
  const int parent = (vr - low + root) % n;
  if (sub == 1) {
    b.recv(parent, rbuf, a.rcount, a.rtype);
    return errc::success;
  }
  const core::datatype* byte = byte_type();
  const int64_t blk = a.rcount * a.rtype->size();
  const buf_ref tmp{b.temp(sub * blk), 0};
  std::vector<uint32_t> got;
  const int before_wrap = vr == low ? std::min(sub, n - me) : sub;  // the parent is the root: split
  got.push_back(b.recv(parent, tmp, before_wrap * blk, byte));
  if (before_wrap < sub)
    got.push_back(b.recv(parent, buf_ref{tmp.slot, before_wrap * blk}, (sub - before_wrap) * blk, byte));
  int mask = 1;
  while (mask < low && vr + mask < n) mask <<= 1;
  for (mask >>= 1; mask > 0; mask >>= 1)
    send_after(b, (vr + mask + root) % n, buf_ref{tmp.slot, mask * blk}, subtree_size(vr + mask, n) * blk, byte, got);
  copy_convert(b, me, tmp, blk, byte, rbuf, a.rcount, a.rtype, got);
  return errc::success;
}

}  // namespace baton::coll
