// Buffered mode (MPI-4.1 3.6): the buffers buffered sends copy into. There are three places a
// buffer can be attached: the process (MPI_Buffer_attach), a session (MPI_Session_attach_buffer)
// and a communicator (MPI_Comm_attach_buffer); a buffered send uses its communicator's buffer,
// else the buffer of the session the communicator derives from, else the process buffer. Each is a
// bsend_buffer, one mechanism:
//  - a user buffer is carved into blocks by a first-fit free list;
//  - an automatic one (MPI_BUFFER_AUTOMATIC) allocates each block and frees it once sent, so it
//    grows as needed.
// A buffered send packs its data into a block and sends from there; the block goes back when that
// internal send has left it. Every block costs the standard's MPI_BSEND_OVERHEAD (512 bytes in the
// MPI-5.0 ABI) of bookkeeping, as MPI_Pack_size users expect; the block's header lives in it.
// Each block has a sequence number of its buffer, so a flush waits for exactly the messages
// buffered before it (later ones do not hold it up). Everything here runs under the engine lock.
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

constexpr uint64_t bsend_overhead = 512;

struct bsend_buffer {
  bool automatic = false;
  char* base = nullptr;  // user buffer
  uint64_t size = 0;
  std::map<uint64_t, uint64_t> free;  // offset -> length (user buffer)
  uint64_t next_seq = 0;              // sequence number of the next block
  std::set<uint64_t> pending;         // sequence numbers of the blocks not yet returned
};

namespace {

// The header at the start of each block (inside the overhead).
struct block_header {
  uint64_t len;  // the whole block, header included
  bsend_buffer* owner;
  uint64_t seq;
};
static_assert(sizeof(block_header) <= bsend_overhead);

bsend_buffer* g_process = nullptr;  // MPI_Buffer_attach

char* carve(bsend_buffer* b, uint64_t need) {
  char* block = nullptr;
  if (b->automatic) {
    block = static_cast<char*>(std::malloc(need));
  } else {
    for (auto it = b->free.begin(); it != b->free.end(); ++it) {
      if (it->second < need) continue;
      uint64_t off = it->first, len = it->second;
      b->free.erase(it);
      if (len > need) b->free.emplace(off + need, len - need);
      block = b->base + off;
      break;
    }
  }
  if (!block) return nullptr;
  const block_header h{need, b, b->next_seq++};
  std::memcpy(block, &h, sizeof h);
  b->pending.insert(h.seq);
  return block;
}

// Whether every block of `b` numbered below `seq` has come back.
bool drained_below(const bsend_buffer* b, uint64_t seq) { return b->pending.empty() || *b->pending.begin() >= seq; }

// MPI_Buffer_iflush / MPI_Comm_iflush_buffer / MPI_Session_iflush_buffer requests, completed by a
// poller once their buffer has drained up to the sequence number of the call. The poller is
// registered while requests wait, and unregistered only outside progress (buffer calls).
struct flush_wait {
  request* r;
  bsend_buffer* b;
  uint64_t seq;
};
std::vector<flush_wait> g_flushes;

bool poll_flushes() {
  bool any = false;
  for (size_t i = 0; i < g_flushes.size();) {
    if (!drained_below(g_flushes[i].b, g_flushes[i].seq)) {
      ++i;
      continue;
    }
    request* r = g_flushes[i].r;
    g_flushes[i] = g_flushes.back();
    g_flushes.pop_back();
    complete_request(r);
    any = true;
  }
  // Stays registered (progress_poll is iterating over the pollers); the next flush call outside
  // progress unregisters it once nothing waits.
  return any;
}

// Completes the flushes waiting on `b` (drained: it is about to go).
void finish_flushes_of(const bsend_buffer* b) {
  for (size_t i = 0; i < g_flushes.size();) {
    if (g_flushes[i].b != b) {
      ++i;
      continue;
    }
    request* r = g_flushes[i].r;
    g_flushes[i] = g_flushes.back();
    g_flushes.pop_back();
    complete_request(r);
  }
  if (g_flushes.empty()) core::progress_remove_poller(poll_flushes);
}

const char* slot_name(bsend_buffer* const* slot) {
  return slot == &g_process ? "process" : "communicator or session";
}
}  // namespace

