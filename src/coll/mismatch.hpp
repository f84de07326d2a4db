// Collective calls whose ranks disagree so far that they can never meet (docs/architecture.md,
// "Collective argument mismatches"): counts on both sides of a selection threshold (a bcast root
// at 400 KB, its receivers at 4 KB), collectives called in different orders, different roots.
//
// Each blocking or nonblocking collective on a communicator with a shared-memory region logs what
// it selected in its rank's log in the region (shm::region::log_start; a repeat of the collective
// before, which runs the same plan, only moves the rank's position there: one store to a line no
// peer reads meanwhile; measured on an 8-byte bcast, comparing the arguments instead cost 5%). Only a wait that has slept without progress (core::stall_check, every
// 100 ms) reads the peers' logs: an entry for the same collective that names another collective,
// root or algorithm fails the communicator's pending collectives on that rank (runs_fail; a
// blocking shared-memory wait gives up) with MPI_ERR_TRUNCATE (counts or types that select
// different algorithms), MPI_ERR_ROOT or MPI_ERR_OTHER (a different collective), and the
// communicator refuses later collectives (its collective state no longer agrees between ranks;
// point-to-point and MPI_Comm_dup still work). Every rank that waits on the mismatch finds it in
// turn. Communicators without a region (spanning hosts, BATON_COLL_SHM=0, one rank) are not
// checked: such a mismatch still hangs there, and BATON_STALL_WARN says where.
#pragma once

#include "coll/coll.hpp"
#include "coll/schedule.hpp"
#include "coll/shm_region.hpp"

namespace baton::core {
class comm;
}

namespace baton::coll {

// c's region is ready (its log is in use) / about to be unmapped (drops the logged plan).
void log_register(core::comm* c);
void log_unregister(core::comm* c);

// Logs collective `seq` of the communicator whose region is g (prepare(), engine lock held): a
// repeat of the last collective's arguments and algorithm costs one store.
void log_start(shm::region* g, uint64_t seq, const coll_args& a, const plan* p);
inline void log_collective(shm::region* g, uint64_t seq, const coll_args& a, const plan* p) {
  if (p != g->log_plan) [[unlikely]]
    log_start(g, seq, a, p);
  g->log_mine->store(seq + 1, std::memory_order_release);
}

}  // namespace baton::coll
