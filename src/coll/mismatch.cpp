#include "coll/mismatch.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "coll/shm_region.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/request.hpp"
#include "core/stall.hpp"
#include "p2p/p2p.hpp"

namespace baton::coll {

namespace {
// The logged communicators. Checks hold the lock throughout, so a communicator being destroyed in
// another thread (log_unregister) stays whole while it is read.
struct logged_comm {
  core::comm* c;
  uint64_t stuck_at = 0;  // this rank's position at the last checks, and how many saw it
  int stuck_checks = 0;
};
// Bytes that differ where every rank must pass the same fail the communicator only once this
// rank has stood at that collective, its last, for this many checks (0.5 s): runs of one
// algorithm usually still meet, the data then reports the truncation, and the communicator keeps
// working; only a run whose message pattern depends on the size (a pipeline's chunks) never ends.
constexpr int stuck_checks_for_bytes = 5;
std::mutex g_m;
std::vector<logged_comm>& logged() {
  static auto* v = new std::vector<logged_comm>;  // never destroyed: waits may run at exit
  return *v;
}

struct decoded {
  coll_kind kind;
  const algorithm* al;
  int root;
};
decoded decode(const log_entry& e) {
  const auto kind = coll_kind(e.what & 0xff);
  const size_t idx = size_t((e.what >> 8) & 0xffff);
  const size_t n = size_t(algorithms_end() - algorithms_begin());
  return {kind, idx < n ? algorithms_begin() + idx : nullptr, int(int32_t(uint32_t(e.what >> 32)))};
}

std::string bytes_text(const log_entry& e) {
  std::string t = std::to_string(e.bytes) + " bytes";
  if (e.rbytes != 0 && e.rbytes != e.bytes) t += " (receiving " + std::to_string(e.rbytes) + ")";
  return t;
}

// The bytes every rank of a collective must pass alike (its type signature: the message of a
// bcast or reduction, the block of an allgather or alltoall), or -1 where they may differ (rooted
// gathers and scatters, vector forms). Ranks stalled in a collective whose plans, of one algorithm,
// depend on this size (a pipeline's chunks) wait for each other forever.
int64_t agreed_bytes(const log_entry& e) {
  switch (coll_kind(e.what & 0xff)) {
    case coll_kind::bcast:
    case coll_kind::reduce:
    case coll_kind::allreduce:
    case coll_kind::reduce_scatter_block:
    case coll_kind::scan:
    case coll_kind::exscan:
      return e.bytes;
    case coll_kind::allgather:
    case coll_kind::alltoall:
      return e.rbytes;
    default:
      return -1;
  }
}

std::string where_text(const core::comm* c, uint64_t seq) {
  return "collective " + std::to_string(seq) + " on " +
         (c->name.empty() ? "the communicator of context " + std::to_string(c->ctx) : c->name);
}

// Fails c's collectives (engine lock held): the verdict goes into the rank's log, where its peers
// find it (and fail theirs: a peer whose own part finished would otherwise wait at its next
// collective for a rank that refuses it).
void settle(core::comm* c, uint64_t seq, core::errc e, const std::string& why) {
  c->coll_failed = e;
  c->coll_failed_why = why;
  c->coll_shm_state = shm::state_failed;  // cached plans miss, and prepare() refuses
  cache_forget();  // (an intercommunicator's plans are cached under it, not its bridge)
  if (shm::region* g = shm::region_of(c))
    g->log.failed().store((seq + 1) | uint64_t(uint32_t(e)) << 48, std::memory_order_release);
  (void)core::error_set(e, "%s", why.c_str());
  runs_fail(c, e);
}

// Rank r's entry for collective `seq` of c disagrees with this rank's: fail c's collectives.
void fail(core::comm* c, uint64_t seq, const log_entry& mine, int r, const log_entry& theirs) {
  const decoded m = decode(mine), t = decode(theirs);
  const std::string where = where_text(c, seq);
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
    const std::string how = m.al == t.al ? "so their runs of that algorithm cannot meet"
                                         : "so they selected algorithms that cannot meet";
    why = where + ": " + mname + " of " + bytes_text(mine) + " here (algorithm " + (m.al ? m.al->name : "?") +
          ") but " + bytes_text(theirs) + " on rank " + std::to_string(r) + " (algorithm " +
          (t.al ? t.al->name : "?") + "): the ranks' " + (bytes_differ ? "counts or datatypes" : "datatypes") +
          " disagree, " + how;
  }
  settle(c, seq, e, why);
}

// The stall checker: compares this rank's log on every logged communicator, over its last
// check_window collectives, with its peers' logs in the region.
constexpr uint64_t check_window = 64;
bool check_logs() {
  std::lock_guard<std::mutex> lk(g_m);
  bool changed = false;
  log_snapshot mine, theirs;
  for (logged_comm& l : logged()) {
    core::comm* c = l.c;
    const shm::region* g = shm::region_of(c);  // (mapped while c is in the list: log_unregister)
    if (c->coll_failed != core::errc::success || !log_read(g->log.block, &mine)) continue;
    l.stuck_checks = mine.position == l.stuck_at ? l.stuck_checks + 1 : 0;
    l.stuck_at = mine.position;
    const uint64_t hi = mine.position;
    const uint64_t lo = hi > check_window ? hi - check_window : 0;
    for (int r = 0; r < c->size && c->coll_failed == core::errc::success; ++r) {
      if (r == c->rank) continue;
      if (!log_read(g->log_block(r), &theirs)) continue;  // being written: the next check
      if (theirs.failed != 0) {
        // The peer failed the communicator: so does this rank, with its class.
        const uint64_t s = (theirs.failed & ((uint64_t(1) << 48) - 1)) - 1;
        const auto e = core::errc(int(theirs.failed >> 48));
        settle(c, s, e,
               where_text(c, s) + ": rank " + std::to_string(r) +
                   " found that the ranks' calls disagree there (its error says how), and the communicator's "
                   "collectives cannot go on");
        changed = true;
        break;
      }
      const uint64_t end = std::min(hi, theirs.position);
      for (uint64_t s = lo; s < end; ++s) {
        const log_entry* m = mine.at(s);
        const log_entry* t = theirs.at(s);
        if (m == nullptr || t == nullptr) continue;
        const bool differ = m->what != t->what ||
                            (agreed_bytes(*m) != agreed_bytes(*t) && s + 1 == hi && l.stuck_checks >= stuck_checks_for_bytes);
        if (!differ) continue;
        fail(c, s, *m, r, *t);
        changed = true;
        break;
      }
    }
  }
  return changed;
}

}  // namespace

