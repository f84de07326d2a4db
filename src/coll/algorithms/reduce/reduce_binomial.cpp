// Binomial-tree reduce. Ranks are taken relative to the root for a commutative op; for a
// non-commutative op the tree is rooted at rank 0, so every combination keeps rank order
// (lower ranks on the left), and rank 0 forwards the result to the root.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc reduce_binomial(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const bool comm_op = a.op->is_commutative();
  const int tree_root = comm_op ? a.root : 0;
  const int vr = (me - tree_root + n) % n;
  const core::datatype* t = a.type;
  b.set_op(a.op);

  // acc holds the reduction of this rank's subtree, `in` receives a child's partial result.
  buf_ref acc = temp_buffer(b, t, a.count);
  buf_ref other = temp_buffer(b, t, a.count);
  const bool my_data_in_recv = a.in_place && me == a.root;
  uint32_t last = b.copy(my_data_in_recv ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0}, acc, a.count, t);

  int mask = 1;
  bool sent = false;
  while (mask < n) {
    if (vr & mask) {
      last = b.send((vr - mask + tree_root) % n, acc, a.count, t, {last});
      sent = true;
      break;
    }
    if (vr + mask < n) {
      const int child = (vr + mask + tree_root) % n;
      uint32_t r = b.recv(child, other, a.count, t, {last});
      // The child's ranks are all above this rank's (relative order = rank order when the tree is
      // rooted at 0): acc = acc op child, computed into `other`, then the roles swap.
      if (comm_op) {
        last = b.reduce(other, acc, a.count, t, {r});
      } else {
        last = b.reduce(acc, other, a.count, t, {r});
        std::swap(acc, other);
      }
    }
    mask <<= 1;
  }
  (void)sent;
  if (vr == 0) {
    if (me == a.root) {
      b.copy(acc, buf_ref{slot_recv, 0}, a.count, t, {last});
    } else {
      b.send(a.root, acc, a.count, t, {last});  // non-commutative op, root != 0
    }
  } else if (me == a.root) {
    // Non-commutative op with the root elsewhere: the result comes from rank 0.
    b.recv(0, buf_ref{slot_recv, 0}, a.count, t, {last});
  }
  return errc::success;
}

}  // namespace baton::coll
