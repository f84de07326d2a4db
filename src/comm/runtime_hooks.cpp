// The layers' start-up and shutdown hooks, registered in one place: this layer sees every layer
// below it. The order is each hook's own (core::runtime_hook_order), not the order of this list.
#include "comm/runtime_hooks.hpp"

#include "coll/coll.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::comm {

core::errc runtime_hooks_install() {
  static const core::errc installed = [] {
    for (const core::runtime_hook* h : {&p2p::runtime_hook, &coll::runtime_hook})
      if (core::errc e = core::runtime_hook_add(h); e != core::errc::success) return e;
    return core::errc::success;
  }();
  return installed;
}

}  // namespace baton::comm
