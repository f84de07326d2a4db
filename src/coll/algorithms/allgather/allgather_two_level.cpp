// Host-aware allgather (two_level.hpp): each rank sends its block to its host's leader, the
// leaders exchange their hosts' blocks (one message per pair of leaders), and each leader
// broadcasts all blocks inside its host along a binomial tree. The leaders work in "host order"
// (host 0's blocks, then host 1's, ...): a host's blocks are then one byte range. Where that is
// the receive buffer's own order (each host's ranks consecutive) and the receive type's elements
// lie back to back, everything lands in the receive buffer directly; otherwise in a packed
// temporary that every rank unpacks into its receive buffer at the end.
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc allgather_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int n = a.c->size, me = a.c->rank;
  const core::datatype* byte = byte_type();
  const group host = host_group(L, me);
  const group leaders = leader_group(L, me);
  const int64_t block = a.rcount * a.rtype->size();
  const bool direct = L.blocked && shm::single_copy_reducible(a.rtype);
  const buf_ref packed = direct ? buf_ref{slot_recv, a.rtype->true_lb()} : buf_ref{b.temp(n * block), 0};
  auto at_pos = [&](int pos) { return buf_ref{packed.slot, packed.offset + pos * block}; };
  auto user_block = [&](int r) { return at(buf_ref{slot_recv, 0}, a.rtype, int64_t(r) * a.rcount); };
  // This rank's block, as the user gave it.
  const buf_ref mine = a.in_place ? user_block(me) : buf_ref{slot_send, 0};
  const int64_t mcount = a.in_place ? a.rcount : a.count;
  const core::datatype* mtype = a.in_place ? a.rtype : a.type;

  const int my_host = L.host_of[size_t(me)];
  uint32_t have = no_step;  // this rank holds every block in `packed`
  if (leaders.me >= 0) {
    std::vector<uint32_t> gathered;
    // Own block into place (a message to itself packs any datatype), unless it is there already.
    if (!(direct && a.in_place)) {
      b.send(me, mine, mcount, mtype);
      gathered.push_back(b.recv(me, at_pos(L.position(me)), block, byte));
    }
    for (int i = 1; i < host.size(); ++i)
      gathered.push_back(b.recv(host[i], at_pos(L.first[size_t(my_host)] + i), block, byte));
    const uint32_t host_done = gathered.empty() ? no_step : join(b, gathered);
    std::vector<uint32_t> all = gathered;
    for (int h = 0; h < L.nhosts; ++h) {
      if (h == my_host) continue;
      b.add(make_step(step_kind::send, leaders[h], at_pos(L.first[size_t(my_host)]), {},
                      L.host_size(my_host) * block, byte),
            after(host_done));
      all.push_back(b.recv(leaders[h], at_pos(L.first[size_t(h)]), L.host_size(h) * block, byte));
    }
    have = all.empty() ? no_step : join(b, all);
  } else {
    // The blocks come back over this rank's own one (in place): after it has left.
    have = b.send(host[0], mine, mcount, mtype);
  }
  have = tree_bcast(b, host, 0, packed, n * block, byte, have);
  if (!direct) {
    // Unpack: block of rank r from its host-order position.
    for (int r = 0; r < n; ++r) {
      if (r == me && a.in_place) continue;
      if (shm::single_copy_reducible(a.rtype)) {
        b.add(make_step(step_kind::copy, 0, at_pos(L.position(r)), {slot_recv, a.rtype->true_lb() + r * block},
                        block, byte),
              after(have));
      } else {
        b.add(make_step(step_kind::send, me, at_pos(L.position(r)), {}, block, byte), after(have));
        b.recv(me, user_block(r), a.rcount, a.rtype);
      }
    }
  }
  return errc::success;
}

}  // namespace baton::coll
