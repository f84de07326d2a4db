// Datatype engine: random nested types against a naive type map built from their contents.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/datatype.hpp"

namespace baton::core {
namespace {

struct entry {
  int64_t off, len;
};

// Reference type map (basic elements in order) computed only from the envelope/contents API.
void flatten(const datatype& t, int64_t disp, std::vector<entry>& out) {
  if (t.is_predefined()) {
    out.push_back({disp, t.size()});  // (pairs are contiguous enough for the predefined we use)
    return;
  }
  auto in = t.contents_integers();
  auto ad = t.contents_addresses();
  auto ty = t.contents_datatypes();
  auto block = [&](const datatype& c, int64_t d, int64_t n) {
    for (int64_t k = 0; k < n; ++k) flatten(c, d + k * c.extent(), out);
  };
  const datatype& c = *ty[0];
  switch (t.get_combiner()) {
    case combiner::dup:
    case combiner::resized:
      flatten(c, disp, out);
      break;
    case combiner::contiguous:
      block(c, disp, in[0]);
      break;
    case combiner::vector:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + j * in[2] * c.extent(), in[1]);
      break;
    case combiner::hvector:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + j * ad[0], in[1]);
      break;
    case combiner::indexed:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + in[1 + in[0] + j] * c.extent(), in[1 + j]);
      break;
    case combiner::hindexed:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + ad[j], in[1 + j]);
      break;
    case combiner::indexed_block:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + in[2 + j] * c.extent(), in[1]);
      break;
    case combiner::hindexed_block:
      for (int64_t j = 0; j < in[0]; ++j) block(c, disp + ad[j], in[1]);
      break;
    case combiner::struct_:
      for (int64_t j = 0; j < in[0]; ++j) block(*ty[j], disp + ad[j], in[1 + j]);
      break;
    default:
      FAIL() << "unexpected combiner";
  }
}

class random_types {
 public:
  explicit random_types(unsigned seed) : rng_(seed) {}

  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  // A random type of nesting depth up to `depth`; the caller releases it.
  datatype* make(int depth) {
    static const uint32_t leaves[] = {0x243, 0x208, 0x209, 0x214, 0x22b};
    if (depth == 0 || pick(0, 4) == 0) {
      return const_cast<datatype*>(predefined_datatype(leaves[pick(0, 4)]));
    }
    datatype* c = make(depth - 1);
    datatype* t = nullptr;
    const int64_t n = pick(0, 4);
    std::vector<int64_t> bl(static_cast<size_t>(n)), d(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      bl[i] = pick(0, 3);
      d[i] = pick(-40, 40);
    }
    errc e = errc::success;
    switch (pick(0, 9)) {
      case 0:
        e = type_contiguous(pick(0, 5), c, &t);
        break;
      case 1:
        e = type_vector(pick(0, 5), pick(0, 3), pick(-4, 4), c, &t);
        break;
      case 2:
        e = type_hvector(pick(0, 5), pick(0, 3), pick(-50, 50), c, &t);
        break;
      case 3:
        e = type_indexed(n, bl.data(), d.data(), c, &t);
        break;
      case 4:
        e = type_hindexed(n, bl.data(), d.data(), c, &t);
        break;
      case 5:
        e = type_indexed_block(n, pick(0, 3), d.data(), c, &t);
        break;
      case 6:
        e = type_hindexed_block(n, pick(0, 3), d.data(), c, &t);
        break;
      case 7:
        e = type_resized(c, pick(-16, 16), pick(0, 64), &t);
        break;
      case 8:
        e = type_dup(c, &t);
        break;
      default: {
        datatype* c2 = make(depth - 1);
        const datatype* const ty[] = {c, c2, c};
        const int64_t sbl[] = {pick(0, 2), pick(0, 2), pick(0, 2)};
        const int64_t sd[] = {pick(-30, 30), pick(-30, 30), pick(-30, 30)};
        e = type_struct(3, sbl, sd, ty, &t);
        c2->release();
      }
    }
    EXPECT_EQ(e, errc::success) << error_message();
    c->release();
    if (pick(0, 1) == 0) {  // commit some components
      EXPECT_EQ(t->commit(), errc::success);
    }
    return t;
  }

 private:
  std::mt19937 rng_;
};

TEST(DatatypeRandom, PackMatchesNaiveTypeMap) {
  random_types gen(12345);
  for (int iter = 0; iter < 400; ++iter) {
    datatype* t = gen.make(4);
    ASSERT_EQ(t->commit(), errc::success);
    std::vector<entry> map;
    flatten(*t, 0, map);
    int64_t size = 0;
    int64_t tlb = 0, tub = 0;
    bool any = false;
    for (const entry& x : map) {
      size += x.len;
      tlb = any ? std::min(tlb, x.off) : x.off;
      tub = any ? std::max(tub, x.off + x.len) : x.off + x.len;
      any = true;
    }
    ASSERT_EQ(t->size(), size) << "iteration " << iter;
    if (any) {
      ASSERT_EQ(t->true_lb(), tlb) << "iteration " << iter;
      ASSERT_EQ(t->true_ub(), tub) << "iteration " << iter;
    }
    const int64_t count = 3;
    const int64_t ext = t->extent();
    int64_t lo = 0, hi = 1;
    for (int64_t i = 0; i < count; ++i) {
      for (const entry& x : map) {
        lo = std::min(lo, i * ext + x.off);
        hi = std::max(hi, i * ext + x.off + x.len);
      }
    }
    std::vector<unsigned char> src(static_cast<size_t>(hi - lo));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 31 + 7);
    unsigned char* base = src.data() - lo;
    std::vector<unsigned char> want;
    for (int64_t i = 0; i < count; ++i) {
      for (const entry& x : map) {
        for (int64_t b = 0; b < x.len; ++b) want.push_back(base[i * ext + x.off + b]);
      }
    }
    // pack in random fragment sizes
    std::vector<unsigned char> got(want.size());
    pack_cursor pc(base, count, *t);
    size_t at = 0;
    while (!pc.done()) at += pc.pack(got.data() + at, static_cast<size_t>(gen.pick(1, 40)));
    ASSERT_EQ(at, want.size());
    ASSERT_EQ(got, want) << "iteration " << iter;
    // unpack in random fragments, then pack again from the result: same stream
    std::vector<unsigned char> dst(src.size(), 0);
    unsigned char* dbase = dst.data() - lo;
    pack_cursor uc(dbase, count, *t);
    for (size_t off = 0; off < got.size();) {
      off += uc.unpack(got.data() + off, std::min(got.size() - off, static_cast<size_t>(gen.pick(1, 40))));
    }
    std::vector<unsigned char> again(want.size());
    pack_all(dbase, count, *t, again.data());
    // overlapping type maps may legally lose bytes on unpack; compare only then-stable ones
    bool overlap = false;
    {
      std::vector<int> hits(src.size(), 0);
      for (int64_t i = 0; i < count; ++i) {
        for (const entry& x : map) {
          for (int64_t b = 0; b < x.len; ++b) {
            if (++hits[static_cast<size_t>(i * ext + x.off + b - lo)] > 1) overlap = true;
          }
        }
      }
    }
    if (!overlap) {
      ASSERT_EQ(again, want) << "iteration " << iter;
    }
    t->release();
  }
}

}  // namespace
}  // namespace baton::core
