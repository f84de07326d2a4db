// The PMI-2 wire-protocol client (src/core/pmi.cpp) against a small PMI-2 server on a socketpair,
// and the chunking of long values (put_long/get_long) within the protocol's 1024-byte limit.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
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
  std::map<std::string, std::string> kvs;
  std::vector<std::string> cmds;
  size_t longest_value = 0;
  bool fence_seen = false;

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
