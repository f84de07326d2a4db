// One-sided communication entry points (MPI-4.1 chapter 12): argument checks, window handles,
// window error handlers, names, info and attributes. The engine is src/rma/ (win.hpp).
//
// A window handle is the address of its rma::window. Errors on a window go to the window's error
// handler (a new window takes the error handler of the communicator it was created over);
// errors with no valid window go to MPI_COMM_WORLD's.
#include <mutex>
#include <string>
#include <vector>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "comm/comm.hpp"
#include "core/attr.hpp"
#include "core/group.hpp"
#include "core/info.hpp"
#include "rma/win.hpp"

using namespace baton;
using abi::run_guarded;
using core::errc;
using rma::window;

namespace {

constexpr int mode_nocheck = 1024, mode_noprecede = 2048, mode_noput = 4096, mode_nostore = 8192,
              mode_nosucceed = 16384;

MPI_Win to_handle(window* w) { return reinterpret_cast<MPI_Win>(w); }

window* to_win(MPI_Win h) {
  if (h == MPI_WIN_NULL) {
    (void)core::error_set(errc::win, "the window is MPI_WIN_NULL");
    return nullptr;
  }
  auto* w = reinterpret_cast<window*>(h);
  if (abi::is_predefined(h) || !rma::win_valid(w)) {
    (void)core::error_set(errc::win, "invalid window handle (not a window, or already freed)");
    return nullptr;
  }
  return w;
}

// Runs the window's error handler (a user one gets the window handle).
int raise_win(const char* fn, window* w, errc e) {
  if (!w) return abi::raise(fn, nullptr, e);
  core::errhandler* eh = w->eh;
  if (eh->kind == core::errhandler_kind::user) {
    int code = abi::to_mpi(e);
    MPI_Win h = to_handle(w);
    reinterpret_cast<MPI_Win_errhandler_function*>(eh->user_fn)(&h, &code);
    return code;
  }
  return abi::raise_with(fn, eh, MPI_COMM_NULL, e);
}

template <class Body>
int win_call(const char* fn, window* w, Body&& body) {
  errc e = run_guarded(body);
  if (e == errc::success) return MPI_SUCCESS;
  return raise_win(fn, w, e);
}

// Common entry: MPI usable and a valid window.
#define WIN_ENTRY(fn, h, w)                                                     \
  if (errc e_ = abi::check_init(fn); e_ != errc::success) return abi::raise(fn, nullptr, e_); \
  window* w = to_win(h); /* NOLINT(bugprone-macro-parentheses): w names the variable */ \
  if (!w) return abi::raise(fn, nullptr, errc::win) /* NOLINT(bugprone-macro-parentheses) */

errc check_target(const window* w, int rank) {
  if (rank == MPI_PROC_NULL) return errc::success;
  if (rank < 0 || rank >= w->size)
    return core::error_set(errc::rank, "target rank %d is out of range [0, %d) for this window", rank, w->size);
  return errc::success;
}

errc check_rank(const window* w, int rank) {
  if (rank < 0 || rank >= w->size)
    return core::error_set(errc::rank, "rank %d is out of range [0, %d) for this window", rank, w->size);
  return errc::success;
}

errc check_dtype(const core::datatype* t, const char* which) {
  if (!t) return core::error_set(errc::type, "the %s datatype is not valid", which);
  if (errc e = abi::check_type(t); e != errc::success) return e;
  return errc::success;
}

errc check_side(int64_t count, const core::datatype* t, const char* which) {
  if (count < 0) return core::error_set(errc::count, "negative %s count %lld", which, (long long)count);
  return check_dtype(t, which);
}

errc check_disp(const window* w, int64_t disp) {
  if (w->fl != rma::flavor::dynamic && disp < 0)
    return core::error_set(errc::disp, "negative target displacement %lld", (long long)disp);
  return errc::success;
}

// The op of an accumulate on target type tt (and origin type ot when given): predefined, defined
// on the type's elements, the same predefined element type on both sides.
errc check_acc(const core::op* o, const core::datatype* ot, const core::datatype* tt, bool allow_no_op, bool empty) {
  if (!o) return errc::op;
  if (!o->is_predefined())
    return core::error_set(errc::op, "user-defined ops cannot be used in RMA accumulate operations (only predefined "
                                     "ops and MPI_REPLACE / MPI_NO_OP)");
  if (o->kind() == core::op_kind::no_op && !allow_no_op)
    return core::error_set(errc::op, "MPI_NO_OP is only allowed in MPI_Get_accumulate, MPI_Rget_accumulate and "
                                     "MPI_Fetch_and_op");
  // An accumulate that moves no data (zero counts or empty datatypes on every side) is a no-op:
  // its datatypes have no elements whose types could disagree.
  if (empty) return errc::success;
  if (!tt->basic())
    return core::error_set(errc::type, "the target datatype of an accumulate must be built from one predefined type");
  if (ot && ot->size() > 0 && ot->basic() != tt->basic())
    return core::error_set(errc::type, "the origin datatype's elements (%s) differ from the target's (%s)",
                           ot->basic() ? ot->basic()->name().c_str() : "mixed", tt->basic()->name().c_str());
  core::elem_kind k;
  return abi::check_op_type(*o, *tt, &k);
}

errc to_ranks(window* w, MPI_Group group, std::vector<int>* out) {
  core::group* g = abi::to_group(group);
  if (!g) return errc::group;
  for (int wr : g->world) {
    int r = core::comm_rank_of_world(w->c, wr);
    if (r < 0) return core::error_set(errc::group, "world rank %d of the group is not a member of the window", wr);
    out->push_back(r);
  }
  return errc::success;
}

// ---- creation ----

errc get_hints(MPI_Info info, std::vector<std::pair<std::string, std::string>>* hints) {
  if (info == MPI_INFO_NULL) return errc::success;
  core::info* in = abi::to_info(info);
  if (!in) return errc::info;
  *hints = in->entries;
  return errc::success;
}

int create_common(const char* fn, rma::flavor fl, void* base, int64_t size, int64_t disp_unit, MPI_Info info,
                  MPI_Comm comm, void* baseptr, MPI_Win* win) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return abi::call(fn, c, [&] {
    if (!win) return core::error_set(errc::arg, "the window output pointer is NULL");
    if (c->inter) return core::error_set(errc::comm, "windows are created over intracommunicators only");
    if (size < 0) return core::error_set(errc::size, "negative window size %lld", (long long)size);
    if (disp_unit <= 0) return core::error_set(errc::disp, "the displacement unit must be positive (got %lld)", (long long)disp_unit);
    if (fl == rma::flavor::create && size > 0 && !base)
      return core::error_set(errc::base, "NULL base for a window of %lld bytes", (long long)size);
    if ((fl == rma::flavor::allocate || fl == rma::flavor::shared) && !baseptr)
      return core::error_set(errc::arg, "the baseptr output is NULL");
    std::vector<std::pair<std::string, std::string>> hints;
    if (errc e = get_hints(info, &hints); e != errc::success) return e;
    // The window's two private communicators (see rma::win_create, which takes them over).
    core::comm* wc = nullptr;
    if (errc e = comm::comm_dup(c, &wc); e != errc::success) return e;
    core::comm* hc = nullptr;
    if (errc e = comm::comm_dup(c, &hc); e != errc::success) {
      (void)core::comm_free(wc);
      return e;
    }
    window* w = nullptr;
    if (errc e = rma::win_create(wc, hc, fl, base, size, disp_unit, hints, &w); e != errc::success) return e;
    w->eh = c->eh;
    w->eh->retain();
    if (baseptr) *static_cast<void**>(baseptr) = w->base;
    *win = to_handle(w);
    return errc::success;
  });
}

