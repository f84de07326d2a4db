// Intercommunicator reduce: the remote group reduces its send buffers to its rank 0 along a
// binomial tree in rank order (inter::group_reduce), which sends the result to the root
// (MPI_ROOT). The root's group (MPI_PROC_NULL) does nothing else.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_reduce_binomial(const coll_args& a, builder& b) {
  using namespace inter;
  if (a.root == root_here) {
    b.recv(remote_peer(a, 0), buf_ref{slot_recv, 0}, a.count, a.type);
  } else if (a.root != root_elsewhere) {
    buf_ref result;
    std::vector<uint32_t> done;
    group_reduce(a, b, a.count, a.type, &result, &done);
    if (a.c->rank == 0) add_send(b, remote_peer(a, a.root), result, a.count, a.type, done);
  }
  return errc::success;
}

}  // namespace baton::coll