namespace {
const core::datatype* byte_type() { return core::predefined_datatype(0x247); }
void on_taken(core::request* q) { core::request_delete(q); }

// Takes a message waiting whole on context ctx with a receive of no room: the engine completes it
// at once (eager) or after fetching nothing (rendezvous), so its sender's call completes.
void take(core::comm* c, uint32_t ctx, int src, int tag) {
  (void)p2p::start_internal(core::req_kind::recv, nullptr, 0, byte_type(), src, tag, c, ctx, on_taken, nullptr, 0);
}

// Takes the messages waiting on context ctx for collective `bits`: no later communicator on the
// context finds them.
void discard(core::comm* c, uint32_t ctx, uint32_t bits) {
  for (const p2p::waiting_message& m : p2p::unexpected_on(ctx))
    if (m.tag >= 0 && ((uint32_t(m.tag) >> 12) & 0x3ffff) == bits) take(c, ctx, m.src, m.tag);
}

uint64_t members_hash(const core::comm* c) {
  return core::fnv1a(c->world.data(), c->world.size() * sizeof(int), core::fnv_offset);
}

// The control messages between the ranks of a communicator without a region (schedule.hpp:
// verdict_tag, probe_tag), 32 bytes on its collective context. Each names the members (a hash of
// their world ranks), so that one still in flight when its communicator was freed is not taken for
// another one's.
//   verdict: the sender failed the communicator at collective `seq` with class `error`;
//   probe: the sender waits at collective `seq` (tags `tag_prefix`) for this rank's `ordinal`.
struct verdict {
  uint64_t magic = 0x5645524449435431ull;  // "VERDICT1"
  uint64_t seq = 0;
  uint64_t members = 0;
  int32_t error = 0;
  int32_t pad = 0;
};
struct probe {
  uint64_t magic = 0x50524f4245303031ull;  // "PROBE001"
  uint64_t seq = 0;
  uint64_t members = 0;
  int32_t tag_prefix = 0;
  uint32_t ordinal = 0;
};

template <class T>
void on_control_sent(core::request* q) {
  delete static_cast<T*>(q->ext);
  core::request_delete(q);
}
template <class T>
void send_control(core::comm* c, int peer, int tag, T* m) {
  m->members = members_hash(c);
  (void)p2p::start_internal(core::req_kind::send, m, int64_t(sizeof *m), byte_type(), peer, tag, c, c->ctx + 1,
                            on_control_sent<T>, m, 0);
}
// Reads waiting message m as a T for c (false: not one, or for other members).
template <class T>
bool read_control(const core::comm* c, const p2p::waiting_message& m, T* out) {
  if (m.data == nullptr || m.len != sizeof(T)) return false;
  std::memcpy(out, m.data, sizeof(T));
  return out->magic == T{}.magic && out->members == members_hash(c);
}

// Tells every other rank of c that this one failed c at collective seq.
void send_verdicts(core::comm* c, uint64_t seq, core::errc e) {
  for (int r = 0; r < c->size; ++r) {
    if (r == c->rank) continue;
    auto* v = new verdict;
    v->seq = seq;
    v->error = int32_t(e);
    send_control(c, r, verdict_tag, v);
  }
}

// Asks every rank that a stalled run of this rank waits for whether it will ever send.
void send_probes() {
  for (const waiting_for& w : runs_to_probe()) {
    auto* m = new probe;
    m->seq = w.seq;
    m->tag_prefix = w.tag_prefix;
    m->ordinal = w.ordinal;
    send_control(w.c, w.peer, probe_tag, m);
  }
}

// Answers the probes waiting for c: one for a collective this rank has not reached stays; one whose
// message this rank's call sends (or sent) goes; one whose message its call never sends fails c.
// Returns true if c failed.
bool answer_probes(core::comm* c) {
  const uint32_t ctx = c->ctx + 1;
  for (const p2p::waiting_message& m : p2p::unexpected_on(ctx)) {
    if (m.tag != probe_tag) continue;
    probe pr;
    const probe_answer a = read_control(c, m, &pr) ? runs_answer_probe(c, pr.seq, pr.tag_prefix, m.src, pr.ordinal)
                                                   : probe_answer::sends;
    if (a == probe_answer::not_reached) continue;
    take(c, ctx, m.src, probe_tag);
    if (a == probe_answer::sends) return answer_probes(c);  // the list changed
    const std::string why = where_text(c, pr.seq) + ": rank " + std::to_string(m.src) + " waits there for a message " +
                            "that this rank's call never sends: the ranks' calls disagree (counts or datatypes that " +
                            "select other algorithms, other roots, or other collectives at this point)";
    settle(c, pr.seq, core::errc::truncate, why);
    discard(c, ctx, uint32_t(pr.tag_prefix >> 12) & 0x3ffff);
    send_verdicts(c, pr.seq, core::errc::truncate);
    return true;
  }
  return false;
}

// Takes the verdicts waiting for c that are due. Returns true if one failed c: it is for this
// communicator (its members) and this rank waits at that collective or at most 64 later (a peer
// whose own part had finished waits at its next collective there for the rank that refuses it).
// One for a collective this rank has not reached waits; one of other members, or far behind, goes.
bool take_verdicts(core::comm* c, uint64_t waiting_seq) {
  const uint32_t ctx = c->ctx + 1;
  for (const p2p::waiting_message& m : p2p::unexpected_on(ctx)) {
    if (m.tag != verdict_tag) continue;
    verdict v;
    const bool ours = read_control(c, m, &v);
    if (ours && waiting_seq < v.seq) continue;
    take(c, ctx, m.src, verdict_tag);
    if (!ours || waiting_seq - v.seq > 64) return take_verdicts(c, waiting_seq);  // the list changed
    settle(c, v.seq, core::errc(v.error),
           where_text(c, v.seq) + ": rank " + std::to_string(m.src) +
               " found that the ranks' calls disagree there (its error says how), and the communicator's collectives "
               "cannot go on");
    return true;
  }
  return false;
}
}  // namespace

