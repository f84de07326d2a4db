// The process's free mask of context pairs (see comm.hpp). Guarded by its own mutex, taken
// briefly: comm::release may run on any thread, with or without the engine lock.
#include <mutex>

#include "core/comm.hpp"

namespace baton::core {

namespace {

uint64_t g_free_mask[context_words];
bool g_mask_ready = false;
std::mutex g_ctx_mutex;

void mask_init() {
  if (g_mask_ready) return;
  for (auto& w : g_free_mask) w = ~0ull;
  g_mask_ready = true;
}

}  // namespace

void context_reserve(uint32_t ctx) {
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  mask_init();
  uint32_t pair = ctx / 2;
  g_free_mask[pair / 64] &= ~(1ull << (pair % 64));
}

void context_release(uint32_t ctx) {
  if (ctx == context_none) return;
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  uint32_t pair = ctx / 2;
  g_free_mask[pair / 64] |= 1ull << (pair % 64);
}

int context_in_use_count() {
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  mask_init();
  int n = 0;
  for (uint64_t w : g_free_mask) n += 64 - __builtin_popcountll(w);
  return n;
}

void context_mask_read(int first, int n, uint64_t* out) {
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  mask_init();
  for (int i = 0; i < n; ++i) out[i] = g_free_mask[first + i];
}

}  // namespace baton::core
