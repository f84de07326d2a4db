// The communicator object: release, error handlers (construction is src/comm/).
#include "core/comm.hpp"

namespace baton::core {

void (*comm_bsend_free)(p2p::bsend_buffer* b) = nullptr;

void errhandler::release() {
  if (predefined) return;
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

errhandler* errhandler_predefined(errhandler_kind k) {
  static errhandler table[4];
  static bool ready = false;
  if (!ready) {
    for (int i = 0; i < 4; ++i) {
      table[i].kind = errhandler_kind(i);
      table[i].predefined = true;
    }
    ready = true;
  }
  return &table[int(k)];
}

uint64_t comm_serial_next() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

void comm::release() {
  if (predefined) return;
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (coll_shm_free) coll_shm_free(this);
    // Its buffered sends hold references, so none is left in its buffer: detached implicitly.
    if (bsend) comm_bsend_free(bsend);
    if (inter) {
      if (bridge) bridge->release();  // the bridge owns the context
    } else if (coll_failed == errc::success) {
      context_release(ctx);
    }
    // A communicator whose collectives failed (src/coll/mismatch.cpp) keeps its context pair
    // reserved for the rest of the run: messages of the calls that disagreed may still arrive,
    // and a communicator given the context again must not receive them.
    if (eh) eh->release();
    delete this;
  }
}

int comm_rank_of_world(const comm* c, int w) {
  for (int i = 0; i < c->size; ++i)
    if (c->world[size_t(i)] == w) return i;
  return -1;
}

errc comm_free(comm* c) {
  c->release();
  return errc::success;
}

}  // namespace baton::core
