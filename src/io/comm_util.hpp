// Small blocking collectives over a file's private communicator (open's agreement, view and
// pointer changes), through the collective engine.
#pragma once

#include <cstddef>

#include "core/error.hpp"

namespace baton::core {
class comm;
class datatype;
}  // namespace baton::core

namespace baton::io {

const core::datatype* byte_type();  // MPI_BYTE
[[nodiscard]] core::errc allgather(core::comm* c, const void* in, size_t bytes, void* out);
[[nodiscard]] core::errc bcast(core::comm* c, void* buf, size_t bytes, int root);
[[nodiscard]] core::errc barrier(core::comm* c);

}  // namespace baton::io
