// Intercommunicators (MPI-4.1 7.6): construction (Intercomm_create, Intercomm_create_from_groups),
// Intercomm_merge, and what dup / idup / split / create do on an intercommunicator. The data model
// is in comm.hpp: `size`/`world` are the remote group (what point-to-point addresses), `local_world`
// the local group, and `bridge` a hidden intracommunicator over both groups, each contiguous in it.
//
// Every construction first makes every member know both groups in the same order, then builds the
// bridge over them: from scratch (comm_create_from_group, over rt().processes) when there is no
// bridge yet, or with a context agreed over the parent's bridge (dup, idup, split, create). The new
// intercommunicator shares its bridge's point-to-point context.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "coll/among.hpp"
#include "comm/comm.hpp"
#include "comm/dynamic.hpp"
#include "core/datatype.hpp"
#include "core/procs.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::comm {

using namespace core;

namespace {

const datatype* byte_type() {
  return predefined_datatype(0x247);
}

constexpr int undefined = -32766;  // MPI_UNDEFINED


// An intracommunicator to serve as a bridge: `world` in that order, context `ctx`.
comm* bridge_make(std::vector<int> world, uint32_t ctx, errhandler* eh) {
  comm* b = new comm;
  b->ctx = ctx;
  b->size = int(world.size());
  b->world = std::move(world);
  const int me = rt().world_rank;
  for (int i = 0; i < b->size; ++i)
    if (b->world[size_t(i)] == me) b->rank = i;
  b->eh = eh;
  eh->retain();
  b->name = "(intercommunicator bridge)";
  return b;
}

// The intercommunicator over `bridge` (which it takes over): the bridge's first `first` ranks are
// one group, the others the second; the caller's group is the local one.
comm* inter_from_bridge(comm* bridge, int first, errhandler* eh) {
  comm* c = new comm;
  c->inter = true;
  c->bridge = bridge;
  c->ctx = bridge->ctx;
  const int n = bridge->size;
  const bool me_first = bridge->rank < first;
  const int lsize = me_first ? first : n - first;
  const int rsize = n - lsize;
  c->bridge_local = me_first ? 0 : first;
  c->bridge_remote = me_first ? first : 0;
  const auto bw = bridge->world.begin();
  c->local_world.assign(bw + c->bridge_local, bw + c->bridge_local + lsize);
  c->world.assign(bw + c->bridge_remote, bw + c->bridge_remote + rsize);
  c->size = rsize;
  c->rank = bridge->rank - c->bridge_local;
  c->eh = eh;
  eh->retain();
  return c;
}

// Size of the group that comes first in ic's bridge.
int first_size(const comm* ic) {
  return ic->bridge_local == 0 ? ic->local_size() : ic->size;
}

std::vector<int> iota_ranks(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}

// Builds the bridge from scratch over `members` (world ranks, the same list on every member).
// The agreement's tag comes from the member list and `salt` (so concurrent constructions over
// other groups, or with another salt, seldom share it; when they do, the key check in
// comm_create_from_group still keeps them apart).
errc bridge_build(const std::vector<int>& members, uint64_t salt, comm** out) {
  // By identity, not index: members of other launches number the processes differently.
  const uint64_t h = procs_digest(members.data(), members.size(), fnv_offset ^ salt);
  const int tag = int(h & 0x3fffffffu);
  const uint64_t key = fnv1a(&h, sizeof h, fnv_offset ^ 0x1e7e4c0ull);
  return comm_create_from_group(members, tag, key, out);
}

// The first world rank found in both lists, or -1.
int overlap(const std::vector<int>& a, const std::vector<int>& b) {
  for (int w : b)
    if (std::find(a.begin(), a.end(), w) != a.end()) return w;
  return -1;
}

// The local leader's exchange with the remote leader over peer_comm's point-to-point context,
// with the user's tag: first (group size, leader's index, local_comm's context, whether the groups
// span launches), then the group's processes by identity (core/procs.hpp: the remote leader may
// belong to another launch, which numbers processes differently), turned back into indices here.
// When either side spans launches (*introduce), the processes may not know each other yet: the
// identities then come with UCX addresses from dynamic::introduce, after the leaders' news.
errc leader_exchange(comm* local, int leader, comm* peer, int remote_leader, int tag, std::vector<int32_t>* remote,
                     int32_t* remote_leader_index, uint32_t* remote_ctx, int32_t* introduce) {
  const datatype* bt = byte_type();
  const int32_t spans = procs_any_foreign(local->world) || proc_foreign(peer->world[size_t(remote_leader)]);
  const int32_t mine[4] = {local->size, leader, int32_t(local->ctx), spans};
  int32_t theirs[4] = {0, 0, 0, 0};
  auto swap = [&](const void* out, size_t obytes, void* in, size_t ibytes) {
    request* s = nullptr;
    errc e = p2p::isend(out, int64_t(obytes), bt, remote_leader, tag, peer, send_mode::standard, &s);
    if (e != errc::success) return e;
    e = p2p::recv(in, int64_t(ibytes), bt, remote_leader, tag, peer, nullptr);
    const errc es = coll::wait_free(s);
    return e != errc::success ? e : es;
  };
  if (errc e = swap(mine, sizeof mine, theirs, sizeof theirs); e != errc::success) return e;
  if (theirs[0] < 1 || theirs[1] < 0 || theirs[1] >= theirs[0])
    return error_set(errc::intern,
                     "the remote leader sent a malformed group description (size %d, leader %d): is another "
                     "message with tag %d pending on peer_comm?",
                     theirs[0], theirs[1], tag);
  remote->resize(size_t(theirs[0]));
  *remote_leader_index = theirs[1];
  *remote_ctx = uint32_t(theirs[2]);
  *introduce = spans || theirs[3];
  if (*introduce) return errc::success;
  std::vector<proc_id> mine_ids(local->world.size()), their_ids(remote->size());
  for (size_t i = 0; i < mine_ids.size(); ++i) mine_ids[i] = proc_identity(local->world[i]);
  if (errc e = swap(mine_ids.data(), mine_ids.size() * sizeof(proc_id), their_ids.data(),
                    their_ids.size() * sizeof(proc_id));
      e != errc::success)
    return e;
  for (size_t i = 0; i < their_ids.size(); ++i) {
    (*remote)[i] = proc_index(their_ids[i].job, their_ids[i].rank);
    if ((*remote)[i] < 0)
      return error_set(errc::intern,
                       "process %zu of the remote group belongs to a launch this process is not connected to "
                       "(an intercommunicator needs every pair of its processes connected)",
                       i);
  }
  std::vector<int> rw(remote->begin(), remote->end());
  if (int w = overlap(local->world, rw); w >= 0)
    return error_set(errc::arg,
                     "the local and remote groups overlap (world rank %d is in both): the groups of an "
                     "intercommunicator must be disjoint",
                     w);
  return errc::success;
}

// What the local leader broadcasts to its group.
struct leader_news {
  int32_t error;  // an error class, 0 for success
  int32_t remote_size;
  int32_t remote_leader;  // index of the remote leader in the remote group
  int32_t tag;
  uint32_t remote_ctx;  // the remote group's local_comm context
  int32_t introduce;  // the groups span launches: identities and addresses come from dynamic::introduce
  char message[192];  // the leader's error message
};

}  // namespace

