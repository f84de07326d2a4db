// One-sided communication, synchronization: fence, passive-target locks and flush, and
// post/start/complete/wait (see win.hpp).
#include <atomic>
#include <numeric>
#include <string>
#include <vector>

#include "coll/among.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"
#include "rma/win_internal.hpp"

namespace baton::rma {

namespace detail {

errc take_deferred(window* w) {
  if (w->deferred == errc::success) return errc::success;
  errc e = w->deferred;
  w->deferred = errc::success;
  std::string msg = std::move(w->deferred_msg);
  w->deferred_msg.clear();
  return core::error_set(e, "an earlier RMA operation failed at its target: %s", msg.c_str());
}

errc barrier(window* w) {
  std::vector<int> m(size_t(w->size));
  std::iota(m.begin(), m.end(), 0);
  char in = 0;
  std::vector<char> out(size_t(w->size));
  return coll::allgather_among(w->c, m, w->rank, coll::comm_next_tag(w->c), &in, 1, out.data());
}

bool may_access(const window* w, int target) {
  return w->fence_epoch || w->lock_all || w->locked[size_t(target)] != uint8_t(lock_kind::none) ||
         (w->access_epoch && w->in_access[size_t(target)]);
}

}  // namespace detail

using namespace detail;

errc win_fence(window* w, int assert_bits) {
  {
    core::engine_guard g;
    if (w->locks_held > 0 || w->lock_all || w->access_epoch || w->exposure_epoch)
      return core::error_set(errc::rma_sync, "a fence cannot end a %s epoch",
                             w->access_epoch || w->exposure_epoch ? "post/start/complete/wait" : "passive-target (lock)");
    // Operations still unanswered contradict MPI_MODE_NOPRECEDE (direct puts and gets complete
    // in their call and cannot be seen here).
    if ((assert_bits & 2048) && w->pending_total > 0)
      return core::error_set(errc::rma_sync,
                             "MPI_MODE_NOPRECEDE was asserted but %lld RMA operations of this process since the last "
                             "fence are not complete",
                             (long long)w->pending_total);
  }
  wait_for([w] { return w->pending_total == 0; });
  errc e;
  {
    core::engine_guard g;
    e = take_deferred(w);
  }
  errc b = barrier(w);
  {
    core::engine_guard g;
    w->fence_epoch = (assert_bits & 16384) == 0;  // MPI_MODE_NOSUCCEED
  }
  return e != errc::success ? e : b;
}

errc win_lock(window* w, lock_kind k, int target, bool nocheck) {
  core::engine_guard g;
  if (w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all is in effect on this window");
  if (w->locked[size_t(target)] != 0)
    return core::error_set(errc::rma_sync, "this process already holds a lock on rank %d of the window", target);
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is open on this window");
  w->locked[size_t(target)] = uint8_t(k);
  w->lock_nocheck[size_t(target)] = nocheck;
  ++w->locks_held;
  if (!nocheck) {
    send_control(w, target, op_kind::lock, k);
    core::progress_new_work();
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  }
  return errc::success;
}

errc win_unlock(window* w, int target) {
  core::engine_guard g;
  if (w->lock_all)
    return core::error_set(errc::rma_sync, "the window is locked with MPI_Win_lock_all: use MPI_Win_unlock_all");
  if (w->locked[size_t(target)] == 0)
    return core::error_set(errc::rma_sync, "this process holds no lock on rank %d of the window", target);
  core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  if (!w->lock_nocheck[size_t(target)]) {
    send_control(w, target, op_kind::unlock, lock_kind::none);
    core::progress_new_work();
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  }
  w->locked[size_t(target)] = 0;
  --w->locks_held;
  return take_deferred(w);
}

errc win_lock_all(window* w, bool nocheck) {
  core::engine_guard g;
  if (w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all was already called on this window");
  if (w->locks_held > 0) return core::error_set(errc::rma_sync, "this process already holds locks on the window");
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is open on this window");
  w->lock_all = true;
  for (int r = 0; r < w->size; ++r) {
    w->locked[size_t(r)] = uint8_t(lock_kind::shared);
    w->lock_nocheck[size_t(r)] = nocheck;
    if (!nocheck) send_control(w, r, op_kind::lock, lock_kind::shared);
  }
  core::progress_new_work();
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  return errc::success;
}

errc win_unlock_all(window* w) {
  core::engine_guard g;
  if (!w->lock_all) return core::error_set(errc::rma_sync, "MPI_Win_lock_all was not called on this window");
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  for (int r = 0; r < w->size; ++r)
    if (!w->lock_nocheck[size_t(r)]) send_control(w, r, op_kind::unlock, lock_kind::none);
  core::progress_new_work();
  core::progress_wait(g, [w] { return w->pending_total == 0; });
  std::fill(w->locked.begin(), w->locked.end(), 0);
  w->lock_all = false;
  return take_deferred(w);
}

errc win_flush(window* w, int target) {
  core::engine_guard g;
  // A flush with nothing outstanding still advances what other ranks aim at this one: a process
  // that polls its own window between flushes (a lock queue) must see their accumulates land.
  (void)core::progress_poll();
  if (target >= 0) {
    if (!w->lock_all && w->locked[size_t(target)] == 0)
      return core::error_set(errc::rma_sync, "no passive-target epoch is open on rank %d (lock it first)", target);
    core::progress_wait(g, [w, target] { return w->pending[size_t(target)] == 0; });
  } else {
    if (!w->lock_all && w->locks_held == 0)
      return core::error_set(errc::rma_sync, "no passive-target epoch is open on the window (lock it first)");
    core::progress_wait(g, [w] { return w->pending_total == 0; });
  }
  return take_deferred(w);
}

errc win_sync(window* w) {
  (void)w;
  core::engine_guard g;
  // Operations other ranks aim at this process are applied by its progress engine (accumulates,
  // and everything when the window is not in shared memory): a process that waits for a value by
  // reading its window between MPI_Win_sync calls must make them land.
  (void)core::progress_poll();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return errc::success;
}

namespace {
void post_seen(request* q) {
  auto* w = static_cast<window*>(q->ext);
  if (q->step == 0)
    ++w->posts_seen;
  else
    ++w->dones_seen;
  core::request_delete(q);
  if (core::rt().threaded) core::progress_kick();
}
}  // namespace

errc win_post(window* w, const std::vector<int>& origins, bool nocheck) {
  core::engine_guard g;
  if (w->exposure_epoch) return core::error_set(errc::rma_sync, "an exposure epoch (MPI_Win_post) is already open");
  if (w->fence_epoch) w->fence_epoch = false;
  w->exposure_epoch = true;
  w->dones_seen = 0;
  w->dones_needed = int(origins.size());
  for (int o : origins) {
    (void)p2p::start_internal(core::req_kind::recv, nullptr, 0, byte_t(), o, tag_done, w->c, w->c->ctx, post_seen, w, 1);
    if (!nocheck) send_bytes(w, o, tag_post, nullptr, 0);
  }
  core::progress_new_work();
  return errc::success;
}

errc win_start(window* w, const std::vector<int>& targets, bool nocheck) {
  core::engine_guard g;
  if (w->access_epoch) return core::error_set(errc::rma_sync, "an access epoch (MPI_Win_start) is already open");
  if (w->locks_held > 0 || w->lock_all)
    return core::error_set(errc::rma_sync, "a passive-target epoch (lock) is open on this window");
  w->access_epoch = true;
  w->access_group = targets;
  w->posts_seen = 0;
  w->posts_needed = nocheck ? 0 : int(targets.size());
  for (int t : targets) {
    w->in_access[size_t(t)] = 1;
    if (!nocheck)
      (void)p2p::start_internal(core::req_kind::recv, nullptr, 0, byte_t(), t, tag_post, w->c, w->c->ctx, post_seen, w, 0);
  }
  // Waits for every target's post here (the standard allows MPI_Win_start to block).
  core::progress_wait(g, [w] { return w->posts_seen == w->posts_needed; });
  return errc::success;
}

errc win_complete(window* w) {
  core::engine_guard g;
  if (!w->access_epoch) return core::error_set(errc::rma_sync, "no access epoch is open (MPI_Win_start was not called)");
  core::progress_wait(g, [w] {
    for (int t : w->access_group)
      if (w->pending[size_t(t)] != 0) return false;
    return true;
  });
  for (int t : w->access_group) {
    send_bytes(w, t, tag_done, nullptr, 0);
    w->in_access[size_t(t)] = 0;
  }
  core::progress_new_work();
  w->access_group.clear();
  w->access_epoch = false;
  return take_deferred(w);
}

errc win_wait(window* w) {
  core::engine_guard g;
  if (!w->exposure_epoch) return core::error_set(errc::rma_sync, "no exposure epoch is open (MPI_Win_post was not called)");
  core::progress_wait(g, [w] { return w->dones_seen == w->dones_needed; });
  w->exposure_epoch = false;
  return errc::success;
}

errc win_test(window* w, bool* flag) {
  core::engine_guard g;
  if (!w->exposure_epoch) return core::error_set(errc::rma_sync, "no exposure epoch is open (MPI_Win_post was not called)");
  (void)core::progress_poll();
  *flag = w->dones_seen == w->dones_needed;
  if (*flag) w->exposure_epoch = false;
  return errc::success;
}

}  // namespace baton::rma
