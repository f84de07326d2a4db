// Communicators (intracommunicators, and intercommunicators: see `inter` below). A communicator owns two matching contexts: `ctx` for
// point-to-point traffic and `ctx + 1` for collective traffic, so collectives never match user
// messages. Context ids are agreed collectively (src/comm/comm_context.cpp) and never collide.
// This is the communicator object (fields, reference count, attributes); constructing one is
// collective and lives in the layer above point-to-point and collectives (src/comm/comm.hpp).
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
#include "core/slab.hpp"

namespace baton::core {

class request;
struct topology;  // core/topo.hpp

constexpr uint32_t comm_magic = 0x434f4d31;  // "COM1"

enum class errhandler_kind : uint8_t { fatal, ret, abort, user };

class errhandler : public slab_allocated<errhandler> {
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

// A number no other communicator object of this process had or will have (a freed one's
// address and context come back; this does not).
uint64_t comm_serial_next();

class comm : public slab_allocated<comm> {
 public:
  uint32_t magic = comm_magic;
  uint64_t serial = comm_serial_next();
  uint32_t ctx = 0;       // point-to-point context; ctx + 1 is the collective context
  int rank = 0;
  int size = 0;
  std::vector<int> world;  // comm rank -> world rank
  std::string name;
  errhandler* eh = nullptr;
  std::atomic<int> refs{1};  // the user's handle plus every pending operation on it
  bool predefined = false;
  uint64_t coll_seq = 0;     // collective sequence number, consumed identically by every rank
  uint64_t agree_seq = 0;    // agreements (MPIX_Comm_agree) so far: their own sequence (coll::start_agreement)
  uint32_t coll_pending = 0; // collective schedules of this communicator still running
  // Set when the ranks' calls of one collective were found to disagree (src/coll/mismatch.cpp):
  // the error (and below, why). The communicator's collectives are refused from then on.
  errc coll_failed = errc::success;
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
  std::string coll_failed_why;  // see coll_failed
  int local_size() const { return inter ? static_cast<int>(local_world.size()) : size; }

  int world_rank(int r) const { return world[static_cast<size_t>(r)]; }
  // MPI_COMM_WORLD and MPI_COMM_SELF live until MPI_Finalize: no count (it would cost two atomic
  // read-modify-writes per operation on them, shared by every thread).
  void retain() {
    if (!predefined) refs.fetch_add(1, std::memory_order_relaxed);
  }
  void release();
};

[[nodiscard]] errc comm_free(comm* c);
// Rank in `c` of world rank `w`, -1 if not a member.
int comm_rank_of_world(const comm* c, int w);

// Frees a communicator's attached buffer (comm::bsend) when the communicator goes. The p2p layer,
// which owns buffered mode, sets it in its start-up hook (src/p2p/p2p_runtime.cpp): core cannot
// name a layer above it.
extern void (*comm_bsend_free)(p2p::bsend_buffer* b);

// The tag of the context agreement of MPI_Comm_create_group (src/comm/comm.cpp) and
// MPI_Comm_create_from_group: negative, below -2^30, so it never meets the tags of the parent's
// collectives (all non-negative: see coll::make_tag_prefix), nor the wildcard values; concurrent
// calls over disjoint groups, or with distinct tags, cannot cross.
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

// Context ids (context.cpp): each process keeps a free mask of context_words * 64 context pairs
// (pair k is contexts 2k, point-to-point, and 2k + 1, collective), split into an eager portion
// (the first context_eager_words words) and a main portion. The agreement that picks a pair free
// on every member of a new communicator is communicator construction (src/comm/comm_context.cpp);
// the mask is here because releasing a communicator gives its pair back.
constexpr int context_words = 256;       // 16384 pairs
constexpr int context_eager_words = 64;  // 4096 pairs
constexpr uint32_t context_none = ~0u;   // the context of a communicator whose idup is pending
// Context pairs in use in this process (tests).
int context_in_use_count();
// Marks the pair of context `ctx` used / free.
void context_reserve(uint32_t ctx);
void context_release(uint32_t ctx);
// Copies words [first, first + n) of the free mask (bit set: pair free) to out.
void context_mask_read(int first, int n, uint64_t* out);

}  // namespace baton::core
