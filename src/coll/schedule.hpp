// Collective schedules: typed plans of point-to-point and local steps with dependencies, and the
// one executor that runs any of them.
//
// A plan is immutable once built: steps (send, recv, reduce, copy) that name their buffers as
// slots plus byte offsets (user send buffer, user receive buffer, temporaries), the element count
// and datatype they move, and the steps they depend on. The same plan can be run many times (a
// schedule cache, a persistent collective), each run with its own small state: the slot base
// addresses, one counter per step, and the requests in flight.
//
// Execution is event driven: a step starts when its dependency counter reaches zero; a
// point-to-point step's completion callback queues its run; the collective poller then retires
// the completed steps and starts their successors. Work per poll scales with the events that
// happened, not with the number of pending collectives.
//
// Matching: collective traffic travels on the communicator's collective context (ctx + 1). The
// tag of a message is (blocking/nonblocking bit | sequence number of the collective | ordinal of
// the message between this pair of ranks in the plan), so messages of different collectives never
// match, and messages of one collective between two ranks match in plan order whatever order the
// executor starts them in.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"

namespace baton::core {
class comm;
class datatype;
class op;
}  // namespace baton::core

namespace baton::coll {

using core::errc;

namespace shm {
struct region;
}

// Buffer slots. Temporaries are slot_tmp + k.
enum : uint8_t { slot_send = 0, slot_recv = 1, slot_tmp = 2, max_slots = 8 };

struct buf_ref {
  uint8_t slot = slot_send;
  int64_t offset = 0;  // bytes from the slot's base
};

// task: a step outside the shared-memory region (a file access that an I/O worker runs, see
// src/io/collective.cpp): `fn` with `arg` is tried when the step becomes ready and then on every
// collective poll until it returns true. It must not block.
enum class step_kind : uint8_t { send, recv, reduce, copy, poll, task };

struct step;

// What a poll step sees of its run: the communicator, the shared-memory region and the run's
// sequence number on it (the communicator's region and its next coll_shm_seq for blocking and
// nonblocking runs; a persistent operation's own region and its start count for a bound run),
// the slot base addresses, the plan's op, and where to record an error.
struct poll_ctx {
  core::comm* c = nullptr;
  const shm::region* g = nullptr;
  uint64_t seq = 0;
  void* const* base = nullptr;
  const core::op* op = nullptr;
  errc* error = nullptr;
  char* address(buf_ref b) const { return static_cast<char*>(base[b.slot]) + b.offset; }
  void fail(errc e) const {
    if (*error == errc::success) *error = e;
  }
};
// A poll step's work: returns true once the step is done, false to be polled again (it must not
// block). Used by the shared-memory algorithms (wait for a flag, publish, read peers' buffers).
using poll_fn = bool (*)(const poll_ctx& ctx, const step& s);

struct step {
  step_kind kind = step_kind::send;
  int32_t peer = 0;          // send/recv: rank in the communicator
  uint32_t ordinal = 0;      // send/recv: index of this message between the pair (tag low bits)
  buf_ref a;                 // send: source; recv: destination; reduce: in; copy: source
  buf_ref b;                 // reduce: inout (inout = a op inout); copy: destination
  int64_t count = 0;         // elements of `type`
  const core::datatype* type = nullptr;
  poll_fn fn = nullptr;      // poll: the work (peer, a, b, count, type are its arguments)
  void* arg = nullptr;       // task: the work's state (owned by whoever built the plan)
  uint32_t dep_begin = 0, dep_end = 0;    // plan::deps[dep_begin, dep_end): steps to wait for
  uint32_t succ_begin = 0, succ_end = 0;  // plan::succs: steps that wait for this one
};

// A step of the given kind (dependencies are added by builder::add).
inline step make_step(step_kind k, int peer, buf_ref a, buf_ref b, int64_t count, const core::datatype* t) {
  step s;
  s.kind = k;
  s.peer = peer;
  s.a = a;
  s.b = b;
  s.count = count;
  s.type = t;
  return s;
}

class plan {
 public:
  std::vector<step> steps;
  std::vector<uint32_t> deps;
  std::vector<uint32_t> succs;
  int64_t tmp_bytes[max_slots - slot_tmp] = {};  // size of each temporary slot
  int ntmp = 0;
  const core::op* op = nullptr;                  // reductions (retained)
  const struct algorithm* al = nullptr;          // the algorithm that built it (coll::build_plan)
  std::vector<const core::datatype*> types;      // every datatype the steps use (retained)
  bool commutative_order = true;
  bool runs_inline = false;  // a chain of poll/copy/reduce steps without temporaries (run_inline can run it)
  bool uses_shm = false;  // has poll steps on the communicator's shared region: each run takes a sequence number
  // Receives may take less than their count (a collective read's data past the end of the file is
  // not sent: src/io/collective.cpp). Otherwise a receive step that gets less than it posted shows
  // that the ranks' counts or datatypes disagree (its run fails with MPI_ERR_TRUNCATE).
  bool short_recvs = false;
  int64_t max_step_bytes = 0;  // largest data one step moves or combines (set by finish())
  int64_t shm_data_bytes = 0;  // largest data a rank publishes per run in a region (a persistent region's buffer)
  // The (peer, ordinal) pairs of its send steps as a 64-bit set (send_bit; set by finish()): what a
  // finished run is remembered by, for a peer's probe (src/coll/mismatch.cpp).
  uint64_t send_set = 0;
  mutable std::atomic<int> refs{1};  // the builder's reference, plus one per run and cache entry

