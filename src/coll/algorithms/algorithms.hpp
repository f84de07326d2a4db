// Declarations of every algorithm's build function, and helpers the algorithms share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll/coll.hpp"
#include "coll/hosts.hpp"
#include "coll/shm_region.hpp"
#include "core/comm.hpp"
#include "core/copy.hpp"
#include "core/datatype.hpp"
#include "core/op.hpp"

namespace baton::coll {

#define BATON_ALGORITHM(coll, name, fn, usable, preferred) errc fn(const coll_args& a, builder& b);
#define BATON_INTER_ALGORITHM(coll, name, fn, usable, preferred) errc fn(const coll_args& a, builder& b);
#include "coll/algorithms.def"
#undef BATON_INTER_ALGORITHM
#undef BATON_ALGORITHM

// Predicates used by the registry.
inline bool always(const coll_args&) { return true; }
inline bool commutative(const coll_args& a) { return a.op && a.op->is_commutative(); }

// Bytes a temporary must have to hold `count` elements of t laid out as in a user buffer, and the
// offset to use in its buf_ref (so that element 0 starts where a user buffer's would).
inline int64_t temp_bytes(const core::datatype* t, int64_t count) {
  return count > 0 ? (count - 1) * t->extent() + t->true_extent() : 0;
}
inline int64_t temp_offset(const core::datatype* t) { return -t->true_lb(); }

// A temporary for `count` elements of t; returns a reference to its element 0.
inline buf_ref temp_buffer(builder& b, const core::datatype* t, int64_t count) {
  return buf_ref{b.temp(temp_bytes(t, count)), temp_offset(t)};
}

// Reference to element `index` of a slot laid out as count elements of t.
inline buf_ref at(buf_ref base, const core::datatype* t, int64_t index) {
  return buf_ref{base.slot, base.offset + index * t->extent()};
}

// -- bcast, reduce, allreduce: element pieces and the large-message predicates --

// `count` elements cut into n pieces: piece i has count/n elements, the first count%n one more.
// Pieces may be empty (count < n); their steps move zero elements.
inline int64_t piece_begin(int64_t count, int n, int i) {
  return i * (count / n) + std::min<int64_t>(i, count % n);
}
inline int64_t piece_count(int64_t count, int n, int i) { return count / n + (i < count % n ? 1 : 0); }
// Elements of pieces [first, last).
inline int64_t pieces_count(int64_t count, int n, int first, int last) {
  return piece_begin(count, n, last) - piece_begin(count, n, first);
}

// Recursive halving (the reduce-scatter half of Rabenseifner's algorithms) among pof2 "new" ranks:
// acc holds count elements split in pof2 pieces; each round sends the half this rank gives away,
// receives the half it keeps into tmp and reduces it into acc. On return [*lo, *hi) is the piece
// range this rank holds reduced, `sent` has gained every send, and the result is the last reduce.
// real_of_new maps a new rank to a communicator rank.
template <class RealOfNew>
uint32_t recursive_halving(builder& b, buf_ref acc, buf_ref tmp, int64_t count, const core::datatype* t, int pof2,
                           int newrank, RealOfNew real_of_new, uint32_t last, std::vector<uint32_t>& sent, int* lo,
                           int* hi) {
  *lo = 0;
  *hi = pof2;
  for (int mask = pof2 / 2; mask > 0; mask /= 2) {
    const int peer = real_of_new(newrank ^ mask);
    const int mid = *lo + (*hi - *lo) / 2;
    const int keep_lo = newrank & mask ? mid : *lo, keep_hi = newrank & mask ? *hi : mid;
    const int give_lo = newrank & mask ? *lo : mid, give_hi = newrank & mask ? mid : *hi;
    const int64_t off = piece_begin(count, pof2, keep_lo), cnt = pieces_count(count, pof2, keep_lo, keep_hi);
    sent.push_back(b.send(peer, at(acc, t, piece_begin(count, pof2, give_lo)),
                          pieces_count(count, pof2, give_lo, give_hi), t, {last}));
    const uint32_t r = b.recv(peer, at(tmp, t, off), cnt, t, {last});
    last = b.reduce(at(tmp, t, off), at(acc, t, off), cnt, t, {r});
    *lo = keep_lo;
    *hi = keep_hi;
  }
  return last;
}

// "No step": a dependency that is not there; after(s) is {s}, or {} for none.
inline constexpr uint32_t no_step = UINT32_MAX;
inline std::vector<uint32_t> after(uint32_t s) { return s == no_step ? std::vector<uint32_t>{} : std::vector<uint32_t>{s}; }

// A list of communicator ranks (every rank, a host's members, the hosts' leaders) and this rank's
// index in it (-1: not a member). Trees over a group are binomial over the indices.
struct group {
  std::vector<int> ranks;
  int me = -1;
  int size() const { return int(ranks.size()); }
  int operator[](int i) const { return ranks[size_t(i)]; }
};

// Recursive-doubling allreduce among g (index order = rank order where the op is not
// commutative): log2 p exchange rounds among the largest power of two p <= n; the first 2(n-p)
// members fold pairwise before and get the result back after. acc holds this rank's data after
// `ready`; tmp is scratch. Returns the step after which acc holds the result. A rank outside g
// does nothing.
inline uint32_t recursive_doubling_allreduce(builder& b, const group& g, buf_ref acc, buf_ref tmp, int64_t count,
                                             const core::datatype* t, bool commutative, uint32_t ready) {
  const int n = g.size(), me = g.me;
  if (me < 0 || n < 2) return ready;
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  uint32_t last = ready;
  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      const uint32_t s = b.add(make_step(step_kind::send, g[me + 1], acc, {}, count, t), after(last));
      return b.recv(g[me + 1], acc, count, t, {s});
    }
    const uint32_t r = b.add(make_step(step_kind::recv, g[me - 1], tmp, {}, count, t), after(last));
    last = b.reduce(tmp, acc, count, t, {r});  // acc = left op acc
    newrank = me / 2;
  } else {
    newrank = me - rem;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int newdst = newrank ^ mask;
    const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
    const uint32_t s = b.add(make_step(step_kind::send, g[dst], acc, {}, count, t), after(last));
    const uint32_t r = b.add(make_step(step_kind::recv, g[dst], tmp, {}, count, t), after(last));
    if (dst < me || commutative) {
      last = b.reduce(tmp, acc, count, t, {s, r});  // acc = theirs op acc
    } else {
      const uint32_t red = b.reduce(acc, tmp, count, t, {s, r});  // tmp = acc op theirs
      last = b.copy(tmp, acc, count, t, {red});
    }
  }
  if (me < 2 * rem) b.send(g[me - 1], acc, count, t, {last});
  return last;
}

