// Sessions, process sets and the thread level of a session's info (comm/session.hpp).
#include "comm/session.hpp"

#include "comm/runtime_hooks.hpp"

#include <strings.h>

#include <mutex>
#include <set>
#include <string>

#include "core/comm.hpp"

namespace baton::comm {

namespace {

std::mutex g_mutex;
std::set<const session*>& live() {
  static auto* s = new std::set<const session*>;  // never destroyed: calls may come from exit handlers
  return *s;
}

constexpr const char* pset_names[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int n_psets = 2;

constexpr const char* level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                       "MPI_THREAD_MULTIPLE"};

}  // namespace

errc session_open(thread_level want, errhandler* eh, session** out) {
  thread_level got = want;
  if (errc e = runtime_hooks_install(); e != errc::success) return e;
  if (errc e = core::runtime_acquire(false, want, &got); e != errc::success) return e;
  auto* s = new session;
  eh->retain();
  s->eh = eh;
  s->level = got;
  {
    std::lock_guard<std::mutex> g(g_mutex);
    live().insert(s);
  }
  *out = s;
  return errc::success;
}

errc session_close(session* s, errhandler** eh) {
  {
    std::lock_guard<std::mutex> g(g_mutex);
    live().erase(s);
  }
  *eh = s->eh;
  s->magic = 0;
  delete s;
  return core::runtime_release(false);
}

bool session_valid(const session* s) {
  // A range test first (sessions live in their slab, core/slab.hpp), so a made-up address is
  // refused without touching the registry's ordering of foreign pointers.
  if (!core::slab_holds<session>(s)) return false;
  std::lock_guard<std::mutex> g(g_mutex);
  return live().count(s) != 0;
}

int pset_count() { return n_psets; }

const char* pset_name(int n) { return pset_names[n]; }

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
  return core::error_set(errc::arg, "no process set named \"%s\" (this process has mpi://WORLD and mpi://SELF)", name);
}

errc thread_level_from_info(const info* in, thread_level* out) {
  *out = thread_level::single;
  if (!in) return errc::success;
  // "thread_level" (MPI-4.1); "mpi_thread_support_level" is the key of drafts some programs use.
  const std::string* v = in->find("thread_level");
  if (!v) v = in->find("mpi_thread_support_level");
  if (!v) return errc::success;
  for (int l = 0; l < 4; ++l)
    if (strcasecmp(v->c_str(), level_names[l]) == 0) {
      *out = thread_level(l);
      return errc::success;
    }
  return core::error_set(errc::info_value,
                         "info key thread_level is \"%s\": expected MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, "
                         "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE",
                         v->c_str());
}

const char* thread_level_name(thread_level l) { return level_names[int(l)]; }

}  // namespace baton::comm
