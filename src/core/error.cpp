#include "core/error.hpp"

#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace baton::core {

namespace {
thread_local std::string last_message;
}

errc error_set(errc code, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  last_message = buf;
  return code;
}

const std::string& error_message() { return last_message; }
void error_clear() { last_message.clear(); }

const char* errc_name(errc code) {
  switch (code) {
    case errc::success: return "MPI_SUCCESS";
    case errc::buffer: return "MPI_ERR_BUFFER";
    case errc::count: return "MPI_ERR_COUNT";
    case errc::type: return "MPI_ERR_TYPE";
    case errc::tag: return "MPI_ERR_TAG";
    case errc::comm: return "MPI_ERR_COMM";
    case errc::rank: return "MPI_ERR_RANK";
    case errc::request: return "MPI_ERR_REQUEST";
    case errc::root: return "MPI_ERR_ROOT";
    case errc::group: return "MPI_ERR_GROUP";
    case errc::op: return "MPI_ERR_OP";
    case errc::topology: return "MPI_ERR_TOPOLOGY";
    case errc::dims: return "MPI_ERR_DIMS";
    case errc::arg: return "MPI_ERR_ARG";
    case errc::unknown: return "MPI_ERR_UNKNOWN";
    case errc::truncate: return "MPI_ERR_TRUNCATE";
    case errc::other: return "MPI_ERR_OTHER";
    case errc::intern: return "MPI_ERR_INTERN";
    case errc::pending: return "MPI_ERR_PENDING";
    case errc::in_status: return "MPI_ERR_IN_STATUS";
    case errc::base: return "MPI_ERR_BASE";
    case errc::info_key: return "MPI_ERR_INFO_KEY";
    case errc::info_nokey: return "MPI_ERR_INFO_NOKEY";
    case errc::info_value: return "MPI_ERR_INFO_VALUE";
    case errc::info: return "MPI_ERR_INFO";
    case errc::keyval: return "MPI_ERR_KEYVAL";
    case errc::name: return "MPI_ERR_NAME";
    case errc::port: return "MPI_ERR_PORT";
    case errc::service: return "MPI_ERR_SERVICE";
    case errc::spawn: return "MPI_ERR_SPAWN";
    case errc::no_mem: return "MPI_ERR_NO_MEM";
    case errc::not_same: return "MPI_ERR_NOT_SAME";
    case errc::unsupported_operation: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case errc::proc_aborted: return "MPI_ERR_PROC_ABORTED";
    case errc::value_too_large: return "MPI_ERR_VALUE_TOO_LARGE";
    case errc::session: return "MPI_ERR_SESSION";
    case errc::errhandler: return "MPI_ERR_ERRHANDLER";
    case errc::abi: return "MPI_ERR_ABI";
    case errc::assert_: return "MPI_ERR_ASSERT";
    case errc::disp: return "MPI_ERR_DISP";
    case errc::locktype: return "MPI_ERR_LOCKTYPE";
    case errc::rma_attach: return "MPI_ERR_RMA_ATTACH";
    case errc::rma_conflict: return "MPI_ERR_RMA_CONFLICT";
    case errc::rma_range: return "MPI_ERR_RMA_RANGE";
    case errc::rma_shared: return "MPI_ERR_RMA_SHARED";
    case errc::rma_sync: return "MPI_ERR_RMA_SYNC";
    case errc::size: return "MPI_ERR_SIZE";
    case errc::win: return "MPI_ERR_WIN";
    case errc::rma_flavor: return "MPI_ERR_RMA_FLAVOR";
    case errc::access: return "MPI_ERR_ACCESS";
    case errc::amode: return "MPI_ERR_AMODE";
    case errc::bad_file: return "MPI_ERR_BAD_FILE";
    case errc::conversion: return "MPI_ERR_CONVERSION";
    case errc::dup_datarep: return "MPI_ERR_DUP_DATAREP";
    case errc::file_exists: return "MPI_ERR_FILE_EXISTS";
    case errc::file_in_use: return "MPI_ERR_FILE_IN_USE";
    case errc::file: return "MPI_ERR_FILE";
    case errc::io: return "MPI_ERR_IO";
    case errc::no_space: return "MPI_ERR_NO_SPACE";
    case errc::no_such_file: return "MPI_ERR_NO_SUCH_FILE";
    case errc::quota: return "MPI_ERR_QUOTA";
    case errc::read_only: return "MPI_ERR_READ_ONLY";
    case errc::unsupported_datarep: return "MPI_ERR_UNSUPPORTED_DATAREP";
  }
  return "MPI_ERR_UNKNOWN";
}

