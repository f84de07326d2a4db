// Scatter + allgather broadcast (van de Geijn): the root's buffer is cut into n pieces, scattered
// down a binomial tree (a rank receives the pieces of its whole subtree, then hands each child its
// subtree's share), then a ring allgather gives every rank every piece: n-1 steps, each rank
// forwarding to its right neighbour the piece it received from its left one the step before.
// About 2x the message per rank instead of log2(n)x.
//
// Pieces are numbered by rank relative to the root and laid out in order in the buffer, so a
// subtree's pieces form one range. A contiguous type is cut at byte granularity (any count works,
// even one large element); any other type at element granularity (pieces may be empty when
// count < n, their messages then carry nothing).
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

namespace {
// The buffer as `total` units of `type`: bytes of a contiguous type, else whole elements.
struct units {
  const core::datatype* type;
  int64_t total;
  int64_t stride;  // bytes per unit
  int64_t base;    // byte offset of unit 0 in the receive slot

  buf_ref at(int64_t u) const { return buf_ref{slot_recv, base + u * stride}; }
};
}  // namespace

errc bcast_scatter_allgather(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  if (n == 1) return errc::success;
  const int vr = (me - root + n) % n;
  units u;
  if (a.type->is_contiguous()) {
    u = units{core::predefined_datatype(0x247), a.count * a.type->size(), 1, a.type->true_lb()};
  } else {
    u = units{a.type, a.count, a.type->extent(), 0};
  }
  auto first = [&](int piece) { return piece_begin(u.total, n, piece); };
  auto span = [&](int from, int to) { return pieces_count(u.total, n, from, std::min(to, n)); };
  auto real = [&](int rel) { return (rel + root) % n; };

  // Binomial scatter of piece ranges.
  std::vector<uint32_t> scatter;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      scatter.push_back(b.recv(real(vr - mask), u.at(first(vr)), span(vr, vr + mask), u.type));
      break;
    }
    mask <<= 1;
  }
  const bool has_parent = !scatter.empty();
  const uint32_t got = has_parent ? scatter[0] : 0;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= n) continue;
    const int child = vr + mask;
    const buf_ref src = u.at(first(child));
    const int64_t cnt = span(child, child + mask);
    scatter.push_back(has_parent ? b.send(real(child), src, cnt, u.type, {got}) : b.send(real(child), src, cnt, u.type));
  }

  // Ring allgather. Every receive may overwrite pieces the scatter still sends (with the same
  // bytes), so receives wait for the scatter; each send waits for the piece it forwards.
  const uint32_t ready = join(b, scatter);
  const int right = real((vr + 1) % n), left = real((vr - 1 + n) % n);
  uint32_t prev = ready;
  for (int s = 0; s < n - 1; ++s) {
    const int out = (vr - s + n) % n, in = (vr - s - 1 + n) % n;
    b.send(right, u.at(first(out)), span(out, out + 1), u.type, {prev});
    prev = b.recv(left, u.at(first(in)), span(in, in + 1), u.type, {ready});
  }
  return errc::success;
}

}  // namespace baton::coll
