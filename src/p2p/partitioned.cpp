// Partitioned point-to-point communication (partitioned.hpp has the protocol).
#include "p2p/partitioned.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/p2p.hpp"

namespace baton::p2p {

namespace {

constexpr uint32_t hello_ctx_offset = 1u << 16;              // sender -> receiver: hello
constexpr uint32_t reply_ctx_offset = hello_ctx_offset + 1;  // receiver -> sender: reply; data
// At most this many messages per start: beyond it, neighbouring blocks travel together.
constexpr uint64_t max_messages = 1024;

const core::datatype* byte_type() { return core::predefined_datatype(0x247); }  // MPI_BYTE

// What each end tells the other, once: the sender's hello, the receiver's reply.
struct hello {
  uint64_t total = 0;       // packed bytes of the whole message
  uint64_t part_bytes = 0;  // packed bytes of one partition
  int64_t partitions = 0;
  uint32_t tag_base = 0;  // reply: message j of the pair travels with data_tag(tag_base, j)
  uint32_t pad = 0;
};

// Data tags are negative (below the wildcards), so they never meet a reply's (the user's) tag on
// the same context. Blocks come from a 2^30 cycle, as matched.cpp's wire tags.
int data_tag(uint32_t base, int64_t j) { return -3 - static_cast<int>((base + uint32_t(j)) & 0x3fffffffu); }
uint32_t g_next_tag = 0;  // engine lock

// request::ext of a partitioned request.
struct part_state {
  request* user = nullptr;  // nullptr once freed while the peer's hello/reply is still awaited
  core::comm* c = nullptr;  // retained: the pending receive keeps the contexts reserved
  bool send = false;
  bool proc_null = false;
  bool matched = false;   // the peer's hello (receiver) or reply (sender) arrived
  bool running = false;   // started and not complete
  bool mismatch = false;  // unequal total sizes: one message, MPI_ERR_TRUNCATE at the receiver
  int peer = 0;
  int tag = 0;
  hello mine;
  hello theirs;
  request* rx = nullptr;  // the pending hello/reply receive
  errc link_error = errc::success;
  // Layout, once matched: k messages of per_msg partitions of this end each (the last may hold
  // fewer).
  int64_t k = 0;
  int64_t per_msg = 0;
  uint32_t tag_base = 0;
  // The current start.
  std::vector<uint8_t> ready;    // send: partitions marked ready
  std::vector<int64_t> waiting;  // send: partitions of each message not ready yet
  std::vector<uint8_t> arrived;  // recv: messages complete
  int64_t outstanding = 0;       // messages of this start not complete
  uint64_t bytes = 0;
  errc error = errc::success;
  part_state* onext = nullptr;  // orphans (freed, peer's answer pending)
  part_state* oprev = nullptr;
};

part_state* g_orphans = nullptr;  // engine lock

void orphan_push(part_state* st) {
  st->oprev = nullptr;
  st->onext = g_orphans;
  if (g_orphans) g_orphans->oprev = st;
  g_orphans = st;
}

void orphan_remove(part_state* st) {
  if (st->oprev) st->oprev->onext = st->onext; else g_orphans = st->onext;
  if (st->onext) st->onext->oprev = st->oprev;
  st->onext = st->oprev = nullptr;
}

void delete_state(part_state* st) {
  st->c->release();
  delete st;
}

part_state* state_of(const request* r) { return static_cast<part_state*>(r->ext); }

// Both ends compute the same split from the two partitionings: blocks of lcm(sender partition
// bytes, receiver partition bytes), joined so that there are at most max_messages messages.
void set_layout(part_state* st) {
  const hello& s = st->send ? st->mine : st->theirs;
  const hello& r = st->send ? st->theirs : st->mine;
  st->mismatch = s.total != r.total;
  if (st->mismatch || s.total == 0) {
    st->k = 1;
    st->per_msg = st->mine.partitions;
    return;
  }
  const uint64_t block = s.part_bytes / std::gcd(s.part_bytes, r.part_bytes) * r.part_bytes;  // divides total
  const uint64_t blocks = s.total / block;
  const uint64_t join = (blocks + max_messages - 1) / max_messages;
  st->k = static_cast<int64_t>((blocks + join - 1) / join);
  st->per_msg = static_cast<int64_t>(join * (block / st->mine.part_bytes));
}

int64_t msg_parts(const part_state* st, int64_t j) {
  return std::min(st->mine.partitions, (j + 1) * st->per_msg) - j * st->per_msg;
}

void* msg_addr(const request* u, const part_state* st, int64_t j) {
  return static_cast<char*>(u->buf) + j * st->per_msg * u->count * u->dt->extent();
}

void finish(part_state* st) {
  request* u = st->user;
  st->running = false;
  u->status = core::req_status{};
  errc e = st->link_error != errc::success ? st->link_error : st->error;
  if (!st->send) {
    u->status.source = st->peer;
    u->status.tag = st->tag;
    u->status.bytes = st->bytes;
    if (st->mismatch && e == errc::success)
      e = core::error_set(errc::truncate,
                          "partitioned message of %llu bytes from rank %d (tag %d) into a partitioned receive of "
                          "%llu bytes: the total sizes must be equal",
                          (unsigned long long)st->theirs.total, st->peer, st->tag,
                          (unsigned long long)st->mine.total);
  }
  u->status.error = e;
  complete_request(u);
}

void on_data_done(request* q) {
  part_state* st = state_of(q);
  if (q->status.error != errc::success && st->error == errc::success) st->error = q->status.error;
  if (!st->send) {
    st->arrived[q->step] = 1;
    st->bytes += q->status.bytes;
  }
  core::request_delete(q);
  if (--st->outstanding == 0) finish(st);
}

void send_message(part_state* st, int64_t j) {
  request* u = st->user;
  (void)start_internal(core::req_kind::send, msg_addr(u, st, j), msg_parts(st, j) * u->count, u->dt, st->peer,
                       data_tag(st->tag_base, j), st->c, st->c->ctx + reply_ctx_offset, on_data_done, st,
                       static_cast<uint32_t>(j));
}

void post_message(part_state* st, int64_t j) {
  request* u = st->user;
  (void)start_internal(core::req_kind::recv, msg_addr(u, st, j), msg_parts(st, j) * u->count, u->dt, st->peer,
                       data_tag(st->tag_base, j), st->c, st->c->ctx + reply_ctx_offset, on_data_done, st,
                       static_cast<uint32_t>(j));
}

// Started and matched: the receiver posts every message's receive; the sender sends the messages
// whose partitions are all ready (the rest go from MPI_Pready).
void begin_round(part_state* st) {
  st->outstanding = st->k;
  if (st->send) {
    st->waiting.assign(static_cast<size_t>(st->k), 0);
    for (int64_t j = 0; j < st->k; ++j) st->waiting[size_t(j)] = msg_parts(st, j);
    for (int64_t p = 0; p < st->mine.partitions; ++p)
      if (st->ready[size_t(p)]) --st->waiting[size_t(p / st->per_msg)];
    for (int64_t j = 0; j < st->k; ++j)
      if (st->waiting[size_t(j)] == 0) send_message(st, j);
  } else {
    st->arrived.assign(static_cast<size_t>(st->k), 0);
    for (int64_t j = 0; j < st->k; ++j) post_message(st, j);
  }
}

void on_hello_sent(request* q) {
  delete static_cast<hello*>(q->ext);
  core::request_delete(q);
}

void send_hello(part_state* st, uint32_t ctx_offset) {
  auto* h = new hello(st->mine);
  (void)start_internal(core::req_kind::send, h, sizeof(hello), byte_type(), st->peer, st->tag, st->c,
                       st->c->ctx + ctx_offset, on_hello_sent, h, 0);
}

// The peer's hello (at the receiver) or reply (at the sender) arrived: the pair is matched.
void on_peer_answer(request* q) {
  part_state* st = state_of(q);
  if (q->status.error != errc::success) st->link_error = q->status.error;
  core::request_delete(q);
  st->rx = nullptr;
  st->matched = true;
  set_layout(st);
  if (st->send) {
    st->tag_base = st->theirs.tag_base;
  } else {
    // A freed receive still answers: the sender's later pairs on this tag count on it.
    st->tag_base = g_next_tag;
    g_next_tag += static_cast<uint32_t>(st->k);
    st->mine.tag_base = st->tag_base;
    send_hello(st, reply_ctx_offset);
  }
  if (!st->user) {
    orphan_remove(st);
    delete_state(st);
    return;
  }
  if (st->running) begin_round(st);
}

// ---- request hooks ----

errc refuse_active_free(request* r) {
  if (r->active)
    return core::error_set(errc::request,
                           "an active partitioned request cannot be freed: complete it first (MPI_Wait, MPI_Test, "
                           "...)");
  return errc::success;
}

errc refuse_cancel(request*) {
  return core::error_set(errc::request, "a partitioned request cannot be cancelled");
}

// MPI_Start / MPI_Startall (p2p::start marked the request active).
errc on_start(request* u) {
  core::engine_guard g;
  part_state* st = state_of(u);
  u->complete.store(false, std::memory_order_relaxed);
  u->status = core::req_status{};
  st->error = errc::success;
  st->bytes = 0;
  if (st->send) std::fill(st->ready.begin(), st->ready.end(), uint8_t(0));
  if (st->proc_null) {
    u->status.source = proc_null;
    u->status.tag = any_tag;
    complete_request(u);
    return errc::success;
  }
  st->running = true;
  if (st->matched) begin_round(st);
  core::progress_new_work();
  return errc::success;
}

// The request object goes (engine lock held): a state whose peer has not answered yet stays
// until the answer comes, so that the pairs after it on the same tag still match correctly.
void on_destroy(request* u) {
  part_state* st = state_of(u);
  if (!st) return;
  u->ext = nullptr;
  if (st->rx) {
    st->user = nullptr;
    orphan_push(st);
    return;
  }
  delete_state(st);
}

const core::request_ops part_ops{refuse_active_free, refuse_cancel, on_start, on_destroy, nullptr};

errc part_init(bool send, void* buf, int partitions, int64_t count, const core::datatype* dt, int peer, int tag,
               core::comm* c, request** out) {
  core::engine_guard g;
  request* u = core::request_new(core::req_kind::partitioned);
  u->buf = buf;
  u->count = count;
  u->dt = dt;
  const_cast<core::datatype*>(dt)->retain();
  u->c = c;
  c->retain();
  u->ctx = c->ctx;
  u->peer = peer;
  u->tag = tag;
  u->persistent = true;
  u->ops = &part_ops;
  u->mark_complete();  // an inactive request tests complete
  auto* st = new part_state;
  st->user = u;
  st->c = c;
  c->retain();
  st->send = send;
  st->peer = peer;
  st->tag = tag;
  st->mine.partitions = partitions;
  st->mine.part_bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt->size());
  st->mine.total = static_cast<uint64_t>(partitions) * st->mine.part_bytes;
  if (send) st->ready.assign(static_cast<size_t>(partitions), 0);
  u->ext = st;
  *out = u;
  if (peer == proc_null) {
    st->proc_null = true;
    return errc::success;
  }
  // The answer may be there already (a send to oneself): the callback then ran inside.
  request* rx = start_internal(core::req_kind::recv, &st->theirs, sizeof(hello), byte_type(), peer, tag, c,
                               c->ctx + (send ? reply_ctx_offset : hello_ctx_offset), on_peer_answer, st, 0);
  if (!st->matched) st->rx = rx;
  if (send) send_hello(st, hello_ctx_offset);
  core::progress_new_work();
  return errc::success;
}

// Runs `part(i)` for i in [0, n): marks every partition ready, or none.
template <class Part>
errc mark_ready(request* r, int64_t n, Part part) {
  core::engine_guard g;
  if (!is_partitioned(r))
    return core::error_set(errc::request, "the request is not a partitioned request (MPI_Psend_init)");
  part_state* st = state_of(r);
  if (!st->send)
    return core::error_set(errc::request,
                           "the request is a partitioned receive: partitions are marked ready on partitioned sends");
  if (!r->active)
    return core::error_set(errc::request,
                           "the partitioned send request is inactive: start it (MPI_Start) before marking partitions "
                           "ready");
  const int64_t parts = st->mine.partitions;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = part(i);
    errc e = errc::success;
    if (p < 0 || p >= parts)
      e = core::error_set(errc::arg, "partition %lld is out of range: the request has %lld partitions", (long long)p,
                          (long long)parts);
    else if (st->ready[size_t(p)])
      e = core::error_set(errc::arg, "partition %lld is already marked ready in this start", (long long)p);
    if (e != errc::success) {
      for (int64_t x = 0; x < i; ++x) st->ready[size_t(part(x))] = 0;
      return e;
    }
    st->ready[size_t(p)] = 1;
  }
  if (st->running && st->matched) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = part(i) / st->per_msg;
      if (--st->waiting[size_t(j)] == 0) send_message(st, j);
    }
    core::progress_new_work();
  }
  return errc::success;
}

}  // namespace

