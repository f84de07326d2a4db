// One-sided communication, the origin side: put, get, accumulate and their request-based forms,
// sent as messages or, to a rank of this host, copied directly; replies complete them (see
// win.hpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
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

}  // namespace detail

using namespace detail;

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
                             (long long)h.off + (long long)h.lo, (long long)h.off + (long long)h.hi, t, (long long)w->sizes[size_t(t)]);
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
                           (long long)a.rcount * (long long)a.rtype->size(), (long long)tbytes);
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
  // To this very process, the messages above have already arrived: apply the operation now, so
  // that it is complete (its result written) when the call returns, as in MPICH and Open MPI.
  // Programs that free a result buffer before the closing synchronization (erroneous, but
  // mpi4py 3.1's test_rma does it) then do not get it written after the free.
  if (t == w->rank) (void)core::progress_poll();
  core::progress_new_work();
  return errc::success;
}

}  // namespace baton::rma
