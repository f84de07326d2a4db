// Probes and matched probes (MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Imrecv), and the
// look at the unexpected queues that the collectives' mismatch check takes.
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"

namespace baton::p2p {

using core::req_status;

struct message : core::slab_allocated<message> {
  uint32_t magic = message_magic;
  bool no_proc = false;
  unexpected* u = nullptr;
  comm* c = nullptr;
};

namespace {
message g_no_proc = [] {
  message m;
  m.no_proc = true;
  return m;
}();

void probe_status(const unexpected* u, req_status* st) {
  if (!st) return;
  st->source = u->src;
  st->tag = u->tag;
  st->error = errc::success;
  st->cancelled = false;
  st->bytes = u->len;
}

// Takes u off its queue into a new message handle (holding a reference on c) for *msg.
void take_message(match_ctx& m, unexpected* u, comm* c, message** msg, req_status* st) {
  m.remove_uq(u);
  probe_status(u, st);
  auto* msgp = new message;
  msgp->u = u;
  msgp->c = c;
  c->retain();
  *msg = msgp;
}

void null_status(req_status* st) {
  if (!st) return;
  *st = req_status{};
  st->source = proc_null;
  st->tag = any_tag;
}
}  // namespace

message* message_no_proc() { return &g_no_proc; }
// MPI_MESSAGE_NO_PROC is a predefined handle: every other message comes from the slab.
bool message_valid(const message* m) { return m && core::slab_holds<message>(m) && m->magic == message_magic; }

errc iprobe(int source, int tag, comm* c, bool* flag, req_status* st) {
  if (source == proc_null) {
    *flag = true;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  core::progress_poll();
  unexpected* u = ctx_of(c->ctx).find_uq(source, tag);
  *flag = u != nullptr;
  if (u) probe_status(u, st);
  return errc::success;
}

errc probe(int source, int tag, comm* c, req_status* st) {
  if (source == proc_null) {
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  unexpected* found = nullptr;
  match_ctx& m = ctx_of(c->ctx);
  core::progress_wait(g, [&] { return (found = m.find_uq(source, tag)) != nullptr; });
  probe_status(found, st);
  return errc::success;
}

errc improbe(int source, int tag, comm* c, bool* flag, message** msg, req_status* st) {
  if (source == proc_null) {
    *flag = true;
    *msg = &g_no_proc;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  core::progress_poll();
  match_ctx& m = ctx_of(c->ctx);
  unexpected* u = m.find_uq(source, tag);
  *flag = u != nullptr;
  *msg = nullptr;
  if (u) take_message(m, u, c, msg, st);
  return errc::success;
}

errc mprobe(int source, int tag, comm* c, message** msg, req_status* st) {
  if (source == proc_null) {
    *msg = &g_no_proc;
    null_status(st);
    return errc::success;
  }
  core::engine_guard g;
  match_ctx& m = ctx_of(c->ctx);
  unexpected* u = nullptr;
  core::progress_wait(g, [&] { return (u = m.find_uq(source, tag)) != nullptr; });
  take_message(m, u, c, msg, st);
  return errc::success;
}

errc imrecv(void* buf, int64_t count, const datatype* dt, message* msg, request** out) {
  core::engine_guard g;
  if (msg->no_proc) {
    request* r = make_p2p(core::req_kind::recv, buf, count, dt, proc_null, any_tag, core::rt().self);
    r->active = true;
    start_recv(r);
    *out = r;
    return errc::success;
  }
  request* r = make_p2p(core::req_kind::recv, buf, count, dt, msg->u->src, msg->u->tag, msg->c);
  r->active = true;
  r->total = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  unexpected* u = msg->u;
  msg->c->release();
  delete msg;
  deliver_unexpected(r, u);
  *out = r;
  return errc::success;
}


std::vector<waiting_message> unexpected_on(uint32_t ctx) {
  std::vector<waiting_message> out;
  const match_ctx& m = ctx_of(ctx);
  for (const unexpected* u = m.uq_head; u; u = u->next)
    out.push_back(waiting_message{u->src, u->tag, u->len, u->kind == uq_kind::eager ? u->data : nullptr});
  return out;
}

}  // namespace baton::p2p
