// Unit tests for the reduction engine (src/core/op.hpp): every predefined op on every element kind
// against a scalar reference written independently here, the op/kind matrix of the standard, the
// MINLOC/MAXLOC tie rule, NaN handling, user ops and the ABI datatype-code map.
#include "core/op.hpp"

#include <type_traits>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace baton::core {
namespace {

template <class V, class I>
struct pair_t {
  V v;
  I i;
};

template <class T>
struct tag {
  using type = T;
};

enum class cat { integer, floating, complex, logical, byte, character, pair };

// The test's own view of each kind: its C type and standard category.
template <class F>
void with_kind(elem_kind k, F&& f) {
  using ek = elem_kind;
  switch (k) {
    case ek::int8: return f(tag<int8_t>{}, cat::integer);
    case ek::int16: return f(tag<int16_t>{}, cat::integer);
    case ek::int32: return f(tag<int32_t>{}, cat::integer);
    case ek::int64: return f(tag<int64_t>{}, cat::integer);
    case ek::uint8: return f(tag<uint8_t>{}, cat::integer);
    case ek::uint16: return f(tag<uint16_t>{}, cat::integer);
    case ek::uint32: return f(tag<uint32_t>{}, cat::integer);
    case ek::uint64: return f(tag<uint64_t>{}, cat::integer);
    case ek::float_: return f(tag<float>{}, cat::floating);
    case ek::double_: return f(tag<double>{}, cat::floating);
    case ek::long_double: return f(tag<long double>{}, cat::floating);
    case ek::float_complex: return f(tag<std::complex<float>>{}, cat::complex);
    case ek::double_complex: return f(tag<std::complex<double>>{}, cat::complex);
    case ek::long_double_complex: return f(tag<std::complex<long double>>{}, cat::complex);
    case ek::bool_: return f(tag<bool>{}, cat::logical);
    case ek::logical1: return f(tag<int8_t>{}, cat::logical);
    case ek::logical2: return f(tag<int16_t>{}, cat::logical);
    case ek::logical4: return f(tag<int32_t>{}, cat::logical);
    case ek::logical8: return f(tag<int64_t>{}, cat::logical);
    case ek::char_: return f(tag<char>{}, cat::character);
    case ek::wchar: return f(tag<wchar_t>{}, cat::character);
    case ek::byte: return f(tag<uint8_t>{}, cat::byte);
    case ek::float_int: return f(tag<pair_t<float, int>>{}, cat::pair);
    case ek::double_int: return f(tag<pair_t<double, int>>{}, cat::pair);
    case ek::long_int: return f(tag<pair_t<long, int>>{}, cat::pair);
    case ek::pair_2int: return f(tag<pair_t<int, int>>{}, cat::pair);
    case ek::short_int: return f(tag<pair_t<short, int>>{}, cat::pair);
    case ek::long_double_int: return f(tag<pair_t<long double, int>>{}, cat::pair);
    case ek::pair_2real: return f(tag<pair_t<float, float>>{}, cat::pair);
    case ek::pair_2double: return f(tag<pair_t<double, double>>{}, cat::pair);
    default: FAIL() << "kind without a test type: " << static_cast<int>(k);
  }
}

std::vector<elem_kind> all_kinds() {
  std::vector<elem_kind> v;
  for (size_t i = 1; i < elem_kind_count; ++i) v.push_back(static_cast<elem_kind>(i));
  return v;
}

const op_kind all_predefined[] = {
    op_kind::sum,  op_kind::min,  op_kind::max,    op_kind::prod,   op_kind::band,
    op_kind::bor,  op_kind::bxor, op_kind::land,   op_kind::lor,    op_kind::lxor,
    op_kind::minloc, op_kind::maxloc, op_kind::replace, op_kind::no_op,
};

// Section 6.9.2 of MPI-4.1, written out again independently of the engine's table.
bool standard_allows(op_kind o, cat c) {
  switch (o) {
    case op_kind::max:
    case op_kind::min: return c == cat::integer || c == cat::floating;
    case op_kind::sum:
    case op_kind::prod: return c == cat::integer || c == cat::floating || c == cat::complex;
    case op_kind::land:
    case op_kind::lor:
    case op_kind::lxor: return c == cat::integer || c == cat::logical;
    case op_kind::band:
    case op_kind::bor:
    case op_kind::bxor: return c == cat::integer || c == cat::byte;
    case op_kind::minloc:
    case op_kind::maxloc: return c == cat::pair;
    case op_kind::replace:
    case op_kind::no_op: return true;
    default: return false;
  }
}

// Scalar reference: returns `in op inout`.
template <class T>
T reference(op_kind o, T a, T b, cat c) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (o) {
      case op_kind::land: return a && b;
      case op_kind::lor: return a || b;
      case op_kind::lxor: return a != b;
      case op_kind::replace: return a;
      default: return b;  // no_op
    }
  } else if constexpr (std::is_integral_v<T>) {
    if (c == cat::logical || o == op_kind::land || o == op_kind::lor || o == op_kind::lxor) {
      bool x = a != 0, y = b != 0;
      switch (o) {
        case op_kind::land: return static_cast<T>(x && y);
        case op_kind::lor: return static_cast<T>(x || y);
        case op_kind::lxor: return static_cast<T>(x != y);
        default: break;
      }
    }
    auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (o) {
      case op_kind::sum: return static_cast<T>(ua + ub);
      case op_kind::prod: return static_cast<T>(ua * ub);
      case op_kind::min: return b < a ? b : a;
      case op_kind::max: return b > a ? b : a;
      case op_kind::band: return static_cast<T>(ua & ub);
      case op_kind::bor: return static_cast<T>(ua | ub);
      case op_kind::bxor: return static_cast<T>(ua ^ ub);
      case op_kind::replace: return a;
      default: return b;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (o) {
      case op_kind::sum: return a + b;
      case op_kind::prod: return a * b;
      case op_kind::min: return a < b ? a : b;
      case op_kind::max: return a > b ? a : b;
      case op_kind::replace: return a;
      default: return b;
    }
  } else if constexpr (requires { a.real(); }) {
    switch (o) {
      case op_kind::sum: return T(a.real() + b.real(), a.imag() + b.imag());
      case op_kind::prod:
        return T(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
      case op_kind::replace: return a;
      default: return b;
    }
  } else if constexpr (requires { a.v; }) {
    switch (o) {
      case op_kind::minloc:
        if (a.v != b.v) return a.v < b.v ? a : b;
        return T{a.v, a.i < b.i ? a.i : b.i};
      case op_kind::maxloc:
        if (a.v != b.v) return a.v > b.v ? a : b;
        return T{a.v, a.i < b.i ? a.i : b.i};
      case op_kind::replace: return a;
      default: return b;
    }
  } else {
    return o == op_kind::replace ? a : b;  // char, wchar_t
  }
}

// Test values: exact in every op (small integers for floating point), frequent ties for pairs,
// zero and odd nonzero values for logicals.
template <class T>
T make_value(std::mt19937_64& rng, cat c) {
  if constexpr (std::is_same_v<T, bool>) {
    return (rng() & 1) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (c == cat::logical || (rng() % 4) == 0) return static_cast<T>(rng() % 3);  // 0, 1, 2
    return static_cast<T>(rng());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<int>(rng() % 101) - 50);
  } else if constexpr (requires { T().real(); }) {
    using R = typename T::value_type;
    return T(static_cast<R>(static_cast<int>(rng() % 21) - 10),
             static_cast<R>(static_cast<int>(rng() % 21) - 10));
  } else if constexpr (requires { T().v; }) {
    T p{};
    p.v = static_cast<decltype(p.v)>(static_cast<int>(rng() % 5) - 2);
    p.i = static_cast<decltype(p.i)>(rng() % 8);
    return p;
  } else {
    return static_cast<T>('a' + rng() % 26);
  }
}

