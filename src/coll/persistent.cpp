#include "coll/persistent.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "coll/shm_region.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/info.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::coll {

namespace {

// Flag slots of a persistent operation's own region: a start may publish while peers still read
// the data of the previous three (a bcast root runs ahead of its receivers). Data that travels in
// the flag's cache line costs no buffer: 16 slots, so that readers store done every 8th start.
constexpr int persistent_shm_slots = 4;
constexpr int persistent_shm_slots_inline = 16;

// What a persistent collective request keeps (request::ext).
struct pcoll {
  run* r = nullptr;
  const algorithm* al = nullptr;
  core::comm* c = nullptr;  // the communicator the run is bound to (run_comm: an intercommunicator's
                            // bridge); held by the run
  uint32_t id = 0;
};

// ---- persistent ids: one bit per id in use on the communicator ----

bool id_live(const core::comm* c, uint32_t id) {
  const size_t w = id / 64;
  return w < c->pcoll_live.size() && (c->pcoll_live[w] >> (id % 64) & 1);
}
void id_set(core::comm* c, uint32_t id, bool on) {
  const size_t w = id / 64;
  if (w >= c->pcoll_live.size()) c->pcoll_live.resize(w + 1, 0);
  if (on)
    c->pcoll_live[w] |= uint64_t(1) << (id % 64);
  else
    c->pcoll_live[w] &= ~(uint64_t(1) << (id % 64));
}

// ---- request hooks ----

errc refuse_active_free(core::request* q) {
  if (q->active)
    return core::error_set(errc::request,
                           "an active persistent collective request cannot be freed: complete it first "
                           "(MPI_Wait, MPI_Test, ...)");
  return errc::success;
}

errc refuse_cancel(core::request*) {
  return core::error_set(errc::request, "a persistent collective operation cannot be cancelled");
}

// MPI_Start / MPI_Startall / queues (p2p::start marked the request active).
errc start(core::request* q) {
  core::engine_guard g;
  auto* pc = static_cast<pcoll*>(q->ext);
  if (pc->c->coll_pending >= max_outstanding) {
    q->active = false;
    return core::error_set(errc::other,
                           "%u collective operations are already outstanding on this communicator "
                           "(MPIX_ICOLL_MAX_OUTSTANDING); complete some first",
                           pc->c->coll_pending);
  }
  run_restart(pc->r);
  if (!q->is_complete()) core::progress_new_work();
  return errc::success;
}

// Request destruction (MPI_Request_free of an inactive request; the caller holds the engine lock).
void destroy(core::request* q) {
  auto* pc = static_cast<pcoll*>(q->ext);
  if (!pc) return;
  id_set(pc->c, pc->id, false);
  run_unbind(pc->r);
  delete pc;
  q->ext = nullptr;
}

// A waiter's fast path: the run's own shared-memory steps first, without polling everything.
bool try_finish(core::request* q) {
  auto* pc = static_cast<pcoll*>(q->ext);
  return pc && q->active && run_try_finish(pc->r);
}

const core::request_ops pcoll_ops{refuse_active_free, refuse_cancel, start, destroy, try_finish};

// ---- algorithm choice ----

// The line of a.kind named `name` that serves a's kind of communicator (serves()).
const algorithm* find_named(const coll_args& a, const std::string& name) {
  for (const algorithm* al = algorithms_begin(); al != algorithms_end(); ++al)
    if (al->kind == a.kind && serves(al, a) && name == al->name) return al;
  return nullptr;
}

std::string kind_key(coll_kind k) {
  return std::string("baton_") + coll_name(k) + "_algorithm";
}

// A name given for this one operation: it must exist and be usable.
errc named_for_operation(const coll_args& a, const std::string& key, const std::string& name, const algorithm** out) {
  const algorithm* al = find_named(a, name);
  if (!al) {
    std::string known;
    for (const algorithm* x = algorithms_begin(); x != algorithms_end(); ++x)
      if (x->kind == a.kind && serves(x, a)) known += std::string(known.empty() ? "" : ", ") + x->name;
    return core::error_set(errc::info_value, "info key \"%s\": %s has no %s algorithm \"%s\" (known: %s)",
                           key.c_str(), coll_name(a.kind), a.c->inter ? "intercommunicator" : "intracommunicator",
                           name.c_str(), known.c_str());
  }
  if (!al->usable(a))
    return core::error_set(errc::info_value, "info key \"%s\": the %s algorithm \"%s\" cannot run these arguments",
                           key.c_str(), coll_name(a.kind), name.c_str());
  *out = al;
  return errc::success;
}

errc choose(const coll_args& a, const core::info* info, const algorithm** out, bool* named) {
  *out = nullptr;
  *named = false;
  const std::string per_kind = kind_key(a.kind);
  if (info) {
    for (const char* key : {"baton_algorithm", per_kind.c_str()})
      if (const std::string* v = info->find(key)) {
        *named = true;
        return named_for_operation(a, key, *v, out);
      }
  }
  for (const auto& [key, value] : a.c->hints) {
    if (key != per_kind) continue;
    const algorithm* al = find_named(a, value);
    if (al && al->usable(a)) {
      *out = al;
      return errc::success;
    }
  }
  *out = select(a);
  if (!*out) return core::error_set(errc::intern, "no %s algorithm can run these arguments", coll_name(a.kind));
  return errc::success;
}

}  // namespace

