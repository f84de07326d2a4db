// The predefined kernels: one template per op, instantiated per element kind into a table.
//
// Vectorization: GCC's -O2 cost model ("very cheap") does not vectorize a loop whose trip count is
// unknown, so each kernel runs a fixed-size block (64 bytes of elements) in an inner loop that the
// compiler vectorizes at -O2 and -O3, then a scalar tail. Pointers are restrict-qualified: the
// caller guarantees `in` and `inout` do not overlap. Check with -fopt-info-vec (see op_test.cpp).
#include <array>
#include <atomic>
#include <complex>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>

#include "core/op.hpp"

namespace baton::core {

namespace {

// The standard's categories of predefined types (section 6.9.2), as far as the kind tells them.
enum class category { none, integer, floating, complex, logical, byte, character, pair };

template <class V, class I>
struct pair_of {
  V v;
  I i;
};

template <class T, category C>
struct kind_desc {
  using type = T;
  static constexpr category cat = C;
};

template <elem_kind K>
struct kind_info;
// clang-format off
template <> struct kind_info<elem_kind::none> : kind_desc<unsigned char, category::none> {};
template <> struct kind_info<elem_kind::int8> : kind_desc<int8_t, category::integer> {};
template <> struct kind_info<elem_kind::int16> : kind_desc<int16_t, category::integer> {};
template <> struct kind_info<elem_kind::int32> : kind_desc<int32_t, category::integer> {};
template <> struct kind_info<elem_kind::int64> : kind_desc<int64_t, category::integer> {};
template <> struct kind_info<elem_kind::uint8> : kind_desc<uint8_t, category::integer> {};
template <> struct kind_info<elem_kind::uint16> : kind_desc<uint16_t, category::integer> {};
template <> struct kind_info<elem_kind::uint32> : kind_desc<uint32_t, category::integer> {};
template <> struct kind_info<elem_kind::uint64> : kind_desc<uint64_t, category::integer> {};
template <> struct kind_info<elem_kind::float_> : kind_desc<float, category::floating> {};
template <> struct kind_info<elem_kind::double_> : kind_desc<double, category::floating> {};
template <> struct kind_info<elem_kind::long_double> : kind_desc<long double, category::floating> {};
template <> struct kind_info<elem_kind::float_complex> : kind_desc<std::complex<float>, category::complex> {};
template <> struct kind_info<elem_kind::double_complex> : kind_desc<std::complex<double>, category::complex> {};
template <> struct kind_info<elem_kind::long_double_complex> : kind_desc<std::complex<long double>, category::complex> {};
template <> struct kind_info<elem_kind::bool_> : kind_desc<bool, category::logical> {};
template <> struct kind_info<elem_kind::logical1> : kind_desc<int8_t, category::logical> {};
template <> struct kind_info<elem_kind::logical2> : kind_desc<int16_t, category::logical> {};
template <> struct kind_info<elem_kind::logical4> : kind_desc<int32_t, category::logical> {};
template <> struct kind_info<elem_kind::logical8> : kind_desc<int64_t, category::logical> {};
template <> struct kind_info<elem_kind::char_> : kind_desc<char, category::character> {};
template <> struct kind_info<elem_kind::wchar> : kind_desc<wchar_t, category::character> {};
template <> struct kind_info<elem_kind::byte> : kind_desc<uint8_t, category::byte> {};
template <> struct kind_info<elem_kind::float_int> : kind_desc<pair_of<float, int>, category::pair> {};
template <> struct kind_info<elem_kind::double_int> : kind_desc<pair_of<double, int>, category::pair> {};
template <> struct kind_info<elem_kind::long_int> : kind_desc<pair_of<long, int>, category::pair> {};
template <> struct kind_info<elem_kind::pair_2int> : kind_desc<pair_of<int, int>, category::pair> {};
template <> struct kind_info<elem_kind::short_int> : kind_desc<pair_of<short, int>, category::pair> {};
template <> struct kind_info<elem_kind::long_double_int> : kind_desc<pair_of<long double, int>, category::pair> {};
template <> struct kind_info<elem_kind::pair_2real> : kind_desc<pair_of<float, float>, category::pair> {};
template <> struct kind_info<elem_kind::pair_2double> : kind_desc<pair_of<double, double>, category::pair> {};
// clang-format on

static_assert(sizeof(bool) == 1, "C _Bool and C++ bool are one byte on supported platforms");
static_assert(sizeof(pair_of<short, int>) == 8 && sizeof(pair_of<double, int>) == 16);

// Which categories the standard allows each predefined op on.
constexpr bool allowed(op_kind o, category c) {
  if (c == category::none) return false;
  switch (o) {
    case op_kind::min:
    case op_kind::max: return c == category::integer || c == category::floating;
    case op_kind::sum:
    case op_kind::prod:
      return c == category::integer || c == category::floating || c == category::complex;
    case op_kind::land:
    case op_kind::lor:
    case op_kind::lxor: return c == category::integer || c == category::logical;
    case op_kind::band:
    case op_kind::bor:
    case op_kind::bxor: return c == category::integer || c == category::byte;
    case op_kind::minloc:
    case op_kind::maxloc: return c == category::pair;
    case op_kind::replace:
    case op_kind::no_op: return true;
    case op_kind::user: return false;
  }
  return false;
}

// Integer arithmetic in an unsigned type at least as wide as unsigned int: wraps instead of
// overflowing (signed overflow and the promotion of uint16 * uint16 to int would be UB).
template <class T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// The element functions: result = f(in, inout).
template <op_kind O, class T>
struct fn;

template <class T>
struct fn<op_kind::sum, T> {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(wrap_t<T>(a) + wrap_t<T>(b));
    else return a + b;
  }
};
template <class T>
struct fn<op_kind::prod, T> {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(wrap_t<T>(a) * wrap_t<T>(b));
    else return a * b;
  }
};
template <class T>
struct fn<op_kind::min, T> {
  static T apply(T a, T b) {
    T r = a < b ? a : b;
    if constexpr (std::is_floating_point_v<T>) return a != a ? a : r;  // a is NaN: propagate
    else return r;
  }
};
template <class T>
struct fn<op_kind::max, T> {
  static T apply(T a, T b) {
    T r = a > b ? a : b;
    if constexpr (std::is_floating_point_v<T>) return a != a ? a : r;
    else return r;
  }
};
template <class T>
struct fn<op_kind::band, T> {
  static T apply(T a, T b) { return static_cast<T>(a & b); }
};
template <class T>
struct fn<op_kind::bor, T> {
  static T apply(T a, T b) { return static_cast<T>(a | b); }
};
template <class T>
struct fn<op_kind::bxor, T> {
  static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};
