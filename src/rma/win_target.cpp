// One-sided communication, the target side: the header receive, and the poller that applies
// operations one at a time and grants locks (see win.hpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"
#include "rma/win_internal.hpp"

namespace baton::rma {

namespace detail {

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
                         w->rank, (long long)h.off + (long long)h.lo, (long long)h.off + (long long)h.hi, (long long)w->bytes);
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
    // An exclusive lock ends with its holder; a shared one with its last holder.
    if (w->lock_state == lock_kind::exclusive || (w->lock_state == lock_kind::shared && --w->shared_holders == 0))
      w->lock_state = lock_kind::none;
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

}  // namespace detail

using namespace detail;


}  // namespace baton::rma
