// The shared-memory region of a communicator, for the shared-memory collectives
// (src/coll/algorithms/*/*_shm.cpp).
//
// Lifecycle: the first collective on a communicator of two or more ranks, all on this host, blocking
// or nonblocking, begins setting the region up (region_setup_start: rank 0 creates a POSIX
// shared-memory segment, broadcasts its name, every rank maps it, an allreduce agrees that all
// succeeded, rank 0 unlinks the name), as nonblocking collectives on message algorithms. Every
// rank begins it at the same point of the communicator's collective sequence, and until it is
// over on this rank the calls whose selection may read the region wait (blocking ones in their
// call, nonblocking ones in a deferred request), so every rank selects each collective with the
// same state (ready or not), and selection predicates may read it. A communicator whose setup
// failed (no /dev/shm space, ...) keeps using the message algorithms.
// Each rank unmaps the region when its communicator object is destroyed; the memory lives until
// the last rank has unmapped it, so a rank may leave while a peer still reads its data.
//
// Layout, for n ranks (S = slots = 32 runs in flight, L = large_slots = 4):
//   arrived[r][s], done[r][s] (s < S): one cache line each, written only by rank r;
//   small[r][s] (s < S): small_bytes each, and large[r][b] (b < L): slot_bytes each, written only
//   by rank r. A run moves its data through small[.][q % S] when its message (as every rank
//   computes it alike) fits small_bytes, else through large[.][q % L];
//   log[r]: rank r's collective log (src/coll/coll_log.hpp).
// A run of a plan with shared-memory steps takes the communicator's next sequence number q
// (coll_shm_seq, consumed identically on every rank by plans that every rank selects alike) and
// uses flag slot s = q % S. Protocol:
//   - a rank that publishes (data, or only its arrived flag) first waits until done[r][s] >= q - S
//     for every r (everyone has finished the run that used the flag slot and its small buffer
//     before), and for a large message also done[r][(q - kL) % S] >= q - kL for k = 1..S/L
//     (everyone has finished every run back to q - S that may have used large buffer q % L; each
//     of those waited for its own q - S, which covers the older ones), then writes and stores
//     arrived[me][s] = q (release);
//   - a reader waits for arrived[r][s] >= q (acquire) before reading r's buffer;
//   - every rank stores done[me][s] = q when it has finished with the run, whether it read
//     anything or not.
// So a rank's flags of one slot are written in sequence order and only grow (a rank publishes
// for q only after its own run q - S is done everywhere), and a waiter never misses a value;
// after each store the writer rings the doorbells of the ranks that sleep (waiters poll, yield,
// then sleep like every other wait). 32 runs in flight let a bcast root run ahead of slow
// receivers about as far as the point-to-point rings would.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "coll/coll_log.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/error.hpp"

