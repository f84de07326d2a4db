// The Sessions model (MPI-4.1 11.3): sessions, process sets, MPI_Comm_create_from_group.
//
// A session is a local handle on the runtime: MPI_Session_init brings the runtime up if neither
// MPI_Init nor another session has (core::runtime_acquire), MPI_Session_finalize lets go of it
// (core::runtime_release: the runtime stays up while the World model or any session uses it).
// Process sets: "mpi://WORLD" (every process of the launch) and "mpi://SELF" (the caller); names
// are matched without regard to case. A communicator built from a session's group runs its
// context agreement over core::rt().processes, never over MPI_COMM_WORLD, so it works with or
// without the World model. Session_finalize does not free the communicators derived from the
// session (MPI-4.1: objects are freed with their own free calls); it does not synchronize either,
// since Baton's communicators hold no connection state to tear down.
//
// Errors of a call on a valid session go to the session's error handler; errors of
// MPI_Session_init and MPI_Comm_create_from_group to the error handler passed in (when valid);
// an invalid session handle is an error with no object, raised as such errors always are in Baton
// (MPI_COMM_WORLD's handler, MPI_ERRORS_ARE_FATAL before MPI_Init).
#include <strings.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "p2p/p2p.hpp"

using namespace baton;
using core::errc;

namespace {

constexpr uint32_t session_magic = 0x53455331;  // "SES1"

struct session : core::slab_allocated<session> {
  uint32_t magic = session_magic;
  core::errhandler* eh = nullptr;
  core::thread_level level = core::thread_level::single;
  // Shared with the groups and communicators derived from the session: its buffered-send buffer.
  std::shared_ptr<core::session_link> link = std::make_shared<core::session_link>();
};

// Live sessions: a handle is checked against this set, so a finalized or made-up handle is
// refused without reading freed memory.
std::mutex g_mutex;
std::set<const session*>& live() {
  static auto* s = new std::set<const session*>;  // never destroyed: calls may come from exit handlers
  return *s;
}

session* to_session(MPI_Session h) {
  if (h == MPI_SESSION_NULL) {
    (void)core::error_set(errc::session, "invalid session (MPI_SESSION_NULL)");
    return nullptr;
  }
  auto* s = reinterpret_cast<session*>(h);
  std::lock_guard<std::mutex> g(g_mutex);
  if (abi::is_predefined(h) || !core::slab_holds<session>(s) || !live().count(s)) {
    (void)core::error_set(errc::session, "invalid session handle %p (finalized or never initialized)",
                          static_cast<void*>(h));
    return nullptr;
  }
  return s;
}

MPI_Session to_handle(session* s) { return reinterpret_cast<MPI_Session>(s); }

// Runs `eh` for error `e` of `fn` on session handle `h` and gives the code to return.
int raise_on(const char* fn, core::errhandler* eh, MPI_Session h, errc e) {
  if (eh->kind != core::errhandler_kind::user) return abi::raise_with(fn, eh, MPI_COMM_NULL, e);
  int code = abi::to_mpi(e);
  auto* fnp = reinterpret_cast<MPI_Session_errhandler_function*>(eh->user_fn);
  MPI_Session hh = h;
  fnp(&hh, &code);
  return code;
}

int raise(const char* fn, session* s, errc e) { return raise_on(fn, s->eh, to_handle(s), e); }

// An error with no valid session to report it on.
int raise_no_session(const char* fn, errc e) { return abi::raise(fn, nullptr, e); }

// Runs `body` (returning errc) and reports a failure on session `s`.
template <class Body>
int call(const char* fn, session* s, Body&& body) {
  errc e = abi::run_guarded(body);
  if (e == errc::success) return MPI_SUCCESS;
  return raise(fn, s, e);
}

errc non_null(const void* p, const char* what) {
  if (!p) return core::error_set(errc::arg, "NULL %s", what);
  return errc::success;
}

// An info argument that may be MPI_INFO_NULL: *out is nullptr then.
errc info_arg(MPI_Info h, const core::info** out) {
  *out = nullptr;
  if (h == MPI_INFO_NULL) return errc::success;
  *out = abi::to_info(h);
  return *out ? errc::success : errc::info;
}

// ---- process sets ----

constexpr const char* pset_names[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int pset_count = 2;

// The members (world ranks) of process set `name`; errc::arg if there is none of that name.
errc pset_members(const char* name, std::vector<int>* world) {
  const core::runtime& R = core::rt();
  if (strcasecmp(name, pset_names[0]) == 0) {
    world->resize(size_t(R.world_size));
    for (int r = 0; r < R.world_size; ++r) (*world)[size_t(r)] = r;
    return errc::success;
  }
  if (strcasecmp(name, pset_names[1]) == 0) {
    world->assign(1, R.world_rank);
    return errc::success;
  }
  return core::error_set(errc::arg, "no process set named \"%s\" (this process has mpi://WORLD and mpi://SELF)",
                         name);
}

// ---- thread levels in info objects ----

constexpr const char* level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                       "MPI_THREAD_MULTIPLE"};

errc level_from_info(const core::info* in, core::thread_level* out) {
  *out = core::thread_level::single;
  if (!in) return errc::success;
  // "thread_level" (MPI-4.1); "mpi_thread_support_level" is the key of drafts some programs use.
  const std::string* v = in->find("thread_level");
  if (!v) v = in->find("mpi_thread_support_level");
  if (!v) return errc::success;
  for (int l = 0; l < 4; ++l)
    if (strcasecmp(v->c_str(), level_names[l]) == 0) {
      *out = core::thread_level(l);
      return errc::success;
    }
  return core::error_set(errc::info_value,
                         "info key thread_level is \"%s\": expected MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, "
                         "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE",
                         v->c_str());
}

// ---- string tags ----

using core::fnv1a;
using core::fnv_offset;


// The error handler passed for a communicator made from groups: a valid one made for
// communicators. nullptr once the error is raised (its return code in *rc).
core::errhandler* new_comm_errhandler(const char* fn, MPI_Errhandler errhandler, int* rc) {
  core::errhandler* eh = abi::to_errhandler(errhandler);
  if (!eh) {
    (void)core::error_set(errc::errhandler, "invalid error handler");
    *rc = abi::raise(fn, nullptr, errc::errhandler);
    return nullptr;
  }
  if (eh->for_session) {
    (void)core::error_set(errc::errhandler,
                          "the error handler was made by MPI_Session_create_errhandler: the new communicator needs "
                          "one made by MPI_Comm_create_errhandler (or a predefined one)");
    *rc = abi::raise(fn, nullptr, errc::errhandler);
    return nullptr;
  }
  return eh;
}

// A string tag: not NULL, shorter than MPI_MAX_STRINGTAG_LEN; its length in *len.
errc check_stringtag(const char* stringtag, size_t* len) {
  if (errc e = non_null(stringtag, "stringtag"); e != errc::success) return e;
  *len = std::strlen(stringtag);
  if (*len >= MPI_MAX_STRINGTAG_LEN)
    return core::error_set(errc::arg, "stringtag has %zu characters: at most %d are allowed", *len,
                           MPI_MAX_STRINGTAG_LEN - 1);
  return errc::success;
}

// Runs a communicator constructor (make(&n), which may run out of memory), then gives the new
// communicator the hints of `in` and the handler `eh` (which errors of the call went to as well).
template <class Make>
errc make_with_handler(Make make, const core::info* in, core::errhandler* eh, core::comm** out) {
  core::comm* n = nullptr;
  errc e;
  try {
    e = make(&n);
    if (e == errc::success && in) n->hints = in->entries;
  } catch (const std::bad_alloc&) {
    e = core::error_set(errc::no_mem, "out of memory");
  }
  if (e != errc::success) return e;
  n->eh->release();
  eh->retain();
  n->eh = eh;
  *out = n;
  return errc::success;
}
}  // namespace

