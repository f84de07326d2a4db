// File views (src/io/view.cpp): stream ranges -> file runs, file offsets -> stream positions,
// checked against a byte-by-byte map built from the filetype's segments, for filetypes with one
// block per tile, strided segments, several segments, holes between tiles and a displacement.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/datatype.hpp"
#include "io/datarep.hpp"
#include "io/view.hpp"

using namespace baton;

namespace {
const core::datatype* dt(uint32_t code) { return core::predefined_datatype(code); }
const core::datatype* int_t() { return dt(0x209); }   // MPI_INT (ABI value)
const core::datatype* byte_t() { return dt(0x247); }  // MPI_BYTE

// file offset of every stream byte of the first `tiles` tiles of v
std::vector<int64_t> brute_map(const io::view& v, int tiles) {
  std::vector<int64_t> m;
  for (int t = 0; t < tiles; ++t)
    for (const core::dt_segment& s : v.filetype->segments())
      for (int64_t k = 0; k < s.count; ++k)
        for (int64_t b = 0; b < s.blocklen; ++b) m.push_back(v.disp + t * v.fextent + s.offset + k * s.stride + b);
  return m;
}

void check_view(const core::datatype* ft, int64_t disp) {
  io::view v;
  io::view_default(&v);
  const io::datarep* native = nullptr;
  ASSERT_EQ(io::datarep_find("native", &native), core::errc::success);
  ASSERT_EQ(io::view_set(&v, disp, byte_t(), ft, native), core::errc::success) << core::error_message();
  const int tiles = 5;
  const std::vector<int64_t> m = brute_map(v, tiles);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t pos = int64_t(rng() % m.size());
    const int64_t len = 1 + int64_t(rng() % (m.size() - size_t(pos)));
    std::vector<io::frun> runs;
    io::view_runs(v, pos, len, runs);
    std::vector<int64_t> got;
    for (const io::frun& r : runs) {
      ASSERT_GT(r.len, 0);
      for (int64_t b = 0; b < r.len; ++b) got.push_back(r.off + b);
    }
    ASSERT_EQ(int64_t(got.size()), len);
    for (int64_t i = 0; i < len; ++i) ASSERT_EQ(got[size_t(i)], m[size_t(pos + i)]) << "pos " << pos << " byte " << i;
    ASSERT_EQ(io::view_file_offset(v, pos), m[size_t(pos)]);
  }
  // Stream bytes below each file offset, over the first tiles.
  const int64_t end = m.back() + 1;
  for (int64_t off = 0; off <= end; ++off) {
    int64_t below = 0;
    for (int64_t x : m) below += x < off ? 1 : 0;
    ASSERT_EQ(io::view_stream_below(v, off), below) << "file offset " << off;
  }
  io::view_release(&v);
}
}  // namespace

TEST(IoView, ContiguousAndDisplacement) {
  core::datatype* t = nullptr;
  ASSERT_EQ(core::type_contiguous(3, int_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  check_view(t, 0);
  check_view(t, 13);
  t->release();
}

TEST(IoView, VectorWithHoles) {
  core::datatype* t = nullptr;
  ASSERT_EQ(core::type_vector(4, 2, 3, int_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  check_view(t, 0);
  check_view(t, 5);
  t->release();
}

TEST(IoView, ResizedBlockPerTile) {
  core::datatype* c = nullptr;
  core::datatype* t = nullptr;
  ASSERT_EQ(core::type_contiguous(2, int_t(), &c), core::errc::success);
  ASSERT_EQ(core::type_resized(c, 0, 20, &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  check_view(t, 3);
  t->release();
  c->release();
}

TEST(IoView, SubarrayAndIndexed) {
  const int64_t sizes[3] = {4, 5, 6}, subs[3] = {2, 3, 2}, starts[3] = {1, 1, 3};
  core::datatype* t = nullptr;
  ASSERT_EQ(core::type_subarray(3, sizes, subs, starts, core::array_order::c, int_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  check_view(t, 0);
  check_view(t, 7);
  t->release();
  const int64_t lens[3] = {1, 3, 2}, displs[3] = {1, 4, 9};
  ASSERT_EQ(core::type_indexed(3, lens, displs, int_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  check_view(t, 2);
  t->release();
}

TEST(IoView, RefusesBadFiletypes) {
  const io::datarep* native = nullptr;
  ASSERT_EQ(io::datarep_find("native", &native), core::errc::success);
  io::view v;
  io::view_default(&v);
  core::datatype* t = nullptr;
  const int64_t lens[2] = {1, 1}, decreasing[2] = {3, 0};
  ASSERT_EQ(core::type_indexed(2, lens, decreasing, int_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  EXPECT_EQ(io::view_set(&v, 0, int_t(), t, native), core::errc::type);
  t->release();
  ASSERT_EQ(core::type_contiguous(3, byte_t(), &t), core::errc::success);
  ASSERT_EQ(t->commit(), core::errc::success);
  EXPECT_EQ(io::view_set(&v, 0, int_t(), t, native), core::errc::type);  // not whole etypes
  t->release();
  io::view_release(&v);
}
