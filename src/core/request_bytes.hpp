// Moving bytes between a request's user buffer (count elements of its datatype) and a packed
// stream: the transports' payloads, unexpected-message buffers. Contiguous buffers copy inline;
// others go through a pack cursor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/request.hpp"

namespace baton::core {

void request_unpack_at(request* r, uint64_t off, const void* data, size_t len);
void request_pack_at(const request* r, uint64_t off, void* out, size_t len);

// Copies `len` packed bytes at packed offset `off` into r's buffer; clips at its capacity.
inline void copy_in(request* r, uint64_t off, const void* data, size_t len) {
  if (off >= r->total) return;
  if (len > r->total - off) len = r->total - off;
  if (len == 0) return;
  if (r->dt->is_contiguous()) {
    copy_bytes(static_cast<char*>(r->buf) + r->dt->true_lb() + off, data, len);
  } else {
    request_unpack_at(r, off, data, len);
  }
}

// Copies `len` packed bytes from packed offset `off` of r's buffer to `out`.
inline void copy_out(const request* r, uint64_t off, void* out, size_t len) {
  if (len == 0) return;
  if (r->dt->is_contiguous()) {
    copy_bytes(out, static_cast<const char*>(r->buf) + r->dt->true_lb() + off, len);
  } else {
    request_pack_at(r, off, out, len);
  }
}

}  // namespace baton::core
