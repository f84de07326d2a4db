// Bruck alltoall: ceil(log2 n) rounds instead of n - 1 messages, for small blocks. The blocks are
// first rotated into a work buffer (work[i] = the block for rank me + i); in the round for bit k
// every block whose index has bit k set goes to rank me + k, packed into one message, and the
// blocks received from rank me - k take their places. At the end work[i] holds the block from rank
// me - i. Everything after the first copy is in the receive type's layout.
#include <algorithm>

#include "coll/algorithms/alltoall/alltoall_exchange.hpp"

namespace baton::coll {

errc alltoall_bruck(const coll_args& a, builder& b) {
  const int n = a.c->size, me = a.c->rank;
  const int64_t rc = a.rcount;
  const core::datatype* rt = a.rtype;
  const buf_ref recv{slot_recv, 0};
  const buf_ref work = temp_buffer(b, rt, n * rc);

  // Rotation: blocks me..n-1 to work[0..n-me), blocks 0..me-1 to work[n-me..n).
  std::vector<uint32_t> init;
  if (a.in_place) {
    init.push_back(b.copy(at(recv, rt, me * rc), work, (n - me) * rc, rt));
    if (me > 0) init.push_back(b.copy(recv, at(work, rt, (n - me) * rc), me * rc, rt));
  } else {
    const buf_ref send{slot_send, 0};
    const int64_t sc = a.count;
    const core::datatype* st = a.type;
    init.push_back(a2a_convert(b, me, at(send, st, me * sc), (n - me) * sc, st, work, (n - me) * rc, rt, {}));
    if (me > 0) init.push_back(a2a_convert(b, me, send, me * sc, st, at(work, rt, (n - me) * rc), me * rc, rt, {}));
  }
  uint32_t last = init.size() == 1 ? init[0] : join(b, init);

  if (n > 1) {
    int most = 0;  // the most blocks one round moves
    for (int k = 1; k < n; k <<= 1) {
      int m = 0;
      for (int i = 0; i < n; ++i) m += (i & k) != 0;
      most = std::max(most, m);
    }
    const buf_ref pack = temp_buffer(b, rt, most * rc);
    const buf_ref unpack = temp_buffer(b, rt, most * rc);
    for (int k = 1; k < n; k <<= 1) {
      // Runs of blocks with bit k set: [k, 2k), [3k, 4k), ...
      std::vector<uint32_t> packed, unpacked;
      std::vector<std::pair<int, int>> runs;
      int64_t m = 0;
      for (int lo = k; lo < n; lo += 2 * k) {
        const int len = std::min(k, n - lo);
        runs.emplace_back(lo, len);
        packed.push_back(b.copy(at(work, rt, lo * rc), at(pack, rt, m * rc), len * rc, rt, {last}));
        m += len;
      }
      const uint32_t packed_all = packed.size() == 1 ? packed[0] : join(b, packed);
      const uint32_t s = b.send((me + k) % n, pack, m * rc, rt, {packed_all});
      const uint32_t r = b.recv((me - k + n) % n, unpack, m * rc, rt, {last});
      int64_t off = 0;
      for (auto [lo, len] : runs) {
        unpacked.push_back(b.copy(at(unpack, rt, off * rc), at(work, rt, lo * rc), len * rc, rt, {r, packed_all}));
        off += len;
      }
      unpacked.push_back(s);  // the pack buffer is free again when the send has left it
      last = join(b, unpacked);
    }
  }
  // recv[me - i] = work[i]
  for (int i = 0; i < n; ++i) b.copy(at(work, rt, i * rc), at(recv, rt, ((me - i + n) % n) * rc), rc, rt, {last});
  return errc::success;
}

}  // namespace baton::coll
