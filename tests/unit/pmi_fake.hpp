// A tiny PMI-1 server for unit tests that need several real ranks: the test process forks the
// ranks, each talks to it over a socketpair (PMI_FD), and it answers init, the key-value space,
// barriers and finalize. A rank's exit status is its number of failed checks.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <source_location>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace baton::testing {

// Failure counter for code running inside a forked rank (gtest assertions do not reach the parent).
struct rank_checks {
  int rank = 0;
  int failures = 0;
  bool expect(bool ok, const std::string& what, std::source_location loc = std::source_location::current()) {
    if (!ok) {
      ++failures;
      std::fprintf(stderr, "[rank %d] %s:%u: check failed: %s\n", rank, loc.file_name(),
                   static_cast<unsigned>(loc.line()), what.c_str());
    }
    return ok;
  }
};

struct rank_result {
  int status = -1;   // raw waitpid status
  bool killed = false;  // the server gave up on it (timeout or a peer died)
  bool exited_ok() const { return !killed && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  std::string describe() const {
    if (killed) return "killed after a timeout or a peer's death";
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
  }
};

inline std::string pmi_fake_field(const std::string& line, const std::string& key) {
  const std::string pat = key + "=";
  size_t pos = 0;
  while (pos < line.size()) {
    size_t start = line.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    size_t end = line.find(' ', start);
    if (end == std::string::npos) end = line.size();
    if (line.compare(start, pat.size(), pat) == 0) return line.substr(start + pat.size(), end - start - pat.size());
    pos = end;
  }
  return {};
}

// Forks `n` ranks. Each sets PMI_FD/PMI_RANK/PMI_SIZE and `env`, then runs body(rank) and
// _exit()s with its return value (clamped to 1..100 on failure). The parent serves PMI until every
// rank has closed its connection, and kills them all after `timeout`.
inline std::vector<rank_result> run_ranks(int n, const std::string& kvsname,
                                          const std::vector<std::pair<std::string, std::string>>& env,
                                          const std::function<int(int)>& body,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  std::vector<int> server_fd(static_cast<size_t>(n), -1), client_fd(static_cast<size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return {};
    server_fd[static_cast<size_t>(r)] = sv[0];
    client_fd[static_cast<size_t>(r)] = sv[1];
  }
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids(static_cast<size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int k = 0; k < n; ++k) {
        ::close(server_fd[static_cast<size_t>(k)]);
        if (k != r) ::close(client_fd[static_cast<size_t>(k)]);
      }
      ::setenv("PMI_FD", std::to_string(client_fd[static_cast<size_t>(r)]).c_str(), 1);
      ::setenv("PMI_RANK", std::to_string(r).c_str(), 1);
      ::setenv("PMI_SIZE", std::to_string(n).c_str(), 1);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      int rc = body(r);
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(rc == 0 ? 0 : (rc < 0 || rc > 100 ? 100 : rc));
    }
    pids[static_cast<size_t>(r)] = pid;
  }
  for (int fd : client_fd) ::close(fd);

  struct client {
    std::string in;
    bool open = true;
    bool spoke = false;  // sent at least one command (a singleton rank never does)
    bool finalized = false;
    bool in_barrier = false;
  };
  std::vector<client> cl(static_cast<size_t>(n));
  std::map<std::string, std::string> kvs;
  auto reply = [&](int r, const std::string& line) {
    std::string out = line + "\n";
    size_t off = 0;
    while (off < out.size()) {
      ssize_t k = ::write(server_fd[static_cast<size_t>(r)], out.data() + off, out.size() - off);
      if (k <= 0) return;
      off += static_cast<size_t>(k);
    }
  };
  auto handle = [&](int r, const std::string& line) {
    const std::string cmd = pmi_fake_field(line, "cmd");
    if (cmd == "init") {
      reply(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    } else if (cmd == "get_maxes") {
      reply(r, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0");
    } else if (cmd == "get_appnum") {
      reply(r, "cmd=appnum appnum=0 rc=0");
    } else if (cmd == "get_my_kvsname") {
      reply(r, "cmd=my_kvsname kvsname=" + kvsname + " rc=0");
    } else if (cmd == "get_universe_size") {
      reply(r, "cmd=universe_size size=" + std::to_string(n) + " rc=0");
    } else if (cmd == "put") {
      kvs[pmi_fake_field(line, "key")] = pmi_fake_field(line, "value");
      reply(r, "cmd=put_result rc=0 msg=success");
    } else if (cmd == "get") {
      auto it = kvs.find(pmi_fake_field(line, "key"));
      if (it == kvs.end())
        reply(r, "cmd=get_result rc=-1 msg=key_not_found");
      else
        reply(r, "cmd=get_result rc=0 msg=success value=" + it->second);
    } else if (cmd == "barrier_in") {
      cl[static_cast<size_t>(r)].in_barrier = true;
      bool all = true;
      for (const client& c : cl) all = all && c.in_barrier;
      if (all) {
        for (int k = 0; k < n; ++k) {
          cl[static_cast<size_t>(k)].in_barrier = false;
          reply(k, "cmd=barrier_out");
        }
      }
    } else if (cmd == "finalize") {
      cl[static_cast<size_t>(r)].finalized = true;
      reply(r, "cmd=finalize_ack");
    } else if (cmd == "abort") {
      std::fprintf(stderr, "[rank %d] PMI abort: %s\n", r, line.c_str());
    } else {
      std::fprintf(stderr, "[pmi_fake] unknown command from rank %d: %s\n", r, line.c_str());
    }
  };

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool give_up = false;
  for (;;) {
    std::vector<pollfd> pf;
    std::vector<int> who;
    for (int r = 0; r < n; ++r)
      if (cl[static_cast<size_t>(r)].open) {
        pf.push_back(pollfd{server_fd[static_cast<size_t>(r)], POLLIN, 0});
        who.push_back(r);
      }
    if (pf.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::fprintf(stderr, "[pmi_fake] timeout: killing the ranks\n");
      give_up = true;
      break;
    }
    int k = ::poll(pf.data(), pf.size(), static_cast<int>(std::min<long long>(left.count(), 200)));
    if (k <= 0) continue;
    for (size_t i = 0; i < pf.size(); ++i) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int r = who[i];
      client& c = cl[static_cast<size_t>(r)];
      char buf[4096];
      ssize_t got = ::read(pf[i].fd, buf, sizeof buf);
      if (got <= 0) {
        c.open = false;
        ::close(pf[i].fd);
        if (c.spoke && !c.finalized) {
          std::fprintf(stderr, "[pmi_fake] rank %d left without PMI finalize\n", r);
          give_up = true;
        }
        continue;
      }
      c.spoke = true;
      c.in.append(buf, static_cast<size_t>(got));
      for (size_t nl; (nl = c.in.find('\n')) != std::string::npos;) {
        std::string line = c.in.substr(0, nl);
        c.in.erase(0, nl + 1);
        handle(r, line);
      }
    }
    if (give_up) break;
  }

  std::vector<rank_result> res(static_cast<size_t>(n));
  if (give_up) {
    // Let ranks that already finished exit on their own, then stop the rest.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (int r = 0; r < n; ++r) {
      pid_t p = pids[static_cast<size_t>(r)];
      if (::waitpid(p, &res[static_cast<size_t>(r)].status, WNOHANG) == p) continue;
      ::kill(p, SIGKILL);
      res[static_cast<size_t>(r)].killed = true;
    }
  }
  for (int r = 0; r < n; ++r) {
    if (cl[static_cast<size_t>(r)].open) ::close(server_fd[static_cast<size_t>(r)]);
    pid_t p = pids[static_cast<size_t>(r)];
    if (res[static_cast<size_t>(r)].status != -1 && !res[static_cast<size_t>(r)].killed) continue;
    int st = 0;
    // A rank that finalized exits at once; do not wait forever on one that did not.
    for (int tries = 0;; ++tries) {
      pid_t w = ::waitpid(p, &st, WNOHANG);
      if (w == p) break;
      if (tries == 200 || std::chrono::steady_clock::now() > deadline) {
        ::kill(p, SIGKILL);
        ::waitpid(p, &st, 0);
        res[static_cast<size_t>(r)].killed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    res[static_cast<size_t>(r)].status = st;
  }
  // The engine names its segment /baton.<kvsname>.0 and rank 0 unlinks it; clean up after a crash.
  ::shm_unlink(("/baton." + kvsname + ".0").c_str());
  return res;
}

}  // namespace baton::testing
