// Persistent collective operations (MPI-4.1 7.13), bound early.
//
// MPI_<Coll>_init is the whole setup: it consumes the communicator's collective sequence number
// (the init is ordered like any collective) and a persistent id, the operation's own matching
// identity (its tags: persistent_tag() in schedule.hpp), so starts may come in any order on any
// rank; it chooses the algorithm once, builds the plan and binds a run to the user's buffers
// (temporaries allocated, one point-to-point request prepared per send/recv step with its peer,
// tag, buffer and type). A start resets the run's counters and starts the steps that have no
// dependencies: it allocates nothing, selects nothing and matches nothing it could have at init.
//
// Algorithm choice, first found wins (docs/persistent.md):
//   info key "baton_algorithm" of the init call        (unknown or unusable: MPI_ERR_INFO_VALUE)
//   info key "baton_<collective>_algorithm" of the call (same)
//   communicator hint "baton_<collective>_algorithm" (MPI_Comm_set_info; ignored when unusable)
//   BATON_<COLLECTIVE>_ALGORITHM, then the registry's selection (coll::select)
// The choice must agree on every rank, as the arguments must.
#pragma once

#include "coll/coll.hpp"

namespace baton::core {
class info;
}

namespace baton::coll {

// Creates an inactive persistent request for the collective `a` (a.c, counts, types, op, root and
// buffers fixed from now on; vector arguments are copied into the plan). `info` may be null. The
// request starts through request_ops::on_start (MPI_Start, MPI_Startall, queues), refuses
// MPI_Request_free while active and MPI_Cancel always (MPI_ERR_REQUEST).
[[nodiscard]] errc persistent_init(const coll_args& a, const core::info* info, core::request** out);

// Whether r is a persistent collective request (MPI_Match and queued communication use this).
bool persistent_is(const core::request* r);
// The registry name of the algorithm r runs (a persistent collective request), else nullptr.
const char* persistent_algorithm(const core::request* r);

}  // namespace baton::coll