namespace {
// The bytes a rank contributes or receives per block where MPI wants every rank to pass the same
// (-1: the collective has per-rank counts, or no such rule).
int64_t block_bytes(const coll_args& a, int64_t* other) {
  *other = -1;
  if (a.c->inter || a.type == nullptr) return -1;  // intercommunicators: per-group rules
  switch (a.kind) {
    case coll_kind::bcast:
    case coll_kind::reduce:
    case coll_kind::allreduce:
    case coll_kind::scan:
    case coll_kind::exscan:
    case coll_kind::reduce_scatter_block:
      return a.count * a.type->size();
    case coll_kind::alltoall:
      *other = a.rtype != nullptr ? a.rcount * a.rtype->size() : -1;
      return a.count * a.type->size();
    default:
      return -1;
  }
}

// Ranks whose counts disagree would select algorithms by their own counts, and ranks on both
// sides of a threshold would run plans that never meet: the first start would hang. A persistent
// init can afford what a blocking call cannot, one agreement (an 8-byte allreduce): where every
// rank must pass the same block, all refuse such an init alike (the counters below stay in step).
errc agree_blocks(const coll_args& a) {
  int64_t other = -1;
  const int64_t mine = block_bytes(a, &other);
  if (mine < 0) return errc::success;
  const int64_t lo = other >= 0 ? std::min(mine, other) : mine, hi = std::max(mine, other);
  int64_t v[2] = {hi, -lo}, all[2] = {0, 0};
  coll_args ar;
  ar.kind = coll_kind::allreduce;
  ar.c = a.c;
  ar.sendbuf = v;
  ar.recvbuf = all;
  ar.count = 2;
  ar.type = core::predefined_datatype(0x258);  // MPI_INT64_T
  ar.op = core::predefined_op(core::op_kind::max);
  if (errc e = run_blocking(ar); e != errc::success) return e;
  if (all[0] == -all[1]) return errc::success;
  return core::error_set(errc::truncate,
                         "the ranks' counts or types disagree: blocks of %lld to %lld bytes (this rank: %lld); "
                         "every rank of a %s must pass the same",
                         (long long)-all[1], (long long)all[0], (long long)mine, coll_name(a.kind));
}
}  // namespace