bsend_buffer** process_buffer_slot() { return &g_process; }

void bsend_release(void* block) {
  char* blk = static_cast<char*>(block);
  block_header h;
  std::memcpy(&h, blk, sizeof h);
  bsend_buffer* b = h.owner;
  b->pending.erase(h.seq);
  if (b->automatic) {
    std::free(blk);
    return;
  }
  uint64_t off = static_cast<uint64_t>(blk - b->base);
  auto [it, ok] = b->free.emplace(off, h.len);
  (void)ok;
  // merge with neighbours
  auto next = std::next(it);
  if (next != b->free.end() && it->first + it->second == next->first) {
    it->second += next->second;
    b->free.erase(next);
  }
  if (it != b->free.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      b->free.erase(it);
    }
  }
}

errc buffer_attach(bsend_buffer** slot, void* buf, int64_t size, bool automatic) {
  core::engine_guard g;
  if (*slot)
    return core::error_set(errc::buffer, "a buffer is already attached to this %s (detach it first)",
                           slot_name(slot));
  if (!automatic) {
    if (size < 0) return core::error_set(errc::arg, "negative buffer size %lld", (long long)size);
    if (!buf && size > 0)
      return core::error_set(errc::buffer, "NULL buffer address with a size of %lld bytes", (long long)size);
  }
  auto* b = new bsend_buffer;
  b->automatic = automatic;
  if (!automatic) {
    b->base = static_cast<char*>(buf);
    b->size = static_cast<uint64_t>(size);
    if (size > 0) b->free.emplace(0, b->size);
  }
  *slot = b;
  return errc::success;
}

errc buffer_detach(bsend_buffer** slot, void** buf, int64_t* size, bool* automatic) {
  core::engine_guard g;
  *buf = nullptr;
  *size = 0;
  *automatic = false;
  if (!*slot) return core::error_set(errc::buffer, "no buffer is attached to this %s", slot_name(slot));
  bsend_buffer* b = *slot;
  // Later buffered sends (other threads) no longer find it; the ones in it drain.
  *slot = nullptr;
  core::progress_wait(g, [b] { return b->pending.empty(); });
  finish_flushes_of(b);
  *buf = b->base;
  *size = static_cast<int64_t>(b->size);
  *automatic = b->automatic;
  delete b;
  return errc::success;
}

void bsend_buffer_destroy(bsend_buffer* b) {
  // Only a communicator's buffer gets here, when the communicator goes: each of its buffered
  // sends and flush requests held a reference on it, so the buffer is drained and unwatched.
  delete b;
}

errc buffer_flush(bsend_buffer** slot) {
  core::engine_guard g;
  if (g_flushes.empty()) core::progress_remove_poller(poll_flushes);
  bsend_buffer* b = *slot;
  if (!b) return errc::success;  // nothing attached, nothing buffered
  const uint64_t seq = b->next_seq;
  // Another thread detaching it meanwhile (erroneous) ends the wait without touching it again.
  core::progress_wait(g, [slot, b, seq] { return *slot != b || drained_below(b, seq); });
  return errc::success;
}

errc buffer_iflush(bsend_buffer** slot, comm* c, request** out) {
  core::engine_guard g;
  if (g_flushes.empty()) core::progress_remove_poller(poll_flushes);
  request* r = core::request_new(core::req_kind::send);
  r->c = c;
  c->retain();
  r->dt = core::predefined_datatype(0x247);  // MPI_BYTE
  r->active = true;
  *out = r;
  bsend_buffer* b = *slot;
  if (!b || drained_below(b, b->next_seq)) {
    r->mark_complete();
    return errc::success;
  }
  g_flushes.push_back(flush_wait{r, b, b->next_seq});
  core::progress_add_poller(poll_flushes);
  return errc::success;
}

namespace {
void drop_link(request* user);
}  // namespace

