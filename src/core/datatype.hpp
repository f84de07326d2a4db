// Datatype engine: type maps (MPI-4.1 chapter 5), their compiled form, and pack/unpack.
//
// A datatype is an intrusively refcounted object. Predefined datatypes are static objects, one per
// MPI-5.0 standard ABI handle value (predefined_datatype(0x209) is MPI_INT); retain()/release() on
// them do nothing. A derived datatype is made by one of the type_* constructors below with a
// reference count of 1 (the user's handle), retains its component types for as long as it lives,
// and is deleted when release() drops the count to zero. Whoever keeps a datatype beyond a call
// (a pending request, a persistent plan, a pack_cursor) retains it, so MPI_Type_free on a datatype
// still in use is safe.
//
// Queries work on uncommitted types (a component need not be committed). commit() builds the
// compiled form used by pack_cursor: the type map of one element as a list of segments in type map
// order, each segment `count` blocks of `blocklen` contiguous bytes at offset + k*stride (a plain
// run has count 1). Adjacent runs are merged and equal runs at a constant distance become one
// strided segment, so a vector of a million doubles is one segment and a contiguous type none at
// all. Packing a type that is not committed is a caller error (src/abi checks it); predefined types
// are always committed.
//
// Offsets are bytes relative to the buffer pointer the user passes (type map displacements), so
// data of element i of a buffer buf lies in [buf + i*extent() + true_lb(), ... + true_extent()).
//
// Thread safety: a committed datatype is immutable except for its reference count (atomic) and
// its name (set_name is not synchronised against concurrent get, as in MPI).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/attr.hpp"
#include "core/error.hpp"

namespace baton::core {

// Classification of a predefined element type, for the reduction-op engine and for external32.
enum class basic_kind : uint8_t {
  none = 0,      // derived type with mixed element types, or no elements
  signed_int,    // short, int, long, long long, int8..int64, AINT, OFFSET, COUNT, INTEGER[n]
  unsigned_int,  // unsigned char/short/int/long/long long, uint8..uint64
  floating,      // float, double, long double, REAL[n], DOUBLE PRECISION
  complex,       // C/C++ float/double/long double complex, COMPLEX[n], DOUBLE COMPLEX
  logical,       // C bool, C++ bool, LOGICAL[n]
  byte,          // BYTE, PACKED
  character,     // CHAR, WCHAR, CHARACTER (no arithmetic), signed char counts as signed_int
  pair,          // FLOAT_INT, DOUBLE_INT, LONG_INT, 2INT, SHORT_INT, LONG_DOUBLE_INT, 2REAL, ...
};

// How a datatype was made. Values are those of MPI_COMBINER_* in the MPI-5.0 standard ABI.
enum class combiner : int {
  named = 101,
  dup = 102,
  contiguous = 103,
  vector = 104,
  hvector = 105,
  indexed = 106,
  hindexed = 107,
  indexed_block = 108,
  hindexed_block = 109,
  struct_ = 110,
  subarray = 111,
  darray = 112,
  f90_real = 113,
  f90_complex = 114,
  f90_integer = 115,
  resized = 116,
  value_index = 117,
};

// Array storage order for subarray/darray (values of MPI_ORDER_C / MPI_ORDER_FORTRAN).
enum class array_order : int { c = 12, fortran = 15 };

// Distribution of one darray dimension (values of MPI_DISTRIBUTE_*).
enum class distribution : int { none = 16, block = 17, cyclic = 18 };

// The "default distribution argument" in core: src/abi translates MPI_DISTRIBUTE_DFLT_DARG to it.
inline constexpr int darg_default = -1;

// One compiled segment: `count` blocks of `blocklen` bytes at offset + k*stride, k in [0, count).
// packed_start is the position of its first byte in the packed stream of one element.
struct dt_segment {
  int64_t offset;
  int64_t count;
  int64_t blocklen;
  int64_t stride;
  int64_t packed_start;
};

class datatype {
 public:
  datatype(const datatype&) = delete;
  datatype& operator=(const datatype&) = delete;

  // Reference counting; both are no-ops on predefined types. release() deletes at zero.
  void retain() const noexcept;
  void release() const noexcept;
  int64_t ref_count() const noexcept { return refs_.load(std::memory_order_relaxed); }

