#include "core/error.hpp"

#include <cstdio>

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
    case errc::info_key: return "MPI_ERR_INFO_KEY";
    case errc::info_nokey: return "MPI_ERR_INFO_NOKEY";
    case errc::info_value: return "MPI_ERR_INFO_VALUE";
    case errc::info: return "MPI_ERR_INFO";
    case errc::keyval: return "MPI_ERR_KEYVAL";
    case errc::name: return "MPI_ERR_NAME";
    case errc::no_mem: return "MPI_ERR_NO_MEM";
    case errc::not_same: return "MPI_ERR_NOT_SAME";
    case errc::unsupported_operation: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case errc::proc_aborted: return "MPI_ERR_PROC_ABORTED";
    case errc::value_too_large: return "MPI_ERR_VALUE_TOO_LARGE";
    case errc::errhandler: return "MPI_ERR_ERRHANDLER";
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
    case errc::info_key: return "invalid info key";
    case errc::info_nokey: return "info key not defined";
    case errc::info_value: return "invalid info value";
    case errc::info: return "invalid info object";
    case errc::keyval: return "invalid key value";
    case errc::name: return "invalid name";
    case errc::no_mem: return "out of memory";
    case errc::not_same: return "collective argument not identical on all processes";
    case errc::unsupported_operation: return "unsupported operation";
    case errc::proc_aborted: return "peer process aborted";
    case errc::value_too_large: return "value too large to store";
    case errc::errhandler: return "invalid error handler";
  }
  return "unknown error";
}

}  // namespace baton::core
