#include <cstdio>
#include <cstring>
#include <string>

#include "abi/abi.hpp"

namespace baton::abi {

// The core's error classes are numbered as the standard ABI's: pin every one.
static_assert(int(errc::buffer) == MPI_ERR_BUFFER && int(errc::count) == MPI_ERR_COUNT &&
              int(errc::type) == MPI_ERR_TYPE && int(errc::tag) == MPI_ERR_TAG && int(errc::comm) == MPI_ERR_COMM &&
              int(errc::rank) == MPI_ERR_RANK && int(errc::request) == MPI_ERR_REQUEST &&
              int(errc::root) == MPI_ERR_ROOT && int(errc::group) == MPI_ERR_GROUP && int(errc::op) == MPI_ERR_OP &&
              int(errc::topology) == MPI_ERR_TOPOLOGY && int(errc::dims) == MPI_ERR_DIMS &&
              int(errc::arg) == MPI_ERR_ARG && int(errc::unknown) == MPI_ERR_UNKNOWN &&
              int(errc::truncate) == MPI_ERR_TRUNCATE && int(errc::other) == MPI_ERR_OTHER &&
              int(errc::intern) == MPI_ERR_INTERN && int(errc::pending) == MPI_ERR_PENDING &&
              int(errc::in_status) == MPI_ERR_IN_STATUS && int(errc::base) == MPI_ERR_BASE &&
              int(errc::info_key) == MPI_ERR_INFO_KEY &&
              int(errc::info_nokey) == MPI_ERR_INFO_NOKEY && int(errc::info_value) == MPI_ERR_INFO_VALUE &&
              int(errc::info) == MPI_ERR_INFO && int(errc::keyval) == MPI_ERR_KEYVAL &&
              int(errc::name) == MPI_ERR_NAME && int(errc::port) == MPI_ERR_PORT &&
              int(errc::service) == MPI_ERR_SERVICE && int(errc::spawn) == MPI_ERR_SPAWN && int(errc::no_mem) == MPI_ERR_NO_MEM &&
              int(errc::not_same) == MPI_ERR_NOT_SAME &&
              int(errc::unsupported_operation) == MPI_ERR_UNSUPPORTED_OPERATION &&
              int(errc::proc_aborted) == MPI_ERR_PROC_ABORTED &&
              int(errc::value_too_large) == MPI_ERR_VALUE_TOO_LARGE && int(errc::session) == MPI_ERR_SESSION &&
              int(errc::errhandler) == MPI_ERR_ERRHANDLER && int(errc::abi) == MPI_ERR_ABI,
              "core error classes must match the MPI-5.0 ABI");
static_assert(core::user_error_first == MPI_ERR_LASTCODE + 1,
              "user error classes and codes start just above MPI_ERR_LASTCODE");

core::comm* to_comm(MPI_Comm h) {
  core::runtime& R = core::rt();
  if (h == MPI_COMM_WORLD || h == MPI_COMM_SELF) {
    // The predefined communicators belong to the World model (sessions use their own).
    if (R.initialized.load(std::memory_order_relaxed) && !R.finalized.load(std::memory_order_relaxed)) [[likely]]
      return h == MPI_COMM_WORLD ? R.world : R.self;
    (void)core::error_set(errc::comm, "%s is not usable %s", h == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF",
                          R.finalized.load() ? "after MPI_Finalize"
                                             : "before MPI_Init (a program that uses sessions only has no "
                                               "predefined communicators: build one with MPI_Comm_create_from_group)");
    return nullptr;
  }
  if (h == MPI_COMM_NULL) {
    (void)core::error_set(errc::comm, "invalid communicator (MPI_COMM_NULL)");
    return nullptr;
  }
  if (is_predefined(h)) {
    (void)core::error_set(errc::comm, "invalid communicator handle %p", static_cast<void*>(h));
    return nullptr;
  }
  auto* c = reinterpret_cast<core::comm*>(h);
  if (!core::slab_holds<core::comm>(c) || c->magic != core::comm_magic) {
    (void)core::error_set(errc::comm, "invalid communicator handle %p (freed or never created)", static_cast<void*>(h));
    return nullptr;
  }
  return c;
}

MPI_Comm to_handle(core::comm* c) {
  core::runtime& R = core::rt();
  if (c == nullptr) return MPI_COMM_NULL;
  if (c == R.world) return MPI_COMM_WORLD;
  if (c == R.self) return MPI_COMM_SELF;
  return reinterpret_cast<MPI_Comm>(c);
}

const core::datatype* to_type(MPI_Datatype h) {
  if (h == MPI_DATATYPE_NULL) {
    (void)core::error_set(errc::type, "invalid datatype (MPI_DATATYPE_NULL)");
    return nullptr;
  }
  if (is_predefined(h)) {
    const core::datatype* t = core::predefined_datatype(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h)));
    if (!t) (void)core::error_set(errc::type, "invalid datatype handle %p", static_cast<void*>(h));
    return t;
  }
  const auto* t = reinterpret_cast<const core::datatype*>(h);
  if (!type_registered(t)) {
    (void)core::error_set(errc::type, "invalid datatype handle %p (freed or never created)", static_cast<void*>(h));
    return nullptr;
  }
  return t;
}