  void retain() const { refs.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  plan() = default;
  plan(const plan&) = delete;
  plan& operator=(const plan&) = delete;
  ~plan();
};

// Appends steps to a plan. Algorithms use it; `finish()` computes successors and ordinals.
class builder {
 public:
  explicit builder(plan& p) : p_(p) {}

  // Each returns the new step's index. `after` lists the steps it depends on.
  uint32_t send(int peer, buf_ref src, int64_t count, const core::datatype* t, std::initializer_list<uint32_t> after = {});
  uint32_t recv(int peer, buf_ref dst, int64_t count, const core::datatype* t, std::initializer_list<uint32_t> after = {});
  uint32_t reduce(buf_ref in, buf_ref inout, int64_t count, const core::datatype* t,
                  std::initializer_list<uint32_t> after = {});
  uint32_t copy(buf_ref src, buf_ref dst, int64_t count, const core::datatype* t,
                std::initializer_list<uint32_t> after = {});
  // A step the executor polls until fn returns true (peer, a, b, count, t are fn's arguments).
  // Marks the plan as using the communicator's shared-memory region.
  uint32_t poll(poll_fn fn, int peer, buf_ref a, buf_ref b, int64_t count, const core::datatype* t,
                std::initializer_list<uint32_t> after = {});
  // A task step (step_kind::task): fn(ctx, step) is polled until it returns true; `arg` is its
  // state, a the buffer it works on, and (count, t) the data it moves (which makes a run worth
  // handing to the progress thread like a message of that size). Does not use the region.
  uint32_t task(poll_fn fn, void* arg, buf_ref a, int64_t count, const core::datatype* t,
                const std::vector<uint32_t>& after);
  // Variants taking a dependency vector.
  uint32_t add(step s, const std::vector<uint32_t>& after);

  // Declares temporary slot k of `bytes` bytes; returns its slot number.
  uint8_t temp(int64_t bytes);
  void set_op(const core::op* op);
  // Shared-memory algorithms: the bytes a rank publishes per run (the buffer a persistent
  // operation's own region needs).
  void shm_data(int64_t bytes);

  void finish();
  uint32_t size() const { return static_cast<uint32_t>(p_.steps.size()); }

