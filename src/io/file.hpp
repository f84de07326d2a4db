// File I/O (MPI-4.1 chapter 14): the file object and every operation on it.
//
// Layers inside src/io (docs/io.md has the long form):
//   file.cpp        open / close / delete, sizes, sync, atomicity, info, the live-file registry
//   hints.cpp       info hints (ROMIO's names), what each one changes, and what get_info reports
//   view.cpp        views: stream <-> file byte runs
//   datarep.cpp     data representations
//   independent.cpp independent access: direct runs, data sieving, atomic-mode locks
//   collective.cpp  collective access: two-phase I/O through aggregators, as schedule plans
//   ops.cpp         nonblocking requests, the I/O worker thread, split collectives
//   shared_fp.cpp   the shared file pointer (a lock file next to the data file)
//   posix.cpp       the POSIX backend
//
// A file owns a private dup of the communicator it was opened on: its collective traffic (open's
// agreement, two-phase exchanges) never meets the user's. Operations expect arguments checked by
// src/abi/abi_file.cpp (handles valid, counts non-negative, types committed) and take the engine
// lock themselves where they communicate.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/request.hpp"
#include "io/view.hpp"

namespace baton::core {
class comm;
class datatype;
class errhandler;
class group;
}  // namespace baton::core

namespace baton::io {

using core::errc;

constexpr uint32_t file_magic = 0x46494c31;  // "FIL1"

// Access mode bits: the values of MPI_MODE_* (pinned in src/abi/abi_file.cpp).
constexpr int mode_append = 1, mode_create = 2, mode_delete_on_close = 4, mode_excl = 8, mode_rdonly = 16,
              mode_rdwr = 32, mode_sequential = 64, mode_unique_open = 128, mode_wronly = 256;

// romio_cb_read / romio_cb_write / romio_ds_*: use the optimization always, never, or when it pays.
enum class tri : uint8_t { automatic, enable, disable };

// The hints a file runs with (hints.cpp documents each one).
struct hints {
  int64_t cb_buffer_size = int64_t{16} << 20;  // collective buffer of each aggregator, per round
  int cb_nodes = 0;                             // aggregators (0: cb_per_host on every host)
  int cb_per_host = 1;                          // aggregators per host (cb_config_list "*:n")
  tri cb_read = tri::automatic;
  tri cb_write = tri::automatic;
  tri ds_read = tri::automatic;
  tri ds_write = tri::automatic;
  int64_t ind_rd_buffer_size = int64_t{4} << 20;  // data sieving chunk for reads
  int64_t ind_wr_buffer_size = int64_t{512} << 10;  // and for writes
  int64_t striping_unit = 0;                      // aligns the collective buffering stripes
  int striping_factor = 0;
  bool no_indep_rw = false;  // romio_no_indep_rw: only collective access is used
  int file_perm = 0666;      // permissions of a file MPI_File_open creates (before the umask)
  // Every hint the user gave, in order, with the value in force (what MPI_File_get_info reports
  // beside the ones above).
  std::vector<std::pair<std::string, std::string>> given;
};

struct shared_fp;  // shared_fp.cpp

struct file {
  uint32_t magic = file_magic;
  core::comm* c = nullptr;  // private dup of the communicator the file was opened on
  int rank = 0;
  int size = 1;
  std::string name;
  int amode = 0;
  int fd = -1;
  view v;
  int64_t fp = 0;  // individual file pointer, etypes of the view
  shared_fp* sfp = nullptr;
  bool atomic = false;
  hints h;
  core::errhandler* eh = nullptr;
  // Nonblocking operations started and not complete (MPI_File_close waits for them).
  std::atomic<int> pending{0};
  // The split collective in progress (one at a time per file, MPI-4.1 14.4.5).
  core::request* split = nullptr;
  bool split_read = false;
  // The ranks of c that aggregate collective I/O (from the hints and the ranks' hosts, whose name
  // hashes open gathered: set_info and set_view choose again with new hints).
  std::vector<int> aggregators;
  std::vector<uint64_t> host_of_rank;
};

// The live-file registry: true if f is an open file (a closed or made-up handle is not).
bool file_valid(const file* f);

// ---- open / close (file.cpp) ----
// Collective over c, a private duplicate of the user's communicator made by the caller (the
// binding: communicator construction is a layer above this one), which the open takes over: the
// file keeps it on success, and frees it on failure. `given` are the info hints. On success *out
// has the error handler `eh`.
[[nodiscard]] errc file_open(core::comm* c, const char* filename, int amode,
                             const std::vector<std::pair<std::string, std::string>>& given, core::errhandler* eh,
                             file** out);
[[nodiscard]] errc file_close(file* f);
[[nodiscard]] errc file_delete(const char* filename);
[[nodiscard]] errc file_set_size(file* f, int64_t size);
[[nodiscard]] errc file_preallocate(file* f, int64_t size);
[[nodiscard]] errc file_get_size(file* f, int64_t* size);
[[nodiscard]] errc file_sync(file* f);
[[nodiscard]] errc file_set_atomicity(file* f, bool flag);
[[nodiscard]] errc file_set_info(file* f, const std::vector<std::pair<std::string, std::string>>& given);
// The hints in force, ROMIO's keys and every other key the user gave.
std::vector<std::pair<std::string, std::string>> file_get_info(const file* f);
core::group* file_get_group(const file* f);

// ---- hints (hints.cpp) ----
// Applies `given` over h (unknown keys are kept and reported; bad values are ignored, as hints may be).
void hints_apply(hints* h, const std::vector<std::pair<std::string, std::string>>& given, int comm_size);
std::vector<std::pair<std::string, std::string>> hints_report(const hints& h, int naggs);

// ---- views (file.cpp) ----
// Collective. disp may be -1 (MPI_DISPLACEMENT_CURRENT) in sequential mode.
[[nodiscard]] errc file_set_view(file* f, int64_t disp, const core::datatype* etype, const core::datatype* filetype,
                                 const char* datarep, const std::vector<std::pair<std::string, std::string>>& given);

// ---- pointers ----
enum class whence : uint8_t { set, cur, end };
[[nodiscard]] errc file_seek(file* f, int64_t offset, whence w);
[[nodiscard]] errc file_seek_shared(file* f, int64_t offset, whence w);  // collective
[[nodiscard]] errc file_get_position_shared(file* f, int64_t* offset);
[[nodiscard]] errc file_get_byte_offset(file* f, int64_t offset, int64_t* disp);
// The end of the file in etypes of the view (MPI_SEEK_END's base).
[[nodiscard]] errc file_end_etypes(file* f, int64_t* etypes);

// ---- data access ----
enum class position : uint8_t { explicit_offset, individual, shared, ordered };

struct access {
  bool write = false;
  bool collective = false;
  position pos = position::explicit_offset;
  int64_t offset = 0;  // explicit offsets, in etypes
  void* buf = nullptr;
  int64_t count = 0;
  const core::datatype* type = nullptr;
};

// Blocking access; st gets the bytes of the memory type moved.
[[nodiscard]] errc file_access(file* f, const access& a, core::req_status* st);
// Nonblocking access (MPI_File_i*): *out is an active request that completes with the operation.
[[nodiscard]] errc file_iaccess(file* f, const access& a, core::request** out);
// Split collectives: begin starts the collective; end completes it and gives its status.
[[nodiscard]] errc file_split_begin(file* f, const access& a);
[[nodiscard]] errc file_split_end(file* f, bool write, core::req_status* st);

// The extent of a datatype in the file's representation.
[[nodiscard]] errc file_type_extent(const file* f, const core::datatype* t, int64_t* extent);

}  // namespace baton::io