errc refuse_request(MPI_Request h, core::request** out) {
  *out = nullptr;
  return core::error_set(errc::request, "invalid request handle %p (freed or never created)", static_cast<void*>(h));
}

core::errhandler* to_errhandler(MPI_Errhandler h) {
  if (h == MPI_ERRORS_ARE_FATAL) return core::errhandler_predefined(core::errhandler_kind::fatal);
  if (h == MPI_ERRORS_RETURN) return core::errhandler_predefined(core::errhandler_kind::ret);
  if (h == MPI_ERRORS_ABORT) return core::errhandler_predefined(core::errhandler_kind::abort);
  if (h == MPI_ERRHANDLER_NULL || is_predefined(h)) return nullptr;
  auto* e = reinterpret_cast<core::errhandler*>(h);
  return core::slab_holds<core::errhandler>(e) && e->magic == 0x45524831 ? e : nullptr;
}

MPI_Errhandler to_handle(core::errhandler* e) {
  if (!e->predefined) return reinterpret_cast<MPI_Errhandler>(e);
  switch (e->kind) {
    case core::errhandler_kind::fatal: return MPI_ERRORS_ARE_FATAL;
    case core::errhandler_kind::ret: return MPI_ERRORS_RETURN;
    case core::errhandler_kind::abort: return MPI_ERRORS_ABORT;
    default: return MPI_ERRHANDLER_NULL;
  }
}

errc check_init_failed(const char* fn) {
  core::runtime& R = core::rt();
  if (R.active.load(std::memory_order_relaxed)) return errc::success;
  if (R.finalized.load(std::memory_order_relaxed))
    return core::error_set(errc::other, "%s called after MPI_Finalize (and no session is initialized)", fn);
  return core::error_set(errc::other, "%s called before MPI_Init (and no session is initialized)", fn);
}

errc check_count(int64_t count) {
  if (count < 0) return core::error_set(errc::count, "negative count %lld", static_cast<long long>(count));
  return errc::success;
}

errc check_type(const core::datatype* t) {
  if (!t) return errc::type;  // to_type already said why
  if (!t->is_committed())
    return core::error_set(errc::type, "datatype %s is not committed", t->name().empty() ? "(unnamed)" : t->name().c_str());
  return errc::success;
}

errc check_buffer(const void* buf, int64_t count, const core::datatype* t) {
  // MPI_BOTTOM is the null pointer: legal with a derived type holding absolute addresses.
  if (buf == nullptr && count > 0 && t->size() > 0 && t->is_predefined())
    return core::error_set(errc::buffer, "NULL buffer with count %lld of %s", static_cast<long long>(count),
                           t->name().c_str());
  return errc::success;
}

