// Building blocks of the host-aware (two-level) algorithms (algorithms/<coll>/<coll>_two_level.cpp).
//
// A communicator that spans hosts (src/coll/hosts.hpp) runs its collectives in two levels: inside
// each host along trees of point-to-point messages (the shared-memory transport, single copy for
// large ones), and between hosts among one leader per host, so each host sends and receives what
// one process needs instead of what every process needs. Large bcast, reduce and allreduce are cut
// into segments (hier_segment_bytes) that flow through both levels independently: the plan is a
// DAG, so segment k crosses between hosts while segment k+1 is combined inside the host.
//
// Everything here is plain send / recv / reduce / copy steps of the schedule engine, so blocking,
// nonblocking and persistent forms come for free, and every receive is an engine receive (a
// truncation or other receive error reaches the collective's result like any other algorithm's).
#pragma once

#include <cstdint>
#include <vector>

#include "coll/algorithms/algorithms.hpp"
#include "coll/hosts.hpp"

namespace baton::coll::two_level {

inline const core::datatype* byte_type() { return core::predefined_datatype(0x247); }

// This rank's host as a group.
inline group host_group(const host_layout& L, int me) {
  group g;
  const int h = L.host_of[size_t(me)];
  g.ranks.assign(L.members_of(h), L.members_of(h) + L.host_size(h));
  g.me = L.index_of[size_t(me)];
  return g;
}
// The hosts' leaders in host order; host `keep` is represented by rank `keep_leader` (a root)
// instead of its first member.
inline group leader_group(const host_layout& L, int me, int keep = -1, int keep_leader = -1) {
  group g;
  for (int h = 0; h < L.nhosts; ++h) {
    const int r = h == keep ? keep_leader : L.leader(h);
    if (r == me) g.me = h;
    g.ranks.push_back(r);
  }
  return g;
}

// Whether index `me` of a binomial tree of n rooted at `root` has children.
inline bool tree_has_children(int n, int me, int root) {
  const int vr = (me - root + n) % n;
  return vr + 1 < n && (vr & 1) == 0;
}

// Binomial broadcast in g from index `root` of `count` elements of t at buf. `ready`: the step
// after which buf holds the data (root) or may be overwritten (the others). Returns the step after
// which this rank holds the data; sends to children depend on it. A rank outside g does nothing.
inline uint32_t tree_bcast(builder& b, const group& g, int root, buf_ref buf, int64_t count, const core::datatype* t,
                           uint32_t ready) {
  const int n = g.size();
  if (g.me < 0 || n < 2) return ready;
  const int vr = (g.me - root + n) % n;
  uint32_t have = ready;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      have = b.add(make_step(step_kind::recv, g[(vr - mask + root) % n], buf, {}, count, t), after(ready));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) b.add(make_step(step_kind::send, g[(vr + mask + root) % n], buf, {}, count, t), after(have));
  return have;
}

// Binomial reduction in g towards index `root`: acc holds this rank's contribution after `ready`;
// children's partial results arrive in tmp and are combined into acc. With a non-commutative op
// the root must be index 0 and g in rank order: a child's subtree holds higher ranks than its
// parent's, so acc = acc op child keeps rank order. Returns the step after which acc holds the
// result (root), or the send to the parent (after which acc may be overwritten). `src` is what a
// rank without children sends (its own data, with no copy into acc); others send acc.
inline uint32_t tree_reduce(builder& b, const group& g, int root, buf_ref src, buf_ref acc, buf_ref tmp, int64_t count,
                            const core::datatype* t, bool commutative, uint32_t ready) {
  const int n = g.size();
  if (g.me < 0 || n < 2) return ready;
  const int vr = (g.me - root + n) % n;
  uint32_t last = ready;
  bool combined = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask)
      return b.add(make_step(step_kind::send, g[(vr - mask + root) % n], combined ? acc : src, {}, count, t),
                   after(last));
    if (vr + mask < n) {
      const uint32_t r = b.add(make_step(step_kind::recv, g[(vr + mask + root) % n], tmp, {}, count, t), after(last));
      if (commutative) {
        last = b.reduce(tmp, acc, count, t, {r});  // acc = child op acc
      } else {
        const uint32_t red = b.reduce(acc, tmp, count, t, {r});  // tmp = acc op child
        last = b.copy(tmp, acc, count, t, {red});
      }
      combined = true;
    }
  }
  return last;
}

// Number of pipeline segments for `bytes` of data in `count` elements: one per
// hier_segment_bytes, at most 64 (a pair of ranks exchanges a few messages per segment, and a
// plan numbers at most 4096 per pair), at most one per element.
inline int segments(int64_t bytes, int64_t count) {
  const int64_t seg = hier_segment_bytes();
  int64_t k = (bytes + seg - 1) / seg;
  if (k > 64) k = 64;
  if (k > count) k = count;
  return k < 1 ? 1 : int(k);
}

}  // namespace baton::coll::two_level
