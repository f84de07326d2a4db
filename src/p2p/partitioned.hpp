// Partitioned point-to-point communication (MPI-4.1 chapter 4): MPI_Psend_init / MPI_Precv_init,
// MPI_Pready(_range, _list), MPI_Parrived. Built on the engine's internal requests.
//
// Matching. Partitioned traffic runs on two matching contexts of the communicator that nothing
// else uses: ctx + 65536 carries the sender's hello, ctx + 65537 the receiver's reply and the data
// (ctx + 32768 and ctx + 32769 belong to matched requests, src/p2p/matched.cpp). At init the
// sender sends a hello (its partitioning) tagged with the user's tag and posts a receive for the
// reply; the receiver posts a receive for the hello. The engine matches in posting order per
// (source, tag), so the Nth MPI_Psend_init meets the Nth MPI_Precv_init of the same (communicator,
// peer, tag), once, at init, without blocking. The receiver answers with its partitioning and a
// block of data tags (negative, so never a reply's tag) that identifies the pair from then on.
//
// Data. Both ends split the message the same way: into blocks of lcm(sender partition bytes,
// receiver partition bytes), so each block is whole partitions at both ends, and join blocks so
// that a start moves at most max_messages messages. Each message is an ordinary engine message
// (shared memory or UCX) sent as soon as its last sender partition is marked ready and the pair is
// matched; the receiver posts one receive per message at each start. MPI_Parrived reports a
// partition once the message holding it is complete. Unequal total sizes are received as one
// message and reported as MPI_ERR_TRUNCATE at the receiver.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "core/request.hpp"

namespace baton::core {
class comm;
class datatype;
}  // namespace baton::core

namespace baton::p2p {

// Persistent partitioned requests (kind partitioned), created inactive. Arguments are checked by
// the caller (partitions >= 0, count >= 0, rank valid or proc_null, tag >= 0).
[[nodiscard]] core::errc psend_init(const void* buf, int partitions, int64_t count, const core::datatype* dt, int dest,
                                    int tag, core::comm* c, core::request** out);
[[nodiscard]] core::errc precv_init(void* buf, int partitions, int64_t count, const core::datatype* dt, int source,
                                    int tag, core::comm* c, core::request** out);

bool is_partitioned(const core::request* r);

// MPI_Pready / MPI_Pready_range / MPI_Pready_list: marks the listed partitions of an active send
// request ready. Either every listed partition is marked or none (errc::arg with a message when a
// partition is out of range, already ready in this start, or listed twice; errc::request when the
// request is not an active partitioned send).
[[nodiscard]] core::errc pready_list(core::request* r, const int* parts, int n);
[[nodiscard]] core::errc pready_range(core::request* r, int low, int high);

// MPI_Parrived: *flag true once partition `partition` of the receive is in the buffer (always true
// for an inactive request). Drives progress.
[[nodiscard]] core::errc parrived(core::request* r, int partition, bool* flag);

// MPI_Finalize: releases the state of freed requests whose peer never answered.
void partitioned_finalize();

}  // namespace baton::p2p
