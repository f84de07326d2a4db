// Matching queues (src/p2p/match.hpp): envelope predicate, posting/arrival order, wildcards,
// removal anywhere in the intrusive lists, and queues of 100,000 entries.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>

#include "p2p/match.hpp"
#include "p2p/p2p.hpp"

namespace baton::p2p {
namespace {

// Receives as the engine posts them: peer = wanted source, tag = wanted tag.
std::unique_ptr<request[]> make_recvs(size_t n) { return std::make_unique<request[]>(n); }

request* recv_at(request* r, int src, int tag) {
  r->peer = src;
  r->tag = tag;
  return r;
}

unexpected* uq_at(unexpected* u, int src, int tag) {
  u->src = src;
  u->tag = tag;
  return u;
}

// The posted list, walked both ways, is exactly `want` (links and head/tail consistent).
void expect_posted(const match_ctx& m, const std::vector<request*>& want) {
  std::vector<request*> fwd;
  for (request* r = m.posted_head; r; r = r->next) {
    fwd.push_back(r);
    if (fwd.size() > want.size() + 1) break;
  }
  EXPECT_EQ(fwd, want);
  std::vector<request*> bwd;
  for (request* r = m.posted_tail; r; r = r->prev) {
    bwd.insert(bwd.begin(), r);
    if (bwd.size() > want.size() + 1) break;
  }
  EXPECT_EQ(bwd, want);
  if (want.empty()) {
    EXPECT_EQ(m.posted_head, nullptr);
    EXPECT_EQ(m.posted_tail, nullptr);
  } else {
    EXPECT_EQ(m.posted_head->prev, nullptr);
    EXPECT_EQ(m.posted_tail->next, nullptr);
  }
}

void expect_uq(const match_ctx& m, const std::vector<unexpected*>& want) {
  std::vector<unexpected*> fwd;
  for (unexpected* u = m.uq_head; u; u = u->next) {
    fwd.push_back(u);
    if (fwd.size() > want.size() + 1) break;
  }
  EXPECT_EQ(fwd, want);
  std::vector<unexpected*> bwd;
  for (unexpected* u = m.uq_tail; u; u = u->prev) {
    bwd.insert(bwd.begin(), u);
    if (bwd.size() > want.size() + 1) break;
  }
  EXPECT_EQ(bwd, want);
  if (want.empty()) {
    EXPECT_EQ(m.uq_head, nullptr);
    EXPECT_EQ(m.uq_tail, nullptr);
  }
}

TEST(MatchPredicate, ExactSourceAndTag) {
  EXPECT_TRUE(matches(3, 7, 3, 7));
  EXPECT_FALSE(matches(3, 7, 4, 7));
  EXPECT_FALSE(matches(3, 7, 3, 8));
  EXPECT_TRUE(matches(0, 0, 0, 0));
}

TEST(MatchPredicate, AnySourceMatchesEverySource) {
  for (int src = 0; src < 64; ++src) EXPECT_TRUE(matches(any_source, 5, src, 5)) << src;
  EXPECT_FALSE(matches(any_source, 5, 2, 6));
}

TEST(MatchPredicate, AnyTagMatchesOnlyNonNegativeTags) {
  EXPECT_TRUE(matches(1, any_tag, 1, 0));
  EXPECT_TRUE(matches(1, any_tag, 1, 32767));
  EXPECT_TRUE(matches(1, any_tag, 1, 1 << 30));
  // Negative tags belong to the library (collectives): a user's ANY_TAG must not take them.
  EXPECT_FALSE(matches(1, any_tag, 1, -1));
  EXPECT_FALSE(matches(1, any_tag, 1, -5));
  EXPECT_FALSE(matches(1, any_tag, 2, 0));
  // ... but an internal receive naming its negative tag gets it.
  EXPECT_TRUE(matches(1, -5, 1, -5));
  EXPECT_TRUE(matches(any_source, -5, 9, -5));
}

TEST(MatchPredicate, BothWildcards) {
  EXPECT_TRUE(matches(any_source, any_tag, 7, 0));
  EXPECT_TRUE(matches(any_source, any_tag, 0, 123));
  EXPECT_FALSE(matches(any_source, any_tag, 0, -7));
}

TEST(MatchPosted, EmptyQueueFindsNothing) {
  match_ctx m;
  EXPECT_EQ(m.find_posted(0, 0), nullptr);
  EXPECT_EQ(m.find_uq(any_source, any_tag), nullptr);
  expect_posted(m, {});
  expect_uq(m, {});
}

TEST(MatchPosted, EqualEnvelopesMatchInPostingOrder) {
  auto r = make_recvs(5);
  match_ctx m;
  for (int i = 0; i < 5; ++i) m.post(recv_at(&r[i], 1, 9));
  for (int i = 0; i < 5; ++i) {
    request* got = m.find_posted(1, 9);
    ASSERT_EQ(got, &r[i]) << "message " << i << " overtook";
    m.unpost(got);
  }
  EXPECT_EQ(m.find_posted(1, 9), nullptr);
  expect_posted(m, {});
}

TEST(MatchPosted, WildcardPostedFirstWins) {
  auto r = make_recvs(4);
  match_ctx m;
  m.post(recv_at(&r[0], any_source, 4));
  m.post(recv_at(&r[1], 2, 4));
  EXPECT_EQ(m.find_posted(2, 4), &r[0]);
  m.unpost(&r[0]);
  EXPECT_EQ(m.find_posted(2, 4), &r[1]);

  match_ctx t;
  t.post(recv_at(&r[2], 2, any_tag));
  t.post(recv_at(&r[3], 2, 4));
  EXPECT_EQ(t.find_posted(2, 4), &r[2]);
}

TEST(MatchPosted, SpecificPostedFirstWins) {
  auto r = make_recvs(2);
  match_ctx m;
  m.post(recv_at(&r[0], 2, 4));
  m.post(recv_at(&r[1], any_source, any_tag));
  EXPECT_EQ(m.find_posted(2, 4), &r[0]);
  // A message the specific receive does not want falls through to the wildcard.
  EXPECT_EQ(m.find_posted(3, 4), &r[1]);
  EXPECT_EQ(m.find_posted(2, 5), &r[1]);
}

TEST(MatchPosted, SkipsNonMatchingEntries) {
  auto r = make_recvs(4);
  match_ctx m;
  m.post(recv_at(&r[0], 0, 1));
  m.post(recv_at(&r[1], 1, 1));
  m.post(recv_at(&r[2], 1, 2));
  m.post(recv_at(&r[3], any_source, 3));
  EXPECT_EQ(m.find_posted(1, 2), &r[2]);
  EXPECT_EQ(m.find_posted(1, 1), &r[1]);
  EXPECT_EQ(m.find_posted(5, 3), &r[3]);
  EXPECT_EQ(m.find_posted(5, 1), nullptr);
  // An ANY_TAG receive never takes a negative (internal) tag.
  m.post(recv_at(&r[0], 0, any_tag));
  EXPECT_EQ(m.find_posted(0, -3), nullptr);
}

TEST(MatchPosted, UnpostHeadMiddleTailAndOnly) {
  auto r = make_recvs(5);
  match_ctx m;
  for (int i = 0; i < 5; ++i) m.post(recv_at(&r[i], i, 0));
  expect_posted(m, {&r[0], &r[1], &r[2], &r[3], &r[4]});
  m.unpost(&r[2]);  // middle
  expect_posted(m, {&r[0], &r[1], &r[3], &r[4]});
  EXPECT_EQ(r[2].next, nullptr);
  EXPECT_EQ(r[2].prev, nullptr);
  m.unpost(&r[0]);  // head
  expect_posted(m, {&r[1], &r[3], &r[4]});
  m.unpost(&r[4]);  // tail
  expect_posted(m, {&r[1], &r[3]});
  EXPECT_EQ(m.find_posted(4, 0), nullptr);
  EXPECT_EQ(m.find_posted(3, 0), &r[3]);
  m.unpost(&r[3]);
  m.unpost(&r[1]);  // the only one
  expect_posted(m, {});
  // The queue works again after being emptied; a re-posted request goes to the tail.
  m.post(&r[1]);
  m.post(&r[0]);
  expect_posted(m, {&r[1], &r[0]});
  EXPECT_EQ(m.find_posted(0, 0), &r[0]);
}

TEST(MatchUnexpected, SearchFollowsArrivalOrder) {
  std::vector<unexpected> u(6);
  match_ctx m;
  m.push_uq(uq_at(&u[0], 0, 1));
  m.push_uq(uq_at(&u[1], 1, 1));
  m.push_uq(uq_at(&u[2], 1, 2));
  m.push_uq(uq_at(&u[3], 0, 1));
  m.push_uq(uq_at(&u[4], 2, -4));  // internal tag
  m.push_uq(uq_at(&u[5], 1, 1));
  expect_uq(m, {&u[0], &u[1], &u[2], &u[3], &u[4], &u[5]});
  EXPECT_EQ(m.find_uq(any_source, any_tag), &u[0]);
  EXPECT_EQ(m.find_uq(1, any_tag), &u[1]);
  EXPECT_EQ(m.find_uq(any_source, 2), &u[2]);
  EXPECT_EQ(m.find_uq(2, any_tag), nullptr);  // only a negative tag from 2
  EXPECT_EQ(m.find_uq(2, -4), &u[4]);
  EXPECT_EQ(m.find_uq(3, 1), nullptr);

  // Equal envelopes come out in arrival order as they are consumed.
  m.remove_uq(m.find_uq(0, 1));
  EXPECT_EQ(m.find_uq(0, 1), &u[3]);
  m.remove_uq(m.find_uq(1, 1));
  EXPECT_EQ(m.find_uq(1, 1), &u[5]);
}

TEST(MatchUnexpected, RemoveHeadMiddleTailAndOnly) {
  std::vector<unexpected> u(4);
  match_ctx m;
  for (int i = 0; i < 4; ++i) m.push_uq(uq_at(&u[static_cast<size_t>(i)], i, 0));
  m.remove_uq(&u[1]);
  expect_uq(m, {&u[0], &u[2], &u[3]});
  m.remove_uq(&u[3]);
  expect_uq(m, {&u[0], &u[2]});
  m.remove_uq(&u[0]);
  expect_uq(m, {&u[2]});
  EXPECT_EQ(u[0].next, nullptr);
  EXPECT_EQ(u[0].prev, nullptr);
  m.remove_uq(&u[2]);
  expect_uq(m, {});
  m.push_uq(&u[3]);
  m.push_uq(&u[0]);
  expect_uq(m, {&u[3], &u[0]});
  EXPECT_EQ(m.find_uq(any_source, 0), &u[3]);
}

// Short lists are walked, long ones indexed by (source, tag); the index is built from the list in
// its order when the list grows past index_min, and goes out of use when the list empties.
TEST(MatchIndex, BuiltInOrderWhenTheListGrowsAndDroppedWhenEmpty) {
  const size_t n = 3 * match_ctx::index_min;
  auto r = make_recvs(n);
  match_ctx m;
  // (2, 9) receives spread through the list, posted before and after the index exists.
  for (size_t i = 0; i < n; ++i) m.post(recv_at(&r[i], i % 3 == 0 ? 2 : 4, i % 3 == 0 ? 9 : static_cast<int>(i)));
  EXPECT_TRUE(m.posted_indexed);
  for (size_t i = 0; i < n; i += 3) {
    request* got = m.find_posted(2, 9);
    ASSERT_EQ(got, &r[i]) << i;
    m.unpost(got);
  }
  EXPECT_EQ(m.find_posted(2, 9), nullptr);
  for (size_t i = 0; i < n; ++i)
    if (i % 3 != 0) m.unpost(&r[i]);
  EXPECT_FALSE(m.posted_indexed);
  expect_posted(m, {});
  // Walked again while short; a later index includes what was posted before it.
  m.post(recv_at(&r[0], 2, 9));
  EXPECT_FALSE(m.posted_indexed);
  for (size_t i = 1; i < n; ++i) m.post(recv_at(&r[i], 5, 1));
  EXPECT_TRUE(m.posted_indexed);
  EXPECT_EQ(m.find_posted(2, 9), &r[0]);
  EXPECT_EQ(m.find_posted(5, 1), &r[1]);
}

TEST(MatchIndex, WildcardsAroundTheIndexKeepPostingOrder) {
  const size_t n = 2 * match_ctx::index_min;
  auto r = make_recvs(n + 2);
  match_ctx m;
  m.post(recv_at(&r[n], 3, 1));               // specific, first
  m.post(recv_at(&r[n + 1], any_source, 1));  // wildcard, second
  for (size_t i = 0; i < n; ++i) m.post(recv_at(&r[i], 3, 1));
  EXPECT_TRUE(m.posted_indexed);
  EXPECT_EQ(m.find_posted(3, 1), &r[n]);
  m.unpost(&r[n]);
  EXPECT_EQ(m.find_posted(3, 1), &r[n + 1]);  // the wildcard was posted before the rest
  m.unpost(&r[n + 1]);
  EXPECT_EQ(m.find_posted(3, 1), &r[0]);      // indexed lookup again
  EXPECT_EQ(m.posted_wild, 0u);
}

TEST(MatchIndex, UnexpectedIndexBuiltInArrivalOrder) {
  const size_t n = 3 * match_ctx::index_min;
  std::vector<unexpected> u(n);
  match_ctx m;
  for (size_t i = 0; i < n; ++i) {
    u[i].len = i;
    m.push_uq(uq_at(&u[i], static_cast<int>(i % 2), 4));
  }
  EXPECT_TRUE(m.uq_indexed);
  for (size_t i = 1; i < n; i += 2) {
    unexpected* got = m.find_uq(1, 4);
    ASSERT_EQ(got, &u[i]) << i;
    m.remove_uq(got);
  }
  EXPECT_EQ(m.find_uq(any_source, 4), &u[0]);
  for (size_t i = 0; i < n; i += 2) m.remove_uq(&u[i]);
  EXPECT_FALSE(m.uq_indexed);
  expect_uq(m, {});
}

// The bucket maps remember the last bucket used; a bucket erased once unique keys pile up (> 256)
// must not be handed out again from that memory: re-posting its key makes a new bucket in the map.
TEST(MatchIndex, ErasedBucketIsNotReusedFromTheCache) {
  const size_t n = match_ctx::index_min + 1;
  const int rounds = 300;
  auto r = make_recvs(n + rounds + 1);
  match_ctx m;
  for (size_t i = 0; i < n; ++i) m.post(recv_at(&r[i], 1, 1000 + static_cast<int>(i)));  // head never matches (2, *)
  ASSERT_TRUE(m.posted_indexed);
  for (int k = 0; k < rounds; ++k) {
    request* x = recv_at(&r[n + k], 2, 5000 + k);
    m.post(x);
    ASSERT_EQ(m.find_posted(2, 5000 + k), x) << k;
    m.unpost(x);
    ASSERT_EQ(m.find_posted(2, 5000 + k), nullptr) << k;
  }
  const uint64_t last = match_ctx::key(2, 5000 + rounds - 1);
  EXPECT_EQ(m.posted_by_key.m.count(last), 0u);  // erased: the map held more than 256 keys
  request* again = recv_at(&r[n + rounds], 2, 5000 + rounds - 1);
  m.post(again);
  EXPECT_EQ(m.posted_by_key.m.count(last), 1u);
  EXPECT_EQ(m.find_posted(2, 5000 + rounds - 1), again);
  m.unpost(again);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(m.find_posted(1, 1000 + static_cast<int>(i)), &r[i]);
    m.unpost(&r[i]);
  }
  expect_posted(m, {});
}

TEST(MatchIndex, ErasedUnexpectedBucketIsNotReusedFromTheCache) {
  const size_t n = match_ctx::index_min + 1;
  const int rounds = 300;
  std::vector<unexpected> u(n + rounds + 1);
  match_ctx m;
  for (size_t i = 0; i < n; ++i) m.push_uq(uq_at(&u[i], 1, 1000 + static_cast<int>(i)));
  ASSERT_TRUE(m.uq_indexed);
  for (int k = 0; k < rounds; ++k) {
    unexpected* x = uq_at(&u[n + k], 2, 5000 + k);
    m.push_uq(x);
    ASSERT_EQ(m.find_uq(2, 5000 + k), x) << k;
    m.remove_uq(x);
    ASSERT_EQ(m.find_uq(2, 5000 + k), nullptr) << k;
  }
  const uint64_t last = match_ctx::key(2, 5000 + rounds - 1);
  EXPECT_EQ(m.uq_by_key.m.count(last), 0u);
  unexpected* again = uq_at(&u[n + rounds], 2, 5000 + rounds - 1);
  m.push_uq(again);
  EXPECT_EQ(m.uq_by_key.m.count(last), 1u);
  EXPECT_EQ(m.find_uq(2, 5000 + rounds - 1), again);
  m.remove_uq(again);
  for (size_t i = 0; i < n; ++i) m.remove_uq(&u[i]);
  expect_uq(m, {});
}

constexpr int k_large = 100000;

TEST(MatchLarge, HundredThousandPostedMatchInOrder) {
  auto r = make_recvs(k_large);
  match_ctx m;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < k_large; ++i) m.post(recv_at(&r[static_cast<size_t>(i)], i % 3 == 0 ? any_source : 7, 11));
  for (int i = 0; i < k_large; ++i) {
    request* got = m.find_posted(7, 11);
    ASSERT_EQ(got, &r[static_cast<size_t>(i)]) << i;
    m.unpost(got);
  }
  const auto dt = std::chrono::steady_clock::now() - t0;
  expect_posted(m, {});
  EXPECT_LT(std::chrono::duration<double>(dt).count(), 1.0) << "matching in order must not scan the queue";
}

