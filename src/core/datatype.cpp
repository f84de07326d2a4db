// Derived datatypes: constructors, type map metrics, envelope/contents, and the compiled form.
#include "core/datatype.hpp"

#include <algorithm>
#include <limits>
#include <new>

#include "core/datatype_internal.hpp"

namespace baton::core {

// ---------------------------------------------------------------------------------------------
// Reference counting

void datatype::retain() const noexcept {
  if (is_predefined()) return;
  refs_.fetch_add(1, std::memory_order_relaxed);
}

void datatype::release() const noexcept {
  if (is_predefined()) return;
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

datatype::~datatype() {
  for (datatype* t : types_) t->release();
  if (impl_ != nullptr) impl_->release();
  for (attribute& a : attrs_) a.kv->release();
}

// ---------------------------------------------------------------------------------------------
// Argument checks

namespace {

errc check_old(const datatype* old, const char* what) {
  if (old == nullptr) return error_set(errc::type, "%s: the old datatype is null", what);
  return errc::success;
}

errc check_count(int64_t count, const char* what) {
  if (count < 0) {
    return error_set(errc::count, "%s: count %lld is negative", what, static_cast<long long>(count));
  }
  return errc::success;
}

errc check_blocklen(int64_t bl, int64_t i, const char* what) {
  if (bl < 0) {
    return error_set(errc::arg, "%s: blocklength %lld (block %lld) is negative", what, static_cast<long long>(bl),
                     static_cast<long long>(i));
  }
  return errc::success;
}

errc no_mem(const char* what) {
  return error_set(errc::no_mem, "%s: out of memory", what);
}

// Drops t (not yet handed out) when its type map does not fit in 64-bit byte offsets.
errc check_overflow(datatype* t, const tm_bounds& b, const char* what) {
  if (!b.overflow) return errc::success;
  t->release();
  return error_set(errc::count, "%s: size or extent does not fit in 64 bits", what);
}

// Common body of (h)vector, (h)indexed(_block): blocks of blocklen[i] copies of old at byte
// displacement disp[i].
template <class BlockLen, class Disp>
void fill_blocks(datatype* t, int64_t count, BlockLen bl, Disp disp, const datatype* old, tm_bounds& b) {
  const datatype_view v = datatype_builder::view(*old);
  for (int64_t i = 0; i < count; ++i) b.add(*old, v, disp(i), bl(i), old->extent());
  (void)t;
}

}  // namespace

errc type_contiguous(int64_t count, const datatype* old, datatype** out) {
  const char* what = "contiguous type";
  if (errc e = check_count(count, what); e != errc::success) return e;
  if (errc e = check_old(old, what); e != errc::success) return e;
  datatype* t = datatype_builder::make(combiner::contiguous);
  if (t == nullptr) return no_mem(what);
  tm_bounds b;
  b.add(*old, datatype_builder::view(*old), 0, count, old->extent());
  if (errc e = check_overflow(t, b, what); e != errc::success) return e;
  datatype_builder::finish(t, b, false);
  datatype_builder::ints(t) = {count};
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

namespace {

errc make_vector(combiner c, int64_t count, int64_t blocklen, int64_t stride, int64_t stride_bytes, const datatype* old,
                 datatype** out, const char* what) {
  if (errc e = check_count(count, what); e != errc::success) return e;
  if (errc e = check_blocklen(blocklen, 0, what); e != errc::success) return e;
  if (errc e = check_old(old, what); e != errc::success) return e;
  datatype* t = datatype_builder::make(c);
  if (t == nullptr) return no_mem(what);
  tm_bounds b;
  const datatype_view v = datatype_builder::view(*old);
  // The blocks are at j*stride_bytes, each one blocklen copies at the old extent.
  if (count > 0 && blocklen > 0) {
    tm_bounds block;
    block.add(*old, v, 0, blocklen, old->extent());
    // Replicating the block: bounds of count copies at stride_bytes.
    b = block;
    const int64_t reach = tm_bounds::mul(count - 1, stride_bytes, b.overflow);
    const int64_t lo = std::min<int64_t>(0, reach);
    const int64_t hi = std::max<int64_t>(0, reach);
    if (block.any) {
      b.lb = block.lb + lo;
      b.ub = block.ub + hi;
    }
    if (block.any_data) {
      b.tlb = block.tlb + lo;
      b.tub = block.tub + hi;
    }
    b.size = tm_bounds::mul(block.size, count, b.overflow);
    b.basic_count = tm_bounds::mul(block.basic_count, count, b.overflow);
  }
  if (errc e = check_overflow(t, b, what); e != errc::success) return e;
  datatype_builder::finish(t, b, false);
  if (c == combiner::vector) {
    datatype_builder::ints(t) = {count, blocklen, stride};
  } else {
    datatype_builder::ints(t) = {count, blocklen};
    datatype_builder::addrs(t) = {stride_bytes};
  }
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

}  // namespace

errc type_vector(int64_t count, int64_t blocklen, int64_t stride, const datatype* old, datatype** out) {
  const char* what = "vector type";
  if (errc e = check_old(old, what); e != errc::success) return e;
  int64_t stride_bytes = 0;
  if (__builtin_mul_overflow(stride, old->extent(), &stride_bytes)) {
    return error_set(errc::count, "%s: stride %lld elements does not fit in 64-bit bytes", what,
                     static_cast<long long>(stride));
  }
  return make_vector(combiner::vector, count, blocklen, stride, stride_bytes, old, out, what);
}

errc type_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, const datatype* old, datatype** out) {
  return make_vector(combiner::hvector, count, blocklen, 0, stride_bytes, old, out, "hvector type");
}

namespace {

errc make_indexed(combiner c, int64_t count, const int64_t* blocklens, int64_t blocklen, const int64_t* displs,
                  bool bytes, const datatype* old, datatype** out, const char* what) {
  if (errc e = check_count(count, what); e != errc::success) return e;
  if (errc e = check_old(old, what); e != errc::success) return e;
  const bool per_block = c == combiner::indexed || c == combiner::hindexed;
  if (count > 0 && (displs == nullptr || (per_block && blocklens == nullptr))) {
    return error_set(errc::arg, "%s: null displacement or blocklength array", what);
  }
  if (per_block) {
    for (int64_t i = 0; i < count; ++i) {
      if (errc e = check_blocklen(blocklens[i], i, what); e != errc::success) return e;
    }
  } else if (errc e = check_blocklen(blocklen, 0, what); e != errc::success) {
    return e;
  }
  datatype* t = datatype_builder::make(c);
  if (t == nullptr) return no_mem(what);
  tm_bounds b;
  const int64_t ext = old->extent();
  fill_blocks(
      t, count, [&](int64_t i) { return per_block ? blocklens[i] : blocklen; },
      [&](int64_t i) { return bytes ? displs[i] : tm_bounds::mul(displs[i], ext, b.overflow); }, old, b);
  if (errc e = check_overflow(t, b, what); e != errc::success) return e;
  datatype_builder::finish(t, b, false);
  auto& ints = datatype_builder::ints(t);
  auto& addrs = datatype_builder::addrs(t);
  ints.push_back(count);
  if (per_block) {
    ints.insert(ints.end(), blocklens, blocklens + count);
  } else {
    ints.push_back(blocklen);
  }
  if (bytes) {
    addrs.assign(displs, displs + count);
  } else {
    ints.insert(ints.end(), displs, displs + count);
  }
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

}  // namespace

errc type_indexed(int64_t count, const int64_t blocklens[], const int64_t displs[], const datatype* old,
                  datatype** out) {
  return make_indexed(combiner::indexed, count, blocklens, 0, displs, false, old, out, "indexed type");
}

errc type_hindexed(int64_t count, const int64_t blocklens[], const int64_t displs_bytes[], const datatype* old,
                   datatype** out) {
  return make_indexed(combiner::hindexed, count, blocklens, 0, displs_bytes, true, old, out, "hindexed type");
}

errc type_indexed_block(int64_t count, int64_t blocklen, const int64_t displs[], const datatype* old, datatype** out) {
  return make_indexed(combiner::indexed_block, count, nullptr, blocklen, displs, false, old, out, "indexed block type");
}

errc type_hindexed_block(int64_t count, int64_t blocklen, const int64_t displs_bytes[], const datatype* old,
                         datatype** out) {
  return make_indexed(combiner::hindexed_block, count, nullptr, blocklen, displs_bytes, true, old, out,
                      "hindexed block type");
}

errc type_struct(int64_t count, const int64_t blocklens[], const int64_t displs_bytes[], const datatype* const types[],
                 datatype** out) {
  const char* what = "struct type";
  if (errc e = check_count(count, what); e != errc::success) return e;
  if (count > 0 && (blocklens == nullptr || displs_bytes == nullptr || types == nullptr)) {
    return error_set(errc::arg, "%s: null blocklength, displacement or type array", what);
  }
  for (int64_t i = 0; i < count; ++i) {
    if (errc e = check_blocklen(blocklens[i], i, what); e != errc::success) return e;
    if (types[i] == nullptr) {
      return error_set(errc::type, "%s: datatype of block %lld is null", what, static_cast<long long>(i));
    }
  }
  datatype* t = datatype_builder::make(combiner::struct_);
  if (t == nullptr) return no_mem(what);
  tm_bounds b;
  for (int64_t i = 0; i < count; ++i) {
    b.add(*types[i], datatype_builder::view(*types[i]), displs_bytes[i], blocklens[i], types[i]->extent());
  }
  if (errc e = check_overflow(t, b, what); e != errc::success) return e;
  datatype_builder::finish(t, b, true);
  auto& ints = datatype_builder::ints(t);
  ints.push_back(count);
  ints.insert(ints.end(), blocklens, blocklens + count);
  datatype_builder::addrs(t).assign(displs_bytes, displs_bytes + count);
  for (int64_t i = 0; i < count; ++i) datatype_builder::keep(t, types[i]);
  *out = t;
  return errc::success;
}

errc type_resized(const datatype* old, int64_t lb, int64_t extent, datatype** out) {
  const char* what = "resized type";
  if (errc e = check_old(old, what); e != errc::success) return e;
  datatype* t = datatype_builder::make(combiner::resized);
  if (t == nullptr) return no_mem(what);
  tm_bounds b;
  b.add(*old, datatype_builder::view(*old), 0, 1, 0);
  b.any = true;
  b.expl = true;
  b.lb = lb;
  b.ub = lb + extent;
  datatype_builder::finish(t, b, false);
  datatype_builder::addrs(t) = {lb, extent};
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

errc type_dup(const datatype* old, datatype** out) {
  const char* what = "dup type";
  if (errc e = check_old(old, what); e != errc::success) return e;
  datatype* t = datatype_builder::make(combiner::dup);
  if (t == nullptr) return no_mem(what);
  // A dup has exactly the old type's metrics, padding included.
  datatype_builder::copy_metrics(t, *old);
  datatype_builder::keep(t, old);
  *out = t;
  if (old->is_committed()) return t->commit();
  return errc::success;
}

errc type_f90(combiner which, int64_t p, int64_t r, const datatype* base, datatype** out) {
  const char* what = "f90 type";
  if (errc e = check_old(base, what); e != errc::success) return e;
  if (which != combiner::f90_real && which != combiner::f90_complex && which != combiner::f90_integer)
    return error_set(errc::intern, "f90 type with combiner %d", static_cast<int>(which));
  datatype* t = datatype_builder::make(which);
  if (t == nullptr) return no_mem(what);
  base->retain();
  datatype_builder::adopt(t, const_cast<datatype*>(base));
  auto& ints = datatype_builder::ints(t);
  if (which != combiner::f90_integer) ints.push_back(p);
  ints.push_back(r);
  t->set_name(base->name());
  *out = t;
  return t->commit();
}

// ---------------------------------------------------------------------------------------------
// Subarray and darray, built as an equivalent tree of hvectors, hindexed and resized types.

namespace {

// Takes ownership of *cur and replaces it with f(*cur); releases the old one.
template <class F>
errc chain(datatype** cur, F f) {
  datatype* next = nullptr;
  errc e = f(*cur, &next);
  (*cur)->release();
  *cur = next;
  return e;
}

// Places `inner` (owned) at byte displacement disp and sets lb 0, extent `extent`.
errc place(datatype** cur, int64_t disp, int64_t extent) {
  if (disp != 0) {
    const int64_t one = 1;
    errc e = chain(cur, [&](datatype* t, datatype** o) { return type_hindexed(1, &one, &disp, t, o); });
    if (e != errc::success) return e;
  }
  return chain(cur, [&](datatype* t, datatype** o) { return type_resized(t, 0, extent, o); });
}

}  // namespace

errc type_subarray(int ndims, const int64_t sizes[], const int64_t subsizes[], const int64_t starts[],
                   array_order order, const datatype* old, datatype** out) {
  const char* what = "subarray type";
  if (errc e = check_old(old, what); e != errc::success) return e;
  if (ndims <= 0) return error_set(errc::arg, "%s: ndims %d must be positive", what, ndims);
  if (sizes == nullptr || subsizes == nullptr || starts == nullptr) {
    return error_set(errc::arg, "%s: null sizes, subsizes or starts array", what);
  }
  if (order != array_order::c && order != array_order::fortran) {
    return error_set(errc::arg, "%s: order %d is neither C nor Fortran", what, static_cast<int>(order));
  }
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] <= 0) {
      return error_set(errc::arg, "%s: size %lld of dimension %d must be positive", what,
                       static_cast<long long>(sizes[i]), i);
    }
    if (subsizes[i] <= 0 || subsizes[i] > sizes[i]) {
      return error_set(errc::arg, "%s: subsize %lld of dimension %d is not in [1, %lld]", what,
                       static_cast<long long>(subsizes[i]), i, static_cast<long long>(sizes[i]));
    }
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
      return error_set(errc::arg, "%s: start %lld of dimension %d is not in [0, %lld]", what,
                       static_cast<long long>(starts[i]), i, static_cast<long long>(sizes[i] - subsizes[i]));
    }
  }
  // dims from fastest to slowest varying
  auto dim = [&](int k) { return order == array_order::c ? ndims - 1 - k : k; };
  const int64_t ext = old->extent();
  datatype* cur = nullptr;
  errc e = type_contiguous(subsizes[dim(0)], old, &cur);
  if (e != errc::success) return e;
  int64_t stride = ext * sizes[dim(0)];
  int64_t disp = starts[dim(0)] * ext;
  for (int k = 1; k < ndims && e == errc::success; ++k) {
    const int d = dim(k);
    e = chain(&cur, [&](datatype* t, datatype** o) { return type_hvector(subsizes[d], 1, stride, t, o); });
    disp += starts[d] * stride;
    stride *= sizes[d];
  }
  if (e == errc::success) e = place(&cur, disp, stride);
  if (e != errc::success) {
    if (cur != nullptr) cur->release();
    return e;
  }
  datatype* t = datatype_builder::make(combiner::subarray);
  if (t == nullptr) {
    cur->release();
    return no_mem(what);
  }
  datatype_builder::adopt(t, cur);
  auto& ints = datatype_builder::ints(t);
  ints.push_back(ndims);
  ints.insert(ints.end(), sizes, sizes + ndims);
  ints.insert(ints.end(), subsizes, subsizes + ndims);
  ints.insert(ints.end(), starts, starts + ndims);
  ints.push_back(static_cast<int64_t>(order));
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

namespace {

// One block-distributed dimension (MPI-4.1 5.1.4, as ROMIO/MPICH build it).
errc darray_block(const int64_t gsizes[], int d, int ndims, int nprocs, int rank, int darg, array_order order,
                  int64_t ext, datatype** cur, int64_t* st_offset) {
  const int64_t global = gsizes[d];
  int64_t blksize;
  if (darg == darg_default) {
    blksize = (global + nprocs - 1) / nprocs;
  } else {
    blksize = darg;
    if (blksize <= 0) {
      return error_set(errc::arg, "darray type: block size %d of dimension %d must be positive", darg, d);
    }
    if (blksize * nprocs < global) {
      return error_set(errc::arg,
                       "darray type: block size %d times %d processes does not cover the %lld "
                       "elements of dimension %d",
                       darg, nprocs, static_cast<long long>(global), d);
    }
  }
  int64_t mysize = std::min(blksize, global - blksize * rank);
  if (mysize < 0) mysize = 0;
  const bool fastest = order == array_order::fortran ? d == 0 : d == ndims - 1;
  errc e;
  if (fastest) {
    e = chain(cur, [&](datatype* t, datatype** o) { return type_contiguous(mysize, t, o); });
  } else {
    int64_t stride = ext;
    if (order == array_order::fortran) {
      for (int i = 0; i < d; ++i) stride *= gsizes[i];
    } else {
      for (int i = ndims - 1; i > d; --i) stride *= gsizes[i];
    }
    e = chain(cur, [&](datatype* t, datatype** o) { return type_hvector(mysize, 1, stride, t, o); });
  }
  *st_offset = mysize == 0 ? 0 : blksize * rank;
  return e;
}

errc darray_cyclic(const int64_t gsizes[], int d, int ndims, int nprocs, int rank, int darg, array_order order,
                   int64_t ext, datatype** cur, int64_t* st_offset) {
  int64_t blksize = darg == darg_default ? 1 : darg;
  if (blksize <= 0) {
    return error_set(errc::arg, "darray type: cyclic block size %d of dimension %d must be positive", darg, d);
  }
  const int64_t st_index = rank * blksize;
  const int64_t end_index = gsizes[d] - 1;
  int64_t local = 0;
  if (end_index >= st_index) {
    local = ((end_index - st_index + 1) / (nprocs * blksize)) * blksize;
    const int64_t rem = (end_index - st_index + 1) % (nprocs * blksize);
    local += std::min(rem, blksize);
  }
  const int64_t count = local / blksize;
  const int64_t rem = local % blksize;
  int64_t stride = nprocs * blksize * ext;
  if (order == array_order::fortran) {
    for (int i = 0; i < d; ++i) stride *= gsizes[i];
  } else {
    for (int i = ndims - 1; i > d; --i) stride *= gsizes[i];
  }
  datatype* old = *cur;
  old->retain();
  errc e = chain(cur, [&](datatype* t, datatype** o) { return type_hvector(count, blksize, stride, t, o); });
  if (e == errc::success && rem != 0) {
    const int64_t bl[2] = {1, rem};
    const int64_t disp[2] = {0, count * stride};
    e = chain(cur, [&](datatype* t, datatype** o) {
      const datatype* const types[2] = {t, old};
      return type_struct(2, bl, disp, types, o);
    });
  }
  old->release();
  if (e != errc::success) return e;
  const bool fastest = order == array_order::fortran ? d == 0 : d == ndims - 1;
  if (fastest) {
    e = place(cur, rank * blksize * ext, gsizes[d] * ext);
    *st_offset = 0;
  } else {
    *st_offset = rank * blksize;
  }
  if (local == 0) *st_offset = 0;
  return e;
}

}  // namespace

errc type_darray(int size, int rank, int ndims, const int64_t gsizes[], const distribution distribs[],
                 const int dargs[], const int psizes[], array_order order, const datatype* old, datatype** out) {
  const char* what = "darray type";
  if (errc e = check_old(old, what); e != errc::success) return e;
  if (size <= 0) return error_set(errc::arg, "%s: size %d must be positive", what, size);
  if (rank < 0 || rank >= size) {
    return error_set(errc::rank, "%s: rank %d is not in [0, %d)", what, rank, size);
  }
  if (ndims <= 0) return error_set(errc::arg, "%s: ndims %d must be positive", what, ndims);
  if (gsizes == nullptr || distribs == nullptr || dargs == nullptr || psizes == nullptr) {
    return error_set(errc::arg, "%s: null gsizes, distribs, dargs or psizes array", what);
  }
  if (order != array_order::c && order != array_order::fortran) {
    return error_set(errc::arg, "%s: order %d is neither C nor Fortran", what, static_cast<int>(order));
  }
  int64_t procs = 1;
  for (int i = 0; i < ndims; ++i) {
    if (gsizes[i] <= 0) {
      return error_set(errc::arg, "%s: gsize %lld of dimension %d must be positive", what,
                       static_cast<long long>(gsizes[i]), i);
    }
    if (psizes[i] <= 0) {
      return error_set(errc::arg, "%s: psize %d of dimension %d must be positive", what, psizes[i], i);
    }
    if (distribs[i] != distribution::none && distribs[i] != distribution::block &&
        distribs[i] != distribution::cyclic) {
      return error_set(errc::arg, "%s: distribution %d of dimension %d is unknown", what, static_cast<int>(distribs[i]),
                       i);
    }
    if (distribs[i] == distribution::none && psizes[i] != 1) {
      return error_set(errc::arg, "%s: dimension %d is not distributed but has %d processes", what, i, psizes[i]);
    }
    procs *= psizes[i];
  }
  if (procs != size) {
    return error_set(errc::arg, "%s: the process grid has %lld processes, not %d", what, static_cast<long long>(procs),
                     size);
  }
  // Row-major coordinates of rank in the process grid.
  std::vector<int> coords(ndims);
  {
    int r = rank;
    int64_t rest = size;
    for (int i = 0; i < ndims; ++i) {
      rest /= psizes[i];
      coords[i] = static_cast<int>(r / rest);
      r = static_cast<int>(r % rest);
    }
  }
  const int64_t ext = old->extent();
  std::vector<int64_t> st(ndims, 0);
  datatype* cur = const_cast<datatype*>(old);
  cur->retain();
  errc e = errc::success;
  int64_t slab = ext;  // bytes between consecutive indices of dimension d
  for (int k = 0; k < ndims && e == errc::success; ++k) {
    const int d = order == array_order::fortran ? k : ndims - 1 - k;
    switch (distribs[d]) {
      case distribution::block:
        e = darray_block(gsizes, d, ndims, psizes[d], coords[d], dargs[d], order, ext, &cur, &st[d]);
        break;
      case distribution::cyclic:
        e = darray_cyclic(gsizes, d, ndims, psizes[d], coords[d], dargs[d], order, ext, &cur, &st[d]);
        break;
      case distribution::none:
        e = darray_block(gsizes, d, ndims, 1, 0, darg_default, order, ext, &cur, &st[d]);
        break;
    }
    // The local part of dimensions 0..d spans one index of the next dimension, so that a cyclic
    // block of several indices there steps by whole slabs (ROMIO leaves the extent short here).
    slab *= gsizes[d];
    if (e == errc::success) {
      e = chain(&cur, [&](datatype* t, datatype** o) { return type_resized(t, 0, slab, o); });
    }
  }
  if (e == errc::success) {
    int64_t disp = 0;
    int64_t total = 1;
    if (order == array_order::fortran) {
      disp = st[0];
      for (int i = 1; i < ndims; ++i) {
        total *= gsizes[i - 1];
        disp += total * st[i];
      }
      total *= gsizes[ndims - 1];
    } else {
      disp = st[ndims - 1];
      for (int i = ndims - 2; i >= 0; --i) {
        total *= gsizes[i + 1];
        disp += total * st[i];
      }
      total *= gsizes[0];
    }
    e = place(&cur, disp * ext, total * ext);
  }
  if (e != errc::success) {
    if (cur != nullptr) cur->release();
    return e;
  }
  datatype* t = datatype_builder::make(combiner::darray);
  if (t == nullptr) {
    cur->release();
    return no_mem(what);
  }
  datatype_builder::adopt(t, cur);
  auto& ints = datatype_builder::ints(t);
  ints.push_back(size);
  ints.push_back(rank);
  ints.push_back(ndims);
  ints.insert(ints.end(), gsizes, gsizes + ndims);
  for (int i = 0; i < ndims; ++i) ints.push_back(static_cast<int64_t>(distribs[i]));
  ints.insert(ints.end(), dargs, dargs + ndims);
  ints.insert(ints.end(), psizes, psizes + ndims);
  ints.push_back(static_cast<int64_t>(order));
  datatype_builder::keep(t, old);
  *out = t;
  return errc::success;
}

// ---------------------------------------------------------------------------------------------
// Envelope / contents, large-count layout

void datatype::mark_large_count() {
  if (large_count_ || comb_ == combiner::named || comb_ == combiner::dup) return;
  large_count_ = true;
  if (comb_ == combiner::subarray) {
    const int64_t nd = ints_[0];
    large_.assign(ints_.begin() + 1, ints_.begin() + 1 + 3 * nd);
    c_ints_ = {nd, ints_.back()};
  } else if (comb_ == combiner::darray) {
    const int64_t nd = ints_[2];
    large_.assign(ints_.begin() + 3, ints_.begin() + 3 + nd);
    c_ints_ = ints_;
    c_ints_.erase(c_ints_.begin() + 3, c_ints_.begin() + 3 + nd);
  } else {
    large_ = ints_;
    large_.insert(large_.end(), addrs_.begin(), addrs_.end());
  }
}

}  // namespace baton::core