template <class T>
bool same(const T& x, const T& y) {
  if constexpr (requires { x.v; }) return x.v == y.v && x.i == y.i;
  else return x == y;
}

template <class T>
std::string show(const T& x) {
  if constexpr (requires { x.v; }) {
    return "{" + std::to_string(static_cast<long double>(x.v)) + ", " +
           std::to_string(static_cast<long double>(x.i)) + "}";
  } else if constexpr (requires { x.real(); }) {
    return "(" + std::to_string(static_cast<long double>(x.real())) + ", " +
           std::to_string(static_cast<long double>(x.imag())) + ")";
  } else {
    return std::to_string(static_cast<long double>(x));
  }
}

constexpr size_t test_counts[] = {0, 1, 7, 15, 16, 17, 1000};

// Applies `o` to `count` elements starting `skew` elements into the buffers (so vector loops see
// misaligned data), checks every element against the reference and the guards around them.
template <class T>
void check_apply(const op& o, elem_kind k, cat c, size_t count, size_t skew, std::mt19937_64& rng) {
  constexpr size_t guard = 3;
  size_t total = skew + count + guard;
  // unique_ptr rather than vector: std::vector<bool> has no data().
  std::unique_ptr<T[]> in(new T[total]()), inout(new T[total]()), expect(new T[total]());
  for (size_t i = 0; i < total; ++i) {
    in[i] = make_value<T>(rng, c);
    inout[i] = make_value<T>(rng, c);
    expect[i] = inout[i];
  }
  for (size_t i = skew; i < skew + count; ++i) {
    expect[i] = reference<T>(o.kind(), in[i], inout[i], c);
  }
  if (skew % 2 == 0) {
    op_apply(o, k, in.get() + skew, inout.get() + skew, count);
  } else {
    op_apply(o, k, nullptr, in.get() + skew, inout.get() + skew, count);
  }
  for (size_t i = 0; i < total; ++i) {
    ASSERT_TRUE(same(inout[i], expect[i]))
        << o.name() << " on " << elem_kind_name(k) << " count " << count << " skew " << skew
        << " element " << i << ": in " << show(in[i]) << " got " << show(inout[i]) << " expected "
        << show(expect[i]);
  }
}

