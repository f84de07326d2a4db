#include "transport/shm/shm_segment.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace baton::transport::shm {

namespace {
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
constexpr uint64_t segment_magic = 0xba70'5e6d'0000'0001ULL;

struct segment_header {
  uint64_t magic;
  segment_params params;
};
}  // namespace

segment_params segment_params::for_ranks(uint32_t nlocal) {
  segment_params p;
  p.nlocal = nlocal;
  // Memory grows with the square of the local rank count: keep it near 1 GiB at worst.
  if (nlocal > 16) {
    p.nslots = 16;
    p.nchunks = 4;
  }
  if (nlocal > 64) {
    p.slot_size = 4096 + 64;
    p.nslots = 8;
    p.chunk_size = 32768;
    p.nchunks = 2;
  }
  return p;
}

segment::~segment() { close(); }

core::errc segment::open(const std::string& name, const segment_params& p, uint32_t me) {
  p_ = p;
  me_ = me;
  name_ = name;
  ring_bytes_ = size_t(p.slot_size) * p.nslots;
  bulk_bytes_ = (sizeof(chunk_header) + p.chunk_size) * size_t(p.nchunks);
  areas_off_ = 4096;
  rings_off_ = round_up(areas_off_ + sizeof(rank_area) * p.nlocal, 4096);
  bulk_off_ = round_up(rings_off_ + ring_bytes_ * p.nlocal * p.nlocal, 4096);
  jobs_off_ = round_up(bulk_off_ + bulk_bytes_ * p.nlocal * p.nlocal, 4096);
  bytes_ = round_up(jobs_off_ + sizeof(copy_job) * copy_jobs_per_pair * p.nlocal * p.nlocal, 4096);

  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0)
    return core::error_set(core::errc::intern, "cannot create shared-memory segment %s: %s", name.c_str(),
                           std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && size_t(st.st_size) < bytes_) {
    if (::ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
      int err = errno;
      ::close(fd);
      return core::error_set(core::errc::no_mem, "cannot size shared-memory segment %s to %zu bytes: %s",
                             name.c_str(), bytes_, std::strerror(err));
    }
  }
  void* m = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (m == MAP_FAILED)
    return core::error_set(core::errc::no_mem, "cannot map shared-memory segment %s (%zu bytes): %s", name.c_str(),
                           bytes_, std::strerror(err));
  base_ = static_cast<char*>(m);
  auto* hdr = reinterpret_cast<segment_header*>(base_);
  if (me == 0) {
    hdr->params = p;
    hdr->magic = segment_magic;
  }
  area(me).pid = static_cast<int32_t>(::getpid());
  return core::errc::success;
}

void segment::touch_incoming() {
  // Fault in every page of the rings and chunks that senders write towards me, so the first
  // message doesn't pay the page fault. The write is an atomic add of zero: it changes no byte,
  // whatever it lands on (a `full` flag included).
  auto touch = [](char* p, size_t bytes) {
    for (size_t off = 0; off < bytes; off += 4096) __atomic_fetch_add(p + off, 0, __ATOMIC_RELAXED);
  };
  for (uint32_t src = 0; src < p_.nlocal; ++src) {
    if (src == me_) continue;
    touch(reinterpret_cast<char*>(slot(me_, src, 0)), ring_bytes_);
    touch(reinterpret_cast<char*>(chunk(me_, src, 0)), bulk_bytes_);
  }
}

void segment::unlink() {
  if (!name_.empty()) ::shm_unlink(name_.c_str());
}

void segment::close() {
  if (base_) ::munmap(base_, bytes_);
  base_ = nullptr;
}

}  // namespace baton::transport::shm
