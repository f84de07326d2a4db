// Datatypes (MPI-4.1 chapter 5): constructors with their large-count (_c) forms, commit/free/dup,
// queries, envelope/contents, names, MPI_Pack/Unpack, external32, addresses.
//
// Derived datatype handles are addresses of core objects; the registry of the handles the user
// holds (to_type() refuses a freed or made-up one) and the cache of the MPI_Type_create_f90_*
// types are core's (core/datatype_registry.hpp).
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "abi/abi.hpp"
#include "core/datatype_registry.hpp"

using namespace baton;
using abi::call;
using core::errc;

static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) == sizeof(int64_t),
              "MPI_Count and MPI_Aint are 64-bit in the standard ABI on LP64");

namespace {

errc null_arg(const char* what) {
  return core::error_set(errc::arg, "%s is NULL", what);
}

errc get_type(MPI_Datatype h, const core::datatype** t) {
  *t = abi::to_type(h);
  return *t ? errc::success : errc::type;
}

// Widens an int array of n entries (n >= 0 checked by the caller or the core).
std::vector<int64_t> widen(const int* a, int64_t n) {
  if (a == nullptr || n <= 0) return {};
  return std::vector<int64_t>(a, a + n);
}

// MPI_Count and MPI_Aint arrays (the same type or not, both 64-bit).
template <class T>
const int64_t* as64(const T* a) {
  static_assert(sizeof(T) == sizeof(int64_t));
  return reinterpret_cast<const int64_t*>(a);
}

// Array argument of a constructor: null with a positive count is an error.
errc check_array(const void* a, int64_t n, const char* what) {
  if (a == nullptr && n > 0) return null_arg(what);
  return errc::success;
}

// Runs a constructor `make(datatype**)`; registers and returns the new handle.
template <class Make>
int construct(const char* fn, MPI_Datatype* newtype, bool large_count, Make&& make) {
  if (newtype == nullptr) return abi::raise(fn, nullptr, null_arg("newtype"));
  return call(fn, nullptr, [&] {
    core::datatype* t = nullptr;
    if (errc e = make(&t); e != errc::success) return e;
    if (large_count) t->mark_large_count();
    try {
      core::type_register(t);
    } catch (...) {
      t->release();
      throw;
    }
    *newtype = abi::to_handle(t);
    return errc::success;
  });
}

// ---- constructors shared by the int and large-count forms ----

int contiguous_impl(const char* fn, int64_t count, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    return core::type_contiguous(count, old, out);
  });
}

int vector_impl(const char* fn, int64_t count, int64_t blocklen, int64_t stride, bool bytes, MPI_Datatype oldtype,
                MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    return bytes ? core::type_hvector(count, blocklen, stride, old, out)
                 : core::type_vector(count, blocklen, stride, old, out);
  });
}

enum class indexed_form { indexed, hindexed, indexed_block, hindexed_block };

int indexed_impl(const char* fn, indexed_form form, int64_t count, const int64_t* blocklens, int64_t blocklen,
                 const int64_t* displs, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = abi::check_count(count); e != errc::success) return e;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    switch (form) {
      case indexed_form::indexed:
        return core::type_indexed(count, blocklens, displs, old, out);
      case indexed_form::hindexed:
        return core::type_hindexed(count, blocklens, displs, old, out);
      case indexed_form::indexed_block:
        return core::type_indexed_block(count, blocklen, displs, old, out);
      case indexed_form::hindexed_block:
        return core::type_hindexed_block(count, blocklen, displs, old, out);
    }
    return errc::intern;
  });
}

// The int forms widen their arrays first; count is checked before anything is allocated.
int indexed_int(const char* fn, indexed_form form, int count, const int* blocklens, int blocklen, const int* displs,
                const MPI_Aint* displs_bytes, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (count < 0) return abi::raise(fn, nullptr, abi::check_count(count));
  const bool per_block = form == indexed_form::indexed || form == indexed_form::hindexed;
  if (per_block) {
    if (errc e = check_array(blocklens, count, "array_of_blocklengths"); e != errc::success)
      return abi::raise(fn, nullptr, e);
  }
  if (errc e =
          check_array(displs_bytes ? static_cast<const void*>(displs_bytes) : displs, count, "array_of_displacements");
      e != errc::success)
    return abi::raise(fn, nullptr, e);
  std::vector<int64_t> bl, dl;
  try {
    bl = widen(blocklens, count);
    if (!displs_bytes) dl = widen(displs, count);
  } catch (const std::bad_alloc&) {
    return abi::raise(fn, nullptr, core::error_set(errc::no_mem, "out of memory"));
  }
  return indexed_impl(fn, form, count, per_block ? bl.data() : nullptr, blocklen,
                      displs_bytes ? as64(displs_bytes) : dl.data(), oldtype, newtype, false);
}

