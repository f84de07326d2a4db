// Host-aware alltoall (two_level.hpp) for small blocks: blocks between ranks of one host go
// straight from rank to rank; each rank packs its blocks for the other hosts (in host order) and
// sends them to its host's leader in one message; the leaders exchange one message per pair of
// hosts (all blocks from the one host's ranks to the other's), and each leader hands every member
// of its host, in one message, the blocks the other hosts' ranks sent it. The bytes that cross
// between hosts are the same as point to point; the messages that cross are one per pair of hosts
// instead of one per pair of ranks, which is what small blocks pay for. Not in place. Blocks are
// moved as bytes between the leaders; a rank whose type's elements lie back to back copies its
// blocks as byte ranges, any other rank packs and unpacks them by messages to itself, so ranks
// may use different datatypes of one signature (all choose alike: the block's byte count agrees).
//
// Layouts (blocks of `block` bytes; R = ranks on other hosts, m = ranks on this host, rp(r) =
// position of remote rank r in host order without this host):
//   member pack   G[rp(r)]                    = this rank's block for r
//   leader gather A[i][rp(r)]                 = member i's block for r
//   leader out    O[h: rp(h's first) * m][j][i] = member i's block for h's member j
//   leader in     I[h: rp(h's first) * m][j][i] = h's member i's block for member j
//   member result S[j][rp(r)]                 = r's block for member j (a member receives S[j] in G)
#include "coll/algorithms/two_level.hpp"

namespace baton::coll {

errc alltoall_two_level(const coll_args& a, builder& b) {
  using namespace two_level;
  const host_layout& L = hosts_of(a.c);
  const int me = a.c->rank;
  const core::datatype* byte = byte_type();
  const int64_t block = a.rcount * a.rtype->size();
  const bool sbytes = shm::single_copy_reducible(a.type), rbytes = shm::single_copy_reducible(a.rtype);
  // Block r of the user's buffers, as elements of the user's types.
  auto sblock = [&](int r) { return at(buf_ref{slot_send, 0}, a.type, int64_t(r) * a.count); };
  auto rblock = [&](int r) { return at(buf_ref{slot_recv, 0}, a.rtype, int64_t(r) * a.rcount); };
  auto at_block = [&](buf_ref base, int64_t k) { return buf_ref{base.slot, base.offset + k * block}; };
  // Block r of the send buffer into packed bytes at dst, and packed bytes into block r of the
  // receive buffer: a byte copy where the type allows, else a message to this rank itself.
  auto pack = [&](int r, buf_ref dst, const std::vector<uint32_t>& after) {
    if (sbytes)
      return b.add(make_step(step_kind::copy, 0, buf_ref{slot_send, a.type->true_lb() + r * block}, dst, block, byte),
                   after);
    b.add(make_step(step_kind::send, me, sblock(r), {}, a.count, a.type), after);
    return b.recv(me, dst, block, byte);
  };
  auto unpack = [&](buf_ref src, int r, const std::vector<uint32_t>& after) {
    if (rbytes)
      return b.add(make_step(step_kind::copy, 0, src, buf_ref{slot_recv, a.rtype->true_lb() + r * block}, block, byte),
                   after);
    b.add(make_step(step_kind::send, me, src, {}, block, byte), after);
    return b.recv(me, rblock(r), a.rcount, a.rtype);
  };

  const group host = host_group(L, me);
  const int hm = L.host_of[size_t(me)], m = host.size();
  const int remote = a.c->size - m;
  auto rp = [&](int r) { return L.position(r) - (L.host_of[size_t(r)] > hm ? m : 0); };

  // Within the host: straight exchanges in the user's types, own block through a message to
  // itself unless both types are byte ranges.
  if (sbytes && rbytes) {
    b.copy(buf_ref{slot_send, a.type->true_lb() + me * block}, buf_ref{slot_recv, a.rtype->true_lb() + me * block},
           block, byte);
  } else {
    b.send(me, sblock(me), a.count, a.type);
    b.recv(me, rblock(me), a.rcount, a.rtype);
  }
  for (int k = 1; k < m; ++k) {
    const int to = host[(host.me + k) % m], from = host[(host.me - k + m) % m];
    b.send(to, sblock(to), a.count, a.type);
    b.recv(from, rblock(from), a.rcount, a.rtype);
  }
  if (remote == 0) return errc::success;

  const int64_t bytes = remote * block;  // one member's blocks for (or from) the other hosts
  if (host.me != 0) {
    const buf_ref g{b.temp(bytes), 0};
    std::vector<uint32_t> packed;
    for (int r = 0; r < a.c->size; ++r)
      if (L.host_of[size_t(r)] != hm) packed.push_back(pack(r, at_block(g, rp(r)), {}));
    const uint32_t up = b.add(make_step(step_kind::send, host[0], g, {}, bytes, byte), packed);
    const uint32_t down = b.recv(host[0], g, bytes, byte, {up});
    for (int r = 0; r < a.c->size; ++r)
      if (L.host_of[size_t(r)] != hm) unpack(at_block(g, rp(r)), r, {down});
    return errc::success;
  }

  // The leader.
  const buf_ref A{b.temp(m * bytes), 0}, O{b.temp(m * bytes), 0}, I{b.temp(m * bytes), 0}, S{b.temp(m * bytes), 0};
  std::vector<uint32_t> gathered;
  for (int r = 0; r < a.c->size; ++r)
    if (L.host_of[size_t(r)] != hm) gathered.push_back(pack(r, at_block(A, rp(r)), {}));
  for (int i = 1; i < m; ++i) gathered.push_back(b.recv(host[i], at_block(A, int64_t(i) * remote), bytes, byte));
  const uint32_t all_in = join(b, gathered);
  std::vector<uint32_t> arrived;
  for (int h = 0; h < L.nhosts; ++h) {
    if (h == hm) continue;
    const int sh = L.host_size(h);
    const int64_t off = int64_t(rp(L.member(h, 0))) * m;  // in blocks
    std::vector<uint32_t> out;
    for (int j = 0; j < sh; ++j)
      for (int i = 0; i < m; ++i)
        out.push_back(b.copy(at_block(A, int64_t(i) * remote + rp(L.member(h, j))), at_block(O, off + int64_t(j) * m + i),
                             block, byte, {all_in}));
    b.add(make_step(step_kind::send, L.leader(h), at_block(O, off), {}, int64_t(sh) * m * block, byte), out);
    const uint32_t got = b.recv(L.leader(h), at_block(I, off), int64_t(sh) * m * block, byte);
    // Hand out: member j's blocks from h's ranks; the leader's own straight into its receive buffer.
    for (int i = 0; i < sh; ++i) unpack(at_block(I, off + i), L.member(h, i), {got});
    for (int j = 1; j < m; ++j)
      for (int i = 0; i < sh; ++i)
        arrived.push_back(b.copy(at_block(I, off + int64_t(j) * sh + i),
                                 at_block(S, int64_t(j) * remote + rp(L.member(h, i))), block, byte, {got}));
  }
  const uint32_t ready = arrived.empty() ? no_step : join(b, arrived);
  for (int j = 1; j < m; ++j)
    b.add(make_step(step_kind::send, host[j], at_block(S, int64_t(j) * remote), {}, bytes, byte), after(ready));
  return errc::success;
}

}  // namespace baton::coll
