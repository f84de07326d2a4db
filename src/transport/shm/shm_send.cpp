// Shared-memory transport, sending: packets into a peer's ring, output that waits for room, the
// bulk channel of the pipelined rendezvous.
#include <algorithm>

#include "core/comm.hpp"
#include "transport/shm/shm.hpp"

namespace baton::transport::shm {

void mark_active(peer_state& p) {
  auto& a = st().active_peers;
  if (std::find(a.begin(), a.end(), p.local) == a.end()) a.push_back(p.local);
}

// Emits as much of the item as the ring takes; true when the item is fully emitted.
bool emit(peer_state& p, const out_item& it) {
  segment& s = st().seg;
  const size_t cap = s.slot_payload();
  if (it.req && it.type >= pkt_ext_first) return ext::emit(p, it);
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
    h->flags = r->dt->is_contiguous() ? flag_cma : 0;
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
    h->flags = r->mode == core::send_mode::synchronous ? flag_sync : 0;
    h->ctx = r->ctx;
    h->src = r->c->rank;
    h->tag = r->tag;
    h->frag_len = static_cast<uint32_t>(n);
    h->msg_len = r->total;
    h->cookie = reinterpret_cast<uint64_t>(r);
    core::copy_out(r, r->done, segment::payload(h), n);
    commit_slot(p, h);
    r->done += n;
    any = true;
    if (r->total == 0) break;
  }
  if (any) ring_doorbell(p.local);
  if (r->done < r->total || (!any && r->total == 0)) return false;  // a zero-byte message needs its slot too
  up::sent(r, sent_data_out);
  return true;
}

void enqueue(peer_state& p, const out_item& it) {
  if (p.outq.empty() && emit(p, it)) return;
  p.outq.push_back(it);
  mark_active(p);
}

// Streams the head rendezvous send of a peer through its bulk channel.
bool push_bulk(peer_state& p) {
  state& e = st();
  segment& s = e.seg;
  bool moved = false;
  while (!p.bulkq.empty()) {
    request* r = p.bulkq.front();
    while (r->done < r->total) {
      auto* c = s.chunk(p.local, e.me_local, p.tx_chunk);
      if (c->full.load(std::memory_order_acquire)) break;
      uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(s.params().chunk_size, r->total - r->done));
      core::copy_out(r, r->done, segment::chunk_data(c), n);
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
    up::sent(r, sent_data_out | sent_acked);
  }
  return moved;
}

void wake_local_ranks(const uint32_t* locals, int n) {
  if (g_state == nullptr || st().seg.nlocal() < 2) return;
  segment& s = st().seg;
  // The same handshake as ring_doorbell(): a sleeper announces itself, fences (sleeper_fence) and
  // checks again; the publisher's side is a compiler barrier when the asymmetric fence is on.
  core::producer_fence();
  for (int i = 0; i < n; ++i) {
    if (locals[i] == st().me_local) continue;
    auto& a = s.area(locals[i]);
    if (a.sleeping.load(std::memory_order_relaxed)) {
      a.doorbell.fetch_add(1, std::memory_order_release);
      futex_wake(&a.doorbell);
    }
  }
}

}  // namespace baton::transport::shm
