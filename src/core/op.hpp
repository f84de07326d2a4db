// Reduction operations: the predefined ops of the standard (section 6.9.2 of MPI-4.1) and user ops.
//
// The engine works on an *element kind*, the C element type an op is applied to, not on a datatype
// object: src/core/datatype.hpp (or src/abi) tells which kind a datatype's basic elements have, and
// this file never needs to know about datatypes. elem_kind_of_abi_code() maps every predefined
// datatype handle value of the MPI-5.0 standard ABI to its kind.
//
// Use:
//   const op* o = predefined_op(abi_op_code);            // nullptr: not a predefined op handle
//   if (errc e = op_check(*o, kind, "DOUBLE"); e != errc::success) return e;   // message set
//   op_apply(*o, kind, in, inout, count);                  // inout[i] = in[i] op inout[i]
// or, in a hot loop, resolve the kernel once and call it per block:
//   op_kernel_fn k = op_kernel_lookup(*o, kind);  // nullptr for user ops and refused pairs
//   k(in, inout, count);
//
// Order of operands. The standard defines the result as `inout = in op inout`: when the collective
// layer combines partial results in rank order, `in` holds the lower ranks' part. This only
// matters for non-commutative (user) ops; the collective layer must keep that order for them and
// may reorder freely when op::is_commutative() is true.
//
// Floating-point MIN and MAX propagate NaN: if either operand is NaN the result is NaN (that
// operand), so the result does not depend on the reduction order or algorithm. For equal operands
// (including -0.0 and +0.0) MIN/MAX keep `inout`. Floating-point SUM and PROD compute each element
// as one IEEE operation `in op inout`, never reassociated or contracted (no FMA), so every build
// of the kernels, SIMD or not, gives the same bits; the reduction order is the collective's choice.
// Signed integer SUM and PROD wrap around modulo 2^N (computed in the unsigned type, no UB).
//
// Logical ops (LAND, LOR, LXOR) treat any nonzero value as true and store 1 or 0, for C integers,
// C/C++ bool and Fortran LOGICAL (true = 1 as gfortran; Intel's -1 is read as true, written as 1).
// MPI_Abi_set_fortran_booleans may give other .TRUE./.FALSE. values (once per process): from then
// on Fortran LOGICAL, LOGICAL1..8 read every value other than .FALSE. as true and store .TRUE. or
// .FALSE. (truncated to the element's size); C integers and bool keep 1 and 0.
//
// MINLOC and MAXLOC work on the predefined pair types {value, index}. The winner has the smaller
// (MINLOC) or larger (MAXLOC) value; on equal values the result keeps the value and takes the
// smaller index, as the standard requires.
//
// Derived datatypes. An op applies to the basic elements of a datatype. When every basic element of
// the datatype's type map has the same kind (contiguous/vector/indexed of DOUBLE, contiguous of
// 2INT, ...), the collective layer works on packed data (or on each contiguous segment) and calls
// op_apply with that kind over basic_count = count * (basic elements per datatype element).
// Datatypes mixing kinds are refused for predefined ops with errc::op (a user-built struct
// {double, int} is not DOUBLE_INT: the standard requires the predefined pair type for MINLOC).
// This holds for REPLACE and NO_OP too: accumulate requires a datatype whose basic components are
// all the same predefined type, whatever the op (section 12.3.4 of MPI-4.1).
// A user op is called once per block with the *datatype handle* and the count of *datatype
// elements* (not basic elements); the kind is ignored. With src/core/datatype.hpp:
//   elem_kind k = dt.basic() ? elem_kind_of_abi_code(dt.basic()->abi_code()) : elem_kind::none;
//   op_check(o, k, dt.name().c_str());  then  op_apply(o, k, in, inout, count * dt.basic_count());
//
// Lifetime. Ops are intrusively reference counted. Predefined ops are static objects: retain() and
// release() do nothing on them. op_create_user() returns a user op holding one reference; the ABI
// layer's op free drops it, and every operation in flight that uses the op holds its own reference.
//
// Thread safety: predefined ops and the kernels are immutable; retain()/release() are atomic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"

