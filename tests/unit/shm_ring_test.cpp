// Shared-memory segment (src/transport/shm/shm_segment.hpp) in one process: the same segment is
// opened several times with different `me`, one view per simulated rank, and the tests play
// producer and consumer of the slot and chunk protocol (`full` flag, private positions).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

#include "transport/shm/shm_segment.hpp"

namespace baton::transport::shm {
namespace {

using std::chrono::steady_clock;

// `n` views of one fresh segment (view r is rank r): view 0 creates it, the others open it by
// name, and the last to map it unlinks the name (as the ranks of a host do).
struct views {
  std::vector<std::unique_ptr<segment>> v;
  explicit views(const segment_params& p) {
    for (uint32_t r = 0; r < p.nlocal; ++r) {
      v.push_back(std::make_unique<segment>());
      core::errc e = r == 0 ? v.back()->create(p, 0) : v.back()->open(v[0]->name(), p, r);
      EXPECT_EQ(e, core::errc::success) << core::error_message();
    }
    for (auto& s : v) s->mapped();
  }
  segment& operator[](size_t r) { return *v[r]; }
};

segment_params small_params(uint32_t nlocal) {
  segment_params p;
  p.nlocal = nlocal;
  p.slot_size = 256;
  p.nslots = 4;
  p.chunk_size = 1024;
  p.nchunks = 3;
  return p;
}

// One side of a ring src -> dst, as the engine drives it: a private position, the `full` flag.
struct producer {
  segment& s;
  uint32_t dst, src, pos = 0;
  // Publishes `len` bytes tagged `tag`; false while the next slot still belongs to the consumer.
  bool push(int32_t tag, const void* data, uint32_t len) {
    pkt_header* h = s.slot(dst, src, pos);
    if (h->full.load(std::memory_order_acquire)) return false;
    h->type = 1;
    h->src = static_cast<int32_t>(src);
    h->tag = tag;
    h->frag_len = len;
    h->msg_len = len;
    std::memcpy(segment::payload(h), data, len);
    h->full.store(1, std::memory_order_release);
    pos = pos + 1 == s.params().nslots ? 0 : pos + 1;
    return true;
  }
};

struct consumer {
  segment& s;
  uint32_t dst, src, pos = 0;
  // Takes the next message if there is one; the slot goes back to the producer.
  bool pop(int32_t* tag, void* out, uint32_t* len) {
    pkt_header* h = s.slot(dst, src, pos);
    if (!h->full.load(std::memory_order_acquire)) return false;
    *tag = h->tag;
    *len = h->frag_len;
    std::memcpy(out, segment::payload(h), h->frag_len);
    h->full.store(0, std::memory_order_release);
    pos = pos + 1 == s.params().nslots ? 0 : pos + 1;
    return true;
  }
};

TEST(ShmParams, ForRanksScalesDownWithManyRanks) {
  for (uint32_t n : {1u, 2u, 8u, 16u}) {
    segment_params p = segment_params::for_ranks(n);
    EXPECT_EQ(p.nlocal, n);
    EXPECT_EQ(p.slot_size, 8192u + 64u);
    // An 8 KiB message fills exactly one slot (payload of 8 KiB and more).
    EXPECT_GE(p.slot_size - sizeof(pkt_header), 8192u);
    EXPECT_EQ(p.nslots, 32u);
    EXPECT_EQ(p.chunk_size, 65536u);
    EXPECT_EQ(p.nchunks, 8u);
  }
  segment_params p17 = segment_params::for_ranks(17);
  EXPECT_EQ(p17.nslots, 16u);
  EXPECT_EQ(p17.nchunks, 4u);
  EXPECT_EQ(p17.slot_size, 8192u + 64u);
  segment_params p65 = segment_params::for_ranks(65);
  EXPECT_EQ(p65.slot_size, 4096u + 64u);
  EXPECT_GE(p65.slot_size - sizeof(pkt_header), 4096u);
  EXPECT_EQ(p65.nslots, 8u);
  EXPECT_EQ(p65.chunk_size, 32768u);
  EXPECT_EQ(p65.nchunks, 2u);
  // Every configuration keeps a slot able to carry a header plus payload, aligned for atomics.
  for (uint32_t n : {1u, 17u, 65u, 256u}) {
    segment_params p = segment_params::for_ranks(n);
    EXPECT_GT(p.slot_size, sizeof(pkt_header));
    EXPECT_EQ(p.slot_size % 64, 0u);
    EXPECT_GE(p.nslots, 2u);
    EXPECT_GE(p.nchunks, 2u);
  }
}

TEST(ShmSegment, TwoViewsShareMemory) {
  views s(small_params(2));
  EXPECT_EQ(s[0].me(), 0u);
  EXPECT_EQ(s[1].me(), 1u);
  EXPECT_EQ(s[0].slot_payload(), 256u - sizeof(pkt_header));
  // Each view recorded its pid in its own area, visible through the other view.
  EXPECT_EQ(s[1].area(0).pid, ::getpid());
  EXPECT_EQ(s[0].area(1).pid, ::getpid());
  // A fresh segment starts with every slot and chunk empty.
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(s[1].slot(1, 0, i)->full.load(), 0u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(s[1].chunk(1, 0, i)->full.load(), 0u);
  s[0].slot(1, 0, 2)->tag = 77;
  EXPECT_EQ(s[1].slot(1, 0, 2)->tag, 77);
  EXPECT_NE(static_cast<void*>(s[0].slot(1, 0, 2)), static_cast<void*>(s[1].slot(1, 0, 2)))
      << "views are separate mappings";
}

TEST(ShmRing, FifoAcrossWrapAround) {
  views s(small_params(2));
  producer tx{s[0], 1, 0};
  consumer rx{s[1], 1, 0};
  const uint32_t cap = static_cast<uint32_t>(s[0].slot_payload());
  char out[256];
  int next_rx = 0;
  // 10 rounds of nslots messages plus a lagging consumer that takes one or two at a time.
  for (int i = 0; i < 43; ++i) {
    char msg[256];
    const uint32_t len = static_cast<uint32_t>(i * 7) % (cap + 1);
    std::memset(msg, i & 0xff, len);
    while (!tx.push(i, msg, len)) {
      int32_t tag = -1;
      uint32_t got = 0;
      ASSERT_TRUE(rx.pop(&tag, out, &got)) << "ring full yet empty at " << i;
      ASSERT_EQ(tag, next_rx);
      ASSERT_EQ(got, static_cast<uint32_t>(next_rx * 7) % (cap + 1));
      for (uint32_t b = 0; b < got; ++b) ASSERT_EQ(out[b], static_cast<char>(next_rx & 0xff));
      ++next_rx;
    }
  }
  int32_t tag;
  uint32_t got;
  while (rx.pop(&tag, out, &got)) {
    ASSERT_EQ(tag, next_rx);
    ++next_rx;
  }
  EXPECT_EQ(next_rx, 43);
}

TEST(ShmRing, SlotReusedOnlyAfterConsumerClearsFull) {
  views s(small_params(2));
  producer tx{s[0], 1, 0};
  const uint32_t n = s[0].params().nslots;
  for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(tx.push(static_cast<int32_t>(i), "x", 1));
  // Every slot now belongs to the consumer: the producer must wait.
  EXPECT_FALSE(tx.push(99, "y", 1));
  EXPECT_FALSE(tx.push(99, "y", 1));
  // The consumer reading the body is not enough; only clearing `full` hands the slot back.
  pkt_header* h0 = s[1].slot(1, 0, 0);
  ASSERT_EQ(h0->full.load(std::memory_order_acquire), 1u);
  EXPECT_EQ(h0->tag, 0);
  EXPECT_FALSE(tx.push(99, "y", 1));
  // Clearing a slot other than the producer's next one does not let it overwrite anything.
  s[1].slot(1, 0, 2)->full.store(0, std::memory_order_release);
  EXPECT_FALSE(tx.push(99, "y", 1));
  EXPECT_EQ(s[1].slot(1, 0, 1)->tag, 1);
  h0->full.store(0, std::memory_order_release);
  EXPECT_TRUE(tx.push(100, "z", 1));
  EXPECT_EQ(h0->tag, 100);
  EXPECT_EQ(s[1].slot(1, 0, 1)->tag, 1) << "the next slot is still the consumer's";
}

TEST(ShmRing, DistinctPairsDoNotInterfere) {
  const uint32_t n = 3;
  views s(small_params(n));
  std::vector<producer> tx;
  std::vector<consumer> rx;
  // Every ordered pair (src -> dst) fills its ring with messages naming the pair.
  for (uint32_t src = 0; src < n; ++src)
    for (uint32_t dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      producer p{s[src], dst, src};
      for (uint32_t i = 0; i < s[src].params().nslots; ++i) {
        const uint32_t v = src * 100 + dst * 10 + i;
        ASSERT_TRUE(p.push(static_cast<int32_t>(v), &v, sizeof v));
      }
      EXPECT_FALSE(p.push(0, "", 0));
    }
  for (uint32_t dst = 0; dst < n; ++dst)
    for (uint32_t src = 0; src < n; ++src) {
      if (src == dst) continue;
      consumer c{s[dst], dst, src};
      for (uint32_t i = 0; i < s[dst].params().nslots; ++i) {
        int32_t tag = -1;
        uint32_t v = 0, len = 0;
        ASSERT_TRUE(c.pop(&tag, &v, &len));
        EXPECT_EQ(len, sizeof v);
        EXPECT_EQ(v, src * 100 + dst * 10 + i) << "pair " << src << "->" << dst;
        EXPECT_EQ(tag, static_cast<int32_t>(v));
      }
      int32_t tag;
      uint32_t v, len;
      EXPECT_FALSE(c.pop(&tag, &v, &len));
    }
}

TEST(ShmChunk, ChannelFifoAcrossWrapAroundAndPairs) {
  const uint32_t n = 3;
  views s(small_params(n));
  const segment_params& p = s[0].params();
  // Pair 0 -> 1 streams 10 chunks through a 3-chunk channel; 2 -> 1 and 1 -> 0 run beside it.
  struct chan {
    uint32_t dst, src, tx = 0, rx = 0, sent = 0, got = 0;
  };
  std::vector<chan> chans{{1, 0}, {1, 2}, {0, 1}};
  const uint32_t total = 10;
  std::vector<char> buf(p.chunk_size);
  bool progress = true;
  while (progress) {
    progress = false;
    for (chan& c : chans) {
      // producer: fill what is free
      while (c.sent < total) {
        chunk_header* h = s[c.src].chunk(c.dst, c.src, c.tx);
        if (h->full.load(std::memory_order_acquire)) break;
        const uint32_t len = p.chunk_size - c.sent;
        std::memset(segment::chunk_data(h), static_cast<int>(c.src * 16 + c.sent), len);
        h->len = len;
        h->rreq = c.dst * 1000 + c.src;
        h->offset = c.sent;
        h->full.store(1, std::memory_order_release);
        c.tx = c.tx + 1 == p.nchunks ? 0 : c.tx + 1;
        ++c.sent;
        progress = true;
      }
      // consumer: take one chunk per round, so the producer meets a full channel
      chunk_header* h = s[c.dst].chunk(c.dst, c.src, c.rx);
      if (h->full.load(std::memory_order_acquire)) {
        EXPECT_EQ(h->offset, c.got);
        EXPECT_EQ(h->rreq, c.dst * 1000u + c.src);
        ASSERT_EQ(h->len, p.chunk_size - c.got);
        const char* d = static_cast<const char*>(segment::chunk_data(h));
        const char want = static_cast<char>(c.src * 16 + c.got);
        EXPECT_TRUE(std::all_of(d, d + h->len, [&](char ch) { return ch == want; }))
            << "chunk " << c.got << " of " << c.src << "->" << c.dst;
        h->full.store(0, std::memory_order_release);
        c.rx = c.rx + 1 == p.nchunks ? 0 : c.rx + 1;
        ++c.got;
        progress = true;
      }
    }
  }
  for (const chan& c : chans) {
    EXPECT_EQ(c.sent, total);
    EXPECT_EQ(c.got, total);
  }
}

// Fills every byte of every slot, chunk and rank area with a value naming its owner, through the
// view of a rank other than the one reading it back, then checks every byte.
void check_layout(const segment_params& p) {
  views s(p);
  const uint32_t n = p.nlocal;
  auto slot_val = [&](uint32_t dst, uint32_t src, uint32_t i) { return static_cast<char>(1 + ((dst * n + src) * p.nslots + i) % 251); };
  auto chunk_val = [&](uint32_t dst, uint32_t src, uint32_t i) { return static_cast<char>(3 + ((dst * n + src) * p.nchunks + i) % 241); };
  const size_t chunk_bytes = sizeof(chunk_header) + p.chunk_size;

  // Address ranges are disjoint and each slot/chunk header is 64-byte aligned.
  struct range {
    uintptr_t lo, hi;
  };
  std::vector<range> ranges;
  for (uint32_t r = 0; r < n; ++r) {
    auto a = reinterpret_cast<uintptr_t>(&s[0].area(r));
    EXPECT_EQ(a % 64, 0u);
    ranges.push_back({a, a + sizeof(rank_area)});
  }
  for (uint32_t dst = 0; dst < n; ++dst)
    for (uint32_t src = 0; src < n; ++src) {
      for (uint32_t i = 0; i < p.nslots; ++i) {
        auto a = reinterpret_cast<uintptr_t>(s[0].slot(dst, src, i));
        EXPECT_EQ(a % 64, 0u);
        ranges.push_back({a, a + p.slot_size});
      }
      for (uint32_t i = 0; i < p.nchunks; ++i) {
        auto a = reinterpret_cast<uintptr_t>(s[0].chunk(dst, src, i));
        EXPECT_EQ(a % 64, 0u);
        ranges.push_back({a, a + chunk_bytes});
      }
    }
  std::sort(ranges.begin(), ranges.end(), [](const range& x, const range& y) { return x.lo < y.lo; });
  for (size_t k = 1; k < ranges.size(); ++k) ASSERT_LE(ranges[k - 1].hi, ranges[k].lo) << "overlap at " << k;

  // Pattern written by the sender's view ...
  for (uint32_t r = 0; r < n; ++r) std::memset(static_cast<void*>(&s[r].area(r)), 0x5a + static_cast<int>(r), sizeof(rank_area));
  for (uint32_t dst = 0; dst < n; ++dst)
    for (uint32_t src = 0; src < n; ++src) {
      for (uint32_t i = 0; i < p.nslots; ++i)
        std::memset(static_cast<void*>(s[src].slot(dst, src, i)), slot_val(dst, src, i), p.slot_size);
      for (uint32_t i = 0; i < p.nchunks; ++i)
        std::memset(static_cast<void*>(s[src].chunk(dst, src, i)), chunk_val(dst, src, i), chunk_bytes);
    }
  // ... read back through the receiver's view.
  auto all = [](const void* b, size_t len, char v) {
    const char* c = static_cast<const char*>(b);
    return std::all_of(c, c + len, [v](char x) { return x == v; });
  };
  for (uint32_t r = 0; r < n; ++r)
    EXPECT_TRUE(all(&s[(r + 1) % n].area(r), sizeof(rank_area), static_cast<char>(0x5a + r))) << "area " << r;
  for (uint32_t dst = 0; dst < n; ++dst)
    for (uint32_t src = 0; src < n; ++src) {
      for (uint32_t i = 0; i < p.nslots; ++i)
        EXPECT_TRUE(all(s[dst].slot(dst, src, i), p.slot_size, slot_val(dst, src, i)))
            << "slot " << i << " of " << src << "->" << dst;
      for (uint32_t i = 0; i < p.nchunks; ++i)
        EXPECT_TRUE(all(s[dst].chunk(dst, src, i), chunk_bytes, chunk_val(dst, src, i)))
            << "chunk " << i << " of " << src << "->" << dst;
    }
}

TEST(ShmLayout, NoOverlapFourRanksDefaultParams) { check_layout(segment_params::for_ranks(4)); }

TEST(ShmLayout, NoOverlapFourRanksOddSizes) {
  segment_params p = small_params(4);
  p.slot_size = 192;
  p.nslots = 5;
  p.chunk_size = 1000 * 64;
  p.nchunks = 3;
  check_layout(p);
}

// touch_incoming() pre-faults the pages of this rank's incoming rings and channels: it must leave
// every `full` word at zero and never write into the outgoing side of another rank.
TEST(ShmLayout, TouchIncomingKeepsSlotsEmpty) {
  views s(segment_params::for_ranks(3));
  for (uint32_t r = 0; r < 3; ++r) s[r].touch_incoming();
  for (uint32_t dst = 0; dst < 3; ++dst)
    for (uint32_t src = 0; src < 3; ++src) {
      for (uint32_t i = 0; i < s[0].params().nslots; ++i) EXPECT_EQ(s[0].slot(dst, src, i)->full.load(), 0u);
      for (uint32_t i = 0; i < s[0].params().nchunks; ++i) EXPECT_EQ(s[0].chunk(dst, src, i)->full.load(), 0u);
    }
}

// Regression: segment::touch_incoming() used to write one byte
// at `bulk + off + sizeof(chunk_header)` for off = 0, 4096, ... assuming chunks are page-sized,
// but a chunk is sizeof(chunk_header) + chunk_size bytes (65600 by default). At off = 65536 the
// write lands on byte 0 of chunk 1's header, i.e. its `full` word (and, for other parameters, on
// len/rreq/offset of later chunks). Harmless today because the engine calls it before the start-up
// barrier, when every `full` is still 0; it would drop a published chunk if called later. It now
// faults pages in with an atomic add of zero.
TEST(ShmLayout, TouchIncomingLeavesChunkHeadersAlone) {
  views s(segment_params::for_ranks(2));
  const segment_params& p = s[0].params();
  for (uint32_t i = 0; i < p.nchunks; ++i) {
    chunk_header* h = s[0].chunk(1, 0, i);
    h->full.store(1);
    h->len = 0x11111111u;
    h->rreq = 0x2222222222222222ull;
    h->offset = 0x3333333333333333ull;
  }
  s[1].touch_incoming();
  for (uint32_t i = 0; i < p.nchunks; ++i) {
    chunk_header* h = s[1].chunk(1, 0, i);
    EXPECT_EQ(h->full.load(), 1u) << "chunk " << i;
    EXPECT_EQ(h->len, 0x11111111u) << "chunk " << i;
    EXPECT_EQ(h->rreq, 0x2222222222222222ull) << "chunk " << i;
    EXPECT_EQ(h->offset, 0x3333333333333333ull) << "chunk " << i;
  }
}

TEST(ShmFutex, WaitReturnsAtOnceOnStaleValueAndTimesOut) {
  views s(small_params(2));
  auto& bell = s[0].area(0).doorbell;
  bell.store(5);
  auto t0 = steady_clock::now();
  futex_wait(&bell, 4, 2'000'000'000L);  // value differs: no sleep
  EXPECT_LT(std::chrono::duration<double>(steady_clock::now() - t0).count(), 0.5);
  t0 = steady_clock::now();
  futex_wait(&bell, 5, 20'000'000L);  // nobody rings: the timeout ends it
  const double slept = std::chrono::duration<double>(steady_clock::now() - t0).count();
  EXPECT_GE(slept, 0.015);
  EXPECT_LT(slept, 1.0);
}

// The sleep protocol of the header: the sleeper sets `sleeping`, fences, polls once more, then
// waits on its doorbell; the producer publishes, fences, and rings only if `sleeping` is set.
// The two sides use different mappings, so the futex must not be process-private.
TEST(ShmFutex, DoorbellWakesSleepingThread) {
  views s(small_params(2));
  std::atomic<bool> got{false};
  std::atomic<int> wakeups{0};
  std::thread sleeper([&] {
    segment& me = s[1];
    rank_area& a = me.area(1);
    consumer rx{me, 1, 0};
    for (;;) {
      int32_t tag;
      char buf[256];
      uint32_t len;
      a.sleeping.store(1, std::memory_order_relaxed);
      const uint32_t token = a.doorbell.load(std::memory_order_acquire);
      full_fence();
      if (rx.pop(&tag, buf, &len)) {
        a.sleeping.store(0, std::memory_order_relaxed);
        got = tag == 42;
        return;
      }
      futex_wait(&a.doorbell, token, 5'000'000'000L);
      a.sleeping.store(0, std::memory_order_relaxed);
      ++wakeups;
    }
  });
  // Wait until the thread is really asleep in the futex (or at least announced it).
  while (s[0].area(1).sleeping.load() == 0) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = steady_clock::now();
  producer tx{s[0], 1, 0};
  ASSERT_TRUE(tx.push(42, "hi", 2));
  full_fence();
  rank_area& a = s[0].area(1);
  if (a.sleeping.load(std::memory_order_relaxed)) {
    a.doorbell.fetch_add(1, std::memory_order_release);
    futex_wake(&a.doorbell);
  }
  sleeper.join();
  const double waited = std::chrono::duration<double>(steady_clock::now() - t0).count();
  EXPECT_TRUE(got.load());
  EXPECT_LT(waited, 2.0) << "the doorbell did not wake the sleeper; it ran into the futex timeout";
  EXPECT_LE(wakeups.load(), 2);
}

// A producer and a consumer thread on one ring, a million messages of varying length: every
// message arrives once, in order, intact.
TEST(ShmRing, TwoThreadStressMillionMessages) {
  segment_params p = segment_params::for_ranks(2);
  p.slot_size = 128;
  p.nslots = 32;
  views s(p);
  constexpr uint32_t k_msgs = 1'000'000;
  const uint32_t cap = static_cast<uint32_t>(s[0].slot_payload());
  auto len_of = [cap](uint32_t i) { return static_cast<uint32_t>(sizeof(uint32_t)) + (i * 13) % (cap - 3); };
  std::atomic<uint32_t> bad{0};
  std::thread cons([&] {
    segment& v = s[1];
    uint32_t pos = 0;
    int idle = 0;
    for (uint32_t i = 0; i < k_msgs;) {
      pkt_header* h = v.slot(1, 0, pos);
      if (!h->full.load(std::memory_order_acquire)) {
        if (++idle > 64) sched_yield();
        continue;
      }
      idle = 0;
      const auto* d = static_cast<const unsigned char*>(segment::payload(h));
      uint32_t seq;
      std::memcpy(&seq, d, sizeof seq);
      bool ok = seq == i && h->tag == static_cast<int32_t>(i) && h->frag_len == len_of(i);
      for (uint32_t b = sizeof seq; ok && b < h->frag_len; ++b) ok = d[b] == static_cast<unsigned char>(i + b);
      if (!ok && bad.fetch_add(1) == 0) ADD_FAILURE() << "message " << i << " arrived as " << seq;
      h->full.store(0, std::memory_order_release);
      pos = pos + 1 == v.params().nslots ? 0 : pos + 1;
      ++i;
    }
  });
  const auto t0 = steady_clock::now();
  {
    segment& v = s[0];
    uint32_t pos = 0;
    int idle = 0;
    for (uint32_t i = 0; i < k_msgs;) {
      pkt_header* h = v.slot(1, 0, pos);
      if (h->full.load(std::memory_order_acquire)) {
        if (++idle > 64) sched_yield();
        continue;
      }
      idle = 0;
      auto* d = static_cast<unsigned char*>(segment::payload(h));
      const uint32_t len = len_of(i);
      std::memcpy(d, &i, sizeof i);
      for (uint32_t b = sizeof i; b < len; ++b) d[b] = static_cast<unsigned char>(i + b);
      h->tag = static_cast<int32_t>(i);
      h->frag_len = len;
      h->full.store(1, std::memory_order_release);
      pos = pos + 1 == v.params().nslots ? 0 : pos + 1;
      ++i;
    }
  }
  cons.join();
  EXPECT_EQ(bad.load(), 0u);
  const double secs = std::chrono::duration<double>(steady_clock::now() - t0).count();
  RecordProperty("seconds", std::to_string(secs));
}

}  // namespace
}  // namespace baton::transport::shm
