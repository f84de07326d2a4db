// Calls a transport's operation for a route: an inline switch on the route's kind, so each call
// is a direct (usually inlined) call into the transport, never an indirect one (transport.hpp).
// The layer above includes this header; transports include only transport.hpp.
#pragma once

#include "transport/self/self.hpp"
#include "transport/shm/shm.hpp"
#include "transport/transport.hpp"
#include "transport/ucx/ucx.hpp"

namespace baton::transport {

static_assert(transport_ops<self::ops>);
static_assert(transport_ops<shm::ops>);
static_assert(transport_ops<ucx::ops>);

// Runs f(ops{}) with the ops of transport k.
template <class F>
inline decltype(auto) with_ops(kind k, F&& f) {
  switch (k) {
    case kind::shm:
      return f(shm::ops{});
    case kind::self:
      return f(self::ops{});
    case kind::ucx:
      break;
  }
  return f(ucx::ops{});
}

inline void send_eager(request* r, route rt) {
  with_ops(rt.via, [&](auto t) { decltype(t)::send_eager(r, rt.index); });
}
inline void send_rndv(request* r, route rt) {
  with_ops(rt.via, [&](auto t) { decltype(t)::send_rndv(r, rt.index); });
}
inline bool inject(route rt, const envelope& e, const void* buf, int64_t count, const core::datatype* dt) {
  return with_ops(rt.via, [&](auto t) { return decltype(t)::inject(rt.index, e, buf, count, dt); });
}
inline void ack_match(int proc, uint64_t cookie) {
  const route rt = route_of(proc);
  with_ops(rt.via, [&](auto t) { decltype(t)::ack_match(rt.index, cookie); });
}
inline void cancel_send(request* r, route rt) {
  with_ops(rt.via, [&](auto t) { decltype(t)::cancel_send(r, rt.index); });
}
inline void rndv_fetch(request* r, int proc, uint64_t cookie, const rndv_ref& ref) {
  const route rt = route_of(proc);
  with_ops(ref.via, [&](auto t) { decltype(t)::rndv_fetch(r, rt.index, cookie, ref); });
}
inline void rndv_drop(int proc, uint64_t len, const rndv_ref& ref) {
  const route rt = route_of(proc);
  with_ops(ref.via, [&](auto t) { decltype(t)::rndv_drop(rt.index, len, ref); });
}

}  // namespace baton::transport
