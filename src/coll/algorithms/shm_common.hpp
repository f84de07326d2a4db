// Helpers shared by the shared-memory algorithms (src/coll/algorithms/*/*_shm.cpp); the region
// and its protocol are described in src/coll/shm_region.hpp.
#pragma once

#include "coll/algorithms/algorithms.hpp"
#include "coll/shm_region.hpp"
#include "core/copy.hpp"
#include "core/reduce.hpp"

namespace baton::coll::shm {

// count elements of t at buf <-> packed bytes at data.
inline void pack_into(char* data, const void* buf, int64_t count, const core::datatype* t) {
  if (t->is_contiguous())
    core::copy_bytes(data, static_cast<const char*>(buf) + t->true_lb(), size_t(count * t->size()));
  else
    core::pack_all(buf, count, *t, data);
}
inline void unpack_from(const char* data, void* buf, int64_t count, const core::datatype* t) {
  if (t->is_contiguous())
    core::copy_bytes(static_cast<char*>(buf) + t->true_lb(), data, size_t(count * t->size()));
  else
    core::unpack_all(data, buf, count, *t);
}

// A reader of rank r's data in run q that posted `mine` bytes: true when r published as many.
// Otherwise records the mismatch (MPI_ERR_TRUNCATE when r sent more than this rank posted,
// MPI_ERR_COUNT when less) and returns false; the caller then reads at most what both have, from
// where r put it (g.data(r, q, theirs)), and finishes the run as usual so nobody waits forever.
inline bool bytes_agree(const poll_ctx& x, int r, int64_t theirs, int64_t mine, const char* what) {
  if (theirs == mine) [[likely]]
    return true;
  if (theirs > mine)
    x.fail(core::error_set(errc::truncate, "%s: rank %d sent %lld bytes, more than the %lld bytes this rank posted "
                                           "(the ranks' counts or types disagree)",
                           what, r, (long long)theirs, (long long)mine));
  else
    x.fail(core::error_set(errc::count, "%s: rank %d sent %lld bytes, fewer than the %lld bytes this rank posted "
                                        "(the ranks' counts or types disagree)",
                           what, r, (long long)theirs, (long long)mine));
  return false;
}

// Elements of t that `bytes` packed bytes hold (a reader taking less than it posted).
inline int64_t count_in(int64_t bytes, const core::datatype* t) { return t->size() > 0 ? bytes / t->size() : 0; }

// Publishing step of a reduction: waits for the slot, copies this rank's input (s.a; contiguous
// type) into its data buffer, and stores arrived. With `finished`, also done (a rank that reads
// nothing of this run: reduce's non-roots).
inline bool publish_input(const poll_ctx& x, const step& s, bool finished) {
  const region& g = *x.g;
  const int64_t bytes = s.count * s.type->size();
  if (!g.slot_free(x.seq, bytes)) return false;
  const int sl = g.slot_of(x.seq);
  std::atomic<uint64_t>& flag = g.arrived(g.me, sl);
  pack_into(g.data(g.me, x.seq, bytes), x.address(s.a), s.count, s.type);
  region::put_bytes(flag, bytes);
  if (finished) g.done(g.me, sl).store(x.seq, std::memory_order_relaxed);
  g.publish(flag, x.seq);
  return true;
}

// Combining step: once every rank's input has arrived, writes x_0 op x_1 op ... op x_{n-1} to s.b
// (rank order, so non-commutative ops are right), then stores done.
inline bool combine_inputs(const poll_ctx& x, const step& s) {
  const region& g = *x.g;
  const core::datatype* t = s.type;
  const int64_t bytes = s.count * t->size();
  int mismatch = -1;
  if (!g.all_arrived(x.seq, bytes, &mismatch)) return false;
  char* out = x.address(s.b);
  bool agree = true;
  if (mismatch >= 0) [[unlikely]]
    for (int r = 0; r < g.n; ++r) agree = bytes_agree(x, r, g.bytes_of(r, x.seq), bytes, "reduction") && agree;
  if (agree) [[likely]] {
    unpack_from(g.data(g.n - 1, x.seq, bytes), out, s.count, t);
    for (int r = g.n - 2; r >= 0; --r) {
      const errc e =
          core::reduce_typed(*x.op, g.data(r, x.seq, bytes) - t->true_lb(), out, s.count, *t, type_abi_handle(t));
      if (e != errc::success) x.fail(e);
    }
  }
  g.finished(x.seq);
  return true;
}

// First step of a dynamic single-copy algorithm (region::cma): waits until run q may use its flag
// slot (and, with `scratch` bytes over the small buffer, its large buffer), then announces this
// rank's buffers (byte addresses) and its message's bytes with its arrived flag.
inline bool announce_buffers(const poll_ctx& x, const void* send, const void* recv, int64_t scratch, int64_t bytes) {
  const region& g = *x.g;
  if (!g.slot_free(x.seq, scratch)) return false;
  g.announce(x.seq, send, recv);
  g.put_bytes(x.seq, bytes);
  g.publish(g.arrived(g.me, g.slot_of(x.seq)), x.seq);
  return true;
}

// Single-copy reduction's work: reduces this rank's share of the elements (piece `me` of n)
// straight from every rank's send buffer (process_vm_readv) and writes it into the receive buffer
// of every rank (root < 0: allreduce) or of the root alone (reduce), `chunk` bytes at a time, so
// that a chunk just reduced is still in cache when it is written out. x_{n-1} lands in the
// accumulator first, then acc = x_r op acc for r = n-2 .. 0 (rank order: any op). The accumulator
// is this rank's receive buffer where the result lands there, else half of scratch. buffers_of(r)
// gives rank r's pid and the first element's byte address of its send and receive buffers.
// scratch holds one chunk, or two: in place (s.a == s.b on a rank that keeps the result: its
// receive buffer holds its input, copied aside chunk by chunk before its result overwrites it;
// only rank r reads or writes piece r anywhere), or as a reduce's non-root accumulator.
template <class BuffersOf>
void reduce_share(const poll_ctx& x, const step& s, char* scratch, int64_t chunk, int root, BuffersOf buffers_of) {
  const region& g = *x.g;
  const core::datatype* t = s.type;
  const int64_t size = t->size(), lb = t->true_lb();
  const char* in_base = x.address(s.a) + lb;
  const bool keeps = root < 0 || root == g.me;  // the result lands in this rank's receive buffer
  char* out_base = keeps ? x.address(s.b) + lb : nullptr;  // a reduce's non-root may have none
  const bool in_place = keeps && in_base == out_base;
  char* aside = scratch;  // in place: this rank's input chunk; a non-root: the accumulator
  if (in_place || !keeps) {
    chunk /= 2;
    scratch += chunk;
  }
  const int64_t first = piece_begin(s.count, g.n, g.me), count = piece_count(s.count, g.n, g.me);
  const int64_t per = std::max<int64_t>(1, chunk / size);
  const int last = g.n - 1;
  const char* what = root < 0 ? "allreduce" : "reduce";
  for (int64_t e = 0; e < count; e += per) {
    const int64_t ce = std::min(per, count - e), off = (first + e) * size, bytes = ce * size;
    char* out = keeps ? out_base + off : aside;
    const char* in = in_base + off;
    if (in_place && last != g.me) {
      core::copy_bytes(aside, in, size_t(bytes));
      in = aside;
    }
    auto read = [&](int r, char* dst) {
      const region::buffers p = buffers_of(r);
      if (!region::read_from(p.pid, p.send + uint64_t(off), dst, bytes))
        x.fail(core::error_set(errc::other, "process_vm_readv of a %s peer's send buffer failed", what));
    };
    auto reduce_into_out = [&](const char* src) {  // out = src op out
      if (errc e2 = core::reduce_typed(*x.op, src - lb, out - lb, ce, *t, type_abi_handle(t)); e2 != errc::success)
        x.fail(e2);
    };
    // The result is in_0 op (in_1 op (... op in_last)), accumulated in `out` from the last rank
    // down. The last rank starts from its own input: with a commutative op it reads its
    // predecessor's chunk straight into `out` and reduces its own input into that, instead of
    // copying its input there first (one pass over the chunk less: without it the last rank's
    // share took about a quarter longer than the others').
    int next = last - 1;
    if (last == g.me) {
      if (out != in && next >= 0 && x.op->is_commutative()) {
        read(next, out);
        reduce_into_out(in);
        --next;
      } else if (out != in) {
        core::copy_bytes(out, in, size_t(bytes));
      }
    } else {
      read(last, out);
    }
    for (int r = next; r >= 0; --r) {
      const char* src = in;
      if (r != g.me) {
        read(r, scratch);
        src = scratch;
      }
      reduce_into_out(src);
    }
    for (int r = 0; r < g.n; ++r) {
      if (r == g.me || (root >= 0 && r != root)) continue;
      const region::buffers p = buffers_of(r);
      if (!region::write_to(p.pid, p.recv + uint64_t(off), out, bytes))
        x.fail(core::error_set(errc::other, "process_vm_writev into a %s peer's receive buffer failed", what));
    }
  }
}

// Work step of a single-copy algorithm: once every rank has started run q (announced its
// buffers, or bound them at init for a persistent one), runs
// `with_peers` (everything that reads or writes the peers' buffers) once, stores done (also after
// a failure: the peers must not wait for it forever), then runs `local` (work on this rank's own
// buffers, overlapping the peers' wait for done); complete once every rank's done shows the run
// (nobody reads or writes this rank's buffers any more). `bytes` >= 0: what every rank announced
// (announce_buffers) must equal it, or nothing is read or written (a peer's buffer may be
// smaller than this rank's count says) and the run fails; -1: sizes were agreed at init.
template <class WithPeers, class Local>
bool single_copy_step(const poll_ctx& x, WithPeers with_peers, Local local, int64_t bytes = -1) {
  const region& g = *x.g;
  const uint64_t q = x.seq;
  const int sl = g.slot_of(q);
  std::atomic<uint64_t>& mine = g.done(g.me, sl);
  if (mine.load(std::memory_order_relaxed) < q) {
    int mismatch = -1;
    if (!g.all_arrived(q, bytes, bytes >= 0 ? &mismatch : nullptr)) return false;
    bool agree = true;
    if (mismatch >= 0) [[unlikely]]
      for (int r = 0; r < g.n; ++r) agree = bytes_agree(x, r, g.bytes_of(r, q), bytes, "single-copy collective") && agree;
    if (agree) with_peers();
    g.publish(mine, q);
    if (agree) local();
  }
  for (int r = 0; r < g.n; ++r)
    if (g.done(r, sl).load(std::memory_order_acquire) < q) return false;
  return true;
}

// Single-copy alltoall's work: once every rank has started the run, reads block `me` of every
// peer's send buffer (buffers_of(r).send: its first block's first byte) into dst + r * stride,
// starting with the next rank so that the ranks spread over their peers, stores done, then copies
// this rank's own block from `own` (overlapping the peers' wait for done).
template <class BuffersOf>
bool gather_blocks(const poll_ctx& x, char* dst, const char* own, int64_t block, int64_t stride, BuffersOf buffers_of,
                   int64_t bytes = -1) {
  const region& g = *x.g;
  return single_copy_step(
      x,
      [&] {
        for (int k = 1; k < g.n; ++k) {
          const int r = (g.me + k) % g.n;
          const region::buffers p = buffers_of(r);
          if (!region::read_from(p.pid, p.send + uint64_t(g.me * block), dst + r * stride, block))
            x.fail(core::error_set(errc::other, "process_vm_readv of an alltoall peer's send buffer failed"));
        }
      },
      [&] { core::copy_bytes(dst + g.me * stride, own, size_t(block)); }, bytes);
}

}  // namespace baton::coll::shm
