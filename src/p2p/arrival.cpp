// What the transports call back into matching (transport.hpp, namespace transport::up): arrived
// eager messages and rendezvous envelopes, completions, cancel requests and answers; and the
// delivery of unexpected messages to the receives that match them later.
#include <algorithm>
#include <cstdlib>

#include "core/progress.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

void set_recv_status(request* r, int src, int tag, uint64_t msg_len) {
  r->status.source = src;
  r->status.tag = tag;
  r->msg_len = msg_len;
  r->status.bytes = std::min<uint64_t>(msg_len, r->total);
  if (msg_len > r->total) {
    r->status.error = core::error_set(core::errc::truncate,
                                      "message of %llu bytes from rank %d (tag %d) truncated: the receive buffer "
                                      "holds %llu bytes",
                                      (unsigned long long)msg_len, src, tag, (unsigned long long)r->total);
  }
}

// ---- payload buffers of unexpected eager messages ----

// Kept per power-of-two size class (up to 64 KiB, at most 32 per class) so repeated exchanges
// that arrive before their receive allocate nothing in the steady state. Engine lock held.
namespace {
constexpr int uq_classes = 17;  // 2^0 .. 2^16 bytes
std::vector<char*> g_uq_bufs[uq_classes];

int uq_class(uint64_t len) {
  int k = 0;
  while ((uint64_t(1) << k) < len) ++k;
  return k;
}
}  // namespace

char* uq_buf_alloc(uint64_t len) {
  const int k = uq_class(len);
  if (k >= uq_classes) return static_cast<char*>(std::malloc(len));
  if (!g_uq_bufs[k].empty()) {
    char* b = g_uq_bufs[k].back();
    g_uq_bufs[k].pop_back();
    return b;
  }
  return static_cast<char*>(std::malloc(uint64_t(1) << k));
}

void uq_buf_free(char* b, uint64_t len) {
  const int k = uq_class(len);
  if (k >= uq_classes || g_uq_bufs[k].size() >= 32) {
    std::free(b);
    return;
  }
  g_uq_bufs[k].push_back(b);
}

void uq_bufs_init(uint32_t nlocal) {
  for (auto& bufs : g_uq_bufs) bufs.reserve(32);
  // Unexpected-message entries for a ring's worth of messages from every peer, up front.
  std::vector<unexpected*> warm(32 * nlocal + 64);
  for (auto& u : warm) u = new unexpected;
  for (auto* u : warm) delete u;
}

void uq_bufs_release() {
  for (auto& bufs : g_uq_bufs) {
    for (char* b : bufs) std::free(b);
    bufs.clear();
  }
}

void unexpected_free(unexpected* u) {
  if (u->data && u->data != u->inline_data) uq_buf_free(u->data, u->len);
  delete u;
}

// ---- delivering ----

void deliver_unexpected(request* r, unexpected* u) {
  set_recv_status(r, u->src, u->tag, u->len);
  r->matched_ = true;
  if (u->kind == uq_kind::eager) {
    copy_in(r, 0, u->data, u->len);
    r->done = u->len;
    if (u->sync) transport::ack_match(u->peer_world, u->cookie);
    complete_request(r);
  } else {
    transport::rndv_fetch(r, u->peer_world, u->cookie, u->ref);
  }
  unexpected_free(u);
}

namespace {

// The posted receive matching an arrival, taken off its queue and marked matched; nullptr if none.
inline request* take_posted(match_ctx& m, const transport::envelope& e) {
  request* r = m.find_posted(e.src, e.tag);
  if (!r) return nullptr;
  m.unpost(r);
  r->proto &= ~proto_posted;
  r->matched_ = true;
  set_recv_status(r, e.src, e.tag, e.len);
  return r;
}

// The last piece of an unexpected eager message arrived: match it now or queue it.
void arrived(unexpected* u) {
  match_ctx& m = ctx_of(u->ctx);
  if (request* r = m.find_posted(u->src, u->tag)) {
    m.unpost(r);
    r->proto &= ~proto_posted;
    deliver_unexpected(r, u);
  } else {
    m.push_uq(u);
  }
}

}  // namespace

}  // namespace baton::p2p