TEST(op, predefined_handles) {
  struct {
    uint32_t code;
    op_kind kind;
    const char* name;
  } const expected[] = {
      {0x21, op_kind::sum, "SUM"},       {0x22, op_kind::min, "MIN"},
      {0x23, op_kind::max, "MAX"},       {0x24, op_kind::prod, "PROD"},
      {0x28, op_kind::band, "BAND"},     {0x29, op_kind::bor, "BOR"},
      {0x2a, op_kind::bxor, "BXOR"},     {0x30, op_kind::land, "LAND"},
      {0x31, op_kind::lor, "LOR"},       {0x32, op_kind::lxor, "LXOR"},
      {0x38, op_kind::minloc, "MINLOC"}, {0x39, op_kind::maxloc, "MAXLOC"},
      {0x3c, op_kind::replace, "REPLACE"}, {0x3d, op_kind::no_op, "NO_OP"},
  };
  for (const auto& e : expected) {
    const op* o = predefined_op(e.code);
    ASSERT_NE(o, nullptr) << std::hex << e.code;
    EXPECT_EQ(o->kind(), e.kind);
    EXPECT_STREQ(o->name(), e.name);
    EXPECT_EQ(o->abi_code(), e.code);
    EXPECT_TRUE(o->is_predefined());
    EXPECT_TRUE(o->is_commutative());
    EXPECT_EQ(predefined_op(e.kind), o);
    o->retain();  // no-ops on predefined ops
    o->release();
    o->release();
  }
  for (uint32_t code : {0x0u, 0x20u, 0x25u, 0x2bu, 0x3eu, 0x209u, 0xffffffffu}) {
    EXPECT_EQ(predefined_op(code), nullptr) << std::hex << code;
  }
  EXPECT_EQ(predefined_op(op_kind::user), nullptr);
}

