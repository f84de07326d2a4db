#include "core/request_bytes.hpp"

namespace baton::core {

void request_unpack_at(request* r, uint64_t off, const void* data, size_t len) {
  pack_cursor cur(r->buf, r->count, *r->dt);
  cur.seek(off);
  (void)cur.unpack(data, len);
}

void request_pack_at(const request* r, uint64_t off, void* out, size_t len) {
  pack_cursor cur(r->buf, r->count, *r->dt);
  cur.seek(off);
  (void)cur.pack(out, len);
}

}  // namespace baton::core
