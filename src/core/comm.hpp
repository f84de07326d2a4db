// Communicators (intracommunicators). A communicator owns two matching contexts: `ctx` for
// point-to-point traffic and `ctx + 1` for collective traffic, so collectives never match user
// messages. Context ids are agreed collectively (comm_create_context) and never collide.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace baton::core {

constexpr uint32_t comm_magic = 0x434f4d31;  // "COM1"

enum class errhandler_kind : uint8_t { fatal, ret, abort, user };

class errhandler {
 public:
  uint32_t magic = 0x45524831;
  errhandler_kind kind = errhandler_kind::fatal;
  void* user_fn = nullptr;  // the C callback (opaque to the core; src/abi calls it)
  std::atomic<int> refs{1};
  bool predefined = false;
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

  int world_rank(int r) const { return world[static_cast<size_t>(r)]; }
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
};

// Builds a communicator over the given world ranks with a context agreed by the parent's members.
// Collective over `parent`; `members` is this rank's new group (empty: this rank gets no comm).
[[nodiscard]] errc comm_dup(comm* parent, comm** out);
[[nodiscard]] errc comm_split(comm* parent, int color, int key, comm** out);
[[nodiscard]] errc comm_free(comm* c);

// Context ids: agreed over `parent` by an AND of every member's free mask.
[[nodiscard]] errc comm_agree_context(comm* parent, uint32_t* ctx);
void context_release(uint32_t ctx);
void context_reserve(uint32_t ctx);

}  // namespace baton::core
