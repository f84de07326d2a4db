// Environment management (MPI-4.1 chapter 11) and error handling (chapter 9.3-9.5).
// Communicators are in abi_comm.cpp.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>

#include "abi/abi.hpp"
#include "comm/dynamic.hpp"
#include "abi/abi_objects.hpp"
#include "abi/abi_tool.hpp"
#include "comm/runtime_hooks.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::abi {
// The ABI's thread levels are 0, 1024, 2048, 4096; the core's are 0..3.
core::thread_level level_from_mpi(int required) {
  if (required >= MPI_THREAD_MULTIPLE) return core::thread_level::multiple;
  if (required >= MPI_THREAD_SERIALIZED) return core::thread_level::serialized;
  if (required >= MPI_THREAD_FUNNELED) return core::thread_level::funneled;
  return core::thread_level::single;
}

int level_to_mpi(core::thread_level l) {
  switch (l) {
    case core::thread_level::single: return MPI_THREAD_SINGLE;
    case core::thread_level::funneled: return MPI_THREAD_FUNNELED;
    case core::thread_level::serialized: return MPI_THREAD_SERIALIZED;
    case core::thread_level::multiple: return MPI_THREAD_MULTIPLE;
  }
  return MPI_THREAD_SINGLE;
}
}  // namespace baton::abi

