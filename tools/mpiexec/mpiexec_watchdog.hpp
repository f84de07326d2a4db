// The stall watchdog, launcher side: ranks that have waited inside MPI for BATON_STALL_WARN
// seconds without progress each send one `cmd=stall` line saying what they wait on
// (src/core/stall.hpp); the launcher gathers the reports of one stall for a moment and prints
// them together, with the ranks that said nothing (not in MPI: computing, stopped, blocked
// elsewhere). --timeout is unaffected: the watchdog only reports.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace baton::launcher {

class stall_watchdog {
 public:
  using clock = std::chrono::steady_clock;

  /// Rank `rank` reports `seconds` without progress, waiting on `what`.
  void stall_report(int rank, double seconds, std::string_view what, clock::time_point now);
  /// When the gathered reports are to be printed; empty when none are pending.
  std::optional<clock::time_point> stall_due() const { return due_; }
  /// Prints the gathered reports through `say` (one line each) if they are due at `now`; `live`
  /// tells which of the np ranks are still running (the others are not listed as silent).
  void stall_flush(clock::time_point now, int np, const std::function<bool(int)>& live,
                   const std::function<void(const std::string&)>& say);

 private:
  static constexpr auto gather_for = std::chrono::milliseconds(1000);  // reports of one stall
  std::map<int, std::pair<double, std::string>> reports_;
  std::optional<clock::time_point> due_;
};

}  // namespace baton::launcher
