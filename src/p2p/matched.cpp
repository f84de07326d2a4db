// Matched point-to-point traffic: the match handshake and the channel protocols (matched.hpp).
#include "p2p/matched.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"
#include "transport/shm/shm.hpp"

namespace baton::p2p {

namespace shm = transport::shm;
using shm::out_item;
using shm::peer_state;
using shm::pkt_header;
using shm::segment;

namespace {

// Contexts agreed by comm.cpp are below 32768 (16384 pairs); the match handshake of a
// communicator runs on ctx + match_ctx_offset, which no other traffic uses.
constexpr uint32_t match_ctx_offset = 1u << 15;
// Channels with a peer on another host (UCX) carry each start as an ordinary engine message on
// ctx + wire_ctx_offset (also unused by anything else), tagged with the receiver's wire tag.
constexpr uint32_t wire_ctx_offset = match_ctx_offset + 1;

enum : uint8_t {
  pkt_mdata = shm::pkt_ext_first,  // first fragment of a message: cookie = receiver channel, aux = 0
  pkt_mcont,                      // further fragments: aux = offset in the message
  pkt_mcredit,                    // receiver -> sender: a receive was started (cookie = sender channel)
  pkt_mfin,                       // sender -> receiver: data written single-copy (aux = bytes)
};

constexpr uint32_t offer_sync = 1;
constexpr uint32_t reply_gated = 1;
constexpr uint32_t reply_remote = 2;  // the pair talks through engine messages (peer on another host)

struct offer {
  uint64_t chan;   // sender's channel id
  uint64_t bytes;  // packed bytes of every message
  int32_t reply_tag;
  uint32_t flags;
};

struct reply {
  uint64_t chan;      // receiver's channel id
  uint64_t capacity;  // packed bytes the receive buffer holds
  uint64_t addr;      // receive buffer (contiguous receives), for single-copy writes; 0 otherwise
  uint32_t flags;
  uint32_t wire_tag;  // reply_remote: the tag the sender's messages carry on the wire context
};

struct early {
  char* data;
  uint64_t len;
  uint64_t got;
  uint64_t cap;                // bytes allocated at data (0 while parked)
  pkt_header* slot = nullptr;  // parked: the ring slot left full, holding the message
  uint32_t peer = 0;          // parked: the sender's local index; slot index `idx` of its ring
  uint32_t idx = 0;
};

// Parked early arrivals by (sender's local index, slot index): matched_unpark finds them there.
std::vector<std::vector<early*>> g_parked;

struct channel {
  uint64_t id = 0;
  request* req = nullptr;
  bool send = false;
  bool self = false;
  bool proc_null = false;
  bool gated = false;
  bool remote = false;      // peer on another host: starts travel as engine messages (`wire`)
  request* wire = nullptr;  // remote: the prepared internal send / receive every start restarts
  int peer_world = -1;
  uint64_t peer_chan = 0;
  // handshake
  offer off{};
  reply rep{};
  int handshake_pending = 0;
  core::errc handshake_error = core::errc::success;
  void (*done)(void*, core::errc) = nullptr;
  void* done_arg = nullptr;
  // receiver
  int src_rank = 0, src_tag = 0;
  bool ready = false;            // the receive is started and waits for its message
  bool rx_direct = false;        // the message arriving now goes straight into the receive buffer
  std::deque<early*> fifo;       // messages that arrived before their receive was started
  early* spare = nullptr;        // the last delivered early arrival, reused by the next one
  request* self_wait = nullptr;  // self: a send waiting for this receive to start
  // sender
  uint32_t credits = 0;
  bool waiting = false;  // started, waiting for a credit
  uint64_t peer_addr = 0, peer_cap = 0;
};

struct channel_table {
  std::vector<channel*> slots;
  std::vector<uint32_t> gens;
  std::vector<uint32_t> free_list;
};
channel_table g_table;

uint64_t table_add(channel* ch) {
  uint32_t i;
  if (!g_table.free_list.empty()) {
    i = g_table.free_list.back();
    g_table.free_list.pop_back();
  } else {
    i = static_cast<uint32_t>(g_table.slots.size());
    g_table.slots.push_back(nullptr);
    g_table.gens.push_back(0);
  }
  g_table.slots[i] = ch;
  ++g_table.gens[i];
  return (uint64_t(g_table.gens[i]) << 32) | i;
}

channel* table_find(uint64_t id) {
  const uint32_t i = static_cast<uint32_t>(id);
  if (i >= g_table.slots.size() || g_table.gens[i] != uint32_t(id >> 32)) return nullptr;
  return g_table.slots[i];
}

void table_remove(uint64_t id) {
  const uint32_t i = static_cast<uint32_t>(id);
  if (i >= g_table.slots.size() || g_table.gens[i] != uint32_t(id >> 32)) return;
  g_table.slots[i] = nullptr;
  g_table.free_list.push_back(i);
}

const core::datatype* byte_type() {
  return core::predefined_datatype(0x247);
}  // MPI_BYTE

// A peer that is neither this process nor on the shared-memory rings (another host, reached
// through UCX; with BATON_TRANSPORT=ucx every other rank): the pair talks through engine messages.
bool world_is_remote(int world) {
  const transport::kind k = transport::route_of(world).via;
  return k != transport::kind::self && k != transport::kind::shm;
}

// The shared-memory peer state of a process on this host.
peer_state& peer_of_world(int world) { return shm::peer(transport::route_of(world).index); }

// Wire tags of remote receive channels: never reused while the process lives (2^30 matches), so a
// message left for a freed channel can't be taken by a later one.
uint32_t g_next_wire_tag = 0;

// ---- completion ----

void send_finish(request* r) {
  --eng().pending_sends;
  complete_request(r);
}

// The receive's status for a message of `len` bytes from the matched sender.
void recv_begin(channel* ch, uint64_t len) {
  request* r = ch->req;
  r->status.source = ch->src_rank;
  r->status.tag = ch->src_tag;
  r->msg_len = len;
  r->status.bytes = std::min<uint64_t>(len, r->total);
  if (len > r->total) {
    r->status.error = core::error_set(core::errc::truncate,
                                      "matched message of %llu bytes from rank %d (tag %d) truncated: the receive "
                                      "buffer holds %llu bytes",
                                      (unsigned long long)len, ch->src_rank, ch->src_tag, (unsigned long long)r->total);
  }
}

void recv_finish(channel* ch) {
  ch->ready = false;
  ch->rx_direct = false;
  complete_request(ch->req);
}

// Lets go of parked early arrival e's ring slot: the sender may write it again (and may be
// asleep waiting for it).
void unpark(early* e) {
  g_parked[e->peer][e->idx] = nullptr;
  shm::peer(e->peer).parked &= ~(uint64_t(1) << e->idx);
  e->slot->full.store(0, std::memory_order_release);
  e->slot = nullptr;
  shm::ring_doorbell(e->peer);
}

void deliver_early(channel* ch) {
  early* e = ch->fifo.front();
  ch->fifo.pop_front();
  request* r = ch->req;
  recv_begin(ch, e->len);
  copy_in(r, 0, e->data, e->len);
  r->done = e->len;
  if (e->slot) {
    unpark(e);
    delete e;
  } else if (ch->spare) {  // keep the larger buffer
    early* drop = ch->spare->cap >= e->cap ? e : ch->spare;
    if (drop == ch->spare) ch->spare = e;
    std::free(drop->data);
    delete drop;
  } else {
    ch->spare = e;
  }
  recv_finish(ch);
}

// A buffer for an early arrival of `len` bytes: the spare one when it is large enough.
early* early_new(channel* ch, uint64_t len) {
  early* e = ch->spare;
  if (e && e->cap >= len) {
    ch->spare = nullptr;
    e->len = len;
    e->got = 0;
    return e;
  }
  const uint64_t cap = len ? len : 1;
  return new early{static_cast<char*>(std::malloc(cap)), len, 0, cap};
}

// Send to oneself: copy the started send into the started receive.
void self_deliver(request* s, channel* rc) {
  request* r = rc->req;
  recv_begin(rc, s->total);
  const uint64_t n = std::min(s->total, r->total);
  if (s->dt->is_contiguous() && r->dt->is_contiguous()) {
    if (n)
      std::memcpy(static_cast<char*>(r->buf) + r->dt->true_lb(), static_cast<const char*>(s->buf) + s->dt->true_lb(),
                  n);
  } else {
    uint64_t bytes = 0;
    (void)core::copy_typed(s->buf, s->count, *s->dt, r->buf, r->count, *r->dt, &bytes);
  }
  r->done = s->total;
  s->done = s->total;
  send_finish(s);
  recv_finish(rc);
}

// ---- remote channels: every start is one engine message on the wire context ----

// The internal send of a start completed (the data left, or was received for a synchronous one).
void on_wire_sent(request* q) {
  auto* ch = static_cast<channel*>(q->ext);
  request* r = ch->req;
  r->status.error = q->status.error;
  r->done = r->total;
  complete_request(r);
}

// The internal receive of a start completed: report the matched sender's rank and tag.
void on_wire_received(request* q) {
  auto* ch = static_cast<channel*>(q->ext);
  request* r = ch->req;
  r->msg_len = q->msg_len;
  r->status.source = ch->src_rank;
  r->status.tag = ch->src_tag;
  r->status.bytes = q->status.bytes;
  r->status.error = q->status.error;
  if (q->status.error == core::errc::truncate) {
    r->status.error = core::error_set(core::errc::truncate,
                                      "matched message of %llu bytes from rank %d (tag %d) truncated: the receive "
                                      "buffer holds %llu bytes",
                                      (unsigned long long)q->msg_len, ch->src_rank, ch->src_tag,
                                      (unsigned long long)r->total);
  }
  r->done = r->status.bytes;
  complete_request(r);
}

// ---- sending ----

bool cma_write(channel* ch, request* r) {
  shm::state& e = shm::st();
  if (!e.cma_ok || !ch->peer_addr || !r->dt->is_contiguous() || r->total == 0) return false;
  const uint64_t want = std::min(r->total, ch->peer_cap);
  const pid_t pid = e.seg.area(peer_of_world(ch->peer_world).local).pid;
  const char* src = static_cast<const char*>(r->buf) + r->dt->true_lb();
  uint64_t put = 0;
  while (put < want) {
    struct iovec local {
      const_cast<char*>(src) + put, want - put
    };
    struct iovec remote {
      reinterpret_cast<char*>(ch->peer_addr) + put, want - put
    };
    ssize_t n = ::process_vm_writev(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) break;
    put += static_cast<uint64_t>(n);
  }
  if (put == want) return true;
  if (put == 0) {
    e.cma_ok = false;  // not permitted here: stream through the ring from now on
    return false;
  }
  return false;  // partial write (should not happen): stream the whole message again
}

void transmit(channel* ch) {
  request* r = ch->req;
  if (ch->gated && cma_write(ch, r)) {
    r->done = r->total;
    shm::enqueue(peer_of_world(ch->peer_world), out_item{pkt_mfin, ch->peer_chan, r->total, nullptr});
    send_finish(r);
    return;
  }
  r->done = 0;
  shm::enqueue(peer_of_world(ch->peer_world), out_item{pkt_mdata, ch->peer_chan, 0, r});
}

void send_start(channel* ch) {
  request* r = ch->req;
  if (ch->remote) {  // the internal send counts itself as pending
    start_prepared(ch->wire);
    return;
  }
  ++eng().pending_sends;
  if (ch->self) {
    channel* rc = table_find(ch->peer_chan);
    if (!rc) {
      r->status.error = core::error_set(core::errc::request, "the matched receive of this send was freed");
      send_finish(r);
    } else if (rc->ready) {
      self_deliver(r, rc);
    } else {
      rc->self_wait = r;
    }
    return;
  }
  if (ch->gated) {
    if (ch->credits == 0) {
      ch->waiting = true;
      return;
    }
    --ch->credits;
  }
  transmit(ch);
}

void recv_start(channel* ch) {
  if (ch->remote) {
    start_prepared(ch->wire);
    return;
  }
  if (ch->self) {
    ch->ready = true;
    if (request* s = ch->self_wait) {
      ch->self_wait = nullptr;
      self_deliver(s, ch);
    }
    return;
  }
  ch->ready = true;
  if (!ch->fifo.empty()) {
    if (ch->fifo.front()->got >= ch->fifo.front()->len) deliver_early(ch);
    return;  // a partial head is delivered when its last fragment arrives
  }
  if (ch->gated) shm::enqueue(peer_of_world(ch->peer_world), out_item{pkt_mcredit, ch->peer_chan, 0, nullptr});
}

errc matched_on_start(request* r) {
  core::engine_guard g;
  auto* ch = static_cast<channel*>(r->match);
  r->done = 0;
  r->proto = 0;
  r->status = core::req_status{};
  r->complete.store(false, std::memory_order_relaxed);
  r->total = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  if (ch->proc_null) {
    r->status.source = proc_null;
    r->status.tag = any_tag;
    complete_request(r);
    return errc::success;
  }
  if (ch->send) {
    send_start(ch);
  } else {
    recv_start(ch);
  }
  core::progress_new_work();
  return errc::success;
}

// A matched request is matched: it completes normally (like a matched receive, it cannot be
// cancelled any more).
errc matched_on_cancel(request*) {
  return errc::success;
}

void matched_on_destroy(request* r) {
  auto* ch = static_cast<channel*>(r->match);
  if (!ch) return;
  table_remove(ch->id);
  if (ch->wire) release_prepared(ch->wire);  // complete: the request is inactive or just completed
  for (early* e : ch->fifo) {
    if (e->slot)
      unpark(e);
    else
      std::free(e->data);
    delete e;
  }
  if (ch->spare) {
    std::free(ch->spare->data);
    delete ch->spare;
  }
  delete ch;
  r->match = nullptr;
}

const core::request_ops matched_ops{nullptr, matched_on_cancel, matched_on_start, matched_on_destroy};

// ---- receiving ----

// A message in one slot (over park_min bytes) arriving before its receive is started stays in its
// slot (parked) until the start copies it into the receive buffer: one copy instead of two. Only
// where the slot index fits the peer's parked mask; the engine copies it out if it comes round to
// the slot first. Smaller messages are copied out at once: a copy of a few hundred bytes costs
// less than keeping track of the slot (8-byte queued ring: 0.69 -> 0.72 us when those were parked).
constexpr uint64_t park_min = 256;

bool park(peer_state& p, channel* ch, pkt_header* h) {
  const uint32_t idx = p.rx;
  if (idx >= 64) return false;
  if (g_parked.size() <= p.local) g_parked.resize(p.local + 1);
  auto& v = g_parked[p.local];
  if (v.size() <= idx) v.resize(shm::st().seg.params().nslots, nullptr);
  auto* e = new early{static_cast<char*>(segment::payload(h)), h->msg_len, h->msg_len, 0, h, p.local, idx};
  v[idx] = e;
  p.parked |= uint64_t(1) << idx;  // shm_poll leaves the slot full
  ch->rx_direct = false;
  ch->fifo.push_back(e);
  return true;
}

void rx_fragment(peer_state& p, channel* ch, pkt_header* h) {
  const uint64_t off = h->aux, n = h->frag_len, len = h->msg_len;
  const void* payload = segment::payload(h);
  if (off == 0) {
    if (ch->ready && ch->fifo.empty()) {
      ch->rx_direct = true;
      recv_begin(ch, len);
      ch->req->done = 0;
    } else if (n == len && len > park_min && park(p, ch, h)) {
      return;
    } else {
      ch->rx_direct = false;
      ch->fifo.push_back(early_new(ch, len));
    }
  }
  if (ch->rx_direct) {
    request* r = ch->req;
    copy_in(r, off, payload, n);
    r->done += n;
    if (r->done >= len) recv_finish(ch);
    return;
  }
  if (ch->fifo.empty()) return;
  early* e = ch->fifo.back();
  if (n) std::memcpy(e->data + off, payload, n);
  e->got += n;
  if (e->got >= e->len && ch->ready && e == ch->fifo.front()) deliver_early(ch);
}

// ---- handshake ----

void handshake_step_done(channel* ch, core::errc e) {
  if (e != core::errc::success && ch->handshake_error == core::errc::success) ch->handshake_error = e;
  if (--ch->handshake_pending > 0) return;
  request* r = ch->req;
  if (ch->handshake_error == core::errc::success) {
    r->match_done = true;
    r->ops = &matched_ops;
  }
  ch->done(ch->done_arg, ch->handshake_error);
}

void on_internal_sent(request* q) {
  auto* ch = static_cast<channel*>(q->ext);
  core::errc e = q->status.error;
  core::request_delete(q);
  handshake_step_done(ch, e);
}

// Sender: the receiver's answer arrived.
void on_reply(request* q) {
  auto* ch = static_cast<channel*>(q->ext);
  core::errc e = q->status.error;
  core::request_delete(q);
  if (e == core::errc::success) {
    ch->peer_chan = ch->rep.chan;
    ch->peer_cap = ch->rep.capacity;
    ch->peer_addr = ch->rep.addr;
    ch->gated = ch->rep.flags & reply_gated;
    if (ch->remote != bool(ch->rep.flags & reply_remote)) {
      e = core::error_set(core::errc::intern, "matched send to rank %d: the two sides disagree on the transport",
                          ch->req->peer);
    } else if (ch->remote) {
      request* r = ch->req;
      ch->wire = prepare_internal(core::req_kind::send, r->buf, r->count, r->dt, r->peer,
                                  static_cast<int>(ch->rep.wire_tag), r->c, r->c->ctx + wire_ctx_offset, on_wire_sent,
                                  ch, 0);
      if (r->mode == core::send_mode::synchronous) ch->wire->mode = core::send_mode::synchronous;
    }
  }
  handshake_step_done(ch, e);
}

// Receiver: a sender's offer matched this receive.
void on_offer(request* q) {
  auto* ch = static_cast<channel*>(q->ext);
  core::errc e = q->status.error;
  const int src = q->status.source;
  const int tag = q->status.tag;
  core::request_delete(q);
  if (e != core::errc::success) {
    handshake_step_done(ch, e);
    return;
  }
  request* r = ch->req;
  const shm::state* shm_st = shm::g_state;
  ch->src_rank = src;
  ch->src_tag = tag;
  ch->peer_world = r->c->world_rank(src);
  ch->self = ch->peer_world == eng().my_world;
  ch->remote = world_is_remote(ch->peer_world);
  ch->peer_chan = ch->off.chan;
  ch->gated = !ch->self && !ch->remote &&
              ((ch->off.flags & offer_sync) || ch->off.bytes > shm_st->eager_max ||
               ch->off.bytes > shm_st->seg.slot_payload() * (shm_st->seg.params().nslots / 2));
  ch->rep.chan = ch->id;
  ch->rep.capacity = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  ch->rep.addr = !ch->remote && r->dt->is_contiguous()
                     ? reinterpret_cast<uint64_t>(static_cast<char*>(r->buf) + r->dt->true_lb())
                     : 0;
  ch->rep.flags = ch->gated ? reply_gated : 0;
  if (ch->remote) {
    ch->rep.flags |= reply_remote;
    ch->rep.wire_tag = g_next_wire_tag++ & 0x3fffffffu;
    ch->wire = prepare_internal(core::req_kind::recv, r->buf, r->count, r->dt, src, static_cast<int>(ch->rep.wire_tag),
                                r->c, r->c->ctx + wire_ctx_offset, on_wire_received, ch, 0);
  }
  (void)start_internal(core::req_kind::send, &ch->rep, sizeof(reply), byte_type(), src, ch->off.reply_tag, r->c,
                       r->c->ctx + match_ctx_offset, on_internal_sent, ch, 0);
}

}  // namespace

errc match_begin(request* r, void (*done)(void*, errc), void* arg) {
  auto* ch = new channel;
  ch->id = table_add(ch);
  ch->req = r;
  ch->send = r->kind == core::req_kind::send;
  ch->done = done;
  ch->done_arg = arg;
  r->match = ch;
  r->match_done = false;
  const uint32_t mctx = r->c->ctx + match_ctx_offset;
  if (r->peer == proc_null) {
    ch->proc_null = true;
    ch->handshake_pending = 1;
    handshake_step_done(ch, errc::success);
    return errc::success;
  }
  if (ch->send) {
    ch->peer_world = r->c->world_rank(r->peer);
    ch->self = ch->peer_world == eng().my_world;
    ch->remote = world_is_remote(ch->peer_world);
    ch->off.chan = ch->id;
    ch->off.bytes = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
    ch->off.reply_tag = -16 - static_cast<int32_t>(static_cast<uint32_t>(ch->id) & 0x3fffffffu);
    ch->off.flags = r->mode == core::send_mode::synchronous ? offer_sync : 0;
    ch->handshake_pending = 2;
    (void)start_internal(core::req_kind::recv, &ch->rep, sizeof(reply), byte_type(), r->peer, ch->off.reply_tag, r->c,
                         mctx, on_reply, ch, 1);
    (void)start_internal(core::req_kind::send, &ch->off, sizeof(offer), byte_type(), r->peer, r->tag, r->c, mctx,
                         on_internal_sent, ch, 0);
  } else {
    // offer received, then the reply sent
    ch->handshake_pending = 1;
    (void)start_internal(core::req_kind::recv, &ch->off, sizeof(offer), byte_type(), r->peer, r->tag, r->c, mctx,
                         on_offer, ch, 0);
  }
  core::progress_new_work();
  return errc::success;
}

}  // namespace baton::p2p

