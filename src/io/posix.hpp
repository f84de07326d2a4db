// The POSIX backend of file I/O: whole-range pread/pwrite loops, byte-range locks, and the mapping
// of errno values to MPI error classes (MPI-4.1 14.7). Every function sets the error message
// (naming the file and what the system said) on failure.
//
// Locks are open-file-description locks (F_OFD_SETLKW) where the kernel has them: they belong to
// the descriptor, not the process, so closing another descriptor of the same file (a second
// MPI_File_open of it) never drops them; classic fcntl locks otherwise. NFS and other shared
// file systems that support POSIX locks carry both across hosts.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace baton::io::posix {

using core::errc;

// The error class for errno value `err` of an operation on a file (open, read, write ...).
errc errno_class(int err);
// Records "<what> '<path>': <strerror>" and returns errno_class(err).
[[nodiscard]] errc fail(int err, const char* what, const std::string& path);

// Reads up to `len` bytes at `off`; *got gets the bytes read (less only at the end of the file).
[[nodiscard]] errc read_at(int fd, const std::string& path, void* buf, int64_t len, int64_t off, int64_t* got);
// Writes all `len` bytes at `off`.
[[nodiscard]] errc write_at(int fd, const std::string& path, const void* buf, int64_t len, int64_t off);

enum class lock_kind : uint8_t { read, write };
// Takes (blocking) a lock on [off, off + len) of fd; len 0 means to the end of any file size.
[[nodiscard]] errc lock(int fd, const std::string& path, lock_kind k, int64_t off, int64_t len);
void unlock(int fd, int64_t off, int64_t len);

[[nodiscard]] errc file_size(int fd, const std::string& path, int64_t* size);

// RAII lock over a byte range (no lock when fd < 0).
class range_lock {
 public:
  range_lock() = default;
  range_lock(const range_lock&) = delete;
  range_lock& operator=(const range_lock&) = delete;
  [[nodiscard]] errc take(int fd, const std::string& path, lock_kind k, int64_t off, int64_t len) {
    errc e = lock(fd, path, k, off, len);
    if (e == errc::success) {
      fd_ = fd;
      off_ = off;
      len_ = len;
    }
    return e;
  }
  ~range_lock() {
    if (fd_ >= 0) unlock(fd_, off_, len_);
  }

 private:
  int fd_ = -1;
  int64_t off_ = 0, len_ = 0;
};

}  // namespace baton::io::posix
