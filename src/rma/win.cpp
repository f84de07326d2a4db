// One-sided communication: window creation and freeing, attached memory of dynamic windows,
// shared segments, and the messages every part sends (see win.hpp and docs/rma.md). The target
// side is in win_target.cpp, the origin side in win_origin.cpp, epochs in win_sync.cpp.
#include "rma/win.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <set>
#include <string>

#include "coll/among.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/procs.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "core/shm_object.hpp"
#include "p2p/p2p.hpp"
#include "rma/win_internal.hpp"

namespace baton::rma {

namespace detail {


std::vector<incoming> g_ready;

// ---- messages ----

struct send_ctx {
  window* w;
  void* buf;
  const datatype* dt;
};

void send_done(request* q) {
  auto* s = static_cast<send_ctx*>(q->ext);
  --s->w->sends_inflight;
  std::free(s->buf);
  if (s->dt) s->dt->release();
  delete s;
  core::request_delete(q);
}

// Sends `bytes` at buf (malloc'd, owned from here) to `peer`.
// Headers (tag_hdr) travel on the header communicator w->hc, everything else on w->c.
void send_bytes(window* w, int peer, int tag, void* buf, size_t bytes) {
  auto* s = new send_ctx{w, buf, nullptr};
  ++w->sends_inflight;
  core::comm* c = tag == tag_hdr ? w->hc : w->c;
  (void)p2p::start_internal(core::req_kind::send, buf, int64_t(bytes), byte_t(), peer, tag, c, c->ctx, send_done, s,
                            0);
}

// Sends (buf, count, dt) as typed data (the engine packs it); dt is retained until sent.
void send_typed(window* w, int peer, int tag, const void* buf, int64_t count, const datatype* dt) {
  dt->retain();
  auto* s = new send_ctx{w, nullptr, dt};
  ++w->sends_inflight;
  (void)p2p::start_internal(core::req_kind::send, const_cast<void*>(buf), count, dt, peer, tag, w->c, w->c->ctx,
                            send_done, s, 0);
}

void reply(window* w, int origin, int32_t tag, errc e, const void* data, size_t bytes) {
  std::string text;
  if (e != errc::success) {
    text = core::error_message().substr(0, err_text_max);
    bytes = 0;
  }
  const size_t n = sizeof(reply_head) + (e != errc::success ? text.size() : bytes);
  char* b = static_cast<char*>(std::malloc(n ? n : 1));
  reply_head h{int32_t(e), int32_t(text.size())};
  std::memcpy(b, &h, sizeof h);
  if (e != errc::success)
    text.copy(b + sizeof h, text.size());  // the length travels in the head, no terminator
  else if (bytes)
    std::memcpy(b + sizeof h, data, bytes);
  send_bytes(w, origin, tag, b, n);
}

void shm_release(window* w) {
  if (w->shm) munmap(w->shm, w->shm_bytes);
  w->shm = nullptr;
}

// Allocates the shared segment of `w` (every member on this host): the first rank creates and
// sizes it, the others open it by name, all map it.
errc shm_setup(window* w) {
  int64_t total = 0;
  w->shm_offsets.assign(size_t(w->size), 0);
  for (int r = 0; r < w->size; ++r) {
    w->shm_offsets[size_t(r)] = total;
    total += (w->sizes[size_t(r)] + 63) & ~int64_t(63);
  }
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  w->shm_bytes = std::max<size_t>(page, (size_t(total) + page - 1) / page * page);
  struct {
    char name[124];
    int32_t err;
  } msg{};
  std::vector<int> m(size_t(w->size));
  std::iota(m.begin(), m.end(), 0);
  core::shm_object obj;
  if (w->rank == 0) {
    // core::shm_create: an unpredictable name under O_EXCL, so no file planted by anyone blocks it.
    if (core::shm_create("win", w->shm_bytes, &obj) != errc::success || obj.name.size() >= sizeof msg.name) {
      core::shm_unlink_name(obj);
      core::shm_unmap(obj);
      msg.err = 1;
      std::snprintf(msg.name, sizeof msg.name, "%s", core::error_message().c_str());
    } else {
      std::memcpy(msg.name, obj.name.c_str(), obj.name.size() + 1);
    }
  }
  if (errc e = coll::bcast_among(w->c, m, w->rank, coll::comm_next_tag(w->c), &msg, sizeof msg); e != errc::success) {
    core::shm_unlink_name(obj);
    core::shm_unmap(obj);
    return e;
  }
  msg.name[sizeof msg.name - 1] = 0;
  if (msg.err != 0)
    return core::error_set(errc::rma_shared, "cannot create the shared segment of %zu bytes: %s", w->shm_bytes, msg.name);
  int32_t mine = 0;
  std::string why;
  if (w->rank != 0 && core::shm_open_checked(msg.name, w->shm_bytes, &obj) != errc::success) {
    mine = 1;
    why = ": " + core::error_message();
  }
  w->shm = obj.base;
  // Everyone has mapped it (or failed) before the name goes.
  std::vector<int32_t> errs(size_t(w->size));
  errc e = coll::allgather_among(w->c, m, w->rank, coll::comm_next_tag(w->c), &mine, sizeof mine, errs.data());
  core::shm_unlink_name(obj);
  if (e != errc::success) return e;
  for (int r = 0; r < w->size; ++r)
    if (errs[size_t(r)] != 0) {
      shm_release(w);
      return core::error_set(errc::rma_shared, "rank %d cannot map the shared segment (%zu bytes)%s", r, w->shm_bytes,
                             r == w->rank ? why.c_str() : "");
    }
  w->base = static_cast<char*>(w->shm) + w->shm_offsets[size_t(w->rank)];
  return errc::success;
}

}  // namespace detail

using namespace detail;

// Windows live in their slab (core/slab.hpp): a range test, then the magic word (0 once freed).
bool win_valid(const window* w) { return core::slab_holds<window>(w) && w->magic == win_magic; }

errc win_create(core::comm* wc, core::comm* hc, flavor fl, void* base, int64_t bytes, int64_t disp_unit,
                const std::vector<std::pair<std::string, std::string>>& hints, window** out) {
  auto* w = new window;
  w->c = wc;
  w->hc = hc;
  w->rank = wc->rank;
  w->size = wc->size;
  w->fl = fl;
  w->disp_unit = disp_unit;
  w->hints = hints;
  if (fl == flavor::allocate) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, size_t(std::max<int64_t>(bytes, 1))) != 0) p = nullptr;
    // Every member learns of a failure below (as a size of -1).
    w->base = p;
    w->owns_memory = p != nullptr;
    if (!p) bytes = -1;
  } else if (fl == flavor::create) {
    w->base = base;
  }
  w->bytes = std::max<int64_t>(bytes, 0);
  // Every member's size, displacement unit and host (core::host_key: host and launch).
  constexpr int K = 5;
  int64_t mine[K] = {bytes, disp_unit, core::host_key(), int64_t(getpid()),
                     int64_t(reinterpret_cast<uintptr_t>(w->base))};
  std::vector<int64_t> all(size_t(K * w->size));
  std::vector<int> m(size_t(w->size));
  std::iota(m.begin(), m.end(), 0);
  errc e = coll::allgather_among(wc, m, w->rank, coll::comm_next_tag(wc), mine, sizeof mine, all.data());
  if (e == errc::success) {
    w->sizes.resize(size_t(w->size));
    w->disp_units.resize(size_t(w->size));
    w->same_host.resize(size_t(w->size));
    w->pids.resize(size_t(w->size));
    w->bases.resize(size_t(w->size));
    for (int r = 0; r < w->size; ++r) {
      const int64_t* x = &all[size_t(K) * size_t(r)];
      w->sizes[size_t(r)] = x[0];
      w->disp_units[size_t(r)] = x[1];
      w->same_host[size_t(r)] = x[2] == core::host_key();
      w->pids[size_t(r)] = x[3];
      w->bases[size_t(r)] = x[4];
      if (x[0] < 0 && e == errc::success)
        e = core::error_set(errc::no_mem, "rank %d could not allocate its window memory", r);
      if (fl == flavor::shared && x[2] != all[2] && e == errc::success)
        e = core::error_set(errc::rma_shared,
                            "the communicator spans more than one host or launch (rank %d is not on rank 0's host, "
                            "or belongs to another launch): a shared window needs every member on one host",
                            r);
    }
  }
  if (e == errc::success && fl == flavor::shared) e = shm_setup(w);
  if (e != errc::success) {
    if (w->owns_memory) std::free(w->base);
    (void)core::comm_free(wc);
    (void)core::comm_free(hc);
    delete w;
    return e;
  }
  {
    static const bool direct_wanted = [] {
      const char* v = std::getenv("BATON_RMA_DIRECT");
      return !(v && std::strcmp(v, "0") == 0);
    }();
    w->direct = direct_wanted && fl != flavor::dynamic;
    if (fl == flavor::shared)
      for (int r = 0; r < w->size; ++r)
        w->bases[size_t(r)] = int64_t(reinterpret_cast<uintptr_t>(w->shm)) + w->shm_offsets[size_t(r)];
  }
  w->pending.assign(size_t(w->size), 0);
  w->locked.assign(size_t(w->size), 0);
  w->lock_nocheck.assign(size_t(w->size), 0);
  w->in_access.assign(size_t(w->size), 0);
  w->attr_size = w->bytes;
  w->attr_disp_unit = int(disp_unit);
  w->attr_flavor = int(fl);
  w->attr_model = 321;  // MPI_WIN_UNIFIED
  w->hdr_buf = static_cast<char*>(std::malloc(hdr_cap));
  {
    core::engine_guard g;
    core::progress_add_poller(rma_poll);  // once: it ignores a poller already registered
    post_hdr(w);
  }
  // An origin may send before its target has posted the header receive: the header waits in the
  // unexpected queue of the window's private context.
  *out = w;
  return errc::success;
}

