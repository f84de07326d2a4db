// Context ids: the nonblocking agreement that picks a context pair free on every member of a new
// communicator (see comm.hpp for the protocol; the process's free mask is core's, core/context.cpp).
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "coll/schedule.hpp"
#include "comm/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::comm {

using namespace core;

namespace {

// Words [0, eager_words) are the eager portion (first round), the rest the main portion.
constexpr int eager_words = core::context_eager_words;

const datatype* byte_type() { return predefined_datatype(0x247); }

// ---- the agreement ----

constexpr int32_t result_retry = -1;
constexpr int32_t result_exhausted = -2;
constexpr uint64_t owns_main = 1, owns_eager = 2;

// One contribution: ownership flags, then the free mask of the portions owned (zeros elsewhere).
struct contribution {
  uint64_t flags;
  uint64_t mask[context_words];
};

}  // namespace

struct context_agreement {
  enum class phase : uint8_t { due, exchanging, gathering, broadcasting };
  comm* parent = nullptr;    // retained until the agreement finishes
  std::vector<int> members;  // parent ranks; members[0] decides
  int me = 0;
  int tag = 0;
  std::pair<uint64_t, uint64_t> key;  // priority in the main rounds (the same on every member)
  int round = 0;             // 0: the eager round; 1, 2, ...: main rounds
  phase ph = phase::due;
  uint64_t owned = 0;        // owns_main | owns_eager, held for the current round
  int outstanding = 0;       // internal requests of the current phase still in flight
  bool queued = false;
  bool in_main_set = false;
  bool finished = false;
  errc error = errc::success;
  int32_t result = result_retry;
  uint32_t ctx = context_none;
  contribution mine{};
  std::vector<contribution> all;  // root: one per member
  void (*on_done)(context_agreement*) = nullptr;  // runs at the end (engine lock held); may delete
  void* user = nullptr;
};

