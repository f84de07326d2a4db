#include "io/shared_fp.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "io/posix.hpp"

namespace baton::io {

namespace {
errc shfp_open(shared_fp* s) {
  if (s->fd >= 0) return errc::success;
  int fd = ::open(s->path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM) && !s->fallback.empty()) {
    s->path = s->fallback;
    fd = ::open(s->path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  }
  if (fd < 0) return posix::fail(errno, "cannot create the shared file pointer's lock file", s->path);
  s->fd = fd;
  return errc::success;
}

errc read_counter(shared_fp* s, int64_t* v) {
  int64_t got = 0;
  *v = 0;
  if (errc e = posix::read_at(s->fd, s->path, v, sizeof(*v), 0, &got); e != errc::success) return e;
  if (got != int64_t(sizeof(*v))) *v = 0;  // a new lock file: the pointer is at 0
  return errc::success;
}
}  // namespace

errc shfp_fetch_add(shared_fp* s, int64_t add, int64_t* old) {
  if (errc e = shfp_open(s); e != errc::success) return e;
  posix::range_lock l;
  if (errc e = l.take(s->fd, s->path, posix::lock_kind::write, 0, 8); e != errc::success) return e;
  if (errc e = read_counter(s, old); e != errc::success) return e;
  if (add == 0) return errc::success;
  const int64_t next = *old + add;
  return posix::write_at(s->fd, s->path, &next, sizeof(next), 0);
}

errc shfp_set(shared_fp* s, int64_t value) {
  if (errc e = shfp_open(s); e != errc::success) return e;
  posix::range_lock l;
  if (errc e = l.take(s->fd, s->path, posix::lock_kind::write, 0, 8); e != errc::success) return e;
  return posix::write_at(s->fd, s->path, &value, sizeof(value), 0);
}

void shfp_close(shared_fp* s, bool remove) {
  if (s->fd >= 0) ::close(s->fd);
  s->fd = -1;
  if (remove) {
    (void)::unlink(s->path.c_str());
    if (!s->fallback.empty()) (void)::unlink(s->fallback.c_str());
  }
}

}  // namespace baton::io