// ---- attributes ----

std::recursive_mutex& attr_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

errc run_delete(window* w, const core::attribute a) {
  auto* fn = reinterpret_cast<MPI_Win_delete_attr_function*>(a.kv->delete_fn);
  if (!fn) return errc::success;
  int rc = fn(to_handle(w), a.kv->id, a.value, a.kv->extra_state);
  if (rc != MPI_SUCCESS)
    return core::error_set(abi::user_callback_error(rc),
                           "the delete callback of window attribute key %d returned error %d", a.kv->id, rc);
  return errc::success;
}

core::attribute* find_attr(window* w, int keyval) {
  for (core::attribute& a : w->attrs)
    if (a.kv->id == keyval) return &a;
  return nullptr;
}

errc delete_all_attrs(window* w) {
  std::lock_guard<std::recursive_mutex> g(attr_mutex());
  while (!w->attrs.empty()) {
    core::attribute a = w->attrs.back();
    if (errc e = run_delete(w, a); e != errc::success) return e;
    for (auto it = w->attrs.rbegin(); it != w->attrs.rend(); ++it)
      if (it->kv == a.kv) {
        w->attrs.erase(std::next(it).base());
        a.kv->release();
        break;
      }
  }
  return errc::success;
}

// ---- operations ----

int op_entry(const char* fn, MPI_Win win, const rma::rma_args& a0, MPI_Datatype ot, MPI_Datatype rt, MPI_Datatype tt,
             MPI_Op op, MPI_Request* request) {
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    rma::rma_args a = a0;
    if (errc e = check_target(w, a.target); e != errc::success) return e;
    if (a.kind == rma::op_kind::cas) {
      a.ttype = a.otype = a.rtype = abi::to_type(tt);
      if (!a.ttype) return errc::type;
      if (!a.ttype->is_predefined())
        return core::error_set(errc::type, "MPI_Compare_and_swap needs a predefined datatype");
      const core::basic_kind k = a.ttype->kind();
      // MPI_CHAR counts as an 8-bit integer, as in the reductions (and as MPICH and Open MPI take
      // it: OSU's osu_cas_latency uses it); the comparison is bytewise anyway.
      if (k != core::basic_kind::signed_int && k != core::basic_kind::unsigned_int && k != core::basic_kind::logical &&
          k != core::basic_kind::byte && !(k == core::basic_kind::character && a.ttype->size() == 1))
        return core::error_set(errc::type,
                               "MPI_Compare_and_swap needs an integer, logical, byte or MPI_CHAR datatype (got %s)",
                               a.ttype->name().c_str());
      if (!a.origin || !a.compare || !a.result)
        return core::error_set(errc::buffer, "NULL origin, compare or result buffer");
    } else {
      const bool no_origin = a.kind == rma::op_kind::get_acc && op != MPI_OP_NULL && abi::to_op(op) &&
                             abi::to_op(op)->kind() == core::op_kind::no_op;
      if (!no_origin) {
        a.otype = abi::to_type(ot);
        if (errc e = check_side(a.ocount, a.otype, "origin"); e != errc::success) return e;
      } else {
        a.otype = nullptr;
        a.ocount = 0;
      }
      a.ttype = abi::to_type(tt);
      if (errc e = check_side(a.tcount, a.ttype, "target"); e != errc::success) return e;
      if (a.kind == rma::op_kind::get_acc) {
        a.rtype = abi::to_type(rt);
        if (errc e = check_side(a.rcount, a.rtype, "result"); e != errc::success) return e;
        if (a.rcount * a.rtype->size() > 0 && a.tcount * a.ttype->size() > 0 && a.rtype->basic() != a.ttype->basic())
          return core::error_set(errc::type, "the result datatype's elements differ from the target datatype's");
      }
    }
    if (errc e = check_disp(w, a.disp); e != errc::success) return e;
    if (a.kind == rma::op_kind::acc || a.kind == rma::op_kind::get_acc) {
      a.op = abi::to_op(op);
      const bool empty = a.tcount * a.ttype->size() == 0 && (!a.otype || a.ocount * a.otype->size() == 0) &&
                         (!a.rtype || a.rcount * a.rtype->size() == 0);
      if (errc e = check_acc(a.op, a.otype, a.ttype, a.kind == rma::op_kind::get_acc, empty); e != errc::success)
        return e;
    }
    a.request_based = request != nullptr;
    core::request* r = nullptr;
    if (errc e = rma::win_op(w, a, request ? &r : nullptr); e != errc::success) return e;
    if (request) *request = abi::to_handle(r);
    return errc::success;
  });
}

