// Intercommunicator allgather: every process sends its block to every remote process and receives
// remote rank j's block at j * rcount elements of its receive type. Each process moves what it
// must anyway (its block out to R peers, R blocks in); local rank i starts with remote rank i mod R
// so that the remote group's ranks are not all hit at once.
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_allgather_linear(const coll_args& a, builder& b) {
  using namespace inter;
  const int n = a.c->size;
  for (int k = 0; k < n; ++k) {
    const int j = (a.c->rank + k) % n;
    b.recv(remote_peer(a, j), at(buf_ref{slot_recv, 0}, a.rtype, j * a.rcount), a.rcount, a.rtype);
    b.send(remote_peer(a, j), buf_ref{slot_send, 0}, a.count, a.type);
  }
  return errc::success;
}

}  // namespace baton::coll
