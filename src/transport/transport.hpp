// The transport seam: what a transport offers the point-to-point layer above it, and what it
// calls back into matching.
//
// A transport moves messages between processes: `self` (to oneself, src/transport/self/), `shm`
// (processes of this host: rings, bulk channels and single copy in one shared segment,
// src/transport/shm/), `ucx` (processes on other hosts: UCP active messages, src/transport/ucx/).
// The layer above (src/p2p: matching, send modes, completion) never names a transport to choose a
// protocol: it reads the peer's *route* (which transport, and the peer's index there) and that
// transport's *capabilities* (eager limit, inject limit, ...), picks eager or rendezvous, and
// calls the transport's operation through transport/dispatch.hpp, an inline switch on the
// route's kind. There is no virtual or indirect call per message (an 8-byte message takes about
// 0.18 us; a mispredicted indirect call would be a visible share of it): the shape of UCX's uct
// (operations plus capability flags) and MPICH ch4's netmod/shm split, with LCI's public
// non-virtual calls over hooks.
//
// Operations (a transport provides them as static members of a struct `ops` in its namespace;
// `transport_ops` below checks the set, dispatch.hpp calls them):
//   init() / finalize()           bring the transport up at start-up (after the routes are
//                                 known) / down after p2p::flush; init registers the
//                                 transport's poller with core progress (progress/poll) and,
//                                 where it has one, its sleep hook (core::progress_set_sleep_hook:
//                                 called before a waiting thread sleeps on its doorbell)
//   send_eager(r, index)          start an eager send of request r (r->total, r->peer_world set):
//                                 the data travel with the envelope; r completes through up::sent
//   send_rndv(r, index)           start a rendezvous send: the envelope goes now, the data when
//                                 the receiver fetches them (rndv_fetch at its end)
//   inject(index, env, buf, count, dt)  an eager message of at most caps.inject_max bytes sent
//                                 within the call (blocking sends with no request, nonblocking
//                                 ones whose request is complete at once: env.cookie names it);
//                                 false: not now (the caller calls send_eager)
//   ack_match(index, cookie)      control message: the receiver matched the synchronous eager
//                                 message `cookie` (sender's request), whose sender waits for it
//   cancel_send(r, index)         control message: ask the receiver to withdraw r's message; the
//                                 answer arrives as up::cancel_answered
//   rndv_fetch(r, index, cookie, ref)  a matched receive r fetches a rendezvous message (ref: what
//                                 the transport left with matching); r completes via up::received
//   rndv_drop(index, len, ref)    a rendezvous message withdrawn by its sender's MPI_Cancel: let
//                                 go of what the transport holds for it
//   quiet()                       nothing waits in the transport's output queues (MPI_Finalize
//                                 waits for it: control messages a peer needs included)
//
// Upcalls (namespace up, implemented by matching in src/p2p, called by transports with the engine
// lock held): deliver an arrived eager message or rendezvous envelope (matching allocates the
// buffer of an unexpected one), complete a receive, advance a send (data out, acknowledged),
// withdraw a message for a cancel request and report a cancel's answer. They are plain calls
// (link-time optimization may inline them into the transports' pollers).
//
// Peers are named by a process index `proc` (int32): today the world rank, each with one route.
// Processes that join later (spawned or connected jobs) would get routes past the world's ranks
// (add_route), and the envelope, the routes and every operation already carry such an index.
#pragma once

#include <concepts>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/request.hpp"

namespace baton::core {
class datatype;
}  // namespace baton::core

