// The shared file pointer (MPI-4.1 14.4.4): one 8-byte counter of etypes in a small lock file
// beside the data file, read and advanced under a byte-range write lock. It works between the
// processes of a host and between hosts on any shared file system with POSIX locks (NFS, Lustre,
// GPFS ...), needs no process to answer messages (a rank busy outside MPI delays nobody), and
// costs one lock, one 8-byte read and one write per shared access.
//
// The lock file is `.<name>.baton-shfp.<id>` in the data file's directory, made on first use by
// whichever rank gets there first (the id is agreed at open), and removed by MPI_File_close. When
// that directory is not writable and every rank of the file is on one host, it goes to $TMPDIR
// (or /tmp) instead.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace baton::io {

using core::errc;

struct shared_fp {
  std::string path;      // where the counter lives
  std::string fallback;  // the $TMPDIR path (empty when ranks span hosts)
  int fd = -1;           // opened on first use
};

// Atomically: *old = counter; counter += add.
[[nodiscard]] errc shfp_fetch_add(shared_fp* s, int64_t add, int64_t* old);
[[nodiscard]] errc shfp_set(shared_fp* s, int64_t value);
// Closes the descriptor; `remove` also unlinks the lock file (one rank, after every rank is done).
void shfp_close(shared_fp* s, bool remove);

}  // namespace baton::io
