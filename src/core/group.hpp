// Process groups (MPI-4.1 7.3): an ordered set of processes, kept as their world ranks.
//
// Groups are immutable once built and reference counted (the user's handle plus any internal
// holder). The empty group is one predefined object (group_empty()) that is never deleted.
// Every operation here is local; none communicates.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/session_link.hpp"
#include "core/slab.hpp"

namespace baton::core {

constexpr uint32_t group_magic = 0x47525031;  // "GRP1"

enum class cmp_result : int { ident, congruent, similar, unequal };

class group : public slab_allocated<group> {
 public:
  uint32_t magic = group_magic;
  std::vector<int> world;  // group rank -> world rank
  int rank = -1;           // this process's rank in the group, -1 if not a member
  std::atomic<int> refs{1};
  bool predefined = false;
  // The session whose process set this group derives from (nullptr otherwise); communicators
  // made from the group inherit it (core/session_link.hpp).
  std::shared_ptr<session_link> session;

  int size() const { return static_cast<int>(world.size()); }
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
};

// The predefined empty group (MPI_GROUP_EMPTY).
group* group_empty();
// A new group over these world ranks (the empty group when `world` is empty); refs = 1.
group* group_make(std::vector<int> world);

// Group constructors (7.3.2). Ranks are checked: out of range or repeated gives errc::rank,
// a zero stride errc::arg. Results that are empty are group_empty() (retained).
[[nodiscard]] errc group_incl(const group* g, int n, const int* ranks, group** out);
[[nodiscard]] errc group_excl(const group* g, int n, const int* ranks, group** out);
// ranges: n triplets (first, last, stride).
[[nodiscard]] errc group_range_incl(const group* g, int n, const int (*ranges)[3], group** out);
[[nodiscard]] errc group_range_excl(const group* g, int n, const int (*ranges)[3], group** out);
group* group_union(const group* a, const group* b);
group* group_intersection(const group* a, const group* b);
group* group_difference(const group* a, const group* b);

// ident (same members, same order), similar (same members), unequal. Never congruent.
cmp_result group_compare(const group* a, const group* b);
// Rank in `g` of world rank `w`, -1 if not a member.
int group_rank_of_world(const group* g, int w);

}  // namespace baton::core