int indexed_c(const char* fn, indexed_form form, MPI_Count count, const MPI_Count* blocklens, MPI_Count blocklen,
              const MPI_Count* displs, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (count < 0) return abi::raise(fn, nullptr, abi::check_count(count));
  if (form == indexed_form::indexed || form == indexed_form::hindexed) {
    if (errc e = check_array(blocklens, count, "array_of_blocklengths"); e != errc::success)
      return abi::raise(fn, nullptr, e);
  }
  if (errc e = check_array(displs, count, "array_of_displacements"); e != errc::success)
    return abi::raise(fn, nullptr, e);
  return indexed_impl(fn, form, count, as64(blocklens), blocklen, as64(displs), oldtype, newtype, true);
}

int struct_impl(const char* fn, int64_t count, const int64_t* blocklens, const int64_t* displs,
                const MPI_Datatype* types, MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    if (errc e = abi::check_count(count); e != errc::success) return e;
    if (errc e = check_array(types, count, "array_of_types"); e != errc::success) return e;
    std::vector<const core::datatype*> ts(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      ts[i] = abi::to_type(types[i]);
      if (!ts[i]) {
        const std::string why = core::error_message();
        return core::error_set(errc::type, "array_of_types[%lld]: %s", static_cast<long long>(i), why.c_str());
      }
    }
    return core::type_struct(count, blocklens, displs, ts.data(), out);
  });
}

int resized_impl(const char* fn, MPI_Datatype oldtype, int64_t lb, int64_t extent, MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    return core::type_resized(old, lb, extent, out);
  });
}

errc to_order(int order, core::array_order* o) {
  if (order == MPI_ORDER_C) {
    *o = core::array_order::c;
  } else if (order == MPI_ORDER_FORTRAN) {
    *o = core::array_order::fortran;
  } else {
    return core::error_set(errc::arg, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  return errc::success;
}

int subarray_impl(const char* fn, int ndims, const int64_t* sizes, const int64_t* subsizes, const int64_t* starts,
                  int order, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    core::array_order o{};
    if (errc e = to_order(order, &o); e != errc::success) return e;
    return core::type_subarray(ndims, sizes, subsizes, starts, o, old, out);
  });
}

int darray_impl(const char* fn, int size, int rank, int ndims, const int64_t* gsizes, const int* distribs,
                const int* dargs, const int* psizes, int order, MPI_Datatype oldtype, MPI_Datatype* newtype,
                bool large) {
  return construct(fn, newtype, large, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    core::array_order o{};
    if (errc e = to_order(order, &o); e != errc::success) return e;
    std::vector<core::distribution> ds;
    std::vector<int> da;
    if (ndims > 0 && distribs && dargs) {
      for (int i = 0; i < ndims; ++i) {
        ds.push_back(static_cast<core::distribution>(distribs[i]));
        da.push_back(dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? core::darg_default : dargs[i]);
      }
    }
    return core::type_darray(size, rank, ndims, gsizes, ds.empty() ? nullptr : ds.data(),
                             da.empty() ? nullptr : da.data(), psizes, o, old, out);
  });
}

// ---- envelope / contents ----

struct envelope {
  int64_t ni = 0, na = 0, nl = 0, nd = 0;
  int combiner = MPI_COMBINER_NAMED;
};

envelope envelope_of(const core::datatype& t) {
  envelope v;
  v.combiner = static_cast<int>(t.get_combiner());
  if (t.is_predefined()) return v;
  v.ni = int64_t(t.contents_integers().size());
  v.na = int64_t(t.contents_addresses().size());
  v.nl = int64_t(t.contents_large_counts().size());
  v.nd = int64_t(t.contents_datatypes().size());
  return v;
}

int envelope_impl(const char* fn, MPI_Datatype datatype, envelope* v) {
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  *v = envelope_of(*t);
  return MPI_SUCCESS;
}

// Where the darray's dargs lie among the integers (core keeps darg_default, the ABI DFLT_DARG).
bool is_darg_index(const core::datatype& t, size_t i) {
  if (t.get_combiner() != core::combiner::darray) return false;
  const auto ints = t.contents_integers();
  const auto nd = static_cast<size_t>(ints[2]);
  const size_t first = t.is_large_count() ? 3 + nd : 3 + 2 * nd;
  return i >= first && i < first + nd;
}