// A no-op step that completes when every step of `after` has: a join point.
inline uint32_t join(builder& b, const std::vector<uint32_t>& after) {
  return b.add(make_step(step_kind::copy, 0, buf_ref{}, buf_ref{}, 0, core::predefined_datatype(0x247)), after);
}

// Selection thresholds (algorithms.def says where each is used).
inline constexpr int64_t large_message_bytes = int64_t{64} << 10;
inline constexpr int64_t huge_message_bytes = int64_t{1} << 20;
inline int64_t message_bytes(const coll_args& a) { return a.type ? a.count * a.type->size() : 0; }
inline bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
// At least 64 KiB and at least one element per rank.
inline bool large_message(const coll_args& a) {
  return message_bytes(a) >= large_message_bytes && a.count >= a.c->size;
}
// Broadcast splits bytes, so one large element is enough. Only the byte count is the same on every
// rank (receivers may use another datatype and count than the root), so nothing else may decide.
// Not at two ranks: there the root's half comes back to it in the allgather (1.5x the bytes of
// a plain send; 1 MiB 48 against 44 us, 64 KiB 12.6 against 5.1 on the Zen 5 machines).
inline bool bcast_large(const coll_args& a) { return message_bytes(a) >= large_message_bytes && a.c->size > 2; }
// Ring allreduce beats Rabenseifner from 1 MiB (pipelined, neighbours only), and at any large size
// when the rank count is not a power of two (Rabenseifner's fold doubles the folded ranks' traffic).
inline bool ring_allreduce_preferred(const coll_args& a) {
  return large_message(a) && (message_bytes(a) >= huge_message_bytes || !power_of_two(a.c->size));
}

