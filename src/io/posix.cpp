#include "io/posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace baton::io::posix {

errc errno_class(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return errc::no_such_file;
    case EACCES:
    case EPERM: return errc::access;
    case EEXIST: return errc::file_exists;
    case EROFS: return errc::read_only;
    case ENOSPC:
    case EFBIG: return errc::no_space;  // EFBIG: past the process's file size limit or the file system's
    case EDQUOT: return errc::quota;
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP: return errc::bad_file;
    case ETXTBSY:
    case EBUSY: return errc::file_in_use;
    case ENOMEM: return errc::no_mem;
    default: return errc::io;
  }
}

errc fail(int err, const char* what, const std::string& path) {
  return core::error_set(errno_class(err), "%s '%s': %s", what, path.c_str(), std::strerror(err));
}

errc read_at(int fd, const std::string& path, void* buf, int64_t len, int64_t off, int64_t* got) {
  auto* p = static_cast<char*>(buf);
  int64_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(fd, p + done, size_t(len - done), off + done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *got = done;
      return fail(errno, "cannot read", path);
    }
    if (n == 0) break;  // end of file
    done += n;
  }
  *got = done;
  return errc::success;
}

errc write_at(int fd, const std::string& path, const void* buf, int64_t len, int64_t off) {
  const auto* p = static_cast<const char*>(buf);
  int64_t done = 0;
  while (done < len) {
    ssize_t n = ::pwrite(fd, p + done, size_t(len - done), off + done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno, "cannot write", path);
    }
    if (n == 0) return core::error_set(errc::no_space, "cannot write '%s': the device accepted no data", path.c_str());
    done += n;
  }
  return errc::success;
}

namespace {
int lock_cmd(bool wait) {
#ifdef F_OFD_SETLKW
  static const bool ofd = [] {
    // Kernels before 3.15 refuse OFD commands with EINVAL: fall back to process locks.
    struct flock fl {};
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = ::fcntl(fd, F_OFD_GETLK, &fl) == 0;
    ::close(fd);
    return ok;
  }();
  if (ofd) return wait ? F_OFD_SETLKW : F_OFD_SETLK;
#endif
  return wait ? F_SETLKW : F_SETLK;
}
}  // namespace

errc lock(int fd, const std::string& path, lock_kind k, int64_t off, int64_t len) {
  struct flock fl {};
  fl.l_type = k == lock_kind::read ? F_RDLCK : F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = off;
  fl.l_len = len;
  fl.l_pid = 0;
  const int cmd = lock_cmd(true);
  for (;;) {
    if (::fcntl(fd, cmd, &fl) == 0) return errc::success;
    if (errno == EINTR) continue;
    return fail(errno, "cannot lock a byte range of", path);
  }
}

void unlock(int fd, int64_t off, int64_t len) {
  struct flock fl {};
  fl.l_type = F_UNLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = off;
  fl.l_len = len;
  fl.l_pid = 0;
  while (::fcntl(fd, lock_cmd(true), &fl) != 0 && errno == EINTR) {
  }
}

errc file_size(int fd, const std::string& path, int64_t* size) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(errno, "cannot query the size of", path);
  *size = st.st_size;
  return errc::success;
}

}  // namespace baton::io::posix
