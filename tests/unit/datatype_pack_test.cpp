// Datatype engine: resumable pack/unpack by fragments, seek, typed copy, external32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/datatype.hpp"

namespace baton::core {
namespace {

const datatype* P(uint32_t code) {
  return predefined_datatype(code);
}

// A non-trivial committed type: struct { vector(3, 2, 5) of short at 0; double at 40; char[3]
// at 52 } resized to extent 64, then used with a count.
datatype* make_mixed() {
  datatype* v = nullptr;
  EXPECT_EQ(type_vector(3, 2, 5, P(0x208), &v), errc::success);
  const int64_t bl[] = {1, 1, 3};
  const int64_t d[] = {0, 40, 52};
  const datatype* const ty[] = {v, P(0x214), P(0x243)};
  datatype* s = nullptr;
  EXPECT_EQ(type_struct(3, bl, d, ty, &s), errc::success);
  datatype* r = nullptr;
  EXPECT_EQ(type_resized(s, 0, 64, &r), errc::success);
  v->release();
  s->release();
  EXPECT_EQ(r->commit(), errc::success);
  return r;
}

std::vector<unsigned char> pattern_bytes(size_t n) {
  std::vector<unsigned char> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 13 + 1);
  return b;
}

class Fragments : public ::testing::TestWithParam<size_t> {};

TEST_P(Fragments, PackAndUnpackInPiecesMatchWhole) {
  datatype* t = make_mixed();
  const int64_t count = 50;
  EXPECT_EQ(t->size(), 12 + 8 + 3);
  const auto src = pattern_bytes(static_cast<size_t>(count * t->extent()));
  std::vector<unsigned char> whole(static_cast<size_t>(count * t->size()));
  ASSERT_EQ(pack_all(src.data(), count, *t, whole.data()), whole.size());

  const size_t frag = GetParam();
  pack_cursor pc(src.data(), count, *t);
  std::vector<unsigned char> pieces(whole.size());
  size_t at = 0;
  while (!pc.done()) {
    const size_t n = pc.pack(pieces.data() + at, frag);
    ASSERT_GT(n, 0u);
    ASSERT_LE(n, frag);
    at += n;
    EXPECT_EQ(pc.position(), at);
  }
  EXPECT_EQ(at, whole.size());
  EXPECT_EQ(pieces, whole);
  EXPECT_EQ(pc.pack(pieces.data(), 10), 0u);

  std::vector<unsigned char> dst(src.size(), 0);
  pack_cursor uc(dst.data(), count, *t);
  for (size_t off = 0; off < whole.size();) {
    off += uc.unpack(whole.data() + off, std::min(frag, whole.size() - off));
  }
  std::vector<unsigned char> expect(src.size(), 0);
  ASSERT_EQ(unpack_all(whole.data(), expect.data(), count, *t), whole.size());
  EXPECT_EQ(dst, expect);
  // spot check: element 1's double (bytes 64+40..64+48) came back
  EXPECT_EQ(std::memcmp(dst.data() + 104, src.data() + 104, 8), 0);
  EXPECT_EQ(dst[103], 0);
  t->release();
}

INSTANTIATE_TEST_SUITE_P(DatatypePack, Fragments, ::testing::Values(1, 7, 4096));

TEST(DatatypePack, SeekAnywhere) {
  datatype* t = make_mixed();
  const int64_t count = 7;
  const auto src = pattern_bytes(static_cast<size_t>(count * t->extent()));
  std::vector<unsigned char> whole(static_cast<size_t>(count * t->size()));
  pack_all(src.data(), count, *t, whole.data());
  pack_cursor pc(src.data(), count, *t);
  for (uint64_t off = 0; off <= whole.size(); off += 3) {
    pc.seek(off);
    EXPECT_EQ(pc.position(), off);
    std::vector<unsigned char> got(11, 0);
    const size_t n = pc.pack(got.data(), got.size());
    ASSERT_EQ(n, std::min<size_t>(11, whole.size() - off));
    EXPECT_EQ(std::memcmp(got.data(), whole.data() + off, n), 0) << "at " << off;
  }
  pc.seek(1u << 30);
  EXPECT_TRUE(pc.done());
  t->release();
}

TEST(DatatypePack, StridedMessageSeekAndFragments) {
  // DOUBLE_INT elements (12 data bytes every 16) and a vector whose stride tiles its extent both
  // move as one strided pattern across the whole message.
  datatype* v = nullptr;
  ASSERT_EQ(type_vector(3, 1, 2, P(0x209), &v), errc::success);
  datatype* r = nullptr;
  ASSERT_EQ(type_resized(v, 0, 24, &r), errc::success);  // ints at 0, 8, 16 (+24 per element)
  ASSERT_EQ(r->commit(), errc::success);
  for (const datatype* t : {P(0x229), static_cast<const datatype*>(r)}) {
    const int64_t count = 9;
    const auto src = pattern_bytes(static_cast<size_t>(count * t->extent()));
    std::vector<unsigned char> whole(static_cast<size_t>(count * t->size()));
    pack_all(src.data(), count, *t, whole.data());
    for (size_t i = 0; i < whole.size(); ++i) {
      const size_t elem = i / t->size(), in = i % t->size();
      const size_t off = t == r ? elem * 24 + (in / 4) * 8 + in % 4 : elem * 16 + in;
      ASSERT_EQ(whole[i], src[off]) << "byte " << i;
    }
    pack_cursor pc(src.data(), count, *t);
    for (uint64_t off = 0; off <= whole.size(); off += 5) {
      pc.seek(off);
      unsigned char got[9] = {};
      const size_t n = pc.pack(got, sizeof got);
      ASSERT_EQ(n, std::min<size_t>(9, whole.size() - off));
      EXPECT_EQ(std::memcmp(got, whole.data() + off, n), 0) << "at " << off;
    }
    std::vector<unsigned char> dst(src.size(), 0);
    pack_cursor uc(dst.data(), count, *t);
    for (size_t off = 0; off < whole.size();) off += uc.unpack(whole.data() + off, 7);
    std::vector<unsigned char> again(whole.size());
    pack_all(dst.data(), count, *t, again.data());
    EXPECT_EQ(again, whole);
  }
  v->release();
  r->release();
}

TEST(DatatypePack, ContiguousFastPathAndMove) {
  std::vector<int> a(100);
  for (int i = 0; i < 100; ++i) a[i] = i;
  pack_cursor pc(a.data(), 100, *P(0x209));
  pc.seek(40);
  int out[3];
  EXPECT_EQ(pc.pack(out, 12), 12u);
  EXPECT_EQ(out[0], 10);
  EXPECT_EQ(out[2], 12);
  pack_cursor moved(std::move(pc));
  EXPECT_EQ(moved.position(), 52u);
  EXPECT_EQ(moved.pack(out, 4), 4u);
  EXPECT_EQ(out[0], 13);
}

TEST(DatatypePack, CopyTypedAndTruncation) {
  datatype* v = nullptr;
  ASSERT_EQ(type_vector(4, 1, 2, P(0x209), &v), errc::success);
  ASSERT_EQ(v->commit(), errc::success);
  int src[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int dst[4] = {};
  uint64_t bytes = 0;
  ASSERT_EQ(copy_typed(src, 1, *v, dst, 4, *P(0x209), &bytes), errc::success);
  EXPECT_EQ(bytes, 16u);
  EXPECT_EQ(dst[3], 6);
  int back[8] = {};
  ASSERT_EQ(copy_typed(dst, 4, *P(0x209), back, 1, *v, &bytes), errc::success);
  EXPECT_EQ(back[6], 6);
  EXPECT_EQ(back[5], 0);
  int small[8] = {};
  EXPECT_EQ(copy_typed(src, 2, *v, small, 1, *v, &bytes), errc::truncate);
  EXPECT_EQ(bytes, 16u);
  int vv[8] = {};
  ASSERT_EQ(copy_typed(src, 1, *v, vv, 1, *v, &bytes), errc::success);
  EXPECT_EQ(vv[4], 4);
  EXPECT_EQ(vv[3], 0);
  v->release();
}

TEST(DatatypeExternal32, ByteOrderAndSizes) {
  EXPECT_EQ(external32_size(*P(0x209)), 4);
  EXPECT_EQ(external32_size(*P(0x20a)), 4);   // long
  EXPECT_EQ(external32_size(*P(0x220)), 16);  // long double
  EXPECT_EQ(external32_size(*P(0x23c)), 2);   // wchar
  EXPECT_EQ(external32_size(*P(0x229)), 12);  // double_int
  unsigned char out[64] = {};
  int64_t pos = 0;
  const int x = 0x01020304;
  ASSERT_EQ(pack_external32(&x, 1, *P(0x209), out, sizeof out, &pos), errc::success);
  EXPECT_EQ(pos, 4);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[3], 4);
  const double d = 1.0;
  ASSERT_EQ(pack_external32(&d, 1, *P(0x214), out, sizeof out, &pos), errc::success);
  EXPECT_EQ(out[4], 0x3f);
  EXPECT_EQ(out[5], 0xf0);
  EXPECT_EQ(out[11], 0);
  const long l = -2;
  ASSERT_EQ(pack_external32(&l, 1, *P(0x20a), out, sizeof out, &pos), errc::success);
  EXPECT_EQ(pos, 16);
  EXPECT_EQ(out[12], 0xff);
  EXPECT_EQ(out[15], 0xfe);
  const long double ld = 1.0L;
  ASSERT_EQ(pack_external32(&ld, 1, *P(0x220), out, sizeof out, &pos), errc::success);
  EXPECT_EQ(out[16], 0x3f);  // binary128 1.0 = 3fff 0000 ...
  EXPECT_EQ(out[17], 0xff);
  for (int i = 18; i < 32; ++i) EXPECT_EQ(out[i], 0) << i;
  EXPECT_EQ(pack_external32(&x, 100, *P(0x209), out, sizeof out, &pos), errc::truncate);

  int64_t rpos = 0;
  int x2 = 0;
  double d2 = 0;
  long l2 = 0;
  long double ld2 = 0;
  ASSERT_EQ(unpack_external32(out, pos, &rpos, &x2, 1, *P(0x209)), errc::success);
  ASSERT_EQ(unpack_external32(out, pos, &rpos, &d2, 1, *P(0x214)), errc::success);
  ASSERT_EQ(unpack_external32(out, pos, &rpos, &l2, 1, *P(0x20a)), errc::success);
  ASSERT_EQ(unpack_external32(out, pos, &rpos, &ld2, 1, *P(0x220)), errc::success);
  EXPECT_EQ(x2, x);
  EXPECT_EQ(d2, d);
  EXPECT_EQ(l2, l);
  EXPECT_EQ(ld2, ld);
  EXPECT_EQ(rpos, pos);
}

TEST(DatatypeExternal32, DerivedRoundTrip) {
  struct rec {
    short s[6];
    long double ld;
    double d;
    int i;
    wchar_t w;
  };
  const int64_t bl[] = {6, 1, 1, 1, 1};
  const int64_t disp[] = {offsetof(rec, s), offsetof(rec, ld), offsetof(rec, d), offsetof(rec, i), offsetof(rec, w)};
  const datatype* const ty[] = {P(0x208), P(0x220), P(0x214), P(0x209), P(0x23c)};
  datatype* t = nullptr;
  ASSERT_EQ(type_struct(5, bl, disp, ty, &t), errc::success);
  ASSERT_EQ(t->commit(), errc::success);
  EXPECT_EQ(t->extent(), static_cast<int64_t>(sizeof(rec)));
  EXPECT_EQ(external32_size(*t), 12 + 16 + 8 + 4 + 2);
  rec in[3];
  std::memset(in, 0, sizeof in);
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 6; ++j) in[k].s[j] = static_cast<short>(-100 * k + j);
    in[k].ld = -3.25L * (k + 1);
    in[k].d = 1e300 / (k + 1);
    in[k].i = -7 * k;
    in[k].w = L'A' + k;
  }
  std::vector<unsigned char> buf(3 * 42);
  int64_t pos = 0;
  ASSERT_EQ(pack_external32(in, 3, *t, buf.data(), static_cast<int64_t>(buf.size()), &pos), errc::success);
  EXPECT_EQ(pos, 3 * 42);
  EXPECT_EQ(buf[0], 0x00);  // first short, big-endian 0x0000
  EXPECT_EQ(buf[3], 0x01);  // second short: 0x0001
  rec back[3];
  std::memset(back, 0, sizeof back);
  int64_t rpos = 0;
  ASSERT_EQ(unpack_external32(buf.data(), pos, &rpos, back, 3, *t), errc::success);
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 6; ++j) EXPECT_EQ(back[k].s[j], in[k].s[j]);
    EXPECT_EQ(back[k].ld, in[k].ld);
    EXPECT_EQ(back[k].d, in[k].d);
    EXPECT_EQ(back[k].i, in[k].i);
    EXPECT_EQ(back[k].w, in[k].w);
  }
  t->release();
}

}  // namespace
}  // namespace baton::core
