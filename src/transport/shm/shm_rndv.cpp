// Shared-memory transport, rendezvous at the receiver: a matched receive reads the sender's buffer
// with process_vm_readv (single copy), shares the copy with the sender (copy jobs, from
// coop_min), or asks the sender to stream the data through the pair's bulk channel (pkt_cts).
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

#include "transport/shm/shm.hpp"

namespace baton::transport::shm {

void ops::rndv_fetch(request* r, uint32_t local, uint64_t cookie, const rndv_ref& ref) {
  state& e = st();
  peer_state& p = e.peers[local];
  const bool cma = ref.flags & flag_cma;
  const uint64_t addr = ref.addr;
  r->cookie = cookie;
  r->peer_world = p.proc;
  uint64_t want = std::min(r->msg_len, r->total);
  // Not when this rank sends a rendezvous message to that peer too (an exchange): the peer is
  // then busy reading it, and a job would only split both copies into more system calls.
  if (cma && e.cma_ok && e.cma_proven && e.coop_min && p.rndv_out == 0 && want == r->msg_len && want >= e.coop_min &&
      want >= e.cma_min && r->dt->is_contiguous() && coop_start(r, p, cookie, addr, want))
    return;
  if (cma && e.cma_ok && r->dt->is_contiguous() && r->msg_len >= e.cma_min) {
    struct iovec local_iov {
      static_cast<char*>(r->buf) + r->dt->true_lb(), want
    };
    struct iovec remote {
      reinterpret_cast<void*>(addr), want
    };
    pid_t pid = e.seg.area(p.local).pid;
    uint64_t got = 0;
    while (got < want) {
      local_iov.iov_base = static_cast<char*>(r->buf) + r->dt->true_lb() + got;
      local_iov.iov_len = want - got;
      remote.iov_base = reinterpret_cast<char*>(addr) + got;
      remote.iov_len = want - got;
      ssize_t n = ::process_vm_readv(pid, &local_iov, 1, &remote, 1, 0);
      if (n <= 0) break;
      got += static_cast<uint64_t>(n);
    }
    if (got == want) {
      e.cma_proven = true;
      send_ctrl(p.local, pkt_fin, cookie, 0);
      r->done = r->msg_len;
      up::received(r);
      return;
    }
    e.cma_ok = false;  // not permitted here: fall back to the pipelined copy from now on
    r->done = 0;
  }
  ++p.bulk_in;
  send_ctrl(p.local, pkt_cts, cookie, reinterpret_cast<uint64_t>(r));
}

}  // namespace baton::transport::shm
