// Argument checks and the launch path shared by the collective entry points
// (abi_coll.cpp, abi_coll_gather.cpp, abi_coll_alltoall.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "abi/abi.hpp"
#include "coll/coll.hpp"

namespace baton::abi {

// MPI is initialized and `comm` is a valid communicator (*c set), intra or inter.
errc comm_check(const char* fn, MPI_Comm comm, core::comm** c);
// `c` is an intracommunicator: errc::comm naming `fn` and the argument (`what`) otherwise. For
// the calls the standard defines on intracommunicators only (topology constructors, neighborhood
// collectives, scan and exscan, MPI_Comm_create_group, ...).
errc check_intra(const char* fn, const core::comm* c, const char* what = "the communicator");
// comm_check for a collective operation (intra or inter; see abi_coll.cpp).
errc coll_check_comm(const char* fn, MPI_Comm comm, core::comm** c);
// count >= 0, a committed type (*t set), and a usable buffer (MPI_IN_PLACE passes).
errc coll_check_data(const void* buf, int64_t count, MPI_Datatype type, const core::datatype** t);
// A rank of c; on an intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of the remote group.
errc coll_check_root(const core::comm* c, int root);
// Intercommunicators (MPI-4.1 6.2.2): MPI_IN_PLACE is not allowed in either buffer (errc::buffer).
errc coll_check_inter_buffers(const char* fn, const void* sendbuf, const void* recvbuf);
// On an intercommunicator, where a rooted collective's sides matter: the root (MPI_ROOT) has the
// root's side, the root's group (MPI_PROC_NULL) none, the remote group the other side.
enum class inter_role : uint8_t { root, idle, member };
inline inter_role inter_role_of(int root) {
  return root == MPI_ROOT ? inter_role::root : root == MPI_PROC_NULL ? inter_role::idle : inter_role::member;
}
// Every count of a vector form (widened to 64 bits) is valid.
errc coll_check_counts(const std::vector<int64_t>& counts);
// A valid op (*o set) that applies to t's elements.
errc coll_check_reduction(MPI_Op op, const core::datatype* t, const core::op** o);
// How an entry point runs its collective: blocking (no request), nonblocking (MPI_I<coll>: the
// request) or persistent (MPI_<Coll>_init: the request and the info). Blocking calls pass the
// literal nullptr; nonblocking ones their request argument, which the program may (erroneously)
// pass as NULL: coll_launch refuses that instead of running the blocking form.
struct coll_mode {
  MPI_Request* request = nullptr;
  bool nonblocking = false;
  bool persistent = false;
  MPI_Info info = MPI_INFO_NULL;
  coll_mode(std::nullptr_t) {}                                 // NOLINT(google-explicit-constructor)
  coll_mode(MPI_Request* r) : request(r), nonblocking(true) {}  // NOLINT(google-explicit-constructor)
  coll_mode(MPI_Request* r, MPI_Info i) : request(r), persistent(true), info(i) {}
};
// Runs the collective: blocking when there is no request, else nonblocking with *request set, or
// persistent: an inactive request bound at init (abi_coll_persistent.cpp).
int coll_launch(const char* fn, const coll::coll_args& a, const coll_mode& m);
int coll_launch_persistent(const char* fn, const coll::coll_args& a, const coll_mode& m);

}  // namespace baton::abi
