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

// "No step": a dependency that is not there.
inline constexpr uint32_t none = UINT32_MAX;
inline std::vector<uint32_t> deps(uint32_t s) { return s == none ? std::vector<uint32_t>{} : std::vector<uint32_t>{s}; }
inline std::vector<uint32_t> deps(uint32_t s, uint32_t t) {
  std::vector<uint32_t> d = deps(s);
  if (t != none) d.push_back(t);
  return d;
}

inline const core::datatype* byte_type() { return core::predefined_datatype(0x247); }

// A list of communicator ranks (a host's members, or the hosts' leaders) and this rank's index in
// it (-1: not a member). Trees over a group are binomial over the indices.
struct group {
  std::vector<int> ranks;
  int me = -1;
  int size() const { return int(ranks.size()); }
  int operator[](int i) const { return ranks[size_t(i)]; }
};

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
      have = b.add(make_step(step_kind::recv, g[(vr - mask + root) % n], buf, {}, count, t), deps(ready));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < n) b.add(make_step(step_kind::send, g[(vr + mask + root) % n], buf, {}, count, t), deps(have));
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
                   deps(last));
    if (vr + mask < n) {
      const uint32_t r = b.add(make_step(step_kind::recv, g[(vr + mask + root) % n], tmp, {}, count, t), deps(last));
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

// Recursive-doubling allreduce among g (index order = rank order where the op is not
// commutative): log2 p exchange rounds among the largest power of two p <= n; the first 2(n-p)
// members fold pairwise before and get the result back after. acc holds this rank's data after
// `ready`; tmp is scratch. Returns the step after which acc holds the result. A rank outside g
// does nothing.
inline uint32_t group_allreduce(builder& b, const group& g, buf_ref acc, buf_ref tmp, int64_t count,
                                const core::datatype* t, bool commutative, uint32_t ready) {
  const int n = g.size(), me = g.me;
  if (me < 0 || n < 2) return ready;
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  uint32_t last = ready;
  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      const uint32_t s = b.add(make_step(step_kind::send, g[me + 1], acc, {}, count, t), deps(last));
      return b.recv(g[me + 1], acc, count, t, {s});
    }
    const uint32_t r = b.add(make_step(step_kind::recv, g[me - 1], tmp, {}, count, t), deps(last));
    last = b.reduce(tmp, acc, count, t, {r});  // acc = left op acc
    newrank = me / 2;
  } else {
    newrank = me - rem;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int newdst = newrank ^ mask;
    const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
    const uint32_t s = b.add(make_step(step_kind::send, g[dst], acc, {}, count, t), deps(last));
    const uint32_t r = b.add(make_step(step_kind::recv, g[dst], tmp, {}, count, t), deps(last));
    if (dst < me || commutative) {
      last = b.reduce(tmp, acc, count, t, {s, r});  // acc = theirs op acc
    } else {
      const uint32_t red = b.reduce(acc, tmp, count, t, {s, r});  // tmp = acc op theirs
      last = b.copy(tmp, acc, count, t, {red});
    }
  }
  if (me < 2 * rem) b.send(g[me - 1], acc, count, t, {last});
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
