// The UCX transport: processes on other hosts (and every other process under
// BATON_TRANSPORT=ucx), through UCP active messages (ucx_transport.cpp). Its route index is the
// peer's process index. Without UCX in the build the operations refuse (the runtime refuses jobs
// that would need them before any is called).
#pragma once

#include <string>

#include "transport/transport.hpp"

namespace baton::transport::ucx {

struct ops {
  // Creates the worker and publishes its address (the caller's barrier follows).
  [[nodiscard]] static errc init();
  // Flushes, closes every endpoint, destroys the worker.
  static void finalize();
  static void send_eager(request* r, uint32_t proc);
  static void send_rndv(request* r, uint32_t proc);
  static bool inject(uint32_t, const envelope&, const void*, int64_t, const core::datatype*) { return false; }
  static void ack_match(uint32_t proc, uint64_t cookie);
  static void cancel_send(request* r, uint32_t proc);
  static void rndv_fetch(request* r, uint32_t proc, uint64_t cookie, const rndv_ref& ref);
  static void rndv_drop(uint32_t proc, uint64_t len, const rndv_ref& ref);
  // UCX queues nothing of its own: every send stays pending until UCX completes it.
  static bool quiet() { return true; }
};

// Processes of other launches (dynamic processes, core/procs.hpp) are reached through UCX
// whatever host they are on. dyn_init makes the worker if the launch did not
// (errc::unsupported_operation in a build without UCX); dyn_address gives the worker's address
// (bytes) for a connection handshake; dyn_add_peer routes a registered process here, records its
// address (first one wins) and delivers what it sent before this process knew it.
[[nodiscard]] errc dyn_init();
[[nodiscard]] errc dyn_address(std::string& out);
void dyn_add_peer(int index, const std::string& address);

}  // namespace baton::transport::ucx
