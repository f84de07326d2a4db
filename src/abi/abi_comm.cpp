// Communicators (MPI-4.1 7.4-7.6) and communicator attributes (7.7).
//
// Construction is collective over the parent (over the group only for MPI_Comm_create_group); the
// core agrees the context id. Attributes: copy callbacks run at MPI_Comm_dup / dup_with_info / idup
// in the order the attributes were first set; delete callbacks run at MPI_Comm_free in the reverse
// order, at MPI_Comm_delete_attr, and when MPI_Comm_set_attr replaces a value. The ABI's predefined
// callbacks are the sentinels 0 (MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN) and 1
// (MPI_COMM_DUP_FN): they are interpreted here, never called.
//
// Intercommunicators (7.6; built in abi_intercomm.cpp and MPI_Intercomm_create_from_groups in
// abi_session.cpp): MPI_Comm_size / rank / group give the local group, MPI_Comm_remote_size /
// remote_group the remote one (MPI_ERR_COMM on an intracommunicator); dup, idup, split and create
// give intercommunicators (comm/intercomm.cpp); MPI_Comm_split_type on an intercommunicator is
// MPI_Comm_split with the type's color (each host's local part paired with the same host's remote
// part); MPI_Comm_create_group takes intracommunicators only (MPI_ERR_COMM).
#include <mpix.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "abi/abi.hpp"
#include "comm/dynamic.hpp"
#include "core/procs.hpp"
#include "abi/abi_coll.hpp"
#include "coll/schedule.hpp"
#include "abi/abi_objects.hpp"
#include "comm/comm.hpp"
#include "comm/session.hpp"
#include "core/progress.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

constexpr uintptr_t sentinel_dup = 1;

errc non_null(const void* p, const char* what) {
  if (!p) return core::error_set(errc::arg, "NULL %s", what);
  return errc::success;
}

// A callback's return code as the error to report (anything unknown is MPI_ERR_OTHER).
errc callback_error(int rc, const char* which, int keyval) {
  errc e = abi::user_callback_error(rc);
  return core::error_set(e, "the %s callback of attribute key %d returned error %d", which, keyval, rc);
}

errc run_delete(core::comm* c, const core::attribute a) {  // by value: the callback may edit the list
  auto* fn = reinterpret_cast<MPI_Comm_delete_attr_function*>(a.kv->delete_fn);
  if (!fn) return errc::success;  // MPI_COMM_NULL_DELETE_FN
  int rc = fn(abi::to_handle(c), a.kv->id, a.value, a.kv->extra_state);
  if (rc != MPI_SUCCESS) return callback_error(rc, "delete", a.kv->id);
  return errc::success;
}

// Deletes every attribute of `c`, last set first. Stops at the first failing callback (that
// attribute and the ones before it stay attached).
// Removes the attribute of keyval kv from c's list, if still there (a delete callback may delete
// other attributes of the same communicator, so positions are not kept across callbacks).
void drop_attr(core::comm* c, core::keyval* kv) {
  for (auto it = c->attrs.begin(); it != c->attrs.end(); ++it) {
    if (it->kv != kv) continue;
    c->attrs.erase(it);
    kv->release();
    return;
  }
}

errc delete_all(core::comm* c) {
  while (!c->attrs.empty()) {
    core::attribute a = c->attrs.back();
    if (errc e = run_delete(c, a); e != errc::success) return e;
    drop_attr(c, a.kv);
  }
  return errc::success;
}

// Runs the copy callbacks of `from`'s attributes onto the new communicator `to`.
errc copy_all(core::comm* from, core::comm* to) {
  const std::vector<core::attribute> snapshot = from->attrs;
  for (const core::attribute& a : snapshot) {
    void* fnp = a.kv->copy_fn;
    void* out = nullptr;
    int flag = 0;
    if (fnp == nullptr) continue;  // MPI_COMM_NULL_COPY_FN
    if (reinterpret_cast<uintptr_t>(fnp) == sentinel_dup) {
      out = a.value;
      flag = 1;
    } else {
      auto* fn = reinterpret_cast<MPI_Comm_copy_attr_function*>(fnp);
      int rc = fn(abi::to_handle(from), a.kv->id, a.kv->extra_state, a.value, &out, &flag);
      if (rc != MPI_SUCCESS) return callback_error(rc, "copy", a.kv->id);
    }
    if (flag) {
      a.kv->retain();
      to->attrs.push_back({a.kv, out});
    }
  }
  return errc::success;
}

