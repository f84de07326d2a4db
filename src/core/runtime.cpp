#include "core/runtime.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/procs.hpp"
#include "core/progress.hpp"

namespace baton::core {

namespace {
runtime g_rt;
pthread_t g_main_thread;

double now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Host names go through PMI as hex so any character survives the wire format.
std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) {
    o += d[c >> 4];
    o += d[c & 15];
  }
  return o;
}

#ifdef BATON_HAVE_UCX
constexpr bool ucx_built() { return true; }
#else
constexpr bool ucx_built() { return false; }
#endif

// The level a request gets: at most MPI_THREAD_MULTIPLE, and at most BATON_THREAD_LEVEL (0..3)
// when that is set.
thread_level capped_level(thread_level requested) {
  thread_level l = requested > thread_level::multiple ? thread_level::multiple : requested;
  if (requested < thread_level::single) l = thread_level::single;
  if (int n = thread_level_cap(); n >= 0 && thread_level(n) < l) l = thread_level(n);
  return l;
}

comm* make_builtin(uint32_t ctx, std::vector<int> world, int rank) {
  comm* c = new comm;
  c->ctx = ctx;
  c->size = static_cast<int>(world.size());
  c->rank = rank;
  c->world = std::move(world);
  c->predefined = true;
  c->eh = errhandler_predefined(errhandler_kind::fatal);
  return c;
}
// Same-host ranks use shared memory, others UCX. BATON_TRANSPORT=ucx sends every other rank
// through UCX (the local maps then hold only this rank). Every rank sees every host name, so all
// take the same decision without talking.
errc choose_transports(runtime& R) {
  const char* t = std::getenv("BATON_TRANSPORT");
  const std::string want = t ? t : "";
  if (!want.empty() && want != "auto" && want != "ucx" && want != "shm")
    return error_set(errc::arg, "BATON_TRANSPORT=%s is not a transport (auto, shm or ucx)", want.c_str());
  const bool multihost = static_cast<int>(R.world_of_local.size()) != R.world_size;
  if (want == "ucx") {
    R.local_of_world.assign(static_cast<size_t>(R.world_size), -1);
    R.local_of_world[static_cast<size_t>(R.world_rank)] = 0;
    R.world_of_local.assign(1, R.world_rank);
    R.local_rank = 0;
    for (int r = 0; r < R.world_size; ++r) R.host_of_world[static_cast<size_t>(r)] = r;
  }
  R.use_ucx = multihost || want == "ucx";
  if (R.use_ucx && !ucx_built()) {
    if (want == "ucx")
      return error_set(errc::unsupported_operation,
                       "BATON_TRANSPORT=ucx, but this build of Baton has no UCX (configure with libucx-dev)");
    return error_set(errc::unsupported_operation,
                     "the job spans %d hosts, but this build of Baton has only the shared-memory transport "
                     "(ranks on one host); rebuild with UCX (libucx-dev) to run across hosts",
                     R.world_size - static_cast<int>(R.world_of_local.size()) + 1);
  }
  if (multihost && want == "shm")
    return error_set(errc::unsupported_operation,
                     "BATON_TRANSPORT=shm, but the job spans several hosts (shared memory reaches one host)");
  return errc::success;
}
}  // namespace

runtime& rt() { return g_rt; }

errc runtime_hook_table::add(const runtime_hook* h) {
  for (int i = 0; i < n_; ++i) {
    if (hooks_[i] == h) return errc::success;
    if (hooks_[i]->order == h->order)
      return error_set(errc::intern, "runtime hooks \"%s\" and \"%s\" claim the same place (%d) in the order",
                       hooks_[i]->name, h->name, int(h->order));
  }
  if (n_ == capacity)
    return error_set(errc::intern, "no room for the runtime hook \"%s\" (%d registered)", h->name, capacity);
  int at = n_;
  while (at > 0 && hooks_[at - 1]->order > h->order) {
    hooks_[at] = hooks_[at - 1];
    --at;
  }
  hooks_[at] = h;
  ++n_;
  return errc::success;
}

