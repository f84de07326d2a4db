// The PMI-2 wire-protocol client (src/core/pmi.cpp) against a small PMI-2 server on a socketpair,
// and the chunking of long values (put_long/get_long) within the protocol's 1024-byte limit.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/pmi.hpp"

namespace {

using baton::core::errc;
using baton::core::pmi2_field;
using baton::core::pmi_client;
using baton::core::pmi_kind;

// Serves one PMI-2 client: the PMI-1 style init line, then length-prefixed commands. Records the
// longest value it was given and every command name, in order.
struct pmi2_server {
  int fd;
  std::map<std::string, std::string> kvs{};
  std::vector<std::string> cmds{};
  size_t longest_value = 0;
  bool fence_seen = false;
  std::string require_jobid{};  // like Slurm: fullinit without this pmijobid is refused (rc=3)
  std::string fullinit{};

  std::string read_n(size_t n) {
    std::string s;
    while (s.size() < n) {
      char buf[4096];
      ssize_t k = ::read(fd, buf, std::min(sizeof buf, n - s.size()));
      if (k <= 0) return {};
      s.append(buf, static_cast<size_t>(k));
    }
    return s;
  }
  void send2(const std::string& cmd) {
    char len[8];
    std::snprintf(len, sizeof len, "%6zu", cmd.size());
    std::string out = std::string(len, 6) + cmd;
    ASSERT_EQ(::write(fd, out.data(), out.size()), static_cast<ssize_t>(out.size()));
  }
  static std::string esc(const std::string& v) {
    std::string o;
    for (char c : v) {
      o += c;
      if (c == ';') o += ';';
    }
    return o;
  }
  void run() {
    std::string line;
    for (char c; ::read(fd, &c, 1) == 1 && c != '\n';) line += c;
    cmds.push_back(line);
    const std::string reply = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n";
    ASSERT_EQ(::write(fd, reply.data(), reply.size()), static_cast<ssize_t>(reply.size()));
    for (;;) {
      std::string len = read_n(6);
      if (len.empty()) return;
      std::string c = read_n(std::strtoul(len.c_str(), nullptr, 10));
      const std::string name = pmi2_field(c, "cmd");
      cmds.push_back(name);
      if (name == "fullinit") {
        fullinit = c;
        if (!require_jobid.empty() && pmi2_field(c, "pmijobid") != require_jobid) {
          send2("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=1;appnum=-1;rc=3;");
          continue;
        }
        send2("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=1;appnum=3;debugged=FALSE;"
              "pmiverbose=0;rc=0;");
      } else if (name == "job-getid") {
        send2("cmd=job-getid-response;jobid=job;;with;;semicolon;rc=0;");
      } else if (name == "info-getjobattr") {
        send2("cmd=info-getjobattr-response;found=TRUE;value=5;rc=0;");
      } else if (name == "kvs-put") {
        const std::string v = pmi2_field(c, "value");
        longest_value = std::max(longest_value, v.size());
        kvs[pmi2_field(c, "key")] = v;
        send2("cmd=kvs-put-response;rc=0;");
      } else if (name == "kvs-fence") {
        fence_seen = true;
        send2("cmd=kvs-fence-response;rc=0;");
      } else if (name == "kvs-get") {
        auto it = kvs.find(pmi2_field(c, "key"));
        if (it == kvs.end()) send2("cmd=kvs-get-response;found=FALSE;rc=0;");
        else send2("cmd=kvs-get-response;found=TRUE;value=" + esc(it->second) + ";rc=0;");
      } else if (name == "finalize") {
        send2("cmd=finalize-response;rc=0;");
        return;
      }
    }
  }
};

TEST(Pmi2, FieldParsing) {
  const std::string c = "cmd=kvs-get-response;found=TRUE;value=a;;b=c;;;rc=0;";
  EXPECT_EQ(pmi2_field(c, "cmd"), "kvs-get-response");
  EXPECT_EQ(pmi2_field(c, "value"), "a;b=c;");
  EXPECT_EQ(pmi2_field(c, "rc"), "0");
  EXPECT_EQ(pmi2_field(c, "missing"), "");
}

TEST(Pmi2, ClientAgainstServer) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  pmi2_server srv{sv[1]};
  std::thread t([&] { srv.run(); });
  ::setenv("PMI_FD", std::to_string(sv[0]).c_str(), 1);
  ::setenv("PMI_VERSION", "2", 1);
  ::setenv("PMI_RANK", "0", 1);
  ::unsetenv("BATON_PMI");
  pmi_client c;
  EXPECT_EQ(c.init(), errc::success);
  EXPECT_EQ(c.kind(), pmi_kind::pmi2);
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.appnum(), 3);
  EXPECT_EQ(c.universe_size(), 5);
  EXPECT_EQ(c.kvsname(), "job;with;semicolon");
  // A value three times the limit goes in chunks, each within it, and comes back whole.
  std::string big;
  for (int i = 0; i < 3000; ++i) big += "0123456789abcdef"[(i * 7) % 16];
  EXPECT_EQ(c.put_long("baton.ucx.0", big), errc::success);
  EXPECT_EQ(c.put("plain", "x;y"), errc::success);
  EXPECT_EQ(c.barrier(), errc::success);
  std::string back;
  EXPECT_EQ(c.get_long("baton.ucx.0", back, 0), errc::success);
  EXPECT_EQ(back, big);
  EXPECT_EQ(c.get("plain", back, 0), errc::success);
  EXPECT_EQ(back, "x;y");
  EXPECT_NE(c.get("absent", back, 0), errc::success);
  EXPECT_EQ(c.finalize(), errc::success);
  t.join();
  EXPECT_TRUE(srv.fence_seen);
  EXPECT_LE(srv.longest_value, 1024u);
  EXPECT_GE(srv.kvs.count("baton.ucx.0.n"), 1u);
  EXPECT_EQ(srv.kvs["baton.ucx.0.n"], "3");
  EXPECT_EQ(srv.cmds.front(), "cmd=init pmi_version=2 pmi_subversion=0");
  ::close(sv[1]);
  ::unsetenv("PMI_FD");
  ::unsetenv("PMI_VERSION");
  ::unsetenv("PMI_RANK");
}