extern "C" {

// ---- sessions ----

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session_out) {
  const char* fn = "MPI_Session_init";
  core::errhandler* eh = abi::to_errhandler(errhandler);
  if (!eh) {
    (void)core::error_set(errc::errhandler, "invalid error handler");
    return raise_no_session(fn, errc::errhandler);
  }
  if (eh->kind == core::errhandler_kind::user && !eh->for_session) {
    (void)core::error_set(errc::errhandler,
                          "the error handler was made by MPI_Comm_create_errhandler: a session needs one made by "
                          "MPI_Session_create_errhandler (or a predefined one)");
    return raise_no_session(fn, errc::errhandler);
  }
  errc e = non_null(session_out, "session pointer");
  const core::info* in = nullptr;
  if (e == errc::success) e = info_arg(info, &in);
  core::thread_level want = core::thread_level::single;
  if (e == errc::success) e = level_from_info(in, &want);
  core::thread_level got = want;
  if (e == errc::success) e = core::runtime_acquire(false, want, &got);
  if (e != errc::success) return raise_on(fn, eh, MPI_SESSION_NULL, e);
  auto* s = new session;
  eh->retain();
  s->eh = eh;
  s->level = got;
  {
    std::lock_guard<std::mutex> g(g_mutex);
    live().insert(s);
  }
  *session_out = to_handle(s);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_init);