errc persistent_init(const coll_args& args, const core::info* info, core::request** out) {
  coll_args a = args;
  a.persistent = true;
  // The run is bound to run_comm(a): a.c, or an intercommunicator's bridge (whose sequence numbers
  // and persistent ids every member of both groups consumes alike).
  core::comm* c = run_comm(a);
  // A communicator all on this host gets its shared-memory region here when no blocking
  // collective has made it yet: the init is ordered like any collective, so every rank is at the
  // same point, and the shared-memory algorithms' predicates then agree on every rank.
  // Intercommunicator algorithms have no shared-memory steps.
  if (!a.c->inter && c->coll_shm_state <= shm::state_busy) shm::region_setup(c);
  if (errc e = agree_blocks(a); e != errc::success) return e;
  core::engine_guard g;
  // Both counters advance identically on every rank, errors below included.
  ++c->coll_seq;
  const uint32_t id = static_cast<uint32_t>(c->pcoll_seq++ % max_persistent_ids);
  if (id_live(c, id))
    return core::error_set(errc::other,
                           "persistent collective id %u of this communicator is still in use: at most %u "
                           "persistent collectives may be alive on one communicator",
                           id, max_persistent_ids);
  const algorithm* al = nullptr;
  bool named = false;
  if (errc e = choose(a, info, &al, &named); e != errc::success) return e;
  plan* p = nullptr;
  if (errc e = build_plan(a, al, &p); e != errc::success) return e;
  shm::region* own = nullptr;
  if (p->uses_shm) {
    // Shared-memory steps synchronize through a region: this operation gets one of its own, keyed
    // by its start count, so its starts never meet another operation's (collective, made without
    // the engine lock: it runs blocking collectives on c).
    g.unlock();
    const int nslots = p->shm_data_bytes <= shm::inline_bytes ? persistent_shm_slots_inline : persistent_shm_slots;
    errc e = shm::region_make(c, nslots, p->shm_data_bytes, &own);
    g.lock();
    if (e != errc::success) {
      p->release();
      return e;
    }
    // Large messages bind single copy where every rank can (shm::region_single_copy): a bcast's
    // receivers read the root's bound buffer (split with the root from shm::split_min); an
    // allreduce's ranks reduce 1/n of the elements each from the peers' bound send buffers and
    // write it into every receive buffer; an alltoall's ranks read their blocks from the peers'
    // bound send buffers.
    struct single_copy_args {
      bool on = false;
      int root = -1;
      const char* buf = nullptr;
      bool mine = false;
      int64_t bytes = 0;
      bool split = false;
      const char* recv = nullptr;
    } sc;
    const bool copies = a.kind == coll_kind::bcast || a.kind == coll_kind::allreduce || a.kind == coll_kind::alltoall;
    if (own && copies && std::strcmp(al->name, "shm") == 0 && shm::single_copy_enabled()) {
      auto at = [&a](const void* buf) { return static_cast<const char*>(buf) + a.type->true_lb(); };
      const int64_t bytes = a.count * a.type->size();
      // Thresholds on the region's buffer size, the same on every rank (the region's setup
      // agreed on it), never on this rank's own count: ranks whose counts disagree must still
      // all take part in region_single_copy's collectives, or none.
      const int64_t agreed = own->small;
      if (a.kind == coll_kind::bcast && agreed >= shm::single_copy_min) {
        sc = {true, a.root, at(a.recvbuf), a.type->is_contiguous(), bytes, agreed >= shm::split_min, nullptr};
      } else if (a.kind == coll_kind::allreduce && !a.in_place && agreed >= shm::reduce_single_copy_min) {
        sc = {true, -1, at(a.sendbuf), shm::single_copy_reducible(a.type), bytes, false, at(a.recvbuf)};
      } else if (a.kind == coll_kind::alltoall && !a.in_place && agreed >= shm::single_copy_min) {
        sc = {true, -1, at(a.sendbuf), a.type->is_contiguous() && a.rtype->is_contiguous(), a.rcount * a.rtype->size(),
              false, nullptr};
      }
    }
    if (sc.on) {
      g.unlock();
      e = shm::region_single_copy(c, own, sc.root, sc.buf, sc.mine, sc.bytes, sc.split, sc.recv);
      g.lock();
      if (e != errc::success) {
        shm::region_destroy(own);
        p->release();
        return e;
      }
    }
    if (!own) {
      // Some rank could not map it (no shared-memory space): every rank learnt that from the same
      // agreement and takes the first usable algorithm without shared-memory steps.
      p->release();
      p = nullptr;
      if (named)
        return core::error_set(errc::other, "the %s algorithm \"%s\" needs a shared-memory region, which could not be made",
                               coll_name(a.kind), al->name);
      for (const algorithm* x = algorithms_begin(); x != algorithms_end() && !p; ++x) {
        if (x->kind != a.kind || x == al || !serves(x, a) || !x->usable(a)) continue;
        if (errc e2 = build_plan(a, x, &p); e2 != errc::success) return e2;
        if (!p->uses_shm) {
          al = x;
        } else {
          p->release();
          p = nullptr;
        }
      }
      if (!p)
        return core::error_set(errc::intern, "no %s algorithm can run these arguments as a persistent operation",
                               coll_name(a.kind));
    }
  }
  core::request* q = core::request_new(core::req_kind::coll);
  auto* pc = new pcoll;
  pc->al = al;
  pc->c = c;
  pc->id = id;
  errc e = run_bind(p, c, a.sendbuf, a.recvbuf, id, own, q, &pc->r);
  p->release();  // the run holds its own reference
  if (e != errc::success) {
    shm::region_destroy(own);
    delete pc;
    core::request_delete(q);
    return e;
  }
  id_set(c, id, true);
  q->persistent = true;
  q->ops = &pcoll_ops;
  q->ext = pc;
  q->c = a.c;  // error handler of completion calls; released when the request is destroyed
  a.c->retain();
  q->mark_complete();  // an inactive request tests complete
  *out = q;
  return errc::success;
}

bool persistent_is(const core::request* r) {
  return r && r->ops == &pcoll_ops;
}

const char* persistent_algorithm(const core::request* r) {
  return persistent_is(r) ? static_cast<const pcoll*>(r->ext)->al->name : nullptr;
}

}  // namespace baton::coll
