// The collective log (src/coll/coll_log.hpp): runs, positions, the ring's wrap, the seqlock.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "coll/coll_log.hpp"

namespace {

using baton::coll::log_block_bytes;
using baton::coll::log_entry;
using baton::coll::log_read;
using baton::coll::log_runs;
using baton::coll::log_snapshot;
using baton::coll::log_writer;

struct block {
  alignas(64) char bytes[log_block_bytes] = {};
};

// Logs collective seq with `what` the way coll::log_collective does: a new run when it changes.
void log(log_writer& w, uint64_t seq, uint64_t what, uint64_t* current) {
  if (what != *current) {
    w.start(seq, what, int64_t(what) * 8, 0);
    *current = what;
  }
  w.position().store(seq + 1, std::memory_order_release);
}

TEST(CollLog, EmptyLogHoldsNothing) {
  block b;
  log_snapshot s;
  ASSERT_TRUE(log_read(b.bytes, &s));
  EXPECT_EQ(s.position, 0u);
  EXPECT_EQ(s.at(0), nullptr);
}

TEST(CollLog, RunsCoverTheirCollectivesUpToThePosition) {
  block b;
  log_writer w;
  w.block = b.bytes;
  uint64_t cur = 0;
  for (uint64_t q = 0; q < 10; ++q) log(w, q, q < 4 ? 7 : 9, &cur);  // 0..3: 7, 4..9: 9
  log_snapshot s;
  ASSERT_TRUE(log_read(b.bytes, &s));
  EXPECT_EQ(s.position, 10u);
  for (uint64_t q = 0; q < 10; ++q) {
    const log_entry* e = s.at(q);
    ASSERT_NE(e, nullptr) << q;
    EXPECT_EQ(e->what, q < 4 ? 7u : 9u) << q;
    EXPECT_EQ(e->bytes, int64_t(e->what) * 8);
  }
  EXPECT_EQ(s.at(10), nullptr);  // not logged yet
}

TEST(CollLog, OverwrittenRunsClaimNothing) {
  block b;
  log_writer w;
  w.block = b.bytes;
  uint64_t cur = 0;
  // Alternating collectives: a run each, so the ring of log_runs wraps.
  const uint64_t n = 3 * uint64_t(log_runs);
  for (uint64_t q = 0; q < n; ++q) log(w, q, 100 + (q & 1), &cur);
  log_snapshot s;
  ASSERT_TRUE(log_read(b.bytes, &s));
  for (uint64_t q = 0; q < n - uint64_t(log_runs); ++q) EXPECT_EQ(s.at(q), nullptr) << q;
  for (uint64_t q = n - uint64_t(log_runs); q < n; ++q) {
    ASSERT_NE(s.at(q), nullptr) << q;
    EXPECT_EQ(s.at(q)->what, 100 + (q & 1)) << q;
  }
}

TEST(CollLog, ARunBeingWrittenIsNotRead) {
  block b;
  log_writer w;
  w.block = b.bytes;
  w.start(0, 5, 0, 0);
  w.position().store(1);
  auto* count = reinterpret_cast<std::atomic<uint64_t>*>(b.bytes) + 1;
  count->fetch_add(1);  // odd: a writer is in the middle of a run
  log_snapshot s;
  EXPECT_FALSE(log_read(b.bytes, &s));
  count->fetch_add(1);
  ASSERT_TRUE(log_read(b.bytes, &s));
  ASSERT_NE(s.at(0), nullptr);
  EXPECT_EQ(s.at(0)->what, 5u);
}

TEST(CollLog, TheVerdictIsRead) {
  block b;
  log_writer w;
  w.block = b.bytes;
  w.failed().store((41 + 1) | uint64_t(15) << 48);
  log_snapshot s;
  ASSERT_TRUE(log_read(b.bytes, &s));
  EXPECT_EQ(s.failed & ((uint64_t(1) << 48) - 1), 42u);
  EXPECT_EQ(s.failed >> 48, 15u);
}

}  // namespace
