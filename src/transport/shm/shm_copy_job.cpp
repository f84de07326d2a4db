// Shared-memory transport, copy jobs: both ends copy a large message (shm_segment.hpp: copy_job).
#include <algorithm>

#include "core/copy.hpp"
#include "transport/shm/shm.hpp"

namespace baton::transport::shm {

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
    --st().peers[c.local].rndv_out;
    r->done = r->total;
    up::sent(r, sent_data_out | sent_acked);
  } else {
    r->done = r->msg_len;
    up::received(r);
  }
  return true;
}

// Claims and copies chunks while any is left, then finishes or waits in g_coop.
void coop_run(const coop_end& c) {
  state& e = st();
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

}  // namespace

bool coop_pending() { return !g_coop.empty(); }

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
bool coop_start(request* r, peer_state& p, uint64_t cookie, uint64_t addr, uint64_t bytes) {
  state& e = st();
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
  send_ctrl(p.local, pkt_copy_job, cookie, reinterpret_cast<uint64_t>(buf) | (uint64_t(slot) << 58));
  coop_run(coop_end{j, r, false, p.local, e.seg.area(p.local).pid, buf, addr});
  return true;
}

// Sender: the receiver of `s` set up job `slot` towards its buffer at `addr`.
void coop_join(peer_state& p, request* s, uint64_t aux) {
  state& e = st();
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

}  // namespace baton::transport::shm
