// Host-aware reduce (two_level.hpp): each host reduces to its leader along a binomial tree, then
// the leaders reduce along a binomial tree to the root's host. With a commutative op the root
// leads its own host and both trees are rooted at it. Otherwise (the registry's predicate then
// requires each host's ranks to be consecutive) the trees are rooted at each host's first rank
// and at host 0, so every combination keeps rank order, and rank 0 hands the result to the root.
// Large messages are cut into segments that pass through both levels independently.
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc reduce_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int me = a.c->rank, root = a.root;
  const core::datatype* t = a.type;
  const bool comm_op = a.op->is_commutative();
  b.set_op(a.op);
  const int root_host = L.host_of[size_t(root)];
  // The rank where the combined result appears: the root, or rank 0 for a non-commutative op.
  const int top = comm_op ? root : 0;
  const int top_host = L.host_of[size_t(top)];
  const group host = host_group(L, me);
  const group leaders = comm_op ? leader_group(L, me, root_host, root) : leader_group(L, me);
  const int host_root = L.host_of[size_t(me)] == top_host ? L.index_of[size_t(top)] : 0;
  const bool direct = leaders.me < 0 && !tree_has_children(host.size(), host.me, host_root);
  const bool at_root = me == root;
  const buf_ref in = at_root && a.in_place ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};
  // Accumulator: the root's receive buffer where the result appears there, else a temporary.
  const buf_ref acc = direct ? buf_ref{} : (at_root && top == root ? buf_ref{slot_recv, 0} : temp_buffer(b, t, a.count));
  const buf_ref tmp = direct ? buf_ref{} : temp_buffer(b, t, a.count);
  const int nseg = segments(message_bytes(a), a.count);
  for (int k = 0; k < nseg; ++k) {
    const int64_t off = piece_begin(a.count, nseg, k), cnt = piece_count(a.count, nseg, k);
    const buf_ref acc_k = at(acc, t, off), tmp_k = at(tmp, t, off), in_k = at(in, t, off);
    const bool same = !direct && in.slot == acc.slot;
    const uint32_t mine = direct || same ? no_step : b.copy(in_k, acc_k, cnt, t);
    const uint32_t up = tree_reduce(b, host, host_root, direct ? in_k : acc_k, acc_k, tmp_k, cnt, t, comm_op, mine);
    const uint32_t done = tree_reduce(b, leaders, top_host, acc_k, acc_k, tmp_k, cnt, t, comm_op, up);
    if (top != root) {
      if (me == top) b.add(make_step(step_kind::send, root, acc_k, {}, cnt, t), after(done));
      // after this rank's own data left its buffers (its receive buffer, in place)
      if (at_root) b.add(make_step(step_kind::recv, top, at(buf_ref{slot_recv, 0}, t, off), {}, cnt, t), after(done));
    }
  }
  return errc::success;
}

}  // namespace baton::coll