int contents_impl(const char* fn, MPI_Datatype datatype, int64_t max_integers, int64_t max_addresses, int64_t max_large,
                  int64_t max_datatypes, int* integers, MPI_Aint* addresses, MPI_Count* large,
                  MPI_Datatype* datatypes) {
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (t->is_predefined()) {
    return abi::raise(
        fn, nullptr,
        core::error_set(errc::type, "%s is predefined (MPI_COMBINER_NAMED): it has no contents", t->name().c_str()));
  }
  const envelope v = envelope_of(*t);
  if (max_integers < v.ni || max_addresses < v.na || max_large < v.nl || max_datatypes < v.nd) {
    return abi::raise(fn, nullptr,
                      core::error_set(errc::arg,
                                      "arrays too small: the type needs %lld integers, %lld addresses, "
                                      "%lld large counts and %lld datatypes",
                                      static_cast<long long>(v.ni), static_cast<long long>(v.na),
                                      static_cast<long long>(v.nl), static_cast<long long>(v.nd)));
  }
  if ((v.ni > 0 && !integers) || (v.na > 0 && !addresses) || (v.nl > 0 && !large) || (v.nd > 0 && !datatypes))
    return abi::raise(fn, nullptr, null_arg("an output array"));
  return call(fn, nullptr, [&] {
    const auto ints = t->contents_integers();
    for (size_t i = 0; i < ints.size(); ++i) {
      integers[i] =
          is_darg_index(*t, i) && ints[i] == core::darg_default ? MPI_DISTRIBUTE_DFLT_DARG : static_cast<int>(ints[i]);
    }
    const auto addrs = t->contents_addresses();
    for (size_t i = 0; i < addrs.size(); ++i) addresses[i] = static_cast<MPI_Aint>(addrs[i]);
    const auto lc = t->contents_large_counts();
    for (size_t i = 0; i < lc.size(); ++i) large[i] = lc[i];
    // Derived components come back as new handles the caller must free; predefined ones do not.
    const auto types = t->contents_datatypes();
    for (size_t i = 0; i < types.size(); ++i) {
      if (!core::type_is_permanent(*types[i])) {
        types[i]->retain();
        try {
          core::type_register(types[i]);
        } catch (...) {
          types[i]->release();
          throw;
        }
      }
      datatypes[i] = abi::to_handle(types[i]);
    }
    return errc::success;
  });
}

// ---- pack / unpack ----

int pack_impl(const char* fn, const void* inbuf, int64_t incount, MPI_Datatype datatype, void* outbuf, int64_t outsize,
              int64_t* position, MPI_Comm comm) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  const core::datatype* t = abi::to_type(datatype);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_count(incount); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_buffer(inbuf, incount, t); e != errc::success) return abi::raise(fn, c, e);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(incount, t->size(), &bytes))
    return abi::raise(fn, c, core::error_set(errc::count, "count %lld is too large", static_cast<long long>(incount)));
  if (*position < 0 || *position > outsize) {
    return abi::raise(fn, c,
                      core::error_set(errc::arg, "position %lld is outside the %lld-byte buffer",
                                      static_cast<long long>(*position), static_cast<long long>(outsize)));
  }
  if (outsize - *position < bytes) {
    return abi::raise(fn, c,
                      core::error_set(errc::truncate, "%lld bytes do not fit at position %lld of a %lld-byte buffer",
                                      static_cast<long long>(bytes), static_cast<long long>(*position),
                                      static_cast<long long>(outsize)));
  }
  if (bytes > 0 && !outbuf) return abi::raise(fn, c, null_arg("outbuf"));
  (void)core::pack_all(inbuf, incount, *t, static_cast<char*>(outbuf) + *position);
  *position += bytes;
  return MPI_SUCCESS;
}

int unpack_impl(const char* fn, const void* inbuf, int64_t insize, int64_t* position, void* outbuf, int64_t outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  const core::datatype* t = abi::to_type(datatype);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_count(outcount); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_buffer(outbuf, outcount, t); e != errc::success) return abi::raise(fn, c, e);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(outcount, t->size(), &bytes))
    return abi::raise(fn, c, core::error_set(errc::count, "count %lld is too large", static_cast<long long>(outcount)));
  if (*position < 0 || *position > insize) {
    return abi::raise(fn, c,
                      core::error_set(errc::arg, "position %lld is outside the %lld-byte buffer",
                                      static_cast<long long>(*position), static_cast<long long>(insize)));
  }
  if (insize - *position < bytes) {
    return abi::raise(
        fn, c,
        core::error_set(errc::truncate, "%lld elements need %lld bytes, only %lld are left after position %lld",
                        static_cast<long long>(outcount), static_cast<long long>(bytes),
                        static_cast<long long>(insize - *position), static_cast<long long>(*position)));
  }
  if (bytes > 0 && !inbuf) return abi::raise(fn, c, null_arg("inbuf"));
  (void)core::unpack_all(static_cast<const char*>(inbuf) + *position, outbuf, outcount, *t);
  *position += bytes;
  return MPI_SUCCESS;
}

