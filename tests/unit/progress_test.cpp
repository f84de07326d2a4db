// core::progress_wait: the predicate it waits on may do work (a collective's shared-memory step
// reduces its peers' data inside it and then tells them it is finished), so it must never be
// called again once it has returned true, whichever phase of the wait (spin, yield, or the last
// poll before sleeping) saw it hold.
#include <gtest/gtest.h>

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