int PMPI_Session_finalize(MPI_Session* session_io) {
  const char* fn = "MPI_Session_finalize";
  if (!session_io) {
    (void)core::error_set(errc::arg, "NULL session pointer");
    return raise_no_session(fn, errc::arg);
  }
  session* s = to_session(*session_io);
  if (!s) return raise_no_session(fn, errc::session);
  // A buffer still attached is detached implicitly: its messages leave first, as with
  // MPI_Session_detach_buffer; the communicators derived from the session fall back on the
  // process buffer afterwards.
  if (s->link->bsend) {
    int dummy_size = 0;
    void* dummy = nullptr;
    if (errc e = abi::bsend_detach(&s->link->bsend, &dummy, &dummy_size); e != errc::success) return raise(fn, s, e);
  }
  {
    std::lock_guard<std::mutex> g(g_mutex);
    live().erase(s);
  }
  core::errhandler* eh = s->eh;
  const MPI_Session h = *session_io;
  s->magic = 0;
  delete s;
  *session_io = MPI_SESSION_NULL;
  errc e = core::runtime_release(false);
  if (e != errc::success) {
    const int code = raise_on(fn, eh, h, e);
    eh->release();
    return code;
  }
  eh->release();
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_finalize);

int PMPI_Session_get_info(MPI_Session session_h, MPI_Info* info_used) {
  const char* fn = "MPI_Session_get_info";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] {
    if (errc e = non_null(info_used, "info pointer"); e != errc::success) return e;
    auto* in = new core::info;
    if (errc e = in->set("thread_level", level_names[int(s->level)]); e != errc::success) {
      delete in;
      return e;
    }
    *info_used = abi::to_handle(in);
    return errc::success;
  });
}
BATON_ALIAS(MPI_Session_get_info);

// ---- process sets ----

int PMPI_Session_get_num_psets(MPI_Session session_h, MPI_Info info, int* npset_names) {
  const char* fn = "MPI_Session_get_num_psets";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (errc e = non_null(npset_names, "npset_names pointer"); e != errc::success) return e;
    *npset_names = pset_count;
    return errc::success;
  });
}
BATON_ALIAS(MPI_Session_get_num_psets);

int PMPI_Session_get_nth_pset(MPI_Session session_h, MPI_Info info, int n, int* pset_len, char* pset_name) {
  const char* fn = "MPI_Session_get_nth_pset";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (n < 0 || n >= pset_count)
      return core::error_set(errc::arg, "process set index %d is out of range: there are %d (0 to %d)", n, pset_count,
                             pset_count - 1);
    if (errc e = non_null(pset_len, "pset_len pointer"); e != errc::success) return e;
    if (*pset_len < 0) return core::error_set(errc::arg, "negative pset_len %d", *pset_len);
    const char* name = pset_names[n];
    const int need = int(std::strlen(name)) + 1;
    // pset_len 0 only asks for the length; otherwise the name is written, truncated to fit.
    if (*pset_len > 0) {
      if (errc e = non_null(pset_name, "pset_name buffer"); e != errc::success) return e;
      const int len = std::min(*pset_len - 1, need - 1);
      std::memcpy(pset_name, name, size_t(len));
      pset_name[len] = 0;
    }
    *pset_len = need;
    return errc::success;
  });
}
BATON_ALIAS(MPI_Session_get_nth_pset);

int PMPI_Session_get_pset_info(MPI_Session session_h, const char* pset_name, MPI_Info* info) {
  const char* fn = "MPI_Session_get_pset_info";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] {
    if (errc e = non_null(pset_name, "process set name"); e != errc::success) return e;
    if (errc e = non_null(info, "info pointer"); e != errc::success) return e;
    std::vector<int> members;
    if (errc e = pset_members(pset_name, &members); e != errc::success) return e;
    auto* in = new core::info;
    if (errc e = in->set("mpi_size", std::to_string(members.size())); e != errc::success) {
      delete in;
      return e;
    }
    *info = abi::to_handle(in);
    return errc::success;
  });
}
BATON_ALIAS(MPI_Session_get_pset_info);

int PMPI_Group_from_session_pset(MPI_Session session_h, const char* pset_name, MPI_Group* newgroup) {
  const char* fn = "MPI_Group_from_session_pset";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] {
    if (errc e = non_null(pset_name, "process set name"); e != errc::success) return e;
    if (errc e = non_null(newgroup, "newgroup pointer"); e != errc::success) return e;
    std::vector<int> members;
    if (errc e = pset_members(pset_name, &members); e != errc::success) return e;
    core::group* g = core::group_make(std::move(members));
    if (!g->predefined) g->session = s->link;
    *newgroup = abi::to_handle(g);
    return errc::success;
  });
}
BATON_ALIAS(MPI_Group_from_session_pset);

