// Error classes and error reporting inside Baton.
//
// Core code never spells MPI_: it returns a core::errc. The numeric values are the MPI-5.0 standard
// ABI error classes, so src/abi maps them one to one (a static_assert there pins each one).
//
// The function that first detects an error calls error_set() once with a clear message naming the
// problem; callers only pass the errc up. src/abi reads the message back (error_message()) when it
// invokes the communicator's error handler, prefixed with the MPI function's name.
#pragma once

#include <cstdarg>
#include <string>

namespace baton::core {

enum class errc : int {
  success = 0,
  buffer = 1,
  count = 2,
  type = 3,
  tag = 4,
  comm = 5,
  rank = 6,
  request = 7,
  root = 8,
  group = 9,
  op = 10,
  topology = 11,
  dims = 12,
  arg = 13,
  unknown = 14,
  truncate = 15,
  other = 16,
  intern = 17,
  pending = 18,
  in_status = 19,
  info_key = 31,
  info_nokey = 32,
  info_value = 33,
  info = 34,
  keyval = 36,
  name = 38,
  no_mem = 39,
  not_same = 40,
  unsupported_operation = 55,
  proc_aborted = 58,
  value_too_large = 59,
  errhandler = 61,
};

// Records the message for the error being returned on this thread and returns `code`, so that
// `return error_set(errc::rank, "rank %d is out of range [0, %d)", r, n);` reads naturally.
[[nodiscard]] errc error_set(errc code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// The message recorded by the last error_set() on this thread ("" if none).
const std::string& error_message();
void error_clear();

// Human-readable name of an error class ("MPI_ERR_RANK") and its standard description.
const char* errc_name(errc code);
const char* errc_description(errc code);

}  // namespace baton::core