int pack_size_impl(const char* fn, int64_t incount, MPI_Datatype datatype, MPI_Comm comm, int64_t* size) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise(fn, nullptr, errc::comm);
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, c, e);
  if (errc e = abi::check_count(incount); e != errc::success) return abi::raise(fn, c, e);
  if (!size) return abi::raise(fn, c, null_arg("size"));
  if (__builtin_mul_overflow(incount, t->size(), size))
    return abi::raise(fn, c, core::error_set(errc::count, "count %lld is too large", static_cast<long long>(incount)));
  return MPI_SUCCESS;
}

errc check_datarep(const char* datarep) {
  if (!datarep) return null_arg("datarep");
  if (std::strcmp(datarep, "external32") != 0)
    return core::error_set(errc::arg, "data representation \"%s\" is not supported (only \"external32\")", datarep);
  return errc::success;
}

int pack_external_impl(const char* fn, const char* datarep, const void* inbuf, int64_t incount, MPI_Datatype datatype,
                       void* outbuf, int64_t outsize, int64_t* position) {
  if (errc e = check_datarep(datarep); e != errc::success) return abi::raise(fn, nullptr, e);
  const core::datatype* t = abi::to_type(datatype);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_count(incount); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_buffer(inbuf, incount, t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::pack_external32(inbuf, incount, *t, outbuf, outsize, position); });
}

int unpack_external_impl(const char* fn, const char* datarep, const void* inbuf, int64_t insize, int64_t* position,
                         void* outbuf, int64_t outcount, MPI_Datatype datatype) {
  if (errc e = check_datarep(datarep); e != errc::success) return abi::raise(fn, nullptr, e);
  const core::datatype* t = abi::to_type(datatype);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_count(outcount); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_buffer(outbuf, outcount, t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return core::unpack_external32(inbuf, insize, position, outbuf, outcount, *t); });
}

int pack_external_size_impl(const char* fn, const char* datarep, int64_t incount, MPI_Datatype datatype,
                            int64_t* size) {
  if (errc e = check_datarep(datarep); e != errc::success) return abi::raise(fn, nullptr, e);
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_count(incount); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!size) return abi::raise(fn, nullptr, null_arg("size"));
  return call(fn, nullptr, [&] {
    if (__builtin_mul_overflow(incount, core::external32_size(*t), size))
      return core::error_set(errc::count, "count %lld is too large", static_cast<long long>(incount));
    return errc::success;
  });
}

// ---- queries ----

template <class Out>
int extent_impl(const char* fn, MPI_Datatype datatype, Out* lb, Out* extent, bool true_extent) {
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!lb || !extent) return abi::raise(fn, nullptr, null_arg(true_extent ? "true_lb or true_extent" : "lb or extent"));
  *lb = static_cast<Out>(true_extent ? t->true_lb() : t->lb());
  *extent = static_cast<Out>(true_extent ? t->true_extent() : t->extent());
  return MPI_SUCCESS;
}

// `out` is the caller's output pointer (checked here; the size goes to *size, a local of the caller).
int size_impl(const char* fn, MPI_Datatype datatype, const void* out, int64_t* size) {
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!out) return abi::raise(fn, nullptr, null_arg("size"));
  *size = t->size();
  return MPI_SUCCESS;
}

}  // namespace


