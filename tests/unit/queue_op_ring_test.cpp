// The operation FIFO of standard and CUDA queues (src/queue/queue_internal.hpp).
#include <gtest/gtest.h>

#include "queue/queue_internal.hpp"

using baton::queue::op;
using baton::queue::op_ring;

namespace {
baton::core::request* fake(uintptr_t i) { return reinterpret_cast<baton::core::request*>(i * 64); }
}  // namespace

// First in, first out across growth (the ring doubles while holding records that wrapped).
TEST(QueueOpRing, FifoAcrossGrowthAndWrap) {
  op_ring q;
  uintptr_t next_in = 1, next_out = 1;
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 7 + round * 3; ++k) q.emplace_back().r = fake(next_in++);
    for (int k = 0; k < 5 + round * 2 && !q.empty(); ++k) {
      ASSERT_EQ(q.front().r, fake(next_out));
      ++next_out;
      q.pop_front();
    }
  }
  while (!q.empty()) {
    ASSERT_EQ(q.front().r, fake(next_out));
    ++next_out;
    q.pop_front();
  }
  EXPECT_EQ(next_in, next_out);
}

// Emptied, the ring writes its next record where its first one was: after a burst that grew it,
// a queue in its steady state keeps reusing the same few (cache-resident) records instead of
// walking through the whole grown buffer (an 8-byte queued ring took 5% longer that way).
TEST(QueueOpRing, RestartsAtTheFirstRecordWhenEmptied) {
  op_ring q;
  for (uintptr_t i = 1; i <= 1000; ++i) q.emplace_back().r = fake(i);  // grows to 1024 records
  while (!q.empty()) q.pop_front();
  const op* first = &q.emplace_back();
  q.pop_front();
  for (int k = 0; k < 100; ++k) {
    const op* again = &q.emplace_back();
    EXPECT_EQ(again, first);
    q.pop_front();
    EXPECT_TRUE(q.empty());
  }
  // New records start out blank.
  op& o = q.emplace_back();
  EXPECT_EQ(o.kind, op::start);
  EXPECT_EQ(o.r, nullptr);
  EXPECT_EQ(o.status, nullptr);
  EXPECT_EQ(o.write, nullptr);
}
