// Data representations (MPI-4.1 14.5): "native" and "internal" (both the memory layout here),
// "external32" (big-endian, the standard's sizes; the conversion is the datatype engine's
// MPI_Pack_external code), and those registered with MPI_Register_datarep, whose callbacks
// src/abi wraps (handles and the C calling convention stay there).
//
// The registry lives for the whole process (the standard gives no way to remove a
// representation); lookups and registration take its mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/error.hpp"

namespace baton::core {
class datatype;
}

namespace baton::io {

using core::errc;

enum class datarep_kind : uint8_t { native, internal, external32, user };

struct datarep {
  std::string name;
  datarep_kind kind = datarep_kind::native;
  // User representations: converts `count` elements of type t between the user's buffer (its
  // element `position` onwards) and the file representation in filebuf; `read` goes from file to
  // memory. Null means the representation keeps the memory layout (MPI_CONVERSION_FN_NULL).
  std::function<errc(bool read, void* userbuf, const core::datatype* t, int64_t count, void* filebuf,
                     int64_t position)>
      convert;
  // The extent in the file of a predefined type (dtype_file_extent_fn).
  std::function<errc(const core::datatype* t, int64_t* extent)> file_extent;
  // The file holds the memory layout unchanged.
  bool identity() const { return kind == datarep_kind::native || kind == datarep_kind::internal || (kind == datarep_kind::user && !convert); }
};

// The representation called `name`, or errc::unsupported_datarep with a message.
[[nodiscard]] errc datarep_find(const std::string& name, const datarep** out);
// Registers a user representation; errc::dup_datarep if the name is taken.
[[nodiscard]] errc datarep_register(datarep r);

// Bytes that `count` elements of t take in the file (errc::unsupported_datarep when a user
// representation cannot size t: a type mixing several predefined types).
[[nodiscard]] errc datarep_size(const datarep& r, const core::datatype& t, int64_t count, int64_t* bytes);
// The extent of t in the file (MPI_File_get_type_extent).
[[nodiscard]] errc datarep_extent(const datarep& r, const core::datatype& t, int64_t* extent);
// Converts count elements of (buf, t) into the file representation at `out` (the whole stream,
// datarep_size bytes), and back.
[[nodiscard]] errc datarep_to_file(const datarep& r, const void* buf, int64_t count, const core::datatype& t, void* out);
[[nodiscard]] errc datarep_from_file(const datarep& r, const void* in, int64_t insize, void* buf, int64_t count,
                                     const core::datatype& t);

}  // namespace baton::io
