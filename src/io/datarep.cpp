#include "io/datarep.hpp"

#include <deque>
#include <mutex>

#include "core/datatype.hpp"

namespace baton::io {

namespace {
std::mutex g_mutex;
// A deque: registered representations never move (views point at them).
std::deque<datarep>& registry() {
  static std::deque<datarep> reps = [] {
    std::deque<datarep> d;
    d.push_back(datarep{"native", datarep_kind::native, {}, {}});
    d.push_back(datarep{"internal", datarep_kind::internal, {}, {}});
    d.push_back(datarep{"external32", datarep_kind::external32, {}, {}});
    return d;
  }();
  return reps;
}
}  // namespace

errc datarep_find(const std::string& name, const datarep** out) {
  std::lock_guard<std::mutex> g(g_mutex);
  for (const datarep& r : registry())
    if (r.name == name) {
      *out = &r;
      return errc::success;
    }
  return core::error_set(errc::unsupported_datarep,
                         "unknown data representation \"%s\" (known: native, internal, external32 and those "
                         "registered with MPI_Register_datarep)",
                         name.c_str());
}

errc datarep_register(datarep r) {
  std::lock_guard<std::mutex> g(g_mutex);
  for (const datarep& x : registry())
    if (x.name == r.name)
      return core::error_set(errc::dup_datarep, "the data representation \"%s\" is already defined", r.name.c_str());
  r.kind = datarep_kind::user;
  registry().push_back(std::move(r));
  return errc::success;
}

namespace {
// A user representation sizes a type through its one predefined element type.
errc user_basic_extent(const datarep& r, const core::datatype& t, int64_t* per_basic) {
  const core::datatype* b = t.is_predefined() ? &t : t.basic();
  if (!b)
    return core::error_set(errc::unsupported_datarep,
                           "data representation \"%s\": the datatype mixes several predefined types, which a user "
                           "representation cannot size (use one predefined element type)",
                           r.name.c_str());
  if (!r.file_extent) {
    *per_basic = b->size();
    return errc::success;
  }
  return r.file_extent(b, per_basic);
}
}  // namespace

errc datarep_size(const datarep& r, const core::datatype& t, int64_t count, int64_t* bytes) {
  switch (r.kind) {
    case datarep_kind::native:
    case datarep_kind::internal:
      *bytes = t.size() * count;
      return errc::success;
    case datarep_kind::external32:
      *bytes = core::external32_size(t) * count;
      return errc::success;
    case datarep_kind::user: {
      if (t.size() == 0) {
        *bytes = 0;
        return errc::success;
      }
      int64_t per = 0;
      if (errc e = user_basic_extent(r, t, &per); e != errc::success) return e;
      const core::datatype* b = t.is_predefined() ? &t : t.basic();
      *bytes = per * (t.size() / b->size()) * count;
      return errc::success;
    }
  }
  return errc::success;
}

errc datarep_extent(const datarep& r, const core::datatype& t, int64_t* extent) {
  if (r.kind == datarep_kind::native || r.kind == datarep_kind::internal) {
    *extent = t.extent();
    return errc::success;
  }
  // The extent grows or shrinks with the elements: for a type of one predefined element type that
  // is exact (its displacements are multiples of that element in every constructor but the byte
  // ones); otherwise the file size of the data plus the memory type's holes.
  int64_t fsize = 0;
  if (errc e = datarep_size(r, t, 1, &fsize); e != errc::success) return e;
  if (t.is_predefined()) {
    *extent = fsize;
    return errc::success;
  }
  if (t.size() > 0 && t.basic()) {
    *extent = t.extent() / t.basic()->size() * (fsize / (t.size() / t.basic()->size()));
    return errc::success;
  }
  *extent = t.extent() - t.size() + fsize;
  return errc::success;
}

errc datarep_to_file(const datarep& r, const void* buf, int64_t count, const core::datatype& t, void* out) {
  switch (r.kind) {
    case datarep_kind::native:
    case datarep_kind::internal:
      (void)core::pack_all(buf, count, t, out);
      return errc::success;
    case datarep_kind::external32: {
      int64_t pos = 0;
      return core::pack_external32(buf, count, t, out, core::external32_size(t) * count, &pos);
    }
    case datarep_kind::user:
      if (!r.convert) {
        (void)core::pack_all(buf, count, t, out);
        return errc::success;
      }
      return r.convert(false, const_cast<void*>(buf), &t, count, out, 0);
  }
  return errc::success;
}

errc datarep_from_file(const datarep& r, const void* in, int64_t insize, void* buf, int64_t count,
                       const core::datatype& t) {
  switch (r.kind) {
    case datarep_kind::native:
    case datarep_kind::internal:
      (void)core::unpack_all(in, buf, count, t);
      return errc::success;
    case datarep_kind::external32: {
      int64_t pos = 0;
      return core::unpack_external32(in, insize, &pos, buf, count, t);
    }
    case datarep_kind::user:
      if (!r.convert) {
        (void)core::unpack_all(in, buf, count, t);
        return errc::success;
      }
      return r.convert(true, buf, &t, count, const_cast<void*>(in), 0);
  }
  return errc::success;
}

}  // namespace baton::io