namespace baton::transport {

using core::errc;
using core::request;

enum class kind : uint8_t { self = 0, shm = 1, ucx = 2 };
constexpr int kind_count = 3;

// How to reach one process: the transport, and the peer's index in it (shm: its index on this
// host; ucx: its process index; self: 0).
struct route {
  kind via = kind::ucx;
  uint32_t index = 0;
};

// What a transport can do; the p2p layer picks protocols from these.
struct caps {
  uint64_t eager_max = 0;   // largest message sent eagerly (data with the envelope); larger: rendezvous
  uint64_t inject_max = 0;  // largest message inject() takes (0: none)
  bool eager_sync = false;  // an eager message can ask for ack_match (else synchronous sends go rendezvous)
  bool single_copy = false; // rendezvous data are copied once, from the sender's buffer to the receiver's
  bool loopback = false;    // messages never leave this process: an unmatched one waits in matching's
                            // queue (a rendezvous one with its sending request), so matching withdraws
                            // it itself on cancel
};

namespace detail {
inline std::vector<route> routes;  // by process index
inline caps kind_caps[kind_count];
}  // namespace detail

inline route route_of(int proc) { return detail::routes[static_cast<size_t>(proc)]; }
inline const caps& caps_of(kind k) { return detail::kind_caps[static_cast<int>(k)]; }
// Gives process `proc` its route (the table grows as needed). init() routes the world's ranks.
void add_route(int proc, route r);

// The protocols' size limits: the ones init took (kept after finalize), or before init the ones
// it would take from the environment now. Any thread.
struct limits {
  uint64_t shm_eager_max = 0;  // BATON_SHM_EAGER_MAX: largest eager message between same-host ranks
  uint64_t shm_cma_min = 0;    // BATON_SHM_CMA_MIN: smallest rendezvous message read with process_vm_readv
  uint64_t shm_coop_min = 0;   // BATON_SHM_COOP_MIN: smallest message copied by both ends (0: never)
  uint64_t ucx_eager_max = 0;  // BATON_UCX_EAGER_MAX: largest eager message through UCX
};
limits limits_now();

// Brings up every transport this process needs (routes from core::rt()'s host maps) / takes them
// down. Called by the p2p engine's start-up and shutdown.
[[nodiscard]] errc init();
void finalize();
// Every transport's quiet() (nothing waits to leave).
bool quiet();

// What matching needs to know of an arriving message.
struct envelope {
  uint32_t ctx = 0;     // matching context
  int32_t src = 0;      // sender's rank in the communicator
  int32_t tag = 0;
  int32_t proc = -1;    // sender's process index (acknowledgements and cancel answers go there)
  uint64_t len = 0;     // message bytes
  uint64_t cookie = 0;  // sender's request: named again in ack_match and cancel requests
  bool sync = false;    // the sender waits for ack_match (eager) or for the data to be fetched
};

// What a transport leaves with matching for a rendezvous message whose data are still at the
// sender; handed back to that transport's rndv_fetch / rndv_drop.
struct rndv_ref {
  kind via = kind::self;
  uint8_t flags = 0;  // the transport's own (shm: the sender's buffer is readable single-copy)
  uint64_t addr = 0;  // the transport's own (shm: the sender's buffer; ucx: the UCP descriptor;
                      // self: the sending request)
};

// Matching's record of a message no receive has matched yet (p2p's `unexpected` derives from it);
// opaque here.
struct queued {};

// Where the rest of an eager message that arrives in pieces goes (up::eager_first): a matched
// receive (copy with core::copy_in at the piece's offset) or, unmatched, the buffer matching
// allocated for it.
struct inbound {
  request* req = nullptr;
  queued* entry = nullptr;
  char* data = nullptr;
};

// Bits of request::proto a transport sets on sends (through up::sent). p2p keeps its own bits
// above these.
enum : uint32_t {
  sent_data_out = 1,  // every byte has left the user buffer
  sent_acked = 2,     // the receiver matched (synchronous mode), or no acknowledgement is needed
  sent_rndv = 4,      // rendezvous protocol
};

// ---- upcalls: implemented by matching (src/p2p), called by transports (engine lock held) ----
namespace up {
// A whole eager message arrived (e.len bytes at data): matches it against the posted receives
// (copying it into the receive, answering a synchronous sender through ack_match) or queues it
// as an unexpected message in a buffer matching allocates.
void eager(const envelope& e, const void* data);
// The first piece (n < e.len bytes) of an eager message arrived: the same, but the message stays
// open; the transport puts the rest where the result says, then calls eager_end.
inbound eager_first(const envelope& e, const void* data, uint64_t n);
// Every byte of a message that eager_first() left open is in: completes the receive, or queues
// the unexpected entry (matching it against a receive posted meanwhile).
void eager_end(const inbound& in);
// A rendezvous envelope arrived: matches it (and calls the transport's rndv_fetch) or queues it.
void rndv(const envelope& e, const rndv_ref& ref);
// A receive has every byte of its message (status and length were set at the match).
void received(request* r);
// A send made progress: bits (sent_data_out, sent_acked) join r->proto; it completes once both
// are there (and no cancel answer is awaited).
void sent(request* s, uint32_t bits);
// A cancel request for the send `cookie` from process proc: removes its message (context ctx,
// tag) from the unexpected queue if no receive matched it yet. True: withdrawn.
bool withdraw(uint32_t ctx, int proc, int tag, uint64_t cookie);
// The answer to cancel_send(s) arrived (withdrawn or already matched). The transport first sets
// the sent_* bits a withdrawn message will never bring.
void cancel_answered(request* s, bool withdrawn);
}  // namespace up

// The operations every transport provides (see the top of this file).
template <class T>
concept transport_ops = requires(request* r, uint32_t index, uint64_t u, const envelope& e, const rndv_ref& ref,
                                 const void* buf, int64_t count, const core::datatype* dt) {
  { T::init() } -> std::same_as<errc>;
  { T::finalize() } -> std::same_as<void>;
  { T::send_eager(r, index) } -> std::same_as<void>;
  { T::send_rndv(r, index) } -> std::same_as<void>;
  { T::inject(index, e, buf, count, dt) } -> std::same_as<bool>;
  { T::ack_match(index, u) } -> std::same_as<void>;
  { T::cancel_send(r, index) } -> std::same_as<void>;
  { T::rndv_fetch(r, index, u, ref) } -> std::same_as<void>;
  { T::rndv_drop(index, u, ref) } -> std::same_as<void>;
  { T::quiet() } -> std::same_as<bool>;
};

}  // namespace baton::transport
