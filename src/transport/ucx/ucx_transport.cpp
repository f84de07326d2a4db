// The UCX transport (transport.hpp, ucx.hpp): point-to-point traffic with ranks on other hosts
// (and with every rank under BATON_TRANSPORT=ucx), carried by UCP active messages into the one
// matching engine.
//
// Design (docs/architecture.md, "UCX transport"):
// - Every message is one active message (id am_msg) whose header is Baton's envelope (context,
//   source, tag, length, sender's request, sequence number). The AM handler runs inside
//   ucp_worker_progress() (called by this transport's poller with the engine lock held) and hands
//   the envelope to matching (transport::up), the same posted queue as the shared-memory
//   transport's, so MPI_ANY_SOURCE sees local and remote senders alike, in arrival order.
// - Messages up to BATON_UCX_EAGER_MAX (caps eager_max, default 64 KiB) go eagerly: matching
//   copies the payload into the matched buffer or into an unexpected-queue entry. Larger ones go with UCP's
//   AM rendezvous: the handler only sees a descriptor; once a receive matches, ucp_am_recv_data_nbx
//   lands the data straight in the user's buffer (contiguous, no truncation) and the sender's
//   operation completes when the data has been fetched, which is also the match acknowledgement
//   that a synchronous send needs. A synchronous eager send waits for an am_ack message.
// - UCX does not promise that active messages on one endpoint are handed over in send order
//   (several lanes may carry them). Each pair numbers its messages; an early arrival is held until
//   its predecessors have been matched, which keeps MPI's non-overtaking order.
// - Endpoints are created on first use from the worker addresses every rank published through
//   PMI (split into chunks within the PMI value limit).
// - Idle waiting: before a waiting thread sleeps on its doorbell it arms the worker
//   (ucp_worker_arm); a small waker thread blocks in poll() on the worker's event fd and rings the
//   doorbell when UCX has something. Shared-memory peers keep ringing the same doorbell.
// - Teardown: flush the worker, a PMI barrier (every rank has flushed), close every endpoint with
//   a flush, destroy the worker.
// - Other launches (dynamic processes, src/comm/dynamic_*.cpp): processes met through spawn,
//   connect/accept or join have indices past this launch's world (core/procs.hpp) and are always
//   reached here, whatever host they are on (dyn_add_peer gives them a UCX route). The worker is
//   then made on first use (dyn_init) when the launch itself did not need UCX, their addresses
//   come from the connection handshake (dyn_add_peer), not from PMI, and their endpoints report a
//   peer's failure instead of aborting. The envelope names its sender by identity (launch id, rank
//   in that launch); an arrival from a process not registered yet (its connection's handshake is
//   still being broadcast here) waits until it is.
#include "transport/ucx/ucx.hpp"

#ifdef BATON_HAVE_UCX

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/futex.hpp"
#include "core/procs.hpp"
#include "core/progress.hpp"
#include "core/request_bytes.hpp"
#include "core/runtime.hpp"

