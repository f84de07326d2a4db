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
// comm_check for a collective operation: also refuses an intercommunicator for now (in one place,
// coll_inter_refusal in abi_coll.cpp).
errc coll_check_comm(const char* fn, MPI_Comm comm, core::comm** c);
// count >= 0, a committed type (*t set), and a usable buffer (MPI_IN_PLACE passes).
errc coll_check_data(const void* buf, int64_t count, MPI_Datatype type, const core::datatype** t);
errc coll_check_root(const core::comm* c, int root);
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
