// Communicators (intracommunicators, and intercommunicators: see `inter` below). A communicator owns two matching contexts: `ctx` for
// point-to-point traffic and `ctx + 1` for collective traffic, so collectives never match user
// messages. Context ids are agreed collectively (comm_create_context) and never collide.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/attr.hpp"
#include "core/error.hpp"
#include "core/session_link.hpp"

namespace baton::core {

class request;
struct topology;  // core/topo.hpp

constexpr uint32_t comm_magic = 0x434f4d31;  // "COM1"

enum class errhandler_kind : uint8_t { fatal, ret, abort, user };

class errhandler {
 public:
  uint32_t magic = 0x45524831;
  errhandler_kind kind = errhandler_kind::fatal;
  void* user_fn = nullptr;  // the C callback (opaque to the core; src/abi calls it)
  std::atomic<int> refs{1};
  bool predefined = false;
  bool for_session = false;  // made by MPI_Session_create_errhandler: its callback takes an MPI_Session*
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
};
errhandler* errhandler_predefined(errhandler_kind k);

class comm {
 public:
  uint32_t magic = comm_magic;
  uint32_t ctx = 0;       // point-to-point context; ctx + 1 is the collective context
  int rank = 0;
  int size = 0;
  std::vector<int> world;  // comm rank -> world rank
  std::string name;
  errhandler* eh = nullptr;
  std::atomic<int> refs{1};  // the user's handle plus every pending operation on it
  bool predefined = false;
  uint64_t coll_seq = 0;     // collective sequence number, consumed identically by every rank
  uint32_t coll_pending = 0; // collective schedules of this communicator still running
  uint64_t pcoll_seq = 0;    // persistent collective inits so far (src/coll/persistent.cpp)
  std::vector<uint64_t> pcoll_live;  // bitmap of persistent collective ids in use (lazily sized)
  // Shared-memory collectives (src/coll/shm_region.hpp): the region, its state, the sequence
  // number its runs consume (identically on every rank), and how to unmap it when the
  // communicator is destroyed.
  void* coll_shm = nullptr;
  uint8_t coll_shm_state = 0;
  uint64_t coll_shm_seq = 0;
  void (*coll_shm_free)(comm*) = nullptr;
  // How the ranks sit on hosts (src/coll/hosts.hpp, the host-aware collectives): computed from
  // the runtime's host map on first use, without communication, and kept for the communicator's life.
  std::shared_ptr<const void> coll_hosts;
  std::vector<attribute> attrs;  // cached attributes, in the order first set (src/abi runs callbacks)
  std::vector<std::pair<std::string, std::string>> hints;  // info hints (MPI_Comm_set_info)
  std::shared_ptr<const topology> topo;  // process topology (core/topo.hpp), shared with dups
  // Intercommunicators. For an intercommunicator (`inter`), `rank` is this process's rank in the
  // local group, while `size` and `world` describe the REMOTE group: they are what point-to-point
  // addresses (a destination or source rank names a remote process, and a message carries the
  // sender's local rank, which is the receiver's remote rank). `local_world` is the local group
  // (local rank -> world rank). `bridge` is a hidden intracommunicator over both groups, each group
  // contiguous in it: local rank i is bridge rank bridge_local + i, remote rank j is bridge rank
  // bridge_remote + j. Intercommunicator collectives run as ordinary plans on the bridge (its
  // collective context and sequence numbers); the bridge lives and dies with the intercommunicator.
  bool inter = false;
  std::vector<int> local_world;
  comm* bridge = nullptr;
  int bridge_local = 0;
  int bridge_remote = 0;
  // Buffered mode (MPI-4.1 3.6): the buffer attached to this communicator (MPI_Comm_attach_buffer,
  // not inherited by communicators made from it), and the session this communicator derives from
  // (nullptr in the World model; inherited by dup, split, create...). Engine lock.
  p2p::bsend_buffer* bsend = nullptr;
  std::shared_ptr<session_link> session;
  // Point-to-point requests on this communicator started and not yet complete (user and
  // internal ones; MPI_Comm_disconnect waits for them). Engine lock.
  uint32_t p2p_pending = 0;
  int local_size() const { return inter ? static_cast<int>(local_world.size()) : size; }

