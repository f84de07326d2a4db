// Intercommunicator allreduce: each group reduces its send buffers to its leader (rank 0) along a
// binomial tree in rank order, the leaders exchange the results, and each leader broadcasts the
// remote group's result inside its group (binomial): every process receives the reduction of the
// remote group's data.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_allreduce_leaders(const coll_args& a, builder& b) {
  using namespace inter;
  buf_ref result;
  std::vector<uint32_t> done;
  group_reduce(a, b, a.count, a.type, &result, &done);
  const buf_ref out{slot_recv, 0};
  std::vector<uint32_t> ready;
  if (a.c->rank == 0) {
    add_send(b, remote_peer(a, 0), result, a.count, a.type, done);
    ready = {b.recv(remote_peer(a, 0), out, a.count, a.type)};
  }
  group_bcast(a, b, out, a.count, a.type, ready);
  return errc::success;
}

}  // namespace baton::coll
