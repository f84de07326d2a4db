// Buffered mode: the user's attached buffer, carved into blocks by a first-fit free list.
// A buffered send packs its data into a block and sends from there; the block returns to the
// free list when that internal send has left it. Every block costs the standard's
// MPI_BSEND_OVERHEAD (512 bytes in the MPI-5.0 ABI) of bookkeeping, as MPI_Pack_size users expect.
#include <cstring>
#include <map>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

namespace {
constexpr uint64_t bsend_overhead = 512;

struct attached {
  char* base = nullptr;
  uint64_t size = 0;
  std::map<uint64_t, uint64_t> free;  // offset -> length
  uint64_t in_use = 0;                // blocks not yet returned
} g_buf;

char* carve(uint64_t need) {
  for (auto it = g_buf.free.begin(); it != g_buf.free.end(); ++it) {
    if (it->second < need) continue;
    uint64_t off = it->first, len = it->second;
    g_buf.free.erase(it);
    if (len > need) g_buf.free.emplace(off + need, len - need);
    char* block = g_buf.base + off;
    std::memcpy(block, &need, sizeof need);  // length header lives in the overhead
    ++g_buf.in_use;
    return block;
  }
  return nullptr;
}
}  // namespace

void bsend_release(void* block) {
  char* b = static_cast<char*>(block);
  uint64_t len;
  std::memcpy(&len, b, sizeof len);
  uint64_t off = static_cast<uint64_t>(b - g_buf.base);
  auto [it, ok] = g_buf.free.emplace(off, len);
  (void)ok;
  // merge with neighbours
  auto next = std::next(it);
  if (next != g_buf.free.end() && it->first + it->second == next->first) {
    it->second += next->second;
    g_buf.free.erase(next);
  }
  if (it != g_buf.free.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      g_buf.free.erase(it);
    }
  }
  --g_buf.in_use;
}

errc buffer_attach(void* buf, int64_t size) {
  core::engine_guard g;
  if (g_buf.base)
    return core::error_set(errc::buffer, "a buffer is already attached (detach it first)");
  if (size < 0) return core::error_set(errc::arg, "negative buffer size %lld", (long long)size);
  g_buf.base = static_cast<char*>(buf);
  g_buf.size = static_cast<uint64_t>(size);
  g_buf.free.clear();
  if (size > 0) g_buf.free.emplace(0, g_buf.size);
  g_buf.in_use = 0;
  return errc::success;
}

errc buffer_detach(void** buf, int64_t* size) {
  core::engine_guard g;
  if (!g_buf.base && g_buf.size == 0) {
    *buf = nullptr;
    *size = 0;
    return core::error_set(errc::buffer, "no buffer is attached");
  }
  core::progress_wait(g, [] { return g_buf.in_use == 0; });
  *buf = g_buf.base;
  *size = static_cast<int64_t>(g_buf.size);
  g_buf = attached{};
  return errc::success;
}

errc buffer_flush() {
  core::engine_guard g;
  core::progress_wait(g, [] { return g_buf.in_use == 0; });
  return errc::success;
}

namespace {
// MPI_Buffer_iflush requests, completed by a poller once every buffered send has left.
std::vector<request*> g_flushes;
bool poll_flushes() {
  if (g_flushes.empty() || g_buf.in_use != 0) return false;
  for (request* r : g_flushes) complete_request(r);
  g_flushes.clear();
  core::progress_remove_poller(poll_flushes);
  return true;
}
}  // namespace

errc buffer_iflush(request** out) {
  core::engine_guard g;
  request* r = core::request_new(core::req_kind::send);
  r->c = core::rt().self;
  r->c->retain();
  r->dt = core::predefined_datatype(0x247);
  r->active = true;
  *out = r;
  if (g_buf.in_use == 0) {
    r->mark_complete();
    return errc::success;
  }
  g_flushes.push_back(r);
  core::progress_add_poller(poll_flushes);
  return errc::success;
}

// Called for MPI_Bsend / MPI_Ibsend / a started Bsend_init request.
errc bsend_start(const void* buf, int64_t count, const datatype* dt, int dest, int tag, comm* c) {
  core::engine_guard g;
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  if (dest == proc_null) return errc::success;
  // Exactly the standard's promise: packed size + MPI_BSEND_OVERHEAD (the block's bookkeeping
  // lives inside the overhead; data need not be aligned, the transports copy bytes).
  const uint64_t need = bytes + bsend_overhead;
  char* block = g_buf.base ? carve(need) : nullptr;
  if (!block) {
    return core::error_set(errc::buffer,
                           "buffered send of %llu bytes does not fit in the attached buffer (%llu bytes attached, "
                           "%llu needed including MPI_BSEND_OVERHEAD)",
                           (unsigned long long)bytes, (unsigned long long)g_buf.size, (unsigned long long)need);
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
  start_send_locked(r);
  return errc::success;
}

}  // namespace baton::p2p