namespace baton::core {

// One value per distinct C element type an op can apply to. Types the standard treats the same way
// and that share a C layout share a value (aliases at the end).
enum class elem_kind : uint8_t {
  none = 0,  // no predefined element type (PACKED, REAL16, ..., or not a datatype)
  int8,      // int8_t, signed char, Fortran INTEGER1
  int16,     // short, int16_t, INTEGER2
  int32,     // int, int32_t, INTEGER, INTEGER4
  int64,     // long (LP64), long long, int64_t, INTEGER8, AINT, OFFSET, COUNT
  uint8,     // unsigned char, uint8_t
  uint16,    // unsigned short, uint16_t
  uint32,    // unsigned, uint32_t
  uint64,    // unsigned long, unsigned long long, uint64_t
  float_,    // float, REAL, REAL4
  double_,   // double, DOUBLE PRECISION, REAL8
  long_double,
  float_complex,   // C float _Complex, C++ complex<float>, Fortran COMPLEX, COMPLEX8
  double_complex,  // C double _Complex, C++ complex<double>, DOUBLE COMPLEX, COMPLEX16
  long_double_complex,
  bool_,     // C _Bool, C++ bool (one byte)
  logical1,  // Fortran LOGICAL1 (logical ops only)
  logical2,  // Fortran LOGICAL2
  logical4,  // Fortran LOGICAL, LOGICAL4
  logical8,  // Fortran LOGICAL8
  char_,     // char, Fortran CHARACTER: no reduction op, only REPLACE / NO_OP
  wchar,     // wchar_t: only REPLACE / NO_OP
  byte,      // BYTE: bitwise ops, REPLACE / NO_OP
  // Pair types for MINLOC / MAXLOC: {value, index} with the C layout of struct { V v; I i; }.
  float_int,        // {float, int}
  double_int,       // {double, int}
  long_int,         // {long, int}
  pair_2int,        // {int, int}, also Fortran 2INTEGER
  short_int,        // {short, int}
  long_double_int,  // {long double, int}
  pair_2real,       // {float, float}: Fortran 2REAL
  pair_2double,     // {double, double}: Fortran 2DOUBLE_PRECISION
  count_,           // number of kinds, not a kind

  signed_char = int8,
  unsigned_char = uint8,
  pair_2integer = pair_2int,
  pair_2double_precision = pair_2double,
};

inline constexpr size_t elem_kind_count = static_cast<size_t>(elem_kind::count_);

// The Fortran .TRUE. and .FALSE. the logical ops use for LOGICAL kinds (see above): 1 and 0 with
// is_set false until fortran_booleans_set succeeds.
struct fortran_booleans {
  int64_t true_value = 1;
  int64_t false_value = 0;
  bool is_set = false;
};
fortran_booleans fortran_booleans_get();
// errc::abi when they were set before, errc::arg when the two values are equal (message set).
[[nodiscard]] errc fortran_booleans_set(int64_t true_value, int64_t false_value);

// Size in bytes of one element of `k` (sizeof the C type, pairs with their padding); 0 for none.
size_t elem_kind_size(elem_kind k);

// Readable name of the kind ("double", "2int", "float complex"), for messages.
const char* elem_kind_name(elem_kind k);

// The kind of the elements of a predefined datatype, from its MPI-5.0 standard ABI handle value
// (INT is 0x209, DOUBLE 0x214, ...). elem_kind::none for PACKED, for types this platform lacks
// (REAL2, REAL16, INTEGER16, LOGICAL16, COMPLEX4, COMPLEX32) and for anything else.
elem_kind elem_kind_of_abi_code(uint32_t abi_datatype_code);

// What an op computes (op::abi_code() gives the handle value of a predefined op).
enum class op_kind : uint8_t {
  sum, min, max, prod, band, bor, bxor, land, lor, lxor, minloc, maxloc, replace, no_op, user,
};

// The callback a user op stores, supplied by the ABI layer, which wraps the C user function (or
// its large-count variant) and converts the handle and the count: `datatype_handle` is what the
// caller of op_apply passed (the ABI-level handle), `count` is the number of datatype elements.
// `in` is the first operand, `inout` the second and the result (inout = in op inout). A wrapper for
// the int-count C function must split counts above INT_MAX itself. `ctx` is the value given to
// op_create_user (the ABI layer keeps the user's function pointer there).
using user_fn = void (*)(void* in, void* inout, int64_t count, void* datatype_handle, void* ctx);

// Optional cleanup for `ctx`, called when the last reference to a user op goes away.
using user_ctx_free_fn = void (*)(void* ctx);

// A predefined kernel: inout[i] = in[i] op inout[i] for i < count. `in` and `inout` must not
// overlap; no alignment is required beyond that of the element type.
using op_kernel_fn = void (*)(const void* in, void* inout, size_t count);

class op {
 public:
  op(const op&) = delete;
  op& operator=(const op&) = delete;

