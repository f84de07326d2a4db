#include "coll/algorithms/alltoall/alltoall_exchange.hpp"

namespace baton::coll {

uint32_t a2a_convert(builder& b, int self, buf_ref src, int64_t scount, const core::datatype* stype, buf_ref dst,
                     int64_t rcount, const core::datatype* rtype, const std::vector<uint32_t>& after) {
  if (stype == rtype && scount == rcount) return b.add(make_step(step_kind::copy, 0, src, dst, scount, stype), after);
  b.add(make_step(step_kind::send, self, src, {}, scount, stype), after);
  return b.add(make_step(step_kind::recv, self, dst, {}, rcount, rtype), after);
}

void a2a_blocks_build(const coll_args& a, builder& b, a2a_blocks& out) {
  const int n = a.c->size;
  out = a2a_blocks{};
  out.src.resize(n);
  out.dst.resize(n);
  out.scount.resize(n);
  out.rcount.resize(n);
  out.stype.resize(n);
  out.rtype.resize(n);
  for (int j = 0; j < n; ++j) {
    switch (a.kind) {
      case coll_kind::alltoall:
        out.rcount[j] = a.rcount;
        out.rtype[j] = a.rtype;
        out.dst[j] = at(buf_ref{slot_recv, 0}, a.rtype, j * a.rcount);
        out.scount[j] = a.count;
        out.stype[j] = a.type;
        if (!a.in_place) out.src[j] = at(buf_ref{slot_send, 0}, a.type, j * a.count);
        break;
      case coll_kind::alltoallv:
        out.rcount[j] = a.rcounts[j];
        out.rtype[j] = a.rtype;
        out.dst[j] = buf_ref{slot_recv, a.rdispls[j] * a.rtype->extent()};
        if (!a.in_place) {
          out.scount[j] = a.scounts[j];
          out.stype[j] = a.type;
          out.src[j] = buf_ref{slot_send, a.sdispls[j] * a.type->extent()};
        }
        break;
      default:  // alltoallw: displacements in bytes, a type per peer
        out.rcount[j] = a.rcounts[j];
        out.rtype[j] = a.rtypes[j];
        out.dst[j] = buf_ref{slot_recv, a.rdispls[j]};
        if (!a.in_place) {
          out.scount[j] = a.scounts[j];
          out.stype[j] = a.stypes[j];
          out.src[j] = buf_ref{slot_send, a.sdispls[j]};
        }
        break;
    }
  }
  if (!a.in_place) return;
  // In place: send what the receive buffer holds for each peer, from a copy made before anything
  // arrives. The own block stays where it is.
  const int me = a.c->rank;
  std::vector<int64_t> where(n, 0);
  int64_t total = 0;
  for (int j = 0; j < n; ++j) {
    out.scount[j] = out.rcount[j];
    out.stype[j] = out.rtype[j];
    if (j == me || out.rcount[j] == 0) continue;
    where[j] = total;
    total += (temp_bytes(out.rtype[j], out.rcount[j]) + 63) / 64 * 64;
  }
  if (total == 0) return;
  const uint8_t slot = b.temp(total);
  for (int j = 0; j < n; ++j) {
    if (j == me || out.rcount[j] == 0) continue;
    out.src[j] = buf_ref{slot, where[j] + temp_offset(out.rtype[j])};
    out.ready.push_back(b.copy(out.dst[j], out.src[j], out.rcount[j], out.rtype[j]));
  }
}

errc a2a_exchange(const coll_args& a, builder& b, int window, bool xor_peers) {
  const int n = a.c->size, me = a.c->rank;
  a2a_blocks k;
  a2a_blocks_build(a, b, k);
  std::vector<uint32_t> start = k.ready;
  if (k.ready.size() > 1) start = {join(b, k.ready)};
  if (!a.in_place && k.rcount[me] * k.rtype[me]->size() > 0)
    a2a_convert(b, me, k.src[me], k.scount[me], k.stype[me], k.dst[me], k.rcount[me], k.rtype[me], start);
  // steps[s]: the messages of exchange step s (to wait for before step s + window starts)
  std::vector<std::vector<uint32_t>> steps(n);
  for (int s = 1; s < n; ++s) {
    const int to = xor_peers ? me ^ s : (me + s) % n;
    const int from = xor_peers ? me ^ s : (me - s + n) % n;
    std::vector<uint32_t> after = start;
    if (s - window >= 1) {
      const auto& prev = steps[s - window];
      if (prev.size() == 1)
        after = prev;
      else if (!prev.empty())
        after = {join(b, prev)};
    }
    if (k.rcount[from] * k.rtype[from]->size() > 0)
      steps[s].push_back(b.add(make_step(step_kind::recv, from, k.dst[from], {}, k.rcount[from], k.rtype[from]), after));
    if (k.scount[to] * k.stype[to]->size() > 0)
      steps[s].push_back(b.add(make_step(step_kind::send, to, k.src[to], {}, k.scount[to], k.stype[to]), after));
    if (steps[s].empty()) steps[s] = after;  // nothing moved: the next step waits for what this one did
  }
  return errc::success;
}

}  // namespace baton::coll
