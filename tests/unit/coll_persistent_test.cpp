// Pieces of persistent collectives that need no processes: the persistent tag space
// (src/coll/schedule.hpp), the circular FIFO of the shared-memory transport's output queues
// (core/fifo.hpp), pinned matching buckets and the pooled unexpected-message entries (match.hpp).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "coll/schedule.hpp"
#include "core/comm.hpp"
#include "core/fifo.hpp"
#include "p2p/match.hpp"

namespace baton {
namespace {

TEST(PersistentTag, RangeIsItsOwn) {
  // Blocking and nonblocking collectives use non-negative tags, communicator creation tags below
  // -2^30, the wildcards -2 and -3: persistent tags stay in (-2^30, -4096].
  for (uint32_t id : {0u, 1u, 4095u, 4096u, coll::max_persistent_ids - 1}) {
    for (uint32_t ord : {0u, 1u, 4095u}) {
      const int t = coll::persistent_tag(id, ord);
      EXPECT_LE(t, -4096) << id << " " << ord;
      EXPECT_GT(t, -(1 << 30)) << id << " " << ord;
      EXPECT_GT(t, core::create_group_tag(0));
    }
  }
  EXPECT_GE(coll::make_tag_prefix(coll::max_outstanding, true), 0);
}

TEST(PersistentTag, DistinctPerIdAndOrdinal) {
  std::set<int> seen;
  for (uint32_t id = 0; id < 64; ++id)
    for (uint32_t ord = 0; ord < 64; ++ord) EXPECT_TRUE(seen.insert(coll::persistent_tag(id, ord)).second);
  // the highest ids do not wrap into each other either
  EXPECT_NE(coll::persistent_tag(coll::max_persistent_ids - 1, 0), coll::persistent_tag(0, 0));
  EXPECT_NE(coll::persistent_tag(coll::max_persistent_ids - 1, 4095),
            coll::persistent_tag(coll::max_persistent_ids - 2, 4095));
}

TEST(Fifo, KeepsOrderAcrossGrowthAndWrap) {
  core::fifo<int> q;
  EXPECT_TRUE(q.empty());
  int next_in = 0, next_out = 0;
  // churn with a varying backlog: wraps around and grows several times
  for (int round = 0; round < 50; ++round) {
    const int push = 1 + (round * 37) % 300, pop = 1 + (round * 53) % 300;
    for (int i = 0; i < push; ++i) q.push_back(next_in++);
    for (int i = 0; i < pop && !q.empty(); ++i) {
      ASSERT_EQ(q.front(), next_out);
      q.pop_front();
      ++next_out;
    }
    ASSERT_EQ(q.size(), static_cast<size_t>(next_in - next_out));
  }
  while (!q.empty()) {
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(MatchBuckets, PinnedBucketsSurviveAFullMap) {
  p2p::match_ctx m;
  m.pin(3, -8192);
  // many other keys: empty buckets of unpinned keys are dropped once the map is large
  std::vector<core::request> r(400);
  for (size_t i = 0; i < r.size(); ++i) {
    r[i].peer = 1;
    r[i].tag = static_cast<int>(i);
    m.post(&r[i]);
  }
  for (auto& x : r) m.unpost(&x);
  core::request mine;
  mine.peer = 3;
  mine.tag = -8192;
  const size_t before = m.posted_by_key.m.size();
  m.post(&mine);
  EXPECT_EQ(m.find_posted(3, -8192), &mine);
  m.unpost(&mine);
  EXPECT_EQ(m.posted_by_key.m.size(), before);  // not erased although the map holds > 256 keys
  EXPECT_EQ(m.posted_by_key.m.count(p2p::match_ctx::key(3, -8192)), 1u);
  m.unpin(3, -8192);
  EXPECT_EQ(m.posted_by_key[p2p::match_ctx::key(3, -8192)].pinned, 0u);
}

TEST(UnexpectedPool, ReusesEntries) {
  auto* a = new p2p::unexpected;
  delete a;
  auto* b = new p2p::unexpected;
  EXPECT_EQ(a, b);  // from the free list
  delete b;
}

}  // namespace
}  // namespace baton