namespace baton::coll::shm {

constexpr int slots = 32;                               // runs in flight (flag slots)
constexpr int large_slots = 4;                          // large buffers per rank
constexpr int64_t small_bytes = 2048;                   // small buffer per rank and flag slot
constexpr int64_t inline_bytes = 48;                    // data kept in the arrived flag's line
constexpr int64_t slot_bytes = int64_t{64} << 10;       // largest message (large buffer)

// comm::coll_shm_state
// state_failed: the ranks' collectives disagreed (src/coll/mismatch.cpp); the region stays mapped
// but no plan uses it, and a cached plan no longer matches (the cache notes the state).
enum : uint8_t { state_none = 0, state_busy = 1, state_ready = 2, state_off = 3, state_failed = 4 };

struct region {
  int n = 0, me = 0;
  char* base = nullptr;
  size_t bytes = 0;
  std::vector<uint32_t> locals;  // comm rank -> index on the host (doorbells)
  // Geometry: the communicator's region has the constants above; a persistent operation's region
  // (region_make) has the flag slots it wants and one small buffer per slot sized for its
  // message, no large buffers.
  int nslots = slots;       // a power of two (slot_of masks)
  int nlarge = large_slots;  // a power of two, or 0 (no large buffers)
  int64_t small = small_bytes;  // small buffer bytes (per rank and flag slot)
  size_t small_off = 0, large_off = 0;
  // Persistent regions only. Runs of one operation finish in start order on each rank, so one
  // `done` flag per rank (slot 0's) says how far it got, and `done_floor` remembers the smallest
  // value last read from all ranks: a publisher reads its peers' done lines only when that is too
  // old.
  bool in_order = false;
  mutable uint64_t done_floor = 0;
  int64_t inline_data = inline_bytes;  // data kept in the arrived flag's line (below)
  // Single copy (a persistent bcast of a large contiguous message, region_single_copy): receivers
  // read the root's bound buffer straight from its process (process_vm_readv) once its flag shows
  // the run, and store done at once; the root finishes a run only when every receiver is done.
  // Alltoall single copy (copy_all): every rank reads its block from each peer's bound send
  // buffer, stores done at once, and finishes once every peer is done reading its own.
  int copy_root = -1;
  bool copy_all = false;
  int32_t root_pid = 0;
  uint64_t root_addr = 0;
  std::vector<int32_t> peer_pid;    // copy_all, split: per rank
  std::vector<uint64_t> peer_addr;  // copy_all: per rank, its send buffer; split: its receive buffer
  std::vector<uint64_t> peer_recv;  // copy_all allreduce: per rank, its receive buffer
  // Split bcast (copy_root, from split_min bytes): both ends of each copy work. A receiver, once
  // started, raises its arrived flag; the root writes the last 1/n of the message straight into
  // every started receiver's bound buffer (process_vm_writev) and then stores its done flag,
  // while each receiver reads the rest from the root's buffer. A receiver is done when it has
  // read its part and the root's done flag shows the run; the root when every receiver is.
  bool split = false;
  mutable std::vector<uint64_t> wrote;  // root: per rank, the last run whose share it wrote
  mutable uint64_t read_run = 0;        // receiver: the last run whose part it read
  int64_t split_share(int64_t bytes) const { return split ? bytes / n / 64 * 64 : 0; }
  // Reads `bytes` at `addr` in process `pid` into dst; false when the kernel refuses.
  static bool read_from(int32_t pid, uint64_t addr, char* dst, int64_t bytes);
  // Writes `bytes` from src to `addr` in process `pid`; false when the kernel refuses.
  static bool write_to(int32_t pid, uint64_t addr, const char* src, int64_t bytes);
  bool read_root(char* dst, int64_t bytes) const { return read_from(root_pid, root_addr, dst, bytes); }

  std::atomic<uint64_t>& arrived(int r, int s) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(base + (size_t(r) * size_t(nslots) + size_t(s)) * 64);
  }
  std::atomic<uint64_t>& done(int r, int s) const {
    if (in_order) s = 0;
    return *reinterpret_cast<std::atomic<uint64_t>*>(base + (size_t(n + r) * size_t(nslots) + size_t(s)) * 64);
  }
  // Rank r's buffer for run q moving `bytes` (the same on every rank). Up to inline_data bytes
  // live in the rest of the arrived flag's cache line (16 bytes in, for 16-byte types), so a
  // reader that sees the flag has the data in the same line: one cache-line transfer per peer
  // instead of two for an 8-byte collective. Reuse follows the flag slot's, like the small buffers.
  char* data(int r, uint64_t q, int64_t bytes) const {
    if (bytes <= inline_data) return reinterpret_cast<char*>(&arrived(r, slot_of(q))) + 16;
    if (bytes <= small) return base + small_off + (size_t(r) * size_t(nslots) + size_t(slot_of(q))) * size_t(small);
    return base + large_off + (size_t(r) * size_t(nlarge) + (q & uint64_t(nlarge - 1))) * size_t(slot_bytes);
  }

