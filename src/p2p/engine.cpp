#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/comm.hpp"
#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/partitioned.hpp"

namespace baton::p2p {

using core::req_status;
using core::send_mode;
using transport::shm::pkt_header;
using transport::shm::segment;

namespace {
engine* g_engine = nullptr;

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

engine_limits limits_from_env() {
  engine_limits l;
  l.shm_eager_max = env_u64("BATON_SHM_EAGER_MAX", 32768);
  // Every rendezvous message (past the eager limit, contiguous) is read with one kernel copy by
  // default (core/copy.hpp); BATON_SHM_CMA_MIN raises the threshold.
  l.shm_cma_min = env_u64("BATON_SHM_CMA_MIN", 0);
  l.shm_coop_min = env_u64("BATON_SHM_COOP_MIN", 256 << 10);
  // Over TCP a rendezvous costs a round trip per message: between two hosts on a veth link 16 KiB
  // messages streamed at 0.75 GB/s with an 8 KiB limit, 1.6 GB/s with this one (64 KiB: 2.1 -> 2.9).
  l.ucx_eager_max = env_u64("BATON_UCX_EAGER_MAX", 65536);
  return l;
}
// The limits MPI_Init took, kept after MPI_Finalize (read by any thread once g_limits_set).
engine_limits g_limits;
std::atomic<bool> g_limits_set{false};
}  // namespace

engine_limits engine_limits_now() {
  return g_limits_set.load(std::memory_order_acquire) ? g_limits : limits_from_env();
}

engine_queues engine_queues_now() {
  engine_queues q;
  core::engine_guard g;
  if (!g_engine) return q;
  for (const match_ctx* m : g_engine->ctxs) {
    if (!m) continue;
    q.unexpected += m->uq_n;
    q.posted += m->posted_n;
  }
  q.pending_sends = g_engine->pending_sends;
  return q;
}

// ---- moving bytes between user buffers and packed streams ----

// Copies `len` packed bytes at packed offset `off` of the receive buffer; clips at capacity.
void copy_in(request* r, uint64_t off, const void* data, size_t len) {
  if (off >= r->total) return;
  if (len > r->total - off) len = r->total - off;
  if (len == 0) return;
  if (r->dt->is_contiguous()) {
    core::copy_bytes(static_cast<char*>(r->buf) + r->dt->true_lb() + off, data, len);
  } else {
    core::pack_cursor cur(r->buf, r->count, *r->dt);
    cur.seek(off);
    (void)cur.unpack(data, len);
  }
}

void copy_out(const request* r, uint64_t off, void* out, size_t len) {
  if (len == 0) return;
  if (r->dt->is_contiguous()) {
    core::copy_bytes(out, static_cast<const char*>(r->buf) + r->dt->true_lb() + off, len);
  } else {
    core::pack_cursor cur(r->buf, r->count, *r->dt);
    cur.seek(off);
    (void)cur.pack(out, len);
  }
}

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

namespace {

// ---- emitting packets to a shared-memory peer ----

void ring_doorbell(uint32_t dst) {
  segment& s = eng().seg;
  core::producer_fence();
  auto& a = s.area(dst);
  if (a.sleeping.load(std::memory_order_relaxed)) {
    a.doorbell.fetch_add(1, std::memory_order_release);
    transport::shm::futex_wake(&a.doorbell);
  }
}

pkt_header* reserve_slot(peer_state& p) {
  pkt_header* h = eng().seg.slot(p.local, eng().me_local, p.tx);
  if (h->full.load(std::memory_order_acquire)) return nullptr;
  return h;
}

void commit_slot(peer_state& p, pkt_header* h) {
  h->full.store(1, std::memory_order_release);
  p.tx = (p.tx + 1 == eng().seg.params().nslots) ? 0 : p.tx + 1;
  // The next slot's line was last written by the consumer (it clears `full`), and it may be
  // spinning on it: fetch it now, so that the next reserve_slot's load of `full` hits instead of
  // stalling on a transfer between cores (most of an 8-byte message's send time).
  __builtin_prefetch(eng().seg.slot(p.local, eng().me_local, p.tx), 0, 3);
}

void mark_active(peer_state& p) {
  auto& a = eng().active_peers;
  if (std::find(a.begin(), a.end(), p.local) == a.end()) a.push_back(p.local);
}

// Emits as much of the item as the ring takes; true when the item is fully emitted.
bool emit(peer_state& p, const out_item& it) {
  segment& s = eng().seg;
  const size_t cap = s.slot_payload();
  if (it.req && it.type >= pkt_matched_first) return matched_emit(p, it);
  if (it.req == nullptr) {  // control packet
    pkt_header* h = reserve_slot(p);
    if (!h) return false;
    h->type = it.type;
    h->flags = 0;
    h->frag_len = 0;
    h->msg_len = 0;
    h->cookie = it.cookie;
    h->aux = it.aux;
    commit_slot(p, h);
    ring_doorbell(p.local);
    return true;
  }
  request* r = it.req;
  if (it.type == pkt_rts) {
    pkt_header* h = reserve_slot(p);
    if (!h) return false;
    h->type = pkt_rts;
    h->flags = (r->dt->is_contiguous() ? flag_cma : 0);
    h->ctx = r->ctx;
    h->src = r->c->rank;
    h->tag = r->tag;
    h->frag_len = 0;
    h->msg_len = r->total;
    h->cookie = reinterpret_cast<uint64_t>(r);
    h->aux = reinterpret_cast<uint64_t>(static_cast<char*>(r->buf) + r->dt->true_lb());
    commit_slot(p, h);
    ring_doorbell(p.local);
    return true;
  }
  // eager: first slot carries the envelope, the rest follow as continuation slots
  bool any = false;
  while (r->done < r->total || (r->total == 0 && !any)) {
    pkt_header* h = reserve_slot(p);
    if (!h) break;
    size_t n = std::min<uint64_t>(cap, r->total - r->done);
    h->type = r->done == 0 ? pkt_eager : pkt_cont;
    h->flags = r->mode == send_mode::synchronous ? flag_sync : 0;
    h->ctx = r->ctx;
    h->src = r->c->rank;
    h->tag = r->tag;
    h->frag_len = static_cast<uint32_t>(n);
    h->msg_len = r->total;
    h->cookie = reinterpret_cast<uint64_t>(r);
    copy_out(r, r->done, segment::payload(h), n);
    commit_slot(p, h);
    r->done += n;
    any = true;
    if (r->total == 0) break;
  }
  if (any) ring_doorbell(p.local);
  if (r->done < r->total || (!any && r->total == 0)) return false;  // a zero-byte message needs its slot too
  r->proto |= proto_data_out;
  finish_send_if_done(r);
  return true;
}

void enqueue(peer_state& p, const out_item& it) {
  if (p.outq.empty() && emit(p, it)) return;
  p.outq.push_back(it);
  mark_active(p);
}

void send_ctrl(int peer_world, uint8_t type, uint64_t cookie, uint64_t aux) {
  int l = core::rt().local_of_world[static_cast<size_t>(peer_world)];
  if (l < 0) return remote::send_ctrl(peer_world, type, cookie);  // another host (UCX)
  enqueue(eng().peers[static_cast<size_t>(l)], out_item{type, cookie, aux, nullptr});
}

// Streams the head rendezvous send of a peer through its bulk channel.
bool push_bulk(peer_state& p) {
  segment& s = eng().seg;
  bool moved = false;
  while (!p.bulkq.empty()) {
    request* r = p.bulkq.front();
    while (r->done < r->total) {
      auto* c = s.chunk(p.local, eng().me_local, p.tx_chunk);
      if (c->full.load(std::memory_order_acquire)) break;
      uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(s.params().chunk_size, r->total - r->done));
      copy_out(r, r->done, segment::chunk_data(c), n);
      c->len = n;
      c->rreq = r->cookie;
      c->offset = r->done;
      c->full.store(1, std::memory_order_release);
      p.tx_chunk = (p.tx_chunk + 1 == s.params().nchunks) ? 0 : p.tx_chunk + 1;
      r->done += n;
      moved = true;
    }
    if (moved) ring_doorbell(p.local);
    if (r->done < r->total) break;
    p.bulkq.pop_front();
    --p.rndv_out;
    r->proto |= proto_data_out | proto_acked;
    finish_send_if_done(r);
  }
  return moved;
}

// ---- copy jobs: both ends copy a large message (transport::shm::copy_job) ----
//
// A rendezvous message read with one process_vm_readv takes the receiver alone some 60 us per MiB
// while the sender waits. From coop_min on (contiguous at both ends), the receiver sets up a job
// in the segment, tells the sender (pkt_copy_job) and starts reading chunks; the sender, as soon
// as it sees the packet, claims chunks too and writes them into the receive buffer with
// process_vm_writev. Chunks are claimed with one atomic counter, so neither end waits for the
// other: a receiver whose sender has not claimed anything by the time its first chunk is copied
// (a sender busy outside MPI) takes all the rest in one read, so it pays one system call more
// than a plain read and nothing else. Each end completes its request once every chunk is copied,
// then lets go of the job.
namespace {

using transport::shm::copy_job;
using transport::shm::copy_jobs_per_pair;

struct coop_end {
  copy_job* j;
  request* r;
  bool sender;
  uint32_t local;   // the other end's index on this host
  pid_t pid;        // the other end's process
  char* mine;       // this end's buffer: the receive buffer, or the send buffer
  uint64_t theirs;  // the other end's buffer, in its address space
};
std::vector<coop_end> g_coop;  // ends waiting for chunks the other end copies

// Copies chunks [k, k + cnt) of the job: read at the receiver, write at the sender.
bool coop_copy(const coop_end& c, uint32_t k, uint32_t cnt) {
  const copy_job& j = *c.j;
  const uint64_t off = uint64_t(k) * j.chunk;
  const uint64_t len = std::min<uint64_t>(j.bytes, uint64_t(k + cnt) * j.chunk) - off;
  return c.sender ? core::cma_write(c.pid, c.theirs + off, c.mine + off, len)
                  : core::cma_read(c.pid, c.theirs + off, c.mine + off, len);
}

// Marks this end's request complete once every chunk is copied, and lets go of the job.
bool coop_try_finish(const coop_end& c) {
  copy_job& j = *c.j;
  if (!c.sender) {
    // A chunk the sender claimed but could not write: read it here.
    const int32_t k = j.orphan.load(std::memory_order_acquire);
    if (k >= 0) {
      j.orphan.store(-1, std::memory_order_relaxed);
      if (!coop_copy(c, uint32_t(k), 1) && c.r->status.error == errc::success)
        c.r->status.error = core::error_set(errc::other, "process_vm_readv of a rendezvous message failed");
      j.done.fetch_add(1, std::memory_order_release);
    }
  }
  if (j.done.load(std::memory_order_acquire) < j.nchunks) return false;
  request* r = c.r;
  j.refs.fetch_sub(1, std::memory_order_release);
  if (c.sender) {
    --eng().peers[c.local].rndv_out;
    r->done = r->total;
    r->proto |= proto_data_out | proto_acked;
    finish_send_if_done(r);
  } else {
    r->done = r->msg_len;
    complete_request(r);
  }
  return true;
}

// Claims and copies chunks while any is left, then finishes or waits in g_coop.
void coop_run(const coop_end& c) {
  engine& e = eng();
  copy_job& j = *c.j;
  uint32_t mine = 0;  // chunks this end claimed so far
  for (;;) {
    const uint32_t k = j.next.fetch_add(1, std::memory_order_acq_rel);
    if (k >= j.nchunks) break;
    uint32_t cnt = 1;
    if (!c.sender && k > 0 && k == mine) {
      // Every chunk so far was this end's: the sender has not come, take all the rest at once
      // (unless it claims one right now).
      uint32_t expect = k + 1;
      if (j.next.compare_exchange_strong(expect, j.nchunks, std::memory_order_acq_rel)) cnt = j.nchunks - k;
    }
    mine += cnt;
    if (!coop_copy(c, k, cnt)) {
      if (c.sender) {
        // Not permitted to write into peers here: the receiver reads this chunk, and every
        // later job is left to receivers.
        e.coop_write_ok = false;
        j.orphan.store(int32_t(k), std::memory_order_release);
        break;
      }
      if (c.r->status.error == errc::success)
        c.r->status.error = core::error_set(errc::other, "process_vm_readv of a rendezvous message failed");
    }
    j.done.fetch_add(cnt, std::memory_order_release);
  }
  if (!coop_try_finish(c)) g_coop.push_back(c);
}

bool poll_coop() {
  bool moved = false;
  for (size_t i = 0; i < g_coop.size();) {
    if (coop_try_finish(g_coop[i])) {
      g_coop[i] = g_coop.back();
      g_coop.pop_back();
      moved = true;
    } else {
      ++i;
    }
  }
  return moved;
}

// Receiver: sets up a job for a matched rendezvous message and starts copying; false when no
// job slot towards that sender is free (the caller reads the message alone).
bool coop_start(request* r, peer_state& p, int peer_world, uint64_t cookie, uint64_t addr, uint64_t bytes) {
  engine& e = eng();
  copy_job* j = nullptr;
  uint32_t slot = 0;
  for (; slot < copy_jobs_per_pair; ++slot) {
    copy_job* c = e.seg.job(e.me_local, p.local, slot);
    if (c->refs.load(std::memory_order_acquire) == 0) {
      j = c;
      break;
    }
  }
  if (!j) return false;
  // Eight chunks, at least 64 KiB each, in whole pages.
  const uint64_t per = std::max<uint64_t>(64 << 10, ((bytes + 7) / 8 + 4095) / 4096 * 4096);
  j->nchunks = static_cast<uint32_t>((bytes + per - 1) / per);
  j->chunk = static_cast<uint32_t>(per);
  j->bytes = bytes;
  j->next.store(0, std::memory_order_relaxed);
  j->done.store(0, std::memory_order_relaxed);
  j->orphan.store(-1, std::memory_order_relaxed);
  j->refs.store(2, std::memory_order_release);  // the packet's slot commit publishes the job
  char* buf = static_cast<char*>(r->buf) + r->dt->true_lb();
  send_ctrl(peer_world, pkt_copy_job, cookie, reinterpret_cast<uint64_t>(buf) | (uint64_t(slot) << 58));
  coop_run(coop_end{j, r, false, p.local, e.seg.area(p.local).pid, buf, addr});
  return true;
}

// Sender: the receiver of `s` set up job `slot` towards its buffer at `addr`.
void coop_join(peer_state& p, request* s, uint64_t aux) {
  engine& e = eng();
  const uint32_t slot = static_cast<uint32_t>(aux >> 58);
  const uint64_t addr = aux & ((uint64_t(1) << 58) - 1);
  copy_job* j = e.seg.job(p.local, e.me_local, slot);
  const coop_end c{j, s, true, p.local, e.seg.area(p.local).pid,
                   const_cast<char*>(static_cast<const char*>(s->buf)) + s->dt->true_lb(), addr};
  if (!e.coop_write_ok) {
    if (!coop_try_finish(c)) g_coop.push_back(c);
    return;
  }
  coop_run(c);
}

}  // namespace

// ---- receiving ----

// Starts moving a rendezvous message into a matched receive.
void rndv_start(request* r, int peer_world, uint64_t cookie, uint64_t addr, bool cma) {
  engine& e = eng();
  r->cookie = cookie;
  r->peer_world = peer_world;
  int l = core::rt().local_of_world[static_cast<size_t>(peer_world)];
  peer_state& p = e.peers[static_cast<size_t>(l)];
  uint64_t want = std::min(r->msg_len, r->total);
  // Not when this rank sends a rendezvous message to that peer too (an exchange): the peer is
  // then busy reading it, and a job would only split both copies into more system calls.
  if (cma && e.cma_ok && e.cma_proven && e.coop_min && p.rndv_out == 0 && want == r->msg_len && want >= e.coop_min &&
      want >= e.cma_min && r->dt->is_contiguous() && coop_start(r, p, peer_world, cookie, addr, want))
    return;
  if (cma && e.cma_ok && r->dt->is_contiguous() && r->msg_len >= e.cma_min) {
    struct iovec local {
      static_cast<char*>(r->buf) + r->dt->true_lb(), want
    };
    struct iovec remote {
      reinterpret_cast<void*>(addr), want
    };
    pid_t pid = e.seg.area(p.local).pid;
    uint64_t got = 0;
    while (got < want) {
      local.iov_base = static_cast<char*>(r->buf) + r->dt->true_lb() + got;
      local.iov_len = want - got;
      remote.iov_base = reinterpret_cast<char*>(addr) + got;
      remote.iov_len = want - got;
      ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
      if (n <= 0) break;
      got += static_cast<uint64_t>(n);
    }
    if (got == want) {
      e.cma_proven = true;
      send_ctrl(peer_world, pkt_fin, cookie, 0);
      r->done = r->msg_len;
      complete_request(r);
      return;
    }
    e.cma_ok = false;  // not permitted here: fall back to the pipelined copy from now on
    r->done = 0;
  }
  ++p.bulk_in;
  send_ctrl(peer_world, pkt_cts, cookie, reinterpret_cast<uint64_t>(r));
}

}  // namespace