errc runtime_hook_table::init_all() const {
  for (int i = 0; i < n_; ++i)
    if (hooks_[i]->init)
      if (errc e = hooks_[i]->init(); e != errc::success) return e;
  return errc::success;
}

void runtime_hook_table::shutdown_all() const {
  for (int i = 0; i < n_; ++i)
    if (hooks_[i]->quiesce) hooks_[i]->quiesce();
  for (int i = n_ - 1; i >= 0; --i)
    if (hooks_[i]->finalize) hooks_[i]->finalize();
}

namespace {
constinit runtime_hook_table g_hooks;  // the layers' hooks
}  // namespace

errc runtime_hook_add(const runtime_hook* h) { return g_hooks.add(h); }
const runtime_hook_table& runtime_hooks() { return g_hooks; }

errc runtime_init(thread_level requested, thread_level* provided) {
  runtime& R = g_rt;
  if (g_hooks.size() == 0)
    return error_set(errc::intern,
                     "no layer registered its start-up hook (src/comm/runtime_hooks.cpp registers them before the "
                     "runtime comes up)");
  g_main_thread = pthread_self();
  R.wtime_base = now();
  if (errc e = R.pmi.init(); e != errc::success) return e;
  R.world_rank = R.pmi.rank();
  R.world_size = R.pmi.size();

  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  R.hostname = host;
  if (errc e = R.pmi.put("baton.host." + std::to_string(R.world_rank), hex(R.hostname)); e != errc::success) return e;
  if (errc e = R.pmi.barrier(); e != errc::success) return e;
  R.local_of_world.assign(static_cast<size_t>(R.world_size), -1);
  R.world_of_local.clear();
  R.host_of_world.assign(static_cast<size_t>(R.world_size), 0);
  const std::string mine = hex(R.hostname);
  std::string first_host;
  std::unordered_map<std::string, int> first_of;  // host name -> its lowest world rank
  for (int r = 0; r < R.world_size; ++r) {
    std::string h = mine;
    if (r != R.world_rank) {
      if (errc e = R.pmi.get("baton.host." + std::to_string(r), h, r); e != errc::success) return e;
    }
    if (r == 0) first_host = h;
    if (h == mine) {
      R.local_of_world[static_cast<size_t>(r)] = static_cast<int>(R.world_of_local.size());
      R.world_of_local.push_back(r);
    }
    R.host_of_world[static_cast<size_t>(r)] = first_of.try_emplace(std::move(h), r).first->second;
  }
  R.local_rank = R.local_of_world[static_cast<size_t>(R.world_rank)];
  R.host_color = R.world_of_local[0];
  R.host_ranks = static_cast<int>(R.world_of_local.size());
  R.host_index = R.local_rank;
  if (errc e = choose_transports(R); e != errc::success) return e;
  procs_init(R.pmi.kvsname(), first_host);
  if (errc e = progress_core_check(); e != errc::success) return e;

  R.level = capped_level(requested);
  *provided = R.level;
  // The progress thread calls into the engine concurrently: the engine lock is on with it.
  R.threaded = R.level == thread_level::multiple || progress_thread_wanted();

  std::vector<int> world(static_cast<size_t>(R.world_size));
  for (int r = 0; r < R.world_size; ++r) world[static_cast<size_t>(r)] = r;
  R.world = make_builtin(0, std::move(world), R.world_rank);
  R.world->name = "MPI_COMM_WORLD";
  R.self = make_builtin(2, std::vector<int>{R.world_rank}, 0);
  R.self->name = "MPI_COMM_SELF";
  R.processes = make_builtin(4, std::vector<int>(R.world->world), R.world_rank);
  R.processes->name = "(all processes of the launch)";
  context_reserve(0);
  context_reserve(2);
  context_reserve(4);
  context_reserve(span_context);  // agreements among processes of several launches (core/procs.hpp)

  if (errc e = g_hooks.init_all(); e != errc::success) return e;
  R.active.store(true);
  if (progress_thread_wanted()) progress_thread_start();
  return errc::success;
}

