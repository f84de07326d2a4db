// Single-copy reduce on one host (the communicator's region, where every rank may read and write
// the others' memory): as the single-copy allreduce (allreduce_single_copy.cpp), each rank
// announces its buffers with its arrived flag and reduces 1/n of the elements straight from the
// peers' send buffers, 64 KiB at a time, but writes its share into the root's receive buffer only
// (a non-root accumulates in its scratch). Any op (rank order); types whose elements lie back to
// back; the root may give MPI_IN_PLACE.
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {

// Announces this rank's buffers once run q may use its flag slot and its large buffer (the
// chunk scratch). A non-root's receive buffer is never used (it may have none).
bool announce(const poll_ctx& x, const step& s) {
  const int64_t lb = s.type->true_lb();
  char* recv = x.g->me == s.peer ? x.address(s.b) + lb : nullptr;
  return shm::announce_buffers(x, x.address(s.a) + lb, recv, shm::slot_bytes, s.count * s.type->size());
}

// s.peer: the root.
bool reduce_share(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const uint64_t q = x.seq;
  return shm::single_copy_step(
      x,
      [&] {
        shm::reduce_share(x, s, g.data(g.me, q, shm::slot_bytes), shm::slot_bytes, s.peer,
                          [&g, q](int r) { return g.announced(r, q); });
      },
      [] {}, s.count * s.type->size());
}

}  // namespace

errc reduce_single_copy(const coll_args& a, builder& b) {
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0};
  const buf_ref in = a.in_place && a.c->rank == a.root ? out : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(announce, a.root, in, out, a.count, a.type);
  b.poll(reduce_share, a.root, in, out, a.count, a.type, {p});
  return errc::success;
}

}  // namespace baton::coll
