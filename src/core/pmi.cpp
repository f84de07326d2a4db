#include "core/pmi.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>

namespace baton::core {

namespace {
std::map<std::string, std::string>& singleton_store() {
  static std::map<std::string, std::string> store;
  return store;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}
}  // namespace

std::string pmi_field(const std::string& line, const std::string& key) {
  size_t pos = 0;
  const std::string pat = key + "=";
  while (pos < line.size()) {
    size_t start = line.find_first_not_of(" \n", pos);
    if (start == std::string::npos) break;
    size_t end = line.find_first_of(" \n", start);
    if (end == std::string::npos) end = line.size();
    if (line.compare(start, pat.size(), pat) == 0) return line.substr(start + pat.size(), end - start - pat.size());
    pos = end;
  }
  return {};
}

std::string pmi2_field(const std::string& cmd, const std::string& key) {
  size_t pos = 0;
  while (pos < cmd.size()) {
    // One "key=value;" item; a doubled ';' inside the value is a literal ';'.
    size_t eq = cmd.find('=', pos);
    if (eq == std::string::npos) break;
    std::string k = cmd.substr(pos, eq - pos);
    std::string v;
    size_t i = eq + 1;
    for (; i < cmd.size(); ++i) {
      if (cmd[i] == ';') {
        if (i + 1 < cmd.size() && cmd[i + 1] == ';') {
          v += ';';
          ++i;
          continue;
        }
        break;
      }
      v += cmd[i];
    }
    if (k == key) return v;
    pos = i + 1;
  }
  return {};
}

std::string pmi2_escape(const std::string& v) {
  std::string o;
  for (char c : v) {
    o += c;
    if (c == ';') o += ';';
  }
  return o;
}

errc pmi_client::read_line(std::string& line) {
  for (;;) {
    size_t nl = inbuf_.find('\n');
    if (nl != std::string::npos) {
      line = inbuf_.substr(0, nl);
      inbuf_.erase(0, nl + 1);
      return errc::success;
    }
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return error_set(errc::intern, "lost the connection to the process manager (PMI_FD %d)", fd_);
    inbuf_.append(buf, static_cast<size_t>(n));
  }
}

errc pmi_client::write_all(const std::string& out) {
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = ::write(fd_, out.data() + off, out.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return error_set(errc::intern, "cannot write to the process manager (PMI_FD %d)", fd_);
    off += static_cast<size_t>(n);
  }
  return errc::success;
}

errc pmi_client::command2(const std::string& cmd, const char* expect, std::string* reply, bool check_rc) {
  char len[8];
  std::snprintf(len, sizeof len, "%6zu", cmd.size());
  if (errc e = write_all(std::string(len, 6) + cmd); e != errc::success) return e;
  if (!expect) return errc::success;
  // Reply: six characters of length (blank padded), then that many bytes.
  auto fill = [&](size_t n) -> errc {
    while (inbuf_.size() < n) {
      char buf[4096];
      ssize_t k = ::read(fd_, buf, sizeof buf);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return error_set(errc::intern, "lost the connection to the process manager (PMI_FD %d)", fd_);
      inbuf_.append(buf, static_cast<size_t>(k));
    }
    return errc::success;
  };
  if (errc e = fill(6); e != errc::success) return e;
  const size_t n = std::strtoul(inbuf_.substr(0, 6).c_str(), nullptr, 10);
  if (errc e = fill(6 + n); e != errc::success) return e;
  std::string r = inbuf_.substr(6, n);
  inbuf_.erase(0, 6 + n);
  if (pmi2_field(r, "cmd") != expect)
    return error_set(errc::intern, "unexpected PMI-2 reply '%s' to '%s'", r.c_str(), cmd.c_str());
  if (auto rc = pmi2_field(r, "rc"); check_rc && !rc.empty() && rc != "0")
    return error_set(errc::intern, "the process manager refused '%s': %s", cmd.c_str(), r.c_str());
  if (reply) *reply = r;
  return errc::success;
}

errc pmi_client::command(const std::string& line, const char* expect, std::string* reply) {
  if (errc e = write_all(line + "\n"); e != errc::success) return e;
  if (!expect) return errc::success;
  std::string r;
  if (errc e = read_line(r); e != errc::success) return e;
  if (pmi_field(r, "cmd") != expect)
    return error_set(errc::intern, "unexpected process-manager reply '%s' to '%s'", r.c_str(), line.c_str());
  if (reply) *reply = r;
  return errc::success;
}

errc pmi_client::init() {
  const char* fd = std::getenv("PMI_FD");
  const std::string force = std::getenv("BATON_PMI") ? std::getenv("BATON_PMI") : "";
  const char* slurm = std::getenv("SLURM_MPI_TYPE");
  const char* ver = std::getenv("PMI_VERSION");
  if (!force.empty() && force != "1" && force != "2" && force != "pmix")
    return error_set(errc::arg, "BATON_PMI=%s: not a process-manager protocol (1, 2 or pmix)", force.c_str());
  if (force == "pmix" || (force.empty() && std::getenv("PMIX_NAMESPACE") && !fd)) return init_pmix();
  if (!fd) {
    if (!force.empty()) return error_set(errc::arg, "BATON_PMI=%s, but PMI_FD is not set", force.c_str());
    fd_ = -1;
    rank_ = 0;
    size_ = 1;
    universe_size_ = 1;
    return errc::success;
  }
  fd_ = std::atoi(fd);
  if (force == "2" || (force.empty() && ((ver && std::strcmp(ver, "2") == 0) ||
                                         (slurm && std::strncmp(slurm, "pmi2", 4) == 0))))
    return init_pmi2();
  kind_ = pmi_kind::pmi1;
  rank_ = env_int("PMI_RANK", 0);
  size_ = env_int("PMI_SIZE", 1);
  std::string r;
  if (errc e = command("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init", &r); e != errc::success)
    return e;
  if (pmi_field(r, "rc") != "0") return error_set(errc::intern, "process manager refused PMI-1 init: %s", r.c_str());
  if (errc e = command("cmd=get_maxes", "maxes", &r); e != errc::success) return e;
  if (auto v = pmi_field(r, "vallen_max"); !v.empty()) vallen_max_ = std::strtoul(v.c_str(), nullptr, 10);
  if (errc e = command("cmd=get_appnum", "appnum", &r); e != errc::success) return e;
  appnum_ = std::atoi(pmi_field(r, "appnum").c_str());
  if (errc e = command("cmd=get_my_kvsname", "my_kvsname", &r); e != errc::success) return e;
  kvsname_ = pmi_field(r, "kvsname");
  universe_size_ = size_;
  if (command("cmd=get_universe_size", "universe_size", &r) == errc::success) {
    int u = std::atoi(pmi_field(r, "size").c_str());
    if (u > 0) universe_size_ = u;
  }
  return errc::success;
}

errc pmi_client::init_pmi2() {
  kind_ = pmi_kind::pmi2;
  rank_ = env_int("PMI_RANK", 0);
  std::string r;
  if (errc e = command("cmd=init pmi_version=2 pmi_subversion=0", "response_to_init", &r); e != errc::success)
    return e;
  if (pmi_field(r, "rc") != "0" || pmi_field(r, "pmi_version") != "2")
    return error_set(errc::intern, "process manager refused PMI-2 init: %s", r.c_str());
  // Slurm's PMI-2 server refuses a fullinit without the job id it put in PMI_JOBID (rc=3); Hydra
  // takes either field. Send both when the launcher gave the id.
  std::string full = "cmd=fullinit;";
  if (const char* jobid = std::getenv("PMI_JOBID"); jobid && *jobid) full += "pmijobid=" + pmi2_escape(jobid) + ";";
  full += "pmirank=" + std::to_string(rank_) + ";threaded=FALSE;";
  if (errc e = command2(full, "fullinit-response", &r); e != errc::success) return e;
  rank_ = std::atoi(pmi2_field(r, "rank").c_str());
  size_ = std::atoi(pmi2_field(r, "size").c_str());
  appnum_ = std::atoi(pmi2_field(r, "appnum").c_str());
  if (size_ <= 0) return error_set(errc::intern, "PMI-2 fullinit gave no job size: %s", r.c_str());
  if (errc e = command2("cmd=job-getid;", "job-getid-response", &r); e != errc::success) return e;
  jobid_ = pmi2_field(r, "jobid");
  kvsname_ = jobid_;
  universe_size_ = size_;
  vallen_max_ = 1024;  // PMI2_MAX_VALLEN
  if (command2("cmd=info-getjobattr;key=universeSize;", "info-getjobattr-response", &r) == errc::success &&
      pmi2_field(r, "found") == "TRUE") {
    int u = std::atoi(pmi2_field(r, "value").c_str());
    if (u > 0) universe_size_ = u;
  }
  return errc::success;
}

errc pmi_client::init_pmix() {
  kind_ = pmi_kind::pmix;
  vallen_max_ = 1 << 20;  // no practical limit
  return pmix::init(&rank_, &size_, &appnum_, &universe_size_, &kvsname_);
}

errc pmi_client::put(const std::string& key, const std::string& value) {
  if (singleton()) {
    singleton_store()[key] = value;
    return errc::success;
  }
  if (kind_ == pmi_kind::pmix) return pmix::put(key, value);
  if (kind_ == pmi_kind::pmi2)
    return command2("cmd=kvs-put;key=" + key + ";value=" + pmi2_escape(value) + ";", "kvs-put-response", nullptr);
  std::string r;
  if (errc e = command("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value, "put_result", &r);
      e != errc::success)
    return e;
  if (pmi_field(r, "rc") != "0") return error_set(errc::intern, "PMI put of key '%s' failed: %s", key.c_str(), r.c_str());
  return errc::success;
}

errc pmi_client::get(const std::string& key, std::string& value, int owner) {
  if (singleton()) {
    auto it = singleton_store().find(key);
    if (it == singleton_store().end()) return error_set(errc::intern, "PMI key '%s' not found", key.c_str());
    value = it->second;
    return errc::success;
  }
  if (kind_ == pmi_kind::pmix) return pmix::get(key, owner, value);
  if (kind_ == pmi_kind::pmi2) {
    std::string r;
    if (errc e = command2("cmd=kvs-get;jobid=" + pmi2_escape(jobid_) + ";srcid=-1;key=" + key + ";", "kvs-get-response", &r);
        e != errc::success)
      return e;
    if (pmi2_field(r, "found") != "TRUE") return error_set(errc::intern, "PMI-2 key '%s' not found", key.c_str());
    value = pmi2_field(r, "value");
    return errc::success;
  }
  std::string r;
  if (errc e = command("cmd=get kvsname=" + kvsname_ + " key=" + key, "get_result", &r); e != errc::success) return e;
  if (pmi_field(r, "rc") != "0") return error_set(errc::intern, "PMI key '%s' not found: %s", key.c_str(), r.c_str());
  value = pmi_field(r, "value");
  return errc::success;
}

errc pmi_client::put_long(const std::string& key, const std::string& value) {
  // Room for the chunk inside the value limit (some servers count the terminator).
  const size_t chunk = vallen_max_ > 64 ? vallen_max_ - 2 : 62;
  const size_t n = value.empty() ? 1 : (value.size() + chunk - 1) / chunk;
  if (errc e = put(key + ".n", std::to_string(n)); e != errc::success) return e;
  for (size_t i = 0; i < n; ++i) {
    const std::string part = value.substr(std::min(value.size(), i * chunk), chunk);
    if (errc e = put(key + "." + std::to_string(i), part.empty() ? "-" : part); e != errc::success) return e;
  }
  return errc::success;
}

errc pmi_client::get_long(const std::string& key, std::string& value, int owner) {
  std::string v;
  if (errc e = get(key + ".n", v, owner); e != errc::success) return e;
  const long n = std::strtol(v.c_str(), nullptr, 10);
  if (n <= 0 || n > 100000) return error_set(errc::intern, "PMI key '%s.n' holds '%s', not a chunk count", key.c_str(), v.c_str());
  value.clear();
  for (long i = 0; i < n; ++i) {
    if (errc e = get(key + "." + std::to_string(i), v, owner); e != errc::success) return e;
    if (v != "-") value += v;
  }
  return errc::success;
}

errc pmi_client::barrier() {
  if (singleton()) return errc::success;
  if (kind_ == pmi_kind::pmix) return pmix::fence();
  if (kind_ == pmi_kind::pmi2) {
    // PMI-2 says kvs-fence is collective, but Hydra (MPICH 4.0) answers it at once and only makes
    // a later kvs-get wait: a get of a key nobody has put is held until every rank has fenced as
    // often as the asker. So fence, then get a key that never exists: on Hydra that waits for the
    // others, on a server whose fence is already a barrier (Slurm) it answers found=FALSE at once.
    // The same two commands on every rank and every host, whatever launched it (detecting Hydra
    // from the environment failed across hosts: HYDI_CONTROL_FD is set only on mpiexec's host,
    // so ranks there and ranks elsewhere ran different barriers and hung).
    if (errc e = command2("cmd=kvs-fence;", "kvs-fence-response", nullptr); e != errc::success) return e;
    // (A server may well report the missing key with a non-zero rc: only the answer matters.)
    std::string r;
    return command2("cmd=kvs-get;jobid=" + pmi2_escape(jobid_) + ";srcid=-1;key=baton.nokey;", "kvs-get-response", &r,
                    false);
  }
  return command("cmd=barrier_in", "barrier_out", nullptr);
}

errc pmi_client::finalize() {
  if (singleton()) return errc::success;
  errc e;
  if (kind_ == pmi_kind::pmix) {
    e = pmix::finalize();
  } else {
    e = kind_ == pmi_kind::pmi2 ? command2("cmd=finalize;", "finalize-response", nullptr)
                                : command("cmd=finalize", "finalize_ack", nullptr);
    ::close(fd_);
    fd_ = -1;
  }
  kind_ = pmi_kind::singleton;
  return e;
}

bool pmi_client::baton_launcher() const {
  const char* id = std::getenv("BATON_JOBID");
  return kind_ == pmi_kind::pmi1 && fd_ >= 0 && id != nullptr && *id != '\0' && kvsname_ == std::string("kvs_") + id;
}

void pmi_client::notify(const std::string& line) {
  if (!baton_launcher()) return;
  std::string out = line;
  for (char& c : out)
    if (c == '\n') c = ' ';
  (void)write_all(out + "\n");
}

void pmi_client::abort(int code, const std::string& message) {
  if (singleton()) return;
  if (kind_ == pmi_kind::pmix) return pmix::abort(code, message);
  if (kind_ == pmi_kind::pmi2) {
    const std::string m = pmi2_escape(message);
    (void)command2("cmd=abort;isworld=TRUE;exitcode=" + std::to_string(code) + ";msg=" + m + ";message=" + m + ";",
                   nullptr, nullptr);
    return;
  }
  std::string msg;
  for (char c : message) msg += (c == ' ' || c == '\n') ? '_' : c;
  (void)command("cmd=abort exitcode=" + std::to_string(code) + " error_msg=" + msg, nullptr, nullptr);
}

}  // namespace baton::core
