// The self transport: messages a process sends to itself. Nothing leaves the process: an eager
// message is copied once (straight into a posted receive, or into matching's buffer for an
// unexpected one, and the send completes); a rendezvous message (synchronous, or past the eager
// limit) waits in matching's queue with its sending request, and the receive that matches it
// copies straight from the sender's buffer (rndv_ref::addr: the sending request).
#pragma once

#include "transport/transport.hpp"

namespace baton::transport::self {

struct ops {
  [[nodiscard]] static errc init() { return errc::success; }
  static void finalize() {}
  static void send_eager(request* r, uint32_t index);
  static void send_rndv(request* r, uint32_t index);
  static bool inject(uint32_t, const envelope&, const void*, int64_t, const core::datatype*) { return false; }
  // Unused (caps: no eager synchronous messages); acknowledges the send at once.
  static void ack_match(uint32_t index, uint64_t cookie);
  // Unused (caps: loopback, matching withdraws itself); withdraws and answers at once.
  static void cancel_send(request* r, uint32_t index);
  static void rndv_fetch(request* r, uint32_t index, uint64_t cookie, const rndv_ref& ref);
  static void rndv_drop(uint32_t, uint64_t, const rndv_ref&) {}  // the sending request holds nothing extra
  static bool quiet() { return true; }  // no output queue
};

}  // namespace baton::transport::self
