// Internal blocking collectives over a subset of an intracommunicator, as point-to-point on its
// collective context: what communicator construction (src/comm/) and window creation (src/rma/)
// exchange before a communicator or a window exists to run a scheduled collective on.
#pragma once

#include <cstddef>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace baton::core {
class request;
}

namespace baton::coll {

using core::errc;

// `members` are ranks of `c` (every member passes the same list), `me` this rank's index in it;
// the first member is the root. comm_next_tag consumes one collective sequence number of `c`
// (every member of `c` must call it identically) and gives its tag.
int comm_next_tag(core::comm* c);
// Waits for a request of the p2p engine made by these helpers, frees it, and gives its error.
[[nodiscard]] errc wait_free(core::request* r);
[[nodiscard]] errc gather_among(core::comm* c, const std::vector<int>& members, int me, int tag, const void* in,
                                size_t bytes, void* out);
[[nodiscard]] errc bcast_among(core::comm* c, const std::vector<int>& members, int me, int tag, void* buf,
                               size_t bytes);
[[nodiscard]] errc allgather_among(core::comm* c, const std::vector<int>& members, int me, int tag, const void* in,
                                   size_t bytes, void* out);

}  // namespace baton::coll
