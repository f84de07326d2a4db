// The shared-memory transport: processes of this host, through the host's segment
// (shm_segment.hpp: a ring of slots per ordered pair, a bulk channel per pair, copy-job tables,
// a doorbell per rank).
//
// Protocols (docs/architecture.md, "Shared-memory transport"):
// - eager: the envelope and the data go through ring slots (a message larger than one slot
//   continues in pkt_cont slots); a synchronous sender waits for pkt_sync_ack.
// - rendezvous: an RTS carries the envelope and the sender's buffer address; the matched receiver
//   reads the data with one process_vm_readv (shm_rndv.cpp) or, from coop_min on, shares the copy
//   with the sender (copy jobs, shm_copy_job.cpp), or, where single copy is not permitted, asks
//   for the data (pkt_cts) and the sender streams them through the pair's bulk channel.
// - control packets: pkt_sync_ack, pkt_fin (rendezvous data read), pkt_cancel_req/_ans.
// Files: shm_init.cpp (segment, doorbells, start-up), shm_send.cpp (emission, output queues),
// shm_recv.cpp (the poller: packets into matching), shm_rndv.cpp, shm_copy_job.cpp.
//
// Packet types from pkt_ext_first on belong to the layer above (src/p2p/matched.cpp: matched
// channels of MPI_Match'ed requests ride the same rings): the poller hands them to
// ext::packet, emissions of those types to ext::emit, and slots that layer parked to
// ext::unpark. This header is what it may use of the rings.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/fifo.hpp"
#include "core/futex.hpp"
#include "core/request_bytes.hpp"
#include "transport/shm/shm_segment.hpp"
#include "transport/transport.hpp"

namespace baton::transport::shm {

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
  pkt_ext_first = 16,  // from here on: the layer above's (ext::packet)
};
enum pkt_flag : uint8_t { flag_sync = 1, flag_cma = 2 };

// A pending emission towards one peer, kept in order.
struct out_item {
  uint8_t type;        // pkt_eager (data send, continues across slots) / pkt_rts / control types
  uint64_t cookie;
  uint64_t aux;
  request* req;        // data sends
};

struct peer_state {
  uint32_t local = 0;  // index on this host
  int proc = 0;        // process index (transport.hpp)
  uint32_t tx = 0, rx = 0, tx_chunk = 0, rx_chunk = 0;
  core::fifo<out_item> outq;
  core::fifo<request*> bulkq;
  // An eager message arriving across several slots: where its next pieces go.
  inbound rx_msg;
  uint64_t rx_len = 0, rx_off = 0;
  uint32_t bulk_in = 0;  // receives expecting bulk chunks from this peer
  uint32_t rndv_out = 0;  // rendezvous sends towards this peer not yet complete
  // Incoming ring slots left full on purpose (bit i: slot i), holding a matched message that
  // arrived before its receive was started (p2p/matched.cpp: copied once, at the start, instead
  // of twice). The consumer moves past them; when it comes round to one, it copies it out first.
  uint64_t parked = 0;
};

// Slot i of p's incoming ring is parked (slots past the mask's 64 bits never are).
inline bool slot_parked(const peer_state& p, uint32_t i) { return p.parked && i < 64 && (p.parked >> i & 1); }

struct state {
  segment seg;
  bool on = false;                      // the segment is open (more than one rank on this host)
  uint32_t me_local = 0;
  std::vector<peer_state> peers;        // by local index
  std::vector<uint32_t> active_peers;   // local peers with pending output
  uint64_t eager_max = 32768;
  uint64_t cma_min = 1 << 20;
  bool cma_ok = true;
  bool cma_proven = false;     // a process_vm_readv from a peer succeeded here
  uint64_t coop_min = 256 << 10;  // copy jobs (both ends copy) from this size (BATON_SHM_COOP_MIN, 0: off)
  bool coop_write_ok = true;   // process_vm_writev into peers works (else this end leaves jobs to them)
};