// Payload buffers of unexpected eager messages (every transport allocates them here), kept per power-of-two size class (up to 64 KiB,
// at most 32 per class) so repeated exchanges that arrive before their receive allocate nothing
// in the steady state. Engine lock held.
constexpr int uq_classes = 17;  // 2^0 .. 2^16 bytes
std::vector<char*> g_uq_bufs[uq_classes];

int uq_class(uint64_t len) {
  int k = 0;
  while ((uint64_t(1) << k) < len) ++k;
  return k;
}

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

namespace {

// A receive matched an unexpected message: deliver it.
void deliver_unexpected(request* r, unexpected* u) {
  set_recv_status(r, u->src, u->tag, u->len);
  r->matched_ = true;
  switch (u->kind) {
    case uq_kind::eager:
      copy_in(r, 0, u->data, u->len);
      r->done = u->len;
      if (u->sync) send_ctrl(u->peer_world, pkt_sync_ack, u->cookie, 0);
      complete_request(r);
      break;
    case uq_kind::rndv:
      rndv_start(r, u->peer_world, u->cookie, u->addr, u->cma);
      break;
    case uq_kind::remote_rndv:
      remote::recv_rndv(r, u);
      break;
    case uq_kind::self: {
      request* s = u->sreq;
      uint64_t n = std::min(s->total, r->total);
      if (s->dt->is_contiguous() && r->dt->is_contiguous()) {
        if (n) core::copy_bytes(static_cast<char*>(r->buf) + r->dt->true_lb(),
                           static_cast<const char*>(s->buf) + s->dt->true_lb(), n);
      } else {
        uint64_t bytes = 0;
        (void)core::copy_typed(s->buf, s->count, *s->dt, r->buf, r->count, *r->dt, &bytes);
      }
      r->done = u->len;
      s->done = s->total;
      s->proto |= proto_data_out | proto_acked;
      finish_send_if_done(s);
      complete_request(r);
      break;
    }
  }
  if (u->data && u->data != u->inline_data) uq_buf_free(u->data, u->len);
  delete u;
}

unexpected* new_eager_uq(const pkt_header* h, int peer_world) {
  auto* u = new unexpected;
  u->kind = uq_kind::eager;
  u->src = h->src;
  u->tag = h->tag;
  u->ctx = h->ctx;
  u->len = h->msg_len;
  u->peer_world = peer_world;
  u->sync = h->flags & flag_sync;
  u->cookie = h->cookie;
  u->data = h->msg_len <= sizeof u->inline_data ? u->inline_data : uq_buf_alloc(h->msg_len);
  return u;
}

// The last fragment of an unexpected eager message arrived: match it now or queue it.
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

void handle_packet(peer_state& p, pkt_header* h) {
  const int peer_world = core::rt().world_of_local[p.local];
  switch (h->type) {
    case pkt_eager: {
      match_ctx& m = ctx_of(h->ctx);
      request* r = m.find_posted(h->src, h->tag);
      if (r) {
        m.unpost(r);
        r->proto &= ~proto_posted;
        r->matched_ = true;
        set_recv_status(r, h->src, h->tag, h->msg_len);
        copy_in(r, 0, segment::payload(h), h->frag_len);
        r->done = h->frag_len;
        if (h->flags & flag_sync) send_ctrl(peer_world, pkt_sync_ack, h->cookie, 0);
        if (r->done >= h->msg_len) {
          complete_request(r);
        } else {
          p.rx_req = r;
          p.rx_len = h->msg_len;
          p.rx_off = h->frag_len;
        }
      } else {
        unexpected* u = new_eager_uq(h, peer_world);
        core::copy_bytes(u->data, segment::payload(h), h->frag_len);
        u->received = h->frag_len;
        if (u->received >= u->len) {
          m.push_uq(u);
        } else {
          p.rx_uq = u;
          p.rx_len = h->msg_len;
          p.rx_off = h->frag_len;
        }
      }
      break;
    }
    case pkt_cont: {
      if (p.rx_req) {
        copy_in(p.rx_req, p.rx_off, segment::payload(h), h->frag_len);
      } else if (p.rx_uq) {
        core::copy_bytes(p.rx_uq->data + p.rx_off, segment::payload(h), h->frag_len);
      }
      p.rx_off += h->frag_len;
      if (p.rx_off >= p.rx_len) {
        if (p.rx_req) {
          p.rx_req->done = p.rx_len;
          complete_request(p.rx_req);
        } else if (p.rx_uq) {
          p.rx_uq->received = p.rx_len;
          arrived(p.rx_uq);
        }
        p.rx_req = nullptr;
        p.rx_uq = nullptr;
      }
      break;
    }
    case pkt_rts: {
      match_ctx& m = ctx_of(h->ctx);
      request* r = m.find_posted(h->src, h->tag);
      if (r) {
        m.unpost(r);
        r->proto &= ~proto_posted;
        r->matched_ = true;
        set_recv_status(r, h->src, h->tag, h->msg_len);
        rndv_start(r, peer_world, h->cookie, h->aux, h->flags & flag_cma);
      } else {
        auto* u = new unexpected;
        u->kind = uq_kind::rndv;
        u->src = h->src;
        u->tag = h->tag;
        u->ctx = h->ctx;
        u->len = h->msg_len;
        u->peer_world = peer_world;
        u->cookie = h->cookie;
        u->addr = h->aux;
        u->cma = h->flags & flag_cma;
        m.push_uq(u);
      }
      break;
    }
    case pkt_cts: {
      auto* s = reinterpret_cast<request*>(h->cookie);
      s->cookie = h->aux;
      s->done = 0;
      p.bulkq.push_back(s);
      mark_active(p);
      break;
    }
    case pkt_sync_ack: {
      auto* s = reinterpret_cast<request*>(h->cookie);
      s->proto |= proto_acked;
      finish_send_if_done(s);
      break;
    }
    case pkt_copy_job:
      coop_join(p, reinterpret_cast<request*>(h->cookie), h->aux);
      break;
    case pkt_cancel_req: {
      void* desc = nullptr;  // UCX only
      uint64_t len = 0;
      const bool ok = withdraw_unexpected(static_cast<uint32_t>(h->aux), peer_world, static_cast<int32_t>(h->aux >> 32),
                                          h->cookie, &desc, &len);
      send_ctrl(peer_world, pkt_cancel_ans, h->cookie, ok ? 1 : 0);
      break;
    }
    case pkt_cancel_ans:
      cancel_answer(reinterpret_cast<request*>(h->cookie), h->aux != 0);
      break;
    case pkt_fin: {
      auto* s = reinterpret_cast<request*>(h->cookie);
      --p.rndv_out;
      s->done = s->total;
      s->proto |= proto_data_out | proto_acked;
      finish_send_if_done(s);
      break;
    }
    default:
      if (h->type >= pkt_matched_first) matched_packet(p, h);
      break;
  }
}

bool poll_bulk_in(peer_state& p) {
  segment& s = eng().seg;
  bool moved = false;
  while (p.bulk_in) {
    auto* c = s.chunk(eng().me_local, p.local, p.rx_chunk);
    if (!c->full.load(std::memory_order_acquire)) break;
    auto* r = reinterpret_cast<request*>(c->rreq);
    copy_in(r, c->offset, segment::chunk_data(c), c->len);
    r->done += c->len;
    c->full.store(0, std::memory_order_release);
    p.rx_chunk = (p.rx_chunk + 1 == s.params().nchunks) ? 0 : p.rx_chunk + 1;
    moved = true;
    if (r->done >= r->msg_len) {
      --p.bulk_in;
      complete_request(r);
    }
  }
  return moved;
}

bool shm_poll() {
  engine& e = eng();
  if (!e.shm) return false;
  bool moved = false;
  const uint32_t n = e.seg.nlocal();
  const uint32_t nslots = e.seg.params().nslots;
  for (uint32_t l = 0; l < n; ++l) {
    if (l == e.me_local) continue;
    peer_state& p = e.peers[l];
    if (slot_parked(p, p.rx)) [[unlikely]]
      matched_unpark(p, p.rx);
    pkt_header* h = e.seg.slot(e.me_local, l, p.rx);
    if (h->full.load(std::memory_order_acquire)) {
      // A producer can only be waiting for room if the ring was full: then the slot before this
      // one (the newest it wrote) is full too. Only then is the doorbell worth its fence.
      const bool was_full = e.seg.slot(e.me_local, l, p.rx == 0 ? nslots - 1 : p.rx - 1)->full.load(
          std::memory_order_relaxed);
      for (int k = 0; k < 16; ++k) {
        handle_packet(p, h);
        if (!slot_parked(p, p.rx)) h->full.store(0, std::memory_order_release);  // parked: stays full
        p.rx = (p.rx + 1 == nslots) ? 0 : p.rx + 1;
        if (slot_parked(p, p.rx)) [[unlikely]]
          matched_unpark(p, p.rx);
        h = e.seg.slot(e.me_local, l, p.rx);
        if (!h->full.load(std::memory_order_acquire)) break;
      }
      moved = true;
      if (was_full) ring_doorbell(l);
    }
    if (p.bulk_in && poll_bulk_in(p)) {
      moved = true;
      ring_doorbell(l);  // a sender asleep on a full bulk channel may go on
    }
  }
  if (!g_coop.empty()) moved |= poll_coop();
  // Output that waited for room.
  auto& act = e.active_peers;
  for (size_t i = 0; i < act.size();) {
    peer_state& p = e.peers[act[i]];
    while (!p.outq.empty() && emit(p, p.outq.front())) {
      p.outq.pop_front();
      moved = true;
    }
    if (!p.bulkq.empty()) moved |= push_bulk(p);
    if (p.outq.empty() && p.bulkq.empty()) {
      act[i] = act.back();
      act.pop_back();
    } else {
      ++i;
    }
  }
  return moved;
}

// Send to oneself: match directly against the posted queue.
void self_send(request* r) {
  match_ctx& m = ctx_of(r->ctx);
  if (request* rr = m.find_posted(r->c->rank, r->tag)) {
    m.unpost(rr);
    rr->proto &= ~proto_posted;
    auto* u = new unexpected;
    u->kind = uq_kind::self;
    u->src = r->c->rank;
    u->tag = r->tag;
    u->len = r->total;
    u->sreq = r;
    deliver_unexpected(rr, u);
    return;
  }
  auto* u = new unexpected;
  u->src = r->c->rank;
  u->tag = r->tag;
  u->ctx = r->ctx;
  u->len = r->total;
  if (r->mode != send_mode::synchronous && r->total <= eng().eager_max) {
    u->kind = uq_kind::eager;
    u->data = r->total <= sizeof u->inline_data ? u->inline_data : uq_buf_alloc(r->total);
    copy_out(r, 0, u->data, r->total);
    u->received = r->total;
    r->done = r->total;
    r->proto |= proto_data_out | proto_acked;
    m.push_uq(u);
    finish_send_if_done(r);
  } else {
    u->kind = uq_kind::self;
    u->sreq = r;
    m.push_uq(u);
  }
}

// Counts a starting request in its communicator's p2p_pending for MPI_Comm_disconnect (undone by
// complete_request). MPI_COMM_WORLD and MPI_COMM_SELF, which disconnect refuses, skip it: a
// read-modify-write per start and per completion is about 2% of an 8-byte message in a stream.
inline void count_pending(request* r) {
  r->counted = !r->c->predefined;
  if (r->counted) ++r->c->p2p_pending;
}

void start_send(request* r) {
  engine& e = eng();
  r->done = 0;
  r->proto = 0;
  r->status = core::req_status{};
  r->complete.store(false, std::memory_order_relaxed);
  count_pending(r);
  if (r->peer == proc_null) {
    r->status.source = proc_null;
    r->status.tag = any_tag;
    complete_request(r);
    return;
  }
  r->total = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  const int wr = r->c->world_rank(r->peer);
  r->peer_world = wr;
  ++e.pending_sends;
  if (wr == e.my_world) {
    self_send(r);
    return;
  }
  int l = core::rt().local_of_world[static_cast<size_t>(wr)];
  if (l < 0) return remote::start_send(r);  // another host (UCX)
  peer_state& p = e.peers[static_cast<size_t>(l)];
  if (r->mode != send_mode::synchronous) r->proto |= proto_acked;
  if (r->total <= e.eager_max) {
    enqueue(p, out_item{pkt_eager, 0, 0, r});
  } else {
    r->proto |= proto_rndv;
    ++p.rndv_out;
    enqueue(p, out_item{pkt_rts, 0, 0, r});
  }
}

void start_recv(request* r) {
  r->done = 0;
  r->proto = 0;
  r->matched_ = false;
  r->status = core::req_status{};
  r->complete.store(false, std::memory_order_relaxed);
  count_pending(r);
  if (r->peer == proc_null) {
    r->status.source = proc_null;
    r->status.tag = any_tag;
    complete_request(r);
    return;
  }
  r->total = static_cast<uint64_t>(r->count) * static_cast<uint64_t>(r->dt->size());
  match_ctx& m = ctx_of(r->ctx);
  if (unexpected* u = m.find_uq(r->peer, r->tag)) {
    m.remove_uq(u);
    deliver_unexpected(r, u);
    return;
  }
  r->proto |= proto_posted;
  m.post(r);
}

request* make_p2p(core::req_kind kind, const void* buf, int64_t count, const datatype* dt, int peer, int tag,
                  comm* c) {
  request* r = core::request_new(kind);
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->dt = dt;
  const_cast<datatype*>(dt)->retain();
  r->c = c;
  c->retain();
  r->ctx = c->ctx;
  r->peer = peer;
  r->tag = tag;
  return r;
}

}  // namespace

