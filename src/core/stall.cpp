#include "core/stall.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/runtime.hpp"

namespace baton::core {

namespace {
constexpr double default_warn_s = 60;
std::mutex g_m;
std::vector<stall_describer>& describers() {
  static auto* v = new std::vector<stall_describer>;  // never destroyed: waits may run at exit
  return *v;
}
std::vector<stall_checker>& checkers() {
  static auto* v = new std::vector<stall_checker>;
  return *v;
}
}  // namespace

void stall_add_checker(stall_checker c) {
  std::lock_guard<std::mutex> g(g_m);
  for (stall_checker x : checkers())
    if (x == c) return;
  checkers().push_back(c);
}

bool stall_check() {
  std::vector<stall_checker> list;
  {
    std::lock_guard<std::mutex> g(g_m);
    list = checkers();
  }
  bool changed = false;
  for (stall_checker c : list) changed |= c();
  return changed;
}

uint64_t stall_warn_ns() {
  static const uint64_t ns = [] {
    double s = default_warn_s;
    if (const char* v = std::getenv("BATON_STALL_WARN"); v && *v) {
      char* end = nullptr;
      const double x = std::strtod(v, &end);
      if (end != v && *end == '\0' && x >= 0) s = x;
    }
    return uint64_t(s * 1e9);
  }();
  return ns;
}

void stall_add_describer(stall_describer d) {
  std::lock_guard<std::mutex> g(g_m);
  for (stall_describer x : describers())
    if (x == d) return;
  describers().push_back(d);
}

std::string stall_describe() {
  std::string out;
  {
    std::lock_guard<std::mutex> g(g_m);
    for (stall_describer d : describers()) d(out);
  }
  if (out.empty()) out = "nothing pending that a describer knows of";
  return out;
}

void stall_report(uint64_t stalled_ns) {
  runtime& R = rt();
  const std::string what = stall_describe();
  const double s = double(stalled_ns) / 1e9;
  if (R.pmi.baton_launcher()) {
    // One line the launcher gathers with the other ranks' (no reply comes back).
    char head[96];
    std::snprintf(head, sizeof head, "cmd=stall rank=%d seconds=%.0f what=", R.world_rank, s);
    R.pmi.notify(head + what);
    return;
  }
  std::fprintf(stderr, "baton: rank %d: no progress for %.0f s (BATON_STALL_WARN) while waiting on: %s\n",
               R.world_rank, s, what.c_str());
  std::fflush(stderr);
}

}  // namespace baton::core
