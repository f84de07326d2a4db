#include "transport/self/self.hpp"

#include <algorithm>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/request_bytes.hpp"

namespace baton::transport::self {

namespace {

envelope envelope_of(const request* s, uint64_t cookie) {
  return envelope{s->ctx, s->c->rank, s->tag, s->peer_world, s->total, cookie,
                  s->mode == core::send_mode::synchronous};
}

// Copies the send's data into the matched receive r, in one pass whatever the two datatypes.
void copy_between(const request* s, request* r) {
  const uint64_t n = std::min(s->total, r->total);
  if (s->dt->is_contiguous() && r->dt->is_contiguous()) {
    if (n)
      core::copy_bytes(static_cast<char*>(r->buf) + r->dt->true_lb(),
                       static_cast<const char*>(s->buf) + s->dt->true_lb(), n);
  } else {
    uint64_t bytes = 0;
    (void)core::copy_typed(s->buf, s->count, *s->dt, r->buf, r->count, *r->dt, &bytes);
  }
}

}  // namespace

void ops::send_eager(request* s, uint32_t) {
  const envelope e = envelope_of(s, 0);
  inbound in;
  if (e.len) {
    // No data with the envelope: matching answers with where they go (a posted receive, or the
    // unexpected message's buffer), and they are copied there from the user's buffer.
    in = up::eager_first(e, nullptr, 0);
    if (in.req)
      copy_between(s, in.req);
    else
      core::copy_out(s, 0, in.data, s->total);
  } else {
    up::eager(e, nullptr);
  }
  s->done = s->total;
  up::sent(s, sent_data_out | sent_acked);
  if (e.len) up::eager_end(in);
}

void ops::send_rndv(request* s, uint32_t) {
  up::rndv(envelope_of(s, reinterpret_cast<uint64_t>(s)), rndv_ref{kind::self, 0, reinterpret_cast<uint64_t>(s)});
}

void ops::ack_match(uint32_t, uint64_t cookie) { up::sent(reinterpret_cast<request*>(cookie), sent_acked); }

void ops::cancel_send(request* s, uint32_t) {
  const bool withdrawn = up::withdraw(s->ctx, s->peer_world, s->tag, reinterpret_cast<uint64_t>(s));
  if (withdrawn) s->proto |= sent_data_out | sent_acked;
  up::cancel_answered(s, withdrawn);
}

void ops::rndv_fetch(request* r, uint32_t, uint64_t, const rndv_ref& ref) {
  auto* s = reinterpret_cast<request*>(ref.addr);
  copy_between(s, r);
  r->done = r->msg_len;
  s->done = s->total;
  up::sent(s, sent_data_out | sent_acked);
  up::received(r);
}

}  // namespace baton::transport::self
