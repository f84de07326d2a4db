// Binomial-tree gather: ceil(log2 n) rounds. Every inner node collects its subtree's blocks, in
// relative rank order, as packed bytes in a temporary and sends them to its parent in one message;
// a child of the root splits its message where the subtree's ranks wrap past n - 1, so the root
// receives everything straight into its receive buffer. Leaves send from the user buffer.
#include "coll/algorithms/gather/gather_helpers.hpp"

namespace baton::coll {

using namespace gather_detail;

errc gather_binomial(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  const int vr = (me - root + n) % n;
  const buf_ref sbuf{slot_send, 0};
  if (me == root) {
    const core::datatype* rt = a.rtype;
    const int64_t rc = a.rcount;
    const buf_ref rbuf{slot_recv, 0};
    if (!a.in_place) copy_convert(b, me, sbuf, a.count, a.type, at(rbuf, rt, me * rc), rc, rt, {});
    for (int mask = 1; mask < n; mask <<= 1) {
      const int sub = subtree_size(mask, n);
      const int first = (mask + root) % n;
      const int before_wrap = std::min(sub, n - first);
      b.recv(first, at(rbuf, rt, first * rc), before_wrap * rc, rt);
      if (before_wrap < sub) b.recv(first, at(rbuf, rt, 0), (sub - before_wrap) * rc, rt);
    }
    return errc::success;
  }
  const int low = lowbit(vr, n), sub = subtree_size(vr, n);
  const int parent = (vr - low + root) % n;
  if (sub == 1) {
    b.send(parent, sbuf, a.count, a.type);
    return errc::success;
  }
  const core::datatype* byte = byte_type();
  const int64_t blk = a.count * a.type->size();
  const buf_ref tmp{b.temp(sub * blk), 0};
  std::vector<uint32_t> have;
  have.push_back(copy_convert(b, me, sbuf, a.count, a.type, tmp, blk, byte, {}));
  for (int mask = 1; mask < low && vr + mask < n; mask <<= 1)
    have.push_back(
        b.recv((vr + mask + root) % n, buf_ref{tmp.slot, mask * blk}, subtree_size(vr + mask, n) * blk, byte));
  const int before_wrap = vr == low ? std::min(sub, n - me) : sub;  // the parent is the root: split
  send_after(b, parent, tmp, before_wrap * blk, byte, have);
  if (before_wrap < sub)
    send_after(b, parent, buf_ref{tmp.slot, before_wrap * blk}, (sub - before_wrap) * blk, byte, have);
  return errc::success;
}

}  // namespace baton::coll