engine& eng() { return *g_engine; }

match_ctx& ctx_of_slow(uint32_t ctx) {
  auto& v = eng().ctxs;
  if (ctx >= v.size()) v.resize(std::max<size_t>(ctx + 1, v.size() * 2), nullptr);
  if (!v[ctx]) v[ctx] = new match_ctx;
  return *v[ctx];
}

void release_request(request* r) {
  r->c->release();
  const_cast<datatype*>(r->dt)->release();
  core::request_delete(r);
}

void complete_request(request* r) {
  // Everything that reads the request happens before it is marked complete: from then on another
  // thread may retire and free it.
  if (r->bsend_block) {
    bsend_release(r->bsend_block);
    r->bsend_block = nullptr;
  }
  if (r->counted) {
    r->counted = false;
    --r->c->p2p_pending;
  }
  if (r->on_complete) {
    r->mark_complete();
    r->on_complete(r);  // internal request: its owner takes it from here
    return;
  }
  if (r->user_freed) {
    // A buffered send's internal request that an MPI_Ibsend / MPI_Bsend_init request follows may
    // be kept (complete) for a later MPI_Cancel.
    if (r->ext && r->kind == core::req_kind::send && !r->ops && bsend_internal_done(r)) return;
    // MPI_Request_free was called while pending: nobody will retire it.
    release_request(r);
    return;
  }
  r->mark_complete();
  if (core::rt().threaded) core::progress_kick();  // another thread may sleep waiting for it
}

