// Names of the POSIX shared-memory objects a Baton job creates, and how to read one back.
// Header-only and free of the library, so the launcher (tools/mpiexec) parses names the way the
// ranks write them.
//
//   /baton.<job>.<kind>.<creator pid>.<32 hex digits from getrandom>
//
// <job>: BATON_JOBID under Baton's mpiexec ("baton-<mpiexec pid>-<16 hex digits>"), otherwise
// "x" followed by the process manager's job name (kvsname / namespace) reduced to [A-Za-z0-9_-]
// (or its hash when long), "s<pid>" for a singleton. <kind>: what the object holds (host, coll,
// pers, win). No field contains a dot. The launcher removes "baton.<BATON_JOBID>.*" when a job
// ends; `mpiexec --cleanup` removes objects whose creator (and launcher, when the job is
// Baton's) is gone. docs/architecture.md, "Shared-memory objects", states the rules.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace baton::core::shm_names {

inline constexpr std::string_view prefix = "baton.";  // every object's name in /dev/shm
inline constexpr size_t max_job = 48;                   // longest <job> field

// Reduces `s` to characters safe in a name field ([A-Za-z0-9_-]); a result longer than max_job
// becomes "h" + a 64-bit FNV-1a hash of `s` in hex (still the same for every rank of the job).
inline std::string job_field(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
    out.push_back(ok ? ch : '_');
  }
  if (out.size() <= max_job && !out.empty()) return out;
  uint64_t h = 1469598103934665603ULL;
  for (char ch : s) h = (h ^ uint8_t(ch)) * 1099511628211ULL;
  static constexpr char hexd[] = "0123456789abcdef";
  std::string hs = "h";
  for (int i = 15; i >= 0; --i) hs.push_back(hexd[(h >> (4 * i)) & 15]);
  return hs;
}

// The fields of an object name (without the leading '/').
struct parsed {
  std::string job, kind;
  long creator = -1;   // pid of the process that created it
  long launcher = -1;  // pid of Baton's mpiexec when <job> is a BATON_JOBID, else -1
};

inline bool parse_pid(std::string_view s, long* out) {
  if (s.empty() || s.size() > 10) return false;
  long v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + (ch - '0');
  }
  *out = v;
  return v > 0;
}

// The launcher's pid in a BATON_JOBID ("baton-<pid>-<hex>"), or -1.
inline long jobid_launcher(std::string_view job) {
  constexpr std::string_view lead = "baton-";
  if (job.substr(0, lead.size()) != lead) return -1;
  job.remove_prefix(lead.size());
  const size_t dash = job.find('-');
  long pid = -1;
  if (dash == std::string_view::npos || !parse_pid(job.substr(0, dash), &pid)) return -1;
  return pid;
}

// Reads "baton.<job>.<kind>.<pid>.<random>" (no leading '/'). Also reads the names earlier Baton
// versions used, so --cleanup can remove their leftovers: "baton.coll.<pid>.<n>",
// "baton.pers.<pid>.<n>", "baton-win-<pid>-<n>" (creator pid) and the host segment
// "baton.kvs_<BATON_JOBID>.<rank>" (launcher pid). False for anything else.
inline bool parse(std::string_view name, parsed* p) {
  *p = parsed{};
  if (name.substr(0, 10) == "baton-win-") {
    std::string_view rest = name.substr(10);
    const size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !parse_pid(rest.substr(0, dash), &p->creator)) return false;
    p->kind = "win";
    return true;
  }
  if (name.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = name.substr(prefix.size()), f[5];
  size_t n = 0;
  for (;;) {
    if (n == 5) return false;  // more fields than any format has
    const size_t dot = rest.find('.');
    f[n++] = rest.substr(0, dot);
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  if (n == 3 && (f[0] == "coll" || f[0] == "pers")) {  // legacy: baton.<kind>.<pid>.<n>
    p->kind = std::string(f[0]);
    return parse_pid(f[1], &p->creator);
  }
  if (n == 2 && f[0].substr(0, 4) == "kvs_") {  // legacy host segment: baton.kvs_<jobid>.<rank>
    p->job = std::string(f[0].substr(4));
    p->kind = "host";
    p->launcher = jobid_launcher(p->job);
    return p->launcher > 0;
  }
  if (n != 4 || f[0].empty() || f[1].empty() || f[3].size() != 32) return false;
  p->job = std::string(f[0]);
  p->kind = std::string(f[1]);
  p->launcher = jobid_launcher(p->job);
  return parse_pid(f[2], &p->creator);
}

}  // namespace baton::core::shm_names