// ---- communicators from groups ----


int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create_from_group";
  int rc = MPI_SUCCESS;
  core::errhandler* eh = new_comm_errhandler(fn, errhandler, &rc);
  if (!eh) return rc;
  // Errors of this call go to the handler given for the new communicator (MPI-4.1 11.3.4).
  auto fail = [&](errc e) { return abi::raise_with(fn, eh, MPI_COMM_NULL, e); };
  if (errc e = abi::check_init(fn); e != errc::success) return fail(e);
  core::group* g = abi::to_group(group);
  if (!g) return fail(errc::group);
  if (errc e = non_null(newcomm, "newcomm pointer"); e != errc::success) return fail(e);
  size_t taglen = 0;
  if (errc e = check_stringtag(stringtag, &taglen); e != errc::success) return fail(e);
  const core::info* in = nullptr;
  if (errc e = info_arg(info, &in); e != errc::success) return fail(e);
  if (g->size() == 0) {  // MPI_GROUP_EMPTY: a local call
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  if (g->rank < 0) {
    (void)core::error_set(errc::group, "the calling process (world rank %d) is not a member of the group",
                          core::rt().world_rank);
    return fail(errc::group);
  }
  // The agreement's tag comes from the string tag alone (so that different tags seldom meet);
  // the key every member checks with the first one covers the whole string and the member list.
  const int tag = int(fnv1a(stringtag, taglen, fnv_offset) & 0x3fffffffu);
  uint64_t key = fnv1a(stringtag, taglen + 1, fnv_offset ^ 0x5e55109ull);
  key = fnv1a(g->world.data(), g->world.size() * sizeof(int), key);
  core::comm* n = nullptr;
  if (errc e = make_with_handler([&](core::comm** o) { return core::comm_create_from_group(g->world, tag, key, o); },
                                 in, eh, &n);
      e != errc::success)
    return fail(e);
  n->session = g->session;
  *newcomm = abi::to_handle(n);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Comm_create_from_group);

// MPI_Intercomm_create_from_groups (MPI-4.1 7.6.2): collective over both groups, with no parent
// communicator; as MPI_Comm_create_from_group, errors go to the handler passed in and the bridge
// (core/intercomm.cpp) is agreed over core::rt().processes. The agreement's tag comes from the
// string tag (with another seed than MPI_Comm_create_from_group's, so the two seldom meet), the key
// from the string tag and both groups (the core adds the bridge's member order): every member of
// both groups must pass the same string tag and the same two groups (swapped on the other side).
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const char* fn = "MPI_Intercomm_create_from_groups";
  int rc = MPI_SUCCESS;
  core::errhandler* eh = new_comm_errhandler(fn, errhandler, &rc);
  if (!eh) return rc;
  auto fail = [&](errc e) { return abi::raise_with(fn, eh, MPI_COMM_NULL, e); };
  if (errc e = abi::check_init(fn); e != errc::success) return fail(e);
  core::group* lg = abi::to_group(local_group);
  if (!lg) return fail(errc::group);
  core::group* rg = abi::to_group(remote_group);
  if (!rg) return fail(errc::group);
  if (errc e = non_null(newintercomm, "newintercomm pointer"); e != errc::success) return fail(e);
  size_t taglen = 0;
  if (errc e = check_stringtag(stringtag, &taglen); e != errc::success) return fail(e);
  const core::info* in = nullptr;
  if (errc e = info_arg(info, &in); e != errc::success) return fail(e);
  if (lg->rank < 0) {
    (void)core::error_set(errc::group, "the calling process (world rank %d) is not a member of local_group",
                          core::rt().world_rank);
    return fail(errc::group);
  }
  if (rg->size() == 0) {
    (void)core::error_set(errc::group, "remote_group is empty");
    return fail(errc::group);
  }
  if (local_leader < 0 || local_leader >= lg->size()) {
    (void)core::error_set(errc::rank, "local_leader %d is not a rank of local_group (size %d)", local_leader,
                          lg->size());
    return fail(errc::rank);
  }
  if (remote_leader < 0 || remote_leader >= rg->size()) {
    (void)core::error_set(errc::rank, "remote_leader %d is not a rank of remote_group (size %d)", remote_leader,
                          rg->size());
    return fail(errc::rank);
  }
  const int tag = int(fnv1a(stringtag, taglen, fnv_offset ^ 0x1c7e5c0ull) & 0x3fffffffu);
  const uint64_t key = fnv1a(stringtag, taglen + 1, fnv_offset ^ 0x1c7e5c1ull);
  core::comm* n = nullptr;
  if (errc e = make_with_handler(
          [&](core::comm** o) {
            return core::intercomm_create_from_groups(lg->world, local_leader, rg->world, remote_leader, tag, key, o);
          },
          in, eh, &n);
      e != errc::success)
    return fail(e);
  *newintercomm = abi::to_handle(n);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Intercomm_create_from_groups);