namespace {
using abi::level_from_mpi;
using abi::level_to_mpi;

int init_common(int required, int* provided) {
  core::runtime& R = core::rt();
  if (R.initialized.load() || R.finalized.load()) {
    std::fprintf(stderr, "Baton: MPI_Init called twice (MPI may be initialized only once)\n");
    return MPI_ERR_OTHER;
  }
  core::thread_level got;
  errc e = comm::runtime_hooks_install();
  if (e == errc::success) e = core::runtime_acquire(true, level_from_mpi(required), &got);
  // A spawned process meets its parents (MPI_Comm_get_parent); nothing for others.
  if (e == errc::success) e = abi::run_guarded([] { return dynamic::init_parent(); });
  if (e != errc::success) {
    std::fprintf(stderr, "Baton: MPI_Init failed: %s: %s\n", core::errc_name(e), core::error_message().c_str());
    core::runtime_abort(1, "MPI_Init failed");
  }
  if (provided) *provided = level_to_mpi(got);
  return MPI_SUCCESS;
}

void copy_string(char* out, int* len, const std::string& s, size_t max) {
  size_t n = std::min(s.size(), max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = 0;
  if (len) *len = int(n);
}
}  // namespace

namespace baton::impl {

int MPI_Init(int*, char***) { return init_common(MPI_THREAD_SINGLE, nullptr); }

int MPI_Init_thread(int*, char***, int required, int* provided) { return init_common(required, provided); }

int MPI_Finalize(void) {
  const core::runtime& R = core::rt();
  if (!R.initialized.load() || R.finalized.load()) {
    (void)core::error_set(errc::other, "MPI_Finalize called %s", R.finalized.load() ? "twice" : "before MPI_Init");
    return abi::raise("MPI_Finalize", nullptr, errc::other);
  }
  return call("MPI_Finalize", nullptr, [] {
    if (errc e = abi::comm_finalize_attributes(); e != errc::success) return e;
    dynamic::finalize();  // goodbye to connected launches, ports closed
    return core::runtime_release(true);  // sessions still alive keep the runtime up
  });
}

int MPI_Initialized(int* flag) {
  *flag = core::rt().initialized.load() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  if (!flag) return abi::raise("MPI_Finalized", nullptr, core::error_set(errc::arg, "NULL flag pointer"));
  *flag = core::rt().finalized.load() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Query_thread(int* provided) {
  if (!provided) return abi::raise("MPI_Query_thread", nullptr, core::error_set(errc::arg, "NULL provided pointer"));
  *provided = level_to_mpi(core::rt().level);
  return MPI_SUCCESS;
}

int MPI_Is_thread_main(int* flag) {
  if (!flag) return abi::raise("MPI_Is_thread_main", nullptr, core::error_set(errc::arg, "NULL flag pointer"));
  *flag = core::runtime_is_main_thread() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm, int errorcode) {
  std::fprintf(stderr, "Baton: rank %d called MPI_Abort with error code %d\n", core::rt().world_rank, errorcode);
  core::runtime_abort(errorcode, "MPI_Abort");
}

double MPI_Wtime(void) { return core::wtime(); }

double MPI_Wtick(void) {
  struct timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  if (!name) return abi::raise("MPI_Get_processor_name", nullptr, core::error_set(errc::arg, "NULL name pointer"));
  if (!resultlen)
    return abi::raise("MPI_Get_processor_name", nullptr, core::error_set(errc::arg, "NULL resultlen pointer"));
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  copy_string(name, resultlen, host, MPI_MAX_PROCESSOR_NAME);
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  if (!version) return abi::raise("MPI_Get_version", nullptr, core::error_set(errc::arg, "NULL version pointer"));
  if (!subversion) return abi::raise("MPI_Get_version", nullptr, core::error_set(errc::arg, "NULL subversion pointer"));
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  if (!version)
    return abi::raise("MPI_Get_library_version", nullptr, core::error_set(errc::arg, "NULL version pointer"));
  if (!resultlen)
    return abi::raise("MPI_Get_library_version", nullptr, core::error_set(errc::arg, "NULL resultlen pointer"));
  copy_string(version, resultlen,
              "Baton " BATON_VERSION_STRING " (MPI 5.0 standard ABI 1.0; shared-memory transport; C++20 core)",
              MPI_MAX_LIBRARY_VERSION_STRING);
  return MPI_SUCCESS;
}

int MPI_Abi_get_version(int* abi_major, int* abi_minor) {
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}

// ---- ABI details (MPI-5.0): sizes of the integer types, Fortran datatypes and booleans ----
//
// Baton has no Fortran bindings of its own, but predefines every Fortran datatype with fixed sizes
// (core/datatype_predefined.cpp: LOGICAL, INTEGER and REAL of 4 bytes, DOUBLE PRECISION of 8, and
// every LOGICALn/INTEGERn/REALn/COMPLEXn). MPI_Abi_get_fortran_info describes exactly that table,
// and MPI_Abi_set_fortran_info is refused with MPI_ERR_ABI: the details are already set inside the
// library and cannot change (as in an MPI built with Fortran support). The Fortran booleans only
// matter to LAND/LOR/LXOR on LOGICAL kinds (core/op.hpp): they default to 1 and 0 (not "set") and
// MPI_Abi_set_fortran_booleans may change them once.

}  // namespace baton::impl

namespace {

errc info_add(core::info* i, const char* key, const std::string& value) { return i->set(key, value); }

// The Fortran datatypes MPI_Abi_get_fortran_info reports (key prefix and ABI handle).
struct fortran_type {
  const char* key;
  MPI_Datatype type;
};
const fortran_type fortran_sized_keys[] = {
    {"mpi_logical_size", MPI_LOGICAL},
    {"mpi_integer_size", MPI_INTEGER},
    {"mpi_real_size", MPI_REAL},
    {"mpi_double_precision_size", MPI_DOUBLE_PRECISION},
};
const fortran_type fortran_optional_keys[] = {
    {"mpi_logical1_supported", MPI_LOGICAL1},   {"mpi_logical2_supported", MPI_LOGICAL2},
    {"mpi_logical4_supported", MPI_LOGICAL4},   {"mpi_logical8_supported", MPI_LOGICAL8},
    {"mpi_logical16_supported", MPI_LOGICAL16}, {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},   {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},   {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_REAL2},         {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},         {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_COMPLEX4},   {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16}, {"mpi_complex32_supported", MPI_COMPLEX32},
    {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
};

const core::datatype* builtin(MPI_Datatype t) {
  return core::predefined_datatype(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(t)));
}

// Fortran LOGICAL kinds are 1, 2, 4, 8 or 16 bytes.
errc check_logical_size(int logical_size) {
  if (logical_size == 1 || logical_size == 2 || logical_size == 4 || logical_size == 8 || logical_size == 16)
    return errc::success;
  return core::error_set(errc::arg, "logical_size %d: a Fortran LOGICAL has 1, 2, 4, 8 or 16 bytes", logical_size);
}

// Stores v as a signed integer of n bytes (n from check_logical_size; sign-extended to 16).
void store_logical(void* out, int n, int64_t v) {
  switch (n) {
    case 1: { int8_t x = int8_t(v); std::memcpy(out, &x, 1); break; }
    case 2: { int16_t x = int16_t(v); std::memcpy(out, &x, 2); break; }
    case 4: { int32_t x = int32_t(v); std::memcpy(out, &x, 4); break; }
    case 8: std::memcpy(out, &v, 8); break;
    default: { __int128 x = v; std::memcpy(out, &x, 16); break; }
  }
}

// Reads a signed integer of n bytes; errc::arg when a 16-byte value does not fit 64 bits.
errc load_logical(const void* in, int n, const char* what, int64_t* v) {
  switch (n) {
    case 1: { int8_t x; std::memcpy(&x, in, 1); *v = x; return errc::success; }
    case 2: { int16_t x; std::memcpy(&x, in, 2); *v = x; return errc::success; }
    case 4: { int32_t x; std::memcpy(&x, in, 4); *v = x; return errc::success; }
    case 8: std::memcpy(v, in, 8); return errc::success;
    default: {
      __int128 x;
      std::memcpy(&x, in, 16);
      if (x < INT64_MIN || x > INT64_MAX)
        return core::error_set(errc::arg, "16-byte %s value does not fit in 64 bits (not supported)", what);
      *v = int64_t(x);
      return errc::success;
    }
  }
}

}  // namespace

namespace baton::impl {

int MPI_Abi_get_info(MPI_Info* info) {
  return call("MPI_Abi_get_info", nullptr, [&] {
    if (!info) return core::error_set(errc::arg, "NULL info pointer");
    auto* i = new core::info;
    for (auto [key, size] : {std::pair{"mpi_aint_size", sizeof(MPI_Aint)}, std::pair{"mpi_count_size", sizeof(MPI_Count)},
                             std::pair{"mpi_offset_size", sizeof(MPI_Offset)}}) {
      if (errc e = info_add(i, key, std::to_string(size)); e != errc::success) {
        delete i;
        return e;
      }
    }
    *info = abi::to_handle(i);
    return errc::success;
  });
}

int MPI_Abi_get_fortran_info(MPI_Info* info) {
  return call("MPI_Abi_get_fortran_info", nullptr, [&] {
    if (!info) return core::error_set(errc::arg, "NULL info pointer");
    auto* i = new core::info;
    errc e = errc::success;
    for (const fortran_type& f : fortran_sized_keys) {
      const core::datatype* t = builtin(f.type);
      if (e == errc::success && t) e = info_add(i, f.key, std::to_string(t->size()));
    }
    for (const fortran_type& f : fortran_optional_keys)
      if (e == errc::success) e = info_add(i, f.key, builtin(f.type) ? "true" : "false");
    if (e != errc::success) {
      delete i;
      return e;
    }
    *info = abi::to_handle(i);
    return errc::success;
  });
}

int MPI_Abi_set_fortran_info(MPI_Info info) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Abi_set_fortran_info", nullptr, errc::info);
  const core::datatype* l = builtin(MPI_LOGICAL);
  const core::datatype* n = builtin(MPI_INTEGER);
  const core::datatype* r = builtin(MPI_REAL);
  const core::datatype* d = builtin(MPI_DOUBLE_PRECISION);
  (void)core::error_set(errc::abi,
                        "the Fortran datatypes are built into this library (LOGICAL %lld, INTEGER %lld, REAL %lld, "
                        "DOUBLE PRECISION %lld bytes, every optional type supported: see MPI_Abi_get_fortran_info) "
                        "and cannot be changed",
                        static_cast<long long>(l->size()), static_cast<long long>(n->size()),
                        static_cast<long long>(r->size()), static_cast<long long>(d->size()));
  return abi::raise("MPI_Abi_set_fortran_info", nullptr, errc::abi);
}

int MPI_Abi_get_fortran_booleans(int logical_size, void* logical_true, void* logical_false, int* is_set) {
  return call("MPI_Abi_get_fortran_booleans", nullptr, [&] {
    if (!logical_true || !logical_false || !is_set)
      return core::error_set(errc::arg, "NULL %s", !logical_true ? "logical_true" : !logical_false ? "logical_false" : "is_set");
    if (errc e = check_logical_size(logical_size); e != errc::success) return e;
    core::fortran_booleans b = core::fortran_booleans_get();
    store_logical(logical_true, logical_size, b.true_value);
    store_logical(logical_false, logical_size, b.false_value);
    *is_set = b.is_set ? 1 : 0;
    return errc::success;
  });
}

int MPI_Abi_set_fortran_booleans(int logical_size, void* logical_true, void* logical_false) {
  return call("MPI_Abi_set_fortran_booleans", nullptr, [&] {
    if (!logical_true || !logical_false)
      return core::error_set(errc::arg, "NULL %s", !logical_true ? "logical_true" : "logical_false");
    if (errc e = check_logical_size(logical_size); e != errc::success) return e;
    int64_t t = 0, f = 0;
    if (errc e = load_logical(logical_true, logical_size, ".TRUE.", &t); e != errc::success) return e;
    if (errc e = load_logical(logical_false, logical_size, ".FALSE.", &f); e != errc::success) return e;
    return core::fortran_booleans_set(t, f);
  });
}

// ---- errors ----

int MPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) {
    (void)core::error_set(errc::arg, "NULL errorclass pointer");
    return abi::raise("MPI_Error_class", nullptr, errc::arg);
  }
  if ((errorcode >= 0 && errorcode <= MPI_ERR_ABI) || abi::tool::error_name(errorcode)) {  // + MPI_T_ERR_*
    *errorclass = errorcode;
    return MPI_SUCCESS;
  }
  // A user-defined class or code (MPI_Add_error_class / MPI_Add_error_code, abi_misc.cpp).
  if (int cls = 0; core::user_error_lookup(errorcode, &cls, nullptr)) {
    *errorclass = cls;
    return MPI_SUCCESS;
  }
  (void)core::error_set(errc::arg, "unknown error code %d", errorcode);
  return abi::raise("MPI_Error_class", nullptr, errc::arg);
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen) {
    (void)core::error_set(errc::arg, "NULL %s", string ? "resultlen pointer" : "string buffer");
    return abi::raise("MPI_Error_string", nullptr, errc::arg);
  }
  if (errorcode >= 0 && errorcode <= MPI_ERR_ABI) {
    std::string s = std::string(core::errc_name(errc(errorcode))) + ": " + core::errc_description(errc(errorcode));
    copy_string(string, resultlen, s, MPI_MAX_ERROR_STRING);
    return MPI_SUCCESS;
  }
  if (const char* name = abi::tool::error_name(errorcode)) {  // MPI_T_ERR_* (abi_tool.cpp)
    copy_string(string, resultlen, std::string(name) + ": " + abi::tool::error_description(errorcode),
                MPI_MAX_ERROR_STRING);
    return MPI_SUCCESS;
  }
  // A user-defined class or code: the string set by MPI_Add_error_string, "" if none (MPI-4.1 9.6).
  if (std::string text; core::user_error_lookup(errorcode, nullptr, &text)) {
    copy_string(string, resultlen, text, MPI_MAX_ERROR_STRING);
    return MPI_SUCCESS;
  }
  (void)core::error_set(errc::arg, "unknown error code %d", errorcode);
  return abi::raise("MPI_Error_string", nullptr, errc::arg);
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  if (!fn || !errhandler) {
    (void)core::error_set(errc::arg, "NULL %s", fn ? "errhandler output" : "function");
    return abi::raise("MPI_Comm_create_errhandler", nullptr, errc::arg);
  }
  auto* e = new core::errhandler;
  e->kind = core::errhandler_kind::user;
  e->user_fn = reinterpret_cast<void*>(fn);
  *errhandler = abi::to_handle(e);
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_set_errhandler", nullptr, errc::comm);
  core::errhandler* e = abi::to_errhandler(errhandler);
  if (!e) {
    (void)core::error_set(errc::errhandler, "invalid error handler handle %p (freed or never created)",
                          static_cast<void*>(errhandler));
    return abi::raise("MPI_Comm_set_errhandler", c, errc::errhandler);
  }
  if (e->for_session) {
    (void)core::error_set(errc::arg, "the error handler was made by MPI_Session_create_errhandler: a communicator "
                                     "needs one made by MPI_Comm_create_errhandler (or a predefined one)");
    return abi::raise("MPI_Comm_set_errhandler", c, errc::arg);
  }
  e->retain();
  if (c->eh) c->eh->release();
  c->eh = e;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_get_errhandler", nullptr, errc::comm);
  if (!errhandler)
    return abi::raise("MPI_Comm_get_errhandler", c, core::error_set(errc::arg, "NULL errhandler pointer"));
  c->eh->retain();
  *errhandler = abi::to_handle(c->eh);
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  core::errhandler* e = abi::to_errhandler(*errhandler);
  if (!e) {
    (void)core::error_set(errc::errhandler, "invalid error handler handle %p (freed or never created)",
                          static_cast<void*>(*errhandler));
    return abi::raise("MPI_Errhandler_free", nullptr, errc::errhandler);
  }
  e->release();
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_call_errhandler", nullptr, errc::comm);
  (void)core::error_set(errc(errorcode), "error raised by the application");
  abi::raise("MPI_Comm_call_errhandler", c, errc(errorcode));
  return MPI_SUCCESS;
}

}  // namespace baton::impl
