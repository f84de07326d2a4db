// Host-aware allreduce (two_level.hpp): each host reduces to its leader along a binomial tree, the
// leaders allreduce by recursive doubling (one exchange of the vector per round between hosts),
// and each leader broadcasts the result inside its host. Every rank's receive buffer is its
// accumulator; a rank without children in its host's tree sends its input straight from the send
// buffer. Large messages are cut into segments that pass through the three stages independently.
// Rank order holds for non-commutative ops when each host's ranks are consecutive (the
// registry's predicate requires it then).
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc allreduce_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int me = a.c->rank;
  const core::datatype* t = a.type;
  const bool comm_op = a.op->is_commutative();
  b.set_op(a.op);
  const group host = host_group(L, me);
  const group leaders = leader_group(L, me);
  const buf_ref acc{slot_recv, 0};
  const buf_ref in = a.in_place ? acc : buf_ref{slot_send, 0};
  // A leaf of its host's tree that leads no host only sends its input up.
  const bool direct = leaders.me < 0 && !tree_has_children(host.size(), host.me, 0);
  const buf_ref tmp = direct ? buf_ref{} : temp_buffer(b, t, a.count);
  const int nseg = segments(message_bytes(a), a.count);
  for (int k = 0; k < nseg; ++k) {
    const int64_t off = piece_begin(a.count, nseg, k), cnt = piece_count(a.count, nseg, k);
    const buf_ref acc_k = at(acc, t, off), tmp_k = at(tmp, t, off), in_k = at(in, t, off);
    const uint32_t mine = direct || a.in_place ? no_step : b.copy(in_k, acc_k, cnt, t);
    const uint32_t up = tree_reduce(b, host, 0, direct ? in_k : acc_k, acc_k, tmp_k, cnt, t, comm_op, mine);
    const uint32_t all = recursive_doubling_allreduce(b, leaders, acc_k, tmp_k, cnt, t, comm_op, up);
    tree_bcast(b, host, 0, acc_k, cnt, t, all);
  }
  return errc::success;
}

}  // namespace baton::coll
