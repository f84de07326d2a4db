// Intercommunicator alltoall, alltoallv and alltoallw (one build function, registered for all
// three): local rank i sends its block j to remote rank j and receives remote rank j's block (the
// blocks of each form as for the intracommunicator ones: a2a_blocks_build), starting with remote
// rank i mod R. Every message goes straight to its destination.
#include "coll/algorithms/alltoall/alltoall_exchange.hpp"
#include "coll/algorithms/inter/inter_common.hpp"

namespace baton::coll {

errc inter_alltoall_linear(const coll_args& a, builder& b) {
  using namespace inter;
  a2a_blocks k;
  a2a_blocks_build(a, b, k);
  const int n = a.c->size;
  for (int s = 0; s < n; ++s) {
    const int j = (a.c->rank + s) % n;
    b.recv(remote_peer(a, j), k.dst[j], k.rcount[j], k.rtype[j]);
    b.send(remote_peer(a, j), k.src[j], k.scount[j], k.stype[j]);
  }
  return errc::success;
}

}  // namespace baton::coll
