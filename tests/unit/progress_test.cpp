// core::progress_wait: the predicate it waits on may do work (a collective's shared-memory step
// reduces its peers' data inside it and then tells them it is finished), so it must never be
// called again once it has returned true, whichever phase of the wait (spin, yield, or the last
// poll before sleeping) saw it hold.
#include <gtest/gtest.h>

#include <array>
#include <utility>

#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace {

using baton::core::backoff_policy;
using baton::core::engine_guard;
using baton::core::progress_backoff;
using baton::core::progress_wait;

struct backoff_scope {
  backoff_policy saved = progress_backoff();
  explicit backoff_scope(backoff_policy b) { progress_backoff() = b; }
  ~backoff_scope() { progress_backoff() = saved; }
};

// Holds on its n-th call; counts every call.
struct holds_at {
  int n;
  int calls = 0;
  bool operator()() { return ++calls >= n; }
};

void expect_no_call_after_true(const backoff_policy& b) {
  backoff_scope scope(b);
  // Each idle round calls the predicate twice, the clock is read every 32 rounds, and with the
  // phases set to zero that read goes to the last poll before sleeping: n up to 300 puts the
  // first true in every position of those rounds, the pre-sleep check included.
  for (int n = 1; n <= 300; ++n) {
    holds_at pred{n};
    engine_guard g;
    progress_wait(g, [&pred] { return pred(); });
    ASSERT_EQ(pred.calls, n) << "the predicate was called again after it held (first held at call " << n << ")";
  }
}

TEST(ProgressWait, PredicateNotCalledAgainAfterItHeldBeforeSleeping) {
  // No spinning, no yielding: every clock read leads to the pre-sleep poll; 1 us sleeps.
  expect_no_call_after_true(backoff_policy{0, 0, 1000});
}

TEST(ProgressWait, PredicateNotCalledAgainAfterItHeldWhileSpinning) {
  expect_no_call_after_true(backoff_policy{1000000000ull, 2000000000ull, 1000});
}

}  // namespace

// core::progress_poll: a poller may add or remove pollers while it runs (the buffered-send flush
// poller removes itself); the list must not be walked through iterators that this invalidates
// (under ASan the old range-for read freed memory once an addition reallocated the list).
namespace {
int g_extra_calls = 0;
template <int N>
bool extra_poller() {
  ++g_extra_calls;
  return false;
}
template <int... N>
constexpr std::array<baton::core::poll_fn, sizeof...(N)> extra_pollers(std::integer_sequence<int, N...>) {
  return {&extra_poller<N>...};
}
constexpr auto g_extras = extra_pollers(std::make_integer_sequence<int, 64>());

int g_sentinel_calls = 0;
bool sentinel_poller() {
  ++g_sentinel_calls;
  return false;
}

bool adds_then_removes_itself() {
  for (auto fn : g_extras) baton::core::progress_add_poller(fn);
  baton::core::progress_remove_poller(&adds_then_removes_itself);
  return true;
}

TEST(ProgressPoll, PollersMayAddAndRemovePollersWhileTheyRun) {
  g_extra_calls = 0;
  // A poller after the adder: the walk goes on past the adder, through the reallocated list.
  baton::core::progress_add_poller(&adds_then_removes_itself);
  baton::core::progress_add_poller(&sentinel_poller);
  g_sentinel_calls = 0;
  EXPECT_TRUE(baton::core::progress_poll());  // the adder ran and reported progress
  EXPECT_LE(g_sentinel_calls, 1);
  const int during = g_extra_calls;
  (void)baton::core::progress_poll();
  // The second poll runs every added poller once (the first may have run some of them).
  EXPECT_EQ(g_extra_calls - during, 64);
  EXPECT_GE(g_sentinel_calls, 1);
  for (auto fn : g_extras) baton::core::progress_remove_poller(fn);
  baton::core::progress_remove_poller(&sentinel_poller);
  g_extra_calls = 0;
  (void)baton::core::progress_poll();
  EXPECT_EQ(g_extra_calls, 0);
}
}  // namespace

// core::progress_give_way: a spinning wait yields its core when the shared-memory transport's check
// finds another rank of the host noted on it; the rank that is to move (share_move) also leaves the
// core when the host has a core per rank (spinning on), and keeps the affinity it had.
namespace {

using baton::core::share_state;

share_state g_fake_share = baton::core::share_none;
share_state fake_share_check() { return g_fake_share; }

struct share_check_scope {
  explicit share_check_scope(share_state s) {
    g_fake_share = s;
    baton::core::progress_set_share_check(fake_share_check);
  }
  ~share_check_scope() { baton::core::progress_set_share_check(nullptr); }
};

TEST(ProgressGiveWay, YieldsOnlyWhenTheCoreIsShared) {
  EXPECT_FALSE(baton::core::progress_give_way());  // no check registered: nothing shared
  {
    share_check_scope s(baton::core::share_none);
    EXPECT_FALSE(baton::core::progress_give_way());
  }
  {
    share_check_scope s(baton::core::share_stay);
    EXPECT_TRUE(baton::core::progress_give_way());
  }
}

TEST(ProgressGiveWay, TheRankToMoveLeavesItsCoreAndKeepsItsAffinity) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "one core: nowhere to move";
  backoff_scope spin(backoff_policy{50000, 1000000, 10000000});
  share_check_scope s(baton::core::share_move);
  const int here = sched_getcpu();
  EXPECT_TRUE(baton::core::progress_give_way());
  EXPECT_NE(sched_getcpu(), here) << "the thread did not leave the core it shared";
  cpu_set_t after;
  CPU_ZERO(&after);
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after)) << "the thread's affinity was not restored";
  // At most one move per 20 ms.
  const int moved_to = sched_getcpu();
  EXPECT_TRUE(baton::core::progress_give_way());
  EXPECT_EQ(sched_getcpu(), moved_to) << "a second move right after the first";
}

}  // namespace