template <class T>
struct fn<op_kind::land, T> {
  static T apply(T a, T b) { return static_cast<T>((a != 0) & (b != 0)); }
};
template <class T>
struct fn<op_kind::lor, T> {
  static T apply(T a, T b) { return static_cast<T>((a != 0) | (b != 0)); }
};
template <class T>
struct fn<op_kind::lxor, T> {
  static T apply(T a, T b) { return static_cast<T>((a != 0) ^ (b != 0)); }
};
// MINLOC/MAXLOC: the better value wins; on a tie the value stays and the smaller index wins.
template <class V, class I>
struct fn<op_kind::minloc, pair_of<V, I>> {
  static pair_of<V, I> apply(pair_of<V, I> a, pair_of<V, I> b) {
    if (a.v < b.v) return a;
    if (a.v == b.v && a.i < b.i) b.i = a.i;
    return b;
  }
};
template <class V, class I>
struct fn<op_kind::maxloc, pair_of<V, I>> {
  static pair_of<V, I> apply(pair_of<V, I> a, pair_of<V, I> b) {
    if (a.v > b.v) return a;
    if (a.v == b.v && a.i < b.i) b.i = a.i;
    return b;
  }
};

// On x86-64 each loop is also compiled for AVX2 and picked at load time (an ifunc); the AVX2 clone
// has no FMA, so both clones give bit-identical results (ranks on different CPUs agree).
// -DBATON_OP_NO_CLONES builds the baseline loop only (to test it on an AVX2 machine). GCC only:
// clang does not multiversion function templates.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(BATON_OP_NO_CLONES)
#if __has_attribute(target_clones)
#define BATON_OP_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef BATON_OP_CLONES
#define BATON_OP_CLONES
#endif

template <op_kind O, class T>
BATON_OP_CLONES void elementwise(const T* __restrict in, T* __restrict inout, size_t n) {
  constexpr size_t block = sizeof(T) >= 64 ? 1 : 64 / sizeof(T);
  size_t i = 0;
  for (; i + block <= n; i += block) {
    for (size_t j = 0; j < block; ++j) inout[i + j] = fn<O, T>::apply(in[i + j], inout[i + j]);
  }
  for (; i < n; ++i) inout[i] = fn<O, T>::apply(in[i], inout[i]);
}

// Fortran .TRUE./.FALSE. (op.hpp): written once by fortran_booleans_set, read by every logical
// reduction on a LOGICAL kind; the 1/0 default keeps the vectorized loop above.
std::atomic<int64_t> fortran_true{1};
std::atomic<int64_t> fortran_false{0};
std::atomic<bool> fortran_set{false};

constexpr bool is_fortran_logical(elem_kind k) {
  return k == elem_kind::logical1 || k == elem_kind::logical2 || k == elem_kind::logical4 ||
         k == elem_kind::logical8;
}

