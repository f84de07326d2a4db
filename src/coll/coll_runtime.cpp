// The collective layer's shutdown hook (core/runtime.hpp).
#include "coll/coll.hpp"
#include "core/runtime.hpp"

namespace baton::coll {

// Nothing to start (the executor's poller and the plan cache come with the first collective);
// cached plans go at shutdown, before the point-to-point engine under them.
const core::runtime_hook runtime_hook{"coll", core::runtime_hook_order::coll, nullptr, nullptr, cache_clear};

}  // namespace baton::coll