TEST(MatchLarge, HundredThousandUnexpectedMatchInOrder) {
  std::vector<unexpected> u(k_large);
  match_ctx m;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < k_large; ++i) {
    auto& e = u[static_cast<size_t>(i)];
    e.len = static_cast<uint64_t>(i);
    m.push_uq(uq_at(&e, i % 4, i % 1000));
  }
  for (int i = 0; i < k_large; ++i) {
    unexpected* got = m.find_uq(any_source, any_tag);
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->len, static_cast<uint64_t>(i));
    m.remove_uq(got);
  }
  const auto dt = std::chrono::steady_clock::now() - t0;
  expect_uq(m, {});
  EXPECT_LT(std::chrono::duration<double>(dt).count(), 1.0);
}

TEST(MatchLarge, RemovalFromTheMiddleOfALargeQueueKeepsOrder) {
  auto r = make_recvs(k_large);
  match_ctx m;
  for (int i = 0; i < k_large; ++i) m.post(recv_at(&r[static_cast<size_t>(i)], 1, i));
  // Cancel every odd receive (unlinked from the middle), then match the even ones by tag.
  for (int i = 1; i < k_large; i += 2) m.unpost(&r[static_cast<size_t>(i)]);
  for (int i = 0; i < k_large; i += 2) {
    request* got = m.find_posted(1, i);
    ASSERT_EQ(got, &r[static_cast<size_t>(i)]) << i;
    m.unpost(got);
  }
  expect_posted(m, {});
}

}  // namespace
}  // namespace baton::p2p
