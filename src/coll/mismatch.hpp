// Collective calls whose ranks disagree so far that they can never meet (docs/architecture.md,
// "Collective argument mismatches"): counts on both sides of a selection threshold (a bcast root
// at 400 KB, its receivers at 4 KB), collectives called in different orders, different roots.
//
// Each blocking or nonblocking collective logs what it selected in its rank's log (coll_log.hpp; a
// repeat of the collective before, which runs the same plan, only moves the rank's position: one
// store to a line no peer reads meanwhile; measured on an 8-byte bcast, comparing the arguments
// instead cost 5%), in the communicator's shared-memory region. Only a wait that has slept
// without progress (core::stall_check, every 100 ms) reads the peers' logs: an entry for the same
// collective that names another collective, root or algorithm (or, for the collective this rank
// has stood at for 0.5 s, other bytes where every rank must pass the same: a pipelined plan of one
// algorithm depends on them) fails the communicator's pending collectives on that rank (runs_fail; a
// blocking shared-memory wait gives up) with MPI_ERR_TRUNCATE (counts or types that select
// different algorithms), MPI_ERR_ROOT or MPI_ERR_OTHER (a different collective), and the
// communicator refuses later collectives (its collective state no longer agrees between ranks;
// point-to-point and MPI_Comm_dup still work). Every rank that waits on the mismatch finds it in
// turn, or from the verdict a failing rank leaves in its log. (MPI_Test loops are checked: the test
// calls run the checkers too, core::progress_poll_test.)
//
// Communicators without a region (spanning hosts, BATON_COLL_SHM=0, intercommunicators, the
// region setup's own collectives) are checked by what waits in the unexpected queues
// (check_strays, schedule.hpp's runs_find_stray): a message of a pending collective that this
// rank's plan has no receive or room for, one of a collective that already finished here, or a
// later collective's from a rank that a blocking collective still waits for. The rank that finds
// one fails the communicator and sends each peer a verdict (a 32-byte message on the collective
// context, tag verdict_tag: the collective, the class, a hash of the members); a stalled peer
// takes it and fails too. A rank that waits with none of that asks the ranks it waits for (a
// probe, tag probe_tag); one whose plan never sends what is asked for fails the communicator the
// same way. Its own strays are taken with receives of no room (their senders complete), and a
// failed communicator's context stays reserved after it is freed, since more may arrive. A receive step
// that gets less than it posted fails its run (schedule.cpp, short_recv). There only the messages
// tell: a receiver fed exactly what it posted (a binomial tree's leaf under a root that passed
// more) returns success.
#pragma once

#include "coll/coll.hpp"
#include "coll/coll_log.hpp"
#include "coll/schedule.hpp"

namespace baton::core {
class comm;
}

namespace baton::coll {

// The stall checker that reads the unexpected queues (schedule.hpp, runs_find_stray): a message
// for a pending collective that this rank's plan has no receive for, or no room for, fails the
// communicator as a log difference does. Registered with the collective poller.
bool check_strays();

// c's region is ready: its log lives there (region::log is this rank's writer) / about to be
// unmapped (drops the logged plan).
void log_register(core::comm* c);
void log_unregister(core::comm* c);

// Logs collective `seq` (prepare(), engine lock held): a repeat of the plan before only moves
// the position.
void log_start(log_writer* w, uint64_t seq, const coll_args& a, const plan* p);
inline void log_collective(log_writer* w, uint64_t seq, const coll_args& a, const plan* p) {
  if (p != w->plan) [[unlikely]]
    log_start(w, seq, a, p);
  w->position().store(seq + 1, std::memory_order_release);
}

}  // namespace baton::coll