namespace baton::impl {

// ---- constructors ----

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous_impl("MPI_Type_contiguous", count, oldtype, newtype, false);
}
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous_impl("MPI_Type_contiguous_c", count, oldtype, newtype, true);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_vector", count, blocklength, stride, false, oldtype, newtype, false);
}
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_vector_c", count, blocklength, stride, false, oldtype, newtype, true);
}
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_create_hvector", count, blocklength, stride, true, oldtype, newtype, false);
}
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return vector_impl("MPI_Type_create_hvector_c", count, blocklength, stride, true, oldtype, newtype, true);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_int("MPI_Type_indexed", indexed_form::indexed, count, array_of_blocklengths, 0, array_of_displacements,
                     nullptr, oldtype, newtype);
}
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_c("MPI_Type_indexed_c", indexed_form::indexed, count, array_of_blocklengths, 0, array_of_displacements,
                   oldtype, newtype);
}
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_int("MPI_Type_create_hindexed", indexed_form::hindexed, count, array_of_blocklengths, 0, nullptr,
                     array_of_displacements, oldtype, newtype);
}
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_c("MPI_Type_create_hindexed_c", indexed_form::hindexed, count, array_of_blocklengths, 0,
                   array_of_displacements, oldtype, newtype);
}
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  return indexed_int("MPI_Type_create_indexed_block", indexed_form::indexed_block, count, nullptr, blocklength,
                     array_of_displacements, nullptr, oldtype, newtype);
}
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_c("MPI_Type_create_indexed_block_c", indexed_form::indexed_block, count, nullptr, blocklength,
                   array_of_displacements, oldtype, newtype);
}
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_int("MPI_Type_create_hindexed_block", indexed_form::hindexed_block, count, nullptr, blocklength,
                     nullptr, array_of_displacements, oldtype, newtype);
}
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_c("MPI_Type_create_hindexed_block_c", indexed_form::hindexed_block, count, nullptr, blocklength,
                   array_of_displacements, oldtype, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_struct";
  if (count < 0) return abi::raise(fn, nullptr, abi::check_count(count));
  if (errc e = check_array(array_of_blocklengths, count, "array_of_blocklengths"); e != errc::success)
    return abi::raise(fn, nullptr, e);
  if (errc e = check_array(array_of_displacements, count, "array_of_displacements"); e != errc::success)
    return abi::raise(fn, nullptr, e);
  std::vector<int64_t> bl;
  try {
    bl = widen(array_of_blocklengths, count);
  } catch (const std::bad_alloc&) {
    return abi::raise(fn, nullptr, core::error_set(errc::no_mem, "out of memory"));
  }
  return struct_impl(fn, count, bl.data(), as64(array_of_displacements), array_of_types, newtype, false);
}
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_create_struct_c";
  if (count < 0) return abi::raise(fn, nullptr, abi::check_count(count));
  if (errc e = check_array(array_of_blocklengths, count, "array_of_blocklengths"); e != errc::success)
    return abi::raise(fn, nullptr, e);
  if (errc e = check_array(array_of_displacements, count, "array_of_displacements"); e != errc::success)
    return abi::raise(fn, nullptr, e);
  return struct_impl(fn, count, as64(array_of_blocklengths), as64(array_of_displacements), array_of_types, newtype,
                     true);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  return resized_impl("MPI_Type_create_resized", oldtype, lb, extent, newtype, false);
}
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  return resized_impl("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, true);
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::vector<int64_t> sz, sub, st;
  try {
    sz = widen(array_of_sizes, ndims);
    sub = widen(array_of_subsizes, ndims);
    st = widen(array_of_starts, ndims);
  } catch (const std::bad_alloc&) {
    return abi::raise("MPI_Type_create_subarray", nullptr, core::error_set(errc::no_mem, "out of memory"));
  }
  return subarray_impl("MPI_Type_create_subarray", ndims, array_of_sizes ? sz.data() : nullptr,
                       array_of_subsizes ? sub.data() : nullptr, array_of_starts ? st.data() : nullptr, order, oldtype,
                       newtype, false);
}
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return subarray_impl("MPI_Type_create_subarray_c", ndims, as64(array_of_sizes), as64(array_of_subsizes),
                       as64(array_of_starts), order, oldtype, newtype, true);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                            const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  std::vector<int64_t> gs;
  try {
    gs = widen(array_of_gsizes, ndims);
  } catch (const std::bad_alloc&) {
    return abi::raise("MPI_Type_create_darray", nullptr, core::error_set(errc::no_mem, "out of memory"));
  }
  return darray_impl("MPI_Type_create_darray", size, rank, ndims, array_of_gsizes ? gs.data() : nullptr,
                     array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype, false);
}
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return darray_impl("MPI_Type_create_darray_c", size, rank, ndims, as64(array_of_gsizes), array_of_distribs,
                     array_of_dargs, array_of_psizes, order, oldtype, newtype, true);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct("MPI_Type_dup", newtype, false, [&](core::datatype** out) {
    const core::datatype* old = nullptr;
    if (errc e = get_type(oldtype, &old); e != errc::success) return e;
    if (errc e = core::type_dup(old, out); e != errc::success) return e;
    if (errc e = abi::type_copy_attrs(old, *out); e != errc::success) {
      (void)abi::type_delete_attrs(*out);
      (*out)->release();
      *out = nullptr;
      return e;
    }
    return errc::success;
  });
}

// ---- commit / free ----

