#include "coll/shm_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "coll/coll.hpp"
#include "coll/hosts.hpp"
#include "coll/mismatch.hpp"
#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"
#include "core/progress.hpp"
#include "core/shm_object.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::coll::shm {

namespace {
std::atomic<int> g_live{0}, g_persistent_live{0};

size_t region_bytes(int n, int nslots, int64_t small, int nlarge, size_t* small_off, size_t* large_off,
                    size_t* log_off = nullptr) {
  const size_t flags = size_t(2) * size_t(n) * size_t(nslots) * 64;
  *small_off = (flags + 4095) / 4096 * 4096;
  *large_off = *small_off + size_t(n) * size_t(nslots) * size_t(small);
  const size_t end = *large_off + size_t(n) * size_t(nlarge) * size_t(slot_bytes);
  if (!log_off) return end;
  *log_off = end;  // the collective log (coll::log_collective)
  return end + size_t(n) * log_block_bytes;
}

void region_free(core::comm* c) {
  region* g = region_of(c);
  if (g == nullptr) return;
  log_unregister(c);
  ::munmap(g->base, g->bytes);
  delete g;
  c->coll_shm = nullptr;
  c->coll_shm_state = state_off;
  g_live.fetch_sub(1, std::memory_order_relaxed);
}

bool wanted(core::comm* c) {
  if (!coll_shm_enabled() || c->size < 2) return false;
  for (int r = 0; r < c->size; ++r)
    if (core::rt().local_of_world[size_t(c->world_rank(r))] < 0) return false;
  // Hosts faked for the collectives (BATON_COLL_HOSTS) count as hosts here too.
  return hosts_of(c).nhosts == 1;
}

// An agreement over c: *all becomes the minimum of every rank's *mine (1 on every rank = all
// agree).
coll_args agreement(core::comm* c, const int32_t* mine, int32_t* all) {
  coll_args ar;
  ar.kind = coll_kind::allreduce;
  ar.c = c;
  ar.sendbuf = mine;
  ar.recvbuf = all;
  ar.count = 1;
  ar.type = core::predefined_datatype(0x209);  // MPI_INT
  ar.op = core::predefined_op(core::op_kind::min);
  return ar;
}

// The same, blocking (message algorithms while the region is not ready).
errc agree_all(core::comm* c, int32_t mine, int32_t* all) { return run_blocking(agreement(c, &mine, all)); }

struct setup_info {
  int32_t ok;
  char name[124];  // core::shm_object names are far shorter
};

region* region_new(core::comm* c, char* base, size_t bytes, int nslots, int64_t small, int nlarge, size_t small_off,
                   size_t large_off);

// A segment being made over a communicator: a chain of nonblocking collectives on sequence
// numbers taken when it began, moved on by a progress poller (makers_poll), so that a nonblocking
// collective can begin it. Once every rank has joined (a barrier, which keeps the name's life to
// the next two steps however late a rank comes: a job killed while waiting for one leaves
// nothing), rank 0 creates the segment (core::shm_create: unpredictable name, O_EXCL) and
// broadcasts its name, every rank maps it (owner checked), an allreduce agrees that all
// succeeded, and rank 0 unlinks the name. For a communicator's own region (`install`), a second
// allreduce agrees whether every rank may read every other rank's memory: before the first one
// each rank announces its pid and the address of a probe byte in run 0's inline data (no run
// uses it before the region is ready), after it each reads one byte from every peer.
struct maker {
  core::comm* c = nullptr;  // retained until it is over
  const char* kind = "";
  size_t bytes = 0;
  bool install = false;
  uint64_t seq = 0;  // the next of its reserved sequence numbers
  int phase = 0;
  core::request* req = nullptr;  // the phase's collective
  setup_info info{};
  core::shm_object obj;
  int32_t mine = 0, all = 0;
  region* g = nullptr;  // install: made once this rank has mapped the segment
  size_t small_off = 0, large_off = 0, log_off = 0;
  bool agreed = false;  // every rank mapped the segment
  bool over = false;
  errc error = errc::success;
};
constexpr uint64_t maker_collectives = 4;  // barrier, bcast, allreduce (and install's allreduce)
std::vector<maker*> g_makers;              // engine lock
bool makers_poll();

// Starts m's next collective on its next reserved sequence number.
void maker_start(maker* m, const coll_args& a) {
  if (errc e = start_reserved(a, m->seq++, &m->req); e != errc::success) {
    m->error = e;
    m->req = nullptr;
  }
}

// Ends m: a communicator's region is installed (or the communicator goes on without one) and its
// deferred calls start; a segment_make caller finds m over.
void maker_finish(maker* m) {
  core::comm* c = m->c;
  if (c->rank == 0 && !m->obj.name.empty()) core::shm_unlink_name(m->obj);  // (a failure between)
  const bool ok = m->error == errc::success && m->agreed;
  if (m->install) {
    if (ok) {
      region* g = m->g;
      m->g = nullptr;
      g->log_off = m->log_off;
      g->log.block = const_cast<char*>(g->log_block(g->me));
      g_live.fetch_add(1, std::memory_order_relaxed);
      c->coll_shm = g;
      c->coll_shm_free = region_free;
      c->coll_shm_state = state_ready;
      log_register(c);
    } else {
      delete m->g;
      m->g = nullptr;
      core::shm_unmap(m->obj);
      // (A communicator whose collectives failed meanwhile keeps state_failed.)
      if (c->coll_shm_state == state_busy) c->coll_shm_state = state_off;
    }
    start_deferred(c);
  } else if (!ok) {
    core::shm_unmap(m->obj);
  }
  m->over = true;
  c->release();
}

// Moves m on as far as it goes now; true once it is over (engine lock held).
bool maker_advance(maker* m) {
  static char probe = 1;
  for (;;) {
    if (m->req != nullptr) {
      if (!m->req->is_complete()) return false;
      const errc e = m->req->status.error;
      core::request_delete(m->req);
      m->req = nullptr;
      if (e != errc::success && m->error == errc::success) m->error = e;
    }
    if (m->error != errc::success) {
      maker_finish(m);
      return true;
    }
    core::comm* c = m->c;
    switch (m->phase++) {
      case 0: {
        coll_args bar;
        bar.kind = coll_kind::barrier;
        bar.c = c;
        maker_start(m, bar);
        break;
      }
      case 1: {
        if (c->rank == 0 && core::shm_create(m->kind, m->bytes, &m->obj) == errc::success &&
            m->obj.name.size() < sizeof m->info.name) {
          m->info.ok = 1;
          std::memcpy(m->info.name, m->obj.name.c_str(), m->obj.name.size() + 1);
        }
        coll_args bc;
        bc.kind = coll_kind::bcast;
        bc.c = c;
        bc.recvbuf = &m->info;
        bc.count = sizeof m->info;
        bc.type = core::predefined_datatype(0x247);  // MPI_BYTE
        maker_start(m, bc);
        break;
      }
      case 2:
        if (c->rank != 0 && m->info.ok) {
          m->info.name[sizeof m->info.name - 1] = 0;
          (void)core::shm_open_checked(m->info.name, m->bytes, &m->obj);  // a failure shows in the agreement
        }
        m->mine = m->obj.base != nullptr;
        if (m->install && m->mine) {
          m->g = region_new(c, m->obj.base, m->bytes, slots, small_bytes, large_slots, m->small_off, m->large_off);
          m->g->pid = int32_t(::getpid());
          m->g->announce(0, &probe, nullptr);
        }
        maker_start(m, agreement(c, &m->mine, &m->all));
        break;
      case 3:
        if (c->rank == 0) core::shm_unlink_name(m->obj);  // every rank has opened it (or given up)
        m->obj.name.clear();
        m->agreed = m->all != 0;
        if (!m->agreed || !m->install) {
          maker_finish(m);
          return true;
        }
        m->mine = core::cma_wanted();
        for (int r = 0; r < c->size && m->mine; ++r) {
          if (r == c->rank) continue;
          const region::buffers b = m->g->announced(r, 0);
          char byte = 0;
          m->mine = region::read_from(b.pid, b.send, &byte, 1) && byte == 1;
        }
        maker_start(m, agreement(c, &m->mine, &m->all));
        break;
      default:
        m->g->announce(0, nullptr, nullptr);  // every peer has read it: the allreduce is past their reads
        m->g->cma = m->all != 0;
        maker_finish(m);
        return true;
    }
  }
}

maker* maker_new(core::comm* c, const char* kind, size_t bytes, bool install) {
  auto* m = new maker;
  m->c = c;
  c->retain();
  m->kind = kind;
  m->bytes = bytes;
  m->install = install;
  m->seq = c->coll_seq;
  c->coll_seq += maker_collectives;  // every rank reserves as many, whatever it will use
  return m;
}

// Starts m; makers_poll moves it on from then. An installing maker deletes itself when over.
void maker_go(maker* m) {
  if (maker_advance(m)) {
    if (m->install) delete m;
    return;
  }
  if (g_makers.empty()) core::progress_add_poller(makers_poll);
  g_makers.push_back(m);
}

bool makers_poll() {
  bool moved = false;
  for (size_t i = 0; i < g_makers.size();) {
    maker* m = g_makers[i];
    if (!maker_advance(m)) {
      ++i;
      continue;
    }
    moved = true;
    g_makers.erase(g_makers.begin() + std::ptrdiff_t(i));
    if (m->install) delete m;  // a segment_make caller deletes its own
  }
  if (g_makers.empty()) core::progress_remove_poller(makers_poll);
  return moved;
}

// Collective over c (see maker): *base is the mapping on success, null on every rank when any
// rank failed (the communicator then runs without it). Call without the engine lock.
errc segment_make(core::comm* c, const char* kind, size_t bytes, char** base_out) {
  core::engine_guard guard;
  maker* m = maker_new(c, kind, bytes, false);
  maker_go(m);
  core::progress_wait(guard, [m] { return m->over; });
  *base_out = m->error == errc::success && m->agreed ? m->obj.base : nullptr;
  const errc e = m->error;
  delete m;
  return e;
}

region* region_new(core::comm* c, char* base, size_t bytes, int nslots, int64_t small, int nlarge, size_t small_off,
                   size_t large_off) {
  auto* g = new region;
  g->n = c->size;
  g->me = c->rank;
  g->base = base;
  g->bytes = bytes;
  // Powers of two: slot_of and data() mask instead of dividing.
  assert(nslots >= 2 && (nslots & (nslots - 1)) == 0 && (nlarge & (nlarge - 1)) == 0);
  g->nslots = nslots;
  g->nlarge = nlarge;
  g->small = small;
  g->small_off = small_off;
  g->large_off = large_off;
  g->locals.resize(size_t(c->size));
  for (int r = 0; r < c->size; ++r) g->locals[size_t(r)] = uint32_t(core::rt().local_of_world[size_t(c->world_rank(r))]);
  return g;
}
}  // namespace

