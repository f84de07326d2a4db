// Integer handles (MPI-5.0 standard ABI, "Handle conversion"): MPI_<Handle>_toint / _fromint for
// communicators, datatypes, groups, requests, ops, info objects, error handlers, messages, windows,
// files and sessions.
//
// A predefined handle (a small integer below 0x1000, null handles included) converts to its own
// value, as the ABI requires, so C and Fortran agree on MPI_COMM_WORLD, MPI_INT, ... without a
// table. Any other handle (the address of a core object) gets the next free integer of its kind's
// table, from 0x1000 up, the first time it is converted, and keeps it: converting it again, or
// converting the integer back, costs one hash or one array lookup. An address the library reuses
// for a new object of the same kind keeps its integer (the old object is gone, so the integer
// names whatever lives there now). Tables only grow, by one entry per distinct address converted.
// fromint of an integer this process never handed out gives the kind's null handle.
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "abi/abi.hpp"

namespace {

enum handle_kind { k_comm, k_type, k_group, k_request, k_op, k_info, k_errhandler, k_message, k_win, k_file,
                   k_session, k_count };

struct handle_table {
  std::mutex m;
  std::unordered_map<uintptr_t, int> ids;
  std::vector<uintptr_t> addrs;  // integer 0x1000 + i names addrs[i]
};

constexpr uintptr_t first_user_int = baton::abi::predefined_limit;

// Never destroyed: conversions may run from static destructors of the application.
handle_table& table(handle_kind k) {
  static auto* t = new handle_table[k_count];
  return t[k];
}

int to_int(handle_kind k, const void* h) {
  const auto v = reinterpret_cast<uintptr_t>(h);
  if (v < first_user_int) return static_cast<int>(v);
  handle_table& t = table(k);
  std::lock_guard<std::mutex> g(t.m);
  auto it = t.ids.find(v);
  if (it != t.ids.end()) return it->second;
  if (t.addrs.size() >= size_t(INT32_MAX) - first_user_int) return 0;  // cannot happen in practice
  const int id = static_cast<int>(first_user_int + t.addrs.size());
  t.addrs.push_back(v);
  t.ids.emplace(v, id);
  return id;
}

// The handle value of integer i, or `null_value` for an integer never handed out.
uintptr_t from_int(handle_kind k, int i, uintptr_t null_value) {
  if (i >= 0 && static_cast<uintptr_t>(i) < first_user_int) return static_cast<uintptr_t>(i);
  if (i < 0) return null_value;
  handle_table& t = table(k);
  std::lock_guard<std::mutex> g(t.m);
  const size_t idx = static_cast<size_t>(i) - first_user_int;
  return idx < t.addrs.size() ? t.addrs[idx] : null_value;
}

template <class H>
H handle_from(handle_kind k, int i, H null_handle) {
  return reinterpret_cast<H>(from_int(k, i, reinterpret_cast<uintptr_t>(null_handle)));
}

}  // namespace

namespace baton::impl {

#define BATON_HANDLE_CONVERSION(Name, Type, kind, null_handle)                                      \
  int MPI_##Name##_toint(Type h) { return to_int(kind, h); }                                       \
  Type MPI_##Name##_fromint(int i) { return handle_from<Type>(kind, i, null_handle); }

BATON_HANDLE_CONVERSION(Comm, MPI_Comm, k_comm, MPI_COMM_NULL)
BATON_HANDLE_CONVERSION(Type, MPI_Datatype, k_type, MPI_DATATYPE_NULL)
BATON_HANDLE_CONVERSION(Group, MPI_Group, k_group, MPI_GROUP_NULL)
BATON_HANDLE_CONVERSION(Request, MPI_Request, k_request, MPI_REQUEST_NULL)
BATON_HANDLE_CONVERSION(Op, MPI_Op, k_op, MPI_OP_NULL)
BATON_HANDLE_CONVERSION(Info, MPI_Info, k_info, MPI_INFO_NULL)
BATON_HANDLE_CONVERSION(Errhandler, MPI_Errhandler, k_errhandler, MPI_ERRHANDLER_NULL)
BATON_HANDLE_CONVERSION(Message, MPI_Message, k_message, MPI_MESSAGE_NULL)
BATON_HANDLE_CONVERSION(Win, MPI_Win, k_win, MPI_WIN_NULL)
BATON_HANDLE_CONVERSION(File, MPI_File, k_file, MPI_FILE_NULL)
BATON_HANDLE_CONVERSION(Session, MPI_Session, k_session, MPI_SESSION_NULL)

#undef BATON_HANDLE_CONVERSION

}  // namespace baton::impl
