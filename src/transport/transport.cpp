// The transports' shared start-up: routes, capabilities, tuning limits (transport.hpp).
#include "transport/transport.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core/copy.hpp"
#include "core/runtime.hpp"
#include "transport/dispatch.hpp"

namespace baton::transport {

namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

limits limits_from_env() {
  limits l;
  l.shm_eager_max = env_u64("BATON_SHM_EAGER_MAX", 32768);
  // Every rendezvous message (past the eager limit, contiguous) is read with one kernel copy by
  // default (core/copy.hpp); BATON_SHM_CMA_MIN raises the threshold.
  l.shm_cma_min = env_u64("BATON_SHM_CMA_MIN", 0);
  l.shm_coop_min = env_u64("BATON_SHM_COOP_MIN", 256 << 10);
  // Over TCP a rendezvous costs a round trip per message: between two hosts on a veth link 16 KiB
  // messages streamed at 0.75 GB/s with an 8 KiB limit, 1.6 GB/s with this one (64 KiB: 2.1 -> 2.9).
  l.ucx_eager_max = env_u64("BATON_UCX_EAGER_MAX", 65536);
  return l;
}

// The limits init took, kept after finalize (read by any thread once g_limits_set).
limits g_limits;
std::atomic<bool> g_limits_set{false};


}  // namespace

limits limits_now() { return g_limits_set.load(std::memory_order_acquire) ? g_limits : limits_from_env(); }

void add_route(int proc, route r) {
  auto& v = detail::routes;
  if (static_cast<size_t>(proc) >= v.size()) v.resize(static_cast<size_t>(proc) + 1);
  v[static_cast<size_t>(proc)] = r;
}

errc init() {
  core::runtime& R = core::rt();
  g_limits = limits_from_env();
  g_limits_set.store(true, std::memory_order_release);
  const uint32_t nlocal = static_cast<uint32_t>(R.world_of_local.size());

  // Every process of the launch: itself, the others of this host (shared memory), the rest (UCX).
  detail::routes.assign(static_cast<size_t>(R.world_size), route{});
  for (int w = 0; w < R.world_size; ++w) {
    const int l = R.local_of_world[static_cast<size_t>(w)];
    if (w == R.world_rank)
      add_route(w, route{kind::self, 0});
    else if (l >= 0)
      add_route(w, route{kind::shm, static_cast<uint32_t>(l)});
    else
      add_route(w, route{kind::ucx, static_cast<uint32_t>(w)});
  }

  // Messages to oneself: copied once (straight into a posted receive, or into a buffer when
  // eager); a synchronous send waits in matching's queue for its receive.
  detail::kind_caps[int(kind::self)] = caps{g_limits.shm_eager_max, 0, false, true, true};
  detail::kind_caps[int(kind::shm)] =
      caps{g_limits.shm_eager_max, std::min<uint64_t>(shm::slot_payload_for(std::max<uint32_t>(nlocal, 2)),
                                                      g_limits.shm_eager_max),
           true, core::cma_wanted(), false};
  detail::kind_caps[int(kind::ucx)] = caps{g_limits.ucx_eager_max, 0, true, true, false};

  // UCX publishes its address before the shared-memory barrier, which every rank then passes.
  if (R.use_ucx) {
    if (errc err = ucx::ops::init(); err != errc::success) return err;
  }
  if (errc err = shm::ops::init(); err != errc::success) return err;
  // No shared-memory segment here: every rank still waits for the addresses, and PMI barriers
  // are job-wide, so this rank passes as many as the ranks of hosts with a segment (two).
  if (nlocal <= 1 && R.use_ucx)
    for (int b = 0; b < 2; ++b)
      if (errc err = R.pmi.barrier(); err != errc::success) return err;
  return errc::success;
}

bool quiet() { return self::ops::quiet() && shm::ops::quiet() && ucx::ops::quiet(); }

void finalize() {
  // Also a worker made for other launches only (ucx::dyn_init); a no-op where there is none.
  ucx::ops::finalize();
  shm::ops::finalize();
}

}  // namespace baton::transport
