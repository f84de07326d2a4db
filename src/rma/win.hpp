// One-sided communication (MPI-4.1 chapter 12): windows, RMA operations and their synchronization.
//
// Design (docs/rma.md has the long form). A window owns a private communicator, a dup of the one it
// was created over, so its traffic has a matching context nobody else uses. Every RMA operation is
// one message to the target (tag tag_hdr, on a second dup that carries headers alone, see
// window::hc): a header (operation, byte offset,
// target type as its compiled segments, accumulate op and element type), then the origin data
// inline when the whole message is small, else in a second message (tag tag_data) from the same
// origin, which the target receives right after the header. The target keeps one receive posted
// for headers from any origin; its completion only queues the message, and the window poller
// (registered with core::progress_add_poller) applies it, one operation at a time. So accumulates
// are atomic per element, and operations from one origin apply in the order they were issued (the
// point-to-point engine is non-overtaking per source and tag, and the header receive is not
// reposted until the operation it received is applied). Every operation is answered by a reply
// (tag reply_tag_base + sequence): an error code, then for gets and fetches the data. Replies
// count completions per target, which is what fence, flush, unlock and complete wait for; an
// error the target finds (a range outside a dynamic window's attached memory) comes back in the
// reply and is reported by the origin's next synchronization call.
//
// Puts and gets to a rank of this host may instead copy directly (window::direct, docs/rma.md).
//
// Locks are granted by the target's poller (a queue of waiters, exclusive versus shared). The
// memory model is MPI_WIN_UNIFIED: the target applies every operation with the CPU to the one copy
// of the window memory there is.
//
// All functions expect MPI to be initialized and arguments checked by src/abi/abi_rma.cpp; they
// take the engine lock themselves and set an error message on failure.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/attr.hpp"
#include "core/error.hpp"
#include "core/slab.hpp"

namespace baton::core {
class comm;
class datatype;
class op;
class request;
class errhandler;
}  // namespace baton::core

namespace baton::rma {

using core::errc;

constexpr uint32_t win_magic = 0x57494e31;  // "WIN1"

enum class flavor : int { create = 311, allocate = 312, dynamic = 313, shared = 314 };

enum class lock_kind : uint8_t { none = 0, shared = 1, exclusive = 2 };

struct lock_waiter {
  int origin;
  lock_kind kind;
  int32_t reply_tag;
};

struct window : core::slab_allocated<window> {
  uint32_t magic = win_magic;
  core::comm* c = nullptr;  // private dup of the user's communicator
  // A second dup that carries only the operation headers (tag_hdr). The target's header receive
  // is a wildcard (any source); alone on its context it does not make every other message of
  // the window (replies, data, post / complete) scan a linear list of posted receives: with N
  // operations outstanding each incoming message cost O(N) to match on one shared context.
  core::comm* hc = nullptr;
  int rank = 0;
  int size = 0;
  void* base = nullptr;
  int64_t bytes = 0;
  int64_t disp_unit = 1;
  flavor fl = flavor::create;
  bool owns_memory = false;  // MPI_Win_allocate: base was allocated here
  std::vector<int64_t> sizes;       // every rank's window size (bytes)
  std::vector<int64_t> disp_units;  // every rank's displacement unit
  // Shared windows: the mapping of the whole segment and each rank's offset in it.
  void* shm = nullptr;
  size_t shm_bytes = 0;
  std::vector<int64_t> shm_offsets;
  // Direct path (BATON_RMA_DIRECT, on by default): puts and gets to ranks of this host copy
  // straight into / out of the target's window memory (itself, the shared mapping, or
  // process_vm_writev / readv) instead of a message. Per rank: same host, process id, base address.
  std::vector<uint8_t> same_host;
  std::vector<int64_t> pids;
  std::vector<int64_t> bases;
  bool direct = false;
  // Dynamic windows: attached regions (address, size).
  std::vector<std::pair<uintptr_t, int64_t>> attached;

  // User-visible state.
  std::string name;
  core::errhandler* eh = nullptr;
  std::vector<core::attribute> attrs;
  std::vector<std::pair<std::string, std::string>> hints;
  // Values the predefined attributes point at.
  int64_t attr_size = 0;
  int attr_disp_unit = 0;
  int attr_flavor = 0;
  int attr_model = 0;

