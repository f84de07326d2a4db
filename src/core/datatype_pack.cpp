// Resumable pack/unpack over the packed byte stream of (buffer, count, datatype).
#include <algorithm>
#include <cstring>

#include "core/datatype.hpp"

namespace baton::core {

namespace {

// Moves n whole blocks of a fixed size between the user buffer (stride apart) and the stream.
template <bool Pack, size_t B>
inline void blocks_fixed(char* user, int64_t stride, char* stream, int64_t n) noexcept {
  for (int64_t k = 0; k < n; ++k, user += stride, stream += B) {
    if constexpr (Pack) {
      std::memcpy(stream, user, B);
    } else {
      std::memcpy(user, stream, B);
    }
  }
}

template <bool Pack>
inline void blocks(char* user, int64_t stride, int64_t len, char* stream, int64_t n) noexcept {
  switch (len) {
    case 1:
      return blocks_fixed<Pack, 1>(user, stride, stream, n);
    case 2:
      return blocks_fixed<Pack, 2>(user, stride, stream, n);
    case 4:
      return blocks_fixed<Pack, 4>(user, stride, stream, n);
    case 8:
      return blocks_fixed<Pack, 8>(user, stride, stream, n);
    case 16:
      return blocks_fixed<Pack, 16>(user, stride, stream, n);
    default:
      break;
  }
  for (int64_t k = 0; k < n; ++k, user += stride, stream += len) {
    if constexpr (Pack) {
      std::memcpy(stream, user, static_cast<size_t>(len));
    } else {
      std::memcpy(user, stream, static_cast<size_t>(len));
    }
  }
}

}  // namespace

pack_cursor::pack_cursor(const void* base, int64_t count, const datatype& type) noexcept {
  reset(base, count, type);
}

pack_cursor::pack_cursor(pack_cursor&& o) noexcept
    : base_(o.base_),
      type_(o.type_),
      total_(o.total_),
      pos_(o.pos_),
      elem_(o.elem_),
      seg_(o.seg_),
      block_(o.block_),
      byte_(o.byte_) {
  flat_count_ = o.flat_count_;
  flat_offset_ = o.flat_offset_;
  flat_blocklen_ = o.flat_blocklen_;
  flat_stride_ = o.flat_stride_;
  o.type_ = nullptr;
  o.total_ = 0;
  o.pos_ = 0;
}

pack_cursor& pack_cursor::operator=(pack_cursor&& o) noexcept {
  if (this != &o) {
    drop();
    base_ = o.base_;
    type_ = o.type_;
    total_ = o.total_;
    pos_ = o.pos_;
    elem_ = o.elem_;
    seg_ = o.seg_;
    block_ = o.block_;
    byte_ = o.byte_;
    flat_count_ = o.flat_count_;
    flat_offset_ = o.flat_offset_;
    flat_blocklen_ = o.flat_blocklen_;
    flat_stride_ = o.flat_stride_;
    o.type_ = nullptr;
    o.total_ = 0;
    o.pos_ = 0;
  }
  return *this;
}

pack_cursor::~pack_cursor() {
  drop();
}

void pack_cursor::drop() noexcept {
  if (type_ != nullptr) type_->release();
  type_ = nullptr;
}

void pack_cursor::reset(const void* base, int64_t count, const datatype& type) noexcept {
  type.retain();
  drop();
  type_ = &type;
  base_ = static_cast<char*>(const_cast<void*>(base));
  // An uncommitted type has no compiled form: the caller must commit first (src/abi checks).
  total_ = type.is_committed() && count > 0 ? static_cast<uint64_t>(count) * static_cast<uint64_t>(type.size()) : 0;
  pos_ = 0;
  elem_ = 0;
  seg_ = 0;
  block_ = 0;
  byte_ = 0;
  flat_count_ = 0;
  if (total_ != 0 && !type.contiguous_ && type.segs_.size() == 1) {
    const dt_segment& s = type.segs_[0];
    const int64_t ext = type.extent();
    if (s.count == 1 || s.count * s.stride == ext) {
      flat_count_ = s.count * count;
      flat_offset_ = s.offset;
      flat_blocklen_ = s.blocklen;
      flat_stride_ = s.count == 1 ? ext : s.stride;
    }
  }
}

void pack_cursor::seek(uint64_t packed_offset) noexcept {
  pos_ = std::min(packed_offset, total_);
  block_ = 0;
  byte_ = 0;
  seg_ = 0;
  if (type_ == nullptr || total_ == 0) {
    elem_ = 0;
    return;
  }
  if (flat_count_ != 0) {
    elem_ = 0;
    block_ = static_cast<int64_t>(pos_) / flat_blocklen_;
    byte_ = static_cast<int64_t>(pos_) % flat_blocklen_;
    return;
  }
  const auto size = static_cast<uint64_t>(type_->size());
  elem_ = static_cast<int64_t>(pos_ / size);
  const auto rem = static_cast<int64_t>(pos_ % size);
  const auto& segs = type_->segs_;
  // Last segment starting at or before rem.
  auto it = std::upper_bound(segs.begin(), segs.end(), rem,
                             [](int64_t r, const dt_segment& s) { return r < s.packed_start; });
  seg_ = static_cast<size_t>(it - segs.begin()) - 1;
  const dt_segment& s = segs[seg_];
  const int64_t in = rem - s.packed_start;
  block_ = in / s.blocklen;
  byte_ = in % s.blocklen;
}

template <bool Pack>
size_t pack_cursor::transfer(char* stream, size_t max_bytes) noexcept {
  const uint64_t want = std::min<uint64_t>(max_bytes, total_ - pos_);
  if (want == 0) return 0;
  const datatype& t = *type_;
  if (t.contiguous_) {
    char* user = base_ + t.true_lb_ + pos_;
    if constexpr (Pack) {
      std::memcpy(stream, user, want);
    } else {
      std::memcpy(user, stream, want);
    }
    pos_ += want;
    return want;
  }
  auto left = static_cast<int64_t>(want);
  if (flat_count_ != 0) {
    while (left > 0) {
      char* user = base_ + flat_offset_ + block_ * flat_stride_;
      if (byte_ == 0 && flat_blocklen_ <= left) {
        const int64_t n = std::min(flat_count_ - block_, left / flat_blocklen_);
        blocks<Pack>(user, flat_stride_, flat_blocklen_, stream, n);
        stream += n * flat_blocklen_;
        left -= n * flat_blocklen_;
        block_ += n;
      } else {
        const int64_t n = std::min(flat_blocklen_ - byte_, left);
        if constexpr (Pack) {
          std::memcpy(stream, user + byte_, static_cast<size_t>(n));
        } else {
          std::memcpy(user + byte_, stream, static_cast<size_t>(n));
        }
        stream += n;
        left -= n;
        byte_ += n;
        if (byte_ == flat_blocklen_) {
          byte_ = 0;
          ++block_;
        }
      }
    }
    pos_ += want;
    return want;
  }
  const dt_segment* segs = t.segs_.data();
  const size_t nsegs = t.segs_.size();
  const int64_t ext = t.extent();
  char* elem_base = base_ + elem_ * ext;
  while (left > 0) {
    const dt_segment& s = segs[seg_];
    char* user = elem_base + s.offset + block_ * s.stride;
    if (byte_ == 0 && s.blocklen <= left) {
      // Whole blocks.
      const int64_t n = std::min(s.count - block_, left / s.blocklen);
      blocks<Pack>(user, s.stride, s.blocklen, stream, n);
      stream += n * s.blocklen;
      left -= n * s.blocklen;
      block_ += n;
    } else {
      // Part of a block (at a fragment edge).
      const int64_t n = std::min(s.blocklen - byte_, left);
      if constexpr (Pack) {
        std::memcpy(stream, user + byte_, static_cast<size_t>(n));
      } else {
        std::memcpy(user + byte_, stream, static_cast<size_t>(n));
      }
      stream += n;
      left -= n;
      byte_ += n;
      if (byte_ < s.blocklen) break;
      byte_ = 0;
      ++block_;
    }
    if (block_ == s.count) {
      block_ = 0;
      if (++seg_ == nsegs) {
        seg_ = 0;
        ++elem_;
        elem_base += ext;
      }
    }
  }
  pos_ += want;
  return want;
}

size_t pack_cursor::pack(void* out, size_t max_bytes) noexcept {
  return transfer<true>(static_cast<char*>(out), max_bytes);
}

size_t pack_cursor::unpack(const void* in, size_t bytes) noexcept {
  return transfer<false>(static_cast<char*>(const_cast<void*>(in)), bytes);
}

size_t pack_all(const void* buf, int64_t count, const datatype& type, void* out) noexcept {
  pack_cursor c(buf, count, type);
  return c.pack(out, c.total());
}

size_t unpack_all(const void* in, void* buf, int64_t count, const datatype& type) noexcept {
  pack_cursor c(buf, count, type);
  return c.unpack(in, c.total());
}

errc copy_typed(const void* src, int64_t scount, const datatype& stype, void* dst, int64_t dcount,
                const datatype& dtype, uint64_t* bytes) noexcept {
  pack_cursor s(src, scount, stype);
  pack_cursor d(dst, dcount, dtype);
  const uint64_t n = std::min(s.total(), d.total());
  if (stype.is_contiguous()) {
    d.unpack(static_cast<const char*>(src) + stype.true_lb(), n);
  } else if (dtype.is_contiguous()) {
    s.pack(static_cast<char*>(dst) + dtype.true_lb(), n);
  } else {
    alignas(16) char chunk[16384];
    uint64_t done = 0;
    while (done < n) {
      const size_t k = s.pack(chunk, std::min<uint64_t>(sizeof chunk, n - done));
      d.unpack(chunk, k);
      done += k;
    }
  }
  if (bytes != nullptr) *bytes = n;
  if (s.total() > d.total()) {
    return error_set(errc::truncate, "message of %llu bytes truncated to the %llu bytes of the receive buffer",
                     static_cast<unsigned long long>(s.total()), static_cast<unsigned long long>(d.total()));
  }
  return errc::success;
}

}  // namespace baton::core