errc intercomm_create(comm* local, int leader, comm* peer, int remote_leader, int tag, errc leader_error, comm** out) {
  *out = nullptr;
  const bool am_leader = local->rank == leader;
  leader_news news{};
  std::vector<int32_t> remote;
  if (am_leader) {
    errc e = leader_error;
    if (e == errc::success)
      e = leader_exchange(local, leader, peer, remote_leader, tag, &remote, &news.remote_leader, &news.remote_ctx,
                          &news.introduce);
    news.error = int32_t(e);
    news.remote_size = int32_t(remote.size());
    news.tag = tag;
    if (e != errc::success) std::snprintf(news.message, sizeof news.message, "%s", error_message().c_str());
  }
  // The leader broadcasts to the local group (the leader first in the member list).
  std::vector<int> order{leader};
  for (int r = 0; r < local->size; ++r)
    if (r != leader) order.push_back(r);
  const int me = int(std::find(order.begin(), order.end(), local->rank) - order.begin());
  const int t = coll::comm_next_tag(local);
  if (errc e = coll::bcast_among(local, order, me, t, &news, sizeof news); e != errc::success) return e;
  if (news.error != 0) {
    if (am_leader) return errc(news.error);  // its own message stands
    return error_set(errc(news.error), "the local leader (rank %d of local_comm) failed: %s", leader, news.message);
  }
  remote.resize(size_t(news.remote_size));
  if (news.introduce) {
    std::vector<int> idx;
    if (errc e = dynamic::introduce(local, leader, peer, remote_leader, tag, &idx); e != errc::success) return e;
    if (idx.size() != remote.size())
      return error_set(errc::intern, "the remote leader described %zu processes, then %zu", remote.size(), idx.size());
    remote.assign(idx.begin(), idx.end());
    if (int w = overlap(local->world, idx); w >= 0)
      return error_set(errc::arg,
                       "the local and remote groups overlap (process %d is in both): the groups of an "
                       "intercommunicator must be disjoint",
                       w);
  } else if (errc e = coll::bcast_among(local, order, me, t, remote.data(), remote.size() * sizeof(int32_t));
             e != errc::success) {
    return e;
  }
  const int local_leader_world = local->world_rank(leader);
  const int remote_leader_world = remote[size_t(news.remote_leader)];
  const bool local_first = proc_before(local_leader_world, remote_leader_world);
  std::vector<int> members;
  members.reserve(local->world.size() + remote.size());
  if (local_first) members.insert(members.end(), local->world.begin(), local->world.end());
  members.insert(members.end(), remote.begin(), remote.end());
  if (!local_first) members.insert(members.end(), local->world.begin(), local->world.end());
  comm* bridge = nullptr;
  // The bridge is agreed over the hidden communicator of all processes, where the groups and the
  // tag alone do not tell apart calls that other threads make at the same time on other
  // communicators (allowed under MPI_THREAD_MULTIPLE: the tag need only be unique on peer_comm).
  // The two local_comms' contexts do: every member of a group has the same one, and concurrent
  // calls of one process run on distinct live local_comms.
  const uint32_t first_ctx = local_first ? local->ctx : news.remote_ctx;
  const uint32_t second_ctx = local_first ? news.remote_ctx : local->ctx;
  const uint64_t ctxs[2] = {first_ctx, second_ctx};
  const uint64_t salt = fnv1a(ctxs, sizeof ctxs, fnv_offset ^ (0x1c0ull << 40 | uint32_t(news.tag)));
  if (errc e = bridge_build(members, salt, &bridge); e != errc::success) return e;
  *out = inter_from_bridge(bridge, local_first ? local->size : int(remote.size()), local->eh);
  return errc::success;
}

