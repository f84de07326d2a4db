#include "core/group.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/runtime.hpp"

namespace baton::core {

void group::release() {
  if (predefined) return;
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    magic = 0;
    delete this;
  }
}

group* group_empty() {
  static group* g = [] {
    auto* e = new group;
    e->predefined = true;
    return e;
  }();
  return g;
}

group* group_make(std::vector<int> world) {
  if (world.empty()) return group_empty();
  auto* g = new group;
  g->world = std::move(world);
  const int me = rt().world_rank;
  for (size_t i = 0; i < g->world.size(); ++i)
    if (g->world[i] == me) g->rank = static_cast<int>(i);
  return g;
}

int group_rank_of_world(const group* g, int w) {
  if (w == rt().world_rank) return g->rank;
  for (size_t i = 0; i < g->world.size(); ++i)
    if (g->world[i] == w) return static_cast<int>(i);
  return -1;
}

namespace {
// Marks the ranks of `g` named in `ranks`; errc::rank for out of range or repeated ones.
errc mark_ranks(const group* g, int n, const int* ranks, std::vector<char>& seen) {
  if (n < 0) return error_set(errc::arg, "negative rank count %d", n);
  if (n > 0 && !ranks) return error_set(errc::arg, "NULL ranks array with n = %d", n);
  seen.assign(g->world.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= g->size())
      return error_set(errc::rank, "ranks[%d] = %d is not a rank of the group (size %d)", i, r, g->size());
    if (seen[size_t(r)]) return error_set(errc::rank, "ranks[%d] = %d appears twice", i, r);
    seen[size_t(r)] = 1;
  }
  return errc::success;
}

// Expands range triplets into a rank list, checking each rank as MPI_Group_range_incl requires.
errc expand_ranges(const group* g, int n, const int (*ranges)[3], std::vector<int>& out) {
  if (n < 0) return error_set(errc::arg, "negative range count %d", n);
  if (n > 0 && !ranges) return error_set(errc::arg, "NULL ranges array with n = %d", n);
  std::vector<char> seen(g->world.size(), 0);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return error_set(errc::arg, "ranges[%d] has stride 0", i);
    if (first < 0 || first >= g->size() || last < 0 || last >= g->size())
      return error_set(errc::rank, "ranges[%d] = (%d, %d, %d) names a rank outside the group (size %d)", i, first, last,
                       stride, g->size());
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;  // empty range
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[size_t(r)])
        return error_set(errc::rank, "ranges[%d] = (%d, %d, %d) names rank %d a second time", i, first, last, stride,
                         int(r));
      seen[size_t(r)] = 1;
      out.push_back(int(r));
    }
  }
  return errc::success;
}

// A group made from `from` keeps its session link (the empty group, shared, never does).
group* derive(group* out, const group* from) {
  if (!out->predefined) out->session = from->session;
  return out;
}

std::unordered_set<int> world_set(const group* g) {
  return {g->world.begin(), g->world.end()};
}
}  // namespace

errc group_incl(const group* g, int n, const int* ranks, group** out) {
  std::vector<char> seen;
  if (errc e = mark_ranks(g, n, ranks, seen); e != errc::success) return e;
  std::vector<int> w;
  w.reserve(size_t(n));
  for (int i = 0; i < n; ++i) w.push_back(g->world[size_t(ranks[i])]);
  *out = derive(group_make(std::move(w)), g);
  return errc::success;
}

errc group_excl(const group* g, int n, const int* ranks, group** out) {
  std::vector<char> seen;
  if (errc e = mark_ranks(g, n, ranks, seen); e != errc::success) return e;
  std::vector<int> w;
  for (size_t i = 0; i < g->world.size(); ++i)
    if (!seen[i]) w.push_back(g->world[i]);
  *out = derive(group_make(std::move(w)), g);
  return errc::success;
}

errc group_range_incl(const group* g, int n, const int (*ranges)[3], group** out) {
  std::vector<int> ranks;
  if (errc e = expand_ranges(g, n, ranges, ranks); e != errc::success) return e;
  std::vector<int> w;
  w.reserve(ranks.size());
  for (int r : ranks) w.push_back(g->world[size_t(r)]);
  *out = derive(group_make(std::move(w)), g);
  return errc::success;
}

errc group_range_excl(const group* g, int n, const int (*ranges)[3], group** out) {
  std::vector<int> ranks;
  if (errc e = expand_ranges(g, n, ranges, ranks); e != errc::success) return e;
  std::vector<char> drop(g->world.size(), 0);
  for (int r : ranks) drop[size_t(r)] = 1;
  std::vector<int> w;
  for (size_t i = 0; i < g->world.size(); ++i)
    if (!drop[i]) w.push_back(g->world[i]);
  *out = derive(group_make(std::move(w)), g);
  return errc::success;
}

group* group_union(const group* a, const group* b) {
  std::vector<int> w = a->world;
  auto in_a = world_set(a);
  for (int x : b->world)
    if (!in_a.count(x)) w.push_back(x);
  return derive(group_make(std::move(w)), a->session ? a : b);
}

group* group_intersection(const group* a, const group* b) {
  auto in_b = world_set(b);
  std::vector<int> w;
  for (int x : a->world)
    if (in_b.count(x)) w.push_back(x);
  return derive(group_make(std::move(w)), a->session ? a : b);
}

group* group_difference(const group* a, const group* b) {
  auto in_b = world_set(b);
  std::vector<int> w;
  for (int x : a->world)
    if (!in_b.count(x)) w.push_back(x);
  return derive(group_make(std::move(w)), a->session ? a : b);
}

cmp_result group_compare(const group* a, const group* b) {
  if (a->world == b->world) return cmp_result::ident;
  if (a->world.size() != b->world.size()) return cmp_result::unequal;
  std::vector<int> x = a->world, y = b->world;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? cmp_result::similar : cmp_result::unequal;
}

}  // namespace baton::core
