#include "core/shm_object.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/runtime.hpp"
#include "core/shm_names.hpp"

namespace baton::core {

namespace {
constexpr int create_attempts = 8;  // each under a new random name

char* map_fd(int fd, size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

std::string make_job() {
  // Under Baton's mpiexec the job id is in the environment and PMI_FD is the launcher's socket;
  // an inherited BATON_JOBID under another launcher is ignored (that launcher cleans nothing).
  const char* id = std::getenv("BATON_JOBID");
  const pmi_client& pmi = rt().pmi;
  if (pmi.baton_launcher() && shm_names::jobid_launcher(id) > 0) return shm_names::job_field(id);
  if (pmi.singleton()) return "s" + std::to_string(::getpid());
  return "x" + shm_names::job_field(pmi.kvsname());
}
}  // namespace

const std::string& shm_job() {
  static std::once_flag once;
  static std::string job;
  std::call_once(once, [] { job = make_job(); });
  return job;
}

errc random_bytes(void* out, size_t n) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::getrandom(p, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return error_set(errc::intern, "no random bytes from the kernel (getrandom: %s): shared-memory names must be "
                       "unpredictable", got < 0 ? std::strerror(errno) : "no data");
    p += got;
    n -= size_t(got);
  }
  return errc::success;
}

errc shm_create(const char* kind, size_t bytes, shm_object* out) {
  *out = shm_object{};
  for (int attempt = 0; attempt < create_attempts; ++attempt) {
    unsigned char rnd[16];
    if (errc e = random_bytes(rnd, sizeof rnd); e != errc::success) return e;
    std::string name = "/" + std::string(shm_names::prefix) + shm_job() + "." + kind + "." + std::to_string(::getpid()) + ".";
    static constexpr char hexd[] = "0123456789abcdef";
    for (unsigned char b : rnd) {
      name.push_back(hexd[b >> 4]);
      name.push_back(hexd[b & 15]);
    }
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;  // someone holds this name: take another
      return error_set(errc::intern, "cannot create shared-memory object %s: %s", name.c_str(), std::strerror(errno));
    }
    char* base = nullptr;
    int err = 0;
    if (::ftruncate(fd, off_t(bytes)) != 0 || (base = map_fd(fd, bytes)) == nullptr) err = errno;
    ::close(fd);
    if (base == nullptr) {
      ::shm_unlink(name.c_str());
      return error_set(errc::no_mem, "cannot size and map shared-memory object %s (%zu bytes): %s", name.c_str(), bytes,
                       std::strerror(err));
    }
    out->name = std::move(name);
    out->base = base;
    out->bytes = bytes;
    return errc::success;
  }
  return error_set(errc::intern, "cannot create a shared-memory object of kind %s: %d random names were all taken", kind,
                   create_attempts);
}

errc shm_open_checked(const std::string& name, size_t bytes, shm_object* out) {
  *out = shm_object{};
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) return error_set(errc::intern, "cannot open shared-memory object %s: %s", name.c_str(), std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return error_set(errc::intern, "cannot inspect shared-memory object %s: %s", name.c_str(), std::strerror(err));
  }
  // Made by this job's creator with O_EXCL and mode 0600: anything else is not ours to map.
  if (st.st_uid != ::geteuid() || (st.st_mode & 0077) != 0 || !S_ISREG(st.st_mode) || size_t(st.st_size) != bytes) {
    ::close(fd);
    return error_set(errc::other,
                     "refusing shared-memory object %s: owner uid %u mode %03o size %lld, expected uid %u mode 600 "
                     "size %zu (another user's file or a stale object)",
                     name.c_str(), unsigned(st.st_uid), unsigned(st.st_mode & 0777), (long long)st.st_size,
                     unsigned(::geteuid()), bytes);
  }
  char* base = map_fd(fd, bytes);
  const int err = errno;
  ::close(fd);
  if (base == nullptr)
    return error_set(errc::no_mem, "cannot map shared-memory object %s (%zu bytes): %s", name.c_str(), bytes,
                     std::strerror(err));
  out->name = name;
  out->base = base;
  out->bytes = bytes;
  return errc::success;
}

void shm_unlink_name(shm_object& o) {
  if (!o.name.empty()) ::shm_unlink(o.name.c_str());
  o.name.clear();
}

void shm_unmap(shm_object& o) {
  if (o.base != nullptr) ::munmap(o.base, o.bytes);
  o.base = nullptr;
  o.bytes = 0;
}

}  // namespace baton::core