errc intercomm_create_from_groups(const std::vector<int>& local, int local_leader, const std::vector<int>& remote,
                                  int remote_leader, int tag, uint64_t key, comm** out) {
  *out = nullptr;
  if (int w = overlap(local, remote); w >= 0)
    return error_set(errc::group,
                     "local_group and remote_group overlap (world rank %d is in both): the groups of an "
                     "intercommunicator must be disjoint",
                     w);
  const bool local_first = proc_before(local[size_t(local_leader)], remote[size_t(remote_leader)]);
  const std::vector<int>& a = local_first ? local : remote;
  const std::vector<int>& b = local_first ? remote : local;
  std::vector<int> members(a);
  members.insert(members.end(), b.begin(), b.end());
  const uint64_t k = procs_digest(members.data(), members.size(), key);
  comm* bridge = nullptr;
  if (errc e = comm_create_from_group(members, tag, k, &bridge); e != errc::success) return e;
  *out = inter_from_bridge(bridge, int(a.size()), bridge->eh);
  return errc::success;
}

errc intercomm_create_from_stringtag(const std::vector<int>& local, int local_leader, const std::vector<int>& remote,
                                     int remote_leader, const char* stringtag, size_t len, comm** out) {
  const int tag = int(fnv1a(stringtag, len, fnv_offset ^ 0x1c7e5c0ull) & 0x3fffffffu);
  const uint64_t key = fnv1a(stringtag, len + 1, fnv_offset ^ 0x1c7e5c1ull);
  return intercomm_create_from_groups(local, local_leader, remote, remote_leader, tag, key, out);
}