TEST(op, check_matrix_follows_the_standard) {
  int allowed = 0, refused = 0;
  for (op_kind ok : all_predefined) {
    const op& o = *predefined_op(ok);
    for (elem_kind k : all_kinds()) {
      with_kind(k, [&](auto, cat c) {
        bool want = standard_allows(ok, c);
        error_clear();
        errc e = op_check(o, k);
        EXPECT_EQ(e, want ? errc::success : errc::op) << o.name() << " on " << elem_kind_name(k);
        EXPECT_EQ(op_kernel_lookup(o, k) != nullptr, want);
        if (want) {
          ++allowed;
          EXPECT_EQ(error_message(), "");
        } else {
          ++refused;
          EXPECT_NE(error_message().find(o.name()), std::string::npos) << error_message();
          EXPECT_NE(error_message().find(elem_kind_name(k)), std::string::npos) << error_message();
        }
      });
    }
    // Nothing applies to a datatype without an element kind.
    EXPECT_EQ(op_check(o, elem_kind::none), errc::op);
    EXPECT_EQ(op_kernel_lookup(o, elem_kind::none), nullptr);
  }
  EXPECT_GT(allowed, 100);
  EXPECT_GT(refused, 100);
}

TEST(op, refused_pairs_name_op_and_type) {
  struct {
    op_kind o;
    elem_kind k;
  } const refused[] = {
      {op_kind::sum, elem_kind::bool_},       {op_kind::sum, elem_kind::char_},
      {op_kind::sum, elem_kind::pair_2int},   {op_kind::sum, elem_kind::logical4},
      {op_kind::prod, elem_kind::byte},       {op_kind::min, elem_kind::float_complex},
      {op_kind::max, elem_kind::byte},        {op_kind::max, elem_kind::wchar},
      {op_kind::band, elem_kind::float_},     {op_kind::bor, elem_kind::bool_},
      {op_kind::bxor, elem_kind::logical4},   {op_kind::land, elem_kind::double_},
      {op_kind::lor, elem_kind::byte},        {op_kind::lxor, elem_kind::double_complex},
      {op_kind::minloc, elem_kind::double_},  {op_kind::maxloc, elem_kind::int32},
  };
  for (const auto& r : refused) {
    const op& o = *predefined_op(r.o);
    EXPECT_EQ(op_check(o, r.k), errc::op);
    EXPECT_NE(error_message().find(o.name()), std::string::npos);
  }
  // The caller's datatype name is used when given.
  EXPECT_EQ(op_check(*predefined_op(op_kind::minloc), elem_kind::double_, "DOUBLE"), errc::op);
  EXPECT_NE(error_message().find("MINLOC"), std::string::npos) << error_message();
  EXPECT_NE(error_message().find("DOUBLE"), std::string::npos) << error_message();
  EXPECT_EQ(op_check(*predefined_op(op_kind::sum), elem_kind::none, "my_struct"), errc::op);
  EXPECT_NE(error_message().find("my_struct"), std::string::npos) << error_message();
}

TEST(op, every_allowed_pair_matches_the_reference) {
  std::mt19937_64 rng(12345);
  int runs = 0;
  for (op_kind ok : all_predefined) {
    const op& o = *predefined_op(ok);
    for (elem_kind k : all_kinds()) {
      if (op_check(o, k) != errc::success) continue;
      with_kind(k, [&](auto t, cat c) {
        using T = typename decltype(t)::type;
        ASSERT_EQ(elem_kind_size(k), sizeof(T)) << elem_kind_name(k);
        for (size_t count : test_counts) {
          for (size_t skew : {0, 1}) {
            check_apply<T>(o, k, c, count, skew, rng);
            ++runs;
          }
        }
      });
    }
  }
  EXPECT_GT(runs, 1000);
}