// Finishes a new communicator: name, hints, attributes copied from `parent` (dup only).
errc finish_dup(core::comm* parent, core::comm* n, const core::info* hints) {
  if (hints)
    n->hints = hints->entries;
  else
    n->hints = parent->hints;
  if (errc e = copy_all(parent, n); e != errc::success) {
    (void)delete_all(n);
    n->release();
    return e;
  }
  return errc::success;
}

// hints: nullptr keeps the parent's (MPI_Comm_dup); &no_hints gives none (MPI_INFO_NULL).
const core::info no_hints;

errc dup_common(core::comm* c, const core::info* hints, MPI_Comm* newcomm) {
  if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
  core::comm* n = nullptr;
  if (errc e = comm::comm_dup(c, &n); e != errc::success) return e;
  if (errc e = finish_dup(c, n, hints); e != errc::success) {
    *newcomm = MPI_COMM_NULL;
    return e;
  }
  *newcomm = abi::to_handle(n);
  return errc::success;
}

int cmp_to_mpi(core::cmp_result r) {
  switch (r) {
    case core::cmp_result::ident:
      return MPI_IDENT;
    case core::cmp_result::congruent:
      return MPI_CONGRUENT;
    case core::cmp_result::similar:
      return MPI_SIMILAR;
    case core::cmp_result::unequal:
      break;
  }
  return MPI_UNEQUAL;
}

core::attribute* find_attr(core::comm* c, int keyval) {
  for (core::attribute& a : c->attrs)
    if (a.kv->id == keyval) return &a;
  return nullptr;
}

// Values of the predefined attributes (pointers to these are handed out).
struct predefined_values {
  int tag_ub = INT_MAX;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;  // every rank can do I/O
  int wtime_is_global = 0;  // each rank's MPI_Wtime has its own origin
  int universe = 0;
  int appnum = 0;
  int lastusedcode = MPI_ERR_LASTCODE;
  // The schedule engine's limit: collective tags carry an 18-bit sequence number (coll/schedule.hpp).
  int icoll_max_outstanding = int(coll::max_outstanding);
};

int* predefined_attr(int keyval) {
  static predefined_values v;
  switch (keyval) {
    case MPI_TAG_UB:
      return &v.tag_ub;
    case MPI_HOST:
      return &v.host;
    case MPI_IO:
      return &v.io;
    case MPI_WTIME_IS_GLOBAL:
      return &v.wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      v.universe = core::rt().pmi.universe_size();
      return &v.universe;
    case MPI_APPNUM:
      v.appnum = core::rt().pmi.appnum();
      return &v.appnum;
    case MPI_LASTUSEDCODE:
      // MPI_ERR_LASTCODE until the application adds classes or codes (MPI_Add_error_class/_code).
      v.lastusedcode = std::max<int>(MPI_ERR_LASTCODE, core::user_error_last_used());
      return &v.lastusedcode;
    case MPIX_ICOLL_MAX_OUTSTANDING:
      return &v.icoll_max_outstanding;
    default:
      return nullptr;
  }
}

int set_attr(const char* fn, MPI_Comm comm, int keyval, void* value) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] {
    core::keyval* kv = core::keyval_find(keyval, core::keyval_kind::comm);
    if (!kv) return errc::keyval;
    if (core::attribute* a = find_attr(c, keyval)) {
      if (errc e = run_delete(c, *a); e != errc::success) return e;
      // The callback may have changed the list: look the attribute up again.
      if (core::attribute* b = find_attr(c, keyval)) {
        b->value = value;
        return errc::success;
      }
    }
    kv->retain();
    c->attrs.push_back({kv, value});
    return errc::success;
  });
}

int get_attr(const char* fn, MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] {
    if (errc e = non_null(attribute_val, "attribute_val"); e != errc::success) return e;
    if (errc e = non_null(flag, "flag"); e != errc::success) return e;
    if (int* v = predefined_attr(keyval)) {
      *static_cast<int**>(attribute_val) = v;
      *flag = 1;
      return errc::success;
    }
    if (!core::keyval_find(keyval, core::keyval_kind::comm, true)) return errc::keyval;
    core::attribute* a = find_attr(c, keyval);
    *flag = a ? 1 : 0;
    if (a) *static_cast<void**>(attribute_val) = a->value;
    return errc::success;
  });
}