// The transport's state (made by init, kept until finalize; nullptr outside).
extern state* g_state;
inline state& st() { return *g_state; }
inline peer_state& peer(uint32_t local) { return st().peers[local]; }

// ---- the rings (engine lock held) ----

// Rings local rank dst's doorbell if it sleeps (core/futex.hpp: producer_fence).
inline void ring_doorbell(uint32_t dst) {
  segment& s = st().seg;
  core::producer_fence();
  auto& a = s.area(dst);
  if (a.sleeping.load(std::memory_order_relaxed)) {
    a.doorbell.fetch_add(1, std::memory_order_release);
    futex_wake(&a.doorbell);
  }
}

// The next free slot of the ring towards p, or nullptr while it is full.
inline pkt_header* reserve_slot(peer_state& p) {
  state& s = st();
  pkt_header* h = s.seg.slot(p.local, s.me_local, p.tx);
  if (h->full.load(std::memory_order_acquire)) return nullptr;
  return h;
}

// How many slots ahead each end fetches a ring's lines: a line moves between cores in about 200
// cycles here (80 ns), longer than an 8-byte send or receive takes, so fetching only the next
// slot leaves most of each transfer on the path of a stream of messages; much further ahead, each
// end pulls lines the other has not finished with (6: slower than 3).
constexpr uint32_t ring_prefetch_ahead = 3;
// The producer also takes, for writing, the payload lines that a message the size of the one it
// just sent would fill in that slot, up to this many lines (about 2 KiB): the consumer read them
// last, and a store to a line another core shares waits for it to let go. Past 2 KiB the copy's
// own streaming does as well (8 KiB: slower with them).
constexpr uint32_t ring_prefetch_lines = 34;

// The slot `ahead` positions past slot i of a ring of n slots.
inline uint32_t slot_ahead(uint32_t i, uint32_t ahead, uint32_t n) { return i + ahead >= n ? i + ahead - n : i + ahead; }

// Asks for the cache line at p in a state this core may write (PREFETCHW, which processors
// before it run as a no-op).
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" ::"m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// Publishes a slot reserve_slot gave and moves to the next.
inline void commit_slot(peer_state& p, pkt_header* h) {
  state& s = st();
  const uint32_t n = s.seg.params().nslots;
  h->full.store(1, std::memory_order_release);
  p.tx = (p.tx + 1 == n) ? 0 : p.tx + 1;
  // The next slots' lines were last written by the consumer (it clears `full`), and it may be
  // spinning on the next one: fetch them now, so that reserve_slot's load of `full` hits instead
  // of stalling on a transfer between cores (most of an 8-byte message's send time). A window of
  // 64 8-byte MPI_Isend: 150 -> 100 cycles per send; with the payload lines, 32 B to 2 KiB
  // messages 1.7-2.4x as many per second (bench/pt2pt_bandwidth).
  __builtin_prefetch(s.seg.slot(p.local, s.me_local, p.tx), 0, 3);
  const char* ahead = reinterpret_cast<const char*>(s.seg.slot(p.local, s.me_local, slot_ahead(p.tx, ring_prefetch_ahead, n)));
  __builtin_prefetch(ahead, 0, 3);
  const uint32_t lines = std::min<uint32_t>((uint32_t(sizeof(pkt_header)) + h->frag_len + 63) / 64, ring_prefetch_lines);
  for (size_t i = 1; i < lines; ++i) prefetch_for_write(ahead + 64 * i);
}

// Emits the item at once if nothing waits before it and the ring has room, else queues it
// (shm_send.cpp). Items of types from pkt_ext_first go through ext::emit.
void enqueue(peer_state& p, const out_item& it);

// For the shared-memory collectives: after publishing a flag in shared memory, rings the doorbell
// of each listed rank of this host (indices on the host) that sleeps waiting for progress.
void wake_local_ranks(const uint32_t* locals, int n);

