#include "mpiexec_watchdog.hpp"

#include <cstdio>

namespace baton::launcher {

void stall_watchdog::stall_report(int rank, double seconds, std::string_view what, clock::time_point now) {
  reports_[rank] = {seconds, std::string(what)};
  if (!due_) due_ = now + gather_for;  // the other ranks of a deadlock report within that
}

void stall_watchdog::stall_flush(clock::time_point now, int np, const std::function<bool(int)>& live,
                                 const std::function<void(const std::string&)>& say) {
  if (!due_ || now < *due_) return;
  double most = 0;
  for (const auto& [r, rep] : reports_) most = rep.first > most ? rep.first : most;
  char head[160];
  std::snprintf(head, sizeof head,
                "mpiexec: no progress for %.0f s (BATON_STALL_WARN); what the ranks wait on:", most);
  say(head);
  std::string silent;
  for (int r = 0; r < np; ++r) {
    auto it = reports_.find(r);
    if (it != reports_.end()) {
      say("mpiexec:   rank " + std::to_string(r) + ": " + it->second.second);
    } else if (live(r)) {
      silent += (silent.empty() ? "" : ", ") + std::to_string(r);
    }
  }
  if (!silent.empty())
    say("mpiexec:   rank" + std::string(silent.find(',') == std::string::npos ? " " : "s ") + silent +
        ": no report (not waiting inside MPI: computing, stopped, or blocked elsewhere)");
  reports_.clear();
  due_.reset();
}

}  // namespace baton::launcher
