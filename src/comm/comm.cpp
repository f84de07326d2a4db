// Communicator construction on intracommunicators: dup, split, create, create_group and
// create_from_group (see comm.hpp). Intercommunicators are in intercomm.cpp.
#include <algorithm>
#include <cstring>
#include <memory>

#include "coll/among.hpp"
#include "comm/comm.hpp"
#include "core/procs.hpp"
#include "core/runtime.hpp"

namespace baton::comm {

using namespace core;

namespace {

std::vector<int> all_ranks(const comm* c) {
  std::vector<int> m(size_t(c->size));
  for (int r = 0; r < c->size; ++r) m[size_t(r)] = r;
  return m;
}

errc allgather_bytes(comm* c, const void* in, size_t bytes, void* out) {
  return coll::allgather_among(c, all_ranks(c), c->rank, coll::comm_next_tag(c), in, bytes, out);
}

comm* comm_make(comm* parent, uint32_t ctx, std::vector<int> world) {
  comm* c = new comm;
  c->ctx = ctx;
  c->size = int(world.size());
  c->world = std::move(world);
  const int me = rt().world_rank;
  for (int i = 0; i < c->size; ++i)
    if (c->world[size_t(i)] == me) c->rank = i;
  c->eh = parent->eh;
  c->eh->retain();
  c->session = parent->session;
  return c;
}
}  // namespace

errc comm_create(comm* parent, const std::vector<int>& members, comm** out) {
  if (parent->inter) return intercomm_create_sub(parent, members, out);
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(parent, &ctx); e != errc::success) return e;
  // Disjoint groups may share the context: no process belongs to two of them.
  bool member = false;
  for (int w : members) member |= w == rt().world_rank;
  if (!member) {
    context_release(ctx);
    *out = nullptr;
    return errc::success;
  }
  *out = comm_make(parent, ctx, members);
  return errc::success;
}

errc comm_create_group(comm* parent, const std::vector<int>& members, int tag, comm** out) {
  std::vector<int> ranks;
  ranks.reserve(members.size());
  for (int w : members) {
    int r = comm_rank_of_world(parent, w);
    if (r < 0) return error_set(errc::group, "world rank %d of the group is not in the communicator", w);
    ranks.push_back(r);
  }
  uint32_t ctx = 0;
  if (errc e = comm_agree_context_among(parent, ranks, create_group_tag(tag), &ctx); e != errc::success) return e;
  *out = comm_make(parent, ctx, members);
  return errc::success;
}

errc comm_create_from_group(const std::vector<int>& world_members, int tag, uint64_t key, comm** out) {
  comm* parent = rt().processes;
  // Members of other launches (core/procs.hpp) are not in rt().processes: agree over a span of
  // exactly the members instead (its ranks are their positions).
  std::unique_ptr<comm> span;
  std::vector<int> members = world_members;
  if (procs_any_foreign(world_members)) {
    span.reset(procs_span(world_members));
    parent = span.get();
    for (size_t i = 0; i < members.size(); ++i) members[i] = int(i);
  }
  const int me = comm_rank_of_world(parent, rt().world_rank);
  int idx = -1;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == me) idx = int(i);
  if (idx < 0) return error_set(errc::intern, "MPI_Comm_create_from_group by a process outside the group");
  const int t = create_group_tag(tag);
  // The check shares the agreement's tag: messages between two processes on one (context, tag)
  // match in order, and every member is done with it before the agreement starts.
  if (members.size() > 1) {
    std::vector<uint64_t> keys(idx == 0 ? members.size() : 1);
    if (errc e = coll::gather_among(parent, members, idx, t, &key, sizeof key, keys.data()); e != errc::success) return e;
    int32_t bad = -1;
    if (idx == 0)
      for (size_t i = 1; i < keys.size() && bad < 0; ++i)
        if (keys[i] != key) bad = int32_t(i);
    if (errc e = coll::bcast_among(parent, members, idx, t, &bad, sizeof bad); e != errc::success) return e;
    if (bad >= 0)
      return error_set(errc::not_same,
                       "the members of the group did not all pass the same string tag and group: process %d "
                       "(group rank %d) differs from group rank 0",
                       world_members[size_t(bad)], bad);
  }
  uint32_t ctx = 0;
  if (errc e = comm_agree_context_among(parent, members, t, &ctx); e != errc::success) return e;
  *out = comm_make(rt().processes, ctx, world_members);
  return errc::success;
}

errc comm_create_from_stringtag(const std::vector<int>& members, const char* stringtag, size_t len, comm** out) {
  const int tag = int(fnv1a(stringtag, len, fnv_offset) & 0x3fffffffu);
  uint64_t key = fnv1a(stringtag, len + 1, fnv_offset ^ 0x5e55109ull);
  key = core::procs_digest(members.data(), members.size(), key);  // by identity (core/procs.hpp)
  return comm_create_from_group(members, tag, key, out);
}

comm* comm_copy(comm* parent, uint32_t ctx) {
  comm* c = new comm;
  c->ctx = ctx;
  c->rank = parent->rank;
  c->size = parent->size;
  c->world = parent->world;
  c->eh = parent->eh;
  c->eh->retain();
  c->topo = parent->topo;
  c->session = parent->session;
  return c;
}

errc comm_dup(comm* parent, comm** out) {
  if (parent->inter) return intercomm_dup(parent, out);
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(parent, &ctx); e != errc::success) return e;
  *out = comm_copy(parent, ctx);
  return errc::success;
}

errc comm_split(comm* parent, int color, int key, comm** out) {
  if (parent->inter) return intercomm_split(parent, color, key, out);
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
  c->session = parent->session;
  *out = c;
  return errc::success;
}

}  // namespace baton::comm
