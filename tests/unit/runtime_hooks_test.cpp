// The runtime's layer hooks (core/runtime.hpp): the table keeps hooks in their declared order
// whatever order they are added in, refuses two hooks with one order and a full table, runs the
// inits in ascending order (stopping at a failure) and at shutdown every quiesce ascending, then
// every finalize descending; comm::runtime_hooks_install registers p2p before coll.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll/coll.hpp"
#include "comm/runtime_hooks.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

using namespace baton;
using core::errc;
using core::runtime_hook;
using core::runtime_hook_order;

namespace {

std::vector<std::string> g_log;
errc g_p2p_init_result = errc::success;

errc transport_init() {
  g_log.push_back("init transport");
  return errc::success;
}
errc p2p_init() {
  g_log.push_back("init p2p");
  return g_p2p_init_result;
}
void p2p_quiesce() { g_log.push_back("quiesce p2p"); }
void p2p_finalize() { g_log.push_back("finalize p2p"); }
errc coll_init() {
  g_log.push_back("init coll");
  return errc::success;
}
void coll_finalize() { g_log.push_back("finalize coll"); }
void transport_finalize() { g_log.push_back("finalize transport"); }

const runtime_hook transport_hook{"transport", runtime_hook_order::transport, transport_init, nullptr, transport_finalize};
const runtime_hook p2p_hook{"p2p", runtime_hook_order::p2p, p2p_init, p2p_quiesce, p2p_finalize};
const runtime_hook coll_hook{"coll", runtime_hook_order::coll, coll_init, nullptr, coll_finalize};

}  // namespace

TEST(RuntimeHooks, KeptInTheirOrderWhateverTheAddOrder) {
  core::runtime_hook_table t;
  ASSERT_EQ(t.add(&coll_hook), errc::success);
  ASSERT_EQ(t.add(&transport_hook), errc::success);
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  ASSERT_EQ(t.size(), 3);
  EXPECT_EQ(t.at(0), &transport_hook);
  EXPECT_EQ(t.at(1), &p2p_hook);
  EXPECT_EQ(t.at(2), &coll_hook);
  EXPECT_EQ(t.at(3), nullptr);
}

TEST(RuntimeHooks, AddingTheSameHookTwiceKeepsOne) {
  core::runtime_hook_table t;
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  EXPECT_EQ(t.size(), 1);
}

TEST(RuntimeHooks, TwoHooksWithOneOrderAreRefused) {
  core::runtime_hook_table t;
  const runtime_hook other{"other", runtime_hook_order::p2p, nullptr, nullptr, nullptr};
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  EXPECT_EQ(t.add(&other), errc::intern);
  EXPECT_NE(core::error_message().find("\"p2p\" and \"other\""), std::string::npos) << core::error_message();
  EXPECT_EQ(t.size(), 1);
}

TEST(RuntimeHooks, AFullTableIsRefused) {
  core::runtime_hook_table t;
  std::vector<runtime_hook> hooks;
  hooks.reserve(core::runtime_hook_table::capacity + 1);
  for (int i = 0; i <= core::runtime_hook_table::capacity; ++i)
    hooks.push_back(runtime_hook{"h", runtime_hook_order(1000 + i), nullptr, nullptr, nullptr});
  for (int i = 0; i < core::runtime_hook_table::capacity; ++i) ASSERT_EQ(t.add(&hooks[size_t(i)]), errc::success);
  EXPECT_EQ(t.add(&hooks.back()), errc::intern);
  EXPECT_EQ(t.size(), core::runtime_hook_table::capacity);
}

TEST(RuntimeHooks, InitAscendingShutdownQuiesceAscendingFinalizeDescending) {
  core::runtime_hook_table t;
  ASSERT_EQ(t.add(&coll_hook), errc::success);
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  ASSERT_EQ(t.add(&transport_hook), errc::success);
  g_log.clear();
  g_p2p_init_result = errc::success;
  ASSERT_EQ(t.init_all(), errc::success);
  t.shutdown_all();
  const std::vector<std::string> want{"init transport", "init p2p",      "init coll",         "quiesce p2p",
                                      "finalize coll",  "finalize p2p", "finalize transport"};
  EXPECT_EQ(g_log, want);
}

TEST(RuntimeHooks, AFailingInitStopsTheStartUp) {
  core::runtime_hook_table t;
  ASSERT_EQ(t.add(&transport_hook), errc::success);
  ASSERT_EQ(t.add(&p2p_hook), errc::success);
  ASSERT_EQ(t.add(&coll_hook), errc::success);
  g_log.clear();
  g_p2p_init_result = errc::no_mem;
  EXPECT_EQ(t.init_all(), errc::no_mem);
  g_p2p_init_result = errc::success;
  const std::vector<std::string> want{"init transport", "init p2p"};
  EXPECT_EQ(g_log, want);
}

// What the library registers: p2p (engine up at init, flush at quiesce, engine down at finalize)
// before coll (cached plans dropped at finalize), which is the order core called them in by name.
TEST(RuntimeHooks, InstallRegistersP2pBeforeColl) {
  ASSERT_EQ(comm::runtime_hooks_install(), errc::success);
  ASSERT_EQ(comm::runtime_hooks_install(), errc::success);  // once
  const core::runtime_hook_table& t = core::runtime_hooks();
  ASSERT_EQ(t.size(), 2);
  EXPECT_EQ(t.at(0), &p2p::runtime_hook);
  EXPECT_EQ(t.at(1), &coll::runtime_hook);
  EXPECT_NE(p2p::runtime_hook.init, nullptr);
  EXPECT_EQ(p2p::runtime_hook.quiesce, &p2p::flush);
  EXPECT_EQ(p2p::runtime_hook.finalize, &p2p::engine_finalize);
  EXPECT_EQ(coll::runtime_hook.init, nullptr);
  EXPECT_EQ(coll::runtime_hook.quiesce, nullptr);
  EXPECT_EQ(coll::runtime_hook.finalize, &coll::cache_clear);
}