errc check_send_rank(const core::comm* c, int rank) {
  if (rank == MPI_PROC_NULL) return errc::success;
  if (rank < 0 || rank >= c->size)
    return core::error_set(errc::rank, "invalid rank %d: the communicator has %d ranks", rank, c->size);
  return errc::success;
}

errc check_recv_rank(const core::comm* c, int rank) {
  if (rank == MPI_ANY_SOURCE) return errc::success;
  return check_send_rank(c, rank);
}

errc check_send_tag(int tag) {
  if (tag < 0) return core::error_set(errc::tag, "invalid tag %d: tags are non-negative", tag);
  return errc::success;  // MPI_TAG_UB is INT_MAX
}

errc check_recv_tag(int tag) {
  if (tag == MPI_ANY_TAG) return errc::success;
  return check_send_tag(tag);
}

void set_status_bytes(MPI_Status* st, uint64_t bytes) {
  st->MPI_internal[0] = static_cast<int>(static_cast<uint32_t>(bytes));
  st->MPI_internal[1] = static_cast<int>(static_cast<uint32_t>(bytes >> 32));
}

uint64_t status_bytes(const MPI_Status* st) {
  return static_cast<uint64_t>(static_cast<uint32_t>(st->MPI_internal[0])) |
         (static_cast<uint64_t>(static_cast<uint32_t>(st->MPI_internal[1])) << 32);
}

void to_status(const core::req_status& s, MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = s.source;
  st->MPI_TAG = s.tag;
  set_status_bytes(st, s.bytes);
  st->MPI_internal[2] = s.cancelled ? 1 : 0;
}

void empty_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  set_status_bytes(st, 0);
  st->MPI_internal[2] = 0;
}

int raise_with(const char* fn, core::errhandler* eh, MPI_Comm handle, errc e) {
  int code = to_mpi(e);
  const std::string& msg = core::error_message();
  core::runtime& R = core::rt();
  switch (eh->kind) {
    case core::errhandler_kind::ret:
      return code;
    case core::errhandler_kind::user: {
      auto fnp = reinterpret_cast<MPI_Comm_errhandler_function*>(eh->user_fn);
      MPI_Comm h = handle;
      fnp(&h, &code);
      return code;
    }
    case core::errhandler_kind::fatal:
    case core::errhandler_kind::abort:
      break;
  }
  if (code >= core::user_error_first)  // a user-defined code raised by MPI_Comm_call_errhandler
    std::fprintf(stderr, "Baton: rank %d: %s failed: %s%s%s\n", R.world_rank, fn, core::error_describe(code).c_str(),
                 msg.empty() ? "" : ": ", msg.c_str());
  else
    std::fprintf(stderr, "Baton: rank %d: %s failed: %s: %s\n", R.world_rank, fn, core::errc_name(e),
                 msg.empty() ? core::errc_description(e) : msg.c_str());
  std::fflush(stderr);
  core::runtime_abort(code, std::string(fn) + ": " +
                                (code >= core::user_error_first ? "user-defined error " + std::to_string(code)
                                                                : std::string(core::errc_name(e))));
}

int raise(const char* fn, core::comm* c, errc e) {
  core::comm* target = c ? c : core::rt().world;
  core::errhandler* eh = target && target->eh ? target->eh : core::errhandler_predefined(core::errhandler_kind::fatal);
  return raise_with(fn, eh, to_handle(target), e);
}

int raise_null(const char* fn, const char* param) {
  return raise(fn, nullptr, core::error_set(errc::arg, "the %s argument is NULL", param));
}

int raise_null(const char* fn, MPI_Comm comm, const char* param) {
  core::comm* c = comm == MPI_COMM_NULL ? nullptr : to_comm(comm);
  return raise(fn, c, core::error_set(errc::arg, "the %s argument is NULL", param));
}

errc user_callback_error(int rc) {
  if (core::error_class_is_predefined(rc) || core::user_error_lookup(rc, nullptr, nullptr)) return errc(rc);
  return errc::other;
}

}  // namespace baton::abi