namespace baton::transport::ucx {

namespace {

enum : uint16_t { am_msg = 17, am_ack = 18, am_cancel_ans = 19 };
// hdr_cancel: not a message but MPI_Cancel of the send `cookie` (ctx, tag: its envelope). It takes
// a sequence number like a message, so it is handled after the message it names.
enum : uint8_t { hdr_sync = 1, hdr_rndv = 2, hdr_cancel = 4 };

// Baton's envelope, the header of every am_msg.
struct envelope_hdr {
  uint32_t ctx;
  int32_t src;       // rank in the communicator
  int32_t tag;
  int32_t src_world; // sender's world rank (the endpoint back)
  uint32_t seq;      // per ordered pair, from 0
  uint8_t flags;
  uint8_t pad[3];
  uint64_t len;      // message bytes
  uint64_t cookie;   // sender's request
  uint64_t src_job;  // sender's launch (core::job_id()); src_world is its rank there
};

// One outgoing operation: UCX reads the header (and a packed copy of non-contiguous data) until
// it completes.
struct send_op {
  envelope_hdr hdr;
  request* r = nullptr;  // nullptr: an acknowledgement
  uint64_t ack_cookie = 0;
  uint64_t answer[2] = {0, 0};  // am_cancel_ans: the send's cookie, 1 withdrawn / 0 matched
  void* packed = nullptr;
};

// An arrival ahead of its sequence number, or one whose handling waits outside the callback.
struct arrival {
  envelope_hdr hdr;
  std::string eager;    // eager payload
  void* desc = nullptr; // rendezvous descriptor
  bool rndv = false;
};

struct peer {
  ucp_ep_h ep = nullptr;
  std::string addr;  // another launch's process: its worker address (dyn_add_peer)
  uint32_t tx_seq = 0;
  uint32_t rx_seq = 0;
  std::map<uint32_t, arrival> early;  // arrivals ahead of rx_seq
};

struct rndv_recv {
  request* r;
  void* tmp;  // staging buffer (non-contiguous or truncating receive), else nullptr
};

struct state {
  ucp_context_h ctx = nullptr;
  ucp_worker_h worker = nullptr;
  int efd = -1;
  std::vector<peer> peers;  // by world rank
  uint64_t pending_ops = 0;  // operations UCX still holds (sends, acknowledgements, rendezvous receives)
  bool moved = false;
  bool in_handler = false;  // inside the message handler: sends and data fetches wait until it returns
  // Work the AM handler may not do itself (start a receive of data, send): run after progress.
  std::vector<std::pair<request*, void*>> rndv_starts;
  std::vector<std::pair<int, uint64_t>> acks;
  // Cancel requests handled: answers to send (world rank, cookie, withdrawn) and withdrawn
  // rendezvous messages whose data is fetched and dropped (the sender's operation then ends).
  struct answer {
    int world;
    uint64_t cookie;
    bool withdrawn;
  };
  std::vector<answer> cancel_answers;
  std::vector<std::pair<void*, uint64_t>> discards;
  // Arrivals from processes of other launches not registered yet (dyn_add_peer replays them).
  std::vector<arrival> unknown;
  bool published = false;  // the worker was made at start-up and its address put through PMI
  // The waker thread.
  std::thread* waker = nullptr;
  int stop_fd = -1;
  std::atomic<uint32_t> armed{0};
  std::atomic<bool> stopping{false};
};

state* g = nullptr;

std::string hex(const void* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string o;
  o.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<const unsigned char*>(p)[i];
    o += d[c >> 4];
    o += d[c & 15];
  }
  return o;
}

std::string unhex(const std::string& s) {
  auto v = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string o(s.size() / 2, '\0');
  for (size_t i = 0; i + 1 < s.size(); i += 2) o[i / 2] = static_cast<char>(v(s[i]) << 4 | v(s[i + 1]));
  return o;
}

errc ucs_fail(const char* what, ucs_status_t st) {
  return core::error_set(errc::intern, "UCX: %s failed: %s", what, ucs_status_string(st));
}

peer& peer_at(int w) {
  if (static_cast<size_t>(w) >= g->peers.size()) g->peers.resize(static_cast<size_t>(w) + 1);
  return g->peers[static_cast<size_t>(w)];
}

// A process of another launch became unreachable (it died, or its launch ended): UCX completes
// the endpoint's operations with an error, which the requests report.
void ep_failed(void*, ucp_ep_h, ucs_status_t) { g->moved = true; }

// The endpoint towards process w (a world rank, or another launch's index), created on first use.
errc endpoint(int w, ucp_ep_h* out) {
  peer& p = peer_at(w);
  if (!p.ep) {
    const bool foreign = core::proc_foreign(w);
    std::string addr;
    if (foreign) {
      if (p.addr.empty())
        return core::error_set(errc::intern, "UCX: no address for process %d of another launch", w);
      addr = p.addr;
    } else {
      std::string v;
      if (errc e = core::rt().pmi.get_long("baton.ucx." + std::to_string(w), v, w); e != errc::success) return e;
      addr = unhex(v);
    }
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t*>(addr.data());
    if (foreign) {
      ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
      ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      ep.err_handler.cb = ep_failed;
      ep.err_handler.arg = nullptr;
    }
    if (ucs_status_t st = ucp_ep_create(g->worker, &ep, &p.ep); st != UCS_OK) {
      p.ep = nullptr;
      return ucs_fail("creating an endpoint", st);
    }
  }
  *out = p.ep;
  return errc::success;
}

void send_op_done(send_op* op, ucs_status_t st) {
  if (request* r = op->r) {
    if (st != UCS_OK && r->status.error == errc::success)
      r->status.error = core::error_set(errc::intern, "UCX: send to world rank %d failed: %s", r->peer_world,
                                        ucs_status_string(st));
    r->done = r->total;
    // A rendezvous send completes once the receiver fetched the data: that is its match.
    up::sent(r, sent_data_out | ((op->hdr.flags & hdr_rndv) ? uint32_t(sent_acked) : 0u));
  }
  std::free(op->packed);
  delete op;
  g->moved = true;
}

void send_cb(void* request, ucs_status_t st, void* user) {
  --g->pending_ops;
  send_op_done(static_cast<send_op*>(user), st);
  ucp_request_free(request);
}

// An operation UCP has taken: done now (done(status)), or later through its callback (counted in
// g->pending_ops until then).
template <class Done>
void posted(ucs_status_ptr_t sp, Done done) {
  if (sp == nullptr) {
    done(UCS_OK);
  } else if (UCS_PTR_IS_ERR(sp)) {
    done(UCS_PTR_STATUS(sp));
  } else {
    ++g->pending_ops;
  }
}

// Posts one active message; completion (now or later) goes to send_op_done.
void post(ucp_ep_h ep, uint16_t id, send_op* op, const void* hdr, size_t hlen, const void* data, size_t len,
          uint32_t flags) {
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  prm.cb.send = send_cb;
  prm.user_data = op;
  prm.flags = flags;
  posted(ucp_am_send_nbx(ep, id, hdr, hlen, data, len, &prm), [op](ucs_status_t st) { send_op_done(op, st); });
}

void fail_send(request* r, errc e) {
  r->status.error = e;
  r->done = r->total;
  up::sent(r, sent_data_out | sent_acked);
}

void send_ack(int world, uint64_t cookie) {
  ucp_ep_h ep;
  if (errc e = endpoint(world, &ep); e != errc::success) return;  // error recorded; the peer is unreachable
  auto* op = new send_op;
  op->ack_cookie = cookie;
  post(ep, am_ack, op, &op->ack_cookie, sizeof op->ack_cookie, nullptr, 0, UCP_AM_SEND_FLAG_EAGER);
}

// ---- receiving ----

void rndv_done(rndv_recv* rv, ucs_status_t st) {
  request* r = rv->r;
  if (!r) {  // a withdrawn message (MPI_Cancel of its send): dropped
    std::free(rv->tmp);
    delete rv;
    g->moved = true;
    return;
  }
  if (st != UCS_OK && r->status.error == errc::success)
    r->status.error = core::error_set(errc::intern, "UCX: receiving a message failed: %s", ucs_status_string(st));
  if (rv->tmp) {
    core::copy_in(r, 0, rv->tmp, r->msg_len);
    std::free(rv->tmp);
  }
  r->done = r->msg_len;
  delete rv;
  g->moved = true;
  up::received(r);
}

void rndv_cb(void* request, ucs_status_t st, size_t, void* user) {
  --g->pending_ops;
  rndv_done(static_cast<rndv_recv*>(user), st);
  ucp_request_free(request);
}

// Receives the rendezvous data behind desc into dst (len bytes); rndv_cb / rndv_done finish rv.
void fetch_into(rndv_recv* rv, void* desc, void* dst, uint64_t len) {
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  prm.cb.recv_am = rndv_cb;
  prm.user_data = rv;
  prm.datatype = ucp_dt_make_contig(1);
  posted(ucp_am_recv_data_nbx(g->worker, desc, dst, len, &prm), [rv](ucs_status_t st) { rndv_done(rv, st); });
}

// Fetches a matched rendezvous message into r (outside the AM handler).
void fetch_matched(request* r, void* desc) {
  auto* rv = new rndv_recv{r, nullptr};
  void* dst;
  if (r->dt->is_contiguous() && r->msg_len <= r->total) {
    dst = static_cast<char*>(r->buf) + r->dt->true_lb();
  } else {
    rv->tmp = std::malloc(r->msg_len ? r->msg_len : 1);
    dst = rv->tmp;
  }
  fetch_into(rv, desc, dst, r->msg_len);
}

// Fetches a withdrawn rendezvous message into a scratch buffer and drops it: the sender's
// operation completes only once its data has been taken.
void rndv_discard(void* desc, uint64_t len) {
  auto* rv = new rndv_recv{nullptr, std::malloc(len ? len : 1)};
  fetch_into(rv, desc, rv->tmp, len);
}

void send_cancel_answer(int world, uint64_t cookie, bool withdrawn) {
  ucp_ep_h ep;
  if (errc e = endpoint(world, &ep); e != errc::success) return;  // error recorded; the peer is unreachable
  auto* op = new send_op;
  op->answer[0] = cookie;
  op->answer[1] = withdrawn ? 1 : 0;
  post(ep, am_cancel_ans, op, op->answer, sizeof op->answer, nullptr, 0, UCP_AM_SEND_FLAG_EAGER);
}

// Hands one in-order arrival to matching. Called inside the AM handler: the sends and data
// fetches matching asks for (ack_match, rndv_fetch, rndv_drop) wait until it returns.
void deliver(const envelope_hdr& h, const void* data, size_t len, void* desc, bool rndv) {
  const envelope e{h.ctx, h.src, h.tag, h.src_world, h.len, h.cookie, (h.flags & hdr_sync) != 0};
  if (h.flags & hdr_cancel) {
    const bool ok = up::withdraw(h.ctx, h.src_world, h.tag, h.cookie);
    g->cancel_answers.push_back({h.src_world, h.cookie, ok});
    return;
  }
  if (rndv) {
    up::rndv(e, rndv_ref{kind::ucx, 0, reinterpret_cast<uint64_t>(desc)});
  } else {
    envelope whole = e;
    whole.len = len;  // the payload UCX handed over (the header's length, unless the header lies)
    up::eager(whole, data);
  }
}

// The sender's index here, -1 while its launch is not registered.
int sender_index(const envelope_hdr& h) {
  if (h.src_job == core::job_id()) return h.src_world < core::rt().world_size ? h.src_world : -1;
  return core::proc_index(h.src_job, h.src_world);
}

// One arrival whose sender h.src_world (an index here) is known: in order, or held until its
// predecessors are in. Returns whether UCX's descriptor was kept (rendezvous).
bool arrive(const envelope_hdr& h, void* data, size_t len, bool rndv) {
  peer& p = peer_at(h.src_world);
  if (h.seq != p.rx_seq) {  // early: hold it until its predecessors are in
    arrival& a = p.early[h.seq];
    a.hdr = h;
    a.rndv = rndv;
    if (rndv) {
      a.desc = data;
      return true;
    }
    a.eager.assign(static_cast<const char*>(data), len);
    return false;
  }
  g->in_handler = true;
  deliver(h, data, len, data, rndv);
  ++p.rx_seq;
  while (!p.early.empty() && p.early.begin()->first == p.rx_seq) {
    arrival& a = p.early.begin()->second;
    deliver(a.hdr, a.eager.data(), a.eager.size(), a.desc, a.rndv);
    p.early.erase(p.early.begin());
    ++p.rx_seq;
  }
  g->in_handler = false;
  return rndv;
}

ucs_status_t on_msg(void*, const void* header, size_t hlen, void* data, size_t len, const ucp_am_recv_param_t* prm) {
  if (hlen != sizeof(envelope_hdr)) return UCS_OK;
  envelope_hdr h;
  std::memcpy(&h, header, sizeof h);
  const bool rndv = prm->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV;
  g->moved = true;
  const int from = sender_index(h);
  if (from < 0) {
    if (h.src_job == core::job_id() || h.src_world < 0) return UCS_OK;  // malformed
    arrival a;  // another launch's process this one has not registered yet
    a.hdr = h;
    a.rndv = rndv;
    if (rndv)
      a.desc = data;
    else
      a.eager.assign(static_cast<const char*>(data), len);
    g->unknown.push_back(std::move(a));
    return rndv ? UCS_INPROGRESS : UCS_OK;
  }
  h.src_world = from;
  return arrive(h, data, len, rndv) ? UCS_INPROGRESS : UCS_OK;
}

ucs_status_t on_ack(void*, const void* header, size_t hlen, void*, size_t, const ucp_am_recv_param_t*) {
  if (hlen != sizeof(uint64_t)) return UCS_OK;
  uint64_t cookie;
  std::memcpy(&cookie, header, sizeof cookie);
  up::sent(reinterpret_cast<request*>(cookie), sent_acked);
  g->moved = true;
  return UCS_OK;
}

ucs_status_t on_cancel_ans(void*, const void* header, size_t hlen, void*, size_t, const ucp_am_recv_param_t*) {
  uint64_t a[2];
  if (hlen != sizeof a) return UCS_OK;
  std::memcpy(a, header, sizeof a);
  auto* r = reinterpret_cast<request*>(a[0]);
  // Withdrawn: no acknowledgement will come; the transport's operation still completes (data_out).
  if (a[1]) r->proto |= sent_acked;
  up::cancel_answered(r, a[1] != 0);
  g->moved = true;
  return UCS_OK;
}

bool ucx_poll() {
  state& s = *g;
  bool moved = ucp_worker_progress(s.worker) != 0;
  while (!s.rndv_starts.empty() || !s.acks.empty() || !s.cancel_answers.empty() || !s.discards.empty()) {
    if (!s.cancel_answers.empty() || !s.discards.empty()) {
      auto answers = std::move(s.cancel_answers);
      s.cancel_answers.clear();
      for (auto& a : answers) send_cancel_answer(a.world, a.cookie, a.withdrawn);
      auto discards = std::move(s.discards);
      s.discards.clear();
      for (auto& [desc, len] : discards) rndv_discard(desc, len);
    }
    auto starts = std::move(s.rndv_starts);
    s.rndv_starts.clear();
    for (auto& [r, desc] : starts) fetch_matched(r, desc);
    auto acks = std::move(s.acks);
    s.acks.clear();
    for (auto& [w, cookie] : acks) send_ack(w, cookie);
  }
  moved |= s.moved;
  s.moved = false;
  return moved;
}

// Called by a thread about to sleep on its doorbell (engine lock not held): arms the worker's
// event fd and lets the waker watch it. False: UCX has events, don't sleep.
bool before_sleep() {
  core::engine_guard lock;
  if (!g) return true;
  ucs_status_t st = ucp_worker_arm(g->worker);
  if (st == UCS_ERR_BUSY) return false;
  if (st != UCS_OK) return true;  // no wakeup support: the doorbell timeout bounds the sleep
  g->armed.store(1, std::memory_order_release);
  core::futex_wake(&g->armed);
  return true;
}

// Rings this process's doorbell whenever the armed worker's event fd fires.
void waker_loop(state* s) {
  pthread_setname_np(pthread_self(), "baton-ucx-wake");
  while (!s->stopping.load(std::memory_order_acquire)) {
    if (s->armed.load(std::memory_order_acquire) == 0) {
      core::futex_wait(&s->armed, 0, 100000000);
      continue;
    }
    struct pollfd fds[2] = {{s->efd, POLLIN, 0}, {s->stop_fd, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0) continue;
    if (fds[1].revents) break;
    if (fds[0].revents) {
      s->armed.store(0, std::memory_order_release);
      core::progress_kick();
    }
  }
}

void wait_ops(double seconds) {
  const uint64_t until = core::progress_now_ns() + static_cast<uint64_t>(seconds * 1e9);
  while (g->pending_ops > 0 && core::progress_now_ns() < until) {
    if (!ucx_poll()) sched_yield();
  }
}

}  // namespace

namespace {
// Makes the context and the worker, registers the handlers, the poller and the waker.
errc make_worker() {
  core::runtime& R = core::rt();
  g = new state;
  state& s = *g;
  s.peers.resize(R.local_of_world.size());

  ucp_config_t* cfg = nullptr;
  if (ucs_status_t st = ucp_config_read(nullptr, nullptr, &cfg); st != UCS_OK) return ucs_fail("reading the configuration", st);
  ucp_params_t prm{};
  prm.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
  prm.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  prm.estimated_num_eps = static_cast<size_t>(R.world_size);
  ucs_status_t st = ucp_init(&prm, cfg, &s.ctx);
  ucp_config_release(cfg);
  if (st != UCS_OK) return ucs_fail("ucp_init", st);

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  // The engine lock serializes every call (the progress thread and MPI_THREAD_MULTIPLE included).
  wp.thread_mode = R.threaded ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE;
  if ((st = ucp_worker_create(s.ctx, &wp, &s.worker)) != UCS_OK) return ucs_fail("creating the worker", st);

  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.id = am_msg;
  hp.cb = on_msg;
  if ((st = ucp_worker_set_am_recv_handler(s.worker, &hp)) != UCS_OK) return ucs_fail("setting the AM handler", st);
  hp.id = am_ack;
  hp.cb = on_ack;
  if ((st = ucp_worker_set_am_recv_handler(s.worker, &hp)) != UCS_OK) return ucs_fail("setting the AM handler", st);
  hp.id = am_cancel_ans;
  hp.cb = on_cancel_ans;
  if ((st = ucp_worker_set_am_recv_handler(s.worker, &hp)) != UCS_OK) return ucs_fail("setting the AM handler", st);

  core::progress_add_poller(ucx_poll);
  if (ucp_worker_get_efd(s.worker, &s.efd) == UCS_OK) {
    s.stop_fd = ::eventfd(0, EFD_CLOEXEC);
    s.waker = new std::thread(waker_loop, &s);
    core::progress_set_sleep_hook(before_sleep);
  }
  return errc::success;
}

errc worker_address(std::string& out) {
  ucp_address_t* addr = nullptr;
  size_t alen = 0;
  if (ucs_status_t st = ucp_worker_get_address(g->worker, &addr, &alen); st != UCS_OK)
    return ucs_fail("getting the worker address", st);
  out.assign(reinterpret_cast<const char*>(addr), alen);
  ucp_worker_release_address(g->worker, addr);
  return errc::success;
}
}  // namespace

errc ops::init() {
  core::runtime& R = core::rt();
  if (errc e = make_worker(); e != errc::success) return e;
  g->published = true;
  std::string addr;
  if (errc e = worker_address(addr); e != errc::success) return e;
  return R.pmi.put_long("baton.ucx." + std::to_string(R.world_rank), hex(addr.data(), addr.size()));
}

errc dyn_init() {
  core::engine_guard lock;
  if (g) return errc::success;
  return make_worker();
}

errc dyn_address(std::string& out) {
  core::engine_guard lock;
  if (!g) return core::error_set(errc::intern, "UCX: no worker yet (dyn_init first)");
  return worker_address(out);
}

void dyn_add_peer(int index, const std::string& address) {
  core::engine_guard lock;
  if (!g) return;
  add_route(index, route{kind::ucx, static_cast<uint32_t>(index)});
  peer& p = peer_at(index);
  if (p.addr.empty()) p.addr = address;
  // Replay what arrived from processes that are known now, in arrival order.
  std::vector<arrival> held;
  held.swap(g->unknown);
  for (arrival& a : held) {
    const int from = sender_index(a.hdr);
    if (from < 0) {
      g->unknown.push_back(std::move(a));
      continue;
    }
    a.hdr.src_world = from;
    if (a.rndv)
      (void)arrive(a.hdr, a.desc, 0, true);
    else
      (void)arrive(a.hdr, a.eager.data(), a.eager.size(), false);
  }
  g->moved = true;
}

namespace {

// A send operation carrying r's envelope (the next sequence number towards its peer).
send_op* envelope_op(request* r, uint8_t flags, uint64_t len) {
  auto* op = new send_op;
  envelope_hdr& h = op->hdr;
  h.ctx = r->ctx;
  h.src = r->c->rank;
  h.tag = r->tag;
  h.src_world = core::rt().world_rank;
  h.src_job = core::job_id();
  h.seq = peer_at(r->peer_world).tx_seq++;
  h.flags = flags;
  h.len = len;
  h.cookie = reinterpret_cast<uint64_t>(r);
  return op;
}

// Starts a send; p2p chose the protocol (rndv: UCP's AM rendezvous) and set sent_acked unless
// the sender waits for the match.
void start_send(request* r, bool rndv) {
  ucp_ep_h ep;
  if (errc e = endpoint(r->peer_world, &ep); e != errc::success) return fail_send(r, e);
  const bool sync = r->mode == core::send_mode::synchronous;
  send_op* op = envelope_op(r, static_cast<uint8_t>((sync ? hdr_sync : 0) | (rndv ? hdr_rndv : 0)), r->total);
  op->r = r;
  const void* data;
  if (r->dt->is_contiguous()) {
    data = static_cast<const char*>(r->buf) + r->dt->true_lb();
  } else {
    op->packed = std::malloc(r->total ? r->total : 1);
    core::copy_out(r, 0, op->packed, r->total);
    data = op->packed;
  }
  post(ep, am_msg, op, &op->hdr, sizeof op->hdr, data, r->total, rndv ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER);
}

}  // namespace

void ops::send_eager(request* r, uint32_t) { start_send(r, false); }
void ops::send_rndv(request* r, uint32_t) { start_send(r, true); }

void ops::ack_match(uint32_t proc, uint64_t cookie) {
  if (g->in_handler)
    g->acks.emplace_back(static_cast<int>(proc), cookie);
  else
    send_ack(static_cast<int>(proc), cookie);
}

void ops::cancel_send(request* r, uint32_t) {
  ucp_ep_h ep;
  if (errc e = endpoint(r->peer_world, &ep); e != errc::success) {
    // The peer is unreachable (the send itself failed the same way): it completes as it is.
    up::cancel_answered(r, false);
    return;
  }
  send_op* op = envelope_op(r, hdr_cancel, 0);  // op->r stays nullptr: nothing to complete when it has left
  post(ep, am_msg, op, &op->hdr, sizeof op->hdr, nullptr, 0, UCP_AM_SEND_FLAG_EAGER);
}

void ops::rndv_fetch(request* r, uint32_t proc, uint64_t, const rndv_ref& ref) {
  r->peer_world = static_cast<int>(proc);
  void* desc = reinterpret_cast<void*>(ref.addr);
  if (g->in_handler)
    g->rndv_starts.emplace_back(r, desc);
  else
    fetch_matched(r, desc);
}

void ops::rndv_drop(uint32_t, uint64_t len, const rndv_ref& ref) {
  void* desc = reinterpret_cast<void*>(ref.addr);
  if (g->in_handler)
    g->discards.emplace_back(desc, len);
  else
    rndv_discard(desc, len);
}

void ops::finalize() {
  if (!g) return;
  state& s = *g;
  core::runtime& R = core::rt();
  // Everything this rank sent has left (p2p::flush); acknowledgements may still be in flight.
  ucx_poll();
  wait_ops(10.0);
  ucp_request_param_t prm{};
  ucs_status_ptr_t fl = ucp_worker_flush_nbx(s.worker, &prm);
  if (UCS_PTR_IS_PTR(fl)) {
    const uint64_t until = core::progress_now_ns() + 10000000000ull;
    while (ucp_request_check_status(fl) == UCS_INPROGRESS && core::progress_now_ns() < until) {
      if (!ucp_worker_progress(s.worker)) sched_yield();
    }
    ucp_request_free(fl);
  }
  // Every rank has flushed before anyone closes: no endpoint is needed after this. (A worker made
  // for other launches only has no launch-wide partner to wait for: their processes end on
  // their own schedule, and an endpoint towards one that is gone closes with an error.)
  if (s.published) (void)R.pmi.barrier();
  core::progress_set_sleep_hook(nullptr);
  if (s.waker) {
    s.stopping.store(true, std::memory_order_release);
    s.armed.store(1, std::memory_order_release);
    core::futex_wake(&s.armed);
    uint64_t one = 1;
    (void)!::write(s.stop_fd, &one, sizeof one);
    s.waker->join();
    delete s.waker;
    ::close(s.stop_fd);
  }
  core::progress_remove_poller(ucx_poll);
  std::vector<ucs_status_ptr_t> closing;
  for (arrival& a : s.unknown)
    if (a.rndv) ucp_am_data_release(s.worker, a.desc);
  for (peer& p : s.peers) {
    for (auto& [seq, a] : p.early)
      if (a.rndv) ucp_am_data_release(s.worker, a.desc);
    if (!p.ep) continue;
    ucp_request_param_t cp{};
    cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    cp.flags = 0;  // flush, then close
    ucs_status_ptr_t sp = ucp_ep_close_nbx(p.ep, &cp);
    if (UCS_PTR_IS_PTR(sp)) closing.push_back(sp);
    p.ep = nullptr;
  }
  const uint64_t until = core::progress_now_ns() + 5000000000ull;
  for (ucs_status_ptr_t sp : closing) {
    while (ucp_request_check_status(sp) == UCS_INPROGRESS && core::progress_now_ns() < until) {
      if (!ucp_worker_progress(s.worker)) sched_yield();
    }
    ucp_request_free(sp);
  }
  ucp_worker_destroy(s.worker);
  ucp_cleanup(s.ctx);
  delete g;
  g = nullptr;
}

}  // namespace baton::transport::ucx