// ---- hooks the layer above implements (p2p/matched.cpp) ----
namespace ext {
// A packet of a type from pkt_ext_first arrived from p (the slot is freed after, unless parked).
void packet(peer_state& p, pkt_header* h);
// The consumer reached parked slot `idx` of p's ring again: copy its message out, free the slot.
void unpark(peer_state& p, uint32_t idx);
// Emits as much of the item (type from pkt_ext_first, req set) as the ring takes; true when done.
bool emit(peer_state& p, const out_item& it);
}  // namespace ext

// ---- the transport's operations (transport.hpp) ----
struct ops {
  [[nodiscard]] static errc init();
  static void finalize();
  static void send_eager(request* r, uint32_t local) { enqueue(peer(local), out_item{pkt_eager, 0, 0, r}); }
  static void send_rndv(request* r, uint32_t local) {
    peer_state& p = peer(local);
    ++p.rndv_out;
    enqueue(p, out_item{pkt_rts, 0, 0, r});
  }
  static inline bool inject(uint32_t local, const envelope& e, const void* buf, int64_t count,
                            const core::datatype* dt);
  static void ack_match(uint32_t local, uint64_t cookie) {
    enqueue(peer(local), out_item{pkt_sync_ack, cookie, 0, nullptr});
  }
  static void cancel_send(request* r, uint32_t local) {
    // Behind the message in the pair's FIFO: the receiver has all of it when the request arrives.
    enqueue(peer(local), out_item{pkt_cancel_req, reinterpret_cast<uint64_t>(r),
                                  uint64_t(r->ctx) | (uint64_t(uint32_t(r->tag)) << 32), nullptr});
  }
  static void rndv_fetch(request* r, uint32_t local, uint64_t cookie, const rndv_ref& ref);
  static void rndv_drop(uint32_t, uint64_t, const rndv_ref&) {}  // the data were never read: nothing held
  static bool quiet() { return g_state == nullptr || g_state->active_peers.empty(); }
};

// An eager message in one slot, written within the call when nothing waits before it.
inline bool ops::inject(uint32_t local, const envelope& e, const void* buf, int64_t count, const core::datatype* dt) {
  peer_state& p = peer(local);
  if (!p.outq.empty()) return false;
  pkt_header* h = reserve_slot(p);
  if (!h) return false;
  if (dt->is_contiguous()) {
    if (e.len) core::copy_bytes(segment::payload(h), static_cast<const char*>(buf) + dt->true_lb(), e.len);
  } else {
    (void)core::pack_all(buf, count, *dt, segment::payload(h));
  }
  h->type = pkt_eager;
  h->flags = 0;
  h->ctx = e.ctx;
  h->src = e.src;
  h->tag = e.tag;
  h->frag_len = static_cast<uint32_t>(e.len);
  h->msg_len = e.len;
  h->cookie = e.cookie;
  commit_slot(p, h);
  ring_doorbell(p.local);
  return true;
}

// Bytes one ring slot carries on a host of nlocal ranks (the segment's layout).
uint64_t slot_payload_for(uint32_t nlocal);

// ---- inside the transport (its .cpp files) ----
bool emit(peer_state& p, const out_item& it);
void mark_active(peer_state& p);
// Sends a control packet towards local rank `local`.
inline void send_ctrl(uint32_t local, uint8_t type, uint64_t cookie, uint64_t aux) {
  enqueue(peer(local), out_item{type, cookie, aux, nullptr});
}
bool push_bulk(peer_state& p);
bool poll_bulk_in(peer_state& p);
bool poll();
// Copy jobs (shm_copy_job.cpp).
bool coop_start(request* r, peer_state& p, uint64_t cookie, uint64_t addr, uint64_t bytes);
void coop_join(peer_state& p, request* s, uint64_t aux);
bool coop_pending();
bool poll_coop();

}  // namespace baton::transport::shm