void finish_send_if_done(request* r) {
  // Not before the answer to a cancel request either (it names this request).
  if ((r->proto & (proto_data_out | proto_acked | proto_cancel_wait)) != (proto_data_out | proto_acked)) return;
  if (r->is_complete()) return;
  --eng().pending_sends;
  complete_request(r);
}

void stall_describer_register();  // stall_describe.cpp: what this rank waits on, for the watchdog

errc engine_init() {
  g_engine = new engine;
  engine& e = *g_engine;
  core::runtime& R = core::rt();
  e.my_world = R.world_rank;
  g_limits = limits_from_env();
  g_limits_set.store(true, std::memory_order_release);
  e.eager_max = g_limits.shm_eager_max;
  e.cma_min = g_limits.shm_cma_min;
  e.cma_ok = core::cma_wanted();
  e.coop_min = g_limits.shm_coop_min;
  const uint32_t nlocal = static_cast<uint32_t>(R.world_of_local.size());
  e.me_local = static_cast<uint32_t>(R.local_rank);
  e.peers.resize(nlocal);
  e.active_peers.reserve(nlocal);  // never grows while messages flow
  for (auto& bufs : g_uq_bufs) bufs.reserve(32);
  {
    // Unexpected-message entries for a ring's worth of messages from every peer, up front.
    std::vector<unexpected*> warm(32 * nlocal + 64);
    for (auto& u : warm) u = new unexpected;
    for (auto* u : warm) delete u;
  }
  for (uint32_t l = 0; l < nlocal; ++l) e.peers[l].local = l;
  // UCX publishes its address before the barrier below, which every rank then passes.
  if (R.use_ucx)
    if (errc err = remote::init(); err != errc::success) return err;
  if (nlocal > 1) {
    // The first local rank creates the segment under an unpredictable name and publishes it;
    // the others open it (owner checked) after the barrier; the last to map it unlinks it.
    auto params = transport::shm::segment_params::for_ranks(nlocal);
    const std::string key = "baton.shm." + std::to_string(R.world_of_local[0]);
    if (e.me_local == 0) {
      if (errc err = e.seg.create(params, 0); err != errc::success) return err;
      if (errc err = R.pmi.put(key, e.seg.name()); err != errc::success) return err;
    }
    if (errc err = R.pmi.barrier(); err != errc::success) return err;
    if (e.me_local != 0) {
      std::string name;
      if (errc err = R.pmi.get(key, name, R.world_of_local[0]); err != errc::success) return err;
      if (errc err = e.seg.open(name, params, e.me_local); err != errc::success) return err;
    }
    e.seg.mapped();
    e.seg.touch_incoming();
    e.seg.area(e.me_local).asym_fence.store(core::asym_fence_register() ? 1 : 0, std::memory_order_relaxed);
    if (errc err = R.pmi.barrier(); err != errc::success) return err;
    // The asymmetric fence holds only if every rank of this host registered (each is a producer
    // for the others): the same answer on every rank, read after the barrier.
    bool all = true;
    for (uint32_t l = 0; l < nlocal; ++l) all = all && e.seg.area(l).asym_fence.load(std::memory_order_relaxed) == 1;
    core::asym_fence_on = all;
    e.shm = true;
    auto& mine = e.seg.area(e.me_local);
    core::progress_set_doorbell(&mine.doorbell, &mine.sleeping);
    core::progress_set_local_ranks(int(e.seg.nlocal()));
  } else {
    // Alone on this host: the only producers are this process's own threads.
    core::asym_fence_on = core::asym_fence_register();
    // PMI barriers are job-wide: as many as the ranks of hosts with a segment pass (two).
    if (R.use_ucx)
      for (int b = 0; b < 2; ++b)
        if (errc err = R.pmi.barrier(); err != errc::success) return err;
  }
  core::progress_add_poller(shm_poll);
  stall_describer_register();
  return errc::success;
}