void region::publish(std::atomic<uint64_t>& flag, uint64_t q) const {
  flag.store(q, std::memory_order_release);
  p2p::wake_local_ranks(locals.data(), n);
}

void region_release(core::comm* c) {
  if (c == nullptr || c->coll_shm == nullptr) return;
  core::engine_guard guard;
  region_free(c);
}

int regions_live() { return g_live.load(std::memory_order_relaxed); }
int persistent_regions_live() { return g_persistent_live.load(std::memory_order_relaxed); }

void region_setup_start(core::comm* c) {
  if (c->coll_shm_state != state_none) return;
  if (!wanted(c)) {
    c->coll_shm_state = state_off;
    return;
  }
  c->coll_shm_state = state_busy;  // its own collectives select message algorithms
  size_t small_off = 0, large_off = 0, log_off = 0;
  const size_t bytes = region_bytes(c->size, slots, small_bytes, large_slots, &small_off, &large_off, &log_off);
  maker* m = maker_new(c, "coll", bytes, true);
  m->small_off = small_off;
  m->large_off = large_off;
  m->log_off = log_off;
  maker_go(m);
}

void region_setup(core::comm* c) {
  core::engine_guard guard;
  region_setup_start(c);
  core::progress_wait(guard, [c] { return c->coll_shm_state != state_busy; });
}

