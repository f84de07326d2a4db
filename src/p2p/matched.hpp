// Matched point-to-point requests (MPI_Match on persistent sends and receives, draft chapter 13).
//
// Matching pairs one persistent send with one persistent receive once, by a handshake on a
// context of the communicator that ordinary traffic never uses (ctx + 32768: agreed contexts stay
// below 32768), with the usual rules: (communicator, source, tag), and the order of the Match
// calls between a pair of ranks breaks ties (the offers travel in order, the receives post in
// order). The sender offers {its channel id, bytes per message, mode}; the receiver answers
// {its channel id, capacity, receive buffer address when contiguous, protocol}. From then on the
// pair talks through a *channel*:
//
// - eager (message <= BATON_SHM_EAGER_MAX, standard/ready/buffered mode): a start emits the data
//   in ring slots tagged with the receiver's channel id; the receiver copies it straight into the
//   receive buffer when that receive is started, or keeps it in the channel's FIFO of early
//   arrivals until the next start (no tag matching either way);
// - gated (larger, or synchronous mode): each receive start sends one credit; a send start waits
//   for a credit, then writes the data into the receive buffer with process_vm_writev (single
//   copy, both buffers contiguous) and sends a FIN, or streams it through the ring. Data never
//   lands in a receive buffer before its receive is started;
// - self: the send copies into the receive when that is started, or waits for it;
// - remote (the peer is on another host, reached through UCX): the receiver's answer carries a
//   wire tag (from a per-process counter, never reused); both sides prepare one internal request
//   at match time on ctx + 32769 (unused by anything else) with that tag, and every start
//   restarts it, so the data travels as an ordinary engine message (eager or UCX rendezvous) that
//   only this channel's receive can match, and lands only once the receive is started.
//
// Channel ids are (generation << 32 | index) into a table, so a packet for a freed channel is
// dropped instead of touching freed memory. A matched request's start goes through its
// request_ops::on_start (matched_ops), so MPI_Start, MPI_Startall and queues all use this path.
#pragma once

#include "p2p/p2p.hpp"

namespace baton::p2p {

// Begins matching the inactive, unmatched persistent point-to-point request r. When the pairing is
// resolved, sets r->match_done and calls done(arg, error) (engine lock held, from progress).
// Expects the engine lock held.
[[nodiscard]] errc match_begin(request* r, void (*done)(void*, errc), void* arg);

}  // namespace baton::p2p