errc intercomm_merge(comm* ic, bool high, comm** out) {
  *out = nullptr;
  comm* b = ic->bridge;
  const int n = b->size;
  const uint8_t mine = high ? 1 : 0;
  std::vector<uint8_t> flags(static_cast<size_t>(n));
  if (errc e = coll::allgather_among(b, iota_ranks(n), b->rank, coll::comm_next_tag(b), &mine, 1, flags.data()); e != errc::success)
    return e;
  const int first = first_size(ic);
  for (int i = 0; i < n; ++i) {
    const int lead = i < first ? 0 : first;
    if (flags[size_t(i)] != flags[size_t(lead)]) {
      const bool is_local = (i < first) == (b->rank < first);
      return error_set(errc::not_same,
                       "the %s group did not pass one value of high: its rank %d passed %d, its rank 0 passed %d",
                       is_local ? "local" : "remote", i - lead, flags[size_t(i)], flags[size_t(lead)]);
    }
  }
  // The group that passed high = false comes first; equal flags keep the bridge's order.
  const bool swap = flags[0] && !flags[size_t(first)];
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(b, &ctx); e != errc::success) return e;
  comm* m = new comm;
  m->ctx = ctx;
  m->size = n;
  if (swap) {
    m->world.assign(b->world.begin() + first, b->world.end());
    m->world.insert(m->world.end(), b->world.begin(), b->world.begin() + first);
  } else {
    m->world = b->world;
  }
  const int w = rt().world_rank;
  for (int i = 0; i < n; ++i)
    if (m->world[size_t(i)] == w) m->rank = i;
  m->eh = ic->eh;
  m->eh->retain();
  *out = m;
  return errc::success;
}

errc intercomm_dup(comm* ic, comm** out) {
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(ic->bridge, &ctx); e != errc::success) return e;
  comm* nb = bridge_make(ic->bridge->world, ctx, ic->bridge->eh);
  *out = inter_from_bridge(nb, first_size(ic), ic->eh);
  return errc::success;
}

comm* intercomm_idup_prepare(comm* ic) {
  comm* nb = bridge_make(ic->bridge->world, context_none, ic->bridge->eh);
  comm* n = inter_from_bridge(nb, first_size(ic), ic->eh);
  return n;  // ctx is context_none (the bridge's) until comm_idup's agreement sets both
}

errc intercomm_split(comm* ic, int color, int key, comm** out) {
  *out = nullptr;
  struct entry {
    int color, key, brank;
  };
  comm* b = ic->bridge;
  const int n = b->size;
  const entry mine{color, key, b->rank};
  std::vector<entry> all(static_cast<size_t>(n));
  if (errc e = coll::allgather_among(b, iota_ranks(n), b->rank, coll::comm_next_tag(b), &mine, sizeof mine, all.data());
      e != errc::success)
    return e;
  // One context for every new intercommunicator: their members are disjoint.
  uint32_t ctx = 0;
  if (errc e = comm_agree_context(b, &ctx); e != errc::success) return e;
  const int first = first_size(ic);
  std::vector<entry> a, z;
  if (color != undefined)
    for (const entry& en : all)
      if (en.color == color) (en.brank < first ? a : z).push_back(en);
  if (a.empty() || z.empty()) {  // MPI_UNDEFINED, or a side of this color is empty
    context_release(ctx);
    return errc::success;
  }
  auto by_key = [](const entry& x, const entry& y) { return x.key != y.key ? x.key < y.key : x.brank < y.brank; };
  std::stable_sort(a.begin(), a.end(), by_key);
  std::stable_sort(z.begin(), z.end(), by_key);
  std::vector<int> world;
  world.reserve(a.size() + z.size());
  for (const entry& en : a) world.push_back(b->world_rank(en.brank));
  for (const entry& en : z) world.push_back(b->world_rank(en.brank));
  comm* nb = bridge_make(std::move(world), ctx, b->eh);
  *out = inter_from_bridge(nb, int(a.size()), ic->eh);
  return errc::success;
}

errc intercomm_create_sub(comm* ic, const std::vector<int>& members, comm** out) {
  const int w = rt().world_rank;
  const auto it = std::find(members.begin(), members.end(), w);
  const bool in = it != members.end();
  return intercomm_split(ic, in ? 0 : undefined, in ? int(it - members.begin()) : 0, out);
}

}  // namespace baton::comm
