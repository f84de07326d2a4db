// external32 (MPI-4.1 13.5.2): big-endian, with the standard's sizes for each predefined type.
#include <climits>
#include <cstring>
#include <cwchar>
#include <limits>

#include "core/datatype.hpp"
#include "core/datatype_internal.hpp"

namespace baton::core {

namespace {

constexpr uint32_t k_long = 0x20a;
constexpr uint32_t k_unsigned_long = 0x20e;
constexpr uint32_t k_wchar = 0x23c;
constexpr uint32_t k_long_double = 0x220;
constexpr uint32_t k_c_long_double_complex = 0x224;
constexpr uint32_t k_cxx_long_double_complex = 0x225;

constexpr bool k_x87 = std::numeric_limits<long double>::digits == 64;

void to_be(const unsigned char* in, unsigned char* out, size_t w) {
  for (size_t i = 0; i < w; ++i) out[i] = in[w - 1 - i];
}

// Integer of `from` native bytes written as `to` big-endian bytes (narrowing keeps low bytes).
void int_to_be(const unsigned char* in, size_t from, unsigned char* out, size_t to) {
  for (size_t i = 0; i < to; ++i) out[to - 1 - i] = i < from ? in[i] : 0;
}

void int_from_be(const unsigned char* in, size_t from, unsigned char* out, size_t to, bool is_signed) {
  const unsigned char fill = is_signed && (in[0] & 0x80) != 0 ? 0xff : 0;
  for (size_t i = 0; i < to; ++i) out[i] = i < from ? in[from - 1 - i] : fill;
}

// x87 80-bit extended (in 16 bytes of memory) <-> IEEE binary128.
void x87_to_quad_be(const unsigned char* in, unsigned char* out) {
  uint64_t m;
  uint16_t se;
  std::memcpy(&m, in, 8);
  std::memcpy(&se, in + 8, 2);
  const uint64_t frac = m & ~(uint64_t{1} << 63);  // 63 fraction bits
  const uint64_t hi = (uint64_t{se} << 48) | (frac >> 15);
  const uint64_t lo = frac << 49;
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<unsigned char>(hi >> (56 - 8 * i));
    out[8 + i] = static_cast<unsigned char>(lo >> (56 - 8 * i));
  }
}

void quad_be_to_x87(const unsigned char* in, unsigned char* out) {
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) {
    hi = (hi << 8) | in[i];
    lo = (lo << 8) | in[8 + i];
  }
  const auto se = static_cast<uint16_t>(hi >> 48);
  const uint64_t frac = ((hi & 0xffffffffffffULL) << 15) | (lo >> 49);
  const uint64_t m = ((se & 0x7fff) != 0 ? uint64_t{1} << 63 : 0) | frac;
  std::memset(out, 0, 16);
  std::memcpy(out, &m, 8);
  std::memcpy(out + 8, &se, 2);
}

void leaf_pack(const datatype& l, const unsigned char* in, unsigned char* out) {
  const auto size = static_cast<size_t>(l.size());
  switch (l.abi_code()) {
    case k_long:
    case k_unsigned_long:
    case k_wchar:
      int_to_be(in, size, out, static_cast<size_t>(external32_size(l)));
      return;
    case k_long_double:
    case k_c_long_double_complex:
    case k_cxx_long_double_complex:
      if (k_x87) {
        for (size_t c = 0; c < size / 16; ++c) x87_to_quad_be(in + 16 * c, out + 16 * c);
        return;
      }
      break;
    default:
      break;
  }
  const size_t w = l.kind() == basic_kind::complex ? size / 2 : size;
  for (size_t c = 0; c < size / w; ++c) to_be(in + c * w, out + c * w, w);
}

void leaf_unpack(const datatype& l, const unsigned char* in, unsigned char* out) {
  const auto size = static_cast<size_t>(l.size());
  switch (l.abi_code()) {
    case k_long:
    case k_unsigned_long:
    case k_wchar:
      int_from_be(in, static_cast<size_t>(external32_size(l)), out, size,
                  l.abi_code() == k_long || (l.abi_code() == k_wchar && WCHAR_MIN < 0));
      return;
    case k_long_double:
    case k_c_long_double_complex:
    case k_cxx_long_double_complex:
      if (k_x87) {
        for (size_t c = 0; c < size / 16; ++c) quad_be_to_x87(in + 16 * c, out + 16 * c);
        return;
      }
      break;
    default:
      break;
  }
  const size_t w = l.kind() == basic_kind::complex ? size / 2 : size;
  for (size_t c = 0; c < size / w; ++c) to_be(in + c * w, out + c * w, w);
}

}  // namespace

int64_t external32_size(const datatype& type) {
  if (type.is_predefined()) return type.external32_size_;
  int64_t n = 0;
  datatype_builder::walk(type, 0, [&](const datatype& l, int64_t) { n += l.external32_size_; });
  return n;
}

errc pack_external32(const void* in, int64_t count, const datatype& type, void* out, int64_t outsize,
                     int64_t* position) {
  if (count < 0) {
    return error_set(errc::count, "external32 pack: count %lld is negative", static_cast<long long>(count));
  }
  const int64_t need = external32_size(type) * count;
  if (*position < 0 || *position + need > outsize) {
    return error_set(errc::truncate, "external32 pack: %lld bytes at position %lld do not fit in %lld bytes",
                     static_cast<long long>(need), static_cast<long long>(*position), static_cast<long long>(outsize));
  }
  auto* o = static_cast<unsigned char*>(out) + *position;
  const auto* base = static_cast<const unsigned char*>(in);
  const int64_t ext = type.extent();
  for (int64_t i = 0; i < count; ++i) {
    datatype_builder::walk(type, i * ext, [&](const datatype& l, int64_t off) {
      leaf_pack(l, base + off, o);
      o += external32_size(l);
    });
  }
  *position += need;
  return errc::success;
}

errc unpack_external32(const void* in, int64_t insize, int64_t* position, void* out, int64_t count,
                       const datatype& type) {
  if (count < 0) {
    return error_set(errc::count, "external32 unpack: count %lld is negative", static_cast<long long>(count));
  }
  const int64_t need = external32_size(type) * count;
  if (*position < 0 || *position + need > insize) {
    return error_set(errc::truncate, "external32 unpack: %lld bytes at position %lld exceed the %lld bytes given",
                     static_cast<long long>(need), static_cast<long long>(*position), static_cast<long long>(insize));
  }
  const auto* p = static_cast<const unsigned char*>(in) + *position;
  auto* base = static_cast<unsigned char*>(out);
  const int64_t ext = type.extent();
  for (int64_t i = 0; i < count; ++i) {
    datatype_builder::walk(type, i * ext, [&](const datatype& l, int64_t off) {
      leaf_unpack(l, p, base + off);
      p += external32_size(l);
    });
  }
  *position += need;
  return errc::success;
}

}  // namespace baton::core