#else  // no UCX in this build: the runtime refuses jobs that would need it before the engine starts

namespace baton::transport::ucx {
namespace {
errc no_ucx() { return core::error_set(errc::unsupported_operation, "this build of Baton has no UCX transport"); }
}  // namespace
errc ops::init() { return no_ucx(); }
void ops::finalize() {}
void ops::send_eager(request* r, uint32_t) {
  r->status.error = no_ucx();
  r->done = r->total;
  up::sent(r, sent_data_out | sent_acked);
}
void ops::send_rndv(request* r, uint32_t proc) { send_eager(r, proc); }
void ops::ack_match(uint32_t, uint64_t) {}
void ops::cancel_send(request* r, uint32_t) { up::cancel_answered(r, false); }
void ops::rndv_fetch(request* r, uint32_t, uint64_t, const rndv_ref&) {
  r->status.error = no_ucx();
  up::received(r);
}
void ops::rndv_drop(uint32_t, uint64_t, const rndv_ref&) {}
errc dyn_init() {
  return core::error_set(errc::unsupported_operation,
                         "processes of different launches talk through UCX, and this build of Baton has no UCX "
                         "transport (rebuild with libucx-dev)");
}
errc dyn_address(std::string&) { return dyn_init(); }
void dyn_add_peer(int, const std::string&) {}
}  // namespace baton::transport::ucx

#endif
