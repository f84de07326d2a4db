#include "coll/coll.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>

#include "coll/algorithms/algorithms.hpp"
#include "coll/mismatch.hpp"
#include "coll/shm_region.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::coll {

namespace {
const algorithm g_algorithms[] = {
#define BATON_ALGORITHM(coll, name, fn, usable, preferred) {coll_kind::coll, #name, fn, usable, preferred, false},
#define BATON_INTER_ALGORITHM(coll, name, fn, usable, preferred) {coll_kind::coll, #name, fn, usable, preferred, true},
#include "coll/algorithms.def"
#undef BATON_INTER_ALGORITHM
#undef BATON_ALGORITHM
};

const char* const g_names[] = {
#define BATON_COLLECTIVE(name) #name,
#include "coll/collectives.def"
#undef BATON_COLLECTIVE
};

// BATON_<COLLECTIVE>_ALGORITHM for every collective, read once (by the first collective or MPI_T
// read, whichever comes first, from any thread).
struct env_choices {
  std::string of[size_t(coll_kind::count_)];
  env_choices() {
    for (size_t i = 0; i < size_t(coll_kind::count_); ++i) {
      std::string var = "BATON_";
      for (const char* c = g_names[i]; *c; ++c) var += char(std::toupper(static_cast<unsigned char>(*c)));
      var += "_ALGORITHM";
      if (const char* v = std::getenv(var.c_str())) of[i] = v;
    }
  }
};
}  // namespace

const char* algorithm_override(coll_kind k) {
  static const env_choices choices;
  const std::string& v = choices.of[size_t(k)];
  return v.empty() ? nullptr : v.c_str();
}

const char* coll_name(coll_kind k) { return g_names[size_t(k)]; }
const algorithm* algorithms_begin() { return g_algorithms; }
const algorithm* algorithms_end() { return g_algorithms + sizeof g_algorithms / sizeof g_algorithms[0]; }

namespace {
// The registry's lines per collective, in registry order (built once).
struct by_kind_table {
  std::vector<const algorithm*> lines[size_t(coll_kind::count_)];
  by_kind_table() {
    for (const algorithm* al = algorithms_begin(); al != algorithms_end(); ++al) lines[size_t(al->kind)].push_back(al);
  }
};
const std::vector<const algorithm*>& lines_of(coll_kind k) {
  static const by_kind_table table;
  return table.lines[size_t(k)];
}
}  // namespace

bool serves(const algorithm* al, const coll_args& a) { return al->inter == a.c->inter; }

core::comm* run_comm(const coll_args& a) { return a.c->inter ? a.c->bridge : a.c; }

errc build_plan(const coll_args& a, const algorithm* al, plan** out) {
  auto* p = new plan;
  builder b(*p);
  if (errc e = al->build(a, b); e != errc::success) {
    p->release();
    return e;
  }
  b.finish();
  p->al = al;
  *out = p;
  return errc::success;
}

const algorithm* select(const coll_args& a) {
  const algorithm* first_usable = nullptr;
  const std::vector<const algorithm*>& lines = lines_of(a.kind);
  if (const char* want = algorithm_override(a.kind)) {
    for (const algorithm* al : lines)
      if (serves(al, a) && std::strcmp(al->name, want) == 0 && al->usable(a)) return al;
  }
  for (const algorithm* al : lines) {
    if (!serves(al, a) || !al->usable(a)) continue;
    if (al->preferred(a)) return al;
    if (!first_usable) first_usable = al;
  }
  return first_usable;
}