namespace baton::transport::up {

using namespace baton::p2p;

namespace {

// A new unexpected entry for the message of envelope e.
unexpected* new_entry(const envelope& e, uq_kind kind) {
  auto* u = new unexpected;
  u->kind = kind;
  u->src = e.src;
  u->tag = e.tag;
  u->ctx = e.ctx;
  u->len = e.len;
  u->peer_world = e.proc;
  u->sync = e.sync;
  u->cookie = e.cookie;
  return u;
}

// A new unexpected eager entry for e with a buffer of e.len bytes holding the first n.
unexpected* eager_entry(const envelope& e, const void* data, uint64_t n) {
  unexpected* u = new_entry(e, uq_kind::eager);
  u->data = e.len <= sizeof u->inline_data ? u->inline_data : uq_buf_alloc(e.len);
  if (n) core::copy_bytes(u->data, data, n);
  u->received = n;
  return u;
}

// The receive r matched e: its first n bytes are at data.
inline void eager_matched(request* r, const envelope& e, const void* data, uint64_t n) {
  copy_in(r, 0, data, n);
  r->done = n;
  if (e.sync) transport::ack_match(e.proc, e.cookie);
}

}  // namespace

void eager(const envelope& e, const void* data) {
  match_ctx& m = ctx_of(e.ctx);
  if (request* r = take_posted(m, e)) {
    eager_matched(r, e, data, e.len);
    complete_request(r);
    return;
  }
  m.push_uq(eager_entry(e, data, e.len));
}

inbound eager_first(const envelope& e, const void* data, uint64_t n) {
  match_ctx& m = ctx_of(e.ctx);
  if (request* r = take_posted(m, e)) {
    eager_matched(r, e, data, n);
    return inbound{r, nullptr, nullptr};
  }
  unexpected* u = eager_entry(e, data, n);
  return inbound{nullptr, u, u->data};
}

void eager_end(const inbound& in) {
  if (in.req) {
    in.req->done = in.req->msg_len;
    complete_request(in.req);
  } else if (in.entry) {
    auto* u = static_cast<unexpected*>(in.entry);
    u->received = u->len;
    arrived(u);
  }
}

void rndv(const envelope& e, const rndv_ref& ref) {
  match_ctx& m = ctx_of(e.ctx);
  if (request* r = take_posted(m, e)) {
    transport::rndv_fetch(r, e.proc, e.cookie, ref);
    return;
  }
  unexpected* u = new_entry(e, uq_kind::rndv);
  u->ref = ref;
  m.push_uq(u);
}

void received(request* r) { complete_request(r); }

void sent(request* s, uint32_t bits) {
  s->proto |= bits;
  finish_send_if_done(s);
}

bool withdraw(uint32_t ctx, int proc, int tag, uint64_t cookie) {
  match_ctx& m = ctx_of(ctx);
  // Newest first: the message of the send being cancelled arrived just before the request. An
  // older entry with the same cookie (a completed eager send whose request object was reused, or
  // an earlier start of a persistent request) has the same envelope, so it is matched before the
  // newer one: if the newer one is gone, so is every older one.
  for (unexpected* u = m.uq_tail; u; u = u->prev) {
    if (u->cookie != cookie || u->peer_world != proc || u->tag != tag) continue;
    m.remove_uq(u);
    if (u->kind == uq_kind::rndv) transport::rndv_drop(proc, u->len, u->ref);
    unexpected_free(u);
    return true;
  }
  return false;
}

void cancel_answered(request* s, bool withdrawn) {
  s->proto &= ~proto_cancel_wait;
  if (withdrawn) s->status.cancelled = true;
  finish_send_if_done(s);
}

}  // namespace baton::transport::up