// -- shared-memory algorithms (src/coll/shm_region.hpp) --
// Usable once the communicator has its region (the state is the same on every rank) and the
// message fits one data slot; reductions also need a contiguous datatype (the same on every rank
// for reduce and allreduce). Bcast compares bytes, which agree on every rank.
inline bool shm_barrier_usable(const coll_args& a) { return shm::region_ready(a.c); }
// A persistent operation's region is sized for its message: with single copy on, a persistent
// bcast takes the region up to shm::persistent_single_copy_max (receivers read the root's bound
// buffer, split with the root from shm::split_min; were single copy refused at init, the data
// would go through region buffers of the message's size).
inline bool shm_bcast_usable(const coll_args& a) {
  const int64_t limit = a.persistent && shm::single_copy_enabled() ? shm::persistent_single_copy_max : shm::slot_bytes;
  return shm::region_ready(a.c) && message_bytes(a) <= limit;
}
// Two ranks, past the eager limit: a message algorithm's single copy (core::cma_wanted()) against
// the region's two copies depends on the machine's phase here (64 KiB: 5.1 against 10.9 us when
// dirty lines cross cores slowly, 4.4 against 4.1 when they do not), so from 32 KiB the single
// copy. From three ranks the region's copy-outs run side by side while a binomial tree takes
// rounds: 48-64 KiB 5.4-7.8 us against 8.5-18.6 (3 and 4 ranks, interleaved, session 7).
inline bool shm_bcast_preferred(const coll_args& a) {
  return a.persistent || !core::cma_wanted() || message_bytes(a) <= (int64_t{32} << 10) || a.c->size > 2;
}
inline bool shm_reduce_usable(const coll_args& a) {
  return shm::region_ready(a.c) && a.type->is_contiguous() && message_bytes(a) <= shm::slot_bytes;
}
// Each rank reduces all n inputs, so the shared-memory reductions win while n x bytes is small.
inline bool shm_reduce_preferred(const coll_args& a) {
  return message_bytes(a) * a.c->size <= (int64_t{256} << 10);
}
// A persistent allreduce from shm::reduce_single_copy_min bytes (not in place) binds single copy where it
// can (region_single_copy): each rank reduces 1/n of the elements straight from the peers' send
// buffers and writes its share into every receive buffer, so the region serves up to
// shm::persistent_single_copy_max and is preferred there (were single copy refused at init, the data would go through
// region buffers of the message's size).
inline bool shm_allreduce_single_copy(const coll_args& a) {
  return a.persistent && !a.in_place && shm::single_copy_enabled() && message_bytes(a) >= shm::reduce_single_copy_min;
}
inline bool shm_allreduce_usable(const coll_args& a) {
  if (shm_allreduce_single_copy(a))
    return shm::region_ready(a.c) && a.type->is_contiguous() && message_bytes(a) <= shm::persistent_single_copy_max;
  return shm_reduce_usable(a);
}
// At two ranks (blocking or nonblocking) the message algorithms win from 2 KiB: one message each
// way against a publish and a read of the peer's copy (2 ranks, interleaved, this 2-core VM,
// 2026-11-29: 1 KiB 0.68 against 0.70 us, 2 KiB 0.84 against 1.03, 8 KiB 1.9 against 3.1, 32 KiB
// 5.5 against 6.3; 64 KiB Rabenseifner 10.2 against 12.0). From three ranks the region's reads run
// side by side and it ties or wins (3 ranks 8-32 KiB within 4%, 4 ranks 8 KiB 8.0 against 9.3).
// Persistent allreduce keeps its own region.
inline bool shm_allreduce_preferred(const coll_args& a) {
  if (shm_allreduce_single_copy(a)) return true;
  return shm_reduce_preferred(a) && (a.persistent || a.c->size > 2 || message_bytes(a) <= (int64_t{1} << 10));
}

// Blocking and nonblocking allreduce and reduce straight between the user buffers
// (allreduce_single_copy, reduce_single_copy): the communicator's region is set up and every rank
// may read the others' memory (both agreed at setup), elements back to back; in place or not (a
// reduce's in_place is the root's alone, so it is not looked at: every rank must agree).
// Persistent ones bind their own single copy above.
inline bool single_copy_reduction_usable(const coll_args& a) {
  return !a.persistent && shm::region_ready(a.c) && shm::region_of(a.c)->cma &&
         shm::single_copy_reducible(a.type);
}
inline bool single_copy_allreduce_preferred(const coll_args& a) {
  return message_bytes(a) >= shm::dynamic_single_copy_min;
}

// Alltoall: all n blocks of a rank fit one slot (block bytes agree on every rank). A persistent
// operation's region is sized for it: with single copy on (every rank reading its blocks from the
// peers' bound send buffers) up to shm::persistent_single_copy_max of blocks per rank (2 ranks,
// 1 MiB blocks, interleaved: 117 us against 125 through the message algorithms).
inline bool shm_alltoall_usable(const coll_args& a) {
  const int64_t limit = a.persistent && shm::single_copy_enabled() ? shm::persistent_single_copy_max : shm::slot_bytes;
  return shm::region_ready(a.c) && a.c->size * a.rcount * a.rtype->size() <= limit;
}

// -- host-aware (two-level) algorithms (two_level.hpp) --
// Preferred when the communicator spans hosts with more than one rank on some host
// (coll::spans_hosts; every rank computes the same layout). Reductions keep rank order for a
// non-commutative op only when each host's ranks are consecutive.
inline bool two_level_preferred(const coll_args& a) { return spans_hosts(a.c); }
inline bool two_level_reduction_usable(const coll_args& a) { return commutative(a) || hosts_of(a.c).blocked; }
// Alltoall through the leaders: not in place; preferred for blocks up to two_level_a2a_max
// bytes, where messages, not bytes, cost the time between hosts (larger blocks cross as they
// are, one message per pair of ranks, without the leaders' extra copies). Only the block's byte
// count decides (ranks may use different datatypes of one signature).
inline constexpr int64_t two_level_a2a_max = 2048;
inline bool two_level_alltoall_usable(const coll_args& a) { return !a.in_place; }
inline bool two_level_alltoall_preferred(const coll_args& a) {
  return a.rcount * a.rtype->size() <= two_level_a2a_max && spans_hosts(a.c);
}