TEST(op, minloc_maxloc_tie_rule) {
  using p = pair_t<double, int>;
  const op& mn = *predefined_op(op_kind::minloc);
  const op& mx = *predefined_op(op_kind::maxloc);
  //                 in        inout     minloc     maxloc
  struct {
    p in, inout, min_expect, max_expect;
  } const cases[] = {
      {{5, 3}, {5, 7}, {5, 3}, {5, 3}},  // tie: smaller index from in
      {{5, 9}, {5, 7}, {5, 7}, {5, 7}},  // tie: smaller index from inout
      {{1, 9}, {5, 0}, {1, 9}, {5, 0}},  // no tie: the value decides, not the index
      {{8, 0}, {5, 4}, {5, 4}, {8, 0}},
      {{-0.0, 4}, {0.0, 2}, {0.0, 2}, {0.0, 2}},  // -0 == +0: a tie, inout's value stays
  };
  for (const auto& c : cases) {
    p a[1] = {c.in}, b[1] = {c.inout};
    op_apply(mn, elem_kind::double_int, a, b, 1);
    EXPECT_EQ(b[0].v, c.min_expect.v);
    EXPECT_EQ(b[0].i, c.min_expect.i);
    b[0] = c.inout;
    op_apply(mx, elem_kind::double_int, a, b, 1);
    EXPECT_EQ(b[0].v, c.max_expect.v);
    EXPECT_EQ(b[0].i, c.max_expect.i);
  }
  // A reduction of all equal values keeps the smallest index, whatever the combining order.
  std::vector<pair_t<int, int>> acc = {{4, 6}};
  for (int r : {3, 9, 1, 5}) {
    pair_t<int, int> in[1] = {{4, r}};
    op_apply(mn, elem_kind::pair_2int, in, acc.data(), 1);
  }
  EXPECT_EQ(acc[0].i, 1);
  // 2REAL: the index is a float.
  pair_t<float, float> fin[2] = {{2.f, 3.f}, {1.f, 8.f}}, fio[2] = {{2.f, 1.5f}, {1.f, 2.f}};
  op_apply(mx, elem_kind::pair_2real, fin, fio, 2);
  EXPECT_EQ(fio[0].i, 1.5f);
  EXPECT_EQ(fio[1].i, 2.f);
}

template <class T>
void check_nan_min_max() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const op& mn = *predefined_op(op_kind::min);
  const op& mx = *predefined_op(op_kind::max);
  elem_kind k = std::is_same_v<T, float> ? elem_kind::float_ : elem_kind::double_;
  for (const op* o : {&mn, &mx}) {
    // Long enough for the vector loop and the tail.
    std::vector<T> in(37, T(1)), inout(37, T(2));
    in[3] = nan;
    inout[5] = nan;
    in[36] = nan;
    inout[35] = nan;
    op_apply(*o, k, in.data(), inout.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      bool want_nan = i == 3 || i == 5 || i == 35 || i == 36;
      EXPECT_EQ(inout[i] != inout[i], want_nan) << o->name() << " element " << i;
      if (!want_nan) {
        EXPECT_EQ(inout[i], o == &mn ? T(1) : T(2));
      }
    }
  }
  // Equal operands, -0.0 and +0.0 included, keep inout.
  T a[2] = {T(-0.0), T(0.0)}, b[2] = {T(0.0), T(-0.0)};
  op_apply(mn, k, a, b, 2);
  EXPECT_FALSE(std::signbit(b[0]));
  EXPECT_TRUE(std::signbit(b[1]));
}

TEST(op, float_min_max_propagate_nan) {
  check_nan_min_max<float>();
  check_nan_min_max<double>();
}

TEST(op, integer_sum_prod_wrap) {
  int32_t a[2] = {INT32_MAX, INT32_MIN}, b[2] = {1, -1};
  op_apply(*predefined_op(op_kind::sum), elem_kind::int32, a, b, 2);
  EXPECT_EQ(b[0], INT32_MIN);
  EXPECT_EQ(b[1], INT32_MAX);
  uint16_t c[1] = {65535}, d[1] = {65535};
  op_apply(*predefined_op(op_kind::prod), elem_kind::uint16, c, d, 1);
  EXPECT_EQ(d[0], 1);
}

TEST(op, logical_ops_normalize_to_one) {
  int32_t in[4] = {0, -1, 7, 0}, io[4] = {5, 2, 0, 0};
  op_apply(*predefined_op(op_kind::lor), elem_kind::logical4, in, io, 4);
  EXPECT_EQ(io[0], 1);
  EXPECT_EQ(io[1], 1);
  EXPECT_EQ(io[2], 1);
  EXPECT_EQ(io[3], 0);
}