errc win_free(window* w) {
  {
    core::engine_guard g;
    if (w->locks_held > 0 || w->lock_all || w->access_epoch || w->exposure_epoch)
      return core::error_set(errc::rma_sync, "the window still has an open %s",
                             w->exposure_epoch ? "exposure epoch (MPI_Win_post without MPI_Win_wait)"
                             : w->access_epoch ? "access epoch (MPI_Win_start without MPI_Win_complete)"
                                               : "passive-target epoch (a lock not yet unlocked)");
  }
  wait_for([w] { return w->pending_total == 0; });
  errc e = barrier(w);
  wait_for([w] { return w->sends_inflight == 0; });
  {
    core::engine_guard g;
    if (w->hdr_req) (void)p2p::cancel(w->hdr_req);
    // A cancelled receive completes at once (its callback deletes it).
    std::erase_if(g_ready, [w](const incoming& in) { return in.w == w; });
    w->magic = 0;
  }
  (void)core::comm_free(w->c);
  (void)core::comm_free(w->hc);
  std::free(w->hdr_buf);
  if (w->owns_memory) std::free(w->base);
  shm_release(w);
  for (core::attribute& a : w->attrs) a.kv->release();
  if (w->eh) w->eh->release();
  delete w;
  return e;
}

errc win_attach(window* w, void* base, int64_t bytes) {
  core::engine_guard g;
  const uintptr_t a = reinterpret_cast<uintptr_t>(base);
  for (const auto& [b, n] : w->attached)
    if (a < b + uintptr_t(n) && b < a + uintptr_t(bytes))
      return core::error_set(errc::rma_attach, "memory [%p, +%lld) overlaps memory already attached at %p",
                             base, (long long)bytes, reinterpret_cast<void*>(b));
  w->attached.emplace_back(a, bytes);
  return errc::success;
}

errc win_detach(window* w, const void* base) {
  core::engine_guard g;
  const uintptr_t a = reinterpret_cast<uintptr_t>(base);
  for (auto it = w->attached.begin(); it != w->attached.end(); ++it)
    if (it->first == a) {
      w->attached.erase(it);
      return errc::success;
    }
  return core::error_set(errc::rma_attach, "no memory was attached at %p", base);
}

}  // namespace baton::rma
