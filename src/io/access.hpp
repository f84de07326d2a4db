// Internal to src/io: one process's part of a data access, resolved against its view.
//
// The memory side becomes a stream in the file's representation: the user's buffer itself when
// the memory type is contiguous and the representation keeps the memory layout (no copy), else a
// staging buffer (packed or converted). The file side is [pos, pos + len) of the view's stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/request.hpp"
#include "io/file.hpp"

namespace baton::io {

struct transfer {
  file* f = nullptr;
  bool write = false;
  int64_t pos = 0;        // stream byte position of the access
  int64_t len = 0;        // stream bytes (file representation)
  int64_t mem_bytes = 0;  // count * size of the memory type
  void* buf = nullptr;
  int64_t count = 0;
  const core::datatype* type = nullptr;  // retained until the transfer is finished
  char* stream = nullptr;                // the stream in memory
  std::unique_ptr<char[]> staging;
  int64_t done = 0;  // stream bytes moved (reads stop at the end of the file)
  transfer() = default;
  transfer(const transfer&) = delete;
  transfer& operator=(const transfer&) = delete;
  ~transfer();
};

// The stream length of an access of (count, type) through f's view, and its etype count;
// errc::arg when it is not a whole number of etypes.
[[nodiscard]] errc access_size(const file* f, int64_t count, const core::datatype* type, int64_t* len,
                               int64_t* etypes);
// Sets up t for the access at etype offset `etype_off` (writes: the stream filled from memory).
[[nodiscard]] errc transfer_prepare(file* f, const access& a, int64_t etype_off, transfer* t);
// Reads: moves what was read into the user's memory. Fills st (bytes of the memory type).
[[nodiscard]] errc transfer_finish(transfer* t, core::req_status* st);

// Independent file access of the whole transfer (direct runs, data sieving, atomic-mode locks).
// Sets t->done. Runs on the calling thread or the I/O worker; touches no engine state.
[[nodiscard]] errc indep_run(transfer* t);
// The same for any list of file runs backed by consecutive bytes of `mem` (used by two-phase
// aggregators too). Reads give in *done the bytes before the end of the file.
[[nodiscard]] errc runs_transfer(file* f, bool write, const std::vector<frun>& runs, char* mem, int64_t* done);

// A collective access (collective.cpp), as an operation that the caller (blocking) or the io
// poller (nonblocking) advances. `local` is this rank's verdict on its own arguments: a failure
// still takes part in the first exchange, so that every rank fails together. Engine lock held.
struct coll_op;
[[nodiscard]] errc coll_start(file* f, const access& a, int64_t etype_off, errc local, bool nonblocking,
                              coll_op** out);
// Advances op; true once it is over. Engine lock held.
bool coll_advance(coll_op* op);
// A nonblocking start: drives progress for up to 50 us while the op's first exchanges complete,
// so that it leaves the call with its file access or data exchange under way. Engine lock held.
void coll_kick(coll_op* op);
// The outcome (reads: data moved to memory); frees op.
[[nodiscard]] errc coll_finish(coll_op* op, core::req_status* st);

}  // namespace baton::io
