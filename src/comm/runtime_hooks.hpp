// Registers the start-up and shutdown hooks of every layer (core/runtime.hpp) with the runtime.
#pragma once

#include "core/error.hpp"

namespace baton::comm {

// Once per process (later calls return the first one's result), before the runtime first comes
// up: src/abi calls it ahead of core::runtime_acquire.
[[nodiscard]] core::errc runtime_hooks_install();

}  // namespace baton::comm
