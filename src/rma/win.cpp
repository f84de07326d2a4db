// One-sided communication: windows, operations, synchronization (see win.hpp and docs/rma.md).
#include "rma/win.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <set>

#include "core/comm.hpp"
#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "core/shm_object.hpp"
#include "p2p/p2p.hpp"

namespace baton::rma {

namespace {

using core::datatype;
using core::request;

constexpr int tag_hdr = 1;
constexpr int tag_data = 2;
constexpr int tag_post = 3;
constexpr int tag_done = 4;
constexpr int reply_tag_base = 16;
constexpr size_t hdr_cap = 65536;     // the target's header receive buffer
constexpr size_t inline_max = 8192;   // header + segments + data up to this travel as one message
constexpr size_t err_text_max = 240;  // error text a target sends back

const datatype* byte_t() { return core::predefined_datatype(0x247); }

struct seg {
  int64_t offset, count, blocklen, stride;
};

struct op_hdr {
  uint8_t kind;
  uint8_t lock;
  uint8_t inline_data;
  uint8_t segs_in_data;  // the segment list did not fit the header receive: it heads the data message
  uint32_t op_code;     // predefined op handle value (accumulates)
  uint32_t basic_code;  // predefined handle value of the target's basic element type
  int32_t reply_tag;
  int64_t off;    // byte offset in the window (dynamic windows: the address)
  int64_t count;  // repetitions of the segment list
  int64_t extent;
  int64_t lo, hi;  // bytes touched, relative to off: [lo, hi)
  uint32_t nseg;
  uint32_t pad1;
  uint64_t data_bytes;   // origin -> target
  uint64_t reply_bytes;  // target -> origin
};
static_assert(sizeof(op_hdr) % 8 == 0);

struct reply_head {
  int32_t err;
  int32_t text_len;
};
static_assert(sizeof(reply_head) == 8);

// Live windows (win_valid) and the poller's queue.

struct incoming {
  window* w;
  int source;
  char* data;  // nullptr: a header in w->hdr_buf; else the separate data of that header
};
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
    std::memcpy(b + sizeof h, text.data(), text.size());
  else if (bytes)
    std::memcpy(b + sizeof h, data, bytes);
  send_bytes(w, origin, tag, b, n);
}

// ---- target side ----

void hdr_done(request* q);

void post_hdr(window* w) {
  w->hdr_busy = false;
  request* r = p2p::start_internal(core::req_kind::recv, w->hdr_buf, int64_t(hdr_cap), byte_t(), p2p::any_source,
                                   tag_hdr, w->hc, w->hc->ctx, hdr_done, w, 0);
  if (!w->hdr_busy) w->hdr_req = r;  // else it completed at once (its callback ran)
}

void hdr_done(request* q) {
  auto* w = static_cast<window*>(q->ext);
  w->hdr_req = nullptr;
  w->hdr_busy = true;
  if (!q->status.cancelled) g_ready.push_back({w, q->status.source, nullptr});
  core::request_delete(q);
  if (core::rt().threaded) core::progress_kick();
}

struct data_ctx {
  window* w;
  char* data;
};

void data_done(request* q) {
  auto* d = static_cast<data_ctx*>(q->ext);
  g_ready.push_back({d->w, q->status.source, d->data});
  delete d;
  core::request_delete(q);
  if (core::rt().threaded) core::progress_kick();
}

template <class F>
void walk(char* base, const op_hdr& h, const seg* s, F&& f) {
  for (int64_t i = 0; i < h.count; ++i) {
    char* e = base + i * h.extent;
    for (uint32_t j = 0; j < h.nseg; ++j)
      for (int64_t k = 0; k < s[j].count; ++k) f(e + s[j].offset + k * s[j].stride, size_t(s[j].blocklen));
  }
}

bool grantable(const window* w, lock_kind k) {
  if (k == lock_kind::exclusive) return w->lock_state == lock_kind::none;
  return w->lock_state != lock_kind::exclusive;
}

void grant(window* w, const lock_waiter& l) {
  if (l.kind == lock_kind::exclusive) {
    w->lock_state = lock_kind::exclusive;
  } else {
    w->lock_state = lock_kind::shared;
    ++w->shared_holders;
  }
  reply(w, l.origin, l.reply_tag, errc::success, nullptr, 0);
}

// Whether the memory attached to dynamic window w covers every byte of [a, b), possibly across
// several adjacent regions (they never overlap: MPI_Win_attach refuses that).
bool attached_covers(const window* w, uintptr_t a, uintptr_t b) {
  while (a < b) {
    bool advanced = false;
    for (const auto& [base, len] : w->attached)
      if (a >= base && a < base + uintptr_t(len)) {
        a = base + uintptr_t(len);
        advanced = true;
        break;
      }
    if (!advanced) return false;
  }
  return true;
}

// Where the operation's bytes are in this process, or nullptr with the error message set.
char* target_address(window* w, const op_hdr& h, const seg* s, errc* e) {
  if (h.hi <= h.lo) return w->fl == flavor::dynamic ? reinterpret_cast<char*>(h.off) : static_cast<char*>(w->base) + h.off;
  if (w->fl == flavor::dynamic) {
    const uintptr_t a = uintptr_t(h.off + h.lo), b = uintptr_t(h.off + h.hi);
    // Every byte touched must be attached; one access may span adjacent attached regions. The
    // bounding range is checked first; when it is not covered (a hole between regions, or an
    // error), each block of the target datatype is checked on its own.
    if (attached_covers(w, a, b)) return reinterpret_cast<char*>(h.off);
    if (h.nseg > 0) {
      bool ok = true;
      walk(reinterpret_cast<char*>(h.off), h, s, [&](char* d, size_t n) {
        if (ok && n > 0) ok = attached_covers(w, uintptr_t(d), uintptr_t(d) + n);
      });
      if (ok) return reinterpret_cast<char*>(h.off);
    }
    *e = core::error_set(errc::rma_range,
                         "rank %d: target bytes [0x%zx, 0x%zx) of the dynamic window are not inside memory attached "
                         "there (MPI_Win_attach)",
                         w->rank, size_t(a), size_t(b));
    return nullptr;
  }
  if (h.off + h.lo < 0 || h.off + h.hi > w->bytes) {
    *e = core::error_set(errc::rma_range, "rank %d: target bytes [%lld, %lld) are outside its window of %lld bytes",
                         w->rank, (long long)(h.off + h.lo), (long long)(h.off + h.hi), (long long)w->bytes);
    return nullptr;
  }
  return static_cast<char*>(w->base) + h.off;
}

void apply_acc(const core::op& o, core::elem_kind k, size_t esz, const char* in, char* out, size_t len) {
  if (o.kind() == core::op_kind::no_op) return;
  if (o.kind() == core::op_kind::replace) {
    std::memmove(out, in, len);
    return;
  }
  core::op_apply(o, k, in, out, len / esz);
}

// Applies one operation at the target. `data` is the origin's payload (nullptr when none).
void apply(window* w, int origin, const op_hdr& h, const seg* s, const char* data) {
  const auto kind = op_kind(h.kind);
  if (kind == op_kind::lock) {
    lock_waiter l{origin, lock_kind(h.lock), h.reply_tag};
    if (w->lock_queue.empty() && grantable(w, l.kind))
      grant(w, l);
    else
      w->lock_queue.push_back(l);
    return;
  }
  if (kind == op_kind::unlock) {
    if (w->lock_state == lock_kind::exclusive) {
      w->lock_state = lock_kind::none;
    } else if (w->lock_state == lock_kind::shared && --w->shared_holders == 0) {
      w->lock_state = lock_kind::none;
    }
    reply(w, origin, h.reply_tag, errc::success, nullptr, 0);
    while (!w->lock_queue.empty() && grantable(w, w->lock_queue.front().kind)) {
      lock_waiter l = w->lock_queue.front();
      w->lock_queue.pop_front();
      grant(w, l);
    }
    return;
  }
  errc e = errc::success;
  char* t = target_address(w, h, s, &e);
  if (!t) {
    reply(w, origin, h.reply_tag, e, nullptr, 0);
    return;
  }
  switch (kind) {
    case op_kind::put: {
      const char* p = data;
      walk(t, h, s, [&](char* d, size_t n) {
        std::memcpy(d, p, n);
        p += n;
      });
      reply(w, origin, h.reply_tag, errc::success, nullptr, 0);
      break;
    }
    case op_kind::get: {
      std::vector<char> out(h.reply_bytes);
      char* p = out.data();
      walk(t, h, s, [&](char* d, size_t n) {
        std::memcpy(p, d, n);
        p += n;
      });
      reply(w, origin, h.reply_tag, errc::success, out.data(), out.size());
      break;
    }
    case op_kind::acc:
    case op_kind::get_acc: {
      const core::op* o = core::predefined_op(h.op_code);
      const core::elem_kind k = core::elem_kind_of_abi_code(h.basic_code);
      const size_t esz = core::elem_kind_size(k);
      std::vector<char> out(kind == op_kind::get_acc ? h.reply_bytes : 0);
      char* r = out.data();
      const char* p = data;
      const size_t psz = size_t(core::predefined_datatype(h.basic_code)->size());
      if (psz == esz) {
        // Packed elements have the memory layout: apply block by block.
        walk(t, h, s, [&](char* d, size_t n) {
          if (kind == op_kind::get_acc) {
            std::memcpy(r, d, n);
            r += n;
          }
          if (p) {
            apply_acc(*o, k, esz, p, d, n);
            p += n;
          }
        });
      } else {
        // A pair type with padding (DOUBLE_INT, LONG_INT, SHORT_INT, LONG_DOUBLE_INT): the packed
        // element is {value, int} without the padding. Find each element's address in target
        // memory (where its value starts), copy the old data out first, then apply element by
        // element from a C-layout copy of the packed element.
        const size_t vsz = psz - sizeof(int);
        const size_t ioff = (vsz + sizeof(int) - 1) / sizeof(int) * sizeof(int);
        std::vector<char*> elems;
        uint64_t pos = 0;
        walk(t, h, s, [&](char* d, size_t n) {
          if (kind == op_kind::get_acc) {
            std::memcpy(r, d, n);
            r += n;
          }
          for (uint64_t e = (pos + psz - 1) / psz * psz; e < pos + n; e += psz) elems.push_back(d + (e - pos));
          pos += n;
        });
        if (p && o->kind() != core::op_kind::no_op) {
          alignas(16) char tmp[64];
          for (size_t i = 0; i < elems.size(); ++i) {
            std::memset(tmp, 0, sizeof tmp);
            std::memcpy(tmp, p + i * psz, vsz);
            std::memcpy(tmp + ioff, p + i * psz + vsz, sizeof(int));
            if (o->kind() == core::op_kind::replace) {
              std::memcpy(elems[i], tmp, vsz);
              std::memcpy(elems[i] + ioff, tmp + ioff, sizeof(int));
            } else {
              core::op_apply(*o, k, tmp, elems[i], 1);
            }
          }
        }
      }
      reply(w, origin, h.reply_tag, errc::success, out.data(), out.size());
      break;
    }
    case op_kind::cas: {
      const size_t n = h.reply_bytes;
      std::vector<char> old(t, t + n);
      if (std::memcmp(old.data(), data + n, n) == 0) std::memcpy(t, data, n);
      reply(w, origin, h.reply_tag, errc::success, old.data(), n);
      break;
    }
    default:
      reply(w, origin, h.reply_tag, core::error_set(errc::intern, "unknown RMA operation %d", int(h.kind)), nullptr, 0);
  }
}

void process(const incoming& in) {
  window* w = in.w;
  op_hdr h;
  std::memcpy(&h, w->hdr_buf, sizeof h);
  const seg* s = reinterpret_cast<const seg*>(w->hdr_buf + sizeof h);
  if (in.data) {
    const char* d = in.data;
    if (h.segs_in_data) {
      s = reinterpret_cast<const seg*>(d);
      d += size_t(h.nseg) * sizeof(seg);
    }
    apply(w, in.source, h, s, h.data_bytes ? d : nullptr);
    std::free(in.data);
    post_hdr(w);
    return;
  }
  if ((h.data_bytes > 0 || h.segs_in_data) && !h.inline_data) {
    // The data (and a long segment list) follows in its own message from the same origin:
    // receive it before anything else.
    const size_t n = h.data_bytes + (h.segs_in_data ? size_t(h.nseg) * sizeof(seg) : 0);
    char* d = static_cast<char*>(std::malloc(n ? n : 1));
    auto* dc = new data_ctx{w, d};
    (void)p2p::start_internal(core::req_kind::recv, d, int64_t(n), byte_t(), in.source, tag_data, w->c, w->c->ctx,
                              data_done, dc, 0);
    return;
  }
  const char* data = h.data_bytes ? w->hdr_buf + sizeof h + size_t(h.nseg) * sizeof(seg) : nullptr;
  apply(w, in.source, h, s, data);
  post_hdr(w);
}

bool rma_poll() {
  if (g_ready.empty()) return false;
  static std::vector<incoming> batch;
  batch.swap(g_ready);
  for (const incoming& in : batch) process(in);
  batch.clear();
  return true;
}

// ---- origin side ----

struct pending_op {
  window* w;
  int target;
  char* stage;
  void* result;
  int64_t rcount;
  const datatype* rtype;
  request* user;
};

void complete_user(request* u, errc e) {
  if (u->user_freed) {
    core::request_delete(u);
    return;
  }
  u->status = core::req_status{};
  u->status.error = e;
  u->mark_complete();
}

void reply_done(request* q) {
  auto* p = static_cast<pending_op*>(q->ext);
  window* w = p->w;
  reply_head h;
  std::memcpy(&h, p->stage, sizeof h);
  const errc e = errc(h.err);
  if (e == errc::success) {
    if (p->result) (void)core::unpack_all(p->stage + sizeof h, p->result, p->rcount, *p->rtype);
  } else if (w->deferred == errc::success) {
    w->deferred = e;
    w->deferred_msg.assign(p->stage + sizeof h, size_t(std::max(0, h.text_len)));
  }
  if (p->rtype) p->rtype->release();
  --w->pending[size_t(p->target)];
  --w->pending_total;
  if (p->user) complete_user(p->user, e);
  std::free(p->stage);
  delete p;
  core::request_delete(q);
  if (core::rt().threaded) core::progress_kick();
}

// Posts the receive of the reply to the operation about to be sent; returns its tag.
int32_t expect_reply(window* w, int target, size_t reply_bytes, void* result, int64_t rcount, const datatype* rtype,
                     request* user) {
  const int32_t tag = reply_tag_base + int32_t(w->seq++ & 0x1fffffff);
  const size_t cap = sizeof(reply_head) + std::max(reply_bytes, err_text_max);
  auto* p = new pending_op{w, target, static_cast<char*>(std::malloc(cap)), result, rcount, rtype, user};
  if (rtype) rtype->retain();
  ++w->pending[size_t(target)];
  ++w->pending_total;
  (void)p2p::start_internal(core::req_kind::recv, p->stage, int64_t(cap), byte_t(), target, tag, w->c, w->c->ctx,
                            reply_done, p, 0);
  return tag;
}

// Sends a header-only control operation (lock, unlock) to target.
void send_control(window* w, int target, op_kind k, lock_kind lk) {
  op_hdr h{};
  h.kind = uint8_t(k);
  h.lock = uint8_t(lk);
  h.reply_tag = expect_reply(w, target, 0, nullptr, 0, nullptr, nullptr);
  void* b = std::malloc(sizeof h);
  std::memcpy(b, &h, sizeof h);
  send_bytes(w, target, tag_hdr, b, sizeof h);
}

template <class Done>
void wait_for(Done done) {
  core::engine_guard g;
  core::progress_wait(g, done);
}

errc take_deferred(window* w) {
  if (w->deferred == errc::success) return errc::success;
  errc e = w->deferred;
  w->deferred = errc::success;
  std::string msg = std::move(w->deferred_msg);
  w->deferred_msg.clear();
  return core::error_set(e, "an earlier RMA operation failed at its target: %s", msg.c_str());
}

errc barrier(window* w) {
  std::vector<int> m(size_t(w->size));
  std::iota(m.begin(), m.end(), 0);
  char in = 0;
  std::vector<char> out(size_t(w->size));
  return core::allgather_among(w->c, m, w->rank, core::comm_next_tag(w->c), &in, 1, out.data());
}

bool may_access(const window* w, int target) {
  return w->fence_epoch || w->lock_all || w->locked[size_t(target)] != uint8_t(lock_kind::none) ||
         (w->access_epoch && w->in_access[size_t(target)]);
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
  if (errc e = core::bcast_among(w->c, m, w->rank, core::comm_next_tag(w->c), &msg, sizeof msg); e != errc::success) {
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
  errc e = core::allgather_among(w->c, m, w->rank, core::comm_next_tag(w->c), &mine, sizeof mine, errs.data());
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

}  // namespace

// Windows live in their slab (core/slab.hpp): a range test, then the magic word (0 once freed).
bool win_valid(const window* w) { return core::slab_holds<window>(w) && w->magic == win_magic; }

errc win_create(core::comm* c, flavor fl, void* base, int64_t bytes, int64_t disp_unit,
                const std::vector<std::pair<std::string, std::string>>& hints, window** out) {
  core::comm* wc = nullptr;
  if (errc e = core::comm_dup(c, &wc); e != errc::success) return e;
  core::comm* hc = nullptr;
  if (errc e = core::comm_dup(c, &hc); e != errc::success) {
    (void)core::comm_free(wc);
    return e;
  }
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
  // Every member's size, displacement unit and host (the lowest world rank on it).
  constexpr int K = 5;
  int64_t mine[K] = {bytes, disp_unit, core::rt().host_color, int64_t(getpid()),
                     int64_t(reinterpret_cast<uintptr_t>(w->base))};
  std::vector<int64_t> all(size_t(K * w->size));
  std::vector<int> m(size_t(w->size));
  std::iota(m.begin(), m.end(), 0);
  errc e = core::allgather_among(wc, m, w->rank, core::comm_next_tag(wc), mine, sizeof mine, all.data());
  if (e == errc::success) {
    w->sizes.resize(size_t(w->size));
    w->disp_units.resize(size_t(w->size));
    w->same_host.resize(size_t(w->size));
    w->pids.resize(size_t(w->size));
    w->bases.resize(size_t(w->size));
    for (int r = 0; r < w->size; ++r) {
      const int64_t* x = &all[size_t(K * r)];
      w->sizes[size_t(r)] = x[0];
      w->disp_units[size_t(r)] = x[1];
      w->same_host[size_t(r)] = x[2] == core::rt().host_color;
      w->pids[size_t(r)] = x[3];
      w->bases[size_t(r)] = x[4];
      if (x[0] < 0 && e == errc::success)
        e = core::error_set(errc::no_mem, "rank %d could not allocate its window memory", r);
      if (fl == flavor::shared && x[2] != all[2] && e == errc::success)
        e = core::error_set(errc::rma_shared,
                            "the communicator spans more than one host (rank %d is not on rank 0's host): a shared "
                            "window needs every member on one host",
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

errc win_fence(window* w, int assert_bits) {
  {
    core::engine_guard g;
    if (w->locks_held > 0 || w->lock_all || w->access_epoch || w->exposure_epoch)
      return core::error_set(errc::rma_sync, "a fence cannot end a %s epoch",
                             w->access_epoch || w->exposure_epoch ? "post/start/complete/wait" : "passive-target (lock)");
    // Operations still unanswered contradict MPI_MODE_NOPRECEDE (direct puts and gets complete
    // in their call and cannot be seen here).
    if ((assert_bits & 2048) && w->pending_total > 0)
      return core::error_set(errc::rma_sync,
                             "MPI_MODE_NOPRECEDE was asserted but %lld RMA operations of this process since the last "
                             "fence are not complete",
                             (long long)w->pending_total);
  }
  wait_for([w] { return w->pending_total == 0; });
  errc e;
  {
    core::engine_guard g;
    e = take_deferred(w);
  }
  errc b = barrier(w);
  {
    core::engine_guard g;
    w->fence_epoch = (assert_bits & 16384) == 0;  // MPI_MODE_NOSUCCEED
  }
  return e != errc::success ? e : b;
}

errc win_lock(window* w, lock_kind k, int target, bool nocheck) {
  core::engine_guard g;
  if (w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all is in effect on this window");
  if (w->locked[size_t(target)] != 0)
    return core::error_set(errc::rma_sync, "this process already holds a lock on rank %d of the window", target);
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is open on this window");
  w->locked[size_t(target)] = uint8_t(k);
  w->lock_nocheck[size_t(target)] = nocheck;
  ++w->locks_held;
  if (!nocheck) {
    send_control(w, target, op_kind::lock, k);
    core::progress_new_work();
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  }
  return errc::success;
}

errc win_unlock(window* w, int target) {
  core::engine_guard g;
  if (w->lock_all)
    return core::error_set(errc::rma_sync, "the window is locked with MPI_Win_lock_all: use MPI_Win_unlock_all");
  if (w->locked[size_t(target)] == 0)
    return core::error_set(errc::rma_sync, "this process holds no lock on rank %d of the window", target);
  core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  if (!w->lock_nocheck[size_t(target)]) {
    send_control(w, target, op_kind::unlock, lock_kind::none);
    core::progress_new_work();
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  }
  w->locked[size_t(target)] = 0;
  --w->locks_held;
  return take_deferred(w);
}

errc win_lock_all(window* w, bool nocheck) {
  core::engine_guard g;
  if (w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all was already called on this window");
  if (w->locks_held > 0) return core::error_set(errc::rma_sync, "this process already holds locks on the window");
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is open on this window");
  w->lock_all = true;
  for (int r = 0; r < w->size; ++r) {
    w->locked[size_t(r)] = uint8_t(lock_kind::shared);
    w->lock_nocheck[size_t(r)] = nocheck;
    if (!nocheck) send_control(w, r, op_kind::lock, lock_kind::shared);
  }
  core::progress_new_work();
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  return errc::success;
}

errc win_unlock_all(window* w) {
  core::engine_guard g;
  if (!w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all was not called on this window");
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  for (int r = 0; r < w->size; ++r)
    if (!w->lock_nocheck[size_t(r)]) send_control(w, r, op_kind::unlock, lock_kind::none);
  core::progress_new_work();
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  std::fill(w->locked.begin(), w->locked.end(), 0);
  w->lock_all = false;
  return take_deferred(w);
}

errc win_flush(window* w, int target) {
  core::engine_guard g;
  if (target >= 0) {
    if (!w->lock_all && w->locked[size_t(target)] == 0)
      return core::error_set(errc::rma_sync, "no passive-target epoch is open on rank %d (lock it first)", target);
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  } else {
    if (!w->lock_all && w->locks_held == 0)
      return core::error_set(errc::rma_sync, "no passive-target epoch is open on the window (lock it first)");
    core::progress_wait(g, [w] { return w->pending_total == 0; });
  }
  return take_deferred(w);
}

namespace {
void post_seen(request* q) {
  auto* w = static_cast<window*>(q->ext);
  if (q->step == 0)
    ++w->posts_seen;
  else
    ++w->dones_seen;
  core::request_delete(q);
  if (core::rt().threaded) core::progress_kick();
}
}  // namespace

errc win_post(window* w, const std::vector<int>& origins, bool nocheck) {
  core::engine_guard g;
  if (w->exposure_epoch) return core::error_set(errc::rma_sync, "an exposure epoch (MPI_Win_post) is already open");
  if (w->fence_epoch) w->fence_epoch = false;
  w->exposure_epoch = true;
  w->dones_seen = 0;
  w->dones_needed = int(origins.size());
  for (int o : origins) {
    (void)p2p::start_internal(core::req_kind::recv, nullptr, 0, byte_t(), o, tag_done, w->c, w->c->ctx, post_seen, w, 1);
    if (!nocheck) send_bytes(w, o, tag_post, nullptr, 0);
  }
  core::progress_new_work();
  return errc::success;
}

errc win_start(window* w, const std::vector<int>& targets, bool nocheck) {
  core::engine_guard g;
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is already open");
  if (w->locks_held > 0 || w->lock_all)
    return core::error_set(errc::rma_sync, "a passive-target epoch (lock) is open on this window");
  w->access_epoch = true;
  w->access_group = targets;
  w->posts_seen = 0;
  w->posts_needed = nocheck ? 0 : int(targets.size());
  for (int t : targets) {
    w->in_access[size_t(t)] = 1;
    if (!nocheck)
      (void)p2p::start_internal(core::req_kind::recv, nullptr, 0, byte_t(), t, tag_post, w->c, w->c->ctx, post_seen, w, 0);
  }
  // Waits for every target's post here (the standard allows MPI_Win_start to block).
  core::progress_wait(g, [w] { return w->posts_seen == w->posts_needed; });
  return errc::success;
}

errc win_complete(window* w) {
  core::engine_guard g;
  if (!w->access_epoch) return core::error_set(errc::rma_sync, "no access epoch is open (MPI_Win_start was not called)");
  core::progress_wait(g, [w] {
    for (int t : w->access_group)
      if (w->pending[size_t(t)] != 0) return false;
    return true;
  });
  for (int t : w->access_group) {
    send_bytes(w, t, tag_done, nullptr, 0);
    w->in_access[size_t(t)] = 0;
  }
  core::progress_new_work();
  w->access_group.clear();
  w->access_epoch = false;
  return take_deferred(w);
}

errc win_wait(window* w) {
  core::engine_guard g;
  if (!w->exposure_epoch) return core::error_set(errc::rma_sync, "no exposure epoch is open (MPI_Win_post was not called)");
  core::progress_wait(g, [w] { return w->dones_seen == w->dones_needed; });
  w->exposure_epoch = false;
  return errc::success;
}

errc win_test(window* w, bool* flag) {
  core::engine_guard g;
  if (!w->exposure_epoch) return core::error_set(errc::rma_sync, "no exposure epoch is open (MPI_Win_post was not called)");
  (void)core::progress_poll();
  *flag = w->dones_seen == w->dones_needed;
  if (*flag) w->exposure_epoch = false;
  return errc::success;
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

namespace {
// Put / get by direct copy (see window::direct). Returns false when it does not apply (then the
// message path runs); `h` is the operation's header with off / lo / hi set, tbytes > 0.
bool try_direct(window* w, const rma_args& a, const op_hdr& h, int64_t tbytes) {
  const int t = a.target;
  if (!w->direct || !w->same_host[size_t(t)]) return false;
  if (a.kind != op_kind::put && a.kind != op_kind::get) return false;
  if (t == w->rank || w->fl == flavor::shared) {
    // Same address space (or the shared mapping): a typed copy, any datatypes on both sides.
    char* tb = reinterpret_cast<char*>(uintptr_t(w->bases[size_t(t)])) + h.off;
    uint64_t moved = 0;
    if (a.kind == op_kind::put)
      (void)core::copy_typed(a.origin, a.ocount, *a.otype, tb, a.tcount, *a.ttype, &moved);
    else
      (void)core::copy_typed(tb, a.tcount, *a.ttype, const_cast<void*>(a.origin), a.ocount, *a.otype, &moved);
    return true;
  }
  // Another process: one contiguous target range through process_vm_writev / readv.
  if (!a.ttype->is_contiguous() || !core::cma_wanted()) return false;
  const uint64_t addr = uint64_t(w->bases[size_t(t)] + h.off + h.lo);
  const int pid = int(w->pids[size_t(t)]);
  const bool ocontig = a.otype->is_contiguous();
  char* o = static_cast<char*>(const_cast<void*>(a.origin)) + a.otype->true_lb();
  std::vector<char> tmp;
  if (!ocontig) tmp.resize(size_t(tbytes));
  bool ok;
  if (a.kind == op_kind::put) {
    if (!ocontig) (void)core::pack_all(a.origin, a.ocount, *a.otype, tmp.data());
    ok = core::cma_write(pid, addr, ocontig ? o : tmp.data(), uint64_t(tbytes));
  } else {
    ok = core::cma_read(pid, addr, ocontig ? o : tmp.data(), uint64_t(tbytes));
    if (ok && !ocontig) (void)core::unpack_all(tmp.data(), const_cast<void*>(a.origin), a.ocount, *a.otype);
  }
  if (!ok) w->direct = false;  // the kernel refuses (ptrace policy): messages from now on
  return ok;
}
}  // namespace

errc win_op(window* w, const rma_args& a, request** req) {
  core::engine_guard g;
  const char* what = a.kind == op_kind::put ? "put" : a.kind == op_kind::get ? "get" : "accumulate";
  if (a.target == p2p::proc_null) {
    if (req) {
      request* u = core::request_new(core::req_kind::coll);
      u->active = true;
      u->mark_complete();
      *req = u;
    }
    return errc::success;
  }
  const int t = a.target;
  if (a.request_based ? (!w->lock_all && w->locked[size_t(t)] == 0) : !may_access(w, t))
    return core::error_set(errc::rma_sync,
                           a.request_based ? "request-based RMA needs a passive-target epoch (MPI_Win_lock or "
                                             "MPI_Win_lock_all) on rank %d"
                                           : "no access epoch is open on rank %d of the window (fence, start or lock it "
                                             "first)",
                           t);
  const datatype& tt = *a.ttype;
  op_hdr h{};
  h.kind = uint8_t(a.kind);
  const int64_t tbytes = a.tcount * tt.size();
  // The target type as segments; a contiguous one is a single block.
  std::vector<seg> segs;
  if (tbytes == 0) {
    h.count = 0;
  } else if (tt.is_contiguous()) {
    segs.push_back({tt.true_lb(), 1, tbytes, 0});
    h.count = 1;
    h.lo = tt.true_lb();
    h.hi = tt.true_lb() + tbytes;
  } else {
    for (const core::dt_segment& s : tt.segments()) segs.push_back({s.offset, s.count, s.blocklen, s.stride});
    h.count = a.tcount;
    h.extent = tt.extent();
    const int64_t span = (a.tcount - 1) * tt.extent();
    h.lo = tt.true_lb() + std::min<int64_t>(0, span);
    h.hi = tt.true_ub() + std::max<int64_t>(0, span);
  }
  h.nseg = uint32_t(segs.size());
  if (w->fl == flavor::dynamic) {
    h.off = a.disp;
  } else {
    h.off = a.disp * w->disp_units[size_t(t)];
    if (tbytes > 0 && (h.off + h.lo < 0 || h.off + h.hi > w->sizes[size_t(t)]))
      return core::error_set(errc::rma_range,
                             "the %s touches bytes [%lld, %lld) of rank %d's window, which has %lld bytes", what,
                             (long long)(h.off + h.lo), (long long)(h.off + h.hi), t, (long long)w->sizes[size_t(t)]);
  }
  const size_t seg_bytes = segs.size() * sizeof(seg);
  if (segs.size() > UINT32_MAX)
    return core::error_set(errc::type, "the target datatype has %zu contiguous pieces per element; RMA supports at "
                                       "most 2^32 - 1", segs.size());
  // Payload and reply sizes.
  const int64_t obytes = a.otype ? a.ocount * a.otype->size() : 0;
  const bool sends_data = a.kind == op_kind::put || a.kind == op_kind::acc || a.kind == op_kind::cas ||
                          (a.kind == op_kind::get_acc && a.op->kind() != core::op_kind::no_op);
  if ((a.kind == op_kind::put || a.kind == op_kind::get || sends_data) && a.kind != op_kind::cas && obytes != tbytes)
    return core::error_set(errc::type, "the origin buffer holds %lld bytes but the target datatype describes %lld",
                           (long long)obytes, (long long)tbytes);
  if (a.kind == op_kind::get_acc && a.rcount * a.rtype->size() != tbytes)
    return core::error_set(errc::type, "the result buffer holds %lld bytes but the target datatype describes %lld",
                           (long long)(a.rcount * a.rtype->size()), (long long)tbytes);
  if (a.kind == op_kind::acc || a.kind == op_kind::get_acc || a.kind == op_kind::cas) {
    h.op_code = a.op ? a.op->abi_code() : 0;
    h.basic_code = tt.basic() ? tt.basic()->abi_code() : 0;
  }
  uint64_t data_bytes = 0;
  if (a.kind == op_kind::cas)
    data_bytes = uint64_t(2 * tbytes);
  else if (sends_data)
    data_bytes = uint64_t(tbytes);
  h.data_bytes = data_bytes;
  h.reply_bytes = (a.kind == op_kind::get || a.kind == op_kind::get_acc || a.kind == op_kind::cas) ? uint64_t(tbytes) : 0;
  if (tbytes == 0 && a.kind != op_kind::cas) {
    // Nothing to move: complete at once.
    if (req) {
      request* u = core::request_new(core::req_kind::coll);
      u->active = true;
      u->mark_complete();
      *req = u;
    }
    return errc::success;
  }
  if (try_direct(w, a, h, tbytes)) {
    if (req) {
      request* u = core::request_new(core::req_kind::coll);
      u->active = true;
      u->mark_complete();
      *req = u;
    }
    return errc::success;
  }
  request* user = nullptr;
  if (req) {
    user = core::request_new(core::req_kind::coll);
    user->active = true;
    *req = user;
  }
  void* result = a.kind == op_kind::get ? const_cast<void*>(a.origin) : a.result;
  const datatype* rtype = a.kind == op_kind::get ? a.otype : a.rtype;
  const int64_t rcount = a.kind == op_kind::get ? a.ocount : a.rcount;
  h.reply_tag = expect_reply(w, t, h.reply_bytes, h.reply_bytes ? result : nullptr, rcount,
                             h.reply_bytes ? rtype : nullptr, user);
  // A segment list too long for the target's header receive travels at the head of the data
  // message instead (then the data is packed here, after it).
  h.segs_in_data = sizeof h + seg_bytes > hdr_cap;
  h.inline_data = !h.segs_in_data && sizeof h + seg_bytes + data_bytes <= inline_max;
  const size_t hseg = h.segs_in_data ? 0 : seg_bytes;
  const size_t msg = sizeof h + hseg + (h.inline_data ? data_bytes : 0);
  char* b = static_cast<char*>(std::malloc(msg));
  std::memcpy(b, &h, sizeof h);
  if (hseg) std::memcpy(b + sizeof h, segs.data(), hseg);
  if (h.inline_data && data_bytes) {
    char* d = b + sizeof h + hseg;
    if (a.kind == op_kind::cas) {
      std::memcpy(d, a.origin, size_t(tbytes));
      std::memcpy(d + tbytes, a.compare, size_t(tbytes));
    } else {
      (void)core::pack_all(a.origin, a.ocount, *a.otype, d);
    }
  }
  send_bytes(w, t, tag_hdr, b, msg);
  if (h.segs_in_data) {
    char* d = static_cast<char*>(std::malloc(seg_bytes + data_bytes));
    std::memcpy(d, segs.data(), seg_bytes);
    if (data_bytes) (void)core::pack_all(a.origin, a.ocount, *a.otype, d + seg_bytes);
    send_bytes(w, t, tag_data, d, seg_bytes + data_bytes);
  } else if (!h.inline_data && data_bytes) {
    send_typed(w, t, tag_data, a.origin, a.ocount, a.otype);
  }
  core::progress_new_work();
  return errc::success;
}

}  // namespace baton::rma
