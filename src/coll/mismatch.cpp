#include "coll/mismatch.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "coll/coll.hpp"
#include "coll/schedule.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/stall.hpp"

namespace baton::coll {

namespace {
// The communicators whose regions are ready. Checks hold the lock throughout, so a communicator
// being destroyed in another thread (log_unregister) stays whole while it is read.
std::mutex g_m;
std::vector<core::comm*>& logged() {
  static auto* v = new std::vector<core::comm*>;  // never destroyed: waits may run at exit
  return *v;
}

struct decoded {
  coll_kind kind;
  const algorithm* al;
  int root;
};
decoded decode(const shm::region::log_entry& e) {
  const auto kind = coll_kind(e.what & 0xff);
  const size_t idx = size_t((e.what >> 8) & 0xffff);
  const size_t n = size_t(algorithms_end() - algorithms_begin());
  return {kind, idx < n ? algorithms_begin() + idx : nullptr, int(int32_t(uint32_t(e.what >> 32)))};
}

std::string bytes_text(const shm::region::log_entry& e) {
  std::string t = std::to_string(e.bytes) + " bytes";
  if (e.rbytes != 0 && e.rbytes != e.bytes) t += " (receiving " + std::to_string(e.rbytes) + ")";
  return t;
}

// Rank r's entry for collective `seq` of c disagrees with this rank's: fail c's collectives.
void fail(core::comm* c, uint64_t seq, const shm::region::log_entry& mine, int r,
          const shm::region::log_entry& theirs) {
  const decoded m = decode(mine), t = decode(theirs);
  const std::string where = "collective " + std::to_string(seq) + " on " +
                            (c->name.empty() ? "the communicator of context " + std::to_string(c->ctx) : c->name);
  const char* mname = coll_name(m.kind);
  const char* tname = coll_name(t.kind);
  core::errc e;
  std::string why;
  if (m.kind != t.kind) {
    e = core::errc::other;
    why = where + ": this rank called " + mname + ", rank " + std::to_string(r) + " called " + tname +
          "; every rank must call a communicator's collectives in the same order";
  } else if (m.root != t.root) {
    e = core::errc::root;
    why = where + ": " + mname + " with root " + std::to_string(m.root) + " here but root " + std::to_string(t.root) +
          " on rank " + std::to_string(r) + "; every rank must name the same root";
  } else {
    const bool bytes_differ = mine.bytes != theirs.bytes || mine.rbytes != theirs.rbytes;
    e = bytes_differ ? core::errc::truncate : core::errc::type;
    why = where + ": " + mname + " of " + bytes_text(mine) + " here (algorithm " + (m.al ? m.al->name : "?") +
          ") but " + bytes_text(theirs) + " on rank " + std::to_string(r) + " (algorithm " +
          (t.al ? t.al->name : "?") + "): the ranks' " + (bytes_differ ? "counts or datatypes" : "datatypes") +
          " disagree, so they selected algorithms that cannot meet";
  }
  c->coll_failed = e;
  c->coll_failed_why = why;
  c->coll_shm_state = shm::state_failed;  // cached plans miss, and prepare() refuses
  (void)core::error_set(e, "%s", why.c_str());
  runs_fail(c, e);
}

// The stall checker: compares this rank's log on every logged communicator, over its last
// check_window collectives, with its peers' logs.
constexpr uint64_t check_window = 64;
bool check_logs() {
  std::lock_guard<std::mutex> lk(g_m);
  bool changed = false;
  shm::region::log_snapshot mine, theirs;
  for (core::comm* c : logged()) {
    const shm::region* g = shm::region_of(c);
    if (c->coll_failed != core::errc::success || g == nullptr || !g->logs || !g->log_read(g->me, &mine)) continue;
    const uint64_t hi = mine.position;
    const uint64_t lo = hi > check_window ? hi - check_window : 0;
    for (int r = 0; r < g->n && c->coll_failed == core::errc::success; ++r) {
      if (r == g->me || !g->log_read(r, &theirs)) continue;  // (being written: the next check)
      const uint64_t end = std::min(hi, theirs.position);
      for (uint64_t s = lo; s < end; ++s) {
        const shm::region::log_entry* m = mine.at(s);
        const shm::region::log_entry* t = theirs.at(s);
        if (m == nullptr || t == nullptr || m->what == t->what) continue;
        fail(c, s, *m, r, *t);
        changed = true;
        break;
      }
    }
  }
  return changed;
}
}  // namespace

void log_register(core::comm* c) {
  static const bool registered = [] {
    core::stall_add_checker(check_logs);
    return true;
  }();
  (void)registered;
  std::lock_guard<std::mutex> lk(g_m);
  logged().push_back(c);
}

void log_unregister(core::comm* c) {
  if (shm::region* g = shm::region_of(c); g && g->log_plan) {
    static_cast<const plan*>(g->log_plan)->release();
    g->log_plan = nullptr;
  }
  std::lock_guard<std::mutex> lk(g_m);
  auto& v = logged();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == c) {
      v[i] = v.back();
      v.pop_back();
      return;
    }
}

void log_start(shm::region* g, uint64_t seq, const coll_args& a, const plan* p) {
  // A reference keeps the plan, and so its address, from being reused for other arguments.
  p->retain();
  if (g->log_plan) static_cast<const plan*>(g->log_plan)->release();
  g->log_plan = p;
  const uint64_t what = uint64_t(a.kind) | uint64_t(p->al - algorithms_begin()) << 8 | uint64_t(uint32_t(a.root)) << 32;
  const int64_t bytes = a.type ? a.count * int64_t(a.type->size()) : 0;
  const int64_t rbytes = a.rtype ? a.rcount * int64_t(a.rtype->size()) : 0;
  g->log_start(seq, what, bytes, rbytes);
}

}  // namespace baton::coll
