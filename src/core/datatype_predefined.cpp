// The predefined datatypes, keyed by their MPI-5.0 standard ABI handle value.
#include <complex>
#include <cstddef>
#include <cwchar>

#include "core/datatype.hpp"

namespace baton::core {

namespace {

template <class A, class B>
struct pair_of {
  A a;
  B b;
};

constexpr uint32_t k_first_code = 0x200;
constexpr uint32_t k_table_size = 0x100;

}  // namespace

struct predefined_table {
  datatype* by_code[k_table_size] = {};

  datatype* add(uint32_t code, const char* name, int64_t size, int64_t align, basic_kind kind, int64_t ext32) {
    auto* t = new datatype();
    t->abi_code_ = code;
    t->name_ = name;
    t->kind_ = kind;
    t->size_ = size;
    t->lb_ = 0;
    t->ub_ = size;
    t->true_lb_ = 0;
    t->true_ub_ = size;
    t->align_ = align;
    t->basic_ = t;
    t->basic_count_ = 1;
    t->external32_size_ = ext32;
    t->committed_ = true;
    t->contiguous_ = true;
    t->segs_.push_back(dt_segment{0, 1, size, size, 0});
    by_code[code - k_first_code] = t;
    return t;
  }

  void add_pair(uint32_t code, const char* name, uint32_t first, uint32_t second, int64_t offset2, int64_t extent,
                int64_t align) {
    const datatype* f = by_code[first - k_first_code];
    const datatype* s = by_code[second - k_first_code];
    auto* t = new datatype();
    t->abi_code_ = code;
    t->name_ = name;
    t->kind_ = basic_kind::pair;
    t->size_ = f->size_ + s->size_;
    t->lb_ = 0;
    t->ub_ = extent;
    t->true_lb_ = 0;
    t->true_ub_ = offset2 + s->size_;
    t->align_ = align;
    t->basic_ = t;
    t->basic_count_ = 1;
    t->pair_first_ = f;
    t->pair_second_ = s;
    t->pair_second_offset_ = offset2;
    t->external32_size_ = f->external32_size_ + s->external32_size_;
    t->committed_ = true;
    if (offset2 == f->size_) {
      t->segs_.push_back(dt_segment{0, 1, t->size_, t->size_, 0});
      t->contiguous_ = t->size_ == extent;
    } else {
      t->segs_.push_back(dt_segment{0, 1, f->size_, f->size_, 0});
      t->segs_.push_back(dt_segment{offset2, 1, s->size_, s->size_, f->size_});
      t->contiguous_ = false;
    }
    by_code[code - k_first_code] = t;
  }

  template <class T>
  void scalar(uint32_t code, const char* name, basic_kind kind, int64_t ext32 = sizeof(T)) {
    add(code, name, sizeof(T), alignof(T), kind, ext32);
  }

  template <class A, class B>
  void pair(uint32_t code, const char* name, uint32_t first, uint32_t second) {
    using p = pair_of<A, B>;
    add_pair(code, name, first, second, offsetof(p, b), sizeof(p), alignof(p));
  }

