// Declarations of every algorithm's build function, and helpers the algorithms share.
#pragma once

#include "coll/coll.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"

namespace baton::coll {

#define BATON_ALGORITHM(coll, name, fn, usable, preferred) errc fn(const coll_args& a, builder& b);
#include "coll/algorithms.def"
#undef BATON_ALGORITHM

// Predicates used by the registry.
inline bool always(const coll_args&) { return true; }
inline bool commutative(const coll_args& a) { return a.op && a.op->is_commutative(); }

// Bytes a temporary must have to hold `count` elements of t laid out as in a user buffer, and the
// offset to use in its buf_ref (so that element 0 starts where a user buffer's would).
inline int64_t temp_bytes(const core::datatype* t, int64_t count) {
  return count > 0 ? (count - 1) * t->extent() + t->true_extent() : 0;
}
inline int64_t temp_offset(const core::datatype* t) { return -t->true_lb(); }

// A temporary for `count` elements of t; returns a reference to its element 0.
inline buf_ref temp_buffer(builder& b, const core::datatype* t, int64_t count) {
  return buf_ref{b.temp(temp_bytes(t, count)), temp_offset(t)};
}

// Reference to element `index` of a slot laid out as count elements of t.
inline buf_ref at(buf_ref base, const core::datatype* t, int64_t index) {
  return buf_ref{base.slot, base.offset + index * t->extent()};
}

// -- gather(v), scatter(v), allgather(v): selection predicates --

// Bytes of one rank's block as every rank computes it alike (the side significant everywhere:
// send at gather's non-roots, receive at its root, ...), and of the whole gathered buffer.
inline int64_t gather_block_bytes(const coll_args& a) {
  const bool root = a.c->rank == a.root;
  if (a.kind == coll_kind::gather) return root ? a.rcount * a.rtype->size() : a.count * a.type->size();
  if (a.kind == coll_kind::scatter) return root ? a.count * a.type->size() : a.rcount * a.rtype->size();
  return a.rcount * a.rtype->size();  // allgather
}
inline int64_t allgather_total_bytes(const coll_args& a) {
  if (a.kind != coll_kind::allgatherv) return a.c->size * gather_block_bytes(a);
  int64_t total = 0;
  for (int r = 0; r < a.c->size; ++r) total += a.rcounts[r];
  return total * a.rtype->size();
}
inline bool pof2_ranks(const coll_args& a) { return (a.c->size & (a.c->size - 1)) == 0; }
// Binomial gather/scatter for blocks up to 16 KiB (fewer messages at the root); linear above,
// where the tree's forwarding costs more than the root's serialization.
inline bool gather_small_block(const coll_args& a) { return gather_block_bytes(a) <= (int64_t{16} << 10); }
// Allgather(v): recursive doubling up to 512 KiB in all when n is a power of two, Bruck up to
// 80 KiB otherwise, the ring above.
inline bool allgather_rd_preferred(const coll_args& a) {
  return pof2_ranks(a) && allgather_total_bytes(a) <= (int64_t{512} << 10);
}
inline bool allgather_bruck_preferred(const coll_args& a) { return allgather_total_bytes(a) <= (int64_t{80} << 10); }

}  // namespace baton::coll