int delete_attr(const char* fn, MPI_Comm comm, int keyval) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] {
    if (!core::keyval_find(keyval, core::keyval_kind::comm, true)) return errc::keyval;
    if (core::attribute* a = find_attr(c, keyval)) {
      const core::attribute copy = *a;
      if (errc e = run_delete(c, copy); e != errc::success) return e;
      drop_attr(c, copy.kv);
      return errc::success;
    }
    return core::error_set(errc::keyval, "no attribute with key %d on this communicator", keyval);
  });
}

int create_keyval(const char* fn, void* copy, void* del, int* keyval, void* extra) {
  return call(fn, nullptr, [&] {
    if (errc e = non_null(keyval, "keyval pointer"); e != errc::success) return e;
    return core::keyval_create(core::keyval_kind::comm, copy, del, extra, keyval);
  });
}

int free_keyval(const char* fn, int* keyval) {
  return call(fn, nullptr, [&] {
    if (errc e = non_null(keyval, "keyval pointer"); e != errc::success) return e;
    if (errc e = core::keyval_free(*keyval, core::keyval_kind::comm); e != errc::success) return e;
    *keyval = MPI_KEYVAL_INVALID;
    return errc::success;
  });
}

}  // namespace

namespace baton::abi {

errc comm_finalize_attributes() {
  core::runtime& R = core::rt();
  if (errc e = delete_all(R.self); e != errc::success) return e;
  return delete_all(R.world);
}

}  // namespace baton::abi

namespace baton::impl {

// ---- basics ----

int MPI_Comm_size(MPI_Comm comm, int* size) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_size", nullptr, errc::comm);
  if (!size) return abi::raise("MPI_Comm_size", c, core::error_set(errc::arg, "NULL size pointer"));
  *size = c->local_size();
  return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_rank", nullptr, errc::comm);
  if (!rank) return abi::raise("MPI_Comm_rank", c, core::error_set(errc::arg, "NULL rank pointer"));
  *rank = c->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  core::comm* a = abi::to_comm(comm1);
  if (!a) return abi::raise("MPI_Comm_compare", nullptr, errc::comm);
  core::comm* b = abi::to_comm(comm2);
  if (!b) return abi::raise("MPI_Comm_compare", nullptr, errc::comm);
  return call("MPI_Comm_compare", a, [&] {
    if (errc e = non_null(result, "result pointer"); e != errc::success) return e;
    if (a == b) {
      *result = MPI_IDENT;
      return errc::success;
    }
    if (a->inter != b->inter) {
      *result = MPI_UNEQUAL;
      return errc::success;
    }
    // The (local) groups; for intercommunicators also the remote groups, and the weaker answer wins.
    auto cmp = [](const std::vector<int>& x, const std::vector<int>& y) {
      core::group gx, gy;
      gx.world = x;
      gy.world = y;
      return core::group_compare(&gx, &gy);
    };
    core::cmp_result r = cmp(a->inter ? a->local_world : a->world, b->inter ? b->local_world : b->world);
    if (a->inter) {
      const core::cmp_result rr = cmp(a->world, b->world);
      if (int(rr) > int(r)) r = rr;
    }
    *result = r == core::cmp_result::ident ? MPI_CONGRUENT : cmp_to_mpi(r);
    return errc::success;
  });
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_test_inter", nullptr, errc::comm);
  if (!flag) {
    (void)core::error_set(errc::arg, "NULL flag pointer");
    return abi::raise("MPI_Comm_test_inter", c, errc::arg);
  }
  *flag = c->inter ? 1 : 0;
  return MPI_SUCCESS;
}

// On an intracommunicator: MPI_ERR_COMM (the standard makes it erroneous).
static errc check_inter(const char* fn, const core::comm* c) {
  if (c->inter) return errc::success;
  return core::error_set(errc::comm, "%s: %s is an intracommunicator (it has no remote group)", fn,
                         c->name.empty() ? "the communicator" : c->name.c_str());
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  const char* fn = "MPI_Comm_remote_size";
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] {
    if (errc e = check_inter(fn, c); e != errc::success) return e;
    if (errc e = non_null(size, "size pointer"); e != errc::success) return e;
    *size = c->size;
    return errc::success;
  });
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const char* fn = "MPI_Comm_remote_group";
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  return call(fn, c, [&] {
    if (errc e = check_inter(fn, c); e != errc::success) return e;
    if (errc e = non_null(group, "group pointer"); e != errc::success) return e;
    *group = abi::to_handle(core::group_make(c->world));
    return errc::success;
  });
}

