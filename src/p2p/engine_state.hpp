// Internal state of the point-to-point engine, shared by its source files (engine.cpp, bsend.cpp).
#pragma once

#include <deque>
#include <vector>

#include "p2p/match.hpp"
#include "p2p/p2p.hpp"
#include "transport/shm/shm_segment.hpp"

namespace baton::p2p {

enum pkt_type : uint8_t {
  pkt_eager = 1,
  pkt_cont = 2,
  pkt_rts = 3,
  pkt_cts = 4,
  pkt_sync_ack = 5,
  pkt_fin = 6,
  pkt_copy_job = 7,  // receiver -> sender: copy with me (aux: receive buffer | job slot << 58)
  // MPI_Cancel of a send: sender -> receiver, withdraw the message of this send (cookie: the send
  // request, aux: context | tag << 32); receiver -> sender, the answer (aux: 1 withdrawn, 0
  // already matched: the send completes normally).
  pkt_cancel_req = 8,
  pkt_cancel_ans = 9,
};
enum pkt_flag : uint8_t { flag_sync = 1, flag_cma = 2 };

// request::proto bits for sends
enum : uint32_t {
  proto_data_out = 1,  // every byte has left the user buffer
  proto_acked = 2,     // the receiver matched (synchronous mode) or no acknowledgement is needed
  proto_rndv = 4,      // rendezvous protocol
  proto_posted = 8,    // receive: in a posted queue
  proto_bsend_internal = 16,  // send from the attached buffer on behalf of MPI_Bsend
  proto_cancel_wait = 32,  // MPI_Cancel asked the receiver to withdraw it: no completion before the answer
};

// A pending emission towards one peer, kept in order.
struct out_item {
  uint8_t type;        // pkt_eager (data send, continues across slots) / pkt_rts / control types
  uint64_t cookie;
  uint64_t aux;
  request* req;        // data sends
};

// A FIFO over a growable circular buffer: once it has grown to the deepest backlog seen, pushes
// and pops allocate nothing (std::deque allocates a block every few dozen pushes of a churning
// queue).
template <class T>
class fifo {
 public:
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  T& front() { return buf_[head_]; }
  void push_back(const T& x) {
    if (n_ == buf_.size()) grow();
    buf_[(head_ + n_) % buf_.size()] = x;
    ++n_;
  }
  void pop_front() {
    head_ = (head_ + 1) % buf_.size();
    --n_;
  }