rma::rma_args args(rma::op_kind k, const void* o, int64_t oc, void* res, int64_t rc, int target, int64_t disp,
                   int64_t tc) {
  rma::rma_args a;
  a.kind = k;
  a.origin = o;
  a.ocount = oc;
  a.result = res;
  a.rcount = rc;
  a.target = target;
  a.disp = disp;
  a.tcount = tc;
  return a;
}

}  // namespace

int baton::abi::raise_null(const char* fn, MPI_Win win, const char* param) {
  window* w = win == MPI_WIN_NULL ? nullptr : to_win(win);
  return raise_win(fn, w, core::error_set(errc::arg, "the %s argument is NULL", param));
}

namespace baton::impl {

// ---- creation and destruction ----

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create_common("MPI_Win_create", rma::flavor::create, base, size, disp_unit, info, comm, nullptr, win);
}
int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create_common("MPI_Win_create_c", rma::flavor::create, base, size, disp_unit, info, comm, nullptr, win);
}
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create_common("MPI_Win_allocate", rma::flavor::allocate, nullptr, size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create_common("MPI_Win_allocate_c", rma::flavor::allocate, nullptr, size, disp_unit, info, comm, baseptr,
                       win);
}
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create_common("MPI_Win_allocate_shared", rma::flavor::shared, nullptr, size, disp_unit, info, comm, baseptr,
                       win);
}
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                               MPI_Win* win) {
  return create_common("MPI_Win_allocate_shared_c", rma::flavor::shared, nullptr, size, disp_unit, info, comm,
                       baseptr, win);
}
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create_common("MPI_Win_create_dynamic", rma::flavor::dynamic, nullptr, 0, 1, info, comm, nullptr, win);
}

