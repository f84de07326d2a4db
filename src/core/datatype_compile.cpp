// Commit: the compiled form of a datatype (segments of one element), and element counting.
#include "core/datatype.hpp"
#include "core/datatype_internal.hpp"

namespace baton::core {

void datatype_builder::compile(const datatype& t, int64_t disp, seg_sink& sink) {
  if (t.committed_) {
    for (const dt_segment& s : t.segs_) sink.push(disp + s.offset, s.count, s.blocklen, s.stride);
    return;
  }
  if (const datatype* m = same_map(t); m != nullptr) {
    compile(*m, disp, sink);
    return;
  }
  auto unit = [](const datatype& c) {
    std::vector<dt_segment> u;
    seg_sink us{u};
    compile(c, 0, us);
    return u;
  };
  const std::vector<int64_t>& in = t.ints_;
  const std::vector<int64_t>& ad = t.addrs_;
  const datatype& c = *t.types_[0];
  const int64_t ext = c.extent();
  switch (t.comb_) {
    case combiner::contiguous:
      sink.replicate(unit(c), disp, in[0], ext);
      break;
    case combiner::vector:
    case combiner::hvector: {
      const int64_t stride = t.comb_ == combiner::vector ? in[2] * ext : ad[0];
      std::vector<dt_segment> blk;
      seg_sink bs{blk};
      bs.replicate(unit(c), 0, in[1], ext);
      sink.replicate(blk, disp, in[0], stride);
      break;
    }
    case combiner::indexed: {
      const int64_t n = in[0];
      const std::vector<dt_segment> u = unit(c);
      for (int64_t j = 0; j < n; ++j) sink.replicate(u, disp + in[1 + n + j] * ext, in[1 + j], ext);
      break;
    }
    case combiner::hindexed: {
      const int64_t n = in[0];
      const std::vector<dt_segment> u = unit(c);
      for (int64_t j = 0; j < n; ++j) sink.replicate(u, disp + ad[j], in[1 + j], ext);
      break;
    }
    case combiner::indexed_block: {
      const std::vector<dt_segment> u = unit(c);
      for (int64_t j = 0; j < in[0]; ++j) sink.replicate(u, disp + in[2 + j] * ext, in[1], ext);
      break;
    }
    case combiner::hindexed_block: {
      const std::vector<dt_segment> u = unit(c);
      for (int64_t j = 0; j < in[0]; ++j) sink.replicate(u, disp + ad[j], in[1], ext);
      break;
    }
    case combiner::struct_: {
      const int64_t n = in[0];
      const datatype* last = nullptr;
      std::vector<dt_segment> u;
      for (int64_t j = 0; j < n; ++j) {
        const datatype& cj = *t.types_[j];
        if (&cj != last) {
          u = unit(cj);
          last = &cj;
        }
        sink.replicate(u, disp + ad[j], in[1 + j], cj.extent());
      }
      break;
    }
    default:
      break;
  }
}

errc datatype::commit() {
  if (committed_) return errc::success;
  std::vector<dt_segment> segs;
  seg_sink sink{segs};
  datatype_builder::compile(*this, 0, sink);
  int64_t packed = 0;
  for (dt_segment& s : segs) {
    s.packed_start = packed;
    packed += s.count * s.blocklen;
  }
  if (packed != size_) {
    return error_set(errc::intern, "datatype commit: compiled %lld bytes for a type of size %lld",
                     static_cast<long long>(packed), static_cast<long long>(size_));
  }
  segs.shrink_to_fit();
  segs_ = std::move(segs);
  contiguous_ = size_ == 0 || (segs_.size() == 1 && segs_[0].count == 1 && size_ == extent());
  committed_ = true;
  return errc::success;
}

int64_t datatype::elements_in(uint64_t packed_bytes) const {
  if (size_ == 0) return 0;
  const auto bytes = static_cast<int64_t>(packed_bytes);
  if (basic_ != nullptr && basic_->pair_first_ == nullptr) {
    const int64_t bs = basic_->size_;
    return bytes % bs != 0 ? -1 : bytes / bs;
  }
  int64_t per = 0;
  datatype_builder::walk(*this, 0, [&](const datatype&, int64_t) { ++per; });
  int64_t n = bytes / size_ * per;
  const int64_t rem = bytes % size_;
  if (rem == 0) return n;
  int64_t acc = 0;
  datatype_builder::walk(*this, 0, [&](const datatype& leaf, int64_t) {
    if (acc < rem) {
      acc += leaf.size();
      ++n;
    }
  });
  return acc == rem ? n : -1;
}

int64_t datatype::bytes_of_elements(int64_t n) const {
  if (size_ == 0 || n <= 0) return 0;
  if (basic_ != nullptr && basic_->pair_first_ == nullptr) return n * basic_->size_;
  int64_t per = 0;
  datatype_builder::walk(*this, 0, [&](const datatype&, int64_t) { ++per; });
  int64_t bytes = n / per * size_;
  int64_t rem = n % per;
  datatype_builder::walk(*this, 0, [&](const datatype& leaf, int64_t) {
    if (rem > 0) {
      bytes += leaf.size();
      --rem;
    }
  });
  return bytes;
}

}  // namespace baton::core
