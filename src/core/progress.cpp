#include "core/progress.hpp"

#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <vector>

namespace baton::core {

namespace {
std::vector<poll_fn>& pollers() {
  static std::vector<poll_fn> v;
  return v;
}
sleeper g_sleeper;
backoff_policy g_backoff;
}  // namespace

void progress_add_poller(poll_fn fn) {
  auto& v = pollers();
  if (std::find(v.begin(), v.end(), fn) == v.end()) v.push_back(fn);
}

void progress_remove_poller(poll_fn fn) {
  auto& v = pollers();
  v.erase(std::remove(v.begin(), v.end(), fn), v.end());
}

bool progress_poll() {
  bool moved = false;
  for (poll_fn fn : pollers()) moved |= fn();
  return moved;
}

void progress_set_sleeper(const sleeper& s) { g_sleeper = s; }
const sleeper& progress_sleeper() { return g_sleeper; }
backoff_policy& progress_backoff() { return g_backoff; }

namespace {
// BATON_SPIN_US / BATON_YIELD_US tune how long a waiting rank spins and yields before sleeping.
struct backoff_from_env {
  backoff_from_env() {
    if (const char* v = std::getenv("BATON_SPIN_US")) g_backoff.spin_ns = std::strtoull(v, nullptr, 10) * 1000;
    if (const char* v = std::getenv("BATON_YIELD_US")) g_backoff.yield_ns = std::strtoull(v, nullptr, 10) * 1000;
  }
} g_backoff_env;
}  // namespace

}  // namespace baton::core