namespace {
// The schedule cache: a repeated collective with the same arguments (communicator, counts, types,
// op, root, in-place, algorithm) reuses its plan instead of building it again. Buffers are not
// part of a plan (slots are bound per run), so they are not part of the key. Plans hold references
// on their types and op, so those addresses cannot be reused while a plan is cached. Vector forms
// are not cached.
struct cache_key {
  coll_kind kind;
  const core::comm* c;
  uint32_t ctx;
  int rank, size;
  // An intercommunicator's plan also depends on its local group's size and where both groups sit
  // in its bridge: a freed intercommunicator's address and context may come back for another one
  // with the same rank and remote size (a barrier then ran a stale plan and hung).
  int local_size, bridge_local, bridge_remote;
  int64_t count, rcount;
  const core::datatype *type, *rtype;
  const core::op* op;
  int root;
  bool in_place;
  const algorithm* al;
  bool operator==(const cache_key&) const = default;
};

struct cache_entry {
  cache_key key;
  const plan* p;
  uint64_t used;
  uint8_t shm_state;  // the state of the communicator's shared-memory region when key.al was selected
};

constexpr size_t cache_capacity = 64;
std::vector<cache_entry> g_cache;
uint64_t g_cache_clock = 0;

// Neighborhood collectives depend on the communicator's topology, which the key does not name.
bool cacheable(const coll_args& a) {
  return !a.scounts && !a.rcounts && !a.stypes && !a.rtypes && a.kind < coll_kind::neighbor_allgather;
}

cache_key key_of(const coll_args& a, const algorithm* al) {
  const core::comm* c = a.c;
  return cache_key{a.kind,           c,       c->ctx,   c->rank, c->size, c->local_size(), c->bridge_local,
                   c->bridge_remote, a.count, a.rcount, a.type,  a.rtype, a.op,            a.root,
                   a.in_place,       al};
}

// The entry each collective hit last: a loop repeating one call finds it at once.
size_t g_cache_hint[size_t(coll_kind::count_)] = {};

const plan* cache_find(const cache_key& k) {
  size_t& hint = g_cache_hint[size_t(k.kind)];
  if (hint < g_cache.size() && g_cache[hint].key == k) {
    g_cache[hint].used = ++g_cache_clock;
    return g_cache[hint].p;
  }
  for (size_t i = 0; i < g_cache.size(); ++i)
    if (g_cache[i].key == k) {
      g_cache[i].used = ++g_cache_clock;
      hint = i;
      return g_cache[i].p;
    }
  return nullptr;
}

void cache_insert(const cache_key& k, const plan* p) {
  if (g_cache.size() == cache_capacity) {
    auto lru = std::min_element(g_cache.begin(), g_cache.end(),
                                [](const cache_entry& x, const cache_entry& y) { return x.used < y.used; });
    lru->p->release();
    g_cache.erase(lru);
  }
  p->retain();
  g_cache.push_back(cache_entry{k, p, ++g_cache_clock, k.c->coll_shm_state});
  g_cache_hint[size_t(k.kind)] = g_cache.size() - 1;
}

// The entry this kind of collective used last, if the call repeats it: same arguments and the
// same state of the communicator's shared-memory region (the only state selection reads besides
// the arguments and the environment, which is read once), so select() would choose its
// algorithm again and can be skipped.
const plan* cache_repeat(const coll_args& a) {
  const size_t hint = g_cache_hint[size_t(a.kind)];
  if (hint >= g_cache.size()) return nullptr;
  cache_entry& e = g_cache[hint];
  if (e.shm_state != a.c->coll_shm_state || !(e.key == key_of(a, e.key.al))) return nullptr;
  e.used = ++g_cache_clock;
  return e.p;
}
}  // namespace

void cache_forget() {
  for (cache_entry& e : g_cache) e.p->release();
  g_cache.clear();
}

void cache_clear() {
  cache_forget();
  run_pool_clear();
  shm::region_release(core::rt().world);
}

namespace {
// Takes the collective's sequence number and finds or builds its plan (engine lock held). On
// success *out is the plan; *owned says whether the caller holds a reference to release. A cached
// plan is lent without one (the cache keeps it alive while the engine lock is held, and saving the
// two atomic operations shows on an 8-byte nonblocking collective); a caller that lets the lock go
// must take its own.
errc too_many_outstanding(const core::comm* rc) {
  return core::error_set(errc::other,
                         "%u collective operations are already outstanding on this communicator "
                         "(MPIX_ICOLL_MAX_OUTSTANDING); complete some first",
                         rc->coll_pending);
}

// `seq` is the collective's number on run_comm(a), taken by the caller: every rank consumes one
// per collective, whatever happens here (an intercommunicator's collectives consume its bridge's).
errc prepare(const coll_args& a, uint64_t seq, const plan** out, bool* owned) {
  core::comm* rc = run_comm(a);
  if (rc->coll_pending >= max_outstanding)
    return too_many_outstanding(rc);
  // What this rank selected goes into its log (src/coll/mismatch.cpp).
  shm::region* g = shm::region_of(rc);
  log_writer* lw = g != nullptr ? &g->log : nullptr;
  const bool use_cache = cacheable(a);
  if (use_cache) {
    if (const plan* p = cache_repeat(a)) {
      if (lw != nullptr) log_collective(lw, seq, a, p);
      *out = p;
      *owned = false;
      return errc::success;
    }
  }
  // (A failed communicator's cached plans miss: its region's state changed.)
  if (rc->coll_failed != errc::success) [[unlikely]]
    return core::error_set(rc->coll_failed,
                           "an earlier collective on this communicator failed, and its collectives cannot run "
                           "any more (point-to-point and MPI_Comm_dup still can): %s",
                           rc->coll_failed_why.c_str());
  const algorithm* al = select(a);
  if (!al)
    return core::error_set(errc::intern, "no %s algorithm can run these arguments", coll_name(a.kind));
  const cache_key key = key_of(a, al);
  const plan* p = use_cache ? cache_find(key) : nullptr;
  *owned = true;
  if (p) {
    g_cache[g_cache_hint[size_t(a.kind)]].shm_state = a.c->coll_shm_state;
    p->retain();
  } else {
    plan* fresh = nullptr;
    if (errc e = build_plan(a, al, &fresh); e != errc::success) return e;
    if (use_cache) cache_insert(key, fresh);
    p = fresh;
  }
  if (lw != nullptr) log_collective(lw, seq, a, p);
  *out = p;
  return errc::success;
}
}  // namespace