// ---- buffered mode (MPI-4.1 3.6): the session's buffer, used by the buffered sends of the
// communicators derived from the session that have no buffer of their own ----

int PMPI_Session_attach_buffer(MPI_Session session_h, void* buffer, int size) {
  const char* fn = "MPI_Session_attach_buffer";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return abi::bsend_attach(&s->link->bsend, buffer, size); });
}
BATON_ALIAS(MPI_Session_attach_buffer);

int PMPI_Session_attach_buffer_c(MPI_Session session_h, void* buffer, MPI_Count size) {
  const char* fn = "MPI_Session_attach_buffer_c";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return abi::bsend_attach(&s->link->bsend, buffer, size); });
}
BATON_ALIAS(MPI_Session_attach_buffer_c);

int PMPI_Session_detach_buffer(MPI_Session session_h, void* buffer_addr, int* size) {
  const char* fn = "MPI_Session_detach_buffer";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return abi::bsend_detach(&s->link->bsend, buffer_addr, size); });
}
BATON_ALIAS(MPI_Session_detach_buffer);

int PMPI_Session_detach_buffer_c(MPI_Session session_h, void* buffer_addr, MPI_Count* size) {
  const char* fn = "MPI_Session_detach_buffer_c";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return abi::bsend_detach(&s->link->bsend, buffer_addr, size); });
}
BATON_ALIAS(MPI_Session_detach_buffer_c);

int PMPI_Session_flush_buffer(MPI_Session session_h) {
  const char* fn = "MPI_Session_flush_buffer";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return p2p::buffer_flush(&s->link->bsend); });
}
BATON_ALIAS(MPI_Session_flush_buffer);

int PMPI_Session_iflush_buffer(MPI_Session session_h, MPI_Request* request) {
  const char* fn = "MPI_Session_iflush_buffer";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  return call(fn, s, [&] { return abi::bsend_iflush(&s->link->bsend, core::rt().self, request); });
}
BATON_ALIAS(MPI_Session_iflush_buffer);

// ---- error handlers ----

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fnp, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Session_create_errhandler";
  if (!fnp || !errhandler) {
    (void)core::error_set(errc::arg, "NULL %s", fnp ? "errhandler output" : "function");
    return raise_no_session(fn, errc::arg);
  }
  auto* e = new core::errhandler;
  e->kind = core::errhandler_kind::user;
  e->user_fn = reinterpret_cast<void*>(fnp);
  e->for_session = true;
  *errhandler = abi::to_handle(e);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_create_errhandler);

int PMPI_Session_set_errhandler(MPI_Session session_h, MPI_Errhandler errhandler) {
  const char* fn = "MPI_Session_set_errhandler";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  core::errhandler* e = abi::to_errhandler(errhandler);
  if (!e) {
    (void)core::error_set(errc::errhandler, "invalid error handler");
    return raise(fn, s, errc::errhandler);
  }
  if (e->kind == core::errhandler_kind::user && !e->for_session) {
    (void)core::error_set(errc::errhandler,
                          "the error handler was made by MPI_Comm_create_errhandler: a session needs one made by "
                          "MPI_Session_create_errhandler (or a predefined one)");
    return raise(fn, s, errc::errhandler);
  }
  e->retain();
  s->eh->release();
  s->eh = e;
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_set_errhandler);

int PMPI_Session_get_errhandler(MPI_Session session_h, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Session_get_errhandler";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  if (!errhandler) {
    (void)core::error_set(errc::arg, "NULL errhandler pointer");
    return raise(fn, s, errc::arg);
  }
  s->eh->retain();
  *errhandler = abi::to_handle(s->eh);
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_get_errhandler);

int PMPI_Session_call_errhandler(MPI_Session session_h, int errorcode) {
  const char* fn = "MPI_Session_call_errhandler";
  session* s = to_session(session_h);
  if (!s) return raise_no_session(fn, errc::session);
  (void)core::error_set(errc(errorcode), "error raised by the application");
  (void)raise(fn, s, errc(errorcode));
  return MPI_SUCCESS;
}
BATON_ALIAS(MPI_Session_call_errhandler);

}  // extern "C"