bool check_strays() {
  // Verdicts first: the peer that sent one knows how the calls disagree; then the peers' probes.
  for (const pending_collective& p : runs_pending())
    if (take_verdicts(p.c, p.seq) || answer_probes(p.c)) return true;
  stray_message m;
  if (!runs_find_stray(&m)) {
    send_probes();
    return false;
  }
  core::comm* c = m.c;
  const uint64_t seq = m.seq;
  const uint32_t bits = uint32_t(m.tag_prefix >> 12) & 0x3ffff;
  const algorithm* al = m.p ? m.p->al : nullptr;
  const std::string mine = std::string(al ? coll_name(al->kind) : "collective") + " (algorithm " +
                           (al ? al->name : "?") + ")";
  const std::string from = "rank " + std::to_string(m.src);
  const char* disagree = "the ranks' calls disagree (counts or datatypes that select other algorithms, other roots, "
                         "or other collectives at this point)";
  const bool nb_mine = (m.tag_prefix & (1 << 30)) != 0, nb_theirs = (m.tag & (1 << 30)) != 0;
  core::errc e = core::errc::truncate;
  std::string why = where_text(c, seq) + ": ";
  if (m.finished) {
    why += from + " sent a message of " + std::to_string(m.len) + " bytes for it after this rank's call had taken " +
           "all it expected and returned: " + disagree;
  } else if (m.moved_on) {
    why += "this rank's " + mine + " waits for " + std::to_string(m.room) + " bytes from " + from +
           ", which has gone on to later collectives without sending them: " + disagree;
  } else if (nb_mine != nb_theirs) {
    e = core::errc::other;
    why += from + " called a " + (nb_theirs ? "nonblocking" : "blocking") + " collective where this rank called a " +
           (nb_mine ? "nonblocking " : "blocking ") + mine +
           "; blocking and nonblocking collectives never match each other";
  } else if (m.room < 0) {
    why += from + " sent a message of " + std::to_string(m.len) + " bytes that this rank's " + mine +
           " has no receive for: " + disagree;
  } else {
    why += from + " sent " + std::to_string(m.len) + " bytes where this rank's " + mine + " receives " +
           std::to_string(m.room) + ": the ranks' counts or datatypes disagree";
  }
  settle(c, seq, e, why);
  discard(c, m.ctx, uint32_t(bits));
  if (shm::region_of(c) == nullptr) send_verdicts(c, seq, e);
  return true;
}