namespace {
// The calls made on a communicator while its region is being set up (shm::region_setup_start), in
// call order (engine lock). A nonblocking call whose selection may read the region is deferred:
// it holds a collective request that its run takes over once the setup is over here, when every
// rank selects with the same state. The vector forms have no shared-memory line, so their plans
// never depend on the region: they start at once and stay listed with their plan only to be
// logged in their place. Every rank so logs every collective from the first after the setup's
// own on (src/coll/mismatch.cpp reads a rank's log as holding each collective from its first
// entry on), whenever its setup ended.
struct setup_call {
  coll_args a;  // scalars only; the types and op retained, and the communicator
  uint64_t seq;
  bool nonblocking;
  core::request* u = nullptr;      // deferred: the call's request
  const plan* started = nullptr;   // started at once: its plan (retained)
};
std::vector<setup_call> g_setup_calls;

bool deferrable(const coll_args& a) {
  return a.scounts == nullptr && a.rcounts == nullptr && a.stypes == nullptr && a.rtypes == nullptr;
}

void note_call(const coll_args& a, uint64_t seq, bool nonblocking, core::request* u, const plan* started) {
  setup_call d{a, seq, nonblocking, u, started};
  d.a.scounts = d.a.sdispls = d.a.rcounts = d.a.rdispls = nullptr;
  d.a.stypes = d.a.rtypes = nullptr;
  if (a.type) a.type->retain();
  if (a.rtype) a.rtype->retain();
  if (a.op) a.op->retain();
  a.c->retain();
  g_setup_calls.push_back(d);
}

errc defer(const coll_args& a, uint64_t seq, bool nonblocking, core::request** out) {
  core::comm* rc = run_comm(a);
  if (rc->coll_pending >= max_outstanding)
    return too_many_outstanding(rc);
  ++rc->coll_pending;
  *out = coll_request_unattached();
  note_call(a, seq, nonblocking, *out, nullptr);
  return errc::success;
}

// `keep`: the plan, with a reference for the caller.
errc start_at(const coll_args& a, uint64_t seq, bool nonblocking, core::request** out, core::request* into = nullptr,
              const plan** keep = nullptr) {
  const plan* p = nullptr;
  bool owned = false;
  if (errc e = prepare(a, seq, &p, &owned); e != errc::success) return e;
  errc e = run_start(p, run_comm(a), a.sendbuf, a.recvbuf, make_tag_prefix(seq, nonblocking), out, 0, into);
  if (keep) {
    p->retain();
    *keep = p;
  }
  if (owned) p->release();  // the run holds its own reference
  return e;
}
}  // namespace

void start_deferred(core::comm* c) {
  // c's calls leave the list first (in order; the others keep theirs): a run started below may
  // complete inside, and its completion may lead to calls that land here.
  std::vector<setup_call> mine;
  size_t kept = 0;
  for (size_t i = 0; i < g_setup_calls.size(); ++i) {
    if (run_comm(g_setup_calls[i].a) == c)
      mine.push_back(g_setup_calls[i]);
    else
      g_setup_calls[kept++] = g_setup_calls[i];
  }
  g_setup_calls.resize(kept);
  bool started = false;
  for (const setup_call& d : mine) {
    if (d.started) {
      if (shm::region* g = shm::region_of(c)) log_collective(&g->log, d.seq, d.a, d.started);
      d.started->release();
    } else {
      --c->coll_pending;
      core::request* u = d.u;
      if (errc e = start_at(d.a, d.seq, d.nonblocking, &u, d.u); e != errc::success) coll_request_fail(d.u, e);
      started = true;
    }
    if (d.a.type) d.a.type->release();
    if (d.a.rtype) d.a.rtype->release();
    if (d.a.op) d.a.op->release();
    d.a.c->release();
  }
  // Waiters of those requests may sleep in other threads, and the progress thread may take runs over.
  if (started) core::progress_kick();
}

errc start_reserved(const coll_args& a, uint64_t seq, core::request** out) { return start_at(a, seq, true, out); }

