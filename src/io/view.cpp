#include "io/view.hpp"

#include <algorithm>

#include "core/datatype.hpp"
#include "io/datarep.hpp"

namespace baton::io {

namespace {
const core::datatype* byte_type() { return core::predefined_datatype(0x247); }  // MPI_BYTE

inline void push_run(std::vector<frun>& out, int64_t off, int64_t len) {
  if (len <= 0) return;
  if (!out.empty() && out.back().off + out.back().len == off) {
    out.back().len += len;
    return;
  }
  out.push_back(frun{off, len});
}

const char* type_label(const core::datatype* t) { return t->name().empty() ? "(derived)" : t->name().c_str(); }

// A view's types must have non-negative, nondecreasing displacements. *end: where the data ends.
errc check_displacements(const core::datatype& t, const char* which, int64_t* end) {
  int64_t prev = 0, last_end = 0;
  for (const core::dt_segment& s : t.segments()) {
    if (s.offset < prev)
      return core::error_set(errc::type,
                             s.offset < 0 ? "the %s has a negative displacement (%lld)"
                                          : "the %s's displacements decrease (to %lld): they must be nondecreasing",
                             which, (long long)s.offset);
    if (s.count > 1 && s.stride < 0)
      return core::error_set(errc::type, "the %s's displacements decrease (stride %lld)", which, (long long)s.stride);
    prev = s.offset + (s.count - 1) * s.stride;
    last_end = std::max(last_end, prev + s.blocklen);
  }
  if (end) *end = last_end;
  return errc::success;
}
}  // namespace

void view_default(view* v) {
  const datarep* native = nullptr;
  (void)datarep_find("native", &native);
  v->disp = 0;
  v->etype = byte_type();
  v->filetype = byte_type();
  v->rep = native;
  v->esize = 1;
  v->fsize = 1;
  v->fextent = 1;
  v->contiguous = true;
  v->first = 0;
}

void view_release(view* v) {
  if (v->etype) v->etype->release();
  if (v->filetype) v->filetype->release();
  v->etype = v->filetype = nullptr;
}

errc view_set(view* v, int64_t disp, const core::datatype* etype, const core::datatype* filetype, const datarep* rep) {
  if (!etype->is_committed()) return core::error_set(errc::type, "the etype %s is not committed", type_label(etype));
  if (!filetype->is_committed())
    return core::error_set(errc::type, "the filetype %s is not committed", type_label(filetype));
  if (disp < 0) return core::error_set(errc::arg, "negative displacement %lld", (long long)disp);
  int64_t esize = 0, fsize = 0;
  if (errc e = datarep_size(*rep, *etype, 1, &esize); e != errc::success) return e;
  if (errc e = datarep_size(*rep, *filetype, 1, &fsize); e != errc::success) return e;
  if (esize <= 0) return core::error_set(errc::type, "the etype %s holds no data", type_label(etype));
  if (fsize <= 0) return core::error_set(errc::type, "the filetype %s holds no data", type_label(filetype));
  if (fsize % esize != 0)
    return core::error_set(errc::type,
                           "the filetype's %lld bytes are not a whole number of etypes of %lld bytes: a filetype "
                           "must be built from the etype",
                           (long long)fsize, (long long)esize);
  // Displacements must be non-negative and nondecreasing (MPI-4.1 14.3), the etype's as the
  // filetype's: the stream then runs forward through the file, which every mapping below relies on.
  int64_t last_end = 0;
  if (errc e = check_displacements(*etype, "etype", nullptr); e != errc::success) return e;
  if (errc e = check_displacements(*filetype, "filetype", &last_end); e != errc::success) return e;
  const auto segs = filetype->segments();
  const bool layout_same = rep->identity() || fsize == filetype->size();
  const bool contiguous = filetype->is_contiguous() || (segs.size() == 1 && segs[0].count == 1);
  if (!layout_same && !contiguous)
    return core::error_set(errc::unsupported_datarep,
                           "data representation \"%s\" changes the size of the filetype's elements and the filetype "
                           "has holes; Baton lays out such views only for contiguous filetypes",
                           rep->name.c_str());
  int64_t extent = filetype->extent();
  const int64_t first = segs.empty() ? 0 : segs[0].offset;
  if (contiguous && !layout_same) extent = fsize;
  if (!contiguous) {
    if (extent <= 0) return core::error_set(errc::type, "the filetype's extent (%lld) is not positive", (long long)extent);
  }
  etype->retain();
  filetype->retain();
  view_release(v);
  v->disp = disp;
  v->etype = etype;
  v->filetype = filetype;
  v->rep = rep;
  v->esize = esize;
  v->fsize = fsize;
  // A contiguous filetype whose extent equals its size is a plain stream; one with a larger
  // extent (a resized contiguous type) leaves holes between instances.
  v->contiguous = contiguous && (extent == fsize);
  v->fextent = extent;
  v->first = first;
  // A tile whose data reaches past the next tile's start (HDF5 makes such filetypes and accesses
  // one tile of them) is legal; an access across such tiles goes backwards in the file.
  v->monotonic = contiguous || last_end <= first + extent;
  return errc::success;
}

void view_runs(const view& v, int64_t pos, int64_t len, std::vector<frun>& out) {
  if (len <= 0) return;
  if (v.contiguous) {
    push_run(out, v.disp + v.first + pos, len);
    return;
  }
  const auto segs = v.filetype->segments();
  if (segs.size() == 1 && segs[0].count == 1) {  // one block per instance
    int64_t inst = pos / v.fsize, in = pos % v.fsize;
    while (len > 0) {
      const int64_t n = std::min(v.fsize - in, len);
      push_run(out, v.disp + inst * v.fextent + v.first + in, n);
      len -= n;
      in = 0;
      ++inst;
    }
    return;
  }
  int64_t inst = pos / v.fsize;
  int64_t rem = pos % v.fsize;
  // The segment holding stream byte `rem` of an instance.
  size_t s = size_t(std::upper_bound(segs.begin(), segs.end(), rem,
                                     [](int64_t r, const core::dt_segment& g) { return r < g.packed_start; }) -
                    segs.begin()) -
             1;
  while (len > 0) {
    const core::dt_segment& g = segs[s];
    const int64_t within = rem - g.packed_start;
    int64_t blk = within / g.blocklen;
    int64_t byte = within % g.blocklen;
    const int64_t base = v.disp + inst * v.fextent + g.offset;
    for (; blk < g.count && len > 0; ++blk) {
      const int64_t n = std::min(g.blocklen - byte, len);
      push_run(out, base + blk * g.stride + byte, n);
      len -= n;
      rem += n;
      byte = 0;
    }
    if (++s == segs.size()) {
      s = 0;
      ++inst;
      rem = 0;
    }
  }
}

int64_t view_file_offset(const view& v, int64_t pos) {
  std::vector<frun> r;
  view_runs(v, pos, 1, r);
  return r.empty() ? v.disp : r[0].off;
}

int64_t view_stream_below(const view& v, int64_t file_off) {
  const int64_t rel = file_off - v.disp - v.first;
  if (rel <= 0) return 0;
  if (v.contiguous) return rel;
  const int64_t inst = rel / v.fextent;
  const int64_t r = rel % v.fextent + v.first;  // offset inside instance `inst`, from its start
  int64_t bytes = inst * v.fsize;
  for (const core::dt_segment& g : v.filetype->segments()) {
    if (r <= g.offset) break;
    const int64_t into = r - g.offset;
    if (g.count == 1 || g.stride == 0) {
      bytes += std::min(into, g.blocklen) * (g.stride == 0 ? g.count : 1);
      continue;
    }
    const int64_t full = std::min(g.count, into / g.stride);
    bytes += full * g.blocklen;
    if (full < g.count) bytes += std::min(into - full * g.stride, g.blocklen);
  }
  return bytes;
}

}  // namespace baton::io
