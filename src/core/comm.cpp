#include "core/comm.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "core/datatype.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::core {

namespace {
// Context ids come in pairs (p2p, collective): pair k is contexts 2k and 2k+1.
constexpr int context_words = 256;  // 16384 pairs
uint64_t g_free_mask[context_words];
bool g_mask_ready = false;
std::mutex g_ctx_mutex;     // guards the free mask (taken briefly, also from completion paths)
std::mutex g_create_mutex;  // one context agreement at a time in this process

void mask_init() {
  if (g_mask_ready) return;
  for (auto& w : g_free_mask) w = ~0ull;
  g_mask_ready = true;
}

const datatype* byte_type() { return predefined_datatype(0x247); }

// Internal collectives over point-to-point on the communicator's collective context. Every
// collective operation on a communicator (these included) consumes one sequence number, used as
// the tag, so operations never match each other.
int next_tag(comm* c) { return static_cast<int>(c->coll_seq++ & 0x3fffffff); }

struct coll_view {
  comm shadow;
  explicit coll_view(comm* c) {
    shadow.ctx = c->ctx + 1;
    shadow.rank = c->rank;
    shadow.size = c->size;
    shadow.world = c->world;
    shadow.predefined = true;
  }
};

errc wait_free(request* r) {
  errc e = p2p::wait(r);
  if (e == errc::success) e = r->status.error;
  r->c->release();
  const_cast<datatype*>(r->dt)->release();
  request_delete(r);
  return e;
}

// Gathers `bytes` from every rank to every rank (linear gather to 0, then linear broadcast).
errc allgather_bytes(comm* c, const void* in, size_t bytes, void* out) {
  coll_view v(c);
  const int tag = next_tag(c);
  char* o = static_cast<char*>(out);
  std::memcpy(o + size_t(c->rank) * bytes, in, bytes);
  const auto* bt = byte_type();
  if (c->size == 1) return errc::success;
  if (c->rank == 0) {
    std::vector<request*> rs;
    for (int r = 1; r < c->size; ++r) {
      request* q = nullptr;
      if (errc e = p2p::irecv(o + size_t(r) * bytes, int64_t(bytes), bt, r, tag, &v.shadow, &q); e != errc::success)
        return e;
      rs.push_back(q);
    }
    errc first = errc::success;
    for (request* q : rs)
      if (errc e = wait_free(q); e != errc::success && first == errc::success) first = e;
    if (first != errc::success) return first;
    rs.clear();
    for (int r = 1; r < c->size; ++r) {
      request* q = nullptr;
      if (errc e = p2p::isend(o, int64_t(bytes) * c->size, bt, r, tag, &v.shadow, send_mode::standard, &q);
          e != errc::success)
        return e;
      rs.push_back(q);
    }
    for (request* q : rs)
      if (errc e = wait_free(q); e != errc::success && first == errc::success) first = e;
    return first;
  }
  if (errc e = p2p::send(in, int64_t(bytes), bt, 0, tag, &v.shadow, send_mode::standard); e != errc::success) return e;
  return p2p::recv(o, int64_t(bytes) * c->size, bt, 0, tag, &v.shadow, nullptr);
}
}  // namespace

void errhandler::release() {
  if (predefined) return;
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

errhandler* errhandler_predefined(errhandler_kind k) {
  static errhandler table[4];
  static bool ready = false;
  if (!ready) {
    for (int i = 0; i < 4; ++i) {
      table[i].kind = errhandler_kind(i);
      table[i].predefined = true;
    }
    ready = true;
  }
  return &table[int(k)];
}

void comm::release() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (predefined) return;
    context_release(ctx);
    if (eh) eh->release();
    delete this;
  }
}

void context_reserve(uint32_t ctx) {
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  mask_init();
  uint32_t pair = ctx / 2;
  g_free_mask[pair / 64] &= ~(1ull << (pair % 64));
}

void context_release(uint32_t ctx) {
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  uint32_t pair = ctx / 2;
  g_free_mask[pair / 64] |= 1ull << (pair % 64);
}

errc comm_agree_context(comm* parent, uint32_t* ctx) {
  std::lock_guard<std::mutex> create(g_create_mutex);
  uint64_t mine[context_words];
  {
    std::lock_guard<std::mutex> g(g_ctx_mutex);
    mask_init();
    std::memcpy(mine, g_free_mask, sizeof mine);
  }
  std::vector<uint64_t> all(size_t(parent->size) * context_words);
  if (errc e = allgather_bytes(parent, mine, sizeof mine, all.data()); e != errc::success) return e;
  std::lock_guard<std::mutex> g(g_ctx_mutex);
  for (int w = 0; w < context_words; ++w) {
    uint64_t m = ~0ull;
    for (int r = 0; r < parent->size; ++r) m &= all[size_t(r) * context_words + size_t(w)];
    if (m) {
      int bit = __builtin_ctzll(m);
      g_free_mask[w] &= ~(1ull << bit);
      *ctx = uint32_t(w * 64 + bit) * 2;
      return errc::success;
    }
  }
  return error_set(errc::intern, "out of communicator context ids (%d in use)", context_words * 64);
}

errc comm_dup(comm* parent, comm** out) {
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(parent, &ctx); e != errc::success) return e;
  comm* c = new comm;
  c->ctx = ctx;
  c->rank = parent->rank;
  c->size = parent->size;
  c->world = parent->world;
  c->eh = parent->eh;
  c->eh->retain();
  *out = c;
  return errc::success;
}

errc comm_split(comm* parent, int color, int key, comm** out) {
  struct entry {
    int color, key, rank;
  };
  entry mine{color, key, parent->rank};
  std::vector<entry> all(size_t(parent->size));
  if (errc e = allgather_bytes(parent, &mine, sizeof mine, all.data()); e != errc::success) return e;
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(parent, &ctx); e != errc::success) return e;
  constexpr int undefined = -32766;
  if (color == undefined) {
    context_release(ctx);
    *out = nullptr;
    return errc::success;
  }
  std::vector<entry> members;
  for (const entry& en : all)
    if (en.color == color) members.push_back(en);
  std::stable_sort(members.begin(), members.end(),
                   [](const entry& a, const entry& b) { return a.key != b.key ? a.key < b.key : a.rank < b.rank; });
  comm* c = new comm;
  c->ctx = ctx;
  c->size = int(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    c->world.push_back(parent->world_rank(members[i].rank));
    if (members[i].rank == parent->rank) c->rank = int(i);
  }
  c->eh = parent->eh;
  c->eh->retain();
  *out = c;
  return errc::success;
}

errc comm_free(comm* c) {
  c->release();
  return errc::success;
}

}  // namespace baton::core
