// Intercommunicator broadcast: the root (MPI_ROOT) sends to the remote group's rank 0, which
// broadcasts along a binomial tree inside its group. The root's group (MPI_PROC_NULL) does nothing
// else. The buffer is the receive slot everywhere.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_bcast_binomial(const coll_args& a, builder& b) {
  using namespace inter;
  const buf_ref buf{slot_recv, 0};
  if (a.root == root_here) {
    b.send(remote_peer(a, 0), buf, a.count, a.type);
  } else if (a.root != root_elsewhere) {
    std::vector<uint32_t> ready;
    if (a.c->rank == 0) ready = {b.recv(remote_peer(a, a.root), buf, a.count, a.type)};
    group_bcast(a, b, buf, a.count, a.type, ready);
  }
  return errc::success;
}

}  // namespace baton::coll