bool is_partitioned(const request* r) { return r->kind == core::req_kind::partitioned; }

errc psend_init(const void* buf, int partitions, int64_t count, const core::datatype* dt, int dest, int tag,
                core::comm* c, request** out) {
  return part_init(true, const_cast<void*>(buf), partitions, count, dt, dest, tag, c, out);
}

errc precv_init(void* buf, int partitions, int64_t count, const core::datatype* dt, int source, int tag, core::comm* c,
                request** out) {
  return part_init(false, buf, partitions, count, dt, source, tag, c, out);
}

errc pready_list(request* r, const int* parts, int n) {
  return mark_ready(r, n, [parts](int64_t i) { return int64_t(parts[i]); });
}

errc pready_range(request* r, int low, int high) {
  if (low > high) {
    return core::error_set(errc::arg, "empty partition range: partition_low %d is above partition_high %d", low,
                           high);
  }
  return mark_ready(r, int64_t(high) - low + 1, [low](int64_t i) { return int64_t(low) + i; });
}

errc parrived(request* r, int partition, bool* flag) {
  core::engine_guard g;
  if (!is_partitioned(r))
    return core::error_set(errc::request, "the request is not a partitioned request (MPI_Precv_init)");
  part_state* st = state_of(r);
  if (st->send)
    return core::error_set(errc::request,
                           "the request is a partitioned send: MPI_Parrived applies to partitioned receives");
  if (partition < 0 || partition >= st->mine.partitions)
    return core::error_set(errc::arg, "partition %d is out of range: the request has %lld partitions", partition,
                           (long long)st->mine.partitions);
  auto arrived = [st, partition] {
    return !st->running || (st->matched && st->arrived[size_t(partition / st->per_msg)]);
  };
  if (!r->active || st->proc_null) {
    *flag = true;
    return errc::success;
  }
  if (!arrived()) core::progress_poll();
  *flag = arrived();
  return errc::success;
}

void partitioned_finalize() {
  while (part_state* st = g_orphans) {
    orphan_remove(st);
    if (request* rx = st->rx) {
      if (rx->proto & proto_posted) ctx_of(rx->ctx).unpost(rx);
      core::request_delete(rx);
    }
    delete_state(st);
  }
}

}  // namespace baton::p2p