  // Type map metrics (bytes). size(): data bytes per element; extent() = ub - lb.
  int64_t size() const noexcept { return size_; }
  int64_t lb() const noexcept { return lb_; }
  int64_t ub() const noexcept { return ub_; }
  int64_t extent() const noexcept { return ub_ - lb_; }
  int64_t true_lb() const noexcept { return true_lb_; }
  int64_t true_ub() const noexcept { return true_ub_; }
  int64_t true_extent() const noexcept { return true_ub_ - true_lb_; }
  // count elements form one contiguous byte range [buf + true_lb, buf + true_lb + count*size):
  // one element has no holes and extent() == size(). Known from commit() on (false before).
  bool is_contiguous() const noexcept { return contiguous_; }
  bool is_committed() const noexcept { return committed_; }
  bool is_predefined() const noexcept { return comb_ == combiner::named; }
  // MPI-5.0 ABI handle value of a predefined type, 0 for a derived one.
  uint32_t abi_code() const noexcept { return abi_code_; }

  // The one predefined type every basic element of the type map has (a pair type counts as one
  // element), or nullptr if they are mixed or there are none. basic_count(): such elements per
  // element of this type. kind() is basic()->kind, or basic_kind::none.
  const datatype* basic() const noexcept { return basic_; }
  int64_t basic_count() const noexcept { return basic_count_; }
  basic_kind kind() const noexcept { return basic_ != nullptr ? basic_->kind_ : basic_kind::none; }

  // Name (MPI_Type_get_name / set_name). Predefined types carry their MPI name, e.g. "MPI_INT".
  const std::string& name() const noexcept { return name_; }
  void set_name(std::string_view n) { name_ = std::string(n); }

  // Cached attributes (MPI_Type_set_attr), in the order first set, predefined types included.
  // src/abi runs the callbacks and serialises access; the destructor drops the keyval references
  // of whatever is left (no callback runs then).
  std::vector<attribute>& attrs() const noexcept { return attrs_; }

  // Commit builds the compiled form. Idempotent; predefined types are born committed.
  [[nodiscard]] errc commit();

  // --- Envelope and contents (MPI_Type_get_envelope / MPI_Type_get_contents) ---
  // The arrays hold the constructor's arguments as the standard lays them out for the combiner:
  // integers (counts, blocklengths, int displacements, ndims, order, ...), addresses (byte
  // displacements and strides), large counts (only for types made by a _c constructor, after
  // mark_large_count()), and datatypes (component types, not retained again by the caller).
  combiner get_combiner() const noexcept { return comb_; }
  std::span<const int64_t> contents_integers() const noexcept {
    return large_count_ ? std::span<const int64_t>(c_ints_) : std::span<const int64_t>(ints_);
  }
  std::span<const int64_t> contents_addresses() const noexcept {
    return large_count_ ? std::span<const int64_t>() : std::span<const int64_t>(addrs_);
  }
  std::span<const int64_t> contents_large_counts() const noexcept { return large_; }
  std::span<datatype* const> contents_datatypes() const noexcept { return types_; }
  // Re-lays the contents out as the large-count (_c) constructor does: src/abi calls it right
  // after creating a type through an MPI_Type_*_c entry point.
  void mark_large_count();
  bool is_large_count() const noexcept { return large_count_; }

  // --- Compiled form (valid once committed) ---
  std::span<const dt_segment> segments() const noexcept { return segs_; }

  // MPI_Get_elements: number of basic elements in the first `packed_bytes` bytes of the packed
  // stream of a message of this type, or -1 when that prefix ends inside a basic element. Here a
  // pair type counts as its two members (MPI_2INT is two ints).
  int64_t elements_in(uint64_t packed_bytes) const;
  // The inverse (MPI_Status_set_elements): bytes of the packed stream that hold its first n basic
  // elements (pair members counted separately, as above).
  int64_t bytes_of_elements(int64_t n) const;

  ~datatype();

 private:
  datatype() = default;
  friend struct datatype_builder;
  friend const datatype* predefined_datatype(uint32_t abi_code) noexcept;
  friend struct predefined_table;