TEST(op, replace_and_no_op) {
  double in[7] = {1, 2, 3, 4, 5, 6, 7}, io[7] = {};
  op_apply(*predefined_op(op_kind::no_op), elem_kind::double_, in, io, 7);
  for (double x : io) EXPECT_EQ(x, 0.0);
  op_apply(*predefined_op(op_kind::replace), elem_kind::double_, in, io, 7);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(io[i], in[i]);
}

// A user op records its calls. `ctx` points at this.
struct user_record {
  int calls = 0;
  int64_t last_count = -1;
  void* last_type = nullptr;
  bool freed = false;
};

// Non-commutative: inout = 10 * in + inout (digit concatenation in rank order).
void user_concat(void* in, void* inout, int64_t count, void* type, void* ctx) {
  auto* rec = static_cast<user_record*>(ctx);
  ++rec->calls;
  rec->last_count = count;
  rec->last_type = type;
  auto* a = static_cast<const int64_t*>(in);
  auto* b = static_cast<int64_t*>(inout);
  for (int64_t i = 0; i < count; ++i) b[i] = 10 * a[i] + b[i];
}

void user_sum(void* in, void* inout, int64_t count, void*, void* ctx) {
  ++static_cast<user_record*>(ctx)->calls;
  for (int64_t i = 0; i < count; ++i) {
    static_cast<int64_t*>(inout)[i] += static_cast<const int64_t*>(in)[i];
  }
}

void user_free(void* ctx) { static_cast<user_record*>(ctx)->freed = true; }

TEST(op, user_op_non_commutative_keeps_operand_order) {
  user_record rec;
  op* o = nullptr;
  ASSERT_EQ(op_create_user(user_concat, &rec, false, &o, user_free), errc::success);
  ASSERT_NE(o, nullptr);
  EXPECT_FALSE(o->is_predefined());
  EXPECT_FALSE(o->is_commutative());
  EXPECT_EQ(o->kind(), op_kind::user);
  EXPECT_EQ(o->abi_code(), 0u);
  EXPECT_STREQ(o->name(), "user op");
  EXPECT_EQ(o->user_context(), &rec);
  // A user op accepts any datatype, even one without an element kind.
  EXPECT_EQ(op_check(*o, elem_kind::none), errc::success);
  EXPECT_EQ(op_check(*o, elem_kind::double_), errc::success);
  EXPECT_EQ(op_kernel_lookup(*o, elem_kind::int64), nullptr);

  // Combining ranks 0..3 in order: ((r0 op r1) op r2) op r3 with the standard's in/inout roles,
  // i.e. the lower rank's partial result is `in`.
  int type_handle = 0;
  void* handle = &type_handle;
  for (size_t count : test_counts) {
    std::vector<int64_t> acc(count, 1);
    for (int64_t r = 2; r <= 4; ++r) {
      std::vector<int64_t> mine(count, r);
      op_apply(*o, elem_kind::none, handle, acc.data(), mine.data(), count);
      acc.swap(mine);
    }
    for (int64_t x : acc) EXPECT_EQ(x, 1234);
    if (count != 0) {
      EXPECT_EQ(rec.last_count, static_cast<int64_t>(count));
      EXPECT_EQ(rec.last_type, handle);
    }
  }
  EXPECT_EQ(rec.calls, 3 * 6);  // count 0 never calls the function

  o->retain();
  o->release();
  EXPECT_FALSE(rec.freed);
  o->release();
  EXPECT_TRUE(rec.freed);
}

TEST(op, user_op_commutative) {
  user_record rec;
  op* o = nullptr;
  ASSERT_EQ(op_create_user(user_sum, &rec, true, &o), errc::success);
  EXPECT_TRUE(o->is_commutative());
  std::vector<int64_t> a(1000, 3), b(1000, 4);
  op_apply(*o, elem_kind::int64, nullptr, a.data(), b.data(), b.size());
  for (int64_t x : b) EXPECT_EQ(x, 7);
  EXPECT_EQ(rec.calls, 1);
  o->release();
}

