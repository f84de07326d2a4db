// Intercommunicator constructors (MPI-4.1 7.6.2): MPI_Intercomm_create and MPI_Intercomm_merge.
// MPI_Intercomm_create_from_groups lives with MPI_Comm_create_from_group (abi_session.cpp); the
// queries and dup/split/create on intercommunicators with the other communicator calls
// (abi_comm.cpp). The construction is src/comm/intercomm.cpp.
#include "abi/abi.hpp"
#include "abi/abi_coll.hpp"
#include "comm/comm.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::impl {

// Errors go to local_comm's error handler. The local leader checks peer_comm, remote_leader and
// tag; when one is bad it still tells its group (which then fails with the same class), but the
// remote group's leader, which waits for the exchange, is not told: as in any MPI, a wrong
// argument at one leader leaves the other side waiting, so both sides should pass matching ones.
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  const char* fn = "MPI_Intercomm_create";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, local_comm, &c); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    if (errc e = abi::check_intra(fn, c, "local_comm"); e != errc::success) return e;
    if (!newintercomm) return core::error_set(errc::arg, "NULL newintercomm pointer");
    if (local_leader < 0 || local_leader >= c->size)
      return core::error_set(errc::rank, "local_leader %d is not a rank of local_comm (size %d)", local_leader,
                             c->size);
    errc leader_error = errc::success;
    core::comm* peer = nullptr;
    if (c->rank == local_leader) {
      peer = abi::to_comm(peer_comm);
      if (!peer) {
        leader_error = errc::comm;  // to_comm set the message
      } else if (remote_leader < 0 || remote_leader >= peer->size) {
        leader_error = core::error_set(errc::rank, "remote_leader %d is not a rank of peer_comm (size %d)",
                                       remote_leader, peer->size);
      } else if (!peer->inter && remote_leader == peer->rank) {
        leader_error = core::error_set(
            errc::rank, "remote_leader %d is the local leader itself (its rank in peer_comm)", remote_leader);
      } else {
        leader_error = abi::check_send_tag(tag);
      }
    }
    core::comm* n = nullptr;
    errc e = comm::intercomm_create(c, local_leader, peer, remote_leader, tag, leader_error, &n);
    if (e != errc::success) {
      *newintercomm = MPI_COMM_NULL;
      return e;
    }
    *newintercomm = abi::to_handle(n);
    return errc::success;
  });
}

// The group that passes high = false comes first in the merged communicator; when both pass the
// same value, the order is the bridge's (the group whose leader has the lower world rank first for
// an intercommunicator from MPI_Intercomm_create(_from_groups); a derived one keeps its parent's).
// Each group must pass one value: a group that does not gets MPI_ERR_NOT_SAME on every process.
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* fn = "MPI_Intercomm_merge";
  core::comm* c = nullptr;
  if (errc e = abi::comm_check(fn, intercomm, &c); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    if (!c->inter)
      return core::error_set(errc::comm, "%s: the communicator is an intracommunicator (it needs an intercommunicator)",
                             fn);
    if (!newintracomm) return core::error_set(errc::arg, "NULL newintracomm pointer");
    core::comm* n = nullptr;
    if (errc e = comm::intercomm_merge(c, high != 0, &n); e != errc::success) return e;
    *newintracomm = abi::to_handle(n);
    return errc::success;
  });
}

}  // namespace baton::impl