namespace {

struct key_less {
  bool operator()(const context_agreement* a, const context_agreement* b) const {
    return a->key != b->key ? a->key < b->key : a < b;
  }
};

// Everything below runs with the engine lock held (agreement_start takes it; request callbacks and
// the poller run under it).
std::set<context_agreement*, key_less> g_main_phase;  // agreements in their main rounds, by key
context_agreement* g_eager_owner = nullptr;
context_agreement* g_main_owner = nullptr;
std::vector<context_agreement*> g_ready;
bool g_registered = false;

void queue(context_agreement* a) {
  if (a->queued) return;
  a->queued = true;
  g_ready.push_back(a);
}

// Request callbacks only count and queue; the poller does the work.
void on_request_done(request* q) {
  auto* a = static_cast<context_agreement*>(q->ext);
  if (q->status.error != errc::success && a->error == errc::success) a->error = q->status.error;
  request_delete(q);
  if (--a->outstanding == 0) queue(a);
}

void take_ownership(context_agreement* a) {
  a->owned = 0;
  if (a->round == 0) {
    if (g_eager_owner == nullptr) {
      g_eager_owner = a;
      a->owned = owns_eager;
    }
    return;
  }
  // Main rounds: only this process's highest-priority agreement in its main rounds may take the
  // main portion, so the globally highest one soon owns it on all its members in the same round.
  if (g_main_owner == nullptr && *g_main_phase.begin() == a) {
    g_main_owner = a;
    a->owned = owns_main;
    if (g_eager_owner == nullptr) {
      g_eager_owner = a;
      a->owned |= owns_eager;
    }
  }
}

void drop_ownership(context_agreement* a) {
  if (g_eager_owner == a) g_eager_owner = nullptr;
  if (g_main_owner == a) g_main_owner = nullptr;
  a->owned = 0;
}

void fill_contribution(context_agreement* a) {
  std::memset(&a->mine, 0, sizeof a->mine);
  a->mine.flags = a->owned;
  if (a->owned & owns_eager) context_mask_read(0, eager_words, a->mine.mask);
  if (a->owned & owns_main) context_mask_read(eager_words, context_words - eager_words, a->mine.mask + eager_words);
}

// Root: the decision of one round from every member's contribution.
int32_t decide(const context_agreement* a) {
  uint64_t flags = owns_main | owns_eager;
  for (const contribution& c : a->all) flags &= c.flags;
  const bool main_round = a->round > 0;
  if (main_round ? !(flags & owns_main) : !(flags & owns_eager)) return result_retry;
  const int first = (flags & owns_eager) ? 0 : eager_words;
  const int last = main_round ? context_words : eager_words;
  for (int w = first; w < last; ++w) {
    uint64_t m = ~0ull;
    for (const contribution& c : a->all) m &= c.mask[w];
    if (m) return int32_t(w * 64 + __builtin_ctzll(m));
  }
  // Nothing in common: the eager round moves on to the main rounds; a main round that saw every
  // member's whole mask has proved that no pair is free on all of them.
  if (main_round && (flags & owns_eager)) return result_exhausted;
  return result_retry;
}

void finish(context_agreement* a) {
  drop_ownership(a);
  if (a->in_main_set) {
    g_main_phase.erase(a);
    a->in_main_set = false;
  }
  --a->parent->coll_pending;
  a->parent->release();
  a->parent = nullptr;
  a->finished = true;
  const bool kick = rt().threaded;
  if (a->on_done) a->on_done(a);  // may delete a
  if (kick) progress_kick();      // another thread may sleep waiting for it
}

// Applies a round's result on this member (a chosen pair was free in the portion it owned).
void apply(context_agreement* a, int32_t result) {
  if (a->error != errc::success) {
    finish(a);
    return;
  }
  if (result >= 0) {
    a->ctx = uint32_t(result) * 2;
    context_reserve(a->ctx);
    finish(a);
    return;
  }
  if (result == result_exhausted) {
    a->error = error_set(errc::intern, "out of communicator context ids (%d pairs, none free on every member)",
                         context_words * 64);
    finish(a);
    return;
  }
  drop_ownership(a);
  if (a->round == 0) {
    g_main_phase.insert(a);
    a->in_main_set = true;
  }
  ++a->round;
  a->ph = context_agreement::phase::due;
  queue(a);  // the next round starts from the poller, after the others had their turn
}

void start_round(context_agreement* a) {
  take_ownership(a);
  fill_contribution(a);
  const int n = int(a->members.size());
  if (n == 1) {
    a->all.assign(1, a->mine);
    apply(a, decide(a));
    return;
  }
  const datatype* bt = byte_type();
  comm* p = a->parent;
  const uint32_t cctx = p->ctx + 1;
  // Every round uses the same tag: messages between two ranks on one (context, tag) match in the
  // order they were sent, and each side posts round r+1 only after round r is over.
  if (a->me == 0) {
    a->ph = context_agreement::phase::gathering;
    a->all.resize(size_t(n));
    a->all[0] = a->mine;
    a->outstanding = n - 1;
    for (int i = 1; i < n; ++i)
      (void)p2p::start_internal(req_kind::recv, &a->all[size_t(i)], int64_t(sizeof(contribution)), bt,
                                a->members[size_t(i)], a->tag, p, cctx, on_request_done, a, 0);
    return;
  }
  a->ph = context_agreement::phase::exchanging;
  a->outstanding = 2;
  (void)p2p::start_internal(req_kind::recv, &a->result, int64_t(sizeof a->result), bt, a->members[0], a->tag, p,
                            cctx, on_request_done, a, 0);
  (void)p2p::start_internal(req_kind::send, &a->mine, int64_t(sizeof a->mine), bt, a->members[0], a->tag, p, cctx,
                            on_request_done, a, 1);
}

// Moves an agreement on once the requests of its current phase are done (or a round is due).
void advance(context_agreement* a) {
  a->queued = false;
  if (a->outstanding > 0) return;
  switch (a->ph) {
    case context_agreement::phase::due:
      start_round(a);
      return;
    case context_agreement::phase::exchanging:
      apply(a, a->result);
      return;
    case context_agreement::phase::gathering: {
      if (a->error != errc::success) {
        finish(a);
        return;
      }
      a->result = decide(a);
      a->ph = context_agreement::phase::broadcasting;
      const int n = int(a->members.size());
      a->outstanding = n - 1;
      for (int i = 1; i < n; ++i)
        (void)p2p::start_internal(req_kind::send, &a->result, int64_t(sizeof a->result), byte_type(),
                                  a->members[size_t(i)], a->tag, a->parent, a->parent->ctx + 1, on_request_done, a,
                                  1);
      return;
    }
    case context_agreement::phase::broadcasting:
      apply(a, a->result);
      return;
  }
}

bool agree_poll() {
  if (g_ready.empty()) return false;
  std::vector<context_agreement*> batch;
  batch.swap(g_ready);
  for (context_agreement* a : batch) advance(a);
  return true;
}

// Starts an agreement over `members` (parent ranks, the caller among them at index me). Engine
// lock held. The agreement finishes from the poller; on_done then runs.
context_agreement* agreement_start(comm* parent, std::vector<int> members, int me, int tag,
                                   void (*on_done)(context_agreement*), void* user) {
  if (!g_registered) {
    progress_add_poller(agree_poll);
    g_registered = true;
  }
  auto* a = new context_agreement;
  parent->retain();
  ++parent->coll_pending;
  a->parent = parent;
  a->members = std::move(members);
  a->me = me;
  a->tag = tag;
  a->key = {parent->ctx, uint64_t(uint32_t(tag))};
  a->on_done = on_done;
  a->user = user;
  start_round(a);
  progress_new_work();
  return a;
}

// ---- MPI_Comm_idup ----

errc idup_refuse_free(request*) {
  return error_set(errc::request, "an MPI_Comm_idup request cannot be freed; complete it with a wait or test");
}
errc idup_refuse_cancel(request*) {
  return error_set(errc::request, "an MPI_Comm_idup request cannot be cancelled");
}
const request_ops idup_request_ops{idup_refuse_free, idup_refuse_cancel, nullptr, nullptr};

struct idup_state {
  comm* newcomm;
  request* user;
  comm* inter;  // the new intercommunicator whose bridge newcomm is (nullptr for an intracommunicator)
};

void idup_done(context_agreement* a) {
  auto* st = static_cast<idup_state*>(a->user);
  request* u = st->user;
  u->status = req_status{};
  u->status.error = a->error;
  if (a->error == errc::success) st->newcomm->ctx = a->ctx;
  if (st->inter) {
    if (a->error == errc::success) st->inter->ctx = a->ctx;
    st->inter->release();
  }
  st->newcomm->release();
  delete st;
  delete a;
  if (u->user_freed)
    request_delete(u);  // the caller gave up on it (comm_idup_abandon)
  else
    u->mark_complete();
}

}  // namespace