const char* errc_description(errc code) {
  switch (code) {
    case errc::success: return "no error";
    case errc::buffer: return "invalid buffer pointer";
    case errc::count: return "invalid count argument";
    case errc::type: return "invalid datatype";
    case errc::tag: return "invalid tag";
    case errc::comm: return "invalid communicator";
    case errc::rank: return "invalid rank";
    case errc::request: return "invalid request";
    case errc::root: return "invalid root";
    case errc::group: return "invalid group";
    case errc::op: return "invalid operation";
    case errc::topology: return "invalid topology";
    case errc::dims: return "invalid dimension argument";
    case errc::arg: return "invalid argument";
    case errc::unknown: return "unknown error";
    case errc::truncate: return "message truncated on receive";
    case errc::other: return "other error";
    case errc::intern: return "internal error";
    case errc::pending: return "pending request";
    case errc::in_status: return "error code is in status";
    case errc::base: return "invalid base address";
    case errc::info_key: return "invalid info key";
    case errc::info_nokey: return "info key not defined";
    case errc::info_value: return "invalid info value";
    case errc::info: return "invalid info object";
    case errc::keyval: return "invalid key value";
    case errc::name: return "invalid name";
    case errc::port: return "invalid port name";
    case errc::service: return "invalid service name";
    case errc::spawn: return "error spawning processes";
    case errc::no_mem: return "out of memory";
    case errc::not_same: return "collective argument not identical on all processes";
    case errc::unsupported_operation: return "unsupported operation";
    case errc::proc_aborted: return "peer process aborted";
    case errc::value_too_large: return "value too large to store";
    case errc::session: return "invalid session";
    case errc::errhandler: return "invalid error handler";
    case errc::abi: return "ABI request not supported or not consistent";
    case errc::assert_: return "invalid assert argument";
    case errc::disp: return "invalid displacement";
    case errc::locktype: return "invalid lock type";
    case errc::rma_attach: return "memory cannot be attached";
    case errc::rma_conflict: return "conflicting accesses to a window";
    case errc::rma_range: return "target memory outside the window";
    case errc::rma_shared: return "memory cannot be shared";
    case errc::rma_sync: return "wrong synchronization of RMA calls";
    case errc::size: return "invalid size argument";
    case errc::win: return "invalid window";
    case errc::rma_flavor: return "wrong window flavor";
    case errc::access: return "permission denied";
    case errc::amode: return "invalid file access mode";
    case errc::bad_file: return "invalid file name";
    case errc::conversion: return "data conversion failed";
    case errc::dup_datarep: return "data representation already registered";
    case errc::file_exists: return "file exists";
    case errc::file_in_use: return "file is in use";
    case errc::file: return "invalid file handle";
    case errc::io: return "I/O error";
    case errc::no_space: return "no space left on device";
    case errc::no_such_file: return "no such file";
    case errc::quota: return "quota exceeded";
    case errc::read_only: return "read-only file or file system";
    case errc::unsupported_datarep: return "unsupported data representation";
  }
  return "unknown error";
}


namespace {

struct user_error {
  int errorclass;      // the value itself for a class
  int codes = 0;       // for a class: how many user codes belong to it
  bool has_text = false;
  std::string text{};
};

struct user_error_registry {
  std::mutex mu;
  std::map<int, user_error> entries;  // ordered: the last entry is the largest value in use
  int next = user_error_first;
};

user_error_registry& registry() {
  static user_error_registry r;  // never destroyed before the last MPI call of a static destructor
  return r;
}

errc take_value(user_error_registry& r, int* out) {
  if (r.next == INT_MAX)
    return error_set(errc::intern, "no error class or code value left (all values up to %d were handed out)",
                     INT_MAX - 1);
  *out = r.next++;
  return errc::success;
}

}  // namespace

errc user_error_add_class(int* errorclass) {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  int v = 0;
  if (errc e = take_value(r, &v); e != errc::success) return e;
  r.entries.emplace(v, user_error{v, 0, false, {}});
  *errorclass = v;
  return errc::success;
}

errc user_error_add_code(int errorclass, int* errorcode) {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  user_error* cls = nullptr;
  if (!error_class_is_predefined(errorclass)) {
    auto it = r.entries.find(errorclass);
    if (it == r.entries.end())
      return error_set(errc::arg, "%d is not an error class (neither predefined nor added by MPI_Add_error_class)",
                       errorclass);
    if (it->second.errorclass != errorclass)
      return error_set(errc::arg, "%d is an error code of class %d, not an error class", errorclass,
                       it->second.errorclass);
    cls = &it->second;
  }
  int v = 0;
  if (errc e = take_value(r, &v); e != errc::success) return e;
  r.entries.emplace(v, user_error{errorclass, 0, false, {}});
  if (cls) ++cls->codes;
  *errorcode = v;
  return errc::success;
}