  op_kind kind() const { return kind_; }
  bool is_predefined() const { return kind_ != op_kind::user; }
  bool is_commutative() const { return commutative_; }
  // Standard name without prefix ("SUM", "MAXLOC"), "user op" for user ops.
  const char* name() const;
  // The standard ABI handle value of a predefined op (SUM 0x21, ...); 0 for user ops.
  uint32_t abi_code() const { return abi_code_; }

  // Reference counting; no-ops for predefined ops. release() deletes a user op at zero.
  void retain() const;
  void release() const;

  // User ops only.
  user_fn user_function() const { return fn_; }
  void* user_context() const { return ctx_; }

 private:
  friend struct op_access;
  constexpr op(op_kind k, uint32_t abi_code, bool commutative)
      : kind_(k), commutative_(commutative), abi_code_(abi_code) {}
  ~op();

  op_kind kind_;
  bool commutative_;
  uint32_t abi_code_;
  mutable std::atomic<int32_t> refs_{1};
  user_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  user_ctx_free_fn ctx_free_ = nullptr;
};

// The predefined op with this standard ABI handle value (SUM 0x21, MIN 0x22, MAX 0x23, PROD 0x24,
// BAND 0x28, BOR 0x29, BXOR 0x2a, LAND 0x30, LOR 0x31, LXOR 0x32, MINLOC 0x38, MAXLOC 0x39,
// REPLACE 0x3c, NO_OP 0x3d); nullptr for any other value (OP_NULL 0x20 included). No error is set.
const op* predefined_op(uint32_t abi_code);

// The predefined op of a kind (op_kind::user: nullptr).
const op* predefined_op(op_kind k);

// Creates a user op holding one reference. errc::arg if `fn` is null, errc::no_mem on allocation
// failure (message set in both cases).
[[nodiscard]] errc op_create_user(user_fn fn, void* ctx, bool commutative, op** out,
                                  user_ctx_free_fn ctx_free = nullptr);

// Whether the standard defines `o` on elements of kind `k`: MAX/MIN on integers and floating
// point; SUM/PROD on integers, floating point and complex; LAND/LOR/LXOR on integers and logicals
// (bool, Fortran LOGICAL); BAND/BOR/BXOR on integers and BYTE; MINLOC/MAXLOC on the pair types;
// REPLACE/NO_OP on every kind but none. A user op accepts everything (kind none included). The
// integer kinds do not tell C from Fortran integers, so logical ops are accepted on Fortran
// INTEGER too.
// On refusal sets a message naming the op and the type (`type_name` if given, else the kind's
// name) and returns errc::op.
[[nodiscard]] errc op_check(const op& o, elem_kind k, const char* type_name = nullptr);

// The kernel of a predefined op on kind `k`, or nullptr where op_check refuses the pair or `o` is a
// user op. Resolve it once and call it per block in hot loops.
op_kernel_fn op_kernel_lookup(const op& o, elem_kind k);

// inout[i] = in[i] op inout[i] for i < count, with a predefined op. Precondition: op_check(o, k)
// succeeded and `o` is predefined (a user op needs the overload below).
void op_apply(const op& o, elem_kind k, const void* in, void* inout, size_t count);

// Same, for any op: a user op is called as fn(in, inout, count, datatype_handle, ctx) (nothing is
// called for count 0); a predefined op ignores `datatype_handle`.
void op_apply(const op& o, elem_kind k, void* datatype_handle, const void* in, void* inout,
              size_t count);

}  // namespace baton::core
