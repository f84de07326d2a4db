#include "core/procs.hpp"

#include <time.h>
#include <unistd.h>

#include <mutex>
#include <string>

#include "core/comm.hpp"
#include "core/runtime.hpp"

namespace baton::core {

namespace {

struct launch_block {
  uint64_t job;
  int size;
  int base;  // index of its rank 0
};

// Registration runs under the engine lock (the transports read local_of_world under it); the
// mutex covers readers that do not hold it (communicator construction in other threads).
struct table {
  std::mutex mu;
  uint64_t job = 0;
  std::vector<launch_block> blocks;  // other launches, in registration order
  int next = 0;                      // first free index
};

table& tab() {
  static table t;
  return t;
}

const launch_block* block_of_index(int index) {
  for (const launch_block& b : tab().blocks)
    if (index >= b.base && index < b.base + b.size) return &b;
  return nullptr;
}

}  // namespace

void procs_init(const std::string& kvsname, const std::string& first_host) {
  table& t = tab();
  uint64_t h = fnv1a(kvsname.data(), kvsname.size(), fnv_offset);
  h = fnv1a(first_host.data(), first_host.size(), h);
  if (rt().pmi.singleton()) {
    // No launcher names the job: this process and the moment it started do.
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    const int64_t salt[3] = {int64_t(getpid()), int64_t(ts.tv_sec), int64_t(ts.tv_nsec)};
    h = fnv1a(salt, sizeof salt, h);
  }
  std::lock_guard<std::mutex> g(t.mu);
  t.job = h;
  t.blocks.clear();
  t.next = rt().world_size;
}

uint64_t job_id() { return tab().job; }

proc_id proc_identity(int index) {
  const runtime& R = rt();
  if (index >= 0 && index < R.world_size) return proc_id{tab().job, index, R.world_size};
  std::lock_guard<std::mutex> g(tab().mu);
  if (const launch_block* b = block_of_index(index)) return proc_id{b->job, index - b->base, b->size};
  return proc_id{0, -1, 0};
}

int proc_index(uint64_t job, int rank) {
  table& t = tab();
  if (job == t.job) return rank >= 0 && rank < rt().world_size ? rank : -1;
  std::lock_guard<std::mutex> g(t.mu);
  for (const launch_block& b : t.blocks)
    if (b.job == job) return rank >= 0 && rank < b.size ? b.base + rank : -1;
  return -1;
}

errc proc_register(const proc_id& p, int* index) {
  table& t = tab();
  if (p.rank < 0 || p.rank >= p.job_size)
    return error_set(errc::intern, "process identity with rank %d in a launch of %d processes", p.rank, p.job_size);
  if (p.job == t.job) {
    if (p.job_size != rt().world_size)
      return error_set(errc::intern, "a peer describes this launch with %d processes (it has %d)", p.job_size,
                       rt().world_size);
    *index = p.rank;
    return errc::success;
  }
  engine_guard lock;
  std::lock_guard<std::mutex> g(t.mu);
  for (const launch_block& b : t.blocks) {
    if (b.job != p.job) continue;
    if (b.size != p.job_size)
      return error_set(errc::intern, "launch %016llx described with %d processes, known with %d",
                       static_cast<unsigned long long>(p.job), p.job_size, b.size);
    *index = b.base + p.rank;
    return errc::success;
  }
  t.blocks.push_back(launch_block{p.job, p.job_size, t.next});
  t.next += p.job_size;
  // The transports dispatch on local_of_world: -1 is "not on this process's shared segment".
  rt().local_of_world.resize(static_cast<size_t>(t.next), -1);
  *index = t.blocks.back().base + p.rank;
  return errc::success;
}

bool proc_foreign(int index) { return index >= rt().world_size; }

bool proc_before(int a, int b) {
  const proc_id x = proc_identity(a), y = proc_identity(b);
  return x.job != y.job ? x.job < y.job : x.rank < y.rank;
}

uint64_t procs_digest(const int* indices, size_t n, uint64_t seed) {
  uint64_t h = seed;
  for (size_t i = 0; i < n; ++i) {
    const proc_id p = proc_identity(indices[i]);
    h = fnv1a(&p.job, sizeof p.job, h);
    h = fnv1a(&p.rank, sizeof p.rank, h);
  }
  return h;
}

int host_key() {
  // Multiplying by an odd constant is one-to-one modulo 2^30, so two hosts of one launch (their
  // lowest world ranks differ) never share a key.
  const uint64_t hc = uint64_t(uint32_t(rt().host_color)) * 0x9e3779b97f4a7c15ull;
  return int((hc ^ job_id() ^ (job_id() >> 30)) & 0x3fffffffu);
}

bool procs_any_foreign(const std::vector<int>& indices) {
  for (int i : indices)
    if (proc_foreign(i)) return true;
  return false;
}

comm* procs_span(const std::vector<int>& members) {
  comm* c = new comm;
  c->ctx = span_context;
  c->size = static_cast<int>(members.size());
  c->world = members;
  c->rank = -1;
  for (int i = 0; i < c->size; ++i)
    if (members[size_t(i)] == rt().world_rank) c->rank = i;
  c->predefined = true;  // no count: deleted by its maker, never releases the reserved context
  c->eh = errhandler_predefined(errhandler_kind::ret);
  c->name = "(processes of several launches)";
  return c;
}

}  // namespace baton::core