int MPI_Win_free(MPI_Win* win) {
  const char* fn = "MPI_Win_free";
  if (!win) return abi::raise(fn, nullptr, core::error_set(errc::arg, "the window pointer is NULL"));
  WIN_ENTRY(fn, *win, w);
  errc e = run_guarded([&] {
    if (w->locks_held > 0 || w->lock_all || w->access_epoch || w->exposure_epoch)
      return rma::win_free(w);  // refuses with the reason, the window stays usable
    return delete_all_attrs(w);
  });
  if (e != errc::success) return raise_win(fn, w, e);
  // The window is gone after this: a failure goes to MPI_COMM_WORLD's handler.
  core::errhandler* eh = w->eh;
  eh->retain();
  e = run_guarded([&] { return rma::win_free(w); });
  *win = MPI_WIN_NULL;
  int rc = e == errc::success ? MPI_SUCCESS : abi::raise_with(fn, eh, MPI_COMM_NULL, e);
  eh->release();
  return rc;
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  const char* fn = "MPI_Win_shared_query";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    // MPI-4.1 allows windows of MPI_Win_create and MPI_Win_allocate too: a segment the caller
    // cannot reach with loads and stores gives size 0 and a NULL baseptr. Baton's memory of those
    // windows is private to each process, so only the caller's own segment is reachable.
    if (w->fl == rma::flavor::dynamic)
      return core::error_set(errc::rma_flavor,
                             "MPI_Win_shared_query does not apply to a window of MPI_Win_create_dynamic");
    if (!size || !disp_unit || !baseptr) return core::error_set(errc::arg, "NULL size, disp_unit or baseptr");
    if (w->fl != rma::flavor::shared) {
      if (rank != MPI_PROC_NULL)
        if (errc e = check_rank(w, rank); e != errc::success) return e;
      // MPI_PROC_NULL names the lowest rank whose segment is not empty: reachable only by itself.
      int r = rank;
      if (rank == MPI_PROC_NULL) {
        r = w->rank;
        for (int i = 0; i < w->size; ++i)
          if (w->sizes[size_t(i)] > 0) {
            r = i;
            break;
          }
      }
      const bool mine = r == w->rank && w->bytes > 0;
      *size = mine ? w->bytes : 0;
      *disp_unit = w->disp_units[size_t(r)];
      *static_cast<void**>(baseptr) = mine ? w->base : nullptr;
      return errc::success;
    }
    int r = rank;
    if (rank == MPI_PROC_NULL) {
      r = 0;
      for (int i = 0; i < w->size; ++i)
        if (w->sizes[size_t(i)] > 0) {
          r = i;
          break;
        }
    } else if (errc e = check_rank(w, rank); e != errc::success) {
      return e;
    }
    *size = w->sizes[size_t(r)];
    *disp_unit = w->disp_units[size_t(r)];
    // A segment of size 0 has no address: NULL, as MPICH and Open MPI give.
    *static_cast<void**>(baseptr) =
        w->sizes[size_t(r)] > 0 ? static_cast<char*>(w->shm) + w->shm_offsets[size_t(r)] : nullptr;
    return errc::success;
  });
}
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint du = 0;
  if (!disp_unit) return PMPI_Win_shared_query_c(win, rank, size, nullptr, baseptr);
  int rc = PMPI_Win_shared_query_c(win, rank, size, &du, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = int(du);
  return rc;
}

