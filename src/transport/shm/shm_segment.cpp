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
#include <atomic>

namespace baton::transport::shm {

namespace {
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
constexpr uint64_t segment_magic = 0xba70'5e6d'0000'0001ULL;

struct segment_header {
  uint64_t magic;
  segment_params params;
  std::atomic<uint32_t> mapped;  // users that have mapped the segment (the last unlinks its name)
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

void segment::layout(const segment_params& p, uint32_t me) {
  p_ = p;
  me_ = me;
  ring_bytes_ = size_t(p.slot_size) * p.nslots;
  bulk_bytes_ = (sizeof(chunk_header) + p.chunk_size) * size_t(p.nchunks);
  areas_off_ = 4096;
  rings_off_ = round_up(areas_off_ + sizeof(rank_area) * p.nlocal, 4096);
  bulk_off_ = round_up(rings_off_ + ring_bytes_ * p.nlocal * p.nlocal, 4096);
  jobs_off_ = round_up(bulk_off_ + bulk_bytes_ * p.nlocal * p.nlocal, 4096);
  bytes_ = round_up(jobs_off_ + sizeof(copy_job) * copy_jobs_per_pair * p.nlocal * p.nlocal, 4096);
}

void segment::attached() {
  base_ = obj_.base;
  area(me_).pid = static_cast<int32_t>(::getpid());
}

core::errc segment::create(const segment_params& p, uint32_t me) {
  layout(p, me);
  if (core::errc e = core::shm_create("host", bytes_, &obj_); e != core::errc::success) return e;
  auto* hdr = reinterpret_cast<segment_header*>(obj_.base);
  hdr->params = p;
  hdr->magic = segment_magic;
  attached();
  return core::errc::success;
}

core::errc segment::open(const std::string& name, const segment_params& p, uint32_t me) {
  layout(p, me);
  if (core::errc e = core::shm_open_checked(name, bytes_, &obj_); e != core::errc::success) return e;
  const auto* hdr = reinterpret_cast<const segment_header*>(obj_.base);
  if (hdr->magic != segment_magic || hdr->params.nlocal != p.nlocal) {
    core::shm_unmap(obj_);
    return core::error_set(core::errc::intern, "shared-memory segment %s is not this host's segment of %u ranks",
                           name.c_str(), unsigned(p.nlocal));
  }
  attached();
  return core::errc::success;
}

void segment::mapped() {
  auto* hdr = reinterpret_cast<segment_header*>(base_);
  if (hdr->mapped.fetch_add(1, std::memory_order_acq_rel) + 1 == p_.nlocal) core::shm_unlink_name(obj_);
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

void segment::close() {
  core::shm_unmap(obj_);
  base_ = nullptr;
}

}  // namespace baton::transport::shm
