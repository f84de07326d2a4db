// What the files of a window share: win.cpp (creation, freeing, attached memory, shared segments,
// messages), win_target.cpp (the target side: the header receive and the poller that applies
// operations), win_origin.cpp (the origin side: issuing operations and taking their replies) and
// win_sync.cpp (epochs: fence, locks, flush, post/start/complete/wait). Internal to src/rma.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "rma/win.hpp"

namespace baton::rma::detail {

using core::datatype;
using core::request;

constexpr int tag_hdr = 1;
constexpr int tag_data = 2;
constexpr int tag_post = 3;
constexpr int tag_done = 4;
constexpr int reply_tag_base = 16;
constexpr size_t hdr_cap = 65536;     // the target's header receive buffer
constexpr size_t inline_max = 8192;   // header + segments + data up to this travel as one message
constexpr size_t err_text_max = 240;  // error text a target sends back

inline const datatype* byte_t() { return core::predefined_datatype(0x247); }

struct seg {
  int64_t offset, count, blocklen, stride;
};

struct op_hdr {
  uint8_t kind;
  uint8_t lock;
  uint8_t inline_data;
  uint8_t segs_in_data;  // the segment list did not fit the header receive: it heads the data message
  uint32_t op_code;     // predefined op handle value (accumulates)
  uint32_t basic_code;  // predefined handle value of the target's basic element type
  int32_t reply_tag;
  int64_t off;    // byte offset in the window (dynamic windows: the address)
  int64_t count;  // repetitions of the segment list
  int64_t extent;
  int64_t lo, hi;  // bytes touched, relative to off: [lo, hi)
  uint32_t nseg;
  uint32_t pad1;
  uint64_t data_bytes;   // origin -> target
  uint64_t reply_bytes;  // target -> origin
};
static_assert(sizeof(op_hdr) % 8 == 0);

struct reply_head {
  int32_t err;
  int32_t text_len;
};
static_assert(sizeof(reply_head) == 8);

// Live windows (win_valid) and the poller's queue (win.cpp).
extern std::mutex g_windows_m;
extern std::set<const window*> g_windows;

struct incoming {
  window* w;
  int source;
  char* data;  // nullptr: a header in w->hdr_buf; else the separate data of that header
};
extern std::vector<incoming> g_ready;

// ---- messages (win.cpp) ----

// Sends `bytes` at buf (malloc'd, owned from here) to `peer`.
// Headers (tag_hdr) travel on the header communicator w->hc, everything else on w->c.
void send_bytes(window* w, int peer, int tag, void* buf, size_t bytes);
// Sends (buf, count, dt) as typed data (the engine packs it); dt is retained until sent.
void send_typed(window* w, int peer, int tag, const void* buf, int64_t count, const datatype* dt);
// Answers an operation from `origin`: its error (with the error text), else `bytes` of data.
void reply(window* w, int origin, int32_t tag, errc e, const void* data, size_t bytes);

// ---- target side (win_target.cpp) ----

// Posts the receive of the next header (any origin) on the header communicator.
void post_hdr(window* w);
// The window poller: applies the operations whose messages have arrived.
bool rma_poll();

// ---- origin side (win_origin.cpp) ----

// Completes a user's request-based operation with e (or frees it when the user freed it).
void complete_user(request* u, errc e);
// Posts the receive of the reply to the operation about to be sent; returns its tag.
int32_t expect_reply(window* w, int target, size_t reply_bytes, void* result, int64_t rcount, const datatype* rtype,
                     request* user);
// Sends a header-only control operation (lock, unlock) to target.
void send_control(window* w, int target, op_kind k, lock_kind lk);

// ---- synchronization helpers (win_sync.cpp) ----

template <class Done>
void wait_for(Done done) {
  core::engine_guard g;
  core::progress_wait(g, done);
}

// The error a target reported for an earlier operation, as this call's error (then cleared).
errc take_deferred(window* w);
// Returns when every member of the window has called it.
errc barrier(window* w);
// Whether an epoch open at this origin covers target.
bool may_access(const window* w, int target);

// ---- shared windows (win.cpp) ----

void shm_release(window* w);
// Allocates the shared segment of `w` (every member on this host).
errc shm_setup(window* w);

}  // namespace baton::rma::detail