errc runtime_finalize() {
  runtime& R = g_rt;
  // No barrier: once this rank's own sends are complete nobody needs it any more (data in flight
  // towards it sits in the shared segment, which outlives every mapping).
  progress_thread_stop();
  g_hooks.shutdown_all();
  errc e = R.pmi.finalize();
  R.active.store(false);
  return e;
}

namespace {
// The runtime's life (runtime_acquire / runtime_release), guarded by g_life_mutex.
enum class life : uint8_t { down, active, dormant, gone };
std::mutex g_life_mutex;
life g_life = life::down;
bool g_world_user = false;
int g_session_users = 0;

// Takes a dormant runtime down when the process exits (registered each time the runtime goes
// dormant, so that it runs before the destructors of statics built while it was in use).
void teardown_at_exit() {
  std::lock_guard<std::mutex> g(g_life_mutex);
  if (g_life != life::dormant) return;
  (void)runtime_finalize();
  g_life = life::gone;
}

// Raises the thread level of a running runtime where that is safe (see runtime.hpp).
void raise_level(thread_level want) {
  runtime& R = g_rt;
  want = capped_level(want);
  if (want <= R.level) return;
  if (R.threaded) {  // the engine lock is on already
    R.level = want;
    return;
  }
  if (R.level >= thread_level::serialized) return;  // another thread may be inside the engine
  if (want == thread_level::multiple) {
    if (R.use_ucx)
      want = thread_level::serialized;  // the UCX worker was made single-threaded
    else
      R.threaded = true;
  }
  R.level = want;
}
}  // namespace

errc runtime_acquire(bool world, thread_level requested, thread_level* provided) {
  runtime& R = g_rt;
  std::lock_guard<std::mutex> g(g_life_mutex);
  if (g_life == life::gone)
    return error_set(errc::other,
                     "the MPI runtime of this process was shut down (by MPI_Finalize with no session left, or "
                     "at exit); Baton cannot bootstrap it again in the same process");
  if (g_life == life::down) {
    thread_level got;
    if (errc e = runtime_init(requested, &got); e != errc::success) {
      g_life = life::gone;  // partly up: the process manager connection cannot be reused
      return e;
    }
  } else {
    raise_level(requested);
  }
  g_life = life::active;
  R.active.store(true);
  if (world) {
    g_main_thread = pthread_self();
    g_world_user = true;
    R.initialized.store(true);
  } else {
    ++g_session_users;
  }
  *provided = R.level;
  return errc::success;
}

errc runtime_release(bool world) {
  runtime& R = g_rt;
  std::lock_guard<std::mutex> g(g_life_mutex);
  if (world) {
    g_world_user = false;
    R.finalized.store(true);
  } else if (g_session_users > 0) {
    --g_session_users;
  }
  if (g_world_user || g_session_users > 0) return errc::success;
  R.active.store(false);
  if (R.finalized.load()) {
    g_life = life::gone;
    return runtime_finalize();
  }
  g_life = life::dormant;
  // The runtime stays up for a later MPI_Session_init or MPI_Init; exit takes it down.
  if (std::atexit(teardown_at_exit) != 0)
    return error_set(errc::intern, "cannot register the runtime's shutdown at process exit (atexit failed)");
  return errc::success;
}

void runtime_abort(int code, const std::string& message) {
  std::fflush(stdout);
  std::fflush(stderr);
  g_rt.pmi.abort(code, message);
  ::_exit(code == 0 ? 1 : code);
}

int thread_level_cap() {
  const char* v = std::getenv("BATON_THREAD_LEVEL");
  if (!v || !*v) return -1;
  const int l = std::atoi(v);
  return l >= 0 && l <= 3 ? l : -1;
}

bool runtime_is_main_thread() { return pthread_equal(pthread_self(), g_main_thread) != 0; }

double wtime() { return now() - g_rt.wtime_base; }

}  // namespace baton::core
