// Shared-memory allreduce: every rank copies its input into its data buffer in the communicator's
// region and raises its flag; once all flags show this run, every rank reduces all inputs in rank
// order into its receive buffer (src/coll/shm_region.hpp). Any op, commutative or not; contiguous
// datatypes; messages up to shm::slot_bytes, or single copy for persistent ones (below).
#include "coll/algorithms/shm_common.hpp"

namespace baton::coll {

namespace {
// Single copy (persistent, shm::region::copy_all with peer_recv): rank r owns elements
// [r * per, r * per + its count) with per = count / n (the last rank takes the remainder). Once
// every rank has started the run, it reduces its block in rank order straight from the peers'
// bound send buffers (process_vm_readv; x_{n-1} lands in the receive buffer, then out = x_r op
// out for r = n-2 .. 0, so non-commutative ops are right), writes the result into every peer's
// bound receive buffer (process_vm_writev) and stores done; it finishes once every rank is done
// (its blocks are here and nobody reads this rank's send buffer any more). Both ends of every
// copy work, and every source is the user's clean buffer or the reducing rank's own result.
struct block_range {
  int64_t first, count;
};
block_range block_of(int64_t count, int n, int r) {
  const int64_t per = count / n;
  return {r * per, r == n - 1 ? count - r * per : per};
}

void fail(const poll_ctx& x, const char* what) { x.fail(core::error_set(errc::other, "%s", what)); }

bool combine_single_copy(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  std::atomic<uint64_t>& mine = g.done(g.me, 0);
  if (mine.load(std::memory_order_relaxed) < x.seq) {
    if (!g.all_arrived(x.seq)) return false;
    const core::datatype* t = s.type;
    const int64_t size = t->size();
    const block_range b = block_of(s.count, g.n, g.me);
    const int64_t off = b.first * size, bytes = b.count * size;
    char* out = x.address(s.b) + t->true_lb() + off;              // this rank's block, packed bytes
    const char* in = x.address(s.a) + t->true_lb() + off;          // its own input block
    char* tmp = g.data(g.me, x.seq, s.count * size);               // scratch: one block
    auto read = [&](int r, char* dst) {
      if (!shm::region::read_from(g.peer_pid[size_t(r)], g.peer_addr[size_t(r)] + uint64_t(off), dst, bytes))
        fail(x, "process_vm_readv of an allreduce peer's send buffer failed");
    };
    if (bytes > 0) {
      const int last = g.n - 1;
      if (last == g.me)
        core::copy_bytes(out, in, size_t(bytes));
      else
        read(last, out);
      for (int r = g.n - 2; r >= 0; --r) {
        const char* src = in;
        if (r != g.me) {
          read(r, tmp);
          src = tmp;
        }
        const errc e = core::reduce_typed(*x.op, src - t->true_lb(), out - t->true_lb(), b.count, *t, type_abi_handle(t));
        if (e != errc::success) x.fail(e);
      }
      for (int r = 0; r < g.n; ++r)
        if (r != g.me && !shm::region::write_to(g.peer_pid[size_t(r)], g.peer_recv[size_t(r)] + uint64_t(off), out, bytes))
          fail(x, "process_vm_writev into an allreduce peer's receive buffer failed");
    }
    g.publish(mine, x.seq);
  }
  for (int r = 0; r < g.n; ++r)
    if (g.done(r, 0).load(std::memory_order_acquire) < x.seq) return false;
  return true;
}

bool publish(const poll_ctx& x, const step& s) {
  const shm::region& g = *x.g;
  if (!g.peer_recv.empty()) {  // single copy: the peers read the send buffer itself
    g.publish(g.arrived(g.me, g.slot_of(x.seq)), x.seq);
    return true;
  }
  return shm::publish_input(x, s, false);
}
bool combine(const poll_ctx& x, const step& s) {
  if (!x.g->peer_recv.empty()) return combine_single_copy(x, s);
  return shm::combine_inputs(x, s);
}
}  // namespace

errc allreduce_shm(const coll_args& a, builder& b) {
  b.set_op(a.op);
  b.shm_data(a.count * a.type->size());
  const buf_ref in = a.in_place ? buf_ref{slot_recv, 0} : buf_ref{slot_send, 0};
  const uint32_t p = b.poll(publish, 0, in, {}, a.count, a.type);
  b.poll(combine, 0, in, buf_ref{slot_recv, 0}, a.count, a.type, {p});  // s.a: single copy reads its own block
  return errc::success;
}

}  // namespace baton::coll
