// Unit tests for the user error registry (core/error.hpp) and the MPI_Alloc_mem block registry
// (core/alloc_mem.hpp), in particular from several threads at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/alloc_mem.hpp"
#include "core/error.hpp"

namespace baton::core {
namespace {

TEST(UserErrors, ConcurrentAddAndRemove) {
  int cls = 0;
  ASSERT_EQ(user_error_add_class(&cls), errc::success);
  EXPECT_GE(cls, user_error_first);
  constexpr int threads = 8, per_thread = 200;
  std::vector<std::vector<int>> codes(threads);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        int code = 0;
        if (user_error_add_code(cls, &code) != errc::success) return;
        codes[t].push_back(code);
        (void)user_error_set_string(code, ("thread " + std::to_string(t)).c_str());
      }
    });
  }
  for (auto& t : ts) t.join();
  std::set<int> all;
  for (int t = 0; t < threads; ++t) {
    ASSERT_EQ(codes[t].size(), size_t(per_thread));
    for (int c : codes[t]) {
      all.insert(c);
      int got = 0;
      std::string text;
      ASSERT_TRUE(user_error_lookup(c, &got, &text));
      EXPECT_EQ(got, cls);
      EXPECT_EQ(text, "thread " + std::to_string(t));
    }
  }
  EXPECT_EQ(all.size(), size_t(threads * per_thread));  // every code distinct
  EXPECT_EQ(user_error_last_used(), *all.rbegin());
  EXPECT_EQ(user_error_remove_class(cls), errc::arg);  // codes remain

  ts.clear();
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      for (int c : codes[t]) {
        (void)user_error_remove_string(c);
        (void)user_error_remove_code(c);
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int c : all) EXPECT_FALSE(user_error_lookup(c, nullptr, nullptr));
  EXPECT_EQ(user_error_last_used(), cls);
  EXPECT_EQ(user_error_remove_class(cls), errc::success);
  EXPECT_FALSE(user_error_lookup(cls, nullptr, nullptr));
}

TEST(UserErrors, PredefinedAreNotTouched) {
  int code = 0;
  EXPECT_EQ(user_error_add_code(0, &code), errc::arg);  // MPI_SUCCESS is not a class to extend
  EXPECT_EQ(user_error_add_code(int(errc::abi) + 1, &code), errc::arg);
  EXPECT_EQ(user_error_set_string(int(errc::rank), "x"), errc::arg);
  EXPECT_EQ(user_error_remove_class(int(errc::rank)), errc::arg);
  EXPECT_EQ(user_error_remove_code(int(errc::rank)), errc::arg);
  EXPECT_EQ(user_error_remove_string(int(errc::rank)), errc::arg);
  EXPECT_FALSE(user_error_lookup(int(errc::rank), nullptr, nullptr));
  EXPECT_EQ(error_describe(int(errc::rank)), std::string("MPI_ERR_RANK: invalid rank"));
}

TEST(AllocMem, AlignmentAndBadFrees) {
  void* p = nullptr;
  ASSERT_EQ(mem_alloc(100, 1, &p), errc::success);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % mem_cache_line, 0u);
  void* q = nullptr;
  ASSERT_EQ(mem_alloc(1 << 16, 1 << 16, &q), errc::success);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % (1 << 16), 0u);
  EXPECT_EQ(mem_free(static_cast<char*>(p) + 1), errc::base);
  int local = 0;
  EXPECT_EQ(mem_free(&local), errc::base);
  EXPECT_EQ(mem_alloc(-5, 1, &p), errc::arg);
  EXPECT_EQ(mem_alloc(5, 3, &p), errc::arg);
  EXPECT_EQ(mem_alloc(int64_t(1) << 62, 1, &p), errc::no_mem);
  EXPECT_EQ(mem_free(q), errc::success);
  EXPECT_EQ(mem_free(q), errc::base);
  EXPECT_EQ(mem_free(p), errc::success);
  EXPECT_EQ(mem_free(nullptr), errc::success);
  EXPECT_EQ(mem_live_blocks(), 0u);
}

TEST(AllocMem, ConcurrentAllocFree) {
  std::vector<std::thread> ts;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      std::vector<void*> mine;
      for (int i = 0; i < 500; ++i) {
        void* p = nullptr;
        if (mem_alloc(16 + i, 1, &p) != errc::success) ++failures[t];
        else mine.push_back(p);
      }
      for (void* p : mine)
        if (mem_free(p) != errc::success) ++failures[t];
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(std::count(failures.begin(), failures.end(), 0), 4);
  EXPECT_EQ(mem_live_blocks(), 0u);
}

}  // namespace
}  // namespace baton::core
