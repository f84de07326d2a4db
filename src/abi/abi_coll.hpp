// Argument checks and the launch path shared by the collective entry points
// (abi_coll.cpp, abi_coll_gather.cpp, abi_coll_alltoall.cpp).
#pragma once

#include "abi/abi.hpp"
#include "coll/coll.hpp"

namespace baton::abi {

// MPI is initialized and `comm` is a valid communicator (*c set).
errc coll_check_comm(const char* fn, MPI_Comm comm, core::comm** c);
// count >= 0, a committed type (*t set), and a usable buffer (MPI_IN_PLACE passes).
errc coll_check_data(const void* buf, int64_t count, MPI_Datatype type, const core::datatype** t);
errc coll_check_root(const core::comm* c, int root);
// A valid op (*o set) that applies to t's elements.
errc coll_check_reduction(MPI_Op op, const core::datatype* t, const core::op** o);
// Runs the collective: blocking when request is null, else nonblocking with *request set.
int coll_launch(const char* fn, const coll::coll_args& a, MPI_Request* request);

}  // namespace baton::abi
