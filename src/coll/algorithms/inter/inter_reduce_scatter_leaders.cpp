// Intercommunicator reduce_scatter and reduce_scatter_block: each group reduces its whole send
// vectors to its leader (binomial, rank order), the leaders exchange the reduced vectors, and each
// leader scatters the remote group's result over its group by the local receive counts (every
// process has them: recvcounts has one entry per local process; the block form has recvcount
// each). The two groups' totals must agree, as the standard requires.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

namespace {
errc build(const coll_args& a, builder& b) {
  using namespace inter;
  const int n = a.c->local_size(), me = a.c->rank;
  const core::datatype* t = a.type;
  const bool block = a.kind == coll_kind::reduce_scatter_block;
  auto count_of = [&](int i) { return block ? a.count : a.rcounts[i]; };
  std::vector<int64_t> first(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) first[i + 1] = first[i] + count_of(i);
  const int64_t total = first[n];
  buf_ref result;
  std::vector<uint32_t> done;
  group_reduce(a, b, total, t, &result, &done);
  const buf_ref out{slot_recv, 0};
  if (me != 0) {
    b.recv(local_peer(a, 0), out, count_of(me), t);
    return errc::success;
  }
  const buf_ref in = temp_buffer(b, t, total);
  add_send(b, remote_peer(a, 0), result, total, t, done);
  const uint32_t got = b.recv(remote_peer(a, 0), in, total, t);
  b.copy(in, out, count_of(0), t, {got});
  for (int i = 1; i < n; ++i) b.send(local_peer(a, i), at(in, t, first[i]), count_of(i), t, {got});
  return errc::success;
}
}  // namespace

errc inter_reduce_scatter_leaders(const coll_args& a, builder& b) { return build(a, b); }
errc inter_reduce_scatter_block_leaders(const coll_args& a, builder& b) { return build(a, b); }

}  // namespace baton::coll
