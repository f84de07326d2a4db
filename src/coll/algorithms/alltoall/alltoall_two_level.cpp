// Host-aware alltoall (two_level.hpp) for small blocks: blocks between ranks of one host go
// straight from rank to rank; each rank packs its blocks for the other hosts (in host order) and
// sends them to its host's leader in one message; the leaders exchange one message per pair of
// hosts (all blocks from the one host's ranks to the other's), and each leader hands every member
// of its host, in one message, the blocks the other hosts' ranks sent it. The bytes that cross
// between hosts are the same as point to point; the messages that cross are one per pair of hosts
// instead of one per pair of ranks, which is what small blocks pay for. Types whose elements lie
// back to back (a block is a range of bytes); not in place.
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
  const buf_ref sbase{slot_send, a.type->true_lb()}, rbase{slot_recv, a.rtype->true_lb()};
  auto sblock = [&](int r) { return buf_ref{sbase.slot, sbase.offset + r * block}; };
  auto rblock = [&](int r) { return buf_ref{rbase.slot, rbase.offset + r * block}; };
  auto at_block = [&](buf_ref base, int64_t k) { return buf_ref{base.slot, base.offset + k * block}; };

  const group host = host_group(L, me);
  const int hm = L.host_of[size_t(me)], m = host.size();
  const int remote = a.c->size - m;
  auto rp = [&](int r) { return L.position(r) - (L.host_of[size_t(r)] > hm ? m : 0); };

  // Within the host: straight exchanges, own block copied.
  b.copy(sblock(me), rblock(me), block, byte);
  for (int k = 1; k < m; ++k) {
    const int to = host[(host.me + k) % m], from = host[(host.me - k + m) % m];
    b.send(to, sblock(to), block, byte);
    b.recv(from, rblock(from), block, byte);
  }
  if (remote == 0) return errc::success;

  const int64_t pack = remote * block;  // one member's blocks for (or from) the other hosts
  if (host.me != 0) {
    const buf_ref g{b.temp(pack), 0};
    std::vector<uint32_t> packed;
    for (int r = 0; r < a.c->size; ++r)
      if (L.host_of[size_t(r)] != hm) packed.push_back(b.copy(sblock(r), at_block(g, rp(r)), block, byte));
    const uint32_t up = b.add(make_step(step_kind::send, host[0], g, {}, pack, byte), packed);
    const uint32_t down = b.recv(host[0], g, pack, byte, {up});
    for (int r = 0; r < a.c->size; ++r)
      if (L.host_of[size_t(r)] != hm) b.copy(at_block(g, rp(r)), rblock(r), block, byte, {down});
    return errc::success;
  }

  // The leader.
  const buf_ref A{b.temp(m * pack), 0}, O{b.temp(m * pack), 0}, I{b.temp(m * pack), 0}, S{b.temp(m * pack), 0};
  std::vector<uint32_t> gathered;
  for (int r = 0; r < a.c->size; ++r)
    if (L.host_of[size_t(r)] != hm) gathered.push_back(b.copy(sblock(r), at_block(A, rp(r)), block, byte));
  for (int i = 1; i < m; ++i) gathered.push_back(b.recv(host[i], at_block(A, int64_t(i) * remote), pack, byte));
  const uint32_t all_in = join(b, gathered);
  std::vector<uint32_t> arrived;
  for (int h = 0; h < L.nhosts; ++h) {
    if (h == hm) continue;
    const int sh = L.host_size(h);
    const int64_t off = int64_t(rp(L.member(h, 0))) * m;  // in blocks
    std::vector<uint32_t> out;
    for (int j = 0; j < sh; ++j)
      for (int i = 0; i < m; ++i)
        out.push_back(b.copy(at_block(A, int64_t(i) * remote + rp(L.member(h, j))), at_block(O, off + j * m + i),
                             block, byte, {all_in}));
    b.add(make_step(step_kind::send, L.leader(h), at_block(O, off), {}, sh * m * block, byte), out);
    const uint32_t got = b.recv(L.leader(h), at_block(I, off), sh * m * block, byte);
    // Hand out: member j's blocks from h's ranks; the leader's own straight into its receive buffer.
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < sh; ++i) {
        const buf_ref dst = j == 0 ? rblock(L.member(h, i)) : at_block(S, int64_t(j) * remote + rp(L.member(h, i)));
        const uint32_t c = b.copy(at_block(I, off + int64_t(j) * sh + i), dst, block, byte, {got});
        if (j != 0) arrived.push_back(c);
      }
  }
  const uint32_t ready = arrived.empty() ? none : join(b, arrived);
  for (int j = 1; j < m; ++j)
    b.add(make_step(step_kind::send, host[j], at_block(S, int64_t(j) * remote), {}, pack, byte), deps(ready));
  return errc::success;
}

}  // namespace baton::coll