int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* fn = "MPI_Win_attach";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (w->fl != rma::flavor::dynamic)
      return core::error_set(errc::rma_flavor, "memory can only be attached to a window made by MPI_Win_create_dynamic");
    if (size < 0) return core::error_set(errc::size, "negative size %lld", (long long)size);
    if (size > 0 && !base) return core::error_set(errc::base, "NULL base");
    return rma::win_attach(w, base, size);
  });
}
int MPI_Win_detach(MPI_Win win, const void* base) {
  const char* fn = "MPI_Win_detach";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (w->fl != rma::flavor::dynamic)
      return core::error_set(errc::rma_flavor, "memory can only be detached from a window made by MPI_Win_create_dynamic");
    return rma::win_detach(w, base);
  });
}

// ---- synchronization ----

int MPI_Win_fence(int assert_bits, MPI_Win win) {
  const char* fn = "MPI_Win_fence";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (assert_bits & ~(mode_noprecede | mode_noput | mode_nostore | mode_nosucceed))
      return core::error_set(errc::assert_, "assert 0x%x has bits MPI_Win_fence does not take", assert_bits);
    return rma::win_fence(w, assert_bits);
  });
}

int MPI_Win_lock(int lock_type, int rank, int assert_bits, MPI_Win win) {
  const char* fn = "MPI_Win_lock";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
      return core::error_set(errc::locktype, "lock type %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lock_type);
    if (assert_bits & ~mode_nocheck)
      return core::error_set(errc::assert_, "assert 0x%x: MPI_Win_lock takes only MPI_MODE_NOCHECK", assert_bits);
    if (rank == MPI_PROC_NULL) return errc::success;
    if (errc e = check_rank(w, rank); e != errc::success) return e;
    return rma::win_lock(w, lock_type == MPI_LOCK_EXCLUSIVE ? rma::lock_kind::exclusive : rma::lock_kind::shared, rank,
                         (assert_bits & mode_nocheck) != 0);
  });
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  const char* fn = "MPI_Win_unlock";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (rank == MPI_PROC_NULL) return errc::success;
    if (errc e = check_rank(w, rank); e != errc::success) return e;
    return rma::win_unlock(w, rank);
  });
}

int MPI_Win_lock_all(int assert_bits, MPI_Win win) {
  const char* fn = "MPI_Win_lock_all";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (assert_bits & ~mode_nocheck)
      return core::error_set(errc::assert_, "assert 0x%x: MPI_Win_lock_all takes only MPI_MODE_NOCHECK", assert_bits);
    return rma::win_lock_all(w, (assert_bits & mode_nocheck) != 0);
  });
}

int MPI_Win_unlock_all(MPI_Win win) {
  const char* fn = "MPI_Win_unlock_all";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] { return rma::win_unlock_all(w); });
}

