#include "core/progress.hpp"

#include <time.h>

#include <algorithm>
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

}  // namespace baton::core
