// Queued communication (draft chapter 13): matching and queues of enqueued starts and waits.
//
// Matching (match.cpp). match_requests() matches an array of inactive persistent requests and
// returns one nonpersistent request that completes when all of them are matched (MPI_Imatchall;
// MPI_Match/MPI_Matchall/MPI_Imatch are forms of it). Each request kind brings its own match
// protocol: point-to-point pairs a send with a receive (p2p/matched.hpp). A matched request keeps
// request_ops whose on_start begins its operation, so a queue starts every kind the same way.
//
// Queues (queue.cpp). A queue is an ordered list of operations: start(r), wait(r, status) and, for
// the thread type, host(fn, arg). The rules of section 13.4 are one rule here: operations execute
// strictly in order, a start executes at once when it reaches the head, a wait leaves the head only
// when its request is complete. Who executes depends on the type:
//
// - default: whoever drives progress. An enqueue executes what it can at once (a start on an idle
//   queue is MPI_Start), the rest is advanced by a progress poller (so during any blocking or test
//   call, the progress thread, and MPI_Queue_fence, which waits until the queue is empty);
// - thread (MPIX_QUEUE_TYPE_THREAD): a host executor thread owned by the queue runs the list as a
//   serial task stream; host functions run there in order with the starts and waits; the engine
//   lock is switched on for good when the first such queue is created;
// - cuda (MPIX_QUEUE_TYPE_CUDA, queue_cuda.cpp): the CUDA stream triggers starts and waits for
//   completions through stream memory operations on host-mapped counters; a progress poller (and
//   the progress thread, started for it) does the MPI side.
//
// Request bookkeeping lives in core::request (queue, q_starts, q_waits, q_done). Errors of a
// start or of a completed operation found while the queue runs are kept on the queue and reported
// (once) by the next enqueue call or fence. All functions take the engine lock themselves.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/request.hpp"

namespace baton::core {
class comm;
}

namespace baton::queue {

using core::errc;
using core::request;

// ---- matching (match.cpp) ----

// Whether r may be matched (inactive persistent point-to-point or collective request, not matched
// or being matched); errc::request with a message if not. No side effects.
[[nodiscard]] errc check_matchable(const request* r);
// Starts matching rs[0..n) (checked first, all of them: a bad one matches none) and returns the
// match request in *out (kind match, nonpersistent, refuses MPI_Cancel). `c` is the communicator
// the request reports errors to (the first request's).
// At MPI_Match: a point-to-point request whose buffer is CUDA device memory gets a pinned host
// staging buffer (request::device_stage, queue_cuda.cpp); errc::buffer for a non-contiguous one.
[[nodiscard]] errc cuda_stage(request* r);
[[nodiscard]] errc match_requests(request* const* rs, int n, core::comm* c, request** out);

// ---- queues ----

enum class queue_type : int { standard = 0, thread = 1, cuda = 2 };

constexpr uint32_t queue_magic = 0x51554531;  // "QUE1"

// Writes the status of a completed request into the caller's status object (the ABI's
// MPI_Status; src/abi provides it). set_error: also set its MPI_ERROR field (waitall).
using status_writer = void (*)(const core::req_status& st, void* status, bool set_error);

class queue;

bool queue_valid(const queue* q);
// external: ignored (standard), unused (thread), the cudaStream_t (cuda).
[[nodiscard]] errc queue_create(queue_type t, void* external, queue** out);
// Refused (errc::arg) while operations are enqueued and not completed.
[[nodiscard]] errc queue_destroy(queue* q);
// Enqueue n starts / waits; each request is checked first (a bad one enqueues nothing).
[[nodiscard]] errc enqueue_start(queue* q, request* const* rs, int n);
// statuses: the caller's status objects, `stride` bytes apart (nullptr: ignored).
[[nodiscard]] errc enqueue_wait(queue* q, request* const* rs, void* statuses, size_t stride, int n, status_writer w,
                                bool set_error);
// A host function, in order with the queue's other operations (thread type only).
[[nodiscard]] errc enqueue_host(queue* q, void (*fn)(void*), void* arg);
// Blocks until every enqueued operation completed (driving progress), then reports a kept error.
[[nodiscard]] errc queue_fence(queue* q);
// A request whose enqueued start is pending: the message for a standard call that refuses it.
[[nodiscard]] errc refuse_queued(const request* r);

}  // namespace baton::queue