int MPI_Type_commit(MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_commit";
  if (!datatype) return abi::raise(fn, nullptr, null_arg("datatype"));
  const core::datatype* t = nullptr;
  if (errc e = get_type(*datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return const_cast<core::datatype*>(t)->commit(); });
}

int MPI_Type_free(MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_free";
  if (!datatype) return abi::raise(fn, nullptr, null_arg("datatype"));
  const core::datatype* t = nullptr;
  if (errc e = get_type(*datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (t->is_predefined()) {
    return abi::raise(
        fn, nullptr, core::error_set(errc::type, "%s is a predefined datatype and cannot be freed", t->name().c_str()));
  }
  if (core::type_is_permanent(*t)) {
    return abi::raise(fn, nullptr,
                      core::error_set(errc::type,
                                      "the datatype was made by MPI_Type_create_f90_* (predefined) and cannot be "
                                      "freed"));
  }
  if (core::type_handles(t) == 1) {
    // The user's last handle: the attributes go with it (a failing delete callback keeps the type).
    if (errc e = abi::type_delete_attrs(t); e != errc::success) return abi::raise(fn, nullptr, e);
  }
  if (!core::type_unregister(t)) {
    return abi::raise(fn, nullptr,
                      core::error_set(errc::type, "invalid datatype handle %p (freed or never created)",
                                      static_cast<void*>(*datatype)));
  }
  // Pending requests and types built on it hold their own references.
  t->release();
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

// ---- size and extents ----

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  int64_t s = 0;
  int rc = size_impl("MPI_Type_size", datatype, size, &s);
  if (rc == MPI_SUCCESS) *size = s > INT_MAX ? MPI_UNDEFINED : static_cast<int>(s);
  return rc;
}
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  int64_t s = 0;
  int rc = size_impl("MPI_Type_size_c", datatype, size, &s);
  if (rc == MPI_SUCCESS) *size = s;
  return rc;
}
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  int64_t s = 0;
  int rc = size_impl("MPI_Type_size_x", datatype, size, &s);
  if (rc == MPI_SUCCESS) *size = s;
  return rc;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return extent_impl("MPI_Type_get_extent", datatype, lb, extent, false);
}
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_impl("MPI_Type_get_extent_c", datatype, lb, extent, false);
}
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_impl("MPI_Type_get_extent_x", datatype, lb, extent, false);
}
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return extent_impl("MPI_Type_get_true_extent", datatype, true_lb, true_extent, true);
}
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return extent_impl("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent, true);
}
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return extent_impl("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, true);
}

// ---- envelope and contents ----

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  const char* fn = "MPI_Type_get_envelope";
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return abi::raise(fn, nullptr, null_arg("an output argument"));
  envelope v;
  if (int rc = envelope_impl(fn, datatype, &v); rc != MPI_SUCCESS) return rc;
  if (v.nl > 0) {
    return abi::raise(fn, nullptr,
                      core::error_set(errc::type,
                                      "the datatype was made by a large-count constructor: use "
                                      "MPI_Type_get_envelope_c"));
  }
  *num_integers = static_cast<int>(v.ni);
  *num_addresses = static_cast<int>(v.na);
  *num_datatypes = static_cast<int>(v.nd);
  *combiner = v.combiner;
  return MPI_SUCCESS;
}
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const char* fn = "MPI_Type_get_envelope_c";
  if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
    return abi::raise(fn, nullptr, null_arg("an output argument"));
  envelope v;
  if (int rc = envelope_impl(fn, datatype, &v); rc != MPI_SUCCESS) return rc;
  *num_integers = v.ni;
  *num_addresses = v.na;
  *num_large_counts = v.nl;
  *num_datatypes = v.nd;
  *combiner = v.combiner;
  return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const char* fn = "MPI_Type_get_contents";
  const core::datatype* t = abi::to_type(datatype);
  if (t && !t->contents_large_counts().empty()) {
    return abi::raise(fn, nullptr,
                      core::error_set(errc::type,
                                      "the datatype was made by a large-count constructor: use "
                                      "MPI_Type_get_contents_c"));
  }
  return contents_impl(fn, datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                       array_of_addresses, nullptr, array_of_datatypes);
}
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  return contents_impl("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_large_counts,
                       max_datatypes, array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
}

