// Point-to-point engine: matching, the four send modes, completion.
//
// One matching engine serves every transport (src/transport/transport.hpp). A message is matched
// by (context, source, tag) in the order it arrived from its source; posted receives are matched
// in the order they were posted (non-overtaking). The protocol comes from the peer's transport's
// capabilities: eager up to its eager limit (the data travel with the envelope), rendezvous past
// it (the envelope first; after the match the receiver fetches the data through the transport).
// Messages to oneself go through the self transport, which never leaves the process.
//
// All calls here expect the engine lock held (engine_guard) when threads are in use; waiting calls
// release it while they sleep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/request.hpp"
#include "transport/transport.hpp"

namespace baton::core {
class comm;
class datatype;
struct runtime_hook;
}  // namespace baton::core

namespace baton::p2p {

using core::comm;
using core::datatype;
using core::errc;
using core::request;

constexpr int any_source = -1;
constexpr int any_tag = -2;
constexpr int proc_null = -3;

// A message removed from the unexpected queue by a matched probe (MPI_Message).
struct message;
constexpr uint32_t message_magic = 0x4d534731;

[[nodiscard]] errc engine_init();
void engine_finalize();
// The layer's start-up and shutdown (core/runtime.hpp; p2p_runtime.cpp): engine_init, then flush
// as the shutdown begins and engine_finalize at its end.
extern const core::runtime_hook runtime_hook;

// ---- introspection (the MPI_T variables, src/abi/abi_tool_vars.cpp); callable from any thread ----
// The protocols' size limits in bytes: the ones MPI_Init took (kept after MPI_Finalize), or before
// MPI_Init the ones it would take from the environment now.
using engine_limits = transport::limits;  // the transports' limits (transport.hpp)
engine_limits engine_limits_now();
// Matching queue lengths summed over every context, and sends not yet complete; zeros while no
// engine runs. Takes the engine lock (which only exists when threads are in use).
struct engine_queues {
  uint64_t unexpected = 0;
  uint64_t posted = 0;
  uint64_t pending_sends = 0;
  uint64_t fetches_handed_over = 0;  // ever: see engine::handed_over (engine_state.hpp)
};
engine_queues engine_queues_now();

// Nonblocking operations. The request is returned active; count/type/ranks are already checked.
[[nodiscard]] errc isend(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c,
                         core::send_mode mode, request** out);
[[nodiscard]] errc irecv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c,
                         request** out);

// Blocking fast paths (no request object in the common case).
[[nodiscard]] errc send(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c,
                        core::send_mode mode);
[[nodiscard]] errc recv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c,
                        core::req_status* st);

// Persistent requests: created inactive; start() activates.
[[nodiscard]] errc send_init(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c,
                             core::send_mode mode, request** out);
[[nodiscard]] errc recv_init(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c,
                             request** out);
[[nodiscard]] errc start(request* r);

// Probes. *flag tells whether a message matched; st gets its envelope.
[[nodiscard]] errc iprobe(int source, int tag, comm* c, bool* flag, core::req_status* st);
[[nodiscard]] errc probe(int source, int tag, comm* c, core::req_status* st);
// Matched probes: *msg is the message (nullptr with *flag false when none); proc_null gives the
// "no proc" message (is_no_proc()).
[[nodiscard]] errc improbe(int source, int tag, comm* c, bool* flag, message** msg, core::req_status* st);
[[nodiscard]] errc mprobe(int source, int tag, comm* c, message** msg, core::req_status* st);
[[nodiscard]] errc imrecv(void* buf, int64_t count, const datatype* dt, message* msg, request** out);
message* message_no_proc();
bool message_valid(const message* m);

// MPI_Cancel: cancels an unmatched receive, or withdraws a pending send's message if no receive
// matched it yet (then status.cancelled; else the send completes normally). A send to another
// rank learns the outcome from the receiver's engine: the request completes once it answers.
[[nodiscard]] errc cancel(request* r);