errc region_make(core::comm* c, int nslots, int64_t data_bytes, region** out) {
  *out = nullptr;
  const int64_t small = std::max<int64_t>(64, (data_bytes + 63) / 64 * 64);
  size_t small_off = 0, large_off = 0;
  const size_t bytes = region_bytes(c->size, nslots, small, 0, &small_off, &large_off);
  char* base = nullptr;
  if (errc e = segment_make(c, "pers", bytes, &base); e != errc::success || !base) return e;
  *out = region_new(c, base, bytes, nslots, small, 0, small_off, large_off);
  (*out)->in_order = true;
  g_persistent_live.fetch_add(1, std::memory_order_relaxed);
  return errc::success;
}

bool region::read_from(int32_t pid, uint64_t addr, char* dst, int64_t len) {
  return core::cma_read(pid, addr, dst, uint64_t(len));
}

bool region::write_to(int32_t pid, uint64_t addr, const char* src, int64_t len) {
  return core::cma_write(pid, addr, src, uint64_t(len));
}

bool coll_shm_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BATON_COLL_SHM");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

bool single_copy_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BATON_PCOLL_SINGLE_COPY");
    return core::cma_wanted() && !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

errc region_single_copy(core::comm* c, region* g, int root, const void* buf, bool mine, int64_t bytes, bool split,
                        const void* recv) {
  const bool off = !single_copy_enabled();
  // Each rank's pid and buffer address in its second done line, unused in-order.
  auto* info = reinterpret_cast<uint64_t*>(g->base + (size_t(g->n + g->me) * size_t(g->nslots) + 1) * 64);
  info[0] = uint64_t(::getpid());
  info[1] = reinterpret_cast<uint64_t>(buf);
  info[2] = reinterpret_cast<uint64_t>(recv);
  info[3] = uint64_t(bytes);
  coll_args bar;
  bar.kind = coll_kind::barrier;
  bar.c = c;
  if (errc e = run_blocking(bar); e != errc::success) return e;
  auto info_of = [g](int r) {
    return reinterpret_cast<const uint64_t*>(g->base + (size_t(g->n + r) * size_t(g->nslots) + 1) * 64);
  };
  std::vector<int32_t> pids(size_t(g->n));
  std::vector<uint64_t> addrs(size_t(g->n)), recvs(size_t(g->n));
  for (int r = 0; r < g->n; ++r) {
    pids[size_t(r)] = int32_t(info_of(r)[0]);
    addrs[size_t(r)] = info_of(r)[1];
    recvs[size_t(r)] = info_of(r)[2];
  }
  int32_t ok = mine && !off && g->nslots >= 2;
  for (int r = 0; r < g->n && ok; ++r)
    if ((root < 0 || r == root) && int64_t(info_of(r)[3]) != bytes) ok = 0;
  // The kernel checks the same permission for reading and writing another process's memory, so
  // a root that may read its receivers' buffers may also write them.
  for (int r = 0; r < g->n && ok; ++r) {
    if (r == c->rank || (root >= 0 && r != root && !(split && c->rank == root))) continue;
    char byte = 0;
    ok = region::read_from(pids[size_t(r)], addrs[size_t(r)], &byte, 1);
  }
  int32_t all = 0;
  if (errc e = agree_all(c, ok, &all); e != errc::success) return e;
  if (all && root >= 0) {
    g->copy_root = root;
    g->root_pid = pids[size_t(root)];
    g->root_addr = addrs[size_t(root)];
    if (split) {
      g->split = true;
      g->wrote.assign(size_t(g->n), 0);
      g->peer_pid = std::move(pids);
      g->peer_addr = std::move(addrs);
    }
  } else if (all) {
    g->copy_all = true;
    g->peer_pid = std::move(pids);
    g->peer_addr = std::move(addrs);
    if (recv) g->peer_recv = std::move(recvs);
  }
  return errc::success;
}

void region_destroy(region* g) {
  if (!g) return;
  ::munmap(g->base, g->bytes);
  delete g;
  g_persistent_live.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace baton::coll::shm
