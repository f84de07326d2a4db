// Single-copy allreduce on one host (the communicator's region, where every rank may read and
// write the others' memory): each rank announces where its buffers are with its arrived flag,
// then reduces 1/n of the elements straight from the peers' send buffers (process_vm_readv) and
// writes its share of the result into every receive buffer (process_vm_writev). It works chunk
// by chunk, so a chunk it has just reduced is still in its cache when it is written out. A rank
// finishes once every rank is done: nobody reads its send buffer or writes its receive buffer any
// more. Per rank about 2(n-1)/n of the message crosses processes, each byte once, against a copy
// in and a copy out (the region) or a pipeline of messages (ring, Rabenseifner). Any op (the
// share is reduced in rank order); types whose elements lie back to back; in place too (the
// receive buffers hold the inputs).
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {

// Announces this rank's buffers once run q may use its flag slot and its large buffer (the
// chunk scratch).
bool announce(const poll_ctx& x, const step& s) {
  const int64_t lb = s.type->true_lb();
  return shm::announce_buffers(x, x.address(s.a) + lb, x.address(s.b) + lb, shm::slot_bytes, s.count * s.type->size());
}

// Reduces this rank's share once every rank has announced, writes it to every rank, stores done;
// complete once every rank's done shows the run.
bool reduce_share(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  const uint64_t q = x.seq;
  return shm::single_copy_step(
      x,
      [&] {
        shm::reduce_share(x, s, g.data(g.me, q, shm::slot_bytes), shm::slot_bytes, -1,
                          [&g, q](int r) { return g.announced(r, q); });
      },
      [] {}, s.count * s.type->size());
}

}  // namespace

errc allreduce_single_copy(const coll_args& a, builder& b) {
  b.set_op(a.op);
  const buf_ref out{slot_recv, 0}, in = a.in_place ? out : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(announce, 0, in, out, a.count, a.type);
  b.poll(reduce_share, 0, in, out, a.count, a.type, {p});
  return errc::success;
}

}  // namespace baton::coll