  // ---- origin side ----
  uint64_t seq = 0;
  std::vector<int64_t> pending;  // operations to each target not yet answered
  int64_t pending_total = 0;
  int64_t sends_inflight = 0;    // messages of this window not yet sent (origin or target side)
  errc deferred = errc::success;  // first error a target reported, given at the next synchronization
  std::string deferred_msg;
  bool fence_epoch = false;      // a fence opened an epoch (no MPI_MODE_NOSUCCEED)
  std::vector<uint8_t> locked;   // lock_kind this rank holds on each target
  std::vector<uint8_t> lock_nocheck;  // the lock was taken with MPI_MODE_NOCHECK
  bool lock_all = false;
  int locks_held = 0;
  std::vector<int> access_group;  // PSCW access epoch (MPI_Win_start): targets, ranks of c
  bool access_epoch = false;
  std::vector<uint8_t> in_access;  // per rank: member of the access group
  int posts_seen = 0;              // MPI_Win_start: posts received for the current access epoch
  int posts_needed = 0;

  // ---- target side ----
  core::request* hdr_req = nullptr;  // the posted header receive
  char* hdr_buf = nullptr;
  bool hdr_busy = false;             // a header is being applied (no receive posted)
  lock_kind lock_state = lock_kind::none;
  int shared_holders = 0;
  std::deque<lock_waiter> lock_queue;
  bool exposure_epoch = false;  // MPI_Win_post
  int dones_seen = 0;
  int dones_needed = 0;
  bool freeing = false;
};

// Creation (collective over the user's communicator). `wc` and `hc` are two duplicates of it, made
// by the caller (communicator construction is the layer above this one: src/abi makes them with
// comm::comm_dup) for the window's traffic and its headers (window::c, window::hc); the window
// takes them over, and frees them when it goes or when creation fails. `base`/`bytes` for create;
// allocate and shared allocate memory. `info` entries are the hints given. On success *out is a
// new window; the caller sets its error handler.
[[nodiscard]] errc win_create(core::comm* wc, core::comm* hc, flavor fl, void* base, int64_t bytes, int64_t disp_unit,
                              const std::vector<std::pair<std::string, std::string>>& hints, window** out);
// MPI_Win_free: collective; refuses (errc::rma_sync) while an epoch or lock is open.
[[nodiscard]] errc win_free(window* w);

// Synchronization.
[[nodiscard]] errc win_fence(window* w, int assert_bits);
[[nodiscard]] errc win_lock(window* w, lock_kind k, int target, bool nocheck);
[[nodiscard]] errc win_unlock(window* w, int target);
[[nodiscard]] errc win_lock_all(window* w, bool nocheck);
[[nodiscard]] errc win_unlock_all(window* w);
// target -1: every target.
[[nodiscard]] errc win_flush(window* w, int target);
// MPI_Win_sync: a memory barrier that also advances the operations aimed at this process.
[[nodiscard]] errc win_sync(window* w);
[[nodiscard]] errc win_post(window* w, const std::vector<int>& origins, bool nocheck);
[[nodiscard]] errc win_start(window* w, const std::vector<int>& targets, bool nocheck);
[[nodiscard]] errc win_complete(window* w);
[[nodiscard]] errc win_wait(window* w);
[[nodiscard]] errc win_test(window* w, bool* flag);

// Dynamic windows.
[[nodiscard]] errc win_attach(window* w, void* base, int64_t bytes);
[[nodiscard]] errc win_detach(window* w, const void* base);

// Operations.
enum class op_kind : uint8_t { put = 1, get, acc, get_acc, cas, lock, unlock };
struct rma_args {
  op_kind kind = op_kind::put;
  const void* origin = nullptr;
  int64_t ocount = 0;
  const core::datatype* otype = nullptr;
  void* result = nullptr;
  int64_t rcount = 0;
  const core::datatype* rtype = nullptr;
  const void* compare = nullptr;  // compare and swap
  int target = 0;
  int64_t disp = 0;
  int64_t tcount = 0;
  const core::datatype* ttype = nullptr;
  const core::op* op = nullptr;
  bool request_based = false;  // MPI_Rput...: only inside a passive-target epoch
};
// Starts one operation; *req (when not null) gets a request that completes with the operation.
[[nodiscard]] errc win_op(window* w, const rma_args& a, core::request** req);

// Whether `w` is a live window.
bool win_valid(const window* w);

}  // namespace baton::rma