// ---- names ----

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const char* fn = "MPI_Type_set_name";
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!type_name) return abi::raise(fn, nullptr, null_arg("type_name"));
  return call(fn, nullptr, [&] {
    // Longer names are truncated to what MPI_Type_get_name can return.
    const size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    const_cast<core::datatype*>(t)->set_name(std::string_view(type_name, n));
    return errc::success;
  });
}
int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const char* fn = "MPI_Type_get_name";
  // MPI-4.1 7.10: the null handle has a name too.
  if (datatype == MPI_DATATYPE_NULL && type_name && resultlen) {
    std::strcpy(type_name, "MPI_DATATYPE_NULL");
    *resultlen = static_cast<int>(std::strlen(type_name));
    return MPI_SUCCESS;
  }
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!type_name || !resultlen) return abi::raise(fn, nullptr, null_arg("type_name or resultlen"));
  const std::string& n = t->name();
  const size_t len = std::min<size_t>(n.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, n.data(), len);
  type_name[len] = '\0';
  *resultlen = static_cast<int>(len);
  return MPI_SUCCESS;
}

// ---- predefined type lookups ----

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_match_size";
  if (!datatype) return abi::raise(fn, nullptr, null_arg("datatype"));
  struct entry {
    int typeclass;
    int size;
    MPI_Datatype type;
  };
  // Fortran's sized types are the standard's answer (they are named types of every size).
  static const entry table[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}, {MPIX_TYPECLASS_LOGICAL, 1, MPI_LOGICAL1},
      {MPIX_TYPECLASS_LOGICAL, 2, MPI_LOGICAL2},  {MPIX_TYPECLASS_LOGICAL, 4, MPI_LOGICAL4},
      {MPIX_TYPECLASS_LOGICAL, 8, MPI_LOGICAL8},  {MPIX_TYPECLASS_LOGICAL, 16, MPI_LOGICAL16},
  };
  bool known_class = false;
  for (const entry& e : table) {
    if (e.typeclass != typeclass) continue;
    known_class = true;
    if (e.size == size) {
      *datatype = e.type;
      return MPI_SUCCESS;
    }
  }
  if (!known_class) return abi::raise(fn, nullptr, core::error_set(errc::arg, "unknown type class %d", typeclass));
  return abi::raise(fn, nullptr,
                    core::error_set(errc::arg, "no predefined type of class %d has size %d", typeclass, size));
}

// MPI_Type_create_f90_real/complex/integer (MPI-4.1 19.1.9): the predefined type Fortran's
// SELECTED_REAL_KIND(p, r) / SELECTED_INT_KIND(r) would pick with gfortran's kinds 4, 8, 16 (real)
// and 1, 2, 4, 8, 16 (integer), presented as a predefined-like type whose envelope is
// MPI_COMBINER_F90_* with the arguments as given. The binding picks that predefined type; the core
// keeps one type per (combiner, p, r), made at the first call and kept to the end (never freed:
// MPI_Type_free refuses it, as for a named type; core::type_f90_get).

namespace {

// A negative argument (MPI_UNDEFINED included) asks for nothing, as in Fortran.
MPI_Datatype f90_real_base(int p, int r) {
  const int pp = p < 0 ? 0 : p, rr = r < 0 ? 0 : r;
  if (pp <= 6 && rr <= 37) return MPI_REAL4;
  if (pp <= 15 && rr <= 307) return MPI_REAL8;
  if (pp <= 33 && rr <= 4931) return MPI_REAL16;
  return MPI_DATATYPE_NULL;
}

MPI_Datatype f90_integer_base(int r) {
  const int rr = r < 0 ? 0 : r;
  if (rr <= 2) return MPI_INTEGER1;
  if (rr <= 4) return MPI_INTEGER2;
  if (rr <= 9) return MPI_INTEGER4;
  if (rr <= 18) return MPI_INTEGER8;
  if (rr <= 38) return MPI_INTEGER16;
  return MPI_DATATYPE_NULL;
}

int f90_impl(const char* fn, core::combiner which, int p, int r, MPI_Datatype* newtype) {
  if (!newtype) return abi::raise(fn, nullptr, null_arg("newtype"));
  MPI_Datatype base = MPI_DATATYPE_NULL;
  if (which == core::combiner::f90_integer) {
    base = f90_integer_base(r);
    if (base == MPI_DATATYPE_NULL)
      return abi::raise(fn, nullptr,
                        core::error_set(errc::arg, "no integer kind has a decimal exponent range of %d", r));
  } else {
    if (p < 0 && r < 0)
      return abi::raise(fn, nullptr,
                        core::error_set(errc::arg, "p and r are both MPI_UNDEFINED (one of them is required)"));
    base = f90_real_base(p, r);
    if (base == MPI_DATATYPE_NULL)
      return abi::raise(fn, nullptr,
                        core::error_set(errc::arg, "no real kind has precision %d and decimal exponent range %d", p,
                                        r));
    if (which == core::combiner::f90_complex)
      base = base == MPI_REAL4 ? MPI_COMPLEX8 : base == MPI_REAL8 ? MPI_COMPLEX16 : MPI_COMPLEX32;
  }
  const core::datatype* b = nullptr;
  if (errc e = get_type(base, &b); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    const core::datatype* t = nullptr;
    if (errc e = core::type_f90_get(which, p, r, b, &t); e != errc::success) return e;
    *newtype = abi::to_handle(t);
    return errc::success;
  });
}

}  // namespace

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return f90_impl("MPI_Type_create_f90_real", core::combiner::f90_real, p, r, newtype);
}
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return f90_impl("MPI_Type_create_f90_complex", core::combiner::f90_complex, p, r, newtype);
}
int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return f90_impl("MPI_Type_create_f90_integer", core::combiner::f90_integer, MPI_UNDEFINED, r, newtype);
}