// Slurm's server (srun --mpi=pmi2) refuses a fullinit that lacks the job id it exported in
// PMI_JOBID. Found running Baton under a real Slurm 22.05: every rank failed in MPI_Init.
TEST(Pmi2, FullinitCarriesSlurmJobid) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  pmi2_server srv{sv[1]};
  srv.require_jobid = "12.0";
  std::thread t([&] { srv.run(); });
  ::setenv("PMI_FD", std::to_string(sv[0]).c_str(), 1);
  ::setenv("SLURM_MPI_TYPE", "pmi2", 1);
  ::setenv("PMI_JOBID", "12.0", 1);
  ::setenv("PMI_RANK", "0", 1);
  ::unsetenv("PMI_VERSION");
  ::unsetenv("BATON_PMI");
  pmi_client c;
  EXPECT_EQ(c.init(), errc::success);
  EXPECT_EQ(c.kind(), pmi_kind::pmi2);
  EXPECT_EQ(pmi2_field(srv.fullinit, "pmirank"), "0");
  EXPECT_EQ(c.finalize(), errc::success);
  t.join();
  ::close(sv[1]);
  for (const char* v : {"PMI_FD", "SLURM_MPI_TYPE", "PMI_JOBID", "PMI_RANK"}) ::unsetenv(v);
}

// Hydra's (MPICH 4.0) PMI-2 server as it behaves: kvs-fence is answered at once and only bumps
// the rank's epoch; a kvs-get of a key that is not there is held while some rank has fenced fewer
// times than the asker, and answered found=FALSE once all have caught up. Serves n ranks, one
// socket each, from one thread (poll), as mpiexec does.
struct hydra_like_server {
  std::vector<int> fds;
  std::vector<std::string> in;
  std::vector<int> epoch;
  std::map<std::string, std::string> kvs;
  std::vector<std::pair<int, std::string>> held;  // (rank, key) gets waiting for the others
  int finalized = 0;
  std::vector<bool> done;