TEST(op, user_op_requires_function) {
  op* o = nullptr;
  EXPECT_EQ(op_create_user(nullptr, nullptr, true, &o), errc::arg);
  EXPECT_EQ(o, nullptr);
  EXPECT_NE(error_message(), "");
}

TEST(op, abi_datatype_codes) {
  using k = elem_kind;
  struct {
    uint32_t code;
    elem_kind kind;
  } const expected[] = {
      {0x201, k::int64},          {0x202, k::int64},          {0x203, k::int64},
      {0x208, k::int16},          {0x209, k::int32},          {0x20a, k::int64},
      {0x20b, k::int64},          {0x20c, k::uint16},         {0x20d, k::uint32},
      {0x20e, k::uint64},         {0x20f, k::uint64},         {0x210, k::float_},
      {0x212, k::float_complex},  {0x213, k::float_complex},  {0x214, k::double_},
      {0x216, k::double_complex}, {0x217, k::double_complex}, {0x218, k::logical4},
      {0x219, k::int32},          {0x21a, k::float_},         {0x21b, k::float_complex},
      {0x21c, k::double_},        {0x21d, k::double_complex}, {0x21e, k::char_},
      {0x220, k::long_double},    {0x224, k::long_double_complex},
      {0x225, k::long_double_complex},
      {0x228, k::float_int},      {0x229, k::double_int},     {0x22a, k::long_int},
      {0x22b, k::pair_2int},      {0x22c, k::short_int},      {0x22d, k::long_double_int},
      {0x230, k::pair_2real},     {0x231, k::pair_2double},   {0x232, k::pair_2int},
      {0x238, k::bool_},          {0x239, k::bool_},          {0x23c, k::wchar},
      {0x240, k::int8},           {0x241, k::uint8},          {0x243, std::is_signed_v<char> ? k::int8 : k::uint8},
      {0x244, k::int8},           {0x245, k::uint8},          {0x247, k::byte},
      {0x248, k::int16},          {0x249, k::uint16},         {0x250, k::int32},
      {0x251, k::uint32},         {0x258, k::int64},          {0x259, k::uint64},
      {0x2c0, k::logical1},       {0x2c1, k::int8},           {0x2c8, k::logical2},
      {0x2c9, k::int16},          {0x2d0, k::logical4},       {0x2d1, k::int32},
      {0x2d2, k::float_},         {0x2d8, k::logical8},       {0x2d9, k::int64},
      {0x2da, k::double_},        {0x2db, k::float_complex},  {0x2e3, k::double_complex},
      // No element kind: DATATYPE_NULL, PACKED, REAL2, COMPLEX4, LOGICAL16, INTEGER16, REAL16,
      // COMPLEX32, and non-datatype values.
      {0x200, k::none},           {0x207, k::none},           {0x2ca, k::none},
      {0x2d3, k::none},           {0x2e0, k::none},           {0x2e1, k::none},
      {0x2e2, k::none},           {0x2eb, k::none},           {0x21, k::none},
      {0x1000, k::none},
  };
  for (const auto& e : expected) {
    EXPECT_EQ(elem_kind_of_abi_code(e.code), e.kind) << std::hex << e.code;
  }
  // The C sizes behind the platform-dependent mappings.
  EXPECT_EQ(elem_kind_size(elem_kind_of_abi_code(0x20a)), sizeof(long));
  EXPECT_EQ(elem_kind_size(elem_kind_of_abi_code(0x23c)), sizeof(wchar_t));
  EXPECT_EQ(elem_kind_size(k::double_int), 16u);
  EXPECT_EQ(elem_kind_size(k::short_int), 8u);
  EXPECT_EQ(elem_kind_size(k::long_double_int), sizeof(long double) * 2);
  EXPECT_EQ(elem_kind_size(k::float_complex), 8u);
  EXPECT_EQ(elem_kind_size(k::none), 0u);
  EXPECT_STREQ(elem_kind_name(k::pair_2int), "2int");
}

}  // namespace
}  // namespace baton::core