errc start(const coll_args& a, bool nonblocking, core::request** out) {
  core::engine_guard g;
  core::comm* rc = run_comm(a);
  // The first collective on a communicator begins its region's setup (intercommunicators run on
  // their bridge, which has no region); calls made until it is over are listed (setup_call).
  if (rc->coll_shm_state <= shm::state_busy && !a.c->inter) [[unlikely]] {
    shm::region_setup_start(rc);
    if (rc->coll_shm_state == shm::state_busy) {
      const uint64_t seq = rc->coll_seq++;
      errc e = errc::success;
      if (deferrable(a)) {
        e = defer(a, seq, nonblocking, out);
      } else {
        const plan* p = nullptr;
        e = start_at(a, seq, nonblocking, out, nullptr, &p);
        if (p) note_call(a, seq, nonblocking, nullptr, p);
      }
      g.unlock();
      if (e == errc::success) core::progress_new_work();  // the setup's collectives, or this one
      return e;
    }
  }
  errc e = start_at(a, rc->coll_seq++, nonblocking, out);
  g.unlock();     // a progress thread woken now finds the lock free
  if (nonblocking && e == errc::success && !(*out)->is_complete()) core::progress_new_work();
  return e;
}

// Agreements (MPIX_Comm_agree, MPIX_Comm_iagree): the bitwise AND of one int over an
// intracommunicator, by recursive doubling on messages (never the shared-memory region, whose
// steps follow the communicator's collective order). They take a sequence of their own
// (comm::agree_seq) and match on a context of their own (ctx + agreement_ctx_offset), so
// agreements are ordered among themselves but not against the communicator's other collectives,
// as fault-tolerant agreements are (a rank may agree before a barrier that another enters first).
errc start_agreement(core::comm* c, int* flag, core::request** out) {
  if (c->inter)
    return core::error_set(errc::comm, "agreements run on intracommunicators only (this is an intercommunicator)");
  core::engine_guard g;
  coll_args a;
  a.kind = coll_kind::allreduce;
  a.c = c;
  a.in_place = true;
  a.recvbuf = flag;
  a.count = 1;
  a.type = core::predefined_datatype(0x209);  // MPI_INT
  a.op = core::predefined_op(core::op_kind::band);
  const algorithm* al = nullptr;
  for (const algorithm* line : lines_of(coll_kind::allreduce))
    if (std::strcmp(line->name, "recursive_doubling") == 0) al = line;
  if (!al) return core::error_set(errc::intern, "no recursive_doubling allreduce to agree with");
  plan* p = nullptr;
  if (errc e = build_plan(a, al, &p); e != errc::success) return e;
  errc e = run_start(p, c, nullptr, flag, make_tag_prefix(c->agree_seq++, true), out, c->ctx + agreement_ctx_offset);
  p->release();
  g.unlock();
  if (e == errc::success && !(*out)->is_complete()) core::progress_new_work();
  return e;
}

errc agree(core::comm* c, int* flag) {
  core::request* r = nullptr;
  if (errc e = start_agreement(c, flag, &r); e != errc::success) return e;
  {
    core::engine_guard g;
    core::progress_wait(g, [r] { return r->is_complete(); });
  }
  errc e = r->status.error;
  core::request_delete(r);
  return e;
}

errc run_blocking(const coll_args& a) {
  // The first collective on a communicator sets up its shared-memory region (collective; not for
  // intercommunicators: their plans run on the bridge, which needs no region); a blocking one
  // waits for the setup to end.
  if (!a.c->inter && a.c->coll_shm_state <= shm::state_busy) shm::region_setup(a.c);
  core::request* r = nullptr;
  {
    core::engine_guard g;
    const uint64_t seq = run_comm(a)->coll_seq++;
    const plan* p = nullptr;
    bool owned = false;
    if (errc e = prepare(a, seq, &p, &owned); e != errc::success) return e;
    // Waiting below lets the engine lock go; with other threads about, one of their collectives
    // could evict the plan from the cache meanwhile: hold a reference then.
    if (!owned && core::rt().threaded) {
      p->retain();
      owned = true;
    }
    if (p->runs_inline) {
      // A chain of local and shared-memory steps: run it here, without a run or a request.
      errc e = run_inline(p, run_comm(a), a.sendbuf, a.recvbuf, g);
      if (owned) p->release();
      return e;
    }
    errc e = run_start(p, run_comm(a), a.sendbuf, a.recvbuf, make_tag_prefix(seq, false), &r);
    if (owned) p->release();
    if (e != errc::success) return e;
    core::progress_wait(g, [r] { return r->is_complete(); });
  }
  errc e = r->status.error;
  core::request_delete(r);
  return e;
}

}  // namespace baton::coll
