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

// Publishing step of a reduction: waits for the slot, copies this rank's input (s.a; contiguous
// type) into its data buffer, and stores arrived. With `finished`, also done (a rank that reads
// nothing of this run: reduce's non-roots).
inline bool publish_input(const poll_ctx& x, const step& s, bool finished) {
  const region& g = *x.g;
  const int64_t bytes = s.count * s.type->size();
  if (!g.slot_free(x.seq, bytes)) return false;
  const int sl = g.slot_of(x.seq);
  pack_into(g.data(g.me, x.seq, bytes), x.address(s.a), s.count, s.type);
  if (finished) g.done(g.me, sl).store(x.seq, std::memory_order_relaxed);
  g.publish(g.arrived(g.me, sl), x.seq);
  return true;
}

// Combining step: once every rank's input has arrived, writes x_0 op x_1 op ... op x_{n-1} to s.b
// (rank order, so non-commutative ops are right), then stores done.
inline bool combine_inputs(const poll_ctx& x, const step& s) {
  const region& g = *x.g;
  if (!g.all_arrived(x.seq)) return false;
  const core::datatype* t = s.type;
  char* out = x.address(s.b);
  const int64_t bytes = s.count * t->size();
  unpack_from(g.data(g.n - 1, x.seq, bytes), out, s.count, t);
  for (int r = g.n - 2; r >= 0; --r) {
    const errc e =
        core::reduce_typed(*x.op, g.data(r, x.seq, bytes) - t->true_lb(), out, s.count, *t, type_abi_handle(t));
    if (e != errc::success) x.fail(e);
  }
  g.finished(x.seq);
  return true;
}

}  // namespace baton::coll::shm