// ---- the shared-memory transport's hooks (transport/shm/shm.hpp, namespace ext) ----
namespace baton::transport::shm::ext {

using namespace baton::p2p;

bool emit(peer_state& p, const out_item& it) {
  request* r = it.req;
  const size_t cap = st().seg.slot_payload();
  bool any = false;
  while (r->done < r->total || (r->total == 0 && !any)) {
    pkt_header* h = reserve_slot(p);
    if (!h) break;
    const size_t n = std::min<uint64_t>(cap, r->total - r->done);
    h->type = r->done == 0 ? pkt_mdata : pkt_mcont;
    h->flags = 0;
    h->ctx = 0;
    h->src = r->c->rank;
    h->tag = r->tag;
    h->frag_len = static_cast<uint32_t>(n);
    h->msg_len = r->total;
    h->cookie = it.cookie;
    h->aux = r->done;
    copy_out(r, r->done, segment::payload(h), n);
    commit_slot(p, h);
    r->done += n;
    any = true;
    if (r->total == 0) break;
  }
  if (any) ring_doorbell(p.local);
  if (r->done < r->total || (!any && r->total == 0)) return false;
  send_finish(r);
  return true;
}

void unpark(peer_state& p, uint32_t idx) {
  early* e = g_parked[p.local][idx];
  char* copy = static_cast<char*>(std::malloc(e->len));  // parked messages exceed park_min bytes
  std::memcpy(copy, e->data, e->len);
  baton::p2p::unpark(e);
  e->data = copy;
  e->cap = e->len;
}

void packet(peer_state& p, pkt_header* h) {
  channel* ch = table_find(h->cookie);
  if (!ch) return;  // the request was freed: drop
  switch (h->type) {
    case pkt_mdata:
    case pkt_mcont:
      if (!ch->send) rx_fragment(p, ch, h);
      break;
    case pkt_mcredit:
      if (!ch->send) break;
      ++ch->credits;
      if (ch->waiting) {
        ch->waiting = false;
        --ch->credits;
        transmit(ch);
      }
      break;
    case pkt_mfin:
      if (ch->send) break;
      recv_begin(ch, h->aux);
      ch->req->done = h->aux;
      recv_finish(ch);
      break;
    default:
      break;
  }
}

}  // namespace baton::transport::shm::ext