  mutable std::atomic<int64_t> refs_{1};
  combiner comb_ = combiner::named;
  uint32_t abi_code_ = 0;
  basic_kind kind_ = basic_kind::none;  // predefined only
  bool committed_ = false;
  bool contiguous_ = false;
  bool explicit_bounds_ = false;  // lb/ub set by resized (propagate as MPI's LB/UB markers)
  bool large_count_ = false;
  int64_t size_ = 0;
  int64_t lb_ = 0;
  int64_t ub_ = 0;
  int64_t true_lb_ = 0;
  int64_t true_ub_ = 0;
  int64_t align_ = 1;  // strictest alignment of the basic elements (struct padding)
  const datatype* basic_ = nullptr;
  int64_t basic_count_ = 0;
  // Predefined pair types: the two members and the offset of the second.
  const datatype* pair_first_ = nullptr;
  const datatype* pair_second_ = nullptr;
  int64_t pair_second_offset_ = 0;
  int64_t external32_size_ = 0;  // predefined: external32 bytes per element
  std::string name_;
  std::vector<int64_t> ints_;     // integers as the non-large-count constructor lays them out
  std::vector<int64_t> addrs_;    // addresses, likewise
  std::vector<int64_t> large_;    // large-count layout (after mark_large_count)
  std::vector<int64_t> c_ints_;   // integers in the large-count layout
  std::vector<datatype*> types_;  // retained component types (the contents' datatypes)
  datatype* impl_ = nullptr;      // subarray/darray/dup: the equivalent type tree, retained
  std::vector<dt_segment> segs_;  // compiled form (empty for size 0)
  mutable std::vector<attribute> attrs_;

  friend class pack_cursor;
  friend int64_t external32_size(const datatype& t);
};

// The predefined datatype with this MPI-5.0 ABI handle value, or nullptr if there is none
// (MPI_DATATYPE_NULL and unknown codes).
const datatype* predefined_datatype(uint32_t abi_code) noexcept;

// The predefined pair type whose members are (value, index) (MPI_Type_get_value_index), or
// nullptr when there is none.
const datatype* value_index_datatype(const datatype& value, const datatype& index) noexcept;

// --- Constructors (MPI-4.1 5.1.2-5.1.4). On success *out is a new uncommitted datatype with a
// reference count of 1 (type_dup of a committed type is committed). Counts are int64
// (large-count). Errors, each with an error_set() message: errc::count (negative count, or a type
// map whose size/extent leaves int64), errc::arg (negative blocklength, bad ndims/sizes/subsizes/
// starts/order, darray grid or block sizes that do not fit), errc::rank (darray rank outside
// [0, size)), errc::type (null component type), errc::no_mem.
// Displacements of the non-h forms are in multiples of the old type's extent; h forms in bytes.
// Struct pads its extent to the strictest alignment of its basic elements, as C pads a struct,
// unless a component carries explicit bounds (made by type_resized), which propagate like MPI's
// lb/ub markers. Subarray and darray are built internally as trees of hvector/hindexed/resized
// types (ROMIO's construction) but report their own combiner and contents.
[[nodiscard]] errc type_contiguous(int64_t count, const datatype* old, datatype** out);
[[nodiscard]] errc type_vector(int64_t count, int64_t blocklen, int64_t stride, const datatype* old, datatype** out);
[[nodiscard]] errc type_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, const datatype* old,
                                datatype** out);
[[nodiscard]] errc type_indexed(int64_t count, const int64_t blocklens[], const int64_t displs[], const datatype* old,
                                datatype** out);
[[nodiscard]] errc type_hindexed(int64_t count, const int64_t blocklens[], const int64_t displs_bytes[],
                                 const datatype* old, datatype** out);
[[nodiscard]] errc type_indexed_block(int64_t count, int64_t blocklen, const int64_t displs[], const datatype* old,
                                      datatype** out);
[[nodiscard]] errc type_hindexed_block(int64_t count, int64_t blocklen, const int64_t displs_bytes[],
                                       const datatype* old, datatype** out);
[[nodiscard]] errc type_struct(int64_t count, const int64_t blocklens[], const int64_t displs_bytes[],
                               const datatype* const types[], datatype** out);
[[nodiscard]] errc type_resized(const datatype* old, int64_t lb, int64_t extent, datatype** out);
[[nodiscard]] errc type_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[], const int64_t starts[],
                                 array_order order, const datatype* old, datatype** out);
// dargs[i] may be darg_default. The process grid is row-major (C order) whatever `order` is.
[[nodiscard]] errc type_darray(int size, int rank, int ndims, const int64_t gsizes[], const distribution distribs[],
                               const int dargs[], const int psizes[], array_order order, const datatype* old,
                               datatype** out);
