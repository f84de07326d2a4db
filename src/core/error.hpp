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
  access = 20,   // file I/O (MPI-4.1 chapter 14): permission denied
  amode = 21,    // invalid MPI_File_open access mode
  assert_ = 22,  // MPI_ERR_ASSERT (one-sided synchronization asserts)
  bad_file = 23, // invalid file name
  base = 24,
  conversion = 25,       // a data representation's conversion function failed
  disp = 26,
  dup_datarep = 27,      // MPI_Register_datarep: the name is taken
  file_exists = 28,      // MPI_MODE_EXCL on an existing file
  file_in_use = 29,      // MPI_File_delete on a file some process has open
  file = 30,             // invalid file handle
  info_key = 31,
  info_nokey = 32,
  info_value = 33,
  info = 34,
  io = 35,               // other I/O error
  keyval = 36,
  locktype = 37,
  name = 38,
  no_mem = 39,
  not_same = 40,
  no_space = 41,         // no space left on the device
  no_such_file = 42,
  port = 43,
  quota = 44,
  read_only = 45,        // write on a read-only file or file system
  rma_attach = 46,
  rma_conflict = 47,
  rma_range = 48,
  rma_shared = 49,
  rma_sync = 50,
  service = 51,
  size = 52,
  spawn = 53,
  unsupported_datarep = 54,
  unsupported_operation = 55,
  win = 56,
  rma_flavor = 57,
  proc_aborted = 58,
  value_too_large = 59,
  session = 60,
  errhandler = 61,
  abi = 62,  // the last predefined class (MPI_ERR_ABI)
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

// ---- user-defined error classes and codes (MPI_Add_error_class / _code / _string) ----
//
// They live in one registry guarded by a mutex (any thread may add or remove). Values start at
// user_error_first, just above MPI_ERR_LASTCODE (the ABI's bound on every predefined class and
// code: the standard forbids strings on values <= MPI_ERR_LASTCODE), and are never reused after
// removal, so a stale value is never mistaken for a newer one. A class is also a code (its own
// class). A new class or code has the empty string until user_error_set_string.
constexpr int user_error_first = 16384;  // MPI_ERR_LASTCODE + 1 (pinned in src/abi)

// True for the predefined classes 1 .. MPI_ERR_ABI (what MPI_Add_error_code may extend).
constexpr bool error_class_is_predefined(int code) { return code >= 1 && code <= int(errc::abi); }

// Each returns errc::arg with a message naming the problem when the value is not acceptable.
[[nodiscard]] errc user_error_add_class(int* errorclass);
[[nodiscard]] errc user_error_add_code(int errorclass, int* errorcode);
[[nodiscard]] errc user_error_set_string(int errorcode, const char* text);
[[nodiscard]] errc user_error_remove_class(int errorclass);    // a class with no codes, no string
[[nodiscard]] errc user_error_remove_code(int errorcode);      // a code (not a class), no string
[[nodiscard]] errc user_error_remove_string(int errorcode);    // one set by user_error_set_string
// For a live user class or code: its class and its string (either may be null); false otherwise.
bool user_error_lookup(int code, int* errorclass, std::string* text);
// The largest user class or code in use, or 0 when there is none (MPI_LASTUSEDCODE).
int user_error_last_used();
// One line for any code, predefined or user ("MPI_ERR_RANK: invalid rank", "user-defined error
// code 16385 (class 16384): text"), for messages printed by the library.
std::string error_describe(int code);

}  // namespace baton::core
