#include "coll/coll_log.hpp"

namespace baton::coll {

namespace {
std::atomic<uint64_t>& count_of(const char* block) {
  return reinterpret_cast<std::atomic<uint64_t>*>(const_cast<char*>(block))[1];
}
std::atomic<uint64_t>* run_of(const char* block, uint32_t k) {
  return reinterpret_cast<std::atomic<uint64_t>*>(const_cast<char*>(block) + 64 + size_t(k) * 32);
}
}  // namespace

void log_writer::start(uint64_t seq, uint64_t what, int64_t bytes, int64_t rbytes) {
  static_assert(sizeof(log_snapshot::runs) == sizeof(log_entry) * log_runs && sizeof(log_entry) == 32);
  std::atomic<uint64_t>* w = run_of(block, next);
  next = (next + 1) % log_runs;
  std::atomic<uint64_t>& count = count_of(block);
  const uint64_t c = count.load(std::memory_order_relaxed);
  count.store(c + 1, std::memory_order_relaxed);  // odd: being written
  std::atomic_thread_fence(std::memory_order_release);
  w[0].store(seq + 1, std::memory_order_relaxed);
  w[1].store(what, std::memory_order_relaxed);
  w[2].store(uint64_t(bytes), std::memory_order_relaxed);
  w[3].store(uint64_t(rbytes), std::memory_order_relaxed);
  count.store(c + 2, std::memory_order_release);
}

bool log_read(const char* block, log_snapshot* out) {
  const std::atomic<uint64_t>& count = count_of(block);
  const uint64_t c = count.load(std::memory_order_acquire);
  if (c & 1) return false;
  out->position = reinterpret_cast<const std::atomic<uint64_t>*>(block)->load(std::memory_order_acquire);
  out->failed = reinterpret_cast<const std::atomic<uint64_t>*>(block)[3].load(std::memory_order_acquire);
  for (uint32_t k = 0; k < uint32_t(log_runs); ++k) {
    const std::atomic<uint64_t>* w = run_of(block, k);
    log_entry& e = out->runs[k];
    e.first1 = w[0].load(std::memory_order_relaxed);
    e.what = w[1].load(std::memory_order_relaxed);
    e.bytes = int64_t(w[2].load(std::memory_order_relaxed));
    e.rbytes = int64_t(w[3].load(std::memory_order_relaxed));
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return count.load(std::memory_order_relaxed) == c;
}

// Runs are overwritten oldest first, so when the run that holds s (the newest starting at or
// before it) is gone, so is every older one: no run then claims s. (The position was read before
// the ring, under the same count: runs started since begin after it.)
const log_entry* log_snapshot::at(uint64_t s) const {
  if (s + 1 > position) return nullptr;
  const log_entry* best = nullptr;
  for (const log_entry& e : runs)
    if (e.first1 != 0 && e.first1 - 1 <= s && (best == nullptr || e.first1 > best->first1)) best = &e;
  return best;
}

}  // namespace baton::coll