  void send2(int fd, const std::string& cmd) {
    char len[8];
    std::snprintf(len, sizeof len, "%6zu", cmd.size());
    std::string out = std::string(len, 6) + cmd;
    ASSERT_EQ(::write(fd, out.data(), out.size()), static_cast<ssize_t>(out.size()));
  }
  // Answers a get, or holds it (returns false) while some rank is behind the asker.
  bool answer_get(int r, const std::string& key) {
    auto it = kvs.find(key);
    if (it == kvs.end()) {
      for (int e : epoch)
        if (e < epoch[static_cast<size_t>(r)]) return false;
      send2(fds[static_cast<size_t>(r)], "cmd=kvs-get-response;found=FALSE;rc=0;");
    } else {
      send2(fds[static_cast<size_t>(r)], "cmd=kvs-get-response;found=TRUE;value=" + it->second + ";rc=0;");
    }
    return true;
  }
  void retry_held() {
    std::vector<std::pair<int, std::string>> still;
    for (auto& [r, k] : held)
      if (!answer_get(r, k)) still.emplace_back(r, k);
    held = std::move(still);
  }
  void handle(int r, const std::string& c) {
    const int fd = fds[static_cast<size_t>(r)];
    const std::string name = pmi2_field(c, "cmd");
    if (name == "fullinit") {
      send2(fd, "cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=" + std::to_string(r) +
                    ";size=" + std::to_string(fds.size()) + ";appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;");
    } else if (name == "job-getid") {
      send2(fd, "cmd=job-getid-response;jobid=kvs_1;rc=0;");
    } else if (name == "info-getjobattr") {
      send2(fd, "cmd=info-getjobattr-response;found=FALSE;rc=0;");
    } else if (name == "kvs-put") {
      kvs[pmi2_field(c, "key")] = pmi2_field(c, "value");
      send2(fd, "cmd=kvs-put-response;rc=0;");
      retry_held();
    } else if (name == "kvs-fence") {
      ++epoch[static_cast<size_t>(r)];
      send2(fd, "cmd=kvs-fence-response;rc=0;");
      retry_held();
    } else if (name == "kvs-get") {
      if (!answer_get(r, pmi2_field(c, "key"))) held.emplace_back(r, pmi2_field(c, "key"));
    } else if (name == "finalize") {
      send2(fd, "cmd=finalize-response;rc=0;");
      ++finalized;
      done[static_cast<size_t>(r)] = true;  // the client closes its end now
    }
  }
  void run() {
    in.resize(fds.size());
    epoch.assign(fds.size(), 0);
    done.assign(fds.size(), false);
    std::vector<bool> inited(fds.size(), false);
    while (finalized < static_cast<int>(fds.size())) {
      std::vector<pollfd> p;
      for (size_t r = 0; r < fds.size(); ++r) p.push_back({done[r] ? -1 : fds[r], POLLIN, 0});
      if (::poll(p.data(), p.size(), 10000) <= 0) {  // a hang: cut the clients off, so they fail
        for (int fd : fds) ::shutdown(fd, SHUT_RDWR);
        return;
      }
      for (size_t r = 0; r < fds.size(); ++r) {
        if (!(p[r].revents & POLLIN)) continue;
        char buf[4096];
        ssize_t k = ::read(fds[r], buf, sizeof buf);
        if (k <= 0) return;
        in[r].append(buf, static_cast<size_t>(k));
        if (!inited[r]) {
          size_t nl = in[r].find('\n');
          if (nl == std::string::npos) continue;
          in[r].erase(0, nl + 1);
          inited[r] = true;
          const std::string reply = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n";
          ASSERT_EQ(::write(fds[r], reply.data(), reply.size()), static_cast<ssize_t>(reply.size()));
        }
        while (in[r].size() >= 6) {
          const size_t n = std::strtoul(in[r].substr(0, 6).c_str(), nullptr, 10);
          if (in[r].size() < 6 + n) break;
          std::string c = in[r].substr(6, n);
          in[r].erase(0, 6 + n);
          handle(static_cast<int>(r), c);
        }
      }
    }
  }
};

