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

}  // namespace baton::coll
