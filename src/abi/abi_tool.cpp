// The MPI tool information interface (MPI-4.1 chapter 15): initialization, control variables,
// performance variables and their sessions, categories, enumerations, events and sources.
//
// MPI_T calls return their error class and never run an error handler. Every call but
// MPI_T_init_thread returns MPI_T_ERR_NOT_INITIALIZED unless MPI_T_init_thread has been called
// more often than MPI_T_finalize; the interface works before MPI_Init and after MPI_Finalize. One
// mutex serializes the interface's state, so any thread may call it. The variables themselves are
// in abi_tool_vars.cpp. Baton exposes no event types; its one event source is the monotonic clock.
#include <time.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"
#include "abi/abi_tool.hpp"
#include "core/info.hpp"

using namespace baton;
using abi::tool::vars;

namespace {

struct cvar_handle_obj {
  int index = 0;
  int count = 0;
};

struct pvar_handle_obj {
  int index = 0;
  bool started = false;
  uint64_t accum = 0;  // COUNTER: growth counted up to `base`
  uint64_t base = 0;   // COUNTER: the variable's reading when counting (re)started
};

struct session_obj {
  std::vector<std::unique_ptr<pvar_handle_obj>> handles;
};

struct tool_state {
  std::mutex m;
  int refs = 0;  // MPI_T_init_thread calls not yet matched by MPI_T_finalize
  std::vector<std::unique_ptr<session_obj>> sessions;
  std::vector<std::unique_ptr<cvar_handle_obj>> cvar_handles;
};

// Never destroyed (a tool may call in from an exit handler); emptied by the last MPI_T_finalize.
tool_state& state() {
  static tool_state* s = new tool_state;
  return *s;
}

// Runs `body` under the interface's lock once MPI_T is initialized; exceptions become error classes.
template <class Body>
int entry(Body&& body) {
  tool_state& T = state();
  std::lock_guard<std::mutex> lock(T.m);
  if (T.refs == 0) return MPI_T_ERR_NOT_INITIALIZED;
  try {
    return body(T);
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

// The standard's string convention (MPI-4.1 15.3.3): with a null buffer or a length of 0, only the
// needed length (characters plus the terminating null) is returned; otherwise at most len-1
// characters and a null are stored, and len becomes the number stored plus one. A null length
// pointer returns nothing.
void put_string(const std::string& s, char* buf, int* len) {
  if (!len) return;
  const int need = int(std::min<size_t>(s.size(), INT_MAX - 1)) + 1;
  if (!buf || *len <= 0) {
    *len = need;
    return;
  }
  const int n = std::min(need - 1, *len - 1);
  std::memcpy(buf, s.data(), size_t(n));
  buf[n] = '\0';
  *len = n + 1;
}

MPI_Datatype datatype_of(abi::tool::value_kind k) {
  switch (k) {
    case abi::tool::value_kind::i32: return MPI_INT;
    case abi::tool::value_kind::u64: return MPI_UNSIGNED_LONG;
    case abi::tool::value_kind::str: return MPI_CHAR;
  }
  return MPI_DATATYPE_NULL;
}

MPI_T_enum to_handle(const abi::tool::enum_type* e) {
  return reinterpret_cast<MPI_T_enum>(const_cast<abi::tool::enum_type*>(e));
}

const abi::tool::enum_type* to_enum(MPI_T_enum h) {
  for (const abi::tool::enum_type* e : vars().enums)
    if (to_handle(e) == h) return e;
  return nullptr;
}

bool cvar_index_ok(int i) { return i >= 0 && size_t(i) < vars().cvars.size(); }
bool pvar_index_ok(int i) { return i >= 0 && size_t(i) < vars().pvars.size(); }
bool category_index_ok(int i) { return i >= 0 && size_t(i) < vars().categories.size(); }

cvar_handle_obj* find_cvar_handle(tool_state& T, MPI_T_cvar_handle h) {
  for (auto& p : T.cvar_handles)
    if (reinterpret_cast<MPI_T_cvar_handle>(p.get()) == h) return p.get();
  return nullptr;
}

session_obj* find_session(tool_state& T, MPI_T_pvar_session s) {
  for (auto& p : T.sessions)
    if (reinterpret_cast<MPI_T_pvar_session>(p.get()) == s) return p.get();
  return nullptr;
}

pvar_handle_obj* find_pvar_handle(session_obj& s, MPI_T_pvar_handle h) {
  for (auto& p : s.handles)
    if (reinterpret_cast<MPI_T_pvar_handle>(p.get()) == h) return p.get();
  return nullptr;
}

// ---- performance variable handles ----

const abi::tool::pvar& pvar_of(const pvar_handle_obj& h) { return vars().pvars[size_t(h.index)]; }
bool counts(const abi::tool::pvar& v) { return v.var_class == MPI_T_PVAR_CLASS_COUNTER; }

uint64_t handle_value(const pvar_handle_obj& h) {
  const abi::tool::pvar& v = pvar_of(h);
  if (!counts(v)) return v.read();
  return h.started ? h.accum + (v.read() - h.base) : h.accum;
}

void handle_start(pvar_handle_obj& h) {
  if (h.started) return;
  if (counts(pvar_of(h))) h.base = pvar_of(h).read();
  h.started = true;
}

void handle_stop(pvar_handle_obj& h) {
  if (!h.started) return;
  if (counts(pvar_of(h))) h.accum += pvar_of(h).read() - h.base;
  h.started = false;
}

void handle_set(pvar_handle_obj& h, uint64_t value) {
  h.accum = value;
  if (h.started) h.base = pvar_of(h).read();
}

// Session and handle of a call that names one handle (not MPI_T_PVAR_ALL_HANDLES).
int one_handle(tool_state& T, MPI_T_pvar_session session, MPI_T_pvar_handle handle, pvar_handle_obj** out) {
  session_obj* s = find_session(T, session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  pvar_handle_obj* h = handle == MPI_T_PVAR_ALL_HANDLES ? nullptr : find_pvar_handle(*s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  *out = h;
  return MPI_SUCCESS;
}

// Index lists of a category (MPI_T_category_get_cvars/pvars/categories).
int list_indices(int cat_index, int len, int indices[], std::vector<int> abi::tool::category::*which) {
  return entry([&](tool_state&) -> int {
    if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
    const std::vector<int>& v = vars().categories[size_t(cat_index)].*which;
    const size_t n = std::min(v.size(), size_t(len));
    for (size_t i = 0; i < n; ++i) indices[i] = v[i];
    return MPI_SUCCESS;
  });
}

// *out = the index of the entry of list() named `name` (MPI_T_*_get_index).
template <class List>
int get_index(const char* name, int* out, List list) {
  return entry([&](tool_state&) -> int {
    if (!name || !out) return MPI_T_ERR_INVALID;
    const auto& v = list().get();
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].name == name) {
        *out = int(i);
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

int64_t monotonic_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

namespace baton::abi::tool {

const char* error_name(int code) {
  switch (code) {
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT";
    case MPI_T_ERR_NOT_ACCESSIBLE: return "MPI_T_ERR_NOT_ACCESSIBLE";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T_ERR_NOT_SUPPORTED";
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T_ERR_PVAR_NO_STARTSTOP";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC";
    default: return nullptr;
  }
}

const char* error_description(int code) {
  switch (code) {
    case MPI_T_ERR_CANNOT_INIT: return "the tool information interface cannot be initialized";
    case MPI_T_ERR_NOT_ACCESSIBLE: return "the variable is not accessible from this process";
    case MPI_T_ERR_NOT_INITIALIZED: return "the tool information interface is not initialized";
    case MPI_T_ERR_NOT_SUPPORTED: return "the requested functionality is not supported";
    case MPI_T_ERR_MEMORY: return "out of memory";
    case MPI_T_ERR_INVALID: return "invalid use of the interface or bad parameter value";
    case MPI_T_ERR_INVALID_INDEX: return "the index is invalid or has been deleted";
    case MPI_T_ERR_INVALID_ITEM: return "the item index queried is out of range";
    case MPI_T_ERR_INVALID_SESSION: return "the session argument is not a valid session";
    case MPI_T_ERR_INVALID_HANDLE: return "the handle is invalid";
    case MPI_T_ERR_INVALID_NAME: return "the variable or category name is invalid";
    case MPI_T_ERR_OUT_OF_HANDLES: return "no more handles available";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "no more sessions available";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "the control variable cannot be set at this moment";
    case MPI_T_ERR_CVAR_SET_NEVER: return "the control variable cannot be set until the end of execution";
    case MPI_T_ERR_PVAR_NO_WRITE: return "the performance variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "the performance variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "the performance variable cannot be read and written atomically";
    default: return nullptr;
  }
}

}  // namespace baton::abi::tool

namespace baton::impl {

// ---- initialization (15.3.4) ----

int MPI_T_init_thread(int required, int* provided) {
  tool_state& T = state();
  std::lock_guard<std::mutex> lock(T.m);
  if (T.refs == INT_MAX) return MPI_T_ERR_CANNOT_INIT;
  try {
    (void)vars();  // built now, so that no later call can fail for memory
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
  ++T.refs;
  // The interface's own state is under a mutex: every level is provided as asked.
  if (provided) {
    if (required >= MPI_THREAD_MULTIPLE) *provided = MPI_THREAD_MULTIPLE;
    else if (required >= MPI_THREAD_SERIALIZED) *provided = MPI_THREAD_SERIALIZED;
    else if (required >= MPI_THREAD_FUNNELED) *provided = MPI_THREAD_FUNNELED;
    else *provided = MPI_THREAD_SINGLE;
  }
  return MPI_SUCCESS;
}

int MPI_T_finalize(void) {
  return entry([](tool_state& T) -> int {
    if (--T.refs == 0) {
      T.sessions.clear();
      T.cvar_handles.clear();
    }
    return MPI_SUCCESS;
  });
}

// ---- enumerations (15.3.5) ----

int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  return entry([&](tool_state&) -> int {
    const abi::tool::enum_type* e = to_enum(enumtype);
    if (!e) return MPI_T_ERR_INVALID_HANDLE;
    if (num) *num = int(e->items.size());
    put_string(e->name, name, name_len);
    return MPI_SUCCESS;
  });
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len) {
  return entry([&](tool_state&) -> int {
    const abi::tool::enum_type* e = to_enum(enumtype);
    if (!e) return MPI_T_ERR_INVALID_HANDLE;
    if (indx < 0 || size_t(indx) >= e->items.size()) return MPI_T_ERR_INVALID_INDEX;
    if (value) *value = e->items[size_t(indx)].first;
    put_string(e->items[size_t(indx)].second, name, name_len);
    return MPI_SUCCESS;
  });
}

// ---- control variables (15.3.6) ----

int MPI_T_cvar_get_num(int* num_cvar) {
  return entry([&](tool_state&) -> int {
    if (!num_cvar) return MPI_T_ERR_INVALID;
    *num_cvar = int(vars().cvars.size());
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  return entry([&](tool_state&) -> int {
    if (!cvar_index_ok(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const abi::tool::cvar& v = vars().cvars[size_t(cvar_index)];
    put_string(v.name, name, name_len);
    if (verbosity) *verbosity = v.verbosity;
    if (datatype) *datatype = datatype_of(v.kind);
    if (enumtype) *enumtype = v.enumtype ? to_handle(v.enumtype) : MPI_T_ENUM_NULL;
    put_string(v.desc, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (scope) *scope = v.scope;
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_get_index(const char* name, int* cvar_index) {
  return get_index(name, cvar_index, [] { return std::cref(vars().cvars); });
}

int MPI_T_cvar_handle_alloc(int cvar_index, void* /*obj_handle: no variable is bound*/, MPI_T_cvar_handle* handle,
                             int* count) {
  return entry([&](tool_state& T) -> int {
    if (!cvar_index_ok(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    const abi::tool::cvar& v = vars().cvars[size_t(cvar_index)];
    auto h = std::make_unique<cvar_handle_obj>();
    h->index = cvar_index;
    // A string's value never changes once read (it is read once): room for it and its null, and
    // at least str_min.
    h->count = v.kind == abi::tool::value_kind::str ? int(std::max(v.read_str().size() + 1, v.str_min)) : 1;
    *count = h->count;
    *handle = reinterpret_cast<MPI_T_cvar_handle>(h.get());
    T.cvar_handles.push_back(std::move(h));
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  return entry([&](tool_state& T) -> int {
    if (!handle) return MPI_T_ERR_INVALID;
    auto it = std::find_if(T.cvar_handles.begin(), T.cvar_handles.end(), [&](const auto& p) {
      return reinterpret_cast<MPI_T_cvar_handle>(p.get()) == *handle;
    });
    if (it == T.cvar_handles.end()) return MPI_T_ERR_INVALID_HANDLE;
    T.cvar_handles.erase(it);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  return entry([&](tool_state& T) -> int {
    const cvar_handle_obj* h = find_cvar_handle(T, handle);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    const abi::tool::cvar& v = vars().cvars[size_t(h->index)];
    switch (v.kind) {
      case abi::tool::value_kind::i32: *static_cast<int*>(buf) = int(v.read_num()); break;
      case abi::tool::value_kind::u64: *static_cast<unsigned long*>(buf) = (unsigned long)v.read_num(); break;
      case abi::tool::value_kind::str: {
        int len = h->count;
        put_string(v.read_str(), static_cast<char*>(buf), &len);
        break;
      }
    }
    return MPI_SUCCESS;
  });
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  return entry([&](tool_state& T) -> int {
    const cvar_handle_obj* h = find_cvar_handle(T, handle);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    // Every Baton control variable is read-only (MPI_T_SCOPE_CONSTANT or MPI_T_SCOPE_READONLY).
    return MPI_T_ERR_CVAR_SET_NEVER;
  });
}

// ---- performance variables (15.3.7) ----

int MPI_T_pvar_get_num(int* num_pvar) {
  return entry([&](tool_state&) -> int {
    if (!num_pvar) return MPI_T_ERR_INVALID;
    *num_pvar = int(vars().pvars.size());
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  return entry([&](tool_state&) -> int {
    if (!pvar_index_ok(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const abi::tool::pvar& v = vars().pvars[size_t(pvar_index)];
    put_string(v.name, name, name_len);
    if (verbosity) *verbosity = v.verbosity;
    if (var_class) *var_class = v.var_class;
    if (datatype) *datatype = MPI_UNSIGNED_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    put_string(v.desc, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = v.readonly ? 1 : 0;
    if (continuous) *continuous = v.continuous ? 1 : 0;
    if (atomic) *atomic = v.atomic ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  return entry([&](tool_state&) -> int {
    if (!name || !pvar_index) return MPI_T_ERR_INVALID;
    const auto& pv = vars().pvars;
    for (size_t i = 0; i < pv.size(); ++i) {
      if (pv[i].var_class == var_class && pv[i].name == name) {
        *pvar_index = int(i);
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

int MPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  return entry([&](tool_state& T) -> int {
    if (!session) return MPI_T_ERR_INVALID;
    T.sessions.push_back(std::make_unique<session_obj>());
    *session = reinterpret_cast<MPI_T_pvar_session>(T.sessions.back().get());
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  return entry([&](tool_state& T) -> int {
    if (!session) return MPI_T_ERR_INVALID;
    auto it = std::find_if(T.sessions.begin(), T.sessions.end(), [&](const auto& p) {
      return reinterpret_cast<MPI_T_pvar_session>(p.get()) == *session;
    });
    if (it == T.sessions.end()) return MPI_T_ERR_INVALID_SESSION;
    T.sessions.erase(it);  // frees the session's handles
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* /*obj_handle: no variable is bound*/,
                             MPI_T_pvar_handle* handle, int* count) {
  return entry([&](tool_state& T) -> int {
    session_obj* s = find_session(T, session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (!pvar_index_ok(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    auto h = std::make_unique<pvar_handle_obj>();
    h->index = pvar_index;
    // Continuous variables are always active; the others start stopped.
    if (vars().pvars[size_t(pvar_index)].continuous) handle_start(*h);
    *count = 1;
    *handle = reinterpret_cast<MPI_T_pvar_handle>(h.get());
    s->handles.push_back(std::move(h));
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  return entry([&](tool_state& T) -> int {
    session_obj* s = find_session(T, session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (!handle) return MPI_T_ERR_INVALID;
    auto it = std::find_if(s->handles.begin(), s->handles.end(), [&](const auto& p) {
      return reinterpret_cast<MPI_T_pvar_handle>(p.get()) == *handle;
    });
    if (it == s->handles.end()) return MPI_T_ERR_INVALID_HANDLE;
    s->handles.erase(it);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return entry([&](tool_state& T) -> int {
    session_obj* s = find_session(T, session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {  // continuous and started handles are left as they are
      for (auto& h : s->handles) handle_start(*h);
      return MPI_SUCCESS;
    }
    pvar_handle_obj* h = find_pvar_handle(*s, handle);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    if (pvar_of(*h).continuous) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    handle_start(*h);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return entry([&](tool_state& T) -> int {
    session_obj* s = find_session(T, session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {  // continuous and stopped handles are left as they are
      for (auto& h : s->handles)
        if (!pvar_of(*h).continuous) handle_stop(*h);
      return MPI_SUCCESS;
    }
    pvar_handle_obj* h = find_pvar_handle(*s, handle);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    if (pvar_of(*h).continuous) return MPI_T_ERR_PVAR_NO_STARTSTOP;
    handle_stop(*h);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  return entry([&](tool_state& T) -> int {
    pvar_handle_obj* h = nullptr;
    if (int rc = one_handle(T, session, handle, &h); rc != MPI_SUCCESS) return rc;
    if (!buf) return MPI_T_ERR_INVALID;
    *static_cast<unsigned long*>(buf) = handle_value(*h);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  return entry([&](tool_state& T) -> int {
    pvar_handle_obj* h = nullptr;
    if (int rc = one_handle(T, session, handle, &h); rc != MPI_SUCCESS) return rc;
    if (pvar_of(*h).readonly) return MPI_T_ERR_PVAR_NO_WRITE;
    if (!buf) return MPI_T_ERR_INVALID;
    handle_set(*h, *static_cast<const unsigned long*>(buf));
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return entry([&](tool_state& T) -> int {
    session_obj* s = find_session(T, session);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {  // read-only handles are left as they are
      for (auto& h : s->handles)
        if (!pvar_of(*h).readonly) handle_set(*h, 0);
      return MPI_SUCCESS;
    }
    pvar_handle_obj* h = find_pvar_handle(*s, handle);
    if (!h) return MPI_T_ERR_INVALID_HANDLE;
    if (pvar_of(*h).readonly) return MPI_T_ERR_PVAR_NO_WRITE;
    handle_set(*h, 0);
    return MPI_SUCCESS;
  });
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  return entry([&](tool_state& T) -> int {
    pvar_handle_obj* h = nullptr;
    if (int rc = one_handle(T, session, handle, &h); rc != MPI_SUCCESS) return rc;
    const abi::tool::pvar& v = pvar_of(*h);
    if (!v.atomic) return MPI_T_ERR_PVAR_NO_ATOMIC;
    if (v.readonly) return MPI_T_ERR_PVAR_NO_WRITE;
    if (!buf) return MPI_T_ERR_INVALID;
    // One reading of the variable serves both: nothing counted between them is lost.
    if (h->started) {
      const uint64_t now = v.read();
      *static_cast<unsigned long*>(buf) = h->accum + (now - h->base);
      h->base = now;
    } else {
      *static_cast<unsigned long*>(buf) = h->accum;
    }
    h->accum = 0;
    return MPI_SUCCESS;
  });
}

// ---- categories (15.3.9) ----

int MPI_T_category_get_num(int* num_cat) {
  return entry([&](tool_state&) -> int {
    if (!num_cat) return MPI_T_ERR_INVALID;
    *num_cat = int(vars().categories.size());
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  return entry([&](tool_state&) -> int {
    if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    const abi::tool::category& c = vars().categories[size_t(cat_index)];
    put_string(c.name, name, name_len);
    put_string(c.desc, desc, desc_len);
    if (num_cvars) *num_cvars = int(c.cvars.size());
    if (num_pvars) *num_pvars = int(c.pvars.size());
    if (num_categories) *num_categories = int(c.categories.size());
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_num_events(int cat_index, int* num_events) {
  return entry([&](tool_state&) -> int {
    if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;  // Baton exposes no event types
    return MPI_SUCCESS;
  });
}

int MPI_T_category_get_index(const char* name, int* cat_index) {
  return get_index(name, cat_index, [] { return std::cref(vars().categories); });
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return list_indices(cat_index, len, indices, &abi::tool::category::cvars);
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return list_indices(cat_index, len, indices, &abi::tool::category::pvars);
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return list_indices(cat_index, len, indices, &abi::tool::category::categories);
}

int MPI_T_category_get_events(int cat_index, int len, int indices[]) {
  return entry([&](tool_state&) -> int {
    if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;  // no events: nothing to store
  });
}

int MPI_T_category_changed(int* update_number) {
  return entry([&](tool_state&) -> int {
    if (!update_number) return MPI_T_ERR_INVALID;
    *update_number = 0;  // the categories never change after start-up
    return MPI_SUCCESS;
  });
}

// ---- event sources (15.3.8): one, the process's monotonic clock in nanoseconds ----

int MPI_T_source_get_num(int* num_sources) {
  return entry([&](tool_state&) -> int {
    if (!num_sources) return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
  });
}

int MPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                           MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                           MPI_Info* info) {
  return entry([&](tool_state&) -> int {
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    put_string("baton_clock", name, name_len);
    put_string("The process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds", desc, desc_len);
    if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second) *ticks_per_second = 1000000000;
    if (max_ticks) *max_ticks = LLONG_MAX;
    if (info) *info = abi::to_handle(new core::info);  // no hints: an empty info the caller frees
    return MPI_SUCCESS;
  });
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  return entry([&](tool_state&) -> int {
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp) return MPI_T_ERR_INVALID;
    *timestamp = monotonic_ns();
    return MPI_SUCCESS;
  });
}

// ---- events (15.3.8): Baton exposes no event types, so no index, registration or instance is
// ever valid ----

int MPI_T_event_get_num(int* num_events) {
  return entry([&](tool_state&) -> int {
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
  });
}

int MPI_T_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*, MPI_T_enum*, MPI_Info*, char*,
                          int*, int*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_INDEX; });
}

int MPI_T_event_get_index(const char* name, int* event_index) {
  return entry([&](tool_state&) -> int { return !name || !event_index ? MPI_T_ERR_INVALID : MPI_T_ERR_INVALID_NAME; });
}

int MPI_T_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_INDEX; });
}

int MPI_T_event_handle_set_info(MPI_T_event_registration, MPI_Info) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                                   MPI_T_event_cb_function*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_read(MPI_T_event_instance, int, void*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_copy(MPI_T_event_instance, void*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

int MPI_T_event_get_source(MPI_T_event_instance, int*) {
  return entry([](tool_state&) -> int { return MPI_T_ERR_INVALID_HANDLE; });
}

}  // namespace baton::impl
