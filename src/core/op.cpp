// Op objects, the predefined op table, the datatype-code to element-kind map and op_check.
#include <cassert>
#include <new>
#include <type_traits>

#include "core/op.hpp"

namespace baton::core {

namespace {

struct predefined_entry {
  op_kind kind;
  uint32_t code;
  const char* name;
};

// Indexed by op_kind.
constexpr predefined_entry predefined_entries[] = {
    {op_kind::sum, 0x21, "SUM"},         {op_kind::min, 0x22, "MIN"},
    {op_kind::max, 0x23, "MAX"},         {op_kind::prod, 0x24, "PROD"},
    {op_kind::band, 0x28, "BAND"},       {op_kind::bor, 0x29, "BOR"},
    {op_kind::bxor, 0x2a, "BXOR"},       {op_kind::land, 0x30, "LAND"},
    {op_kind::lor, 0x31, "LOR"},         {op_kind::lxor, 0x32, "LXOR"},
    {op_kind::minloc, 0x38, "MINLOC"},   {op_kind::maxloc, 0x39, "MAXLOC"},
    {op_kind::replace, 0x3c, "REPLACE"}, {op_kind::no_op, 0x3d, "NO_OP"},
};
constexpr size_t predefined_count = sizeof predefined_entries / sizeof predefined_entries[0];
static_assert(predefined_count == static_cast<size_t>(op_kind::user));

constexpr bool entries_in_order() {
  for (size_t i = 0; i < predefined_count; ++i) {
    if (static_cast<size_t>(predefined_entries[i].kind) != i) return false;
  }
  return true;
}
static_assert(entries_in_order(), "predefined_entries must be indexed by op_kind");

}  // namespace

// Builds op objects; the constructor is private so that predefined ops stay the only static ones.
struct op_access {
  static op* make_user(user_fn fn, void* ctx, bool commutative, user_ctx_free_fn ctx_free) {
    op* o = new (std::nothrow) op(op_kind::user, 0, commutative);
    if (o == nullptr) return nullptr;
    o->fn_ = fn;
    o->ctx_ = ctx;
    o->ctx_free_ = ctx_free;
    return o;
  }
  static void destroy(const op* o) { delete o; }
  // Every predefined op is commutative (and associative, up to floating-point rounding).
  static constexpr uint32_t code(op_kind k) {
    return predefined_entries[static_cast<size_t>(k)].code;
  }
  static op predefined[predefined_count];  // indexed by op_kind
};

// Constant-initialized, so other translation units may use them during static initialization.
constinit op op_access::predefined[predefined_count] = {
    {op_kind::sum, code(op_kind::sum), true},     {op_kind::min, code(op_kind::min), true},
    {op_kind::max, code(op_kind::max), true},     {op_kind::prod, code(op_kind::prod), true},
    {op_kind::band, code(op_kind::band), true},    {op_kind::bor, code(op_kind::bor), true},
    {op_kind::bxor, code(op_kind::bxor), true},    {op_kind::land, code(op_kind::land), true},
    {op_kind::lor, code(op_kind::lor), true},     {op_kind::lxor, code(op_kind::lxor), true},
    {op_kind::minloc, code(op_kind::minloc), true},  {op_kind::maxloc, code(op_kind::maxloc), true},
    {op_kind::replace, code(op_kind::replace), true}, {op_kind::no_op, code(op_kind::no_op), true},
};

op::~op() {
  if (ctx_free_ != nullptr) ctx_free_(ctx_);
}

namespace {

constexpr const char* kind_names[] = {
    "none",           "int8",           "int16",       "int32",
    "int64",          "uint8",          "uint16",      "uint32",
    "uint64",         "float",          "double",      "long double",
    "float complex",  "double complex", "long double complex",
    "bool",           "logical1",       "logical2",    "logical4",
    "logical8",       "char",           "wchar",       "byte",
    "float_int",      "double_int",     "long_int",    "2int",
    "short_int",      "long_double_int", "2real",      "2double_precision",
};
static_assert(sizeof kind_names / sizeof kind_names[0] == elem_kind_count);

// Kinds of the C types whose size depends on the platform.
template <class T>
constexpr elem_kind signed_kind() {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 1 ? elem_kind::int8
         : sizeof(T) == 2 ? elem_kind::int16
         : sizeof(T) == 4 ? elem_kind::int32
                          : elem_kind::int64;
}
template <class T>
constexpr elem_kind unsigned_kind() {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 1 ? elem_kind::uint8
         : sizeof(T) == 2 ? elem_kind::uint16
         : sizeof(T) == 4 ? elem_kind::uint32
                          : elem_kind::uint64;
}

// Fortran default INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE PRECISION 8 (gfortran defaults).
// AINT, OFFSET and COUNT are 64-bit in the standard ABI.
static_assert(sizeof(void*) == 8, "the standard ABI's AINT/OFFSET/COUNT are 64-bit");

}  // namespace

const char* op::name() const {
  return is_predefined() ? predefined_entries[static_cast<size_t>(kind_)].name : "user op";
}

void op::retain() const {
  if (is_predefined()) return;
  refs_.fetch_add(1, std::memory_order_relaxed);
}

void op::release() const {
  if (is_predefined()) return;
  int32_t before = refs_.fetch_sub(1, std::memory_order_acq_rel);
  assert(before > 0 && "op released more often than retained");
  if (before == 1) op_access::destroy(this);
}

const op* predefined_op(uint32_t abi_code) {
  for (const op& o : op_access::predefined) {
    if (o.abi_code() == abi_code) return &o;
  }
  return nullptr;
}

const op* predefined_op(op_kind k) {
  auto i = static_cast<size_t>(k);
  return i < predefined_count ? &op_access::predefined[i] : nullptr;
}

errc op_create_user(user_fn fn, void* ctx, bool commutative, op** out,
                    user_ctx_free_fn ctx_free) {
  if (fn == nullptr) return error_set(errc::arg, "user op function is null");
  op* o = op_access::make_user(fn, ctx, commutative, ctx_free);
  if (o == nullptr) return error_set(errc::no_mem, "out of memory creating a user op");
  *out = o;
  return errc::success;
}

const char* elem_kind_name(elem_kind k) {
  auto i = static_cast<size_t>(k);
  return i < elem_kind_count ? kind_names[i] : "invalid";
}

elem_kind elem_kind_of_abi_code(uint32_t code) {
  using k = elem_kind;
  switch (code) {
    case 0x201:  // AINT
    case 0x202:  // COUNT
    case 0x203: return k::int64;  // OFFSET
    case 0x208: return signed_kind<short>();
    case 0x209: return signed_kind<int>();
    case 0x20a: return signed_kind<long>();
    case 0x20b: return signed_kind<long long>();
    case 0x20c: return unsigned_kind<unsigned short>();
    case 0x20d: return unsigned_kind<unsigned>();
    case 0x20e: return unsigned_kind<unsigned long>();
    case 0x20f: return unsigned_kind<unsigned long long>();
    case 0x210: return k::float_;
    case 0x212:  // C_FLOAT_COMPLEX (C_COMPLEX)
    case 0x213: return k::float_complex;   // CXX_FLOAT_COMPLEX
    case 0x214: return k::double_;
    case 0x216:  // C_DOUBLE_COMPLEX
    case 0x217: return k::double_complex;  // CXX_DOUBLE_COMPLEX
    case 0x218: return k::logical4;        // LOGICAL
    case 0x219: return k::int32;           // INTEGER
    case 0x21a: return k::float_;          // REAL
    case 0x21b: return k::float_complex;   // COMPLEX
    case 0x21c: return k::double_;         // DOUBLE_PRECISION
    case 0x21d: return k::double_complex;  // DOUBLE_COMPLEX
    case 0x21e: return k::char_;           // CHARACTER
    case 0x220: return k::long_double;
    case 0x224:  // C_LONG_DOUBLE_COMPLEX
    case 0x225: return k::long_double_complex;  // CXX_LONG_DOUBLE_COMPLEX
    case 0x228: return k::float_int;
    case 0x229: return k::double_int;
    case 0x22a: return k::long_int;
    case 0x22b: return k::pair_2int;
    case 0x22c: return k::short_int;
    case 0x22d: return k::long_double_int;
    case 0x230: return k::pair_2real;      // 2REAL
    case 0x231: return k::pair_2double;    // 2DOUBLE_PRECISION
    case 0x232: return k::pair_2integer;   // 2INTEGER
    case 0x238:  // C_BOOL
    case 0x239: return k::bool_;           // CXX_BOOL
    case 0x23c: return k::wchar;           // WCHAR
    case 0x240: return k::int8;            // INT8_T
    case 0x241: return k::uint8;           // UINT8_T
    // C char reduces as the 8-bit integer it is (MPICH and Open MPI do too, and programs such as
    // the OSU benchmarks rely on it); Fortran CHARACTER stays text.
    case 0x243: return std::is_signed_v<char> ? k::int8 : k::uint8;  // CHAR
    case 0x244: return k::signed_char;     // SIGNED_CHAR
    case 0x245: return k::unsigned_char;   // UNSIGNED_CHAR
    case 0x247: return k::byte;            // BYTE
    case 0x248: return k::int16;           // INT16_T
    case 0x249: return k::uint16;          // UINT16_T
    case 0x250: return k::int32;           // INT32_T
    case 0x251: return k::uint32;          // UINT32_T
    case 0x258: return k::int64;           // INT64_T
    case 0x259: return k::uint64;          // UINT64_T
    case 0x2c0: return k::logical1;        // LOGICAL1
    case 0x2c1: return k::int8;            // INTEGER1
    case 0x2c8: return k::logical2;        // LOGICAL2
    case 0x2c9: return k::int16;           // INTEGER2
    case 0x2d0: return k::logical4;        // LOGICAL4
    case 0x2d1: return k::int32;           // INTEGER4
    case 0x2d2: return k::float_;          // REAL4
    case 0x2d3: return k::none;            // COMPLEX4 (two REAL2): no half float here
    case 0x2d8: return k::logical8;        // LOGICAL8
    case 0x2d9: return k::int64;           // INTEGER8
    case 0x2da: return k::double_;         // REAL8
    case 0x2db: return k::float_complex;   // COMPLEX8 (two REAL4)
    case 0x2e3: return k::double_complex;  // COMPLEX16 (two REAL8)
    // PACKED (0x207), REAL2 (0x2ca), LOGICAL16 (0x2e0), INTEGER16 (0x2e1), REAL16 (0x2e2) and
    // COMPLEX32 (0x2eb) have no element kind: 16-byte Fortran kinds and half floats are not
    // supported by the reduction engine (only by user ops).
    default: return k::none;
  }
}

errc op_check(const op& o, elem_kind k, const char* type_name) {
  if (!o.is_predefined()) return errc::success;
  if (op_kernel_lookup(o, k) != nullptr) return errc::success;
  const char* tn = type_name != nullptr ? type_name : elem_kind_name(k);
  if (k == elem_kind::none) {
    return error_set(errc::op,
                     "predefined op %s cannot be applied to datatype %s: it is not built from a "
                     "single predefined element type this library can reduce",
                     o.name(), tn);
  }
  const char* allowed = "";
  switch (o.kind()) {
    case op_kind::min:
    case op_kind::max: allowed = "integer and floating-point types"; break;
    case op_kind::sum:
    case op_kind::prod: allowed = "integer, floating-point and complex types"; break;
    case op_kind::land:
    case op_kind::lor:
    case op_kind::lxor: allowed = "C integer and logical types"; break;
    case op_kind::band:
    case op_kind::bor:
    case op_kind::bxor: allowed = "integer types and BYTE"; break;
    case op_kind::minloc:
    case op_kind::maxloc: allowed = "the pair types (2INT, DOUBLE_INT, ...)"; break;
    default: allowed = "every predefined type"; break;
  }
  if (type_name == nullptr) {
    return error_set(errc::op,
                     "predefined op %s is not defined for elements of type %s: it applies to %s",
                     o.name(), tn, allowed);
  }
  return error_set(errc::op,
                   "predefined op %s is not defined for datatype %s (elements of type %s): it "
                   "applies to %s",
                   o.name(), tn, elem_kind_name(k), allowed);
}

void op_apply(const op& o, elem_kind k, const void* in, void* inout, size_t count) {
  assert(o.is_predefined() && "a user op needs op_apply with a datatype handle");
  op_kernel_fn kern = op_kernel_lookup(o, k);
  assert(kern != nullptr && "op_apply on a pair op_check refuses");
  if (kern != nullptr) kern(in, inout, count);
}

void op_apply(const op& o, elem_kind k, void* datatype_handle, const void* in, void* inout,
              size_t count) {
  if (o.is_predefined()) {
    op_apply(o, k, in, inout, count);
    return;
  }
  if (count == 0) return;
  // The C user function takes a non-const `in`; it must not write to it.
  o.user_function()(const_cast<void*>(in), inout, static_cast<int64_t>(count), datatype_handle,
                    o.user_context());
}

}  // namespace baton::core
