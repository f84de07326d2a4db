#include "core/pmi.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
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

errc pmi_client::command(const std::string& line, const char* expect, std::string* reply) {
  std::string out = line + "\n";
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = ::write(fd_, out.data() + off, out.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return error_set(errc::intern, "cannot write to the process manager (PMI_FD %d)", fd_);
    off += static_cast<size_t>(n);
  }
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
  if (!fd) {
    fd_ = -1;
    rank_ = 0;
    size_ = 1;
    universe_size_ = 1;
    return errc::success;
  }
  fd_ = std::atoi(fd);
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

errc pmi_client::put(const std::string& key, const std::string& value) {
  if (singleton()) {
    singleton_store()[key] = value;
    return errc::success;
  }
  std::string r;
  if (errc e = command("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value, "put_result", &r);
      e != errc::success)
    return e;
  if (pmi_field(r, "rc") != "0") return error_set(errc::intern, "PMI put of key '%s' failed: %s", key.c_str(), r.c_str());
  return errc::success;
}

errc pmi_client::get(const std::string& key, std::string& value) {
  if (singleton()) {
    auto it = singleton_store().find(key);
    if (it == singleton_store().end()) return error_set(errc::intern, "PMI key '%s' not found", key.c_str());
    value = it->second;
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

errc pmi_client::get_long(const std::string& key, std::string& value) {
  std::string v;
  if (errc e = get(key + ".n", v); e != errc::success) return e;
  const long n = std::strtol(v.c_str(), nullptr, 10);
  if (n <= 0 || n > 100000) return error_set(errc::intern, "PMI key '%s.n' holds '%s', not a chunk count", key.c_str(), v.c_str());
  value.clear();
  for (long i = 0; i < n; ++i) {
    if (errc e = get(key + "." + std::to_string(i), v); e != errc::success) return e;
    if (v != "-") value += v;
  }
  return errc::success;
}

errc pmi_client::barrier() {
  if (singleton()) return errc::success;
  return command("cmd=barrier_in", "barrier_out", nullptr);
}

errc pmi_client::finalize() {
  if (singleton()) return errc::success;
  errc e = command("cmd=finalize", "finalize_ack", nullptr);
  ::close(fd_);
  fd_ = -1;
  return e;
}

void pmi_client::abort(int code, const std::string& message) {
  if (singleton()) return;
  std::string msg;
  for (char c : message) msg += (c == ' ' || c == '\n') ? '_' : c;
  (void)command("cmd=abort exitcode=" + std::to_string(code) + " error_msg=" + msg, nullptr, nullptr);
}

}  // namespace baton::core