int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type) {
  const char* fn = "MPI_Type_get_value_index";
  const core::datatype *v = nullptr, *i = nullptr;
  if (errc e = get_type(value_type, &v); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = get_type(index_type, &i); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!pair_type) return abi::raise(fn, nullptr, null_arg("pair_type"));
  const core::datatype* p = core::value_index_datatype(*v, *i);
  *pair_type = p ? abi::to_handle(p) : MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

// ---- pack / unpack ----

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  if (!position) return abi::raise("MPI_Pack", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = pack_impl("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm);
  if (rc == MPI_SUCCESS) *position = static_cast<int>(pos);
  return rc;
}
int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                MPI_Count* position, MPI_Comm comm) {
  if (!position) return abi::raise("MPI_Pack_c", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = pack_impl("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, &pos, comm);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
  if (!position) return abi::raise("MPI_Unpack", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = unpack_impl("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm);
  if (rc == MPI_SUCCESS) *position = static_cast<int>(pos);
  return rc;
}
int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
  if (!position) return abi::raise("MPI_Unpack_c", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = unpack_impl("MPI_Unpack_c", inbuf, insize, &pos, outbuf, outcount, datatype, comm);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  int64_t s = 0;
  if (!size) return abi::raise("MPI_Pack_size", nullptr, null_arg("size"));
  int rc = pack_size_impl("MPI_Pack_size", incount, datatype, comm, &s);
  if (rc == MPI_SUCCESS) *size = s > INT_MAX ? MPI_UNDEFINED : static_cast<int>(s);
  return rc;
}
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  int64_t s = 0;
  if (!size) return abi::raise("MPI_Pack_size_c", nullptr, null_arg("size"));
  int rc = pack_size_impl("MPI_Pack_size_c", incount, datatype, comm, &s);
  if (rc == MPI_SUCCESS) *size = s;
  return rc;
}

int MPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  if (!position) return abi::raise("MPI_Pack_external", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = pack_external_impl("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
  if (rc == MPI_SUCCESS) *position = static_cast<MPI_Aint>(pos);
  return rc;
}
int MPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                         MPI_Count outsize, MPI_Count* position) {
  if (!position) return abi::raise("MPI_Pack_external_c", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = pack_external_impl("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
  if (!position) return abi::raise("MPI_Unpack_external", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = unpack_external_impl("MPI_Unpack_external", datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
  if (rc == MPI_SUCCESS) *position = static_cast<MPI_Aint>(pos);
  return rc;
}
int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                           MPI_Count outcount, MPI_Datatype datatype) {
  if (!position) return abi::raise("MPI_Unpack_external_c", nullptr, null_arg("position"));
  int64_t pos = *position;
  int rc = unpack_external_impl("MPI_Unpack_external_c", datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
int MPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  int64_t s = 0;
  if (!size) return abi::raise("MPI_Pack_external_size", nullptr, null_arg("size"));
  int rc = pack_external_size_impl("MPI_Pack_external_size", datarep, incount, datatype, &s);
  if (rc == MPI_SUCCESS) *size = static_cast<MPI_Aint>(s);
  return rc;
}
int MPI_Pack_external_size_c(const char* datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  int64_t s = 0;
  if (!size) return abi::raise("MPI_Pack_external_size_c", nullptr, null_arg("size"));
  int rc = pack_external_size_impl("MPI_Pack_external_size_c", datarep, incount, datatype, &s);
  if (rc == MPI_SUCCESS) *size = s;
  return rc;
}

// ---- addresses ----

int MPI_Get_address(const void* location, MPI_Aint* address) {
  if (!address) return abi::raise("MPI_Get_address", nullptr, null_arg("address"));
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}
// Unsigned arithmetic: addresses may straddle the sign bit without undefined behaviour.
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

}  // namespace baton::impl
