// Internals of the datatype engine shared by its .cpp files (not for other layers).
#pragma once

#include <algorithm>
#include <new>

#include "core/datatype.hpp"

namespace baton::core {

struct datatype_view {
  bool explicit_bounds;
  int64_t align;
};

// Bounds of a type map under construction: entries are (child type, displacement), replicated.
struct tm_bounds {
  bool any = false;   // some entry contributes to lb/ub
  bool expl = false;  // bounds come from explicit (resized) markers
  int64_t lb = 0, ub = 0;
  bool any_data = false;
  int64_t tlb = 0, tub = 0;
  int64_t size = 0;
  int64_t align = 1;
  bool mixed = false;
  const datatype* basic = nullptr;
  int64_t basic_count = 0;
  bool overflow = false;  // some product or sum left int64

  static int64_t mul(int64_t a, int64_t b, bool& ovf) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) ovf = true;
    return r;
  }

  // n copies of `c` at disp + i*step, i in [0, n).
  void add(const datatype& c, const datatype_view& v, int64_t disp, int64_t n, int64_t step) {
    if (n <= 0) return;
    const int64_t span = mul(n - 1, step, overflow);
    const int64_t lo = disp + std::min<int64_t>(0, span);
    const int64_t hi = disp + std::max<int64_t>(0, span);
    if (c.size() > 0 || v.explicit_bounds) {
      const int64_t cl = lo + c.lb();
      const int64_t cu = hi + c.ub();
      if (!any || (v.explicit_bounds && !expl)) {
        lb = cl;
        ub = cu;
      } else if (v.explicit_bounds == expl) {
        lb = std::min(lb, cl);
        ub = std::max(ub, cu);
      }
      expl = expl || v.explicit_bounds;
      any = true;
    }
    if (c.size() > 0) {
      const int64_t cl = lo + c.true_lb();
      const int64_t cu = hi + c.true_ub();
      tlb = any_data ? std::min(tlb, cl) : cl;
      tub = any_data ? std::max(tub, cu) : cu;
      any_data = true;
      if (c.basic() == nullptr || (basic != nullptr && basic != c.basic())) {
        mixed = true;
      } else if (basic == nullptr) {
        basic = c.basic();
      }
      basic_count += mul(n, c.basic_count(), overflow);
    }
    if (__builtin_add_overflow(size, mul(n, c.size(), overflow), &size)) overflow = true;
    align = std::max(align, v.align);
  }
};

// Appends segments, merging adjacent runs and equal runs at a constant distance.
struct seg_sink {
  std::vector<dt_segment>& out;

  void push(int64_t offset, int64_t count, int64_t blocklen, int64_t stride) {
    if (count <= 0 || blocklen <= 0) return;
    if (count == 1) stride = blocklen;
    if (stride == blocklen) {
      blocklen *= count;
      count = 1;
      stride = blocklen;
    }
    if (!out.empty()) {
      dt_segment& l = out.back();
      if (l.count == 1 && count == 1 && l.offset + l.blocklen == offset) {
        l.blocklen += blocklen;
        l.stride = l.blocklen;
        return;
      }
      if (l.blocklen == blocklen) {
        if (l.count == 1 && count == 1) {
          l.count = 2;
          l.stride = offset - l.offset;
          return;
        }
        if (l.count > 1 && count == 1 && offset == l.offset + l.count * l.stride) {
          ++l.count;
          return;
        }
        if (l.count > 1 && count > 1 && stride == l.stride && offset == l.offset + l.count * l.stride) {
          l.count += count;
          return;
        }
        if (l.count == 1 && count > 1 && offset == l.offset + stride) {
          l.count = count + 1;
          l.stride = stride;
          return;
        }
      }
    }
    out.push_back(dt_segment{offset, count, blocklen, stride, 0});
  }

  // n copies of `unit` at disp + i*step.
  void replicate(const std::vector<dt_segment>& unit, int64_t disp, int64_t n, int64_t step) {
    if (unit.empty() || n <= 0) return;
    if (unit.size() == 1) {
      const dt_segment& u = unit[0];
      if (u.count == 1) {
        push(disp + u.offset, n, u.blocklen, step);
        return;
      }
      if (u.count * u.stride == step) {
        push(disp + u.offset, n * u.count, u.blocklen, u.stride);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (const dt_segment& s : unit) push(disp + i * step + s.offset, s.count, s.blocklen, s.stride);
    }
  }
};

struct datatype_builder {
  static datatype* make(combiner c) {
    auto* t = new (std::nothrow) datatype();
    if (t != nullptr) t->comb_ = c;
    return t;
  }

  static datatype_view view(const datatype& t) { return {t.explicit_bounds_, t.align_}; }