// Under Hydra the PMI-2 barrier must hold every rank until all have arrived, on every host: one
// rank arrives late and has put its key only just before; whatever the environment says (Hydra's
// HYDI_CONTROL_FD is set on mpiexec's host only), nobody leaves early and the late key is seen.
TEST(Pmi2, BarrierHoldsUnderHydraLazyFence) {
  constexpr int n = 3;
  std::vector<int> client(n);
  hydra_like_server srv;
  for (int r = 0; r < n; ++r) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    client[static_cast<size_t>(r)] = sv[0];
    srv.fds.push_back(sv[1]);
  }
  std::thread server([&] { srv.run(); });
  ::unsetenv("BATON_PMI");
  ::unsetenv("HYDI_CONTROL_FD");
  ::setenv("PMI_VERSION", "2", 1);
  // pmi_client::init reads PMI_FD / PMI_RANK from the environment: set them per client under a lock.
  std::mutex env_lock;
  std::atomic<bool> late_arrived{false};
  std::atomic<int> left_early{0};
  std::atomic<int> saw_late_key{0};
  std::vector<std::thread> ranks;
  for (int r = 0; r < n; ++r) {
    ranks.emplace_back([&, r] {
      pmi_client c;
      {
        std::lock_guard<std::mutex> g(env_lock);
        ::setenv("PMI_FD", std::to_string(client[static_cast<size_t>(r)]).c_str(), 1);
        ::setenv("PMI_RANK", std::to_string(r).c_str(), 1);
        if (r == 1) ::setenv("HYDI_CONTROL_FD", "9", 1);  // as on mpiexec's host only
        else ::unsetenv("HYDI_CONTROL_FD");
        ASSERT_EQ(c.init(), errc::success);
      }
      for (int round = 0; round < 2; ++round) {
        if (r == n - 1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          ASSERT_EQ(c.put("late." + std::to_string(round), "here"), errc::success);
          late_arrived = true;
        }
        ASSERT_EQ(c.barrier(), errc::success);
        if (!late_arrived) ++left_early;
        std::string v;
        if (c.get("late." + std::to_string(round), v, n - 1) == errc::success && v == "here") ++saw_late_key;
        ASSERT_EQ(c.barrier(), errc::success);
        if (r == n - 1) late_arrived = false;
        ASSERT_EQ(c.barrier(), errc::success);
      }
      ASSERT_EQ(c.finalize(), errc::success);
    });
  }
  for (auto& t : ranks) t.join();
  server.join();
  EXPECT_EQ(left_early.load(), 0);
  EXPECT_EQ(saw_late_key.load(), 2 * n);
  EXPECT_EQ(srv.finalized, n);
  for (int fd : srv.fds) ::close(fd);
  ::unsetenv("PMI_FD");
  ::unsetenv("PMI_VERSION");
  ::unsetenv("PMI_RANK");
  ::unsetenv("HYDI_CONTROL_FD");
}

TEST(Pmi, BadProtocolNameIsRefused) {
  ::setenv("BATON_PMI", "3", 1);
  pmi_client c;
  EXPECT_EQ(c.init(), errc::arg);
  ::unsetenv("BATON_PMI");
}

TEST(Pmi, SingletonLongValues) {
  ::unsetenv("PMI_FD");
  ::unsetenv("PMIX_NAMESPACE");
  pmi_client c;
  ASSERT_EQ(c.init(), errc::success);
  EXPECT_TRUE(c.singleton());
  std::string v(5000, 'a');
  EXPECT_EQ(c.put_long("k", v), errc::success);
  std::string back;
  EXPECT_EQ(c.get_long("k", back), errc::success);
  EXPECT_EQ(back, v);
}

}  // namespace