errc user_error_set_string(int errorcode, const char* text) {
  if (!text) return error_set(errc::arg, "NULL string");
  // MPI_MAX_ERROR_STRING (512) bytes with the terminating NUL.
  if (size_t n = std::strlen(text); n > 511)
    return error_set(errc::arg, "the string has %zu characters, more than MPI_MAX_ERROR_STRING - 1 (511)", n);
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.entries.find(errorcode);
  if (it == r.entries.end()) {
    if (errorcode >= 0 && errorcode < user_error_first)
      return error_set(errc::arg, "error code %d is predefined (<= MPI_ERR_LASTCODE): its string cannot be changed",
                       errorcode);
    return error_set(errc::arg, "%d is not an error class or code added by MPI_Add_error_class/_code", errorcode);
  }
  it->second.text = text;
  it->second.has_text = true;
  return errc::success;
}

errc user_error_remove_class(int errorclass) {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.entries.find(errorclass);
  if (it == r.entries.end() || it->second.errorclass != errorclass) {
    if (error_class_is_predefined(errorclass) || errorclass == 0)
      return error_set(errc::arg, "error class %d is predefined and cannot be removed", errorclass);
    if (it != r.entries.end())
      return error_set(errc::arg, "%d is an error code, not a class: remove it with MPI_Remove_error_code",
                       errorclass);
    return error_set(errc::arg, "%d is not an error class added by MPI_Add_error_class (or it was removed)",
                     errorclass);
  }
  if (it->second.codes > 0)
    return error_set(errc::arg, "error class %d still has %d error code(s): remove them first", errorclass,
                     it->second.codes);
  if (it->second.has_text)
    return error_set(errc::arg, "error class %d still has an error string: remove it first (MPI_Remove_error_string)",
                     errorclass);
  r.entries.erase(it);
  return errc::success;
}

errc user_error_remove_code(int errorcode) {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.entries.find(errorcode);
  if (it == r.entries.end() || it->second.errorclass == errorcode) {
    if (errorcode >= 0 && errorcode < user_error_first)
      return error_set(errc::arg, "error code %d is predefined and cannot be removed", errorcode);
    if (it != r.entries.end())
      return error_set(errc::arg, "%d is an error class, not a code: remove it with MPI_Remove_error_class",
                       errorcode);
    return error_set(errc::arg, "%d is not an error code added by MPI_Add_error_code (or it was removed)", errorcode);
  }
  if (it->second.has_text)
    return error_set(errc::arg, "error code %d still has an error string: remove it first (MPI_Remove_error_string)",
                     errorcode);
  const int cls = it->second.errorclass;
  r.entries.erase(it);
  if (auto c = r.entries.find(cls); c != r.entries.end()) --c->second.codes;
  return errc::success;
}

errc user_error_remove_string(int errorcode) {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.entries.find(errorcode);
  if (it == r.entries.end()) {
    if (errorcode >= 0 && errorcode < user_error_first)
      return error_set(errc::arg, "error code %d is predefined: its string cannot be removed", errorcode);
    return error_set(errc::arg, "%d is not an error class or code added by MPI_Add_error_class/_code", errorcode);
  }
  if (!it->second.has_text)
    return error_set(errc::arg, "error code %d has no string set by MPI_Add_error_string", errorcode);
  it->second.text.clear();
  it->second.has_text = false;
  return errc::success;
}

bool user_error_lookup(int code, int* errorclass, std::string* text) {
  if (code < user_error_first) return false;
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.entries.find(code);
  if (it == r.entries.end()) return false;
  if (errorclass) *errorclass = it->second.errorclass;
  if (text) *text = it->second.text;
  return true;
}

int user_error_last_used() {
  user_error_registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.entries.empty() ? 0 : r.entries.rbegin()->first;
}

std::string error_describe(int code) {
  int cls = 0;
  std::string text;
  if (user_error_lookup(code, &cls, &text)) {
    std::string s = cls == code ? "user-defined error class " + std::to_string(code)
                                : "user-defined error code " + std::to_string(code) + " (class " + std::to_string(cls) + ")";
    return text.empty() ? s : s + ": " + text;
  }
  return std::string(errc_name(errc(code))) + ": " + errc_description(errc(code));
}

}  // namespace baton::core
