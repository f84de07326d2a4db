// Host-aware broadcast (two_level.hpp): the root sends to one leader per other host along a
// binomial tree of leaders (the root leads its own host), and each leader broadcasts inside its
// host along a binomial tree. Large messages are cut into segments of bytes that flow through
// both levels independently; the byte count is the one thing every rank agrees on (receivers may
// use another datatype and count than the root), so segment boundaries come from it alone. A rank
// whose datatype is not contiguous then works in a packed temporary, packed (root) or unpacked
// (others) by a message to itself.
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc bcast_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int me = a.c->rank, root = a.root;
  const int root_host = L.host_of[size_t(root)];
  const group host = host_group(L, me);
  const group leaders = leader_group(L, me, root_host, root);
  // Inside the root's host the tree starts at the root; elsewhere at the leader (index 0).
  const int host_root = L.host_of[size_t(me)] == root_host ? L.index_of[size_t(root)] : 0;
  const int64_t total = message_bytes(a);
  const int nseg = segments(total, total);
  if (nseg == 1) {
    const buf_ref buf{slot_recv, 0};
    const uint32_t got = tree_bcast(b, leaders, root_host, buf, a.count, a.type, no_step);
    tree_bcast(b, host, host_root, buf, a.count, a.type, got);
    return errc::success;
  }
  const core::datatype* byte = byte_type();
  const bool direct = a.type->is_contiguous();
  const buf_ref base = direct ? buf_ref{slot_recv, a.type->true_lb()} : buf_ref{b.temp(total), 0};
  uint32_t packed = no_step;
  if (!direct && me == root) {
    b.send(me, buf_ref{slot_recv, 0}, a.count, a.type);
    packed = b.recv(me, base, total, byte);
  }
  std::vector<uint32_t> have;
  for (int k = 0; k < nseg; ++k) {
    const int64_t off = piece_begin(total, nseg, k), cnt = piece_count(total, nseg, k);
    const buf_ref seg{base.slot, base.offset + off};
    const uint32_t got = tree_bcast(b, leaders, root_host, seg, cnt, byte, packed);
    have.push_back(tree_bcast(b, host, host_root, seg, cnt, byte, got));
  }
  if (!direct && me != root) {
    b.add(make_step(step_kind::send, me, base, {}, total, byte), have);
    b.recv(me, buf_ref{slot_recv, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
