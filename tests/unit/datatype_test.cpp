// Datatype engine: every constructor against a hand-computed type map.
#include "core/datatype.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

namespace baton::core {
namespace {

constexpr uint32_t k_char = 0x243, k_short = 0x208, k_int = 0x209, k_long = 0x20a, k_double = 0x214,
                   k_double_int = 0x229, k_short_int = 0x22c, k_long_double_int = 0x22d, k_float_int = 0x228,
                   k_2int = 0x22b;

const datatype* P(uint32_t code) {
  return predefined_datatype(code);
}

// Owns a derived datatype for a test.
struct owned {
  datatype* t = nullptr;
  owned() = default;
  explicit owned(datatype* p) : t(p) {}
  owned(owned&& o) noexcept : t(std::exchange(o.t, nullptr)) {}
  ~owned() {
    if (t != nullptr) t->release();
  }
  datatype* operator->() const { return t; }
  datatype& operator*() const { return *t; }
  datatype* get() const { return t; }
};

// Takes the new type from *t once the constructor call (first argument) has returned.
owned committed(errc e, datatype** t) {
  EXPECT_EQ(e, errc::success) << error_message();
  EXPECT_EQ((*t)->commit(), errc::success);
  return owned(*t);
}

// A buffer whose byte at offset o (relative to `origin`) is a recognisable function of o.
struct pattern {
  std::vector<unsigned char> mem;
  int64_t origin;
  pattern(int64_t lo, int64_t hi) : mem(static_cast<size_t>(hi - lo)), origin(-lo) {
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<unsigned char>(i * 7 + 3);
  }
  unsigned char* at0() { return mem.data() + origin; }
  unsigned char byte(int64_t off) const { return mem[static_cast<size_t>(origin + off)]; }
};

using runs = std::vector<std::pair<int64_t, int64_t>>;  // (offset, length) in type map order

// Checks that packing `count` elements gives the bytes at `map` (for one element, repeated at
// the extent), and that unpacking puts them back at those places only.
void expect_packs(const datatype& t, int64_t count, const runs& map) {
  const int64_t ext = t.extent();
  int64_t lo = 0, hi = 1;
  for (int64_t i = 0; i < count; ++i) {
    for (auto [o, l] : map) {
      lo = std::min(lo, i * ext + o);
      hi = std::max(hi, i * ext + o + l);
    }
  }
  pattern src(lo, hi);
  std::vector<unsigned char> want;
  for (int64_t i = 0; i < count; ++i) {
    for (auto [o, l] : map) {
      for (int64_t b = 0; b < l; ++b) want.push_back(src.byte(i * ext + o + b));
    }
  }
  ASSERT_EQ(static_cast<int64_t>(want.size()), count * t.size());
  std::vector<unsigned char> got(want.size() + 8, 0xee);
  EXPECT_EQ(pack_all(src.at0(), count, t, got.data()), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "packed bytes differ";
  EXPECT_EQ(got[want.size()], 0xee) << "pack wrote past the end";
  pattern dst(lo, hi);
  std::fill(dst.mem.begin(), dst.mem.end(), 0);
  EXPECT_EQ(unpack_all(got.data(), dst.at0(), count, t), want.size());
  std::vector<bool> covered(src.mem.size(), false);
  for (int64_t i = 0; i < count; ++i) {
    for (auto [o, l] : map) {
      for (int64_t b = 0; b < l; ++b) covered[static_cast<size_t>(src.origin + i * ext + o + b)] = true;
    }
  }
  for (size_t i = 0; i < src.mem.size(); ++i) {
    EXPECT_EQ(dst.mem[i], covered[i] ? src.mem[i] : 0) << "byte " << i - src.origin;
  }
}

void expect_metrics(const datatype& t, int64_t size, int64_t lb, int64_t extent, int64_t true_lb, int64_t true_extent) {
  EXPECT_EQ(t.size(), size);
  EXPECT_EQ(t.lb(), lb);
  EXPECT_EQ(t.extent(), extent);
  EXPECT_EQ(t.true_lb(), true_lb);
  EXPECT_EQ(t.true_extent(), true_extent);
}

TEST(DatatypePredefined, TableByAbiCode) {
  const uint32_t codes[] = {0x201, 0x202, 0x203, 0x207, 0x208, 0x209, 0x20a, 0x20b, 0x20c, 0x20d, 0x20e, 0x20f,
                            0x210, 0x212, 0x213, 0x214, 0x216, 0x217, 0x218, 0x219, 0x21a, 0x21b, 0x21c, 0x21d,
                            0x21e, 0x220, 0x224, 0x225, 0x228, 0x229, 0x22a, 0x22b, 0x22c, 0x22d, 0x230, 0x231,
                            0x232, 0x238, 0x239, 0x23c, 0x240, 0x241, 0x243, 0x244, 0x245, 0x247, 0x248, 0x249,
                            0x250, 0x251, 0x258, 0x259, 0x2c0, 0x2c1, 0x2c8, 0x2c9, 0x2ca, 0x2d0, 0x2d1, 0x2d2,
                            0x2d3, 0x2d8, 0x2d9, 0x2da, 0x2db, 0x2e0, 0x2e1, 0x2e2, 0x2e3, 0x2eb};
  for (uint32_t c : codes) {
    const datatype* t = P(c);
    ASSERT_NE(t, nullptr) << std::hex << c;
    EXPECT_EQ(t->abi_code(), c);
    EXPECT_TRUE(t->is_predefined());
    EXPECT_TRUE(t->is_committed());
    EXPECT_EQ(t->get_combiner(), combiner::named);
    EXPECT_GT(t->size(), 0);
    EXPECT_EQ(t->basic(), t);
    EXPECT_EQ(t->basic_count(), 1);
    EXPECT_NE(t->kind(), basic_kind::none);
    EXPECT_EQ(t->name().rfind("MPI_", 0), 0u);
  }
  EXPECT_EQ(P(0x200), nullptr);  // MPI_DATATYPE_NULL
  EXPECT_EQ(P(0x211), nullptr);
  EXPECT_EQ(P(0x100), nullptr);
  EXPECT_EQ(P(0xffffffff), nullptr);
  EXPECT_EQ(P(k_int)->name(), "MPI_INT");
  EXPECT_EQ(P(k_int)->kind(), basic_kind::signed_int);
  EXPECT_EQ(P(0x20d)->kind(), basic_kind::unsigned_int);
  EXPECT_EQ(P(k_double)->kind(), basic_kind::floating);
  EXPECT_EQ(P(0x216)->kind(), basic_kind::complex);
  EXPECT_EQ(P(0x238)->kind(), basic_kind::logical);
  EXPECT_EQ(P(0x247)->kind(), basic_kind::byte);
  EXPECT_EQ(P(k_char)->kind(), basic_kind::character);
  EXPECT_EQ(P(k_2int)->kind(), basic_kind::pair);
  EXPECT_EQ(P(0x219)->size(), 4);   // INTEGER
  EXPECT_EQ(P(0x21d)->size(), 16);  // DOUBLE COMPLEX
  EXPECT_EQ(P(0x2db)->size(), 8);   // COMPLEX8
  EXPECT_EQ(P(0x23c)->size(), static_cast<int64_t>(sizeof(wchar_t)));
}

TEST(DatatypePredefined, PairTypesHaveStructLayout) {
  expect_metrics(*P(k_float_int), 8, 0, 8, 0, 8);
  EXPECT_TRUE(P(k_float_int)->is_contiguous());
  expect_metrics(*P(k_double_int), 12, 0, 16, 0, 12);
  EXPECT_FALSE(P(k_double_int)->is_contiguous());
  expect_metrics(*P(k_short_int), 6, 0, 8, 0, 8);
  expect_metrics(*P(k_2int), 8, 0, 8, 0, 8);
  expect_metrics(*P(k_long_double_int), 20, 0, 32, 0, 20);
  expect_packs(*P(k_short_int), 3, {{0, 2}, {4, 4}});
  expect_packs(*P(k_double_int), 2, {{0, 12}});
  EXPECT_EQ(value_index_datatype(*P(k_double), *P(k_int)), P(k_double_int));
  EXPECT_EQ(value_index_datatype(*P(k_int), *P(k_double)), nullptr);
}

TEST(DatatypeCtor, Contiguous) {
  datatype* t = nullptr;
  owned c = committed(type_contiguous(3, P(k_int), &t), &t);
  expect_metrics(*c, 12, 0, 12, 0, 12);
  EXPECT_TRUE(c->is_contiguous());
  EXPECT_EQ(c->basic(), P(k_int));
  EXPECT_EQ(c->basic_count(), 3);
  EXPECT_EQ(c->get_combiner(), combiner::contiguous);
  ASSERT_EQ(c->contents_integers().size(), 1u);
  EXPECT_EQ(c->contents_integers()[0], 3);
  ASSERT_EQ(c->contents_datatypes().size(), 1u);
  EXPECT_EQ(c->contents_datatypes()[0], P(k_int));
  expect_packs(*c, 2, {{0, 12}});
}

TEST(DatatypeCtor, VectorIsOneStridedSegment) {
  datatype* t = nullptr;
  owned v = committed(type_vector(3, 2, 4, P(k_int), &t), &t);
  // blocks of 2 ints at element 0, 4, 8: bytes [0,8) [16,24) [32,40)
  expect_metrics(*v, 24, 0, 40, 0, 40);
  EXPECT_FALSE(v->is_contiguous());
  ASSERT_EQ(v->segments().size(), 1u);
  EXPECT_EQ(v->segments()[0].count, 3);
  EXPECT_EQ(v->segments()[0].blocklen, 8);
  EXPECT_EQ(v->segments()[0].stride, 16);
  EXPECT_EQ(v->basic_count(), 6);
  expect_packs(*v, 2, {{0, 8}, {16, 8}, {32, 8}});
  auto ints = v->contents_integers();
  ASSERT_EQ(ints.size(), 3u);
  EXPECT_EQ(ints[0], 3);
  EXPECT_EQ(ints[1], 2);
  EXPECT_EQ(ints[2], 4);
  v->mark_large_count();
  EXPECT_TRUE(v->contents_integers().empty());
  ASSERT_EQ(v->contents_large_counts().size(), 3u);
  EXPECT_EQ(v->contents_large_counts()[2], 4);
}

TEST(DatatypeCtor, VectorNegativeStride) {
  datatype* t = nullptr;
  owned v = committed(type_vector(3, 1, -2, P(k_int), &t), &t);
  // ints at 0, -8, -16 in that order
  expect_metrics(*v, 12, -16, 20, -16, 20);
  expect_packs(*v, 1, {{0, 4}, {-8, 4}, {-16, 4}});
  expect_packs(*v, 3, {{0, 4}, {-8, 4}, {-16, 4}});
}

TEST(DatatypeCtor, HugeVectorStaysSmall) {
  datatype* t = nullptr;
  owned v = committed(type_vector(1000000, 1, 2, P(k_double), &t), &t);
  EXPECT_EQ(v->segments().size(), 1u);
  EXPECT_EQ(v->size(), 8000000);
  datatype* t2 = nullptr;
  owned c = committed(type_contiguous(1000000, P(k_double), &t2), &t2);
  EXPECT_EQ(c->segments().size(), 1u);
  EXPECT_TRUE(c->is_contiguous());
}

TEST(DatatypeCtor, Hvector) {
  datatype* t = nullptr;
  owned v = committed(type_hvector(3, 1, 6, P(k_short), &t), &t);
  expect_metrics(*v, 6, 0, 14, 0, 14);
  expect_packs(*v, 2, {{0, 2}, {6, 2}, {12, 2}});
  ASSERT_EQ(v->contents_addresses().size(), 1u);
  EXPECT_EQ(v->contents_addresses()[0], 6);
}

TEST(DatatypeCtor, IndexedKeepsTypeMapOrder) {
  const int64_t bl[] = {2, 1};
  const int64_t d[] = {3, 0};
  datatype* t = nullptr;
  owned x = committed(type_indexed(2, bl, d, P(k_int), &t), &t);
  expect_metrics(*x, 12, 0, 20, 0, 20);
  expect_packs(*x, 2, {{12, 8}, {0, 4}});
  EXPECT_EQ(x->contents_integers().size(), 5u);
}

TEST(DatatypeCtor, HindexedAndBlocks) {
  const int64_t bl[] = {1, 2};
  const int64_t d[] = {10, -4};
  datatype* t = nullptr;
  owned x = committed(type_hindexed(2, bl, d, P(k_short), &t), &t);
  expect_metrics(*x, 6, -4, 16, -4, 16);
  expect_packs(*x, 1, {{10, 2}, {-4, 4}});

  const int64_t di[] = {4, 2, 0};
  datatype* t2 = nullptr;
  owned ib = committed(type_indexed_block(3, 2, di, P(k_short), &t2), &t2);
  // blocks of 2 shorts at element 4, 2, 0: bytes [8,12) [4,8) [0,4)
  expect_metrics(*ib, 12, 0, 12, 0, 12);
  EXPECT_FALSE(ib->is_contiguous());
  expect_packs(*ib, 2, {{8, 4}, {4, 4}, {0, 4}});

  const int64_t dh[] = {0, 9};
  datatype* t3 = nullptr;
  owned hb = committed(type_hindexed_block(2, 3, dh, P(k_char), &t3), &t3);
  expect_metrics(*hb, 6, 0, 12, 0, 12);
  expect_packs(*hb, 3, {{0, 3}, {9, 3}});
  EXPECT_EQ(hb->contents_addresses().size(), 2u);
}

TEST(DatatypeCtor, StructPadsToAlignment) {
  const int64_t bl[] = {1, 1};
  const int64_t d[] = {0, 8};
  const datatype* const ty[] = {P(k_double), P(k_char)};
  datatype* t = nullptr;
  owned s = committed(type_struct(2, bl, d, ty, &t), &t);
  // {double at 0, char at 8}: 9 bytes, extent padded to 16 as C pads struct { double; char; }
  expect_metrics(*s, 9, 0, 16, 0, 9);
  EXPECT_EQ(s->basic(), nullptr);
  expect_packs(*s, 3, {{0, 9}});

  const int64_t bl2[] = {2, 1, 3};
  const int64_t d2[] = {4, 0, 16};
  const datatype* const ty2[] = {P(k_short), P(k_int), P(k_char)};
  datatype* t2 = nullptr;
  owned s2 = committed(type_struct(3, bl2, d2, ty2, &t2), &t2);
  // shorts [4,8), int [0,4), chars [16,19); ub 19 padded to 20 (align 4)
  expect_metrics(*s2, 11, 0, 20, 0, 19);
  expect_packs(*s2, 2, {{4, 4}, {0, 4}, {16, 3}});
}

TEST(DatatypeCtor, Resized) {
  datatype* t = nullptr;
  owned r = committed(type_resized(P(k_int), -4, 16, &t), &t);
  expect_metrics(*r, 4, -4, 16, 0, 4);
  expect_packs(*r, 3, {{0, 4}});
  datatype* t2 = nullptr;
  owned c = committed(type_contiguous(2, r.get(), &t2), &t2);
  // ints at 0 and 16; bounds from the markers: lb -4, ub -4 + 2*16
  expect_metrics(*c, 8, -4, 32, 0, 20);
  expect_packs(*c, 2, {{0, 4}, {16, 4}});
  // A struct of a resized type keeps the explicit bounds (no alignment padding).
  const int64_t bl[] = {1};
  const int64_t d[] = {0};
  const datatype* const ty[] = {r.get()};
  datatype* t3 = nullptr;
  owned s = committed(type_struct(1, bl, d, ty, &t3), &t3);
  expect_metrics(*s, 4, -4, 16, 0, 4);
}

TEST(DatatypeCtor, NestedVectorOfStruct) {
  const int64_t bl[] = {1, 1};
  const int64_t d[] = {0, 4};
  const datatype* const ty[] = {P(k_short), P(k_int)};
  datatype* t = nullptr;
  owned s = committed(type_struct(2, bl, d, ty, &t), &t);  // like MPI_SHORT_INT
  expect_metrics(*s, 6, 0, 8, 0, 8);
  datatype* t2 = nullptr;
  owned v = committed(type_vector(2, 2, 3, s.get(), &t2), &t2);
  // blocks of 2 structs at element 0 and 3 (bytes 0 and 24)
  expect_metrics(*v, 24, 0, 40, 0, 40);
  expect_packs(*v, 2, {{0, 2}, {4, 4}, {8, 2}, {12, 4}, {24, 2}, {28, 4}, {32, 2}, {36, 4}});
  EXPECT_EQ(v->elements_in(24), 8);
  EXPECT_EQ(v->elements_in(2), 1);
  EXPECT_EQ(v->elements_in(3), -1);
  EXPECT_EQ(v->elements_in(30), 10);
}

TEST(DatatypeCtor, SubarrayCOrder) {
  const int64_t sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
  datatype* t = nullptr;
  owned a = committed(type_subarray(2, sizes, sub, starts, array_order::c, P(k_int), &t), &t);
  // rows 1..2, columns 2..4 of a 4x5 int array
  expect_metrics(*a, 24, 0, 80, 28, 32);
  expect_packs(*a, 2, {{28, 12}, {48, 12}});
  EXPECT_EQ(a->get_combiner(), combiner::subarray);
  auto ints = a->contents_integers();
  ASSERT_EQ(ints.size(), 8u);
  EXPECT_EQ(ints[0], 2);
  EXPECT_EQ(ints[7], static_cast<int64_t>(array_order::c));
  a->mark_large_count();
  EXPECT_EQ(a->contents_integers().size(), 2u);
  EXPECT_EQ(a->contents_large_counts().size(), 6u);
}

TEST(DatatypeCtor, SubarrayFortranOrder) {
  const int64_t sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
  datatype* t = nullptr;
  owned a = committed(type_subarray(2, sizes, sub, starts, array_order::fortran, P(k_int), &t), &t);
  // element (i, j) at i + 4j: i in 1..2, j in 2..4
  expect_metrics(*a, 24, 0, 80, 36, 40);
  expect_packs(*a, 1, {{36, 8}, {52, 8}, {68, 8}});
  const int64_t s3[] = {3, 4, 2}, b3[] = {2, 2, 1}, st3[] = {1, 0, 1};
  datatype* t3 = nullptr;
  owned c = committed(type_subarray(3, s3, b3, st3, array_order::c, P(k_char), &t3), &t3);
  // (i, j, k) at 8i + 2j + k: i in 1..2, j in 0..1, k = 1
  expect_packs(*c, 1, {{9, 1}, {11, 1}, {17, 1}, {19, 1}});
  EXPECT_EQ(c->extent(), 24);
}

TEST(DatatypeCtor, DarrayBlockAndCyclic1D) {
  const int64_t g[] = {10};
  const distribution blk[] = {distribution::block};
  const distribution cyc[] = {distribution::cyclic};
  const int dflt[] = {darg_default};
  const int two[] = {2};
  const int three[] = {3};
  const int p3[] = {3};
  const int p2[] = {2};
  datatype* t = nullptr;
  owned b = committed(type_darray(3, 1, 1, g, blk, dflt, p3, array_order::c, P(k_int), &t), &t);
  expect_metrics(*b, 16, 0, 40, 16, 16);  // elements 4..7
  expect_packs(*b, 1, {{16, 16}});
  datatype* t2 = nullptr;
  owned c = committed(type_darray(3, 1, 1, g, cyc, two, p3, array_order::c, P(k_int), &t2), &t2);
  expect_packs(*c, 1, {{8, 8}, {32, 8}});  // elements 2,3 and 8,9
  EXPECT_EQ(c->extent(), 40);
  datatype* t3 = nullptr;
  owned r = committed(type_darray(3, 2, 1, g, cyc, two, p3, array_order::c, P(k_int), &t3), &t3);
  expect_packs(*r, 1, {{16, 8}});  // elements 4,5
  datatype* t4 = nullptr;
  owned q = committed(type_darray(2, 1, 1, g, cyc, three, p2, array_order::c, P(k_int), &t4), &t4);
  expect_packs(*q, 1, {{12, 12}, {36, 4}});  // elements 3..5 and the partial block 9
  EXPECT_EQ(q->extent(), 40);
}

TEST(DatatypeCtor, Darray2D) {
  // 4x6 ints on a 2x2 grid, rows block-distributed and columns cyclic; rank 3 = coords (1, 1).
  const int64_t g[] = {4, 6};
  const distribution d[] = {distribution::block, distribution::cyclic};
  const int dargs[] = {darg_default, darg_default};
  const int ps[] = {2, 2};
  datatype* t = nullptr;
  owned c = committed(type_darray(4, 3, 2, g, d, dargs, ps, array_order::c, P(k_int), &t), &t);
  runs want;
  for (int r : {2, 3}) {
    for (int col : {1, 3, 5}) want.emplace_back((r * 6 + col) * 4, 4);
  }
  expect_metrics(*c, 24, 0, 96, (2 * 6 + 1) * 4, (3 * 6 + 5 - 2 * 6 - 1 + 1) * 4);
  expect_packs(*c, 1, want);
  // Fortran order: element (i, j) at i + 4j; rows (dim 0) block over 2: rank 3 -> coords (1, 1)
  // rows 2..3; columns cyclic over 2: 1, 3, 5. Fortran type map order: i fastest.
  datatype* t2 = nullptr;
  owned f = committed(type_darray(4, 3, 2, g, d, dargs, ps, array_order::fortran, P(k_int), &t2), &t2);
  runs wf;
  for (int col : {1, 3, 5}) wf.emplace_back((2 + 4 * col) * 4, 8);
  expect_packs(*f, 1, wf);
  EXPECT_EQ(f->extent(), 96);
  // cyclic(2) rows over a partially owned fastest dimension: 4x4 ints, grid 2x2, rank 3 gets
  // rows 2..3 and columns 2..3.
  const int64_t g4[] = {4, 4};
  const distribution dc[] = {distribution::cyclic, distribution::block};
  const int dc_args[] = {2, darg_default};
  datatype* t4 = nullptr;
  owned cb = committed(type_darray(4, 3, 2, g4, dc, dc_args, ps, array_order::c, P(k_int), &t4), &t4);
  expect_packs(*cb, 1, {{40, 8}, {56, 8}});
  EXPECT_EQ(cb->extent(), 64);
  // distribution none on a dimension
  const distribution dn[] = {distribution::none, distribution::block};
  const int pn[] = {1, 2};
  datatype* t3 = nullptr;
  owned n = committed(type_darray(2, 0, 2, g, dn, dargs, pn, array_order::c, P(k_int), &t3), &t3);
  runs wn;
  for (int r = 0; r < 4; ++r) wn.emplace_back(r * 24, 12);
  expect_packs(*n, 1, wn);
}

TEST(DatatypeCtor, Dup) {
  datatype* t = nullptr;
  owned v = committed(type_vector(2, 1, 3, P(k_double), &t), &t);
  datatype* t2 = nullptr;
  ASSERT_EQ(type_dup(v.get(), &t2), errc::success);
  owned d(t2);
  EXPECT_TRUE(d->is_committed());
  expect_metrics(*d, v->size(), v->lb(), v->extent(), v->true_lb(), v->true_extent());
  EXPECT_EQ(d->get_combiner(), combiner::dup);
  EXPECT_EQ(d->contents_datatypes()[0], v.get());
  expect_packs(*d, 2, {{0, 8}, {24, 8}});
}

TEST(DatatypeCtor, ArgumentErrors) {
  datatype* t = nullptr;
  error_clear();
  EXPECT_EQ(type_contiguous(-1, P(k_int), &t), errc::count);
  EXPECT_NE(error_message().find("negative"), std::string::npos);
  EXPECT_EQ(type_vector(2, -1, 1, P(k_int), &t), errc::arg);
  EXPECT_EQ(type_contiguous(1, nullptr, &t), errc::type);
  const int64_t bl[] = {1, -2};
  const int64_t d[] = {0, 1};
  EXPECT_EQ(type_indexed(2, bl, d, P(k_int), &t), errc::arg);
  const datatype* const ty[] = {P(k_int), nullptr};
  const int64_t ok[] = {1, 1};
  EXPECT_EQ(type_struct(2, ok, d, ty, &t), errc::type);
  const int64_t sizes[] = {4}, sub[] = {3}, bad_start[] = {2};
  EXPECT_EQ(type_subarray(1, sizes, sub, bad_start, array_order::c, P(k_int), &t), errc::arg);
  const int64_t g[] = {10};
  const distribution blk[] = {distribution::block};
  const int two[] = {2};
  const int p3[] = {3};
  EXPECT_EQ(type_darray(3, 0, 1, g, blk, two, p3, array_order::c, P(k_int), &t), errc::arg);
  const int p2[] = {2};
  EXPECT_EQ(type_darray(3, 0, 1, g, blk, two, p2, array_order::c, P(k_int), &t), errc::arg);
  EXPECT_EQ(type_darray(3, 3, 1, g, blk, two, p3, array_order::c, P(k_int), &t), errc::rank);
  datatype* big = nullptr;
  ASSERT_EQ(type_contiguous(int64_t{1} << 40, P(k_double), &big), errc::success);
  EXPECT_EQ(big->size(), int64_t{8} << 40);                            // large counts are fine ...
  EXPECT_EQ(type_contiguous(int64_t{1} << 40, big, &t), errc::count);  // ... 2^83 bytes are not
  EXPECT_EQ(type_vector(2, 1, int64_t{1} << 60, big, &t), errc::count);
  big->release();
}

TEST(DatatypeCtor, ZeroCountIsEmpty) {
  datatype* t = nullptr;
  owned c = committed(type_contiguous(0, P(k_int), &t), &t);
  expect_metrics(*c, 0, 0, 0, 0, 0);
  EXPECT_TRUE(c->is_contiguous());
  unsigned char b = 0;
  EXPECT_EQ(pack_all(&b, 5, *c, &b), 0u);
}

TEST(DatatypeRefcount, ComponentsStayAlive) {
  datatype* v = nullptr;
  ASSERT_EQ(type_vector(4, 1, 2, P(k_int), &v), errc::success);
  datatype* c = nullptr;
  ASSERT_EQ(type_contiguous(2, v, &c), errc::success);
  EXPECT_EQ(v->ref_count(), 2);
  v->release();  // the user frees the vector; the contiguous type keeps it
  EXPECT_EQ(v->ref_count(), 1);
  EXPECT_EQ(v->size(), 16);
  ASSERT_EQ(c->commit(), errc::success);
  // the vector spans 28 bytes (ints at 0, 8, 16, 24), so the second copy starts at 28
  expect_packs(*c, 1, {{0, 4}, {8, 4}, {16, 4}, {24, 4}, {28, 4}, {36, 4}, {44, 4}, {52, 4}});
  {
    pack_cursor cur(nullptr, 1, *c);
    EXPECT_EQ(c->ref_count(), 2);
    c->release();  // a pending operation's cursor keeps the type alive
    EXPECT_EQ(cur.total(), 32u);
  }
  P(k_int)->release();  // no-op on predefined types
  EXPECT_EQ(P(k_int)->size(), 4);
}

}  // namespace
}  // namespace baton::core