// Flushes complete operations remotely; local completion (flush_local) is given by the same wait,
// since an operation is answered only once it is applied at the target.
int flush_one(const char* fn, int rank, MPI_Win win) {
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (rank == MPI_PROC_NULL) return errc::success;
    if (errc e = check_rank(w, rank); e != errc::success) return e;
    return rma::win_flush(w, rank);
  });
}
int flush_all(const char* fn, MPI_Win win) {
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] { return rma::win_flush(w, -1); });
}
int MPI_Win_flush(int rank, MPI_Win win) { return flush_one("MPI_Win_flush", rank, win); }
int MPI_Win_flush_local(int rank, MPI_Win win) { return flush_one("MPI_Win_flush_local", rank, win); }
int MPI_Win_flush_all(MPI_Win win) { return flush_all("MPI_Win_flush_all", win); }
int MPI_Win_flush_local_all(MPI_Win win) { return flush_all("MPI_Win_flush_local_all", win); }

int MPI_Win_sync(MPI_Win win) {
  const char* fn = "MPI_Win_sync";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] { return rma::win_sync(w); });
}

int MPI_Win_post(MPI_Group group, int assert_bits, MPI_Win win) {
  const char* fn = "MPI_Win_post";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (assert_bits & ~(mode_nocheck | mode_nostore | mode_noput))
      return core::error_set(errc::assert_, "assert 0x%x has bits MPI_Win_post does not take", assert_bits);
    std::vector<int> ranks;
    if (errc e = to_ranks(w, group, &ranks); e != errc::success) return e;
    return rma::win_post(w, ranks, (assert_bits & mode_nocheck) != 0);
  });
}

int MPI_Win_start(MPI_Group group, int assert_bits, MPI_Win win) {
  const char* fn = "MPI_Win_start";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (assert_bits & ~mode_nocheck)
      return core::error_set(errc::assert_, "assert 0x%x: MPI_Win_start takes only MPI_MODE_NOCHECK", assert_bits);
    std::vector<int> ranks;
    if (errc e = to_ranks(w, group, &ranks); e != errc::success) return e;
    return rma::win_start(w, ranks, (assert_bits & mode_nocheck) != 0);
  });
}

int MPI_Win_complete(MPI_Win win) {
  const char* fn = "MPI_Win_complete";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] { return rma::win_complete(w); });
}
int MPI_Win_wait(MPI_Win win) {
  const char* fn = "MPI_Win_wait";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] { return rma::win_wait(w); });
}
int MPI_Win_test(MPI_Win win, int* flag) {
  const char* fn = "MPI_Win_test";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!flag) return core::error_set(errc::arg, "flag is NULL");
    bool f = false;
    errc e = rma::win_test(w, &f);
    *flag = f;
    return e;
  });
}

// ---- operations ----

int MPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return op_entry("MPI_Put", win,
                  args(rma::op_kind::put, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, MPI_OP_NULL, nullptr);
}
int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return PMPI_Put_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win);
}
int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return op_entry("MPI_Get", win,
                  args(rma::op_kind::get, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, MPI_OP_NULL, nullptr);
}
int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return PMPI_Get_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win);
}
int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win) {
  return op_entry("MPI_Accumulate", win,
                  args(rma::op_kind::acc, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, op, nullptr);
}
int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return PMPI_Accumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, op, win);
}
int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win) {
  return op_entry("MPI_Get_accumulate", win,
                  args(rma::op_kind::get_acc, origin_addr, origin_count, result_addr, result_count, target_rank,
                       target_disp, target_count),
                  origin_datatype, result_datatype, target_datatype, op, nullptr);
}
int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return PMPI_Get_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                               target_rank, target_disp, target_count, target_datatype, op, win);
}
int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  if (const core::datatype* t = abi::to_type(datatype); t && !t->is_predefined()) {
    const char* fn = "MPI_Fetch_and_op";
    window* w = to_win(win);
    return raise_win(fn, w, core::error_set(errc::type, "MPI_Fetch_and_op needs a predefined datatype"));
  }
  return op_entry("MPI_Fetch_and_op", win,
                  args(rma::op_kind::get_acc, origin_addr, 1, result_addr, 1, target_rank, target_disp, 1), datatype,
                  datatype, datatype, op, nullptr);
}
int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win) {
  rma::rma_args a = args(rma::op_kind::cas, origin_addr, 1, result_addr, 1, target_rank, target_disp, 1);
  a.compare = compare_addr;
  return op_entry("MPI_Compare_and_swap", win, a, datatype, datatype, datatype, MPI_OP_NULL, nullptr);
}

