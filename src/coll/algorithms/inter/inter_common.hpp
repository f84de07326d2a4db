// Shared by the intercommunicator algorithms (src/coll/algorithms/inter/). Their plans run on the
// intercommunicator's bridge (coll::run_comm), so every peer is a bridge rank: local rank i is
// bridge rank bridge_local + i, remote rank j is bridge_remote + j (core/comm.hpp). Inside a group
// they move data along binomial trees rooted at the group's rank 0 (its leader); between the groups
// either the two leaders exchange, or every local rank meets every remote rank where the volume
// is linear in the group sizes anyway.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/algorithms/algorithms.hpp"

namespace baton::coll::inter {

// The ABI's MPI_ROOT and MPI_PROC_NULL (include/mpi.h), as coll_args::root carries them.
inline constexpr int root_here = -4;      // MPI_ROOT: this process is the root
inline constexpr int root_elsewhere = -3;  // MPI_PROC_NULL: another process of this group is

inline int local_peer(const coll_args& a, int i) { return a.c->bridge_local + i; }
inline int remote_peer(const coll_args& a, int j) { return a.c->bridge_remote + j; }

// A zero-byte message's datatype (MPI_BYTE).
inline const core::datatype* byte_type() { return core::predefined_datatype(0x247); }

inline uint32_t add_send(builder& b, int peer, buf_ref src, int64_t count, const core::datatype* t,
                         const std::vector<uint32_t>& after) {
  return b.add(make_step(step_kind::send, peer, src, {}, count, t), after);
}
inline uint32_t add_recv(builder& b, int peer, buf_ref dst, int64_t count, const core::datatype* t,
                         const std::vector<uint32_t>& after) {
  return b.add(make_step(step_kind::recv, peer, dst, {}, count, t), after);
}

// Binomial broadcast of count elements of t at buf inside the local group, from its rank 0, whose
// data is ready after `ready`. Returns the steps after which this rank holds the data (the leader:
// `ready`; the others: their receive).
inline std::vector<uint32_t> group_bcast(const coll_args& a, builder& b, buf_ref buf, int64_t count,
                                         const core::datatype* t, std::vector<uint32_t> ready) {
  const int n = a.c->local_size(), me = a.c->rank;
  int mask = 1;
  while (mask < n) {
    if (me & mask) {
      ready = {add_recv(b, local_peer(a, me - mask), buf, count, t, {})};
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (me + mask < n) add_send(b, local_peer(a, me + mask), buf, count, t, ready);
  return ready;
}

// Binomial reduction of the local group's count elements of t (each rank's send slot) to its rank
// 0, in rank order (lower ranks on the left, as the standard orders a reduction: any op, commutative
// or not). On return at rank 0, *result is the reduced data and *done the step that completes it;
// at the other ranks *done is their last send. A group of one reduces nothing: *result is the send
// slot and *done empty.
inline void group_reduce(const coll_args& a, builder& b, int64_t count, const core::datatype* t, buf_ref* result,
                         std::vector<uint32_t>* done) {
  const int n = a.c->local_size(), me = a.c->rank;
  b.set_op(a.op);
  if (n == 1) {
    *result = buf_ref{slot_send, 0};
    done->clear();
    return;
  }
  buf_ref acc = temp_buffer(b, t, count);
  buf_ref other = temp_buffer(b, t, count);
  uint32_t last = b.copy(buf_ref{slot_send, 0}, acc, count, t);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (me & mask) {
      last = b.send(local_peer(a, me - mask), acc, count, t, {last});
      break;
    }
    if (me + mask < n) {
      const uint32_t r = b.recv(local_peer(a, me + mask), other, count, t, {last});
      last = b.reduce(acc, other, count, t, {r});  // other = acc op child's (higher ranks)
      std::swap(acc, other);
    }
  }
  *result = acc;
  *done = {last};
}

}  // namespace baton::coll::inter
