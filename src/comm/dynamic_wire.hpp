// Internal pieces of the dynamic-process code (dynamic_*.cpp): TCP sockets with deadlines, the
// handshake frames and the group descriptions two launches exchange.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "comm/dynamic.hpp"
#include "core/procs.hpp"

namespace baton::dynamic::wire {

// Monotonic nanoseconds; deadlines are absolute, 0 means none.
uint64_t now_ns();
uint64_t deadline_after(double seconds);
// Seconds from the info key "timeout" when present (errc::info_value if it is not a number),
// else from the environment variable `env`, else `fallback`; 0 means no limit.
[[nodiscard]] errc timeout_of(const info* in, const char* env, double fallback, double* seconds);

// Waits until fd is readable (or closed), driving MPI progress meanwhile. errc::pending when
// the deadline passes first.
[[nodiscard]] errc wait_readable(int fd, uint64_t deadline);
// One frame: a 32-bit length, then that many bytes (at most 16 MiB).
[[nodiscard]] errc send_frame(int fd, const std::string& bytes);
[[nodiscard]] errc recv_frame(int fd, uint64_t deadline, std::string* out);

// This host's IPv4 addresses for a port name: the others first, loopback last.
std::vector<std::string> local_addresses();
// A TCP listening socket on every address, port chosen by the kernel.
[[nodiscard]] errc listen_any(int* fd, uint16_t* port);
// Connects to the first of `hosts` that answers on `port`; errc::port when none does.
[[nodiscard]] errc dial(const std::vector<std::string>& hosts, uint16_t port, uint64_t deadline, int* fd);

// A process as a connection describes it: identity and UCX worker address.
struct member {
  core::proc_id id;
  std::string addr;
};
void put_member(std::string& out, const member& m);
// Reads one member at *pos; false if the bytes are malformed.
bool get_member(const std::string& in, size_t* pos, member* m);
void put_u64(std::string& out, uint64_t v);
bool get_u64(const std::string& in, size_t* pos, uint64_t* v);

// Registers the processes of another group (indices into *out, in the same order) and their
// UCX addresses.
[[nodiscard]] errc register_members(const std::vector<member>& ms, std::vector<int>* out);
// This process as a member (makes the UCX worker on first use).
[[nodiscard]] errc self_member(member* m);

// A random 64-bit value (the kernel's generator).
uint64_t random64();

// Internal collectives on c's collective context with `tag` (every member calls them alike):
// every member's bytes to root (in rank order there; sizes may differ), root's bytes to everyone.
[[nodiscard]] errc gather_bytes(comm* c, int root, int tag, const std::string& mine, std::vector<std::string>* all);
[[nodiscard]] errc bcast_bytes(comm* c, int root, int tag, std::string* buf);

// What a root learned in its handshake with the other side's root.
struct handshake_result {
  uint64_t nonce = 0;   // seeds the bridge agreement's tag and key (both roots know it)
  std::string remote;   // the other group: a 64-bit count, then put_member records in rank order
  int sock = -1;        // the connection to the other root (kept and watched if another launch)
};
// The root's part: given this group's description (same format as `remote`), meets the other
// side. Its error goes to every member.
using handshake_fn = std::function<errc(const std::string& local_group, handshake_result* out)>;
// The collective part of accept, connect and spawn (collective over the intracommunicator c):
// gathers the group's description to root, runs root's handshake, broadcasts its outcome,
// registers the other group and builds the intercommunicator (error handler and session of c).
[[nodiscard]] errc join_groups(comm* c, int root, const handshake_fn& handshake, comm** out);
// The accepting root's handshake: waits until the deadline for a connection on `port` (one of
// this process's open ports) and answers it.
[[nodiscard]] errc accept_handshake(const std::string& port, uint64_t deadline, const std::string& group,
                                    handshake_result* hr);

// Connections kept to the root of another launch (dynamic_port.cpp): watched for the other side
// ending without its goodbye. The socket is taken over.
void watch(int fd, uint64_t job);

}  // namespace baton::dynamic::wire