int req_null(const char* fn, MPI_Request*) {
  (void)core::error_set(errc::arg, "the request output pointer is NULL");
  return abi::raise(fn, nullptr, errc::arg);
}

int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  if (!request) return req_null("MPI_Rput", request);
  return op_entry("MPI_Rput", win,
                  args(rma::op_kind::put, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, MPI_OP_NULL, request);
}
int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return PMPI_Rput_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  if (!request) return req_null("MPI_Rget", request);
  return op_entry("MPI_Rget", win,
                  args(rma::op_kind::get, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, MPI_OP_NULL, request);
}
int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return PMPI_Rget_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request);
}
int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request* request) {
  if (!request) return req_null("MPI_Raccumulate", request);
  return op_entry("MPI_Raccumulate", win,
                  args(rma::op_kind::acc, origin_addr, origin_count, nullptr, 0, target_rank, target_disp, target_count),
                  origin_datatype, MPI_DATATYPE_NULL, target_datatype, op, request);
}
int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  return PMPI_Raccumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                            target_datatype, op, win, request);
}
int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request* request) {
  if (!request) return req_null("MPI_Rget_accumulate", request);
  return op_entry("MPI_Rget_accumulate", win,
                  args(rma::op_kind::get_acc, origin_addr, origin_count, result_addr, result_count, target_rank,
                       target_disp, target_count),
                  origin_datatype, result_datatype, target_datatype, op, request);
}
int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  return PMPI_Rget_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                result_datatype, target_rank, target_disp, target_count, target_datatype, op, win,
                                request);
}

// ---- group, name, info ----

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const char* fn = "MPI_Win_get_group";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!group) return core::error_set(errc::arg, "group is NULL");
    *group = abi::to_handle(core::group_make(w->c->world));
    return errc::success;
  });
}

int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  const char* fn = "MPI_Win_set_name";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!win_name) return core::error_set(errc::arg, "NULL name");
    w->name = std::string(win_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    return errc::success;
  });
}
int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const char* fn = "MPI_Win_get_name";
  if (win == MPI_WIN_NULL && win_name && resultlen) {
    abi::copy_out(win_name, resultlen, "MPI_WIN_NULL", MPI_MAX_OBJECT_NAME);
    return MPI_SUCCESS;
  }
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!win_name || !resultlen) return core::error_set(errc::arg, "NULL %s", win_name ? "resultlen" : "name buffer");
    abi::copy_out(win_name, resultlen, w->name, MPI_MAX_OBJECT_NAME);
    return errc::success;
  });
}

// Hints are kept as given (merged by key); Baton acts on none of them: see docs/rma.md.
int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const char* fn = "MPI_Win_set_info";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (info == MPI_INFO_NULL) return errc::success;
    core::info* in = abi::to_info(info);
    if (!in) return errc::info;
    core::info merged;
    merged.entries = w->hints;
    for (const auto& [k, v] : in->entries)
      if (errc e = merged.set(k, v); e != errc::success) return e;
    w->hints = std::move(merged.entries);
    return errc::success;
  });
}
int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const char* fn = "MPI_Win_get_info";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!info_used) return core::error_set(errc::arg, "info_used is NULL");
    auto* in = new core::info;
    in->entries = w->hints;
    *info_used = abi::to_handle(in);
    return errc::success;
  });
}

// ---- error handlers ----

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* f, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Win_create_errhandler";
  if (!f || !errhandler)
    return abi::raise(fn, nullptr, core::error_set(errc::arg, "NULL %s", f ? "errhandler output" : "function"));
  auto* e = new core::errhandler;
  e->kind = core::errhandler_kind::user;
  e->user_fn = reinterpret_cast<void*>(f);
  *errhandler = abi::to_handle(e);
  return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const char* fn = "MPI_Win_set_errhandler";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    core::errhandler* e = abi::to_errhandler(errhandler);
    if (!e)
      return core::error_set(errc::errhandler, "invalid error handler handle %p (freed or never created)",
                             static_cast<void*>(errhandler));
    if (e->for_session)
      return core::error_set(errc::arg, "the error handler was made by MPI_Session_create_errhandler");
    e->retain();
    w->eh->release();
    w->eh = e;
    return errc::success;
  });
}
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Win_get_errhandler";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!errhandler) return core::error_set(errc::arg, "errhandler is NULL");
    w->eh->retain();
    *errhandler = abi::to_handle(w->eh);
    return errc::success;
  });
}
int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const char* fn = "MPI_Win_call_errhandler";
  WIN_ENTRY(fn, win, w);
  (void)core::error_set(errc(errorcode), "error raised by the application");
  raise_win(fn, w, errc(errorcode));
  return MPI_SUCCESS;
}