  int world_rank(int r) const { return world[static_cast<size_t>(r)]; }
  // MPI_COMM_WORLD and MPI_COMM_SELF live until MPI_Finalize: no count (it would cost two atomic
  // read-modify-writes per operation on them, shared by every thread).
  void retain() {
    if (!predefined) refs.fetch_add(1, std::memory_order_relaxed);
  }
  void release();
};

// Builds a communicator over the given world ranks with a context agreed by the parent's members.
// Collective over `parent`; `members` is this rank's new group (empty: this rank gets no comm).
// comm_dup, comm_split, comm_create and the idup pair also take an intercommunicator parent (see
// intercomm_dup and the others below).
[[nodiscard]] errc comm_dup(comm* parent, comm** out);
[[nodiscard]] errc comm_split(comm* parent, int color, int key, comm** out);
[[nodiscard]] errc comm_free(comm* c);
// MPI_Comm_create: collective over `parent`; `members` (world ranks, this rank's group, possibly
// different but disjoint on other ranks) must be parent members. *out is nullptr for non-members.
[[nodiscard]] errc comm_create(comm* parent, const std::vector<int>& members, comm** out);
// MPI_Comm_create_group: collective over `members` only (world ranks, all of them in `parent`, the
// caller among them). The agreement runs on the parent's collective context with tag
// create_group_tag(tag): negative, below -2^30, so it never meets the tags of the parent's
// collectives (all non-negative: see coll::make_tag_prefix), nor the wildcard values; concurrent
// calls over disjoint groups, or with distinct tags, cannot cross.
[[nodiscard]] errc comm_create_group(comm* parent, const std::vector<int>& members, int tag, comm** out);
constexpr int create_group_tag(int tag) { return -0x40000000 - int(uint32_t(tag) & 0x3fffffffu); }
// FNV-1a over n bytes from h (start with fnv_offset): the digests that derive agreement tags and
// check keys from string tags and member lists (MPI_Comm_create_from_group, intercommunicators).
constexpr uint64_t fnv_offset = 0xcbf29ce484222325ull;
inline uint64_t fnv1a(const void* p, size_t n, uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
// MPI_Comm_create_from_group: collective over `members` only (world ranks, the caller among them),
// with no parent: the agreement runs over rt().processes (a context no user communicator has) with
// tag create_group_tag(tag), `tag` being derived from the string tag. First the first member
// gathers every member's `key` (a digest of the string tag and the member list): if they differ,
// every member fails with errc::not_same. *out gets the caller's error handler set by the caller.
[[nodiscard]] errc comm_create_from_group(const std::vector<int>& members, int tag, uint64_t key, comm** out);
// Rank in `c` of world rank `w`, -1 if not a member.
int comm_rank_of_world(const comm* c, int w);

// Internal blocking collectives over a subset of an intracommunicator, as point-to-point on its
// collective context (comm.cpp). `members` are ranks of `c` (every member passes the same list),
// `me` this rank's index in it; the first member is the root. comm_next_tag consumes one collective
// sequence number of `c` (every member of `c` must call it identically) and gives its tag.
int comm_next_tag(comm* c);
// Waits for a request of the p2p engine made by these helpers, frees it, and gives its error.
[[nodiscard]] errc wait_free(request* r);
[[nodiscard]] errc gather_among(comm* c, const std::vector<int>& members, int me, int tag, const void* in,
                                size_t bytes, void* out);
[[nodiscard]] errc bcast_among(comm* c, const std::vector<int>& members, int me, int tag, void* buf, size_t bytes);
[[nodiscard]] errc allgather_among(comm* c, const std::vector<int>& members, int me, int tag, const void* in,
                                   size_t bytes, void* out);

// Intercommunicators (intercomm.cpp). The bridge of an intercommunicator puts first the group whose
// leader has the lower world rank (Intercomm_create, Intercomm_create_from_groups); communicators
// derived from an intercommunicator (dup, idup, split, create) keep their parent's bridge order.
// The intercommunicator's point-to-point context is its bridge's (c->ctx == bridge->ctx): the
// bridge's own point-to-point is never used, and its collective context (ctx + 1) carries the
// intercommunicator's collectives and the internal agreements of dup/split/merge.
// MPI_Intercomm_create: collective over `local` (an intracommunicator); only the local leader
// uses `peer`, `remote_leader` and `tag` (its exchange with the remote leader runs over `peer`'s
// point-to-point context with `tag`, as the standard says). `leader_error` is the local leader's
// verdict on its own arguments: when it is not success, the leader skips the exchange and every
// member of `local` fails with it.
[[nodiscard]] errc intercomm_create(comm* local, int local_leader, comm* peer, int remote_leader, int tag,
                                    errc leader_error, comm** out);
// MPI_Intercomm_create_from_groups: `local` / `remote` are world ranks (disjoint, the caller in
// `local`); `tag` and `key` derived from the string tag as for comm_create_from_group.
[[nodiscard]] errc intercomm_create_from_groups(const std::vector<int>& local, int local_leader,
                                                const std::vector<int>& remote, int remote_leader, int tag,
                                                uint64_t key, comm** out);
// MPI_Intercomm_merge: collective over both groups of `ic`.
[[nodiscard]] errc intercomm_merge(comm* ic, bool high, comm** out);
// What comm_dup, comm_split, comm_create and comm_idup_prepare do when their parent is an
// intercommunicator (they call these): the result is an intercommunicator (nullptr where the
// standard gives MPI_COMM_NULL). intercomm_create_sub takes this side's group (world ranks, a
// subset of the local group); it is a split with color 0 for the group's members, keyed by their
// position in it.
[[nodiscard]] errc intercomm_dup(comm* ic, comm** out);
[[nodiscard]] errc intercomm_split(comm* ic, int color, int key, comm** out);
[[nodiscard]] errc intercomm_create_sub(comm* ic, const std::vector<int>& members, comm** out);
comm* intercomm_idup_prepare(comm* ic);

// MPI_Comm_idup in two steps: comm_idup_prepare makes the new communicator (its ctx is
// context_none: unusable until the request completes), the caller copies attributes and hints onto
// it, then comm_idup starts the agreement (collective over `parent`) and gives a collective-kind
// request that completes when the context is set (status.error says if the agreement failed). If
// the caller fails between the two, it still starts the agreement (the other ranks need it) and
// abandons the request with comm_idup_abandon (freed when the agreement ends).
comm* comm_idup_prepare(comm* parent);
[[nodiscard]] errc comm_idup(comm* parent, comm* c, request** req);
void comm_idup_abandon(request* req);

// Context ids (comm_context.cpp). Each process keeps a free mask of 16384 context pairs, split into
// an eager portion (the first 4096 pairs) and a main portion. An agreement runs in rounds over the
// members, as internal point-to-point on the parent's collective context with one tag (the
// parent's collective sequence, or create_group_tag): every member sends the root its free mask of
// the portions it owns (zeros elsewhere) and the ownership flags; the root ANDs them and sends back
// the lowest common free pair, or "retry". A process lends each portion to one agreement at a time,
// so concurrent agreements never pick the same pair. Round 0 uses the eager portion if it is free
// (one round in the common case); it also proves that every member has started the agreement, so
// from round 1 on an agreement never waits on a rank that has not joined. In round 1 and later
// the main portion (and the eager one, if free) goes to this process's highest-priority pending
// agreement, priority being (parent context, tag), the same order on every process: the highest
// agreement pending anywhere gets the portion on all its members within a round or two, then the
// next, so concurrent agreements over overlapping communicators never livelock or deadlock.
// Rounds advance from the progress engine (request callbacks only count and queue), so
// MPI_Comm_idup is truly nonblocking; the blocking constructors start an agreement and wait.
constexpr uint32_t context_none = ~0u;  // the context of a communicator whose idup is pending
// Agreed over all of `parent` (blocking; consumes one collective sequence number).
[[nodiscard]] errc comm_agree_context(comm* parent, uint32_t* ctx);
// The same over a subset of the parent: `members` are parent ranks (ascending order is not
// required, but every member must pass the same list), `tag` is used on the collective context.
[[nodiscard]] errc comm_agree_context_among(comm* parent, const std::vector<int>& members, int tag, uint32_t* ctx);
// Context pairs in use in this process (tests).
int context_in_use_count();
void context_release(uint32_t ctx);
void context_reserve(uint32_t ctx);

}  // namespace baton::core