void engine_finalize() {
  if (!g_engine) return;
  partitioned_finalize();
  remote::finalize();
  core::progress_remove_poller(shm_poll);
  core::progress_set_doorbell(nullptr, nullptr);
  g_engine->seg.close();
  // Under the engine lock: engine_queues_now() may read the queues from another thread.
  core::engine_guard g;
  for (match_ctx*& m : g_engine->ctxs) {
    if (!m) continue;
    while (unexpected* u = m->uq_head) {
      m->remove_uq(u);
      if (u->data && u->data != u->inline_data) uq_buf_free(u->data, u->len);
      delete u;
    }
    delete m;
    m = nullptr;
  }
  engine* gone = g_engine;
  g_engine = nullptr;
  g.unlock();
  for (auto& bufs : g_uq_bufs) {
    for (char* b : bufs) std::free(b);
    bufs.clear();
  }
  delete gone;
}

bool poll() {
  core::engine_guard g;
  return core::progress_poll();
}

errc isend(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode,
           request** out) {
  core::engine_guard g;
  request* r = make_p2p(core::req_kind::send, buf, count, dt, dest, tag, c);
  r->mode = mode;
  r->active = true;
  start_send(r);
  *out = r;
  core::progress_new_work();
  return errc::success;
}

errc irecv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, request** out) {
  core::engine_guard g;
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, source, tag, c);
  r->active = true;
  start_recv(r);
  *out = r;
  core::progress_new_work();
  return errc::success;
}