errc comm_agree_context_among(comm* parent, const std::vector<int>& members, int tag, uint32_t* ctx) {
  int me = -1;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == parent->rank) me = int(i);
  if (me < 0) return error_set(errc::intern, "context agreement by a rank that is not a member");
  engine_guard g;
  context_agreement* a = agreement_start(parent, members, me, tag, nullptr, nullptr);
  progress_wait(g, [a] { return a->finished; });
  const errc e = a->error;
  *ctx = a->ctx;
  delete a;
  return e;
}

errc comm_agree_context(comm* parent, uint32_t* ctx) {
  std::vector<int> all(size_t(parent->size));
  for (int r = 0; r < parent->size; ++r) all[size_t(r)] = r;
  return comm_agree_context_among(parent, all, coll::make_tag_prefix(parent->coll_seq++, false), ctx);
}

comm* comm_idup_prepare(comm* parent) {
  if (parent->inter) return intercomm_idup_prepare(parent);
  return comm_copy(parent, core::context_none);
}

errc comm_idup(comm* parent, comm* c, request** req) {
  request* u = request_new(req_kind::coll);
  u->ops = &idup_request_ops;
  u->c = nullptr;
  u->active = true;
  // An intercommunicator: the agreement runs over the bridge, for the new bridge; the new
  // intercommunicator gets the same context (see comm.hpp).
  comm* inter = nullptr;
  if (parent->inter) {
    inter = c;
    inter->retain();
    parent = parent->bridge;
    c = c->bridge;
  }
  c->retain();  // until the context is set
  auto* st = new idup_state{c, u, inter};
  std::vector<int> all(size_t(parent->size));
  for (int r = 0; r < parent->size; ++r) all[size_t(r)] = r;
  const int tag = coll::make_tag_prefix(parent->coll_seq++, true);
  *req = u;
  engine_guard g;
  (void)agreement_start(parent, std::move(all), parent->rank, tag, idup_done, st);
  return errc::success;
}

void comm_idup_abandon(request* req) {
  engine_guard g;
  if (req->is_complete())
    request_delete(req);
  else
    req->user_freed = true;
}

}  // namespace baton::comm
