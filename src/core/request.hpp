// Requests: one object family for every pending operation (point-to-point now; collective
// schedules, persistent collectives and matches later).
//
// Life cycle. A request is created active (nonblocking call) or inactive (persistent init).
// Completion sets `complete`; a completion call (Wait/Test/...) then "retires" it: a
// nonpersistent request is freed and its handle becomes MPI_REQUEST_NULL, a persistent one becomes
// inactive. MPI_Request_free on an active nonpersistent request only marks it; the engine frees it
// when it completes. Objects come from a pool, so a start or an Isend allocates nothing in the
// steady state.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/error.hpp"
#include "core/slab.hpp"

namespace baton::core {

class comm;
class datatype;

// partitioned: MPI_Psend_init / MPI_Precv_init (src/p2p/partitioned.hpp), driven by request_ops.
enum class req_kind : uint8_t { send, recv, coll, grequest, match, partitioned };
enum class send_mode : uint8_t { standard, buffered, synchronous, ready };

constexpr uint32_t request_magic = 0x52455131;  // "REQ1"

// The part of a status a request carries until it is reported.
struct req_status {
  int source = 0;
  int tag = 0;
  errc error = errc::success;
  bool cancelled = false;
  uint64_t bytes = 0;
};

// Hooks a request kind other than point-to-point provides (collectives, generalized requests).
struct request_ops {
  // Called by MPI_Request_free / MPI_Cancel; return an error to refuse.
  errc (*on_free)(class request*) = nullptr;
  errc (*on_cancel)(class request*) = nullptr;
  // Called when a persistent request is started.
  errc (*on_start)(class request*) = nullptr;
  // Called to release kind-specific state when the request object is destroyed.
  void (*on_destroy)(class request*) = nullptr;
  // Optional: moves the operation on without a full progress poll (waiting on this one request
  // tries it before polling every subsystem); returns true once the request is complete. Engine
  // lock held.
  bool (*on_poll)(class request*) = nullptr;
};

class request : public slab_allocated<request> {
 public:
  uint32_t magic = request_magic;
  req_kind kind = req_kind::send;
  send_mode mode = send_mode::standard;
  bool persistent = false;
  bool active = false;     // persistent requests: started and not yet retired
  bool user_freed = false; // MPI_Request_free called while the operation was pending
  bool matched_ = false;   // receives: matched with a message (no longer cancellable)
  bool shared = false;     // an immutable complete request handed out many times, never deleted
  bool counted = false;    // point-to-point: counted in c->p2p_pending until it completes
  std::atomic<bool> complete{false};
  req_status status;

  // Point-to-point arguments (also the persistent request's saved arguments).
  comm* c = nullptr;
  uint32_t ctx = 0;  // matching context: c->ctx for user traffic, c->ctx + 1 for collectives
  int peer = 0;  // destination (send) or source (recv), rank in c; may be a wildcard
  int tag = 0;
  void* buf = nullptr;
  int64_t count = 0;
  const datatype* dt = nullptr;

  // Protocol state, owned by the p2p engine.
  uint64_t total = 0;       // packed bytes of the message (send) / capacity (recv)
  uint64_t done = 0;        // bytes moved so far
  uint64_t msg_len = 0;     // recv: length announced by the sender
  uint32_t proto = 0;       // engine-specific protocol state bits
  int peer_world = -1;      // world rank of the peer once known
  uint64_t cookie = 0;      // recv: sender's request (rendezvous) / send: receiver's request
  void* bsend_block = nullptr;  // buffered send: block inside the attached buffer
  void* scratch = nullptr;      // engine-owned temporary (e.g. packed copy of a non-contiguous send)
  request* next = nullptr;  // intrusive links: posted queue, outgoing queues
  request* prev = nullptr;
  request* bnext = nullptr;  // links in the posted queue's (source, tag) bucket
  request* bprev = nullptr;

  const request_ops* ops = nullptr;  // non-p2p kinds
  void* ext = nullptr;               // kind-specific state
  // Internal requests (collective schedule steps): called by the engine instead of marking the
  // request complete for a waiter. The callee owns the request from then on.
  void (*on_complete)(request*) = nullptr;
  uint32_t step = 0;                 // schedule step this request carries

  // Queued communication (src/queue/, draft chapter 13). `match` is the kind-specific match state
  // (set by MPI_Match/MPI_Imatch; matched once match_done). `queue` is the queue on which an
  // enqueued start of this request is pending; q_starts / q_waits count the starts and waits
  // enqueued there and q_done the enqueued waits completed (queue cleared when q_done reaches
  // q_starts). While `queue` is set, only MPI_Enqueue_wait on that queue may touch the request.
  void* match = nullptr;
  bool match_done = false;
  void* queue = nullptr;
  uint32_t q_starts = 0, q_waits = 0, q_done = 0;
  // A matched point-to-point request whose buffer is CUDA device memory: the pinned host staging
  // buffer that stands in for it (src/queue/queue_cuda.cpp). Such a request starts only through a
  // CUDA queue, which copies between the two on the stream.
  void* device_stage = nullptr;

  bool is_complete() const { return complete.load(std::memory_order_acquire); }
  void mark_complete() { complete.store(true, std::memory_order_release); }
};

// Pool allocation. request_new() returns a zero-state request; request_delete() returns it.
request* request_new(req_kind kind);
void request_delete(request* r);
// Releases r->device_stage (src/queue/queue_cuda.cpp); called by request_delete.
void device_stage_release(request* r);
// Number of request objects currently allocated (for tests, memory reporting and MPI_T), and
// number created since the process started. Safe to call from any thread.
uint64_t request_live_count();
uint64_t request_created_count();

}  // namespace baton::core