// -- gather(v), scatter(v), allgather(v): selection predicates --

// Bytes of one rank's block as every rank computes it alike (the side significant everywhere:
// send at gather's non-roots, receive at its root, ...), and of the whole gathered buffer.
inline int64_t gather_block_bytes(const coll_args& a) {
  const bool root = a.c->rank == a.root;
  if (a.kind == coll_kind::gather) return root ? a.rcount * a.rtype->size() : a.count * a.type->size();
  if (a.kind == coll_kind::scatter) return root ? a.count * a.type->size() : a.rcount * a.rtype->size();
  return a.rcount * a.rtype->size();  // allgather
}
inline int64_t allgather_total_bytes(const coll_args& a) {
  if (a.kind != coll_kind::allgatherv) return a.c->size * gather_block_bytes(a);
  int64_t total = 0;
  for (int r = 0; r < a.c->size; ++r) total += a.rcounts[r];
  return total * a.rtype->size();
}
inline bool pof2_ranks(const coll_args& a) { return (a.c->size & (a.c->size - 1)) == 0; }
// Binomial gather/scatter for blocks up to 16 KiB (fewer messages at the root); linear above,
// where the tree's forwarding costs more than the root's serialization.
inline bool gather_small_block(const coll_args& a) { return gather_block_bytes(a) <= (int64_t{16} << 10); }
// Allgather(v): recursive doubling up to 512 KiB in all when n is a power of two, Bruck up to
// 80 KiB otherwise, the ring above.
inline bool allgather_rd_preferred(const coll_args& a) {
  return pof2_ranks(a) && allgather_total_bytes(a) <= (int64_t{512} << 10);
}
inline bool allgather_bruck_preferred(const coll_args& a) { return allgather_total_bytes(a) <= (int64_t{80} << 10); }

// -- alltoall(v,w), reduce_scatter(_block), scan, exscan: selection predicates --

// Exchange steps the windowed linear alltoall(v,w) keeps in flight.
inline constexpr int a2a_linear_window = 32;
// Average bytes per peer block on this rank's receive side (alltoall: the same on every rank).
inline int64_t a2a_block_bytes(const coll_args& a) {
  const int n = a.c->size;
  if (a.kind == coll_kind::alltoall) return a.rcount * a.rtype->size();
  int64_t total = 0;
  for (int r = 0; r < n; ++r) total += a.rcounts[r] * (a.kind == coll_kind::alltoallw ? a.rtypes[r] : a.rtype)->size();
  return total / n;
}
inline bool a2a_bruck_preferred(const coll_args& a) { return a.c->size >= 8 && a2a_block_bytes(a) <= 256; }
// alltoallv/w ranks see different counts and may choose differently. Linear and pairwise post the
// same messages, and mixing them cannot deadlock while the window does not bind (linear ranks post
// everything at once), so above a2a_linear_window + 1 ranks every rank takes pairwise.
inline bool a2a_linear_preferred(const coll_args& a) {
  if (a.kind != coll_kind::alltoall && a.c->size > a2a_linear_window + 1) return false;
  return a2a_block_bytes(a) <= (int64_t{32} << 10);
}
// Blocking and nonblocking alltoall straight between the user buffers (alltoall_single_copy):
// as for allreduce, with both types' elements back to back (so a block is a range of bytes).
inline bool single_copy_alltoall_usable(const coll_args& a) {
  return !a.persistent && !a.in_place && shm::region_ready(a.c) && shm::region_of(a.c)->cma &&
         shm::single_copy_reducible(a.type) && shm::single_copy_reducible(a.rtype);
}
inline bool single_copy_alltoall_preferred(const coll_args& a) {
  return a2a_block_bytes(a) >= shm::dynamic_single_copy_a2a_min;
}
inline bool commutative_pof2(const coll_args& a) {
  return commutative(a) && (a.c->size & (a.c->size - 1)) == 0;
}
// Total bytes reduced (the same on every rank: receive counts agree).
inline bool rs_halving_preferred(const coll_args& a) {
  int64_t total = 0;
  if (a.kind == coll_kind::reduce_scatter_block) {
    total = a.count * a.c->size;
  } else {
    for (int r = 0; r < a.c->size; ++r) total += a.rcounts[r];
  }
  return total * a.type->size() <= (int64_t{512} << 10);
}

}  // namespace baton::coll
