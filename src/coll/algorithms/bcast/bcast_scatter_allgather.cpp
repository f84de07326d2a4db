// Scatter + allgather broadcast (van de Geijn): the root's buffer is cut into n pieces, scattered
// down a binomial tree (a rank receives the pieces of its whole subtree, then hands each child its
// subtree's share), then a ring allgather gives every rank every piece: n-1 steps, each rank
// forwarding to its right neighbour the piece it received from its left one the step before
// (pieces a rank got in the scatter are not sent to it again). About 2x the message per rank
// instead of log2(n)x.
//
// The message is cut at byte granularity: the total byte count is the one thing every rank agrees
// on (a receiver may use another datatype and count than the root, with the same type signature),
// so piece boundaries come from it alone and any count works, even one large element; pieces may
// be empty (count*size < n), their messages then carry nothing. Pieces are numbered by rank
// relative to the root and laid out in order, so a subtree's pieces form one byte range.
// A rank whose datatype is contiguous works in its buffer directly; any other rank works in a
// packed temporary, packed (root) or unpacked (others) by a message to itself.
#include "coll/algorithms/algorithms.hpp"

namespace baton::coll {

errc bcast_scatter_allgather(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank, root = a.root;
  if (n == 1) return errc::success;
  const int vr = (me - root + n) % n;
  const core::datatype* byte = core::predefined_datatype(0x247);
  const int64_t total = a.count * a.type->size();
  const bool direct = a.type->is_contiguous();
  const buf_ref base = direct ? buf_ref{slot_recv, a.type->true_lb()} : buf_ref{b.temp(total), 0};
  auto at_byte = [&](int64_t off) { return buf_ref{base.slot, base.offset + off}; };
  auto first = [&](int piece) { return at_byte(piece_begin(total, n, piece)); };
  auto span = [&](int from, int to) { return pieces_count(total, n, from, std::min(to, n)); };
  auto real = [&](int rel) { return (rel + root) % n; };

  std::vector<uint32_t> got;  // the steps that bring this rank its subtree's pieces
  if (!direct && vr == 0) {   // pack
    b.send(me, buf_ref{slot_recv, 0}, a.count, a.type);
    got.push_back(b.recv(me, base, total, byte));
  }

  // Binomial scatter of piece ranges.
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      got.push_back(b.recv(real(vr - mask), first(vr), span(vr, vr + mask), byte));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= n) continue;
    const int child = vr + mask;
    b.add(make_step(step_kind::send, real(child), first(child), {}, span(child, child + mask), byte), got);
  }

  // Ring allgather. A rank already holding a piece from the scatter (its subtree's) neither
  // receives it nor has it sent, so the ring's receives touch nothing the scatter does and are
  // posted at once; each send waits for the piece it forwards.
  auto holds = [&](int v, int piece) {
    const int sub = v == 0 ? n : std::min(v & -v, n - v);  // relative v's subtree: [v, v + sub)
    return piece >= v && piece < v + sub;
  };
  const uint32_t subtree = join(b, got);
  const int vright = (vr + 1) % n, right = real(vright), left = real((vr - 1 + n) % n);
  uint32_t prev = subtree;
  std::vector<uint32_t> received{subtree};
  for (int s = 0; s < n - 1; ++s) {
    const int out = (vr - s + n) % n, in = (vr - s - 1 + n) % n;
    if (!holds(vright, out)) b.send(right, first(out), span(out, out + 1), byte, {prev});
    prev = subtree;
    if (!holds(vr, in)) {
      prev = b.recv(left, first(in), span(in, in + 1), byte);
      received.push_back(prev);
    }
  }
  if (!direct && vr != 0) {  // unpack once every piece is in
    b.add(make_step(step_kind::send, me, base, {}, total, byte), received);
    b.recv(me, buf_ref{slot_recv, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