// ---- construction ----

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_dup", nullptr, errc::comm);
  return call("MPI_Comm_dup", c, [&] { return dup_common(c, nullptr, newcomm); });
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_dup_with_info", nullptr, errc::comm);
  core::info* in = nullptr;  // MPI_INFO_NULL: no hints
  if (info != MPI_INFO_NULL && !(in = abi::to_info(info))) return abi::raise("MPI_Comm_dup_with_info", c, errc::info);
  return call("MPI_Comm_dup_with_info", c, [&] { return dup_common(c, in ? in : &no_hints, newcomm); });
}

// MPI_Comm_idup is nonblocking: the new handle is returned at once (usable once the request
// completes), attribute copy callbacks and hints are applied at the call, and the context is
// agreed by the progress engine (comm::comm_idup).
static int idup_common(const char* fn, core::comm* c, const core::info* hints, MPI_Comm* newcomm,
                       MPI_Request* request) {
  return call(fn, c, [&] {
    if (errc e = non_null(request, "request pointer"); e != errc::success) return e;
    if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
    core::comm* n = comm::comm_idup_prepare(c);
    n->hints = hints ? hints->entries : c->hints;
    errc copied = copy_all(c, n);
    core::request* r = nullptr;
    if (errc e = comm::comm_idup(c, n, &r); e != errc::success) {
      n->release();
      return e;
    }
    if (copied != errc::success) {
      // The other ranks still take part in the agreement; this one drops its result.
      (void)delete_all(n);
      n->release();
      comm::comm_idup_abandon(r);
      *newcomm = MPI_COMM_NULL;
      return copied;
    }
    *newcomm = abi::to_handle(n);
    *request = abi::to_handle(r);
    return errc::success;
  });
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_idup", nullptr, errc::comm);
  return idup_common("MPI_Comm_idup", c, nullptr, newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_idup_with_info", nullptr, errc::comm);
  core::info* in = nullptr;  // MPI_INFO_NULL: no hints
  if (info != MPI_INFO_NULL && !(in = abi::to_info(info))) return abi::raise("MPI_Comm_idup_with_info", c, errc::info);
  return idup_common("MPI_Comm_idup_with_info", c, in ? in : &no_hints, newcomm, request);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_split", nullptr, errc::comm);
  if (color < 0 && color != MPI_UNDEFINED) {
    (void)core::error_set(errc::arg, "invalid color %d (must be non-negative or MPI_UNDEFINED)", color);
    return abi::raise("MPI_Comm_split", c, errc::arg);
  }
  return call("MPI_Comm_split", c, [&] {
    if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
    core::comm* n = nullptr;
    errc e = comm::comm_split(c, color, key, &n);
    if (e == errc::success) *newcomm = abi::to_handle(n);
    return e;
  });
}

// Split types. Every rank of a Baton job shares one host (the shared-memory transport is the only
// one), so:
//  - MPI_COMM_TYPE_SHARED: the ranks on this host;
//  - MPI_COMM_TYPE_HW_GUIDED: with info "mpi_hw_resource_type" = "mpi_shared_memory" as SHARED;
//    any other or no value gives MPI_COMM_NULL (the standard's answer for an unsupported type);
//  - MPI_COMM_TYPE_HW_UNGUIDED: the host's ranks when that is strictly smaller than comm, else
//    MPI_COMM_NULL (no finer hardware level is known);
//  - MPI_COMM_TYPE_RESOURCE_GUIDED (MPI-4.1): as HW_GUIDED for "mpi_hw_resource_type"; with
//    "mpi_pset_name" the members of that process set (mpi://WORLD: this launch's processes,
//    mpi://SELF: each process alone); any other value, or neither key, gives MPI_COMM_NULL.
// On an intercommunicator the color goes to the intercommunicator split: the result pairs this
// host's part of the local group with the same host's part of the remote group (MPI_COMM_NULL
// when that is empty).
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_split_type";
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  core::info* in = nullptr;
  if (info != MPI_INFO_NULL) {
    in = abi::to_info(info);
    if (!in) return abi::raise(fn, c, errc::info);
  }
  if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
      split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_COMM_TYPE_RESOURCE_GUIDED) {
    (void)core::error_set(errc::arg, "invalid split_type %d", split_type);
    return abi::raise(fn, c, errc::arg);
  }
  return call(fn, c, [&] {
    if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
    int color = core::host_key();  // one color per host (and launch: core/procs.hpp)
    if (split_type == MPI_UNDEFINED) color = MPI_UNDEFINED;
    const std::string* pset = split_type == MPI_COMM_TYPE_RESOURCE_GUIDED && in ? in->find("mpi_pset_name") : nullptr;
    if (pset) {
      // The set's lowest world rank names it: the members of one set share a color.
      std::vector<int> members;
      const bool in_set = comm::pset_members(pset->c_str(), &members) == errc::success &&
                          std::find(members.begin(), members.end(), core::rt().world_rank) != members.end();
      color = in_set ? *std::min_element(members.begin(), members.end()) : MPI_UNDEFINED;
    } else if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED) {
      const std::string* v = in ? in->find("mpi_hw_resource_type") : nullptr;
      if (!v || *v != "mpi_shared_memory") color = MPI_UNDEFINED;
    }
    core::comm* n = nullptr;
    if (errc e = comm::comm_split(c, color, key, &n); e != errc::success) return e;
    // On an intercommunicator both groups must drop it together: they compare both sizes.
    if (n && split_type == MPI_COMM_TYPE_HW_UNGUIDED && n->size == c->size && n->local_size() == c->local_size()) {
      n->release();  // every member sees the same sizes, so all drop it together
      n = nullptr;
    }
    *newcomm = abi::to_handle(n);
    return errc::success;
  });
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create";
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  core::group* g = abi::to_group(group);
  if (!g) return abi::raise(fn, c, errc::group);
  return call(fn, c, [&] {
    if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
    // On an intercommunicator the group is a subset of the local group (MPI-4.1 7.4.2).
    const std::vector<int>& mine = c->inter ? c->local_world : c->world;
    for (int w : g->world)
      if (std::find(mine.begin(), mine.end(), w) == mine.end())
        return core::error_set(errc::group, "the group names world rank %d, which is not in the communicator%s", w,
                               c->inter ? "'s local group" : "");
    core::comm* n = nullptr;
    if (errc e = comm::comm_create(c, g->world, &n); e != errc::success) return e;
    *newcomm = abi::to_handle(n);
    return errc::success;
  });
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create_group";
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  core::group* g = abi::to_group(group);
  if (!g) return abi::raise(fn, c, errc::group);
  return call(fn, c, [&] {
    if (errc e = abi::check_intra(fn, c); e != errc::success) return e;
    if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return e;
    if (errc e = abi::check_send_tag(tag); e != errc::success) return e;
    for (int w : g->world)
      if (core::comm_rank_of_world(c, w) < 0)
        return core::error_set(errc::group, "the group names world rank %d, which is not in the communicator", w);
    if (g->rank < 0) {  // not a member: nothing to agree on
      *newcomm = MPI_COMM_NULL;
      return errc::success;
    }
    core::comm* n = nullptr;
    if (errc e = comm::comm_create_group(c, g->world, tag, &n); e != errc::success) return e;
    *newcomm = abi::to_handle(n);
    return errc::success;
  });
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (!comm) {
    (void)core::error_set(errc::arg, "NULL communicator pointer");
    return abi::raise("MPI_Comm_free", nullptr, errc::arg);
  }
  core::comm* c = abi::to_comm(*comm);
  if (!c) return abi::raise("MPI_Comm_free", nullptr, errc::comm);
  if (c->predefined) {
    (void)core::error_set(errc::comm, "cannot free a predefined communicator (%s)", c->name.c_str());
    return abi::raise("MPI_Comm_free", c, errc::comm);
  }
  if (errc e = delete_all(c); e != errc::success) return abi::raise("MPI_Comm_free", c, e);
  dynamic::parent_forget(c);
  c->magic = 0x46524545;  // the handle is dead even while pending operations keep the object
  c->release();
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// MPI-4.1 11.10.4 (allowed on any communicator): waits until every operation pending on the
// communicator has completed (point-to-point, including the buffered sends made on it, and
// collective), detaches its buffer, then frees it. Requests stay valid (MPI_Wait on them returns at
// once); persistent requests, inactive, do not hold it up (the object lives on until they are
// freed). Every process of the communicator must call it, but it does not synchronize beyond
// waiting for the pending operations.
int MPI_Comm_disconnect(MPI_Comm* comm) {
  const char* fn = "MPI_Comm_disconnect";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!comm) {
    (void)core::error_set(errc::arg, "NULL communicator pointer");
    return abi::raise(fn, nullptr, errc::arg);
  }
  core::comm* c = abi::to_comm(*comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  if (c->predefined) {
    (void)core::error_set(errc::comm, "cannot disconnect a predefined communicator (%s)", c->name.c_str());
    return abi::raise(fn, c, errc::comm);
  }
  errc e = abi::run_guarded([&] {
    {
      core::engine_guard g;
      core::comm* bridge = c->bridge;  // an intercommunicator's collectives run on it
      core::progress_wait(g, [c, bridge] {
        return c->p2p_pending == 0 && c->coll_pending == 0 &&
               (!bridge || (bridge->p2p_pending == 0 && bridge->coll_pending == 0));
      });
    }
    if (c->bsend) {
      void* b = nullptr;
      int size = 0;
      if (errc d = abi::bsend_detach(&c->bsend, &b, &size); d != errc::success) return d;
    }
    return delete_all(c);
  });
  if (e != errc::success) return abi::raise(fn, c, e);
  dynamic::parent_forget(c);
  c->magic = 0x46524545;
  c->release();
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// The intercommunicator to the parents of a process started by MPI_Comm_spawn (made in MPI_Init,
// src/comm/dynamic_spawn.cpp); MPI_COMM_NULL for other processes and once it was freed or
// disconnected.
int MPI_Comm_get_parent(MPI_Comm* parent) {
  const char* fn = "MPI_Comm_get_parent";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!parent) {
    (void)core::error_set(errc::arg, "NULL parent pointer");
    return abi::raise(fn, nullptr, errc::arg);
  }
  core::comm* p = dynamic::parent();
  *parent = p ? abi::to_handle(p) : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// ---- names and info ----

int MPI_Comm_set_name(MPI_Comm comm, const char* name) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_set_name", nullptr, errc::comm);
  if (!name) {
    (void)core::error_set(errc::arg, "NULL name");
    return abi::raise("MPI_Comm_set_name", c, errc::arg);
  }
  return call("MPI_Comm_set_name", c, [&] {
    c->name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    return errc::success;
  });
}

int MPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  // MPI-4.1 7.10: the null handle has a name too.
  if (comm == MPI_COMM_NULL && name && resultlen) {
    abi::copy_out(name, resultlen, "MPI_COMM_NULL", MPI_MAX_OBJECT_NAME);
    return MPI_SUCCESS;
  }
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_get_name", nullptr, errc::comm);
  if (!name || !resultlen) {
    (void)core::error_set(errc::arg, "NULL %s", name ? "resultlen" : "name buffer");
    return abi::raise("MPI_Comm_get_name", c, errc::arg);
  }
  abi::copy_out(name, resultlen, c->name, MPI_MAX_OBJECT_NAME);
  return MPI_SUCCESS;
}

// Hints are kept as given (Baton acts on none yet) and merged: a later MPI_Comm_set_info changes
// only the keys it names.
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_set_info", nullptr, errc::comm);
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;  // no hints to change
  core::info* in = abi::to_info(info);
  if (!in) return abi::raise("MPI_Comm_set_info", c, errc::info);
  return call("MPI_Comm_set_info", c, [&] {
    core::info merged;
    merged.entries = c->hints;
    for (const auto& [k, v] : in->entries)
      if (errc e = merged.set(k, v); e != errc::success) return e;
    c->hints = std::move(merged.entries);
    return errc::success;
  });
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_get_info", nullptr, errc::comm);
  return call("MPI_Comm_get_info", c, [&] {
    if (errc e = non_null(info_used, "info pointer"); e != errc::success) return e;
    auto* in = new core::info;
    in->entries = c->hints;
    *info_used = abi::to_handle(in);
    return errc::success;
  });
}

// ---- attributes ----

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                            void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", reinterpret_cast<void*>(copy_fn), reinterpret_cast<void*>(delete_fn),
                       keyval, extra_state);
}

int MPI_Comm_free_keyval(int* keyval) {
  return free_keyval("MPI_Comm_free_keyval", keyval);
}

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Comm_set_attr", comm, keyval, attribute_val);
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Comm_get_attr", comm, keyval, attribute_val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return delete_attr("MPI_Comm_delete_attr", comm, keyval);
}

// Deprecated MPI-1 names (same semantics on communicators).
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return create_keyval("MPI_Keyval_create", reinterpret_cast<void*>(copy_fn), reinterpret_cast<void*>(delete_fn),
                       keyval, extra_state);
}

int MPI_Keyval_free(int* keyval) {
  return free_keyval("MPI_Keyval_free", keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return delete_attr("MPI_Attr_delete", comm, keyval);
}

}  // namespace baton::impl
