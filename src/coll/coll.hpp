// Collective operations over the schedule engine.
//
// Every collective (blocking or not) builds a plan with the algorithm the registry selects
// (src/coll/algorithms.def: one line per algorithm), and runs it. A blocking collective is the
// nonblocking one plus a wait, on a separate tag space, so the two never match.
#pragma once

#include <cstdint>

#include "coll/schedule.hpp"
#include "core/error.hpp"
#include "core/request.hpp"

namespace baton::core {
class comm;
class datatype;
class op;
struct runtime_hook;
}  // namespace baton::core

namespace baton::coll {

enum class coll_kind : uint8_t {
#define BATON_COLLECTIVE(name) name,
#include "coll/collectives.def"
#undef BATON_COLLECTIVE
  count_
};
const char* coll_name(coll_kind k);

// Arguments of one collective call, as the algorithms see them.
struct coll_args {
  coll_kind kind = coll_kind::barrier;
  core::comm* c = nullptr;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  bool in_place = false;           // MPI_IN_PLACE was given
  int64_t count = 0;               // elements of `type` (per rank where the collective says so)
  const core::datatype* type = nullptr;
  int64_t rcount = 0;              // receive side, when it differs (gather, scatter, ...)
  const core::datatype* rtype = nullptr;
  const core::op* op = nullptr;
  int root = 0;
  // A persistent init: the buffers are bound for the operation's life and shared-memory steps get
  // a region of the operation's own, sized for it (predicates may allow larger messages).
  bool persistent = false;
  // Vector forms (gatherv, scatterv, allgatherv, alltoallv/w, reduce_scatter): per-rank counts
  // and displacements (in elements of the side's type; in bytes for alltoallw), and per-rank
  // types (alltoallw). Only valid while the plan is built: algorithms copy what they need.
  const int64_t* scounts = nullptr;
  const int64_t* sdispls = nullptr;
  const int64_t* rcounts = nullptr;
  const int64_t* rdispls = nullptr;
  const core::datatype* const* stypes = nullptr;
  const core::datatype* const* rtypes = nullptr;
};

// Plan builder of one algorithm. Returns errc on an impossible combination.
using build_fn = errc (*)(const coll_args& a, builder& b);
// Whether the algorithm can run these arguments at all.
using usable_fn = bool (*)(const coll_args& a);

struct algorithm {
  coll_kind kind;
  const char* name;
  build_fn build;
  usable_fn usable;
  usable_fn preferred;  // selection: the first preferred usable algorithm wins, else the first usable
  bool inter;           // an intercommunicator algorithm (BATON_INTER_ALGORITHM): selection only
                        // considers the lines of the communicator's kind (see serves())
};

// Whether algorithm al serves communicator kind of a (intercommunicator lines serve only
// intercommunicators, every other line only intracommunicators).
bool serves(const algorithm* al, const coll_args& a);
// The communicator a collective's plan runs on: a.c itself, or for an intercommunicator its
// hidden bridge intracommunicator (core/comm.hpp), whose collective context and sequence numbers
// every member of both groups consumes alike. Plans of intercommunicator algorithms name bridge
// ranks as peers.
core::comm* run_comm(const coll_args& a);

// The registry (from algorithms.def).
const algorithm* algorithms_begin();
const algorithm* algorithms_end();
// The algorithm to use: BATON_<COLL>_ALGORITHM=<name> overrides when usable.
const algorithm* select(const coll_args& a);
// al's plan for a, finished (one reference, the caller's).
[[nodiscard]] errc build_plan(const coll_args& a, const algorithm* al, plan** out);
// The value of BATON_<COLL>_ALGORITHM (read once for every collective; nullptr when unset or
// empty). A name that is no algorithm of k, or one not usable for a call, leaves the choice to
// the selection rules.
const char* algorithm_override(coll_kind k);

// Starts a collective: builds the plan and runs it. `nonblocking` picks the tag space. The first
// collective on a communicator begins its region's setup (shm::region_setup_start); until that
// is over, calls whose selection may read the region get a request whose run starts when it is
// (start_deferred), so every rank selects with the same state.
[[nodiscard]] errc start(const coll_args& a, bool nonblocking, core::request** out);
// Starts the calls deferred on c, in their order (engine lock held; c's region setup is over).
void start_deferred(core::comm* c);
// A nonblocking collective on a sequence number taken earlier (the region setup's own, which run
// on message algorithms while the setup is under way). Engine lock held.
[[nodiscard]] errc start_reserved(const coll_args& a, uint64_t seq, core::request** out);
// Agreement context: ctx + 98304 (ctx is even and below 32768, so this meets no communicator's
// point-to-point, collective, matched (ctx + 32768/9) or partitioned (ctx + 65536/7) traffic).
constexpr uint32_t agreement_ctx_offset = 98304;
// MPIX_Comm_iagree: *flag becomes the bitwise AND of every rank's *flag (coll.cpp).
[[nodiscard]] errc start_agreement(core::comm* c, int* flag, core::request** out);
// MPIX_Comm_agree: the same, blocking.
[[nodiscard]] errc agree(core::comm* c, int* flag);
// Drops every cached plan (at MPI_Finalize, with the pool of finished runs).
void cache_clear();
// Drops every cached plan (a communicator failed: src/coll/mismatch.cpp; an intercommunicator's
// plans are cached under it, its failure is noted on its bridge).
void cache_forget();
// The layer's start-up and shutdown (core/runtime.hpp; coll_runtime.cpp): cache_clear at shutdown.
extern const core::runtime_hook runtime_hook;
// Blocking form: start + wait; returns the collective's error.
[[nodiscard]] errc run_blocking(const coll_args& a);

// Helpers for algorithms.
inline int64_t extent_bytes(const core::datatype* t, int64_t count);

}  // namespace baton::coll