[[nodiscard]] errc type_dup(const datatype* old, datatype** out);
// MPI_Type_create_f90_real/complex/integer: a committed type with `base`'s type map (a predefined
// type chosen by src/abi from the precision p and range r) whose envelope says `which` with the
// integers (p, r) (just r for f90_integer) and no datatypes.
[[nodiscard]] errc type_f90(combiner which, int64_t p, int64_t r, const datatype* base, datatype** out);

// --- Resumable pack / unpack over the packed byte stream of (buf, count, type) ---
// The packed stream is the concatenation, in type map order, of the data bytes of count elements
// (count * type.size() bytes, no header). Sequential pack()/unpack() calls cost O(bytes moved);
// seek() costs O(log segments). The cursor retains the type. Allocates nothing.
class pack_cursor {
 public:
  pack_cursor() = default;
  // `base` is the user buffer; a cursor built from a const buffer must only pack().
  pack_cursor(const void* base, int64_t count, const datatype& type) noexcept;
  pack_cursor(pack_cursor&& o) noexcept;
  pack_cursor& operator=(pack_cursor&& o) noexcept;
  pack_cursor(const pack_cursor&) = delete;
  pack_cursor& operator=(const pack_cursor&) = delete;
  ~pack_cursor();

  void reset(const void* base, int64_t count, const datatype& type) noexcept;

  // Packs up to max_bytes next bytes of the stream into out; returns bytes written (less only at
  // the end of the stream).
  size_t pack(void* out, size_t max_bytes) noexcept;
  // Unpacks up to `bytes` bytes from in into the buffer; returns bytes consumed (less only at
  // the end of the stream: the rest is the caller's truncation).
  size_t unpack(const void* in, size_t bytes) noexcept;
  // Moves to a position of the packed stream (clamped to total()).
  void seek(uint64_t packed_offset) noexcept;
  uint64_t position() const noexcept { return pos_; }
  uint64_t total() const noexcept { return total_; }
  bool done() const noexcept { return pos_ >= total_; }

 private:
  template <bool Pack>
  size_t transfer(char* stream, size_t max_bytes) noexcept;
  void drop() noexcept;

  char* base_ = nullptr;
  const datatype* type_ = nullptr;
  uint64_t total_ = 0;
  uint64_t pos_ = 0;
  // Position inside the stream: element, segment, block in segment, byte in block.
  int64_t elem_ = 0;
  size_t seg_ = 0;
  int64_t block_ = 0;
  int64_t byte_ = 0;
  // When the whole message is one strided pattern (one segment per element, repeating at the
  // extent: arrays of a resized or pair type, vectors whose stride tiles the extent), it is moved
  // as flat_count_ blocks and elem_/seg_ stay 0.
  int64_t flat_count_ = 0;
  int64_t flat_offset_ = 0;
  int64_t flat_blocklen_ = 0;
  int64_t flat_stride_ = 0;
};

// Whole-message helpers. pack_all writes count*type.size() bytes to out; unpack_all reads as many.
// Return the number of bytes moved.
size_t pack_all(const void* buf, int64_t count, const datatype& type, void* out) noexcept;
size_t unpack_all(const void* in, void* buf, int64_t count, const datatype& type) noexcept;

// Copies (src, scount, stype) into (dst, dcount, dtype) through their packed streams (type
// signatures are the caller's business). Returns errc::truncate (with a message) when the source
// holds more bytes than the destination; *bytes gets the number of bytes copied. No allocation.
[[nodiscard]] errc copy_typed(const void* src, int64_t scount, const datatype& stype, void* dst, int64_t dcount,
                              const datatype& dtype, uint64_t* bytes) noexcept;

// --- external32 (MPI-4.1 13.5.2): big-endian, the standard's sizes (long is 4 bytes, long double
// is IEEE binary128, ...). Sizes are per element of the type.
int64_t external32_size(const datatype& type);
// Packs count elements at *position of out (outsize bytes); advances *position.
// errc::truncate if they do not fit.
[[nodiscard]] errc pack_external32(const void* in, int64_t count, const datatype& type, void* out, int64_t outsize,
                                   int64_t* position);
// Unpacks count elements from in (insize bytes) at *position; advances *position.
[[nodiscard]] errc unpack_external32(const void* in, int64_t insize, int64_t* position, void* out, int64_t count,
                                     const datatype& type);

}  // namespace baton::core
