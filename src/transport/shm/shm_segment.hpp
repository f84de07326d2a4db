// The shared-memory segment of one host: single-producer/single-consumer rings between every
// ordered pair of local ranks, plus a bulk channel per pair for pipelined large transfers.
//
// Progress rules (read before touching this file):
// - A ring slot or bulk chunk belongs to the producer while `full == 0` and to the consumer while
//   `full == 1`. The producer writes the body, then stores full=1 with release; the consumer loads
//   full with acquire, reads the body, then stores full=0 with release. No shared head/tail
//   indices: each side keeps its own position (FastForward-style), so an 8-byte message costs one
//   cache line moving each way.
// - Sleep: a rank about to sleep sets `sleeping`, fences, polls once more, then futex-waits on its
//   `doorbell`. A producer fences after publishing and rings the doorbell only if `sleeping` is set.
//   When every local rank registered for membarrier, the sleeper's fence is membarrier and the
//   producer's a compiler barrier (core/futex.hpp: producer_fence, sleeper_fence).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/shm_object.hpp"
#include "core/futex.hpp"

namespace baton::transport::shm {

// Header at the start of every ring slot. 48 bytes, so an 8-byte payload shares its cache line.
struct pkt_header {
  std::atomic<uint32_t> full;
  uint8_t type;
  uint8_t flags;
  uint16_t reserved;
  uint32_t ctx;        // matching context of the communicator
  int32_t src;         // sender's rank in that communicator
  int32_t tag;
  uint32_t frag_len;   // payload bytes in this slot
  uint64_t msg_len;    // total message bytes
  uint64_t cookie;     // sender-side request (synchronous ack, rendezvous)
  uint64_t aux;        // type-dependent (receiver request, sender address)
};
static_assert(sizeof(pkt_header) == 48);

// Header of one bulk chunk (its data follows in the next cache line).
struct alignas(64) chunk_header {
  std::atomic<uint32_t> full;
  uint32_t len;
  uint64_t rreq;    // receiver-side request the data belongs to
  uint64_t offset;  // byte offset of this chunk in the message
};

// A large contiguous message copied by both ends at once (single copy, process_vm_readv at the
// receiver and process_vm_writev at the sender): the receiver sets a job up in the slot table of
// the pair (receiver, sender), both claim chunks from `next` and count the copied ones in `done`;
// each end lets go of the job (refs) once it has seen every chunk copied. A slot is free while
// refs == 0; the receiver alone takes slots.
struct alignas(64) copy_job {
  std::atomic<uint32_t> next;    // next chunk to claim (past nchunks: none left)
  std::atomic<uint32_t> done;    // chunks copied
  std::atomic<uint32_t> refs;    // ends still using the job
  std::atomic<int32_t> orphan;   // a chunk the sender claimed but could not copy (-1: none)
  uint32_t nchunks;
  uint32_t chunk;                // bytes per chunk (the last one may be shorter)
  uint64_t bytes;
};
constexpr uint32_t copy_jobs_per_pair = 8;

struct alignas(64) rank_area {
  std::atomic<uint32_t> doorbell;
  std::atomic<uint32_t> sleeping;
  int32_t pid;
  std::atomic<uint32_t> ready;
  std::atomic<uint32_t> asym_fence;  // 1: registered for the asymmetric fence (core/futex.hpp)
  // 1 + the core this rank last noted while waiting (0: not known); its own line, so that noting
  // it does not take the doorbell's line away from the ranks that ring it.
  alignas(64) std::atomic<int32_t> cpu;
};

struct segment_params {
  uint32_t nlocal = 1;
  // Bytes per ring slot, header included: a power of two of payload (8 KiB, at least) plus one
  // cache line, so power-of-two messages fill whole slots (an 8 KiB message takes one slot, not a
  // full one and a 48-byte tail: the 8 KiB ring exchange of Example 13.1 went 4.62 -> 3.97 us).
  uint32_t slot_size = 8192 + 64;
  uint32_t nslots = 32;        // slots per ring
  uint32_t chunk_size = 65536; // data bytes per bulk chunk
  uint32_t nchunks = 8;        // chunks per bulk channel
  static segment_params for_ranks(uint32_t nlocal);
};

class segment {
 public:
  segment() = default;
  segment(const segment&) = delete;
  segment& operator=(const segment&) = delete;
  ~segment();

  // The first local rank creates the segment under a fresh unpredictable name (core::shm_create)
  // and hands name() to the others through the bootstrap; they open() it, with the owner check.
  [[nodiscard]] core::errc create(const segment_params& p, uint32_t me);
  [[nodiscard]] core::errc open(const std::string& name, const segment_params& p, uint32_t me);
  const std::string& name() const { return obj_.name; }
  // Counts this rank as a user that has mapped the segment; the last of the p.nlocal users
  // unlinks the name at once (nothing is left in /dev/shm from then on, however the job ends).
  void mapped();
  // Faults in the pages this rank consumes from (its incoming rings and bulk channels).
  void touch_incoming();
  void close();

  const segment_params& params() const { return p_; }
  uint32_t me() const { return me_; }
  uint32_t nlocal() const { return p_.nlocal; }
  size_t slot_payload() const { return p_.slot_size - sizeof(pkt_header); }

  rank_area& area(uint32_t r) const { return *reinterpret_cast<rank_area*>(base_ + areas_off_ + r * sizeof(rank_area)); }
  pkt_header* slot(uint32_t dst, uint32_t src, uint32_t i) const {
    return reinterpret_cast<pkt_header*>(base_ + rings_off_ + (size_t(dst) * p_.nlocal + src) * ring_bytes_ +
                                         size_t(i) * p_.slot_size);
  }
  chunk_header* chunk(uint32_t dst, uint32_t src, uint32_t i) const {
    return reinterpret_cast<chunk_header*>(base_ + bulk_off_ + (size_t(dst) * p_.nlocal + src) * bulk_bytes_ +
                                           size_t(i) * (sizeof(chunk_header) + p_.chunk_size));
  }
  copy_job* job(uint32_t dst, uint32_t src, uint32_t i) const {
    return reinterpret_cast<copy_job*>(base_ + jobs_off_) + (size_t(dst) * p_.nlocal + src) * copy_jobs_per_pair + i;
  }
  static void* payload(pkt_header* h) { return reinterpret_cast<char*>(h) + sizeof(pkt_header); }
  static void* chunk_data(chunk_header* c) { return reinterpret_cast<char*>(c) + sizeof(chunk_header); }

 private:
  segment_params p_;
  uint32_t me_ = 0;
  char* base_ = nullptr;
  size_t bytes_ = 0;
  size_t areas_off_ = 0, rings_off_ = 0, bulk_off_ = 0, jobs_off_ = 0, ring_bytes_ = 0, bulk_bytes_ = 0;
  core::shm_object obj_;
  void layout(const segment_params& p, uint32_t me);
  void attached();
};

using core::full_fence;
using core::futex_wait;
using core::futex_wake;

}  // namespace baton::transport::shm