// Called for MPI_Bsend / MPI_Ibsend / a started Bsend_init request.
errc bsend_start(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c, request* user) {
  core::engine_guard g;
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  if (dest == proc_null) return errc::success;
  // Exactly the standard's promise: packed size + MPI_BSEND_OVERHEAD (the block's bookkeeping
  // lives inside the overhead; data need not be aligned, the transports copy bytes).
  const uint64_t need = bytes + bsend_overhead;
  bsend_buffer* b = c->bsend;
  const char* which = "the communicator's buffer (MPI_Comm_attach_buffer)";
  if (!b && c->session && c->session->bsend) {
    b = c->session->bsend;
    which = "the session's buffer (MPI_Session_attach_buffer)";
  }
  if (!b) {
    b = g_process;
    which = "the process buffer (MPI_Buffer_attach)";
  }
  if (!b)
    return core::error_set(errc::buffer,
                           "buffered send of %llu bytes: no buffer is attached to the communicator, its session or "
                           "the process",
                           (unsigned long long)bytes);
  char* block = carve(b, need);
  // Blocks come back when the engine learns that their sends are done (for a rendezvous message,
  // from the receiver's notice), which may sit unread when this process has made no MPI call since
  // the receiver took the message. As in the standard's model of buffered mode (MPI-4.1 3.6.2),
  // the sends already in the buffer that have finished give their space back first: drive
  // progress while it moves and try again before refusing. This does not wait for receives that
  // are not posted: a buffer full of undelivered messages still fails at once.
  while (!block && !b->automatic && core::progress_poll()) block = carve(b, need);
  if (!block) {
    if (b->automatic)
      return core::error_set(errc::buffer,
                             "buffered send of %llu bytes: out of memory allocating its block in the automatic "
                             "buffer",
                             (unsigned long long)bytes);
    return core::error_set(errc::buffer,
                           "buffered send of %llu bytes does not fit in %s (%llu bytes attached, %llu needed "
                           "including MPI_BSEND_OVERHEAD)",
                           (unsigned long long)bytes, which, (unsigned long long)b->size, (unsigned long long)need);
  }
  char* data = block + bsend_overhead;
  (void)core::pack_all(buf, count, *dt, data);
  request* r = core::request_new(core::req_kind::send);
  r->buf = data;
  r->count = static_cast<int64_t>(bytes);
  r->dt = core::predefined_datatype(0x247);  // MPI_BYTE
  r->c = c;
  c->retain();
  r->ctx = c->ctx;
  r->peer = dest;
  r->tag = tag;
  r->mode = core::send_mode::standard;
  r->active = true;
  r->user_freed = true;  // nobody waits for it: it frees itself when done
  r->bsend_block = block;
  if (user) {
    // A persistent request started again while its previous message is still in the buffer: that
    // one completes on its own from now on.
    drop_link(user);
    user->ext = r;
    r->ext = user;
  }
  start_send(r);
  return errc::success;
}

bool bsend_internal_done(request* internal) {
  auto* user = static_cast<request*>(internal->ext);
  if (user->is_complete()) {
    internal->mark_complete();  // kept: MPI_Cancel may still withdraw its message
    return true;
  }
  // MPI_Cancel reopened the user request: it completes with the outcome now.
  internal->ext = nullptr;
  user->ext = nullptr;
  user->status.cancelled = internal->status.cancelled;
  complete_request(user);
  return false;
}

namespace {
// Lets go of the internal request linked to `user`: a kept one is deleted, one still in flight
// frees itself when done.
void drop_link(request* user) {
  auto* internal = static_cast<request*>(user->ext);
  user->ext = nullptr;
  if (!internal) return;
  internal->ext = nullptr;
  if (!internal->is_complete()) return;
  release_request(internal);
}
}  // namespace

errc bsend_user_cancel(request* user) {
  core::engine_guard g;
  auto* internal = static_cast<request*>(user->ext);
  if (!internal) return errc::success;  // its outcome is known already
  // Reopened until the internal send's outcome is known; cancel_send_locked may complete it (and
  // so this request) at once. Nothing to withdraw (matched, or copied to oneself): it stays
  // complete.
  const bool was_complete = user->is_complete();
  user->complete.store(false, std::memory_order_release);
  if (!cancel_send_locked(internal) && was_complete) user->mark_complete();
  return errc::success;
}

void bsend_user_destroy(request* user) {
  core::engine_guard g;
  drop_link(user);
}

const core::request_ops ibsend_user_ops{nullptr, bsend_user_cancel, nullptr, bsend_user_destroy};

}  // namespace baton::p2p