errc send_init(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode,
               request** out) {
  request* r = make_p2p(core::req_kind::send, buf, count, dt, dest, tag, c);
  r->mode = mode;
  r->persistent = true;
  r->mark_complete();  // an inactive request tests complete
  *out = r;
  return errc::success;
}

errc recv_init(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, request** out) {
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, source, tag, c);
  r->persistent = true;
  r->mark_complete();
  *out = r;
  return errc::success;
}

errc start(request* r) {
  if (r->active)
    return core::error_set(errc::request, "the persistent request is already active (started and not completed)");
  if (r->ops && r->ops->on_start) {
    r->active = true;
    return r->ops->on_start(r);  // takes the engine lock itself
  }
  core::engine_guard g;
  r->active = true;
  if (r->kind == core::req_kind::send) {
    if (r->mode == send_mode::buffered) return errc::success;  // the ABI layer routes Bsend_init starts
    start_send(r);
  } else {
    start_recv(r);
  }
  core::progress_new_work();
  return errc::success;
}

errc wait(request* r) {
  core::engine_guard g;
  if (r->ops && r->ops->on_poll) {
    core::progress_wait(g, [r] { return r->is_complete() || r->ops->on_poll(r); });
    return errc::success;
  }
  core::progress_wait(g, [r] { return r->is_complete(); });
  return errc::success;
}

errc send(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, send_mode mode) {
  if (dest == proc_null) return errc::success;
  core::engine_guard g;
  engine& e = eng();
  const int wr = c->world_rank(dest);
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  int l;
  if (mode != send_mode::synchronous && wr != e.my_world && e.shm && bytes <= e.seg.slot_payload() &&
      bytes <= e.eager_max && (l = core::rt().local_of_world[static_cast<size_t>(wr)]) >= 0) {
    peer_state& p = e.peers[static_cast<size_t>(l)];
    if (p.outq.empty()) {
      if (pkt_header* h = reserve_slot(p)) {
        h->type = pkt_eager;
        h->flags = 0;
        h->ctx = c->ctx;
        h->src = c->rank;
        h->tag = tag;
        h->frag_len = static_cast<uint32_t>(bytes);
        h->msg_len = bytes;
        h->cookie = 0;
        if (dt->is_contiguous()) {
          if (bytes) core::copy_bytes(segment::payload(h), static_cast<const char*>(buf) + dt->true_lb(), bytes);
        } else {
          (void)core::pack_all(buf, count, *dt, segment::payload(h));
        }
        commit_slot(p, h);
        ring_doorbell(p.local);
        return errc::success;
      }
    }
  }
  // Blocking: the request lives on this stack frame and holds no references (the caller's
  // handles stay valid for the whole call).
  request r;
  r.kind = core::req_kind::send;
  r.buf = const_cast<void*>(buf);
  r.count = count;
  r.dt = dt;
  r.c = c;
  r.ctx = c->ctx;
  r.peer = dest;
  r.tag = tag;
  r.mode = mode;
  r.active = true;
  start_send(&r);
  core::progress_wait(g, [&r] { return r.is_complete(); });
  return r.status.error;
}

errc recv(void* buf, int64_t count, const datatype* dt, int source, int tag, comm* c, req_status* st) {
  core::engine_guard g;
  request r;  // blocking: on this stack frame, no references taken
  r.kind = core::req_kind::recv;
  r.buf = buf;
  r.count = count;
  r.dt = dt;
  r.c = c;
  r.ctx = c->ctx;
  r.peer = source;
  r.tag = tag;
  r.active = true;
  start_recv(&r);
  core::progress_wait(g, [&r] { return r.is_complete(); });
  if (st) *st = r.status;
  return r.status.error;
}

}  // namespace baton::p2p