  // A 64-bit division here was a fifth of an 8-byte bcast root's time: the counts are powers of two.
  int slot_of(uint64_t q) const { return int(q & uint64_t(nslots - 1)); }
  // Every rank has finished the runs whose flags or buffer run q reuses.
  bool slot_free(uint64_t q, int64_t bytes) const {
    const uint64_t ns = uint64_t(nslots);
    if (in_order) {
      // Rank r has finished run q - S when its done flag says so, or when it has arrived at a
      // later run (it arrives at a run only after finishing the one before).
      if (q <= ns || done_floor >= q - ns) return true;
      uint64_t floor = UINT64_MAX;
      for (int r = 0; r < n; ++r) {
        uint64_t v = done(r, 0).load(std::memory_order_acquire);
        if (v < q - ns && arrived(r, slot_of(q - ns + 1)).load(std::memory_order_acquire) > q - ns) v = q - ns;
        if (v < q - ns) return false;
        floor = v < floor ? v : floor;
      }
      done_floor = floor;
      return true;
    }
    if (q > ns) {
      const int s = slot_of(q);
      for (int r = 0; r < n; ++r)
        if (done(r, s).load(std::memory_order_acquire) < q - ns) return false;
    }
    // The next run checks the next slot's done lines, which the peers have written since this
    // rank last read them: start those cache-line transfers now, off that call's critical path
    // (bcast 8 B, interleaved A/B medians: 0.137 -> 0.118 us, 0.152 -> 0.106 in another run).
    for (int r = 0; r < n; ++r) __builtin_prefetch(&done(r, slot_of(q + 1)));
    // Large buffer q % L: every earlier run p = q - L*k may have used it. Runs back to q - S are
    // checked here; each of them waited in turn for its own q - S, which covers all older ones.
    if (bytes > small)
      for (uint64_t back = uint64_t(nlarge); back <= ns && back < q; back += uint64_t(nlarge)) {
        const uint64_t prev = q - back;
        const int s = slot_of(prev);
        for (int r = 0; r < n; ++r)
          if (done(r, s).load(std::memory_order_acquire) < prev) return false;
      }
    return true;
  }
  // Dynamic single copy (the communicator's region): every rank may read and write every other
  // rank's memory (process_vm_readv/_writev), agreed by all at setup. A run of a single-copy
  // algorithm announces this rank's pid and buffer addresses in the inline data of its arrived
  // flag (announce, before publishing it); a peer that has seen the flag reads them (announced).
  bool cma = false;
  int32_t pid = 0;
  struct buffers {
    int32_t pid;
    uint64_t send, recv;
  };
  void announce(uint64_t q, const void* send, const void* recv) const {
    auto* d = reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(&arrived(me, slot_of(q))) + 16);
    d[0] = uint64_t(uint32_t(pid));
    d[1] = reinterpret_cast<uint64_t>(send);
    d[2] = reinterpret_cast<uint64_t>(recv);
  }
  buffers announced(int r, uint64_t q) const {
    const auto* d = reinterpret_cast<const uint64_t*>(reinterpret_cast<const char*>(&arrived(r, slot_of(q))) + 16);
    return {int32_t(uint32_t(d[0])), d[1], d[2]};
  }
  // Mismatch detection (docs/architecture.md, "Collective argument mismatches"): a publisher
  // stores the bytes it moves in run q beside its arrived flag (bytes 8..15 of the flag's line,
  // which the flag's store releases: no extra cache line), and a reader compares them with what
  // it expects before using the data. A reader that would get more than it posted fails with
  // MPI_ERR_TRUNCATE, never cuts silently; data is always found at the publisher's own size.
  // The forms taking the flag itself spare the hot paths recomputing its address.
  static void put_bytes(std::atomic<uint64_t>& flag, int64_t bytes) {
    *reinterpret_cast<int64_t*>(reinterpret_cast<char*>(&flag) + 8) = bytes;
  }
  static int64_t bytes_at(const std::atomic<uint64_t>& flag) {
    return *reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(&flag) + 8);
  }
  void put_bytes(uint64_t q, int64_t bytes) const { put_bytes(arrived(me, slot_of(q)), bytes); }
  // Rank r's bytes in run q (read after has_arrived / all_arrived showed its flag).
  int64_t bytes_of(int r, uint64_t q) const { return bytes_at(arrived(r, slot_of(q))); }
  bool has_arrived(int r, uint64_t q) const {
    return arrived(r, slot_of(q)).load(std::memory_order_acquire) >= q;
  }
  // Every rank has published run q. With `mismatch` (the reductions, alltoall, single copy), each
  // rank's bytes (put_bytes) are read right after its flag, from the line just fetched (read in a
  // second pass they cost the 8 B persistent allreduce 5%): *mismatch becomes the first rank
  // whose bytes differ from `bytes` (else it stays -1).
  bool all_arrived(uint64_t q, int64_t bytes = 0, int* mismatch = nullptr) const {
    const int sl = slot_of(q);
    for (int r = 0; r < n; ++r) {
      const std::atomic<uint64_t>& f = arrived(r, sl);
      if (f.load(std::memory_order_acquire) < q) return false;
      if (mismatch && bytes_at(f) != bytes && *mismatch < 0) [[unlikely]]
        *mismatch = r;
    }
    if (in_order && done_floor < q - 1) done_floor = q - 1;  // everyone has finished run q - 1
    return true;
  }
  // This rank has finished run q, having published nothing in it (a bcast receiver). The
  // communicator's region stores done at once. An in-order region stores it at every (S/2)-th
  // run only: a rank that has started run q has finished q - 1 and so stored done >= q - S/2,
  // which is all a publisher at q waits for (done >= q - S); a publisher therefore never waits for
  // more than every rank having started the same run, as any collective may.
  void mark_done(uint64_t q) const {
    if (!in_order)
      publish(done(me, slot_of(q)), q);
    else if ((q & uint64_t(nslots / 2 - 1)) == 0)
      publish(done(me, 0), q);
  }
  // This rank has finished run q of an algorithm in which every rank publishes at every run: the
  // communicator's region stores done; an in-order region stores nothing, since this rank's
  // arrival at its next run says as much (slot_free reads it, and that store wakes sleepers).
  void finished(uint64_t q) const {
    if (!in_order) publish(done(me, slot_of(q)), q);
  }
  // Stores a flag of this rank and wakes the peers that sleep.
  void publish(std::atomic<uint64_t>& flag, uint64_t q) const;

  // The collective log (coll_log.hpp; the communicator's region only): rank r's block, and
  // this rank's writer.
  size_t log_off = 0;  // 0: no log
  log_writer log;
  const char* log_block(int r) const { return base + log_off + size_t(r) * log_block_bytes; }
};

