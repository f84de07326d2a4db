// The point-to-point layer's start-up and shutdown hook (core/runtime.hpp).
#include "core/comm.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::p2p {

namespace {

errc start() {
  // A communicator with a buffer attached frees it when it goes (core cannot call up to here).
  core::comm_bsend_free = bsend_buffer_destroy;
  return engine_init();
}

}  // namespace

// Up after the transports, down before them: a rank's own sends complete first (flush), then
// the engine goes down after the layers above let go of it.
const core::runtime_hook runtime_hook{"p2p", core::runtime_hook_order::p2p, start, flush, engine_finalize};

}  // namespace baton::p2p