template <op_kind O, class T>
void fortran_logical(const T* __restrict in, T* __restrict inout, size_t n, T t, T f) {
  for (size_t i = 0; i < n; ++i) {
    const bool a = in[i] != f, b = inout[i] != f;
    bool r;
    if constexpr (O == op_kind::land) r = a && b;
    else if constexpr (O == op_kind::lor) r = a || b;
    else r = a != b;
    inout[i] = r ? t : f;
  }
}

template <op_kind O, elem_kind K>
void kernel(const void* in, void* inout, size_t n) {
  using T = typename kind_info<K>::type;
  if constexpr (is_fortran_logical(K) && (O == op_kind::land || O == op_kind::lor || O == op_kind::lxor)) {
    const int64_t t = fortran_true.load(std::memory_order_relaxed);
    const int64_t f = fortran_false.load(std::memory_order_relaxed);
    if (t != 1 || f != 0) {
      fortran_logical<O, T>(static_cast<const T*>(in), static_cast<T*>(inout), n, static_cast<T>(t),
                            static_cast<T>(f));
      return;
    }
  }
  if constexpr (O == op_kind::no_op) {
    (void)in, (void)inout, (void)n;
  } else if constexpr (O == op_kind::replace) {
    if (n != 0) std::memcpy(inout, in, n * sizeof(T));
  } else if constexpr (O == op_kind::sum && kind_info<K>::cat == category::complex) {
    // Complex sum is the real sum over the 2n parts (std::complex<R> is laid out as R[2]).
    using R = typename T::value_type;
    elementwise<O, R>(static_cast<const R*>(in), static_cast<R*>(inout), 2 * n);
  } else {
    elementwise<O, T>(static_cast<const T*>(in), static_cast<T*>(inout), n);
  }
}

template <op_kind O, elem_kind K>
constexpr op_kernel_fn make_kernel() {
  if constexpr (allowed(O, kind_info<K>::cat)) return &kernel<O, K>;
  else return nullptr;
}

constexpr size_t predefined_op_count = static_cast<size_t>(op_kind::user);
using kernel_row = std::array<op_kernel_fn, elem_kind_count>;

template <op_kind O, size_t... Ks>
constexpr kernel_row make_row(std::index_sequence<Ks...>) {
  return kernel_row{make_kernel<O, static_cast<elem_kind>(Ks)>()...};
}

template <size_t... Os>
constexpr std::array<kernel_row, predefined_op_count> make_table(std::index_sequence<Os...>) {
  return {make_row<static_cast<op_kind>(Os)>(std::make_index_sequence<elem_kind_count>{})...};
}

constexpr auto kernel_table = make_table(std::make_index_sequence<predefined_op_count>{});

template <size_t... Ks>
constexpr std::array<size_t, elem_kind_count> make_sizes(std::index_sequence<Ks...>) {
  return {sizeof(typename kind_info<static_cast<elem_kind>(Ks)>::type)...};
}

constexpr auto kind_sizes = make_sizes(std::make_index_sequence<elem_kind_count>{});

}  // namespace

op_kernel_fn op_kernel_lookup(const op& o, elem_kind k) {
  auto oi = static_cast<size_t>(o.kind());
  auto ki = static_cast<size_t>(k);
  if (oi >= predefined_op_count || ki >= elem_kind_count) return nullptr;
  return kernel_table[oi][ki];
}

fortran_booleans fortran_booleans_get() {
  fortran_booleans b;
  b.is_set = fortran_set.load(std::memory_order_acquire);
  b.true_value = fortran_true.load(std::memory_order_relaxed);
  b.false_value = fortran_false.load(std::memory_order_relaxed);
  return b;
}

errc fortran_booleans_set(int64_t true_value, int64_t false_value) {
  if (true_value == false_value)
    return error_set(errc::arg, ".TRUE. and .FALSE. are both %lld", static_cast<long long>(true_value));
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (fortran_set.load(std::memory_order_relaxed))
    return error_set(errc::abi,
                     "the Fortran booleans were already set (.TRUE. = %lld, .FALSE. = %lld): they may be set once",
                     static_cast<long long>(fortran_true.load()), static_cast<long long>(fortran_false.load()));
  fortran_false.store(false_value, std::memory_order_relaxed);
  fortran_true.store(true_value, std::memory_order_relaxed);
  fortran_set.store(true, std::memory_order_release);
  return errc::success;
}

size_t elem_kind_size(elem_kind k) {
  auto ki = static_cast<size_t>(k);
  if (k == elem_kind::none || ki >= elem_kind_count) return 0;
  return kind_sizes[ki];
}

}  // namespace baton::core