 private:
  void grow() {
    std::vector<T> b(buf_.empty() ? 64 : buf_.size() * 2);
    for (size_t i = 0; i < n_; ++i) b[i] = buf_[(head_ + i) % buf_.size()];
    buf_.swap(b);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0, n_ = 0;
};

struct peer_state {
  uint32_t local = 0;  // index on this host
  uint32_t tx = 0, rx = 0, tx_chunk = 0, rx_chunk = 0;
  fifo<out_item> outq;
  fifo<request*> bulkq;
  // An eager message arriving across several slots.
  request* rx_req = nullptr;
  unexpected* rx_uq = nullptr;
  uint64_t rx_len = 0, rx_off = 0;
  uint32_t bulk_in = 0;  // receives expecting bulk chunks from this peer
  uint32_t rndv_out = 0;  // rendezvous sends towards this peer not yet complete
  // Incoming ring slots left full on purpose (bit i: slot i), holding a matched message that
  // arrived before its receive was started (matched.cpp: copied once, at the start, instead of
  // twice). The consumer moves past them; when it comes round to one, it copies it out first.
  uint64_t parked = 0;
};

// Slot i of p's incoming ring is parked (slots past the mask's 64 bits never are).
inline bool slot_parked(const peer_state& p, uint32_t i) { return p.parked && i < 64 && (p.parked >> i & 1); }

struct engine {
  transport::shm::segment seg;
  bool shm = false;
  uint32_t me_local = 0;
  std::vector<peer_state> peers;        // by local index
  std::vector<match_ctx*> ctxs;         // by context id
  std::vector<uint32_t> active_peers;   // local peers with pending output
  uint64_t eager_max = 32768;
  uint64_t cma_min = 1 << 20;
  bool cma_ok = true;
  bool cma_proven = false;     // a process_vm_readv from a peer succeeded here
  uint64_t coop_min = 256 << 10;  // copy jobs (both ends copy) from this size (BATON_SHM_COOP_MIN, 0: off)
  bool coop_write_ok = true;   // process_vm_writev into peers works (else this end leaves jobs to them)
  int my_world = 0;
  uint64_t pending_sends = 0;  // sends started and not yet complete (MPI_Finalize waits for them)
};

engine& eng();
// The matching context with id ctx, made on first use (ctx_of_slow grows the table).
match_ctx& ctx_of_slow(uint32_t ctx);
inline match_ctx& ctx_of(uint32_t ctx) {
  auto& v = eng().ctxs;
  if (ctx < v.size() && v[ctx]) [[likely]]
    return *v[ctx];
  return ctx_of_slow(ctx);
}
void finish_send_if_done(request* r);
// MPI_Cancel of a send not yet retired (engine lock held): withdraws its message if no receive
// matched it yet. The request completes (again, for a complete eager send) when the outcome is
// known (status.cancelled set if withdrawn). False: nothing to do (it stays as it is).
bool cancel_send_locked(request* r);
// The receiving side of a cancel: removes the newest unexpected message of context ctx from
// world rank peer_world with this tag and sender's request `cookie`; false if none is queued
// (already matched). Frees its payload (a UCX rendezvous descriptor is left to the caller
// through *remote_desc and its length through *remote_len, else nullptr).
bool withdraw_unexpected(uint32_t ctx, int peer_world, int tag, uint64_t cookie, void** remote_desc,
                         uint64_t* remote_len);
// The sender's side of an answer to a cancel request: withdrawn (cancelled) or already matched.
void cancel_answer(request* r, bool cancelled);
// A buffered send's internal request completed while linked (ext) to the user's request of an
// MPI_Ibsend / MPI_Bsend_init (bsend.cpp). If MPI_Cancel reopened the user request, it completes
// with the outcome and the link goes (false: delete the internal request). Else the internal
// request is kept, complete, while the user request lives (true): its message may still wait in
// the receiver's queue, and MPI_Cancel can still ask for it by this request's address.
bool bsend_internal_done(request* internal);
// Lets go of a request nobody will retire (its communicator and datatype references, then it).
void release_request(request* r);
void complete_request(request* r);
// Returns a block of the attached buffer once its buffered send has left it (bsend.cpp).
void bsend_release(void* block);
// Starts a send/receive whose request fields are set (engine lock held).
void start_send(request* r);
void start_recv(request* r);
// A new point-to-point request on c that holds references on c and dt (not started).
request* make_p2p(core::req_kind kind, const void* buf, int64_t count, const datatype* dt, int peer, int tag,
                  comm* c);
// A receive matched an unexpected message (removed from its queue): deliver it, free the entry.
void deliver_unexpected(request* r, unexpected* u);
// Emits a control packet (pkt_sync_ack, pkt_cancel_req, ...) towards world rank peer_world.
void send_ctrl(int peer_world, uint8_t type, uint64_t cookie, uint64_t aux);

// Payload buffers of unexpected eager messages, pooled by power-of-two size class: every
// transport allocates with uq_buf_alloc(len) and the engine frees with uq_buf_free(b, len).
char* uq_buf_alloc(uint64_t len);
void uq_buf_free(char* b, uint64_t len);

// Byte movers and receive status shared with the transports (engine.cpp).
void copy_in(request* r, uint64_t off, const void* data, size_t len);
void copy_out(const request* r, uint64_t off, void* out, size_t len);
void set_recv_status(request* r, int src, int tag, uint64_t msg_len);

// Ranks on other hosts (or every rank with BATON_TRANSPORT=ucx): the UCX transport
// (src/transport/ucx/). The engine dispatches per peer: a world rank whose local index is -1 goes
// here. Without UCX in the build these are never reached (the runtime refuses such jobs).
namespace remote {
[[nodiscard]] errc init();   // creates the worker, publishes its address (the engine's barrier follows)
void finalize();             // flushes, closes every endpoint, destroys the worker
void start_send(request* r); // r->peer_world, r->total set; counted in pending_sends
void send_ctrl(int peer_world, uint8_t type, uint64_t cookie);  // pkt_sync_ack only
void cancel_send(request* r);  // asks the receiver to withdraw r's message (proto_cancel_wait set)
void recv_rndv(request* r, unexpected* u);  // a receive matched a remote rendezvous message
}  // namespace remote

// ---- matched traffic (matched.cpp): MPI_Match'ed persistent requests ----
// Packet types from pkt_matched_first on carry traffic of matched requests: routed by a channel
// id (header `cookie`), never through the matching queues. The engine hands such packets to
// matched_packet() and such emissions (out_item with req set) to matched_emit().
constexpr uint8_t pkt_matched_first = 16;
void matched_packet(peer_state& p, transport::shm::pkt_header* h);
// The consumer reached parked slot `idx` of p's ring again: copy its message out, free the slot.
void matched_unpark(peer_state& p, uint32_t idx);
bool matched_emit(peer_state& p, const out_item& it);
// Engine pieces matched.cpp builds on (engine lock held).
transport::shm::pkt_header* slot_reserve(peer_state& p);
void slot_commit(peer_state& p, transport::shm::pkt_header* h);
void peer_doorbell(uint32_t local);
void emission_enqueue(peer_state& p, const out_item& it);
peer_state& peer_of_world(int world_rank);

}  // namespace baton::p2p