 private:
  plan& p_;
};

// One execution of a plan.
struct run;

// Starts running `p` on communicator c with the given user buffers; `tag_prefix` carries the
// blocking bit and the sequence number. The returned request is a collective request (refuses
// MPI_Request_free / MPI_Cancel) that completes when every step has. The run takes its own
// reference on `p`. `ctx` (0: the communicator's collective context) is the matching context of
// the plan's messages: agreements (coll::start_agreement) run on one of their own.
// `into`: a request made earlier by coll_request_unattached, which the run completes instead of a
// new one (*out is then `into`).
[[nodiscard]] errc run_start(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, int tag_prefix,
                             core::request** out, uint32_t ctx = 0, core::request* into = nullptr);
// A pending collective request that no run completes yet (a call deferred until its
// communicator's region is set up: coll::start_deferred gives it to run_start, or fails it).
core::request* coll_request_unattached();
// Completes such a request with error e.
void coll_request_fail(core::request* u, errc e);

// Runs a plan with runs_inline set to completion on the caller's stack (blocking collectives):
// no run, no request; poll steps wait through the progress engine. Expects the engine lock held
// (released while waiting). Returns the first error of the steps.
[[nodiscard]] errc run_inline(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf,
                              core::engine_guard& g);

// Collective tag layout (31 bits): bit 30 nonblocking, bits 12..29 sequence, bits 0..11 ordinal.
// The sequence wraps every 2^18 collectives, so at most max_outstanding collectives may be running
// on one communicator at once (MPIX_ICOLL_MAX_OUTSTANDING); start() refuses more.
constexpr uint32_t max_outstanding = (1u << 18) - 1;
inline int make_tag_prefix(uint64_t seq, bool nonblocking) {
  return (nonblocking ? (1 << 30) : 0) | static_cast<int>((seq & 0x3ffff) << 12);
}

// The verdict of a rank that failed a communicator without a shared-memory region (where peers
// read it from its log instead): a message on the collective context with this tag, which no
// collective, persistent collective or communicator creation uses (src/coll/mismatch.cpp).
constexpr int verdict_tag = -4000;
// A probe: "I wait at this collective for your message of this ordinal" (src/coll/mismatch.cpp).
constexpr int probe_tag = -4001;

// ---- Runs bound once and started many times (persistent collectives: src/coll/persistent.cpp) ----
//
// Persistent collectives match in a tag space of their own: negative tags in (-2^30, -4096], one
// block of 4096 ordinals per persistent id, so they never meet blocking or nonblocking collectives
// (non-negative tags), communicator creation (below -2^30) or the wildcards. Consecutive starts of
// one persistent operation reuse its tags: a pair's messages arrive in order, and a start begins
// only after the previous one completed locally, so start k's messages match start k's steps.
constexpr uint32_t max_persistent_ids = (1u << 18) - 1;
inline int persistent_tag(uint32_t id, uint32_t ordinal) {
  return -static_cast<int>(((id + 1) << 12) | (ordinal & 0xfff));
}

// Binds a run of `p` on c to these buffers once: temporaries, per-step state, and one prepared
// point-to-point request per send/recv step (peer, tag, buffer and type fixed). `user` is the
// persistent request each start completes. A plan with poll steps needs `own`, a region made for
// this operation (shm::region_make): its poll steps use it with the start count as sequence
// number; the run owns it from then on (run_unbind destroys it). The run takes references on p
// and c. Engine lock held.
[[nodiscard]] errc run_bind(const plan* p, core::comm* c, const void* sendbuf, void* recvbuf, uint32_t persistent_id,
                            shm::region* own, core::request* user, run** out);
// Starts a bound run again; the previous start must have completed. Allocates nothing. Engine
// lock held.
void run_restart(run* r);
// Tries to move a started bound run on at once (its pending shared-memory steps, then the steps
// they release), without a full progress poll: the waiter's fast path. Returns true once the
// run's request is complete. Engine lock held.
bool run_try_finish(run* r);
// Releases a bound run that is not running.
void run_unbind(run* r);
// The handle a user op's callback receives for datatype t (the ABI code of a predefined type, the
// object's address otherwise).
void* type_abi_handle(const core::datatype* t);

// Frees the pool of finished runs (at MPI_Finalize).
void run_pool_clear();

// Fails every pending blocking or nonblocking run of c with `e` (engine lock held;
// src/coll/mismatch.cpp): none starts another step, their messages in flight are cancelled, and
// their requests complete once no receive of theirs can still write into a user buffer. Runs
// with file-access steps are left alone (their steps belong to an I/O worker).
void runs_fail(core::comm* c, errc e);

// Evidence in the unexpected queues that the ranks of a communicator with a pending run disagree
// (src/coll/mismatch.cpp), which works where no shared-memory log does (across hosts, before a
// communicator's region, intercommunicators): a message of the run's collective that none of its
// receive steps takes, or takes with less room (the peer's plan is not this one); a message of one
// of the last 64 collectives that finished here (the peer's plan sent more); or, for a blocking
// run, a message of a later collective from a rank that one of its receive steps still waits for
// (that rank's call returned without sending it).
struct stray_message {
  core::comm* c = nullptr;        // the communicator (an intercommunicator's bridge)
  const plan* p = nullptr;        // the pending run's plan (valid while the engine lock is held;
                                  // nullptr for `finished`)
  int tag_prefix = 0;             // of the collective at fault (make_tag_prefix)
  int src = 0, tag = 0;           // the message's
  uint64_t len = 0;
  int64_t room = -1;              // bytes of the receive step of that source and ordinal (-1: none;
                                  // moved_on: of the step that waits)
  bool moved_on = false;          // the third kind
  bool finished = false;          // the second kind
  uint32_t ctx = 0;               // the matching context the messages came on
  uint64_t seq = 0;               // the collective at fault (its number on c)
};
// Finds one among the pending runs that are neither bound nor failed, have no file-access steps
// and run on a communicator without a shared-memory region (whose ranks' logs are checked
// instead) (engine lock held; a stall check: it walks every unexpected message of their contexts).
bool runs_find_stray(stray_message* out);
// A rank whose run waits: the peers it waits for, to ask (src/coll/mismatch.cpp). For each pending
// run on a communicator without a region whose receive steps have moved nothing for 3 stall checks
// (then every 10 more), one entry per peer it waits for (its first waiting step's ordinal).
struct waiting_for {
  core::comm* c = nullptr;
  uint64_t seq = 0;
  int tag_prefix = 0;
  int peer = 0;
  uint32_t ordinal = 0;
};
std::vector<waiting_for> runs_to_probe();
// What this rank did at collective `seq` (tags tag_prefix) of c for `peer`'s receive of `ordinal`
// (engine lock held): not reached yet, sends it (pending or finished; or not known any more), or
// never sends it (the finished or pending plan has no such send).
enum class probe_answer : uint8_t { not_reached, sends, never_sends };
probe_answer runs_answer_probe(core::comm* c, uint64_t seq, int tag_prefix, int peer, uint32_t ordinal);

// The communicators without a region with pending runs on their collective context (not bound,
// not failed), each once, with the sequence number of the latest such run (engine lock held).
struct pending_collective {
  core::comm* c = nullptr;
  uint64_t seq = 0;
};
std::vector<pending_collective> runs_pending();

// Registers the collective poller with the progress engine (once).
void schedule_init();

// Number of collective runs in flight and the bytes they hold (for MPIX_ICOLL_MAX_OUTSTANDING
// and memory reporting).
uint64_t runs_in_flight();
// Whether the progress thread takes nonblocking runs of this plan over from their start (steps
// moving core::thread_work_min_bytes or more; smaller runs start in the application's call).
bool plan_wants_thread(const plan* p);

}  // namespace baton::coll
