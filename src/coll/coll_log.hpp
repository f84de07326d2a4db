// The collective log (src/coll/mismatch.hpp): what a rank selected for its recent blocking and
// nonblocking collectives on a communicator, which no peer reads unless a wait has stalled.
//
// A rank's log is one block of log_block_bytes: a line holding its position (the last logged
// sequence number + 1, stored at every collective: one store to a line nobody reads meanwhile),
// a counter of the runs started and the rank's verdict once it failed the communicator
// (log_writer::failed), then log_runs runs, a ring of 32-byte entries. A run starts
// at sequence `first` and lasts until the next run starts, or up to the position for the newest.
// A collective that runs the plan the one before ran (the same arguments and algorithm: a loop)
// only moves the position; another starts a run. The counter is a seqlock over the ring (odd
// while a run is written): a reader that sees the same even value before and after reading the
// ring has a whole one. The blocks live in the communicator's shared-memory region, where peers
// read them in place (src/coll/mismatch.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace baton::coll {

constexpr int log_runs = 16;
constexpr size_t log_block_bytes = 64 + 32 * size_t(log_runs);

struct log_entry {
  uint64_t first1 = 0;  // first sequence number + 1 (0: empty)
  uint64_t what = 0;    // what was selected (src/coll/mismatch.cpp encodes it)
  int64_t bytes = 0, rbytes = 0;
};

// A rank's log as read at one moment.
struct log_snapshot {
  uint64_t position = 0;  // last logged sequence number + 1 (0: none)
  uint64_t failed = 0;    // the rank failed the communicator: log_writer::failed
  log_entry runs[log_runs];
  // The entry of the run that holds collective s (nullptr: not logged, or no longer).
  const log_entry* at(uint64_t s) const;
};

// Reads a block (false when a run was being written meanwhile: try again later).
bool log_read(const char* block, log_snapshot* out);

// This rank's side of its log on one communicator (engine lock held).
struct log_writer {
  char* block = nullptr;       // this rank's block (64-byte aligned)
  const void* plan = nullptr;  // the plan of the current run (src/coll/mismatch.cpp holds a reference)
  uint32_t next = 0;           // the ring entry the next run takes
  std::atomic<uint64_t>& position() const { return *reinterpret_cast<std::atomic<uint64_t>*>(block); }
  // Once the rank has failed the communicator: the collective's sequence number + 1, and the
  // error class << 48 (peers that see it fail theirs too).
  std::atomic<uint64_t>& failed() const { return reinterpret_cast<std::atomic<uint64_t>*>(block)[3]; }
  // Starts a run at collective `seq`, before the position moves to it.
  void start(uint64_t seq, uint64_t what, int64_t bytes, int64_t rbytes);
};

}  // namespace baton::coll
