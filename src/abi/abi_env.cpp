// Environment management (MPI-4.1 chapter 11) and error handling (chapter 9.3-9.5).
// Communicators are in abi_comm.cpp.
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "core/progress.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {
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

int init_common(int required, int* provided) {
  core::runtime& R = core::rt();
  if (R.initialized.load() || R.finalized.load()) {
    std::fprintf(stderr, "Baton: MPI_Init called twice (MPI may be initialized only once)\n");
    return MPI_ERR_OTHER;
  }
  core::thread_level got;
  errc e = core::runtime_init(level_from_mpi(required), &got);
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

extern "C" {

int PMPI_Init(int*, char***) { return init_common(MPI_THREAD_SINGLE, nullptr); }
BATON_ALIAS(MPI_Init);

int PMPI_Init_thread(int*, char***, int required, int* provided) { return init_common(required, provided); }
BATON_ALIAS(MPI_Init_thread);

int PMPI_Finalize(void) {
  if (errc e = abi::check_init("MPI_Finalize"); e != errc::success) return abi::raise("MPI_Finalize", nullptr, e);
  return call("MPI_Finalize", nullptr, [] {
    if (errc e = abi::comm_finalize_attributes(); e != errc::success) return e;
    return core::runtime_finalize();
  });
}
BATON_ALIAS(MPI_Finalize);

int PMPI_Initialized(int* flag) {
  *flag = core::rt().initialized.load() ? 1 : 0;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Initialized);

int PMPI_Finalized(int* flag) {
  *flag = core::rt().finalized.load() ? 1 : 0;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Finalized);

int PMPI_Query_thread(int* provided) {
  *provided = level_to_mpi(core::rt().level);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Query_thread);

int PMPI_Is_thread_main(int* flag) {
  *flag = core::runtime_is_main_thread() ? 1 : 0;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Is_thread_main);

int PMPI_Abort(MPI_Comm, int errorcode) {
  std::fprintf(stderr, "Baton: rank %d called MPI_Abort with error code %d\n", core::rt().world_rank, errorcode);
  core::runtime_abort(errorcode, "MPI_Abort");
}
BATON_ALIAS(MPI_Abort);

double PMPI_Wtime(void) { return core::wtime(); }
BATON_ALIAS(MPI_Wtime);

double PMPI_Wtick(void) {
  struct timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
BATON_ALIAS(MPI_Wtick);

int PMPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  copy_string(name, resultlen, host, MPI_MAX_PROCESSOR_NAME);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Get_processor_name);

int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Get_version);

int PMPI_Get_library_version(char* version, int* resultlen) {
  copy_string(version, resultlen,
              "Baton 0.1.0 (MPI 5.0 standard ABI 1.0; shared-memory transport; C++20 core)",
              MPI_MAX_LIBRARY_VERSION_STRING);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Get_library_version);

int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Abi_get_version);

// ---- errors ----

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) {
    (void)core::error_set(errc::arg, "NULL errorclass pointer");
    return abi::raise("MPI_Error_class", nullptr, errc::arg);
  }
  if (errorcode >= 0 && errorcode <= MPI_ERR_ABI) {
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
BATON_ALIAS(MPI_Error_class);

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen) {
    (void)core::error_set(errc::arg, "NULL %s", string ? "resultlen pointer" : "string buffer");
    return abi::raise("MPI_Error_string", nullptr, errc::arg);
  }
  if (errorcode >= 0 && errorcode <= MPI_ERR_ABI) {
    std::string s = std::string(core::errc_name(errc(errorcode))) + ": " + core::errc_description(errc(errorcode));
    copy_string(string, resultlen, s, MPI_MAX_ERROR_STRING);
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
BATON_ALIAS(MPI_Error_string);

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
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
BATON_ALIAS(MPI_Comm_create_errhandler);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_set_errhandler", nullptr, errc::comm);
  core::errhandler* e = abi::to_errhandler(errhandler);
  if (!e) {
    (void)core::error_set(errc::arg, "invalid error handler");
    return abi::raise("MPI_Comm_set_errhandler", c, errc::arg);
  }
  e->retain();
  if (c->eh) c->eh->release();
  c->eh = e;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_get_errhandler", nullptr, errc::comm);
  c->eh->retain();
  *errhandler = abi::to_handle(c->eh);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Comm_get_errhandler);

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  core::errhandler* e = abi::to_errhandler(*errhandler);
  if (!e) {
    (void)core::error_set(errc::arg, "invalid error handler");
    return abi::raise("MPI_Errhandler_free", nullptr, errc::arg);
  }
  e->release();
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Errhandler_free);

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_call_errhandler", nullptr, errc::comm);
  (void)core::error_set(errc(errorcode), "error raised by the application");
  abi::raise("MPI_Comm_call_errhandler", c, errc(errorcode));
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Comm_call_errhandler);

}  // extern "C"
