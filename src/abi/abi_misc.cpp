// Memory allocation (MPI-4.1 8.2), profiling control (15.2.4), the MPI-5.0 status accessors,
// user-defined error classes, codes and strings (9.6, with the MPI-4.1 removal functions) and
// MPI_Get_hw_resource_info (MPI-4.1).
// MPI_Error_class / MPI_Error_string, which read the user registry, are in abi_env.cpp; the
// MPI_LASTUSEDCODE attribute, which follows it, in abi_comm.cpp.
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "core/alloc_mem.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

// The MPI-4.0 info key for MPI_Alloc_mem: a power of two, the least alignment the caller wants.
constexpr const char* alignment_key = "mpi_minimum_memory_alignment";
constexpr size_t max_alignment = size_t(1) << 30;

errc alignment_from_info(const core::info* i, size_t* align) {
  *align = 1;
  if (!i) return errc::success;
  const std::string* v = i->find(alignment_key);
  if (!v) return errc::success;
  char* end = nullptr;
  errno = 0;
  unsigned long long a = std::strtoull(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || errno != 0 || (*v)[0] == '-' || a == 0 || (a & (a - 1)) != 0 ||
      a > max_alignment)
    return core::error_set(errc::info_value, "info %s = \"%s\": expected a power of two from 1 to %zu", alignment_key,
                           v->c_str(), max_alignment);
  *align = size_t(a);
  return errc::success;
}

int arg_error(const char* fn, const char* what) {
  (void)core::error_set(errc::arg, "NULL %s", what);
  return abi::raise(fn, nullptr, errc::arg);
}

}  // namespace

namespace baton::impl {

// ---- memory ----

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  constexpr const char* fn = "MPI_Alloc_mem";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::info* i = nullptr;
  if (info != MPI_INFO_NULL) {
    i = abi::to_info(info);
    if (!i) return abi::raise(fn, nullptr, errc::info);
  }
  return call(fn, nullptr, [&] {
    if (!baseptr) return core::error_set(errc::arg, "NULL baseptr");
    if (size < 0) return core::error_set(errc::arg, "negative size %lld", static_cast<long long>(size));
    size_t align = 1;
    if (errc e = alignment_from_info(i, &align); e != errc::success) return e;
    void* p = nullptr;
    if (errc e = core::mem_alloc(int64_t(size), align, &p); e != errc::success) return e;
    // baseptr is really a void** (the C binding declares void* so that &ptr of any type fits).
    std::memcpy(baseptr, &p, sizeof p);
    return errc::success;
  });
}

int MPI_Free_mem(void* base) {
  constexpr const char* fn = "MPI_Free_mem";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::mem_free(base); });
}

// ---- profiling ----

// MPI_Pcontrol is a hook for profiling libraries: the standard (MPI-4.1 15.2.4) leaves the meaning
// of `level` and of the optional arguments to the profiling layer and gives the MPI library itself
// nothing to do but return. A tool interposing MPI_Pcontrol (the weak MPI_ alias) interprets them;
// Baton has no profiling layer of its own, so returning MPI_SUCCESS is its whole specified effect,
// not a missing feature. Callable at any time, as tools expect.
int MPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

// ---- status accessors (MPI-5.0) ----

int MPI_Status_get_source(const MPI_Status* status, int* source) {
  if (!status || !source) return arg_error("MPI_Status_get_source", status ? "source pointer" : "status");
  *source = status->MPI_SOURCE;
  return MPI_SUCCESS;
}

int MPI_Status_get_tag(const MPI_Status* status, int* tag) {
  if (!status || !tag) return arg_error("MPI_Status_get_tag", status ? "tag pointer" : "status");
  *tag = status->MPI_TAG;
  return MPI_SUCCESS;
}

int MPI_Status_get_error(const MPI_Status* status, int* error) {
  if (!status || !error) return arg_error("MPI_Status_get_error", status ? "error pointer" : "status");
  *error = status->MPI_ERROR;
  return MPI_SUCCESS;
}

