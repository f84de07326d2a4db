// Data access entry points: checks, file pointer resolution, and the requests of nonblocking and
// split collective operations.
//
// A blocking independent access runs in the caller's thread. A nonblocking one is prepared in the
// caller (pointers advanced, data converted) and handed to the I/O worker; its request completes
// when the io poller (registered with the progress engine while requests are pending) sees the
// job done, so MPI_Test, any other MPI call, or the progress thread completes it. Collective
// accesses are operations of collective.cpp advanced by the same poller (nonblocking) or waited
// for in the call (blocking).
#include <algorithm>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "io/access.hpp"
#include "io/comm_util.hpp"
#include "io/shared_fp.hpp"
#include "io/worker.hpp"

namespace baton::io {

namespace {
errc check_access(const file* f, const access& a) {
  if (a.write && (f->amode & mode_rdonly))
    return core::error_set(errc::read_only, "cannot write to '%s': it was opened with MPI_MODE_RDONLY",
                           f->name.c_str());
  if (!a.write && (f->amode & mode_wronly))
    return core::error_set(errc::access, "cannot read '%s': it was opened with MPI_MODE_WRONLY", f->name.c_str());
  if ((f->amode & mode_sequential) && (a.pos == position::explicit_offset || a.pos == position::individual))
    return core::error_set(errc::unsupported_operation,
                           "'%s' was opened with MPI_MODE_SEQUENTIAL: only the shared file pointer may be used",
                           f->name.c_str());
  if (a.pos == position::explicit_offset && a.offset < 0)
    return core::error_set(errc::arg, "negative offset %lld", (long long)a.offset);
  return errc::success;
}

// Ordered access (MPI_File_*_ordered): rank r's data follows ranks 0 .. r-1's; the shared pointer
// moves past all of it. Collective; a rank that failed its checks makes every rank fail.
errc ordered_offset(file* f, int64_t etypes, errc local, int64_t* off) {
  struct rec {
    int64_t etypes;
    int64_t err;
  } mine{etypes, int64_t(local)};
  std::vector<rec> all(size_t(f->size));
  if (errc e = allgather(f->c, &mine, sizeof(mine), all.data()); e != errc::success) return e;
  int64_t before = 0, total = 0;
  for (int r = 0; r < f->size; ++r) {
    if (all[size_t(r)].err != 0)
      return r == f->rank ? local : core::error_set(errc(all[size_t(r)].err), "rank %d failed its checks", r);
    if (r < f->rank) before += all[size_t(r)].etypes;
    total += all[size_t(r)].etypes;
  }
  struct {
    int64_t base;
    int64_t err;
    char msg[240];
  } out{};
  if (f->rank == 0) {
    errc e = shfp_fetch_add(f->sfp, total, &out.base);
    out.err = int64_t(e);
    if (e != errc::success) std::snprintf(out.msg, sizeof(out.msg), "%s", core::error_message().c_str());
  }
  if (errc e = bcast(f->c, &out, sizeof(out), 0); e != errc::success) return e;
  if (out.err != 0) return core::error_set(errc(out.err), "%s", out.msg);
  *off = out.base + before;
  return errc::success;
}

// The etype offset where an access starts; pointers advance by the access's size.
errc resolve_offset(file* f, const access& a, int64_t etypes, int64_t* off) {
  switch (a.pos) {
    case position::explicit_offset:
      *off = a.offset;
      return errc::success;
    case position::individual:
      *off = f->fp;
      f->fp += etypes;
      return errc::success;
    case position::shared:
      return shfp_fetch_add(f->sfp, etypes, off);
    case position::ordered:
      return ordered_offset(f, etypes, errc::success, off);
  }
  return errc::success;
}

// Checks and the offset; for collective accesses a local failure is carried into the operation
// (every rank must take part) unless the access is ordered, whose agreement already spread it.
errc begin_access(file* f, const access& a, int64_t* off) {
  errc e = check_access(f, a);
  int64_t len = 0, etypes = 0;
  if (e == errc::success) e = access_size(f, a.count, a.type, &len, &etypes);
  if (a.pos == position::ordered) {
    if (f->size == 1 && e != errc::success) return e;
    return ordered_offset(f, etypes, e, off);
  }
  if (e != errc::success) return e;
  return resolve_offset(f, a, etypes, off);
}

// ---- requests ----
struct io_state {
  file* f = nullptr;
  transfer t;
  job j;
  errc err = errc::success;
  std::string msg;
  coll_op* op = nullptr;
};

std::vector<core::request*> g_pending;
bool g_polling = false;

void finish(core::request* r, core::req_status st, errc e) {
  auto* s = static_cast<io_state*>(r->ext);
  s->f->pending.fetch_sub(1, std::memory_order_relaxed);
  delete s;
  r->ext = nullptr;
  r->status = st;
  r->status.error = e;
  g_pending.erase(std::find(g_pending.begin(), g_pending.end(), r));
  if (r->user_freed) {
    if (r->c) r->c->release();
    core::request_delete(r);
    return;
  }
  r->mark_complete();
  if (core::rt().threaded) core::progress_kick();
}

// Moves r on; true once it completed. Engine lock held.
bool advance(core::request* r) {
  auto* s = static_cast<io_state*>(r->ext);
  if (!s) return r->is_complete();
  core::req_status st;
  if (s->op) {
    if (!coll_advance(s->op)) return false;
    errc e = coll_finish(s->op, &st);
    s->op = nullptr;
    finish(r, st, e);
    return true;
  }
  if (!s->j.done.load(std::memory_order_acquire)) return false;
  errc e = s->err;
  if (e != errc::success)
    (void)core::error_set(e, "%s", s->msg.c_str());
  else
    e = transfer_finish(&s->t, &st);
  finish(r, st, e);
  return true;
}

bool io_poll() {
  bool moved = false;
  for (size_t i = 0; i < g_pending.size();) {
    core::request* r = g_pending[i];
    if (advance(r))
      moved = true;  // r left g_pending: the same index holds the next one
    else
      ++i;
  }
  if (g_pending.empty()) {
    core::progress_remove_poller(io_poll);
    g_polling = false;
  }
  return moved;
}

bool on_poll(core::request* r) { return advance(r); }
errc on_cancel(core::request*) { return errc::success; }  // file requests run to completion (MPI-4.1 14.4.4)
void on_destroy(core::request* r) {
  // Destroyed before completing only when the program ends with it pending.
  delete static_cast<io_state*>(r->ext);
  r->ext = nullptr;
}
const core::request_ops g_ops{nullptr, on_cancel, nullptr, on_destroy, on_poll};

core::request* new_request(file* f, io_state* s) {
  core::request* r = core::request_new(core::req_kind::coll);
  r->ops = &g_ops;
  r->ext = s;
  f->c->retain();
  r->c = f->c;  // errors at completion go to the file's error handler (set on its communicator)
  r->active = true;
  f->pending.fetch_add(1, std::memory_order_relaxed);
  g_pending.push_back(r);
  if (!g_polling) {
    core::progress_add_poller(io_poll);
    g_polling = true;
  }
  return r;
}
}  // namespace

errc file_access(file* f, const access& a, core::req_status* st) {
  int64_t off = 0;
  errc e = begin_access(f, a, &off);
  if (!a.collective || a.pos == position::ordered) {
    if (e != errc::success) return e;
    if (!a.collective) {
      transfer t;
      if (errc x = transfer_prepare(f, a, off, &t); x != errc::success) return x;
      if (errc x = indep_run(&t); x != errc::success) return x;
      return transfer_finish(&t, st);
    }
  }
  coll_op* op = nullptr;
  core::engine_guard g;
  if (errc x = coll_start(f, a, off, e, false, &op); x != errc::success) return x;
  core::progress_wait(g, [op] { return coll_advance(op); });
  return coll_finish(op, st);
}

errc file_iaccess(file* f, const access& a, core::request** out) {
  int64_t off = 0;
  errc e = begin_access(f, a, &off);
  if ((!a.collective || a.pos == position::ordered) && e != errc::success) return e;
  auto* s = new io_state;
  s->f = f;
  core::engine_guard g;
  if (a.collective) {
    if (errc x = coll_start(f, a, off, e, true, &s->op); x != errc::success) {
      delete s;
      return x;
    }
    coll_kick(s->op);
  } else {
    if (errc x = transfer_prepare(f, a, off, &s->t); x != errc::success) {
      delete s;
      return x;
    }
    s->j.work = [s] {
      s->err = indep_run(&s->t);
      if (s->err != errc::success) s->msg = core::error_message();
    };
    worker_submit(&s->j);
  }
  *out = new_request(f, s);
  g.unlock();
  core::progress_new_work();
  return errc::success;
}

errc file_split_begin(file* f, const access& a) {
  if (f->split)
    return core::error_set(errc::other, "a split collective operation is already active on '%s' (one at a time per "
                                        "file): end it first", f->name.c_str());
  core::request* r = nullptr;
  if (errc e = file_iaccess(f, a, &r); e != errc::success) return e;
  f->split = r;
  f->split_read = !a.write;
  return errc::success;
}

errc file_split_end(file* f, bool write, core::req_status* st) {
  core::request* r = f->split;
  if (!r)
    return core::error_set(errc::other, "no split collective operation is active on '%s' (call the _begin form first)",
                           f->name.c_str());
  if (f->split_read == write)
    return core::error_set(errc::other, "the active split collective on '%s' is a %s: end it with the matching _end "
                                        "call", f->name.c_str(), f->split_read ? "read" : "write");
  {
    core::engine_guard g;
    core::progress_wait(g, [r] { return advance(r); });
  }
  f->split = nullptr;
  errc e = r->status.error;
  if (st) *st = r->status;
  if (r->c) r->c->release();
  core::request_delete(r);
  return e;
}

}  // namespace baton::io
