// Intercommunicator gather: every process of the remote group sends its block straight to the root
// (MPI_ROOT), which receives block j from remote rank j at j * rcount elements of its receive type.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_gather_linear(const coll_args& a, builder& b) {
  using namespace inter;
  if (a.root == root_here) {
    for (int j = 0; j < a.c->size; ++j)
      b.recv(remote_peer(a, j), at(buf_ref{slot_recv, 0}, a.rtype, j * a.rcount), a.rcount, a.rtype);
  } else if (a.root != root_elsewhere) {
    b.send(remote_peer(a, a.root), buf_ref{slot_send, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