// Buffered mode (MPI-4.1 3.6, src/p2p/bsend.cpp). A buffer is attached to a slot: the process's
// (process_buffer_slot(), MPI_Buffer_attach), a session's (core::session_link::bsend) or a
// communicator's (core::comm::bsend); a buffered send on c uses c's buffer, else its session's,
// else the process's. `automatic` (MPI_BUFFER_AUTOMATIC) makes a buffer the library allocates as
// needed (buf and size ignored). Attaching to an occupied slot is errc::buffer, a negative size
// errc::arg. Detach (errc::buffer if the slot is empty) empties the slot at once, waits until the
// buffer's messages have left it and gives back its address, size and kind.
struct bsend_buffer;
bsend_buffer** process_buffer_slot();
[[nodiscard]] errc buffer_attach(bsend_buffer** slot, void* buf, int64_t size, bool automatic);
[[nodiscard]] errc buffer_detach(bsend_buffer** slot, void** buf, int64_t* size, bool* automatic);
// Flush: waits until every message buffered in the slot's buffer before the call has left it
// (success at once if none is attached). Iflush: the same as a request (kind send, on `c`, which it
// retains) that completes then.
[[nodiscard]] errc buffer_flush(bsend_buffer** slot);
[[nodiscard]] errc buffer_iflush(bsend_buffer** slot, comm* c, request** out);
// Deletes a communicator's buffer when the communicator is destroyed (implicit detach; nothing is
// left in it then, since its buffered sends hold references on the communicator).
void bsend_buffer_destroy(bsend_buffer* b);

// One pass over every transport and queue. Returns true if anything happened.
bool poll();

// Waits (spin, then yield, then sleep) until r completes.
[[nodiscard]] errc wait(request* r);

}  // namespace baton::p2p

namespace baton::p2p {
// Buffered send: copies into the attached buffer and returns; errc::buffer if it does not fit.
// `user` (MPI_Ibsend, a started MPI_Bsend_init; complete, with the ops below) is linked to the
// internal send, so that MPI_Cancel on it can withdraw the message.
[[nodiscard]] errc bsend_start(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c,
                               request* user = nullptr);
// The hooks of such a user request: on_cancel reopens it (not complete) and cancels the internal
// send if it is still pending; the user request completes with the internal one's outcome
// (status.cancelled). on_destroy unlinks it.
errc bsend_user_cancel(request* user);
void bsend_user_destroy(request* user);
extern const core::request_ops ibsend_user_ops;
}  // namespace baton::p2p

namespace baton::p2p {
// Drives progress until every queued emission (acknowledgements, buffered sends) has left.
void flush();
}  // namespace baton::p2p

namespace baton::p2p {
// For the collective engine (engine lock held): starts a send or receive on matching context `ctx`
// that takes no references and, when it completes, calls on_complete(r) instead of waiting for a
// completion call; the callee then owns r (request_delete it). r->ext = owner, r->step = step.
request* start_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                        uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step);
// The same in two halves, for a request started many times (persistent collectives): prepare
// builds it once with every argument fixed; start_prepared starts it again (it must be complete
// or never started), allocating nothing: a prepared receive also pins its matching buckets. on_complete
// must not delete it; release_prepared() it when done with it (not while it runs).
request* prepare_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                          uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step);
void start_prepared(request* r);
void release_prepared(request* r);
}  // namespace baton::p2p

namespace baton::p2p {
// MPI_Sendrecv / MPI_Sendrecv_replace (sendrecv.cpp): the receive and the send start together and
// both complete before the call returns; st gets the receive's status. The result is the
// receive's error, else the send's. Arguments are checked.
[[nodiscard]] errc sendrecv(const void* sendbuf, int64_t scount, const datatype* stype, int dest, int stag,
                            void* recvbuf, int64_t rcount, const datatype* rtype, int source, int rtag, comm* c,
                            core::req_status* st);
[[nodiscard]] errc sendrecv_replace(void* buf, int64_t count, const datatype* type, int dest, int stag, int source,
                                    int rtag, comm* c, core::req_status* st);
// MPI_Isendrecv (replace = false) and MPI_Isendrecv_replace (replace = true: the outgoing data is
// packed at the call, then the buffer receives). The request completes when both parts have; its
// status is the receive's.
[[nodiscard]] errc isendrecv(const void* sendbuf, int64_t scount, const datatype* stype, int dest, int stag,
                             void* recvbuf, int64_t rcount, const datatype* rtype, int source, int rtag, comm* c,
                             bool replace, request** out);
}  // namespace baton::p2p

namespace baton::p2p {
// For the collectives' mismatch check (src/coll/mismatch.cpp; engine lock held, only after a
// wait has stalled): the messages waiting unmatched on matching context ctx, in arrival order,
// with an eager one's data (valid until the queue changes; nullptr for a rendezvous message).
struct waiting_message {
  int src = 0;
  int tag = 0;
  uint64_t len = 0;
  const void* data = nullptr;
};
std::vector<waiting_message> unexpected_on(uint32_t ctx);
}  // namespace baton::p2p

namespace baton::p2p {
// For the shared-memory collectives: after publishing a flag in shared memory, rings the doorbell
// of each listed rank of this host (indices on the host) that sleeps waiting for progress.
void wake_local_ranks(const uint32_t* locals, int n);
}  // namespace baton::p2p
