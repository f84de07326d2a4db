// Dynamic processes (MPI-4.1 11.8-11.10): ports, connect/accept, join, spawn, name publishing.
// docs/dynamic.md is the user-facing description; the design in short:
//
// - Identity: processes of other launches get indices past this launch's world (core/procs.hpp);
//   groups, communicators and the point-to-point engine use those indices like world ranks.
// - Transport: processes of different launches always talk through UCX (transport::ucx::dyn_*),
//   which itself uses shared memory, CMA or TCP as it finds them; a build without UCX refuses
//   every connection with errc::unsupported_operation.
// - Rendezvous: a port is a TCP listening socket of the process that opened it; its name lists
//   that process's IPv4 addresses, the TCP port and a random key. The two roots meet there and
//   exchange their groups (identities and UCX worker addresses), each root broadcasts what it
//   got to its group, every process registers the other group, and the intercommunicator's
//   bridge is agreed over both groups (core::procs_span) with a tag both roots know.
// - Spawn: the parents' root opens a private port, asks the launcher (PMI-1, PMI-2, PMIx or
//   Baton's mpiexec) to start the children with the port's name, and accepts; the children
//   connect to it from MPI_Init (dynamic::init_parent) and find the intercommunicator with
//   MPI_Comm_get_parent.
// - Faults: the roots keep their TCP socket while both run; a root that sees it close without
//   the other side's goodbye (sent at MPI_Finalize) ends its launch (runtime_abort), so a dead
//   peer never leaves the survivors waiting.
#pragma once

#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/info.hpp"

namespace baton::dynamic {

using core::comm;
using core::errc;
using core::info;

// ---- ports (dynamic_port.cpp) ----
[[nodiscard]] errc open_port(const info* in, std::string* name);
// errc::port when the name is not one of this process's open ports.
[[nodiscard]] errc close_port(const std::string& name);
// Collective over the intracommunicator c; only root's port and info count. The new
// intercommunicator's local group is c's.
[[nodiscard]] errc accept(const std::string& port, const info* in, int root, comm* c, comm** out);
[[nodiscard]] errc connect(const std::string& port, const info* in, int root, comm* c, comm** out);
// MPI_Comm_join over a connected stream socket.
[[nodiscard]] errc join(int fd, comm** out);

// MPI_Intercomm_create between groups that span launches (core/intercomm.cpp): collective over
// `local`; every member describes itself (identity, UCX address) to the leader, the leaders swap
// the descriptions over peer's point-to-point context with `tag`, each broadcasts what it got, and
// every member registers the remote group (indices into *remote, in its rank order). Processes
// that never met (a parent's rank that did not take part in the spawn) meet here.
[[nodiscard]] errc introduce(comm* local, int leader, comm* peer, int remote_leader, int tag, std::vector<int>* remote);

// ---- spawn (dynamic_spawn.cpp) ----
struct spawn_command {
  std::string command;
  std::vector<std::string> argv;
  int maxprocs = 0;
  const info* in = nullptr;
};
// Collective over c; only root's commands count. errcodes gets one entry per child asked for
// (the sum of maxprocs at root), on every process. root_error: the root's verdict on its own
// arguments (every process then fails with it, nothing is started).
[[nodiscard]] errc spawn(const std::vector<spawn_command>& cmds, int root, comm* c, errc root_error, comm** out,
                         std::vector<int>* errcodes);

// ---- names (dynamic_names.cpp) ----
[[nodiscard]] errc publish_name(const std::string& service, const info* in, const std::string& port);
[[nodiscard]] errc unpublish_name(const std::string& service, const info* in, const std::string& port);
[[nodiscard]] errc lookup_name(const std::string& service, const info* in, std::string* port);

// ---- life (dynamic_spawn.cpp / dynamic_port.cpp) ----
// MPI_Init of a spawned process: connects to its parents (nothing for other processes).
[[nodiscard]] errc init_parent();
// The intercommunicator to the parents, nullptr if not spawned (or after it was disconnected:
// parent_forget).
comm* parent();
void parent_forget(comm* c);
// MPI_Finalize: lets go of MPI_COMM_PARENT if the program did not free or disconnect it.
void parent_release();
// MPI_Finalize: says goodbye on every watched connection and closes the ports.
void finalize();

}  // namespace baton::dynamic
