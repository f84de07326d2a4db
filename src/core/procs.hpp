// Process identity beyond MPI_COMM_WORLD (dynamic processes, MPI-4.1 11.8-11.10).
//
// Every process has a global identity (job, rank): `job` is a 64-bit id of its launch (digest of
// the launcher's job name and the first rank's host, so two launches never share it in practice),
// `rank` its rank in that launch's MPI_COMM_WORLD. Inside a process, groups, communicators and the
// transports name processes by an index: 0 .. world_size-1 are this launch's ranks (index = world
// rank, as before dynamic processes existed); processes of other launches met through spawn,
// connect/accept or join get indices from world_size up, one block per launch (base + rank, the
// block as large as that launch's world). The table only grows: an index stays valid for the
// life of the process. Every other process numbers the same processes differently, so anything
// that crosses a process boundary (group descriptions, digests of member lists, the order of two
// groups) goes by identity, never by index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace baton::core {

struct proc_id {
  uint64_t job = 0;
  int32_t rank = 0;
  int32_t job_size = 0;  // size of that launch's MPI_COMM_WORLD
};

// Called once by runtime_init after the host names are known: `first_host` is rank 0's host name.
void procs_init(const std::string& kvsname, const std::string& first_host);
// This launch's id.
uint64_t job_id();
// The identity behind an index (this launch's or a registered one).
proc_id proc_identity(int index);
// The index of (job, rank), -1 if that process is unknown here.
int proc_index(uint64_t job, int rank);
// The index of (job, rank), registering its launch (job_size ranks) if new. Engine lock held:
// grows rt().local_of_world (the new processes are never on this process's shared segment).
// errc::intern if the launch was registered with another size.
[[nodiscard]] errc proc_register(const proc_id& p, int* index);
// Whether an index names a process of another launch.
bool proc_foreign(int index);
// The global order of processes: by (job, rank), the same in every process.
bool proc_before(int a, int b);
// A digest of a list of processes by identity (the same list gives the same value everywhere).
uint64_t procs_digest(const int* indices, size_t n, uint64_t seed);
// This process's host as a value to compare with other processes' (MPI_COMM_TYPE_SHARED colors,
// windows' "same host"): equal for processes of one launch on one host, different for other
// hosts and (by its digest of the launch id) for other launches, whose processes never share
// Baton's shared memory. Non-negative.
int host_key();
// Whether any of these indices names a process of another launch.
bool procs_any_foreign(const std::vector<int>& indices);

class comm;
// The context pair every process reserves for agreements among processes of several launches
// (they share no communicator yet): contexts 6 / 7.
constexpr uint32_t span_context = 6;
// A communicator over `members` (indices; every member passes the same processes in the same
// order) on span_context, rank = position in the list: the parent of context agreements whose
// members are not all of this launch (rt().processes covers this launch only). Concurrent spans
// share the context, so every use of one must carry a tag of its own. Not reference counted
// (never releases the reserved context): the caller deletes it.
comm* procs_span(const std::vector<int>& members);

}  // namespace baton::core