int MPI_Status_set_source(MPI_Status* status, int source) {
  if (!status) return arg_error("MPI_Status_set_source", "status");
  status->MPI_SOURCE = source;
  return MPI_SUCCESS;
}

int MPI_Status_set_tag(MPI_Status* status, int tag) {
  if (!status) return arg_error("MPI_Status_set_tag", "status");
  status->MPI_TAG = tag;
  return MPI_SUCCESS;
}

int MPI_Status_set_error(MPI_Status* status, int error) {
  if (!status) return arg_error("MPI_Status_set_error", "status");
  status->MPI_ERROR = error;
  return MPI_SUCCESS;
}

// ---- user-defined error classes, codes and strings ----
// The registry is core::user_error_* (core/error.hpp): values above MPI_ERR_LASTCODE, never
// reused, guarded by its own mutex. Errors go to MPI_COMM_WORLD's handler.

int MPI_Add_error_class(int* errorclass) {
  constexpr const char* fn = "MPI_Add_error_class";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (!errorclass) return core::error_set(errc::arg, "NULL errorclass pointer");
    return core::user_error_add_class(errorclass);
  });
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  constexpr const char* fn = "MPI_Add_error_code";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (!errorcode) return core::error_set(errc::arg, "NULL errorcode pointer");
    return core::user_error_add_code(errorclass, errorcode);
  });
}

int MPI_Add_error_string(int errorcode, const char* string) {
  constexpr const char* fn = "MPI_Add_error_string";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::user_error_set_string(errorcode, string); });
}

int MPI_Remove_error_class(int errorclass) {
  constexpr const char* fn = "MPI_Remove_error_class";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::user_error_remove_class(errorclass); });
}

int MPI_Remove_error_code(int errorcode) {
  constexpr const char* fn = "MPI_Remove_error_code";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::user_error_remove_code(errorcode); });
}

int MPI_Remove_error_string(int errorcode) {
  constexpr const char* fn = "MPI_Remove_error_string";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::user_error_remove_string(errorcode); });
}

// ---- hardware resources (MPI-4.1) ----
// What the process may run on, as Linux tells it (docs/misc.md lists the keys): the CPUs of its
// affinity mask (sched_getaffinity), the node's online CPUs, memory and page size (sysconf), the
// host name, and the hardware resource type MPI_COMM_TYPE_HW_GUIDED understands here.

}  // namespace baton::impl

namespace {
// "0-3,6,8-9": the CPUs of a mask, as ranges.
std::string cpu_list(const cpu_set_t& set, int* count) {
  std::string out;
  *count = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (last > c) out += '-' + std::to_string(last);
    *count += last - c + 1;
    c = last;
  }
  return out;
}

errc hw_resource_info(core::info* in) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return core::error_set(errc::other, "sched_getaffinity failed: %s", std::strerror(errno));
  int n = 0;
  const std::string cpus = cpu_list(set, &n);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    return core::error_set(errc::other, "gethostname failed: %s", std::strerror(errno));
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  const std::pair<const char*, std::string> kv[] = {
      {"mpi_hw_resource_type", "mpi_shared_memory"},
      {"baton_hostname", host},
      {"baton_cpus", cpus},
      {"baton_num_cpus", std::to_string(n)},
      {"baton_online_cpus", std::to_string(online)},
      {"baton_memory_bytes", std::to_string((unsigned long long)pages * (unsigned long long)page)},
      {"baton_page_size", std::to_string(page)},
  };
  for (const auto& [k, v] : kv)
    if (errc e = in->set(k, v); e != errc::success) return e;
  return errc::success;
}
}  // namespace

namespace baton::impl {

int MPI_Get_hw_resource_info(MPI_Info* hw_info) {
  const char* fn = "MPI_Get_hw_resource_info";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (!hw_info) return core::error_set(errc::arg, "NULL hw_info pointer");
    auto* in = new core::info;
    if (errc e = hw_resource_info(in); e != errc::success) {
      delete in;
      return e;
    }
    *hw_info = abi::to_handle(in);
    return errc::success;
  });
}

}  // namespace baton::impl