// ---- attributes ----

int MPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                           int* win_keyval, void* extra_state) {
  const char* fn = "MPI_Win_create_keyval";
  if (!win_keyval) return abi::raise(fn, nullptr, core::error_set(errc::arg, "win_keyval is NULL"));
  return abi::call(fn, nullptr, [&] {
    return core::keyval_create(core::keyval_kind::win, reinterpret_cast<void*>(copy_fn),
                               reinterpret_cast<void*>(delete_fn), extra_state, win_keyval);
  });
}
int MPI_Win_free_keyval(int* win_keyval) {
  const char* fn = "MPI_Win_free_keyval";
  if (!win_keyval) return abi::raise(fn, nullptr, core::error_set(errc::arg, "win_keyval is NULL"));
  return abi::call(fn, nullptr, [&] {
    if (errc e = core::keyval_free(*win_keyval, core::keyval_kind::win); e != errc::success) return e;
    *win_keyval = MPI_KEYVAL_INVALID;
    return errc::success;
  });
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* fn = "MPI_Win_set_attr";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL)
      return core::error_set(errc::keyval, "key %d is a predefined window attribute: it cannot be set", win_keyval);
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    core::keyval* kv = core::keyval_find(win_keyval, core::keyval_kind::win);
    if (!kv) return errc::keyval;
    if (core::attribute* a = find_attr(w, win_keyval)) {
      if (errc e = run_delete(w, *a); e != errc::success) return e;
      if (core::attribute* b = find_attr(w, win_keyval)) {
        b->value = attribute_val;
        return errc::success;
      }
    }
    kv->retain();
    w->attrs.push_back({kv, attribute_val});
    return errc::success;
  });
}
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Win_get_attr";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (!attribute_val || !flag) return core::error_set(errc::arg, "attribute_val or flag is NULL");
    void** out = static_cast<void**>(attribute_val);
    *flag = 1;
    switch (win_keyval) {
      case MPI_WIN_BASE: *out = w->base; return errc::success;
      case MPI_WIN_SIZE: *out = &w->attr_size; return errc::success;
      case MPI_WIN_DISP_UNIT: *out = &w->attr_disp_unit; return errc::success;
      case MPI_WIN_CREATE_FLAVOR: *out = &w->attr_flavor; return errc::success;
      case MPI_WIN_MODEL: *out = &w->attr_model; return errc::success;
      default: break;
    }
    *flag = 0;
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    if (!core::keyval_find(win_keyval, core::keyval_kind::win, true)) return errc::keyval;
    core::attribute* a = find_attr(w, win_keyval);
    *flag = a ? 1 : 0;
    if (a) *out = a->value;
    return errc::success;
  });
}
int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const char* fn = "MPI_Win_delete_attr";
  WIN_ENTRY(fn, win, w);
  return win_call(fn, w, [&] {
    if (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL)
      return core::error_set(errc::keyval, "key %d is a predefined window attribute: it cannot be deleted", win_keyval);
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    if (!core::keyval_find(win_keyval, core::keyval_kind::win, true)) return errc::keyval;
    core::attribute* a = find_attr(w, win_keyval);
    if (!a) return core::error_set(errc::keyval, "no attribute with key %d on this window", win_keyval);
    if (errc e = run_delete(w, *a); e != errc::success) return e;
    for (auto it = w->attrs.begin(); it != w->attrs.end(); ++it) {
      if (it->kv->id != win_keyval) continue;
      core::keyval* kv = it->kv;
      w->attrs.erase(it);
      kv->release();
      break;
    }
    return errc::success;
  });
}

}  // namespace baton::impl
