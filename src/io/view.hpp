// File views (MPI-4.1 14.3): a displacement, an etype and a filetype tiled from the displacement.
//
// The data a process sees through its view is a stream: the bytes of the filetype's type map, in
// type map order, instance after instance (instance i starts at disp + i * extent). Positions in
// that stream are bytes in the file's data representation; offsets and file pointers are counted
// in etypes of the stream. The functions here map stream ranges to file byte runs and back, from
// the filetype's compiled segments (core/datatype.hpp), without flattening the filetype: a range
// costs O(log segments + runs it produces).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace baton::core {
class datatype;
}

namespace baton::io {

using core::errc;
struct datarep;

// A contiguous byte range of the file.
struct frun {
  int64_t off;
  int64_t len;
};

struct view {
  int64_t disp = 0;
  const core::datatype* etype = nullptr;     // retained
  const core::datatype* filetype = nullptr;  // retained
  const datarep* rep = nullptr;
  int64_t esize = 1;     // bytes of one etype in the file representation
  int64_t fsize = 1;     // data bytes of one filetype instance in the file
  int64_t fextent = 1;   // distance between instances in the file
  bool contiguous = true;  // the stream is one byte range from disp + first
  int64_t first = 0;       // offset of the filetype's first byte from its instance's start
  bool monotonic = true;   // file offsets never decrease along the stream (tiles do not overlap)
};

// The default view: displacement 0, MPI_BYTE, MPI_BYTE, "native".
void view_default(view* v);
// Checks and sets a view (MPI_File_set_view): committed types, a filetype built of whole etypes
// with non-negative, nondecreasing displacements that holds data. errc::type / errc::arg /
// errc::unsupported_datarep with a message. Retains the new types, releases the old ones.
[[nodiscard]] errc view_set(view* v, int64_t disp, const core::datatype* etype, const core::datatype* filetype,
                            const datarep* rep);
void view_release(view* v);

// Appends to `out` the file runs holding stream bytes [pos, pos + len), in stream order, touching
// runs merged.
void view_runs(const view& v, int64_t pos, int64_t len, std::vector<frun>& out);
// The file offset of stream byte `pos`.
int64_t view_file_offset(const view& v, int64_t pos);
// Stream bytes whose file offset is below `file_off`.
int64_t view_stream_below(const view& v, int64_t file_off);

}  // namespace baton::io