namespace baton::p2p {
void start_send_locked(request* r) { start_send(r); }
void start_recv_locked(request* r) { start_recv(r); }

// For matched.cpp (engine_state.hpp).
pkt_header* slot_reserve(peer_state& p) { return reserve_slot(p); }
void slot_commit(peer_state& p, pkt_header* h) { commit_slot(p, h); }
void peer_doorbell(uint32_t local) { ring_doorbell(local); }
void emission_enqueue(peer_state& p, const out_item& it) { enqueue(p, it); }
peer_state& peer_of_world(int world_rank) {
  return eng().peers[static_cast<size_t>(core::rt().local_of_world[static_cast<size_t>(world_rank)])];
}
}  // namespace baton::p2p

// ---- probes, matched probes, cancel ----
namespace baton::p2p {

struct message : core::slab_allocated<message> {
  uint32_t magic = message_magic;
  bool no_proc = false;
  unexpected* u = nullptr;
  comm* c = nullptr;
};

namespace {
message g_no_proc = [] {
  message m;
  m.no_proc = true;
  return m;
}();

void probe_status(const unexpected* u, req_status* st) {
  if (!st) return;
  st->source = u->src;
  st->tag = u->tag;
  st->error = errc::success;
  st->cancelled = false;
  st->bytes = u->len;
}

void null_status(req_status* st) {
  if (!st) return;
  *st = req_status{};
  st->source = proc_null;
  st->tag = any_tag;
}
}  // namespace

message* message_no_proc() { return &g_no_proc; }
// MPI_MESSAGE_NO_PROC is a predefined handle: every other message comes from the slab.
bool message_valid(const message* m) { return m && core::slab_holds<message>(m) && m->magic == message_magic; }

errc iprobe(int source, int tag, comm* c, bool* flag, req_status* st) {
  if (source == proc_null) {
    *flag = true;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  core::progress_poll();
  unexpected* u = ctx_of(c->ctx).find_uq(source, tag);
  *flag = u != nullptr;
  if (u) probe_status(u, st);
  return errc::success;
}

errc probe(int source, int tag, comm* c, req_status* st) {
  if (source == proc_null) {
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  unexpected* found = nullptr;
  match_ctx& m = ctx_of(c->ctx);
  core::progress_wait(g, [&] { return (found = m.find_uq(source, tag)) != nullptr; });
  probe_status(found, st);
  return errc::success;
}

errc improbe(int source, int tag, comm* c, bool* flag, message** msg, req_status* st) {
  if (source == proc_null) {
    *flag = true;
    *msg = &g_no_proc;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  core::progress_poll();
  match_ctx& m = ctx_of(c->ctx);
  unexpected* u = m.find_uq(source, tag);
  *flag = u != nullptr;
  *msg = nullptr;
  if (!u) return errc::success;
  m.remove_uq(u);
  probe_status(u, st);
  auto* msgp = new message;
  msgp->u = u;
  msgp->c = c;
  c->retain();
  *msg = msgp;
  return errc::success;
}

errc mprobe(int source, int tag, comm* c, message** msg, req_status* st) {
  if (source == proc_null) {
    *msg = &g_no_proc;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  match_ctx& m = ctx_of(c->ctx);
  unexpected* u = nullptr;
  core::progress_wait(g, [&] { return (u = m.find_uq(source, tag)) != nullptr; });
  m.remove_uq(u);
  probe_status(u, st);
  auto* msgp = new message;
  msgp->u = u;
  msgp->c = c;
  c->retain();
  *msg = msgp;
  return errc::success;
}

errc imrecv(void* buf, int64_t count, const datatype* dt, message* msg, request** out) {
  core::engine_guard g;
  if (msg->no_proc) {
    request* r = make_p2p(core::req_kind::recv, buf, count, dt, proc_null, any_tag, core::rt().self);
    r->active = true;
    start_recv(r);
    *out = r;
    return errc::success;
  }
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, msg->u->src, msg->u->tag, msg->c);
  r->active = true;
  r->total = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  unexpected* u = msg->u;
  msg->c->release();
  delete msg;
  deliver_unexpected(r, u);
  *out = r;
  return errc::success;
}

errc cancel(request* r) {
  core::engine_guard g;
  if (r->kind == core::req_kind::send) {
    // Requests with hooks (buffered, matched) did their part in on_cancel.
    if (!r->ops) (void)cancel_send_locked(r);
    return errc::success;
  }
  if (r->kind != core::req_kind::recv) return errc::success;
  if (r->is_complete() || !(r->proto & proto_posted)) return errc::success;
  ctx_of(r->ctx).unpost(r);
  r->proto &= ~proto_posted;
  r->status.cancelled = true;
  r->status.source = any_source;
  r->status.tag = any_tag;
  r->status.bytes = 0;
  complete_request(r);
  return errc::success;
}

bool cancel_send_locked(request* r) {
  // (peer_world < 0: not a message, e.g. an MPI_Buffer_iflush request: it completes normally.)
  if ((r->proto & proto_cancel_wait) || r->status.cancelled || r->peer == proc_null || r->peer_world < 0) return false;
  engine& e = eng();
  if (r->is_complete()) {
    // Complete but not retired (the caller holds the request): an eager message to another rank
    // whose data has left may still wait unmatched in the receiver's queue, so ask for it like a
    // pending one; the request is pending again until the answer. A synchronous or rendezvous
    // send completes only once matched, a failed one never left, and a small message to oneself
    // was copied into the queue without a request to name it.
    if (r->peer_world == e.my_world || r->status.error != errc::success || r->mode == send_mode::synchronous ||
        (r->proto & proto_rndv))
      return false;
    r->complete.store(false, std::memory_order_release);
    ++e.pending_sends;  // finish_send_if_done counts it out again
  } else if (r->peer_world == e.my_world) {
    // To oneself: only a message still holding the sender's buffer (synchronous or large) waits
    // in the queue with the request; a small one was copied and its send is complete already.
    match_ctx& m = ctx_of(r->ctx);
    for (unexpected* u = m.uq_tail; u; u = u->prev) {
      if (u->kind != uq_kind::self || u->sreq != r) continue;
      m.remove_uq(u);
      delete u;
      r->status.cancelled = true;
      r->proto |= proto_data_out | proto_acked;
      finish_send_if_done(r);
      return true;
    }
    return false;  // matched: the send completes with its receive
  }
  r->proto |= proto_cancel_wait;
  if (core::rt().local_of_world[static_cast<size_t>(r->peer_world)] < 0) {
    remote::cancel_send(r);
    return true;
  }
  // Behind the message in the pair's FIFO: the receiver has all of it when the request arrives.
  send_ctrl(r->peer_world, pkt_cancel_req, reinterpret_cast<uint64_t>(r),
            uint64_t(r->ctx) | (uint64_t(uint32_t(r->tag)) << 32));
  return true;
}

bool withdraw_unexpected(uint32_t ctx, int peer_world, int tag, uint64_t cookie, void** remote_desc,
                         uint64_t* remote_len) {
  *remote_desc = nullptr;
  *remote_len = 0;
  match_ctx& m = ctx_of(ctx);
  // Newest first: the message of the send being cancelled arrived just before the request. An
  // older entry with the same cookie (a completed eager send whose request object was reused, or
  // an earlier start of a persistent request) has the same envelope, so it is matched before the
  // newer one: if the newer one is gone, so is every older one.
  for (unexpected* u = m.uq_tail; u; u = u->prev) {
    if (u->cookie != cookie || u->peer_world != peer_world || u->tag != tag || u->kind == uq_kind::self) continue;
    m.remove_uq(u);
    if (u->kind == uq_kind::remote_rndv) {
      *remote_desc = reinterpret_cast<void*>(u->addr);
      *remote_len = u->len;
    }
    if (u->data && u->data != u->inline_data) uq_buf_free(u->data, u->len);
    delete u;
    return true;
  }
  return false;
}

void cancel_answer(request* r, bool cancelled) {
  r->proto &= ~proto_cancel_wait;
  if (cancelled) {
    r->status.cancelled = true;
    const int l = core::rt().local_of_world[static_cast<size_t>(r->peer_world)];
    if (l >= 0) {
      // Shared memory: every byte of an eager message left before the request; a rendezvous
      // message was never read.
      if ((r->proto & proto_rndv) && !(r->proto & proto_data_out)) --eng().peers[static_cast<size_t>(l)].rndv_out;
      r->proto |= proto_data_out | proto_acked;
    } else {
      // UCX: no acknowledgement will come; the transport's operation still completes (data_out).
      r->proto |= proto_acked;
    }
  }
  finish_send_if_done(r);
}

}  // namespace baton::p2p

namespace baton::p2p {
void flush() {
  if (!g_engine) return;
  core::engine_guard g;
  // Every send this rank started must complete before it leaves: a peer may still need this rank
  // to answer a rendezvous or to emit queued acknowledgements.
  core::progress_wait(g, [] { return eng().active_peers.empty() && eng().pending_sends == 0; });
}
}  // namespace baton::p2p

namespace baton::p2p {

namespace {
// An internal request with its arguments set, not started.
request* internal_request(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag,
                          comm* c, uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = core::request_new(kind);
  r->buf = buf;
  r->count = count;
  r->dt = dt;
  r->c = c;
  r->ctx = ctx;
  r->peer = peer;
  r->tag = tag;
  r->on_complete = on_complete;
  r->ext = owner;
  r->step = step;
  return r;
}
}  // namespace

request* prepare_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                          uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = internal_request(kind, buf, count, dt, peer, tag, c, ctx, on_complete, owner, step);
  if (kind == core::req_kind::recv) ctx_of(ctx).pin(peer, tag);
  return r;
}

void release_prepared(request* r) {
  if (r->kind == core::req_kind::recv) ctx_of(r->ctx).unpin(r->peer, r->tag);
  core::request_delete(r);
}

void start_prepared(request* r) {
  r->active = true;
  if (r->kind == core::req_kind::send) {
    start_send(r);
  } else {
    start_recv(r);
  }
}

request* start_internal(core::req_kind kind, void* buf, int64_t count, const datatype* dt, int peer, int tag, comm* c,
                        uint32_t ctx, void (*on_complete)(request*), void* owner, uint32_t step) {
  request* r = internal_request(kind, buf, count, dt, peer, tag, c, ctx, on_complete, owner, step);
  start_prepared(r);
  return r;
}

}  // namespace baton::p2p

// ---- MPI_Isendrecv / MPI_Isendrecv_replace: one request over an internal send and receive ----
namespace baton::p2p {

namespace {
struct sendrecv_state {
  int pending = 2;
  void* packed = nullptr;  // Isendrecv_replace: the packed copy of the outgoing data
};

void sendrecv_part_done(request* q) {
  request* user = static_cast<request*>(q->ext);
  auto* st = static_cast<sendrecv_state*>(user->scratch);
  if (q->kind == core::req_kind::recv) {
    user->status = q->status;
  } else if (q->status.error != errc::success && user->status.error == errc::success) {
    user->status.error = q->status.error;
  }
  core::request_delete(q);
  if (--st->pending == 0) {
    std::free(st->packed);
    st->packed = nullptr;
    complete_request(user);
  }
}

void sendrecv_destroy(request* r) {
  auto* st = static_cast<sendrecv_state*>(r->scratch);
  if (st) std::free(st->packed);
  delete st;
  r->scratch = nullptr;
}

errc sendrecv_refuse_cancel(request*) {
  return core::error_set(errc::request, "an MPI_Isendrecv request cannot be cancelled");
}

const core::request_ops sendrecv_ops{nullptr, sendrecv_refuse_cancel, nullptr, sendrecv_destroy};
}  // namespace

errc isendrecv(const void* sendbuf, int64_t scount, const datatype* stype, int dest, int stag, void* recvbuf,
               int64_t rcount, const datatype* rtype, int source, int rtag, comm* c, bool replace, request** out) {
  core::engine_guard g;
  // The user request carries the receive's arguments (status, buffer) and holds the references.
  request* user = make_p2p(core::req_kind::recv, recvbuf, rcount, rtype, source, rtag, c);
  user->ops = &sendrecv_ops;
  user->active = true;
  auto* st = new sendrecv_state;
  user->scratch = st;
  const void* data = sendbuf;
  const datatype* dt = stype;
  int64_t n = scount;
  if (replace) {
    const uint64_t bytes = static_cast<uint64_t>(scount) * static_cast<uint64_t>(stype->size());
    st->packed = std::malloc(bytes ? bytes : 1);
    (void)core::pack_all(sendbuf, scount, *stype, st->packed);
    data = st->packed;
    dt = core::predefined_datatype(0x247);  // MPI_BYTE
    n = static_cast<int64_t>(bytes);
  }
  *out = user;
  // Both parts may complete at once (self, PROC_NULL): the counter handles any order.
  (void)start_internal(core::req_kind::recv, recvbuf, rcount, rtype, source, rtag, c, c->ctx, sendrecv_part_done,
                       user, 0);
  (void)start_internal(core::req_kind::send, const_cast<void*>(data), n, dt, dest, stag, c, c->ctx,
                       sendrecv_part_done, user, 1);
  core::progress_new_work();
  return errc::success;
}

}  // namespace baton::p2p

namespace baton::p2p {
void wake_local_ranks(const uint32_t* locals, int n) {
  if (g_engine == nullptr || eng().seg.nlocal() < 2) return;
  segment& s = eng().seg;
  // The same handshake as ring_doorbell(): a sleeper announces itself, fences (sleeper_fence) and
  // checks again; the publisher's side is a compiler barrier when the asymmetric fence is on.
  core::producer_fence();
  for (int i = 0; i < n; ++i) {
    if (locals[i] == eng().me_local) continue;
    auto& a = s.area(locals[i]);
    if (a.sleeping.load(std::memory_order_relaxed)) {
      a.doorbell.fetch_add(1, std::memory_order_release);
      transport::shm::futex_wake(&a.doorbell);
    }
  }
}
}  // namespace baton::p2p