  static void finish(datatype* t, const tm_bounds& b, bool pad) {
    t->size_ = b.size;
    t->lb_ = b.any ? b.lb : 0;
    t->ub_ = b.any ? b.ub : 0;
    t->true_lb_ = b.any_data ? b.tlb : 0;
    t->true_ub_ = b.any_data ? b.tub : 0;
    t->explicit_bounds_ = b.expl;
    t->align_ = b.align;
    if (pad && !b.expl && b.align > 1) {
      const int64_t ext = t->ub_ - t->lb_;
      const int64_t r = ((ext % b.align) + b.align) % b.align;
      if (r != 0) t->ub_ += b.align - r;
    }
    if (!b.mixed && b.basic != nullptr) {
      t->basic_ = b.basic;
      t->basic_count_ = b.basic_count;
    }
  }

  static void keep(datatype* t, const datatype* c) {
    c->retain();
    t->types_.push_back(const_cast<datatype*>(c));
  }

  static void copy_metrics(datatype* t, const datatype& o) {
    t->size_ = o.size_;
    t->lb_ = o.lb_;
    t->ub_ = o.ub_;
    t->true_lb_ = o.true_lb_;
    t->true_ub_ = o.true_ub_;
    t->explicit_bounds_ = o.explicit_bounds_;
    t->align_ = o.align_;
    t->basic_ = o.basic_;
    t->basic_count_ = o.basic_count_;
  }

  // t takes impl's metrics and keeps impl (owned) as its equivalent tree (subarray, darray).
  static void adopt(datatype* t, datatype* impl) {
    copy_metrics(t, *impl);
    t->impl_ = impl;
  }

  static std::vector<int64_t>& ints(datatype* t) { return t->ints_; }
  static std::vector<int64_t>& addrs(datatype* t) { return t->addrs_; }

  // The type an element of t is the same type map as (dup, resized: types_[0]; subarray, darray:
  // impl_), or nullptr.
  static const datatype* same_map(const datatype& t) {
    if (t.impl_ != nullptr) return t.impl_;
    if (t.comb_ == combiner::dup || t.comb_ == combiner::resized) return t.types_[0];
    return nullptr;
  }

  // Segments of one element of t at displacement disp, appended to sink.
  static void compile(const datatype& t, int64_t disp, seg_sink& sink);

  // Calls f(const datatype& leaf, int64_t offset) for every basic element of one element of t at
  // displacement disp, in type map order; pair types are split into their two members.
  template <class F>
  static void walk(const datatype& t, int64_t disp, F&& f) {
    if (t.comb_ == combiner::named) {
      if (t.pair_first_ != nullptr) {
        f(*t.pair_first_, disp);
        f(*t.pair_second_, disp + t.pair_second_offset_);
      } else {
        f(t, disp);
      }
      return;
    }
    if (const datatype* m = same_map(t); m != nullptr) {
      walk(*m, disp, f);
      return;
    }
    const std::vector<int64_t>& in = t.ints_;
    const std::vector<int64_t>& ad = t.addrs_;
    auto block = [&](const datatype& c, int64_t d, int64_t n) {
      const int64_t e = c.extent();
      for (int64_t k = 0; k < n; ++k) walk(c, d + k * e, f);
    };
    const datatype& c = *t.types_[0];
    const int64_t ext = c.extent();
    switch (t.comb_) {
      case combiner::contiguous:
        block(c, disp, in[0]);
        break;
      case combiner::vector:
      case combiner::hvector: {
        const int64_t stride = t.comb_ == combiner::vector ? in[2] * ext : ad[0];
        for (int64_t j = 0; j < in[0]; ++j) block(c, disp + j * stride, in[1]);
        break;
      }
      case combiner::indexed: {
        const int64_t n = in[0];
        for (int64_t j = 0; j < n; ++j) block(c, disp + in[1 + n + j] * ext, in[1 + j]);
        break;
      }
      case combiner::hindexed: {
        const int64_t n = in[0];
        for (int64_t j = 0; j < n; ++j) block(c, disp + ad[j], in[1 + j]);
        break;
      }
      case combiner::indexed_block:
        for (int64_t j = 0; j < in[0]; ++j) block(c, disp + in[2 + j] * ext, in[1]);
        break;
      case combiner::hindexed_block:
        for (int64_t j = 0; j < in[0]; ++j) block(c, disp + ad[j], in[1]);
        break;
      case combiner::struct_: {
        const int64_t n = in[0];
        for (int64_t j = 0; j < n; ++j) block(*t.types_[j], disp + ad[j], in[1 + j]);
        break;
      }
      default:
        break;
    }
  }
};

}  // namespace baton::core