inline region* region_of(const core::comm* c) { return static_cast<region*>(c->coll_shm); }
inline bool region_ready(const core::comm* c) { return c->coll_shm_state == state_ready; }

// Begins setting c's region up if it has none yet and could have one (see above; engine lock
// held): the first collective on c calls it, blocking or not, before taking its own sequence
// number. The setup's collectives take the next four sequence numbers at once and run as
// nonblocking collectives on message algorithms, moved on by a progress poller, with c in
// state_busy until the last one is over on this rank; c then gets its region (state_ready) or
// goes on without (state_off: no space, or a rank that could not map it), alike on every rank,
// and the nonblocking calls that waited meanwhile start (coll::start_deferred).
void region_setup_start(core::comm* c);
// The same, then waits until the setup is over (no engine lock: blocking collectives, persistent
// inits).
void region_setup(core::comm* c);

// Unmaps c's region now (MPI_Finalize, for the predefined communicators, which are never
// destroyed); c falls back to the message algorithms.
void region_release(core::comm* c);

// Regions made so far and live now in this process (tests, MPIX_ introspection).
int regions_live();
// Whether communicators may get a region at all (BATON_COLL_SHM=0 says no; read once).
bool coll_shm_enabled();

// ---- regions of persistent operations ----
//
// A persistent collective with shared-memory steps gets a region of its own at init
// (src/coll/persistent.cpp): same layout and protocol as above, with `nslots` flag slots and a
// small buffer of `data_bytes` per rank and slot, and sequence numbers that are the operation's
// start count (1, 2, ...) instead of the communicator's. Starts of different persistent operations
// may thus come in any order on different ranks: each only ever meets the same operation's
// start on its peers. Collective over c (a segment made by rank 0, its name broadcast, every rank
// maps it, an allreduce agrees); call without the engine lock, at the same point of c's
// collective sequence on every rank. *out is null on every rank when any rank failed (no space):
// the caller then picks a message algorithm. Freed locally by region_destroy (the memory lives
// until the last rank unmaps it, so a rank may leave while a peer still reads its data).
[[nodiscard]] core::errc region_make(core::comm* c, int nslots, int64_t data_bytes, region** out);
void region_destroy(region* g);
// Turns a persistent bcast region to single copy where every rank can (`mine`: this rank's type
// is contiguous; `buf`: this rank's first byte of the message) and the kernel lets receivers
// read the root's memory (and, with `split`, the root its receivers'). root = -1: an alltoall
// region (copy_all), `buf` is this rank's send buffer (and `recv`, for an allreduce, its receive
// buffer, which the peers write). Collective over c (a barrier and an allreduce; no engine lock); all
// ranks end with the same mode. Messages from single_copy_min bytes, wherever single copy is
// wanted (core::cma_wanted(); BATON_PCOLL_SINGLE_COPY=0 turns it off for persistent collectives
// alone; read once, give every rank the same value). Measured on the Zen 5 machines: bcast 64 KiB
// 5.2 us against 10.5 through the region, alltoall 64 KiB 7.6 against 15.5 (dirty lines cross
// cores slowly there); on the earlier KVM machines the two cache-resident copies won at 64 KiB
// (2.6 against 5.9 us), so the switch stays.
constexpr int64_t single_copy_min = int64_t{32} << 10;
// A bcast splits its copies between the root and the receivers from here (two system calls per
// receiver instead of one pay off only for large messages).
constexpr int64_t split_min = int64_t{256} << 10;
// A persistent allreduce reduces single copy from here (two system calls per peer and block:
// 2 ranks, fast phase of the Zen 5 machines, single copy / region or messages: 32 KiB 7.4 / 3.0 us,
// 64 KiB 9.1 / 5.7, 128 KiB 12.8 / 16.8, 256 KiB 20 / 27, 1 MiB 105 / 124, 4 MiB 486 / 556).
constexpr int64_t reduce_single_copy_min = int64_t{128} << 10;
// Persistent bcast, allreduce and alltoall keep their region (single copy) up to this many bytes
// per rank. Their region is sized for the message before single copy is agreed, and were it
// refused (a non-contiguous type, in place, the kernel), the data would go through it: at most
// 4 slots x n ranks x this much shared memory.
constexpr int64_t persistent_single_copy_max = int64_t{4} << 20;
bool single_copy_enabled();
// Blocking and nonblocking allreduce on the communicator's region reduce single copy
// (allreduce_single_copy) from here: 2 ranks, interleaved, see algorithms.hpp.
constexpr int64_t dynamic_single_copy_min = int64_t{128} << 10;
// Blocking and nonblocking alltoall read their blocks single copy (alltoall_single_copy) from
// this many bytes per block.
constexpr int64_t dynamic_single_copy_a2a_min = int64_t{32} << 10;
// A type whose elements lie back to back (k-th at true_lb + k * size), so that a range of elements
// is a range of bytes: single-copy allreduce moves blocks of elements as bytes.
inline bool single_copy_reducible(const core::datatype* t) { return t->is_contiguous() && t->extent() == t->size(); }
// `bytes`: this rank's message (block, for an alltoall); single copy is agreed only where every
// rank's equals the root's (every rank's, root = -1): a reader must never read or write past a
// peer's buffer. Otherwise each start goes through the region, whose flags carry the sizes.
[[nodiscard]] core::errc region_single_copy(core::comm* c, region* g, int root, const void* buf, bool mine,
                                           int64_t bytes, bool split = false, const void* recv = nullptr);
// Persistent regions live now in this process (tests).
int persistent_regions_live();

}  // namespace baton::coll::shm
