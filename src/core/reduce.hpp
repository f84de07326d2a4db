// Applying a reduction op to typed buffers: inout = in op inout for `count` elements of `t`,
// whatever the datatype's layout. Used by MPI_Reduce_local and the collectives' reduce steps.
#pragma once

#include <cstdint>

#include "core/datatype.hpp"
#include "core/error.hpp"
#include "core/op.hpp"

namespace baton::core {

// `handle` is the datatype's MPI handle, handed to user ops. The op must apply to t (op_check).
// Predefined and contiguous derived types are reduced in place; types with holes or padded pair
// elements are gathered into arrays of their basic type (the C layout the kernels expect),
// reduced, and scattered back, so bytes outside the type map are never touched.
[[nodiscard]] errc reduce_typed(const op& o, const void* in, void* inout, int64_t count, const datatype& t,
                                void* handle);

}  // namespace baton::core