  predefined_table() {
    using k = basic_kind;
    scalar<intptr_t>(0x201, "MPI_AINT", k::signed_int, 8);
    scalar<int64_t>(0x202, "MPI_COUNT", k::signed_int, 8);
    scalar<int64_t>(0x203, "MPI_OFFSET", k::signed_int, 8);
    scalar<char>(0x207, "MPI_PACKED", k::byte);
    scalar<short>(0x208, "MPI_SHORT", k::signed_int, 2);
    scalar<int>(0x209, "MPI_INT", k::signed_int, 4);
    scalar<long>(0x20a, "MPI_LONG", k::signed_int, 4);
    scalar<long long>(0x20b, "MPI_LONG_LONG_INT", k::signed_int, 8);
    scalar<unsigned short>(0x20c, "MPI_UNSIGNED_SHORT", k::unsigned_int, 2);
    scalar<unsigned>(0x20d, "MPI_UNSIGNED", k::unsigned_int, 4);
    scalar<unsigned long>(0x20e, "MPI_UNSIGNED_LONG", k::unsigned_int, 4);
    scalar<unsigned long long>(0x20f, "MPI_UNSIGNED_LONG_LONG", k::unsigned_int, 8);
    scalar<float>(0x210, "MPI_FLOAT", k::floating, 4);
    scalar<std::complex<float>>(0x212, "MPI_C_COMPLEX", k::complex, 8);
    scalar<std::complex<float>>(0x213, "MPI_CXX_FLOAT_COMPLEX", k::complex, 8);
    scalar<double>(0x214, "MPI_DOUBLE", k::floating, 8);
    scalar<std::complex<double>>(0x216, "MPI_C_DOUBLE_COMPLEX", k::complex, 16);
    scalar<std::complex<double>>(0x217, "MPI_CXX_DOUBLE_COMPLEX", k::complex, 16);
    scalar<int>(0x218, "MPI_LOGICAL", k::logical, 4);
    scalar<int>(0x219, "MPI_INTEGER", k::signed_int, 4);
    scalar<float>(0x21a, "MPI_REAL", k::floating, 4);
    scalar<std::complex<float>>(0x21b, "MPI_COMPLEX", k::complex, 8);
    scalar<double>(0x21c, "MPI_DOUBLE_PRECISION", k::floating, 8);
    scalar<std::complex<double>>(0x21d, "MPI_DOUBLE_COMPLEX", k::complex, 16);
    scalar<char>(0x21e, "MPI_CHARACTER", k::character, 1);
    scalar<long double>(0x220, "MPI_LONG_DOUBLE", k::floating, 16);
    scalar<std::complex<long double>>(0x224, "MPI_C_LONG_DOUBLE_COMPLEX", k::complex, 32);
    scalar<std::complex<long double>>(0x225, "MPI_CXX_LONG_DOUBLE_COMPLEX", k::complex, 32);
    scalar<bool>(0x238, "MPI_C_BOOL", k::logical, 1);
    scalar<bool>(0x239, "MPI_CXX_BOOL", k::logical, 1);
    scalar<wchar_t>(0x23c, "MPI_WCHAR", k::character, 2);
    scalar<int8_t>(0x240, "MPI_INT8_T", k::signed_int);
    scalar<uint8_t>(0x241, "MPI_UINT8_T", k::unsigned_int);
    scalar<char>(0x243, "MPI_CHAR", k::character, 1);
    scalar<signed char>(0x244, "MPI_SIGNED_CHAR", k::signed_int, 1);
    scalar<unsigned char>(0x245, "MPI_UNSIGNED_CHAR", k::unsigned_int, 1);
    scalar<unsigned char>(0x247, "MPI_BYTE", k::byte, 1);
    scalar<int16_t>(0x248, "MPI_INT16_T", k::signed_int);
    scalar<uint16_t>(0x249, "MPI_UINT16_T", k::unsigned_int);
    scalar<int32_t>(0x250, "MPI_INT32_T", k::signed_int);
    scalar<uint32_t>(0x251, "MPI_UINT32_T", k::unsigned_int);
    scalar<int64_t>(0x258, "MPI_INT64_T", k::signed_int);
    scalar<uint64_t>(0x259, "MPI_UINT64_T", k::unsigned_int);
    // Fortran sized types: n bytes each (COMPLEXn: n bytes for the pair of reals).
    add(0x2c0, "MPI_LOGICAL1", 1, 1, k::logical, 1);
    add(0x2c1, "MPI_INTEGER1", 1, 1, k::signed_int, 1);
    add(0x2c8, "MPI_LOGICAL2", 2, 2, k::logical, 2);
    add(0x2c9, "MPI_INTEGER2", 2, 2, k::signed_int, 2);
    add(0x2ca, "MPI_REAL2", 2, 2, k::floating, 2);
    add(0x2d0, "MPI_LOGICAL4", 4, 4, k::logical, 4);
    add(0x2d1, "MPI_INTEGER4", 4, 4, k::signed_int, 4);
    add(0x2d2, "MPI_REAL4", 4, 4, k::floating, 4);
    add(0x2d3, "MPI_COMPLEX4", 4, 2, k::complex, 4);
    add(0x2d8, "MPI_LOGICAL8", 8, 8, k::logical, 8);
    add(0x2d9, "MPI_INTEGER8", 8, 8, k::signed_int, 8);
    add(0x2da, "MPI_REAL8", 8, 8, k::floating, 8);
    add(0x2db, "MPI_COMPLEX8", 8, 4, k::complex, 8);
    add(0x2e0, "MPI_LOGICAL16", 16, 16, k::logical, 16);
    add(0x2e1, "MPI_INTEGER16", 16, 16, k::signed_int, 16);
    add(0x2e2, "MPI_REAL16", 16, 16, k::floating, 16);
    add(0x2e3, "MPI_COMPLEX16", 16, 8, k::complex, 16);
    add(0x2eb, "MPI_COMPLEX32", 32, 16, k::complex, 32);
    // Pair types for MINLOC/MAXLOC, laid out as the corresponding C struct.
    pair<float, int>(0x228, "MPI_FLOAT_INT", 0x210, 0x209);
    pair<double, int>(0x229, "MPI_DOUBLE_INT", 0x214, 0x209);
    pair<long, int>(0x22a, "MPI_LONG_INT", 0x20a, 0x209);
    pair<int, int>(0x22b, "MPI_2INT", 0x209, 0x209);
    pair<short, int>(0x22c, "MPI_SHORT_INT", 0x208, 0x209);
    pair<long double, int>(0x22d, "MPI_LONG_DOUBLE_INT", 0x220, 0x209);
    pair<float, float>(0x230, "MPI_2REAL", 0x21a, 0x21a);
    pair<double, double>(0x231, "MPI_2DOUBLE_PRECISION", 0x21c, 0x21c);
    pair<int, int>(0x232, "MPI_2INTEGER", 0x219, 0x219);
  }
};

const datatype* predefined_datatype(uint32_t abi_code) noexcept {
  static const predefined_table table;
  if (abi_code < k_first_code || abi_code >= k_first_code + k_table_size) return nullptr;
  return table.by_code[abi_code - k_first_code];
}

const datatype* value_index_datatype(const datatype& value, const datatype& index) noexcept {
  struct entry {
    uint32_t value, index, pair;
  };
  static constexpr entry k_pairs[] = {
      {0x210, 0x209, 0x228}, {0x214, 0x209, 0x229}, {0x20a, 0x209, 0x22a}, {0x209, 0x209, 0x22b}, {0x208, 0x209, 0x22c},
      {0x220, 0x209, 0x22d}, {0x21a, 0x21a, 0x230}, {0x21c, 0x21c, 0x231}, {0x219, 0x219, 0x232},
  };
  if (!value.is_predefined() || !index.is_predefined()) return nullptr;
  for (const entry& e : k_pairs) {
    if (e.value == value.abi_code() && e.index == index.abi_code()) {
      return predefined_datatype(e.pair);
    }
  }
  return nullptr;
}

}  // namespace baton::core
