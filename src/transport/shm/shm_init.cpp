// Shared-memory transport, start-up and shutdown: the host's segment, the doorbells, the
// asymmetric fence agreement, the poller.
#include <sched.h>

#include <string>

#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "transport/shm/shm.hpp"

namespace baton::transport::shm {

state* g_state = nullptr;

namespace {
// core::progress_core_shared's check: notes this rank's core in its area and looks for other
// ranks of the host noted on the same one (sched_getcpu reads the rseq area: no system call).
// A rank noted there may have moved since; it then costs one early yield (or move).
core::share_state core_shared() {
  const state& e = st();
  const int32_t mine = int32_t(sched_getcpu()) + 1;
  std::atomic<int32_t>& noted = e.seg.area(e.me_local).cpu;
  if (noted.load(std::memory_order_relaxed) != mine) noted.store(mine, std::memory_order_relaxed);
  const uint32_t n = e.seg.nlocal();
  core::share_state s = core::share_none;
  for (uint32_t l = 0; l < n; ++l) {
    if (l == e.me_local || e.seg.area(l).cpu.load(std::memory_order_relaxed) != mine) continue;
    if (l < e.me_local) return core::share_move;
    s = core::share_stay;
  }
  return s;
}
}  // namespace

errc ops::init() {
  g_state = new state;
  state& e = *g_state;
  core::runtime& R = core::rt();
  const limits l = limits_now();
  e.eager_max = l.shm_eager_max;
  e.cma_min = l.shm_cma_min;
  e.cma_ok = core::cma_wanted();
  e.coop_min = l.shm_coop_min;
  const uint32_t nlocal = static_cast<uint32_t>(R.world_of_local.size());
  e.me_local = static_cast<uint32_t>(R.local_rank);
  e.peers.resize(nlocal);
  e.active_peers.reserve(nlocal);  // never grows while messages flow
  for (uint32_t i = 0; i < nlocal; ++i) {
    e.peers[i].local = i;
    e.peers[i].proc = R.world_of_local[i];
  }
  if (nlocal > 1) {
    // The first local rank creates the segment under an unpredictable name and publishes it;
    // the others open it (owner checked) after the barrier; the last to map it unlinks it.
    auto params = segment_params::for_ranks(nlocal);
    const std::string key = "baton.shm." + std::to_string(R.world_of_local[0]);
    if (e.me_local == 0) {
      if (errc err = e.seg.create(params, 0); err != errc::success) return err;
      if (errc err = R.pmi.put(key, e.seg.name()); err != errc::success) return err;
    }
    if (errc err = R.pmi.barrier(); err != errc::success) return err;
    if (e.me_local != 0) {
      std::string name;
      if (errc err = R.pmi.get(key, name, R.world_of_local[0]); err != errc::success) return err;
      if (errc err = e.seg.open(name, params, e.me_local); err != errc::success) return err;
    }
    e.seg.mapped();
    e.seg.touch_incoming();
    e.seg.area(e.me_local).asym_fence.store(core::asym_fence_register() ? 1 : 0, std::memory_order_relaxed);
    if (errc err = R.pmi.barrier(); err != errc::success) return err;
    // The asymmetric fence holds only if every rank of this host registered (each is a producer
    // for the others): the same answer on every rank, read after the barrier.
    bool all = true;
    for (uint32_t i = 0; i < nlocal; ++i) all = all && e.seg.area(i).asym_fence.load(std::memory_order_relaxed) == 1;
    core::asym_fence_on = all;
    e.on = true;
    auto& mine = e.seg.area(e.me_local);
    core::progress_set_doorbell(&mine.doorbell, &mine.sleeping);
    core::progress_set_local_ranks(int(e.seg.nlocal()));
    core::progress_set_share_check(core_shared);
  } else {
    // Alone on this host: the only producers are this process's own threads.
    core::asym_fence_on = core::asym_fence_register();
  }
  core::progress_add_poller(poll);
  return errc::success;
}

void ops::finalize() {
  if (!g_state) return;
  core::progress_remove_poller(poll);
  core::progress_set_doorbell(nullptr, nullptr);
  core::progress_set_share_check(nullptr);
  g_state->seg.close();
  delete g_state;
  g_state = nullptr;
}

// Bytes one ring slot carries, for a host of nlocal ranks (the segment's layout).
uint64_t slot_payload_for(uint32_t nlocal) {
  return segment_params::for_ranks(nlocal).slot_size - sizeof(pkt_header);
}

}  // namespace baton::transport::shm
