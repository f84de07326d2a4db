// Persistent collective operations (MPI-4.1 7.13). The MPI_<Coll>_init entry points sit beside
// their blocking and nonblocking forms (abi_coll.cpp, abi_coll_gather.cpp, abi_coll_alltoall.cpp)
// and share their argument checks; they end here, where the info is checked and the core binds the
// operation (src/coll/persistent.hpp). Starts and completions are the generic request calls
// (abi_request.cpp), which reach the collective through request_ops.
#include "abi/abi_coll.hpp"
#include "abi/abi_objects.hpp"
#include "coll/persistent.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::abi {

int coll_launch_persistent(const char* fn, const coll::coll_args& a, const coll_mode& m) {
  if (!m.request) {
    (void)core::error_set(errc::arg, "the request argument is NULL");
    return raise(fn, a.c, errc::arg);
  }
  const core::info* in = nullptr;
  if (m.info != MPI_INFO_NULL && !(in = to_info(m.info))) return raise(fn, a.c, errc::info);
  return call(fn, a.c, [&] {
    core::request* r = nullptr;
    errc e = coll::persistent_init(a, in, &r);
    if (e == errc::success) *m.request = to_handle(r);
    return e;
  });
}

}  // namespace baton::abi