void log_register(core::comm* c) {
  static const bool registered = [] {
    core::stall_add_checker(check_logs);
    return true;
  }();
  (void)registered;
  std::lock_guard<std::mutex> lk(g_m);
  logged().push_back(logged_comm{c});
}

void log_unregister(core::comm* c) {
  std::lock_guard<std::mutex> lk(g_m);  // a check may be reading c (without the engine lock here)
  log_writer& w = shm::region_of(c)->log;
  if (w.plan) static_cast<const plan*>(w.plan)->release();
  w.plan = nullptr;
  auto& v = logged();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].c == c) {
      v[i] = v.back();
      v.pop_back();
      return;
    }
}

void log_start(log_writer* w, uint64_t seq, const coll_args& a, const plan* p) {
  // A reference keeps the plan, and so its address, from being reused for other arguments.
  p->retain();
  if (w->plan) static_cast<const plan*>(w->plan)->release();
  w->plan = p;
  const uint64_t what = uint64_t(a.kind) | uint64_t(p->al - algorithms_begin()) << 8 | uint64_t(uint32_t(a.root)) << 32;
  const int64_t bytes = a.type ? a.count * int64_t(a.type->size()) : 0;
  const int64_t rbytes = a.rtype ? a.rcount * int64_t(a.rtype->size()) : 0;
  w->start(seq, what, bytes, rbytes);
}

}  // namespace baton::coll
