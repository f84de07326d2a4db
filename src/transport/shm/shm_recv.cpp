// Shared-memory transport, receiving: the poller reads every peer's ring and hands envelopes to
// matching (transport.hpp, namespace up), then sends output that waited for room.
#include "transport/shm/shm.hpp"

namespace baton::transport::shm {

namespace {

void handle_packet(peer_state& p, pkt_header* h) {
  switch (h->type) {
    case pkt_eager: {
      const envelope e{h->ctx, h->src, h->tag, p.proc, h->msg_len, h->cookie,
                       (h->flags & flag_sync) != 0};
      if (h->frag_len >= h->msg_len) {
        up::eager(e, segment::payload(h));
      } else {
        p.rx_msg = up::eager_first(e, segment::payload(h), h->frag_len);
        p.rx_len = h->msg_len;
        p.rx_off = h->frag_len;
      }
      break;
    }
    case pkt_cont: {
      if (p.rx_msg.req) {
        core::copy_in(p.rx_msg.req, p.rx_off, segment::payload(h), h->frag_len);
      } else if (p.rx_msg.data) {
        core::copy_bytes(p.rx_msg.data + p.rx_off, segment::payload(h), h->frag_len);
      }
      p.rx_off += h->frag_len;
      if (p.rx_off >= p.rx_len) {
        up::eager_end(p.rx_msg);
        p.rx_msg = inbound{};
      }
      break;
    }
    case pkt_rts: {
      const envelope e{h->ctx, h->src, h->tag, p.proc, h->msg_len, h->cookie, false};
      up::rndv(e, rndv_ref{kind::shm, h->flags, h->aux});
      break;
    }
    case pkt_cts: {
      auto* r = reinterpret_cast<request*>(h->cookie);
      r->cookie = h->aux;
      r->done = 0;
      p.bulkq.push_back(r);
      mark_active(p);
      break;
    }
    case pkt_sync_ack:
      up::sent(reinterpret_cast<request*>(h->cookie), sent_acked);
      break;
    case pkt_copy_job:
      coop_join(p, reinterpret_cast<request*>(h->cookie), h->aux);
      break;
    case pkt_cancel_req: {
      const bool ok = up::withdraw(static_cast<uint32_t>(h->aux), p.proc,
                                   static_cast<int32_t>(h->aux >> 32), h->cookie);
      send_ctrl(p.local, pkt_cancel_ans, h->cookie, ok ? 1 : 0);
      break;
    }
    case pkt_cancel_ans: {
      auto* r = reinterpret_cast<request*>(h->cookie);
      if (h->aux) {
        // Every byte of an eager message left before the request; a rendezvous message was never
        // read.
        if ((r->proto & sent_rndv) && !(r->proto & sent_data_out)) --p.rndv_out;
        r->proto |= sent_data_out | sent_acked;
      }
      up::cancel_answered(r, h->aux != 0);
      break;
    }
    case pkt_fin: {
      auto* r = reinterpret_cast<request*>(h->cookie);
      --p.rndv_out;
      r->done = r->total;
      up::sent(r, sent_data_out | sent_acked);
      break;
    }
    default:
      if (h->type >= pkt_ext_first) ext::packet(p, h);
      break;
  }
}

}  // namespace

bool poll_bulk_in(peer_state& p) {
  state& e = st();
  segment& s = e.seg;
  bool moved = false;
  while (p.bulk_in) {
    auto* c = s.chunk(e.me_local, p.local, p.rx_chunk);
    if (!c->full.load(std::memory_order_acquire)) break;
    auto* r = reinterpret_cast<request*>(c->rreq);
    core::copy_in(r, c->offset, segment::chunk_data(c), c->len);
    r->done += c->len;
    c->full.store(0, std::memory_order_release);
    p.rx_chunk = (p.rx_chunk + 1 == s.params().nchunks) ? 0 : p.rx_chunk + 1;
    moved = true;
    if (r->done >= r->msg_len) {
      --p.bulk_in;
      up::received(r);
    }
  }
  return moved;
}

bool poll() {
  state& e = st();
  if (!e.on) return false;
  bool moved = false;
  const uint32_t n = e.seg.nlocal();
  const uint32_t nslots = e.seg.params().nslots;
  for (uint32_t l = 0; l < n; ++l) {
    if (l == e.me_local) continue;
    peer_state& p = e.peers[l];
    if (slot_parked(p, p.rx)) [[unlikely]]
      ext::unpark(p, p.rx);
    pkt_header* h = e.seg.slot(e.me_local, l, p.rx);
    if (h->full.load(std::memory_order_acquire)) {
      // A producer can only be waiting for room if the ring was full: then the slot before this
      // one (the newest it wrote) is full too. Only then is the doorbell worth its fence.
      const bool was_full = e.seg.slot(e.me_local, l, p.rx == 0 ? nslots - 1 : p.rx - 1)->full.load(
          std::memory_order_relaxed);
      for (int k = 0; k < 16; ++k) {
        // The producer is ahead while slots are full: fetch the line of a slot it has likely
        // written (shm.hpp: ring_prefetch_ahead) while this one is handled.
        __builtin_prefetch(e.seg.slot(e.me_local, l, slot_ahead(p.rx, ring_prefetch_ahead, nslots)), 0, 3);
        handle_packet(p, h);
        if (!slot_parked(p, p.rx)) h->full.store(0, std::memory_order_release);  // parked: stays full
        p.rx = (p.rx + 1 == nslots) ? 0 : p.rx + 1;
        if (slot_parked(p, p.rx)) [[unlikely]]
          ext::unpark(p, p.rx);
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
  if (coop_pending()) moved |= poll_coop();
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

}  // namespace baton::transport::shm
