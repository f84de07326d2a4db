// PMIx client through libpmix (Open MPI's mpirun / PRRTE, Slurm --mpi=pmix). Optional: without
// libpmix at configure time every call refuses with a clear message.
#include "core/pmi.hpp"

#ifdef BATON_HAVE_PMIX

#include <pmix.h>

#include <cstring>

namespace baton::core::pmix {

namespace {
pmix_proc_t g_me;

errc fail(const char* what, pmix_status_t st) {
  return error_set(errc::intern, "PMIx: %s failed: %s", what, PMIx_Error_string(st));
}

// A value of this namespace as an integer (rank: PMIX_RANK_WILDCARD for a job-level one, else
// a process's own); fallback when absent.
int job_int(const char* key, int fallback, pmix_rank_t rank = PMIX_RANK_WILDCARD) {
  pmix_proc_t wild;
  PMIX_PROC_CONSTRUCT(&wild);
  std::memcpy(wild.nspace, g_me.nspace, sizeof wild.nspace);
  wild.rank = rank;
  pmix_value_t* v = nullptr;
  if (PMIx_Get(&wild, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return fallback;
  int out = fallback;
  switch (v->type) {
    case PMIX_UINT32: out = static_cast<int>(v->data.uint32); break;
    case PMIX_INT: out = v->data.integer; break;
    case PMIX_UINT: out = static_cast<int>(v->data.uint); break;
    case PMIX_INT32: out = v->data.int32; break;
    default: break;
  }
  PMIX_VALUE_RELEASE(v);
  return out;
}
}  // namespace

errc init(int* rank, int* size, int* appnum, int* universe, std::string* nspace) {
  PMIX_PROC_CONSTRUCT(&g_me);
  if (pmix_status_t st = PMIx_Init(&g_me, nullptr, 0); st != PMIX_SUCCESS) return fail("PMIx_Init", st);
  *rank = static_cast<int>(g_me.rank);
  *size = job_int(PMIX_JOB_SIZE, -1);
  if (*size <= 0) return error_set(errc::intern, "PMIx: the server gave no job size (PMIX_JOB_SIZE)");
  // MPI_APPNUM is the process's own program (an MPMD launch or MPI_Comm_spawn_multiple has several).
  *appnum = job_int(PMIX_APPNUM, job_int(PMIX_APPNUM, 0), g_me.rank);
  *universe = job_int(PMIX_UNIV_SIZE, *size);
  *nspace = g_me.nspace;
  return errc::success;
}

errc put(const std::string& key, const std::string& value) {
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_STRING;
  v.data.string = const_cast<char*>(value.c_str());
  pmix_status_t st = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);  // copies the value
  if (st != PMIX_SUCCESS) return fail("PMIx_Put", st);
  return errc::success;
}

errc fence() {
  if (pmix_status_t st = PMIx_Commit(); st != PMIX_SUCCESS) return fail("PMIx_Commit", st);
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  bool collect = true;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  pmix_status_t st = PMIx_Fence(nullptr, 0, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (st != PMIX_SUCCESS) return fail("PMIx_Fence", st);
  return errc::success;
}

errc get(const std::string& key, int owner, std::string& value) {
  pmix_proc_t p;
  PMIX_PROC_CONSTRUCT(&p);
  std::memcpy(p.nspace, g_me.nspace, sizeof p.nspace);
  p.rank = owner < 0 ? PMIX_RANK_WILDCARD : static_cast<pmix_rank_t>(owner);
  pmix_value_t* v = nullptr;
  pmix_status_t st = PMIx_Get(&p, key.c_str(), nullptr, 0, &v);
  if (st != PMIX_SUCCESS || !v) return error_set(errc::intern, "PMIx key '%s' of rank %d not found: %s", key.c_str(), owner, PMIx_Error_string(st));
  if (v->type != PMIX_STRING) {
    PMIX_VALUE_RELEASE(v);
    return error_set(errc::intern, "PMIx key '%s' of rank %d is not a string", key.c_str(), owner);
  }
  value = v->data.string ? v->data.string : "";
  PMIX_VALUE_RELEASE(v);
  return errc::success;
}

errc finalize() {
  if (pmix_status_t st = PMIx_Finalize(nullptr, 0); st != PMIX_SUCCESS) return fail("PMIx_Finalize", st);
  return errc::success;
}

void abort(int code, const std::string& message) { (void)PMIx_Abort(code, message.c_str(), nullptr, 0); }

}  // namespace baton::core::pmix

#else

namespace baton::core::pmix {
namespace {
errc none() {
  return error_set(errc::unsupported_operation,
                   "the launcher speaks PMIx, but this build of Baton has no libpmix (configure with libpmix-dev)");
}
}  // namespace
errc init(int*, int*, int*, int*, std::string*) { return none(); }
errc put(const std::string&, const std::string&) { return none(); }
errc fence() { return none(); }
errc get(const std::string&, int, std::string&) { return none(); }
errc finalize() { return none(); }
void abort(int, const std::string&) {}
// Dynamic processes (pmi_pmix_dynamic.cpp).
errc spawn(const std::vector<pmi_spawn_app>&, const std::string&, std::vector<int>*) { return none(); }
errc publish(const std::string&, const std::string&) { return none(); }
errc unpublish(const std::string&) { return none(); }
errc lookup(const std::string&, std::string*) { return none(); }
}  // namespace baton::core::pmix

#endif
