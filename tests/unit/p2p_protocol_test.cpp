// Point-to-point protocols of src/p2p (matching) over the transports of src/transport (shared
// memory, self) between real processes: the test forks the ranks
// and serves them PMI-1 itself (pmi_fake.hpp). Each rank starts the runtime, moves byte buffers
// of sizes chosen to hit one protocol (eager in one slot, eager over several slots, rendezvous
// through the bulk channel, rendezvous with process_vm_readv, messages to oneself), checks data
// and status, and reports its failed checks as its exit status.
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/datatype.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "p2p/engine_state.hpp"
#include "transport/shm/shm.hpp"
#include "p2p/p2p.hpp"
#include "pmi_fake.hpp"

namespace baton::p2p {
namespace {

using core::errc;
using core::req_status;
using core::send_mode;
using testing::rank_checks;
using env_list = std::vector<std::pair<std::string, std::string>>;

constexpr uint32_t k_mpi_byte = 0x247;
constexpr uint64_t k_mb = 1 << 20;

const datatype* byte_type() { return core::predefined_datatype(k_mpi_byte); }
transport::shm::state& shm_state() { return transport::shm::st(); }
comm* world() { return core::rt().world; }

std::string unique_kvs() {
  static int counter = 0;
  return "ut" + std::to_string(::getpid()) + "k" + std::to_string(counter++);
}

// Message contents: a function of the offset and a per-message seed.
std::vector<char> pattern(size_t n, uint32_t seed) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
  return v;
}

bool same_prefix(const std::vector<char>& got, const std::vector<char>& want, size_t n) {
  return got.size() >= n && want.size() >= n && (n == 0 || std::memcmp(got.data(), want.data(), n) == 0);
}

// Reads the status and returns the request to the pool, as MPI_Wait would.
req_status retire(request* r) {
  req_status st = r->status;
  r->c->release();
  r->dt->release();
  core::request_delete(r);
  return st;
}

req_status wait_retire(rank_checks& ck, request* r) {
  ck.expect(wait(r) == errc::success, "wait");
  ck.expect(r->is_complete(), "request complete after wait");
  return retire(r);
}

request* post_recv(rank_checks& ck, std::vector<char>& buf, int src, int tag) {
  request* r = nullptr;
  ck.expect(irecv(buf.data(), static_cast<int64_t>(buf.size()), byte_type(), src, tag, world(), &r) == errc::success,
            "irecv");
  return r;
}

request* post_send(rank_checks& ck, const std::vector<char>& buf, int dst, int tag,
                   send_mode mode = send_mode::standard) {
  request* r = nullptr;
  ck.expect(isend(buf.data(), static_cast<int64_t>(buf.size()), byte_type(), dst, tag, world(), mode, &r) ==
                errc::success,
            "isend");
  return r;
}

// A one-byte control message (tags >= 10000 so they never meet the data tags). Not zero bytes:
// see ZeroByteSendIntoFullRingIsNotLost.
void note(rank_checks& ck, int dst, int tag) {
  const char b = 'n';
  ck.expect(send(&b, 1, byte_type(), dst, tag, world(), send_mode::standard) == errc::success, "note send");
}
void await_note(rank_checks& ck, int src, int tag) {
  char b = 0;
  req_status st;
  ck.expect(recv(&b, 1, byte_type(), src, tag, world(), &st) == errc::success, "note recv");
  ck.expect(b == 'n' && st.bytes == 1, "note contents");
}

// Waits at most `limit` for r; on timeout cancels it (a lost message must fail the check, not
// hang the job). Returns the status, with `arrived` telling which happened.
req_status wait_or_cancel(rank_checks& ck, request* r, bool* arrived,
                          std::chrono::milliseconds limit = std::chrono::milliseconds(1000)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!r->is_complete() && std::chrono::steady_clock::now() < until) (void)poll();
  *arrived = r->is_complete();
  if (!*arrived) ck.expect(cancel(r) == errc::success, "cancel");
  return wait_retire(ck, r);
}

void expect_status(rank_checks& ck, const req_status& st, int src, int tag, uint64_t bytes, errc err,
                   const std::string& what) {
  ck.expect(st.source == src, what + ": status.source " + std::to_string(st.source));
  ck.expect(st.tag == tag, what + ": status.tag " + std::to_string(st.tag));
  ck.expect(st.bytes == bytes, what + ": status.bytes " + std::to_string(st.bytes) + " want " + std::to_string(bytes));
  ck.expect(st.error == err, what + ": status.error " + std::to_string(static_cast<int>(st.error)));
}

// Starts the runtime as rank `rank`, runs `body`, shuts down; returns the number of failures.
int as_rank(int rank, const std::function<void(rank_checks&)>& body) {
  rank_checks ck;
  ck.rank = rank;
  core::thread_level provided;
  if (core::runtime_hook_add(&p2p::runtime_hook) != errc::success ||
      core::runtime_init(core::thread_level::single, &provided) != errc::success) {
    std::fprintf(stderr, "[rank %d] runtime_init: %s\n", rank, core::error_message().c_str());
    return 90;
  }
  body(ck);
  if (core::runtime_finalize() != errc::success) {
    std::fprintf(stderr, "[rank %d] runtime_finalize: %s\n", rank, core::error_message().c_str());
    return 91;
  }
  return ck.failures;
}

// Runs a job of `n` ranks with `env` and expects every rank to pass.
void run_job(int n, const env_list& env, const std::function<void(rank_checks&, int)>& body) {
  auto res = testing::run_ranks(n, unique_kvs(), env, [&](int rank) {
    return as_rank(rank, [&](rank_checks& ck) { body(ck, rank); });
  });
  ASSERT_EQ(res.size(), static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    EXPECT_TRUE(res[static_cast<size_t>(r)].exited_ok()) << "rank " << r << ": " << res[static_cast<size_t>(r)].describe();
}

// The default geometry: 8256-byte slots carry 8208 bytes; eager up to 32 KiB; 64 KiB chunks.
constexpr uint64_t k_slot = 8192 + 64 - sizeof(transport::shm::pkt_header);
constexpr uint64_t k_eager_max = 32768;

// Sizes that hit each protocol with the default thresholds.
const std::vector<uint64_t>& eager_sizes() {
  static const std::vector<uint64_t> v{0, 1, 8, 64, 65, k_slot - 1, k_slot, k_slot + 1, 3 * k_slot, k_eager_max};
  return v;
}
const std::vector<uint64_t>& rndv_sizes() {
  static const std::vector<uint64_t> v{k_eager_max + 1, 3 * 65536, k_mb, k_mb + 123};
  return v;
}

// Receives posted before the data leaves: rank 1 posts, then tells rank 0 to send.
void posted_first(rank_checks& ck, int rank, const std::vector<uint64_t>& sizes, send_mode mode) {
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int tag = static_cast<int>(k);
    const auto want = pattern(sizes[k], static_cast<uint32_t>(k));
    if (rank == 0) {
      await_note(ck, 1, 10000 + tag);
      req_status st = wait_retire(ck, post_send(ck, want, 1, tag, mode));
      ck.expect(st.error == errc::success, "send status");
    } else {
      std::vector<char> got(sizes[k], 0);
      request* r = post_recv(ck, got, 0, tag);
      note(ck, 0, 10000 + tag);
      req_status st = wait_retire(ck, r);
      expect_status(ck, st, 0, tag, sizes[k], errc::success, "posted size " + std::to_string(sizes[k]));
      ck.expect(got == want, "data of posted size " + std::to_string(sizes[k]));
    }
  }
}

// Messages that arrive before their receive: rank 0 sends everything, then a note behind it;
// rank 1 takes the note first, so the data waits in the unexpected queue. Receives go in reverse.
void unexpected_first(rank_checks& ck, int rank, const std::vector<uint64_t>& sizes, send_mode mode) {
  const int n = static_cast<int>(sizes.size());
  if (rank == 0) {
    std::vector<std::vector<char>> bufs;
    std::vector<request*> reqs;
    for (int k = 0; k < n; ++k) bufs.push_back(pattern(sizes[static_cast<size_t>(k)], static_cast<uint32_t>(k + 50)));
    for (int k = 0; k < n; ++k) reqs.push_back(post_send(ck, bufs[static_cast<size_t>(k)], 1, k, mode));
    note(ck, 1, 10000);
    for (request* r : reqs) ck.expect(wait_retire(ck, r).error == errc::success, "send status");
  } else {
    await_note(ck, 0, 10000);
    for (int k = n - 1; k >= 0; --k) {
      const uint64_t len = sizes[static_cast<size_t>(k)];
      std::vector<char> got(len, 0);
      req_status st = wait_retire(ck, post_recv(ck, got, 0, k));
      expect_status(ck, st, 0, k, len, errc::success, "unexpected size " + std::to_string(len));
      ck.expect(got == pattern(len, static_cast<uint32_t>(k + 50)), "data of unexpected size " + std::to_string(len));
    }
  }
}

// ---- eager ----

TEST(ProtocolEager, SizesPostedFirst) {
  run_job(2, {}, [](rank_checks& ck, int rank) {
    ck.expect(shm_state().on, "two local ranks use shared memory");
    ck.expect(shm_state().seg.slot_payload() == k_slot, "default slot payload");
    ck.expect(shm_state().eager_max == k_eager_max, "default eager limit");
    // The seam: this rank through the self transport, the other through shared memory, whose
    // capabilities say what the p2p layer may do with it.
    const transport::route me = transport::route_of(rank), other = transport::route_of(1 - rank);
    ck.expect(me.via == transport::kind::self, "a rank reaches itself through the self transport");
    ck.expect(other.via == transport::kind::shm && other.index == uint32_t(1 - rank),
              "the other rank of this host is reached through shared memory, by its index on the host");
    const transport::caps& c = transport::caps_of(transport::kind::shm);
    ck.expect(c.eager_max == k_eager_max && c.inject_max == k_slot && c.eager_sync && !c.loopback,
              "shared-memory capabilities: eager limit, one slot injected, synchronous eager messages");
    ck.expect(transport::caps_of(transport::kind::self).loopback && !transport::caps_of(transport::kind::self).eager_sync,
              "self capabilities: loopback, synchronous sends by rendezvous");
    posted_first(ck, rank, eager_sizes(), send_mode::standard);
  });
}

TEST(ProtocolEager, SizesUnexpected) {
  run_job(2, {}, [](rank_checks& ck, int rank) { unexpected_first(ck, rank, eager_sizes(), send_mode::standard); });
}

TEST(ProtocolEager, BlockingPingPong) {
  // send() takes its one-slot fast path up to a slot's payload and the request path above it.
  run_job(2, {}, [](rank_checks& ck, int rank) {
    for (uint64_t len : eager_sizes()) {
      const int tag = static_cast<int>(len % 30000);
      const auto ping = pattern(len, 1), pong = pattern(len, 2);
      std::vector<char> got(len, 0);
      req_status st{};
      if (rank == 0) {
        ck.expect(send(ping.data(), static_cast<int64_t>(len), byte_type(), 1, tag, world(), send_mode::standard) ==
                      errc::success,
                  "send");
        ck.expect(recv(got.data(), static_cast<int64_t>(len), byte_type(), 1, tag, world(), &st) == errc::success,
                  "recv");
        expect_status(ck, st, 1, tag, len, errc::success, "pong " + std::to_string(len));
        ck.expect(got == pong, "pong data " + std::to_string(len));
      } else {
        ck.expect(recv(got.data(), static_cast<int64_t>(len), byte_type(), 0, tag, world(), &st) == errc::success,
                  "recv");
        expect_status(ck, st, 0, tag, len, errc::success, "ping " + std::to_string(len));
        ck.expect(got == ping, "ping data " + std::to_string(len));
        ck.expect(send(pong.data(), static_cast<int64_t>(len), byte_type(), 0, tag, world(), send_mode::standard) ==
                      errc::success,
                  "send");
      }
    }
  });
}

// More data in flight than the ring holds: the sender's queue waits for slots and order holds.
TEST(ProtocolEager, BackPressureBeyondRingCapacity) {
  run_job(2, {}, [](rank_checks& ck, int rank) {
    constexpr int k_msgs = 120;  // 120 x 2 slots against a 32-slot ring
    const uint64_t len = 2 * k_slot - 5;
    if (rank == 0) {
      std::vector<std::vector<char>> bufs;
      std::vector<request*> reqs;
      for (int i = 0; i < k_msgs; ++i) bufs.push_back(pattern(len, static_cast<uint32_t>(i)));
      for (int i = 0; i < k_msgs; ++i) reqs.push_back(post_send(ck, bufs[static_cast<size_t>(i)], 1, i));
      note(ck, 1, 10000);
      for (request* r : reqs) wait_retire(ck, r);
    } else {
      // Let the ring fill up before anything is drained.
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      for (int i = 0; i < k_msgs; ++i) {
        std::vector<char> got(len, 0);
        req_status st = wait_retire(ck, post_recv(ck, got, 0, any_tag));
        expect_status(ck, st, 0, i, len, errc::success, "message " + std::to_string(i));
        ck.expect(got == pattern(len, static_cast<uint32_t>(i)), "data of message " + std::to_string(i));
      }
      await_note(ck, 0, 10000);
    }
  });
}

// Regression: emit() in src/p2p/engine.cpp used to lose this message. For a
// zero-byte eager send the loop `while (r->done < r->total || (r->total == 0 && ...))` breaks at
// once when reserve_slot() finds the ring full, nothing is written, and then the check
// `r->done < r->total` (0 < 0) is false, so emit() marks the send data_out, completes it and
// reports the item as emitted: the message is silently dropped. Any zero-byte send (isend, or a
// blocking send that misses the fast path) towards a peer whose ring is full is lost; the receiver
// then matches the next message instead or hangs, and a zero-byte synchronous send never completes.
// Fixed: emit() returns false when total == 0 and no slot was written.
// The ring is filled deterministically: the receiver waits in a PMI barrier, not polling.
TEST(ProtocolEager, ZeroByteSendIntoFullRingIsNotLost) {
  run_job(2, {}, [](rank_checks& ck, int rank) {
    const int nslots = static_cast<int>(shm_state().seg.params().nslots);
    if (rank == 0) {
      std::vector<std::vector<char>> bufs;
      std::vector<request*> reqs;
      for (int i = 0; i < nslots; ++i) bufs.push_back(pattern(8, static_cast<uint32_t>(i)));
      for (int i = 0; i < nslots; ++i) reqs.push_back(post_send(ck, bufs[static_cast<size_t>(i)], 1, i));
      transport::shm::peer_state& p = shm_state().peers[1];
      ck.expect(p.outq.empty() && shm_state().seg.slot(1, shm_state().me_local, p.tx)->full.load() == 1,
                "set-up: the ring to rank 1 is exactly full");
      const std::vector<char> none, last = pattern(8, 99);
      reqs.push_back(post_send(ck, none, 1, nslots));     // zero bytes into the full ring
      reqs.push_back(post_send(ck, last, 1, nslots + 1));  // and a message behind it
      ck.expect(core::rt().pmi.barrier() == errc::success, "pmi barrier");
      for (request* r : reqs) wait_retire(ck, r);
    } else {
      ck.expect(core::rt().pmi.barrier() == errc::success, "pmi barrier");
      for (int i = 0; i < nslots + 2; ++i) {
        std::vector<char> got(8, 0);
        bool arrived = false;
        req_status st = wait_or_cancel(ck, post_recv(ck, got, 0, any_tag), &arrived);
        if (!ck.expect(arrived, "message " + std::to_string(i) + " never arrived")) break;
        const uint64_t len = i == nslots ? 0 : 8;
        expect_status(ck, st, 0, i, len, errc::success, "message " + std::to_string(i));
      }
    }
  });
}

// ---- rendezvous ----

const env_list k_bulk_env{{"BATON_SHM_CMA_MIN", "1000000000000"}};
const env_list k_cma_env{{"BATON_SHM_CMA_MIN", "4096"}};

TEST(ProtocolRendezvous, BulkPostedFirst) {
  run_job(2, k_bulk_env, [](rank_checks& ck, int rank) { posted_first(ck, rank, rndv_sizes(), send_mode::standard); });
}

TEST(ProtocolRendezvous, BulkUnexpected) {
  run_job(2, k_bulk_env,
          [](rank_checks& ck, int rank) { unexpected_first(ck, rank, rndv_sizes(), send_mode::standard); });
}

// A global both ranks have at the same address (they are forks of one process), to find out
// whether process_vm_readv is permitted between them here.
volatile uint64_t g_cma_probe = 0xc0ffee;  // set before fork, so both ranks see it at once

bool cma_permitted(int peer_pid) {
  uint64_t v = 0;
  struct iovec l{&v, sizeof v};
  struct iovec r{const_cast<uint64_t*>(&g_cma_probe), sizeof v};
  return ::process_vm_readv(peer_pid, &l, 1, &r, 1, 0) == static_cast<ssize_t>(sizeof v) && v == 0xc0ffee;
}

void cma_job(rank_checks& ck, int rank, bool unexpected) {
  ck.expect(shm_state().cma_min == 4096, "BATON_SHM_CMA_MIN read");
  const bool permitted = cma_permitted(shm_state().seg.area(static_cast<uint32_t>(1 - rank)).pid);
  if (!permitted && rank == 1) std::fprintf(stderr, "[rank 1] process_vm_readv not permitted: fallback path only\n");
  if (unexpected)
    unexpected_first(ck, rank, rndv_sizes(), send_mode::standard);
  else
    posted_first(ck, rank, rndv_sizes(), send_mode::standard);
  // The receiver keeps using single-copy reads only if they worked.
  if (rank == 1) ck.expect(shm_state().cma_ok == permitted, "cma_ok after the transfers matches what the kernel allows");
}

TEST(ProtocolRendezvous, CmaPostedFirst) {
  run_job(2, k_cma_env, [](rank_checks& ck, int rank) { cma_job(ck, rank, false); });
}

TEST(ProtocolRendezvous, CmaUnexpected) {
  run_job(2, k_cma_env, [](rank_checks& ck, int rank) { cma_job(ck, rank, true); });
}

TEST(ProtocolRendezvous, CmaDisabledFallsBackToBulk) {
  env_list env{{"BATON_SHM_CMA_MIN", "4096"}, {"BATON_SHM_CMA", "0"}};
  run_job(2, env, [](rank_checks& ck, int rank) {
    ck.expect(!shm_state().cma_ok, "BATON_SHM_CMA=0 read");
    posted_first(ck, rank, {k_mb + 7}, send_mode::standard);
  });
}

// A lower eager limit moves small messages to the rendezvous path (the nonblocking path honours it).
TEST(ProtocolRendezvous, EagerLimitFromEnvironment) {
  env_list env{{"BATON_SHM_EAGER_MAX", "100"}};
  run_job(2, env, [](rank_checks& ck, int rank) {
    ck.expect(shm_state().eager_max == 100, "BATON_SHM_EAGER_MAX read");
    posted_first(ck, rank, {0, 100, 101, 5000, 3 * k_slot}, send_mode::standard);
    unexpected_first(ck, rank, {0, 100, 101, 5000, 3 * k_slot}, send_mode::standard);
  });
}

// ---- ordering across protocols ----

// Equal envelopes never overtake, whichever protocol each message takes.
TEST(ProtocolOrder, NonOvertakingAcrossProtocols) {
  run_job(2, k_bulk_env, [](rank_checks& ck, int rank) {
    const std::vector<uint64_t> sizes{k_mb, 8, 3 * k_slot, 0, k_eager_max + 1, k_slot};
    for (bool early : {true, false}) {
      if (rank == 0) {
        std::vector<std::vector<char>> bufs;
        std::vector<request*> reqs;
        if (!early) await_note(ck, 1, 10001);
        for (size_t k = 0; k < sizes.size(); ++k) bufs.push_back(pattern(sizes[k], static_cast<uint32_t>(k)));
        for (size_t k = 0; k < sizes.size(); ++k) reqs.push_back(post_send(ck, bufs[k], 1, 5));
        for (request* r : reqs) wait_retire(ck, r);
      } else {
        std::vector<std::vector<char>> got(sizes.size(), std::vector<char>(k_mb, 0));
        std::vector<request*> reqs;
        // early: the messages are (mostly) unexpected when the receives are posted
        if (early) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        for (size_t k = 0; k < sizes.size(); ++k) reqs.push_back(post_recv(ck, got[k], any_source, any_tag));
        if (!early) note(ck, 0, 10001);
        for (size_t k = 0; k < sizes.size(); ++k) {
          req_status st = wait_retire(ck, reqs[k]);
          expect_status(ck, st, 0, 5, sizes[k], errc::success, "in-order message " + std::to_string(k));
          ck.expect(same_prefix(got[k], pattern(sizes[k], static_cast<uint32_t>(k)), sizes[k]),
                    "data of in-order message " + std::to_string(k));
        }
      }
    }
  });
}

// ANY_SOURCE with three ranks: every message arrives once, and each source's stay in order.
TEST(ProtocolOrder, AnySourceThreeRanks) {
  run_job(3, k_bulk_env, [](rank_checks& ck, int rank) {
    constexpr int k_per = 40;
    auto len_of = [](int i) { return static_cast<uint64_t>(i % 4 == 3 ? 40000 : i * 300); };
    if (rank != 0) {
      for (int i = 0; i < k_per; ++i) {
        auto b = pattern(len_of(i), static_cast<uint32_t>(rank * 1000 + i));
        wait_retire(ck, post_send(ck, b, 0, i));
      }
    } else {
      int next[3] = {0, 0, 0};
      for (int m = 0; m < 2 * k_per; ++m) {
        std::vector<char> got(40000, 0);
        req_status st = wait_retire(ck, post_recv(ck, got, any_source, any_tag));
        if (!ck.expect(st.source == 1 || st.source == 2, "source " + std::to_string(st.source))) continue;
        const int i = next[st.source]++;
        ck.expect(st.tag == i, "tag " + std::to_string(st.tag) + " from " + std::to_string(st.source) +
                                   " want " + std::to_string(i));
        ck.expect(st.bytes == len_of(i), "bytes");
        ck.expect(same_prefix(got, pattern(len_of(i), static_cast<uint32_t>(st.source * 1000 + i)), len_of(i)),
                  "data");
      }
      ck.expect(next[1] == k_per && next[2] == k_per, "all messages from both sources");
    }
  });
}

// ---- synchronous mode ----

// A synchronous send completes only once the receiver matched it.
void sync_not_before_match(rank_checks& ck, int rank, uint64_t len) {
  if (rank == 0) {
    const auto data = pattern(len, 9);
    request* r = post_send(ck, data, 1, 1, send_mode::synchronous);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (std::chrono::steady_clock::now() < until) (void)poll();
    ck.expect(!r->is_complete(), "synchronous send of " + std::to_string(len) + " completed before the match");
    note(ck, 1, 10000);
    wait_retire(ck, r);
    // A blocking synchronous send to a posted receive returns.
    await_note(ck, 1, 10002);
    ck.expect(send(data.data(), static_cast<int64_t>(len), byte_type(), 1, 2, world(), send_mode::synchronous) ==
                  errc::success,
              "blocking ssend");
  } else {
    await_note(ck, 0, 10000);
    std::vector<char> got(len, 0);
    req_status st = wait_retire(ck, post_recv(ck, got, 0, 1));
    expect_status(ck, st, 0, 1, len, errc::success, "ssend " + std::to_string(len));
    ck.expect(got == pattern(len, 9), "ssend data");
    std::vector<char> got2(len, 0);
    request* r2 = post_recv(ck, got2, 0, 2);
    note(ck, 0, 10002);
    st = wait_retire(ck, r2);
    expect_status(ck, st, 0, 2, len, errc::success, "blocking ssend " + std::to_string(len));
    ck.expect(got2 == pattern(len, 9), "blocking ssend data");
  }
}

TEST(ProtocolSync, EagerCompletesOnlyAfterMatch) {
  run_job(2, {}, [](rank_checks& ck, int rank) {
    for (uint64_t len : {uint64_t{0}, uint64_t{8}, k_slot, 3 * k_slot}) sync_not_before_match(ck, rank, len);
  });
}

TEST(ProtocolSync, RendezvousCompletesOnlyAfterMatch) {
  run_job(2, k_bulk_env, [](rank_checks& ck, int rank) { sync_not_before_match(ck, rank, k_mb); });
}

TEST(ProtocolSync, CmaCompletesOnlyAfterMatch) {
  run_job(2, k_cma_env, [](rank_checks& ck, int rank) { sync_not_before_match(ck, rank, k_mb); });
}

// ---- truncation ----

// Each message is longer than its receive buffer: the receive gets a prefix, status.bytes is
// the buffer's size, the error is truncate, and the next message on the same pair is intact.
void truncation_job(rank_checks& ck, int rank, const std::vector<std::pair<uint64_t, uint64_t>>& cases,
                    bool unexpected) {
  for (size_t k = 0; k < cases.size(); ++k) {
    const auto [len, cap] = cases[k];
    const int tag = static_cast<int>(k);
    const auto data = pattern(len, static_cast<uint32_t>(k + 3));
    const auto after = pattern(100, static_cast<uint32_t>(k + 99));
    if (rank == 0) {
      if (!unexpected) await_note(ck, 1, 10000 + tag);
      request* r = post_send(ck, data, 1, tag);
      request* r2 = post_send(ck, after, 1, tag);
      if (unexpected) note(ck, 1, 10000 + tag);
      ck.expect(wait_retire(ck, r).error == errc::success, "the sender sees no truncation");
      wait_retire(ck, r2);
    } else {
      std::vector<char> got(cap, 0), got2(100, 0);
      if (unexpected) await_note(ck, 0, 10000 + tag);
      request* r = post_recv(ck, got, 0, tag);
      if (!unexpected) note(ck, 0, 10000 + tag);
      const std::string what = std::to_string(len) + " into " + std::to_string(cap);
      req_status st = wait_retire(ck, r);
      expect_status(ck, st, 0, tag, cap, errc::truncate, "truncated " + what);
      ck.expect(same_prefix(got, data, cap), "prefix of truncated " + what);
      // blocking recv reports the error as its result
      req_status st2;
      ck.expect(recv(got2.data(), 100, byte_type(), 0, tag, world(), &st2) == errc::success, "next message");
      expect_status(ck, st2, 0, tag, 100, errc::success, "message after truncated " + what);
      ck.expect(got2 == after, "data after truncated " + what);
    }
  }
}

const std::vector<std::pair<uint64_t, uint64_t>>& eager_trunc_cases() {
  static const std::vector<std::pair<uint64_t, uint64_t>> v{
      {100, 50}, {8, 0}, {k_slot, k_slot - 1}, {3 * k_slot, k_slot}, {3 * k_slot, 10}, {k_eager_max, 2 * k_slot + 3}};
  return v;
}
const std::vector<std::pair<uint64_t, uint64_t>>& rndv_trunc_cases() {
  static const std::vector<std::pair<uint64_t, uint64_t>> v{
      {k_mb, k_mb / 2}, {k_mb, 65536}, {k_mb + 1, k_mb}, {k_mb, 100}, {k_mb, 0}};
  return v;
}

TEST(ProtocolTruncation, EagerPosted) {
  run_job(2, {}, [](rank_checks& ck, int rank) { truncation_job(ck, rank, eager_trunc_cases(), false); });
}
TEST(ProtocolTruncation, EagerUnexpected) {
  run_job(2, {}, [](rank_checks& ck, int rank) { truncation_job(ck, rank, eager_trunc_cases(), true); });
}
TEST(ProtocolTruncation, BulkPostedAndUnexpected) {
  run_job(2, k_bulk_env, [](rank_checks& ck, int rank) {
    truncation_job(ck, rank, rndv_trunc_cases(), false);
    truncation_job(ck, rank, rndv_trunc_cases(), true);
  });
}
TEST(ProtocolTruncation, CmaPostedAndUnexpected) {
  run_job(2, k_cma_env, [](rank_checks& ck, int rank) {
    truncation_job(ck, rank, rndv_trunc_cases(), false);
    truncation_job(ck, rank, rndv_trunc_cases(), true);
  });
}

TEST(ProtocolTruncation, BlockingRecvReturnsTruncate) {
  run_job(2, k_bulk_env, [](rank_checks& ck, int rank) {
    for (uint64_t len : {uint64_t{64}, 3 * k_slot, k_mb}) {
      const auto data = pattern(len, 5);
      if (rank == 0) {
        ck.expect(send(data.data(), static_cast<int64_t>(len), byte_type(), 1, 3, world(), send_mode::standard) ==
                      errc::success,
                  "send");
      } else {
        std::vector<char> got(len / 2, 0);
        req_status st;
        ck.expect(recv(got.data(), static_cast<int64_t>(len / 2), byte_type(), 0, 3, world(), &st) == errc::truncate,
                  "recv of " + std::to_string(len) + " into half returns truncate");
        expect_status(ck, st, 0, 3, len / 2, errc::truncate, "blocking truncated " + std::to_string(len));
        ck.expect(same_prefix(got, data, len / 2), "prefix");
      }
    }
  });
}

// ---- messages to oneself ----

void self_job(rank_checks& ck) {
  const int me = world()->rank;
  const std::vector<uint64_t> sizes{0, 8, 64, 65, k_slot, k_eager_max, k_eager_max + 1, k_mb};
  // send first (buffered eager copy or a parked self message), then receive
  for (size_t k = 0; k < sizes.size(); ++k) {
    const auto data = pattern(sizes[k], static_cast<uint32_t>(k));
    request* s = post_send(ck, data, me, static_cast<int>(k));
    std::vector<char> got(sizes[k], 0);
    req_status st = wait_retire(ck, post_recv(ck, got, me, static_cast<int>(k)));
    wait_retire(ck, s);
    expect_status(ck, st, me, static_cast<int>(k), sizes[k], errc::success, "self send-first " + std::to_string(sizes[k]));
    ck.expect(got == data, "self send-first data " + std::to_string(sizes[k]));
  }
  // receive first, with wildcards
  for (size_t k = 0; k < sizes.size(); ++k) {
    const auto data = pattern(sizes[k], static_cast<uint32_t>(k + 20));
    std::vector<char> got(sizes[k], 0);
    request* r = post_recv(ck, got, any_source, any_tag);
    ck.expect(!r->is_complete(), "self receive waits");
    request* s = post_send(ck, data, me, 7);
    req_status st = wait_retire(ck, r);
    wait_retire(ck, s);
    expect_status(ck, st, me, 7, sizes[k], errc::success, "self recv-first " + std::to_string(sizes[k]));
    ck.expect(got == data, "self recv-first data " + std::to_string(sizes[k]));
  }
  // synchronous to oneself: not complete until the receive is posted
  for (uint64_t len : {uint64_t{8}, k_mb}) {
    const auto data = pattern(len, 77);
    request* s = post_send(ck, data, me, 3, send_mode::synchronous);
    (void)poll();
    ck.expect(!s->is_complete(), "self ssend of " + std::to_string(len) + " completed before the match");
    std::vector<char> got(len, 0);
    req_status st = wait_retire(ck, post_recv(ck, got, me, 3));
    wait_retire(ck, s);
    expect_status(ck, st, me, 3, len, errc::success, "self ssend");
    ck.expect(got == data, "self ssend data");
  }
  // order among equal envelopes, mixing the buffered and parked kinds
  {
    const std::vector<uint64_t> order{k_mb, 8, k_eager_max + 5, 0};
    std::vector<std::vector<char>> bufs;
    std::vector<request*> sends;
    for (size_t k = 0; k < order.size(); ++k) bufs.push_back(pattern(order[k], static_cast<uint32_t>(k + 40)));
    for (size_t k = 0; k < order.size(); ++k) sends.push_back(post_send(ck, bufs[k], me, 4));
    for (size_t k = 0; k < order.size(); ++k) {
      std::vector<char> got(k_mb, 0);
      req_status st = wait_retire(ck, post_recv(ck, got, me, 4));
      expect_status(ck, st, me, 4, order[k], errc::success, "self order " + std::to_string(k));
      ck.expect(same_prefix(got, bufs[k], order[k]), "self order data " + std::to_string(k));
    }
    for (request* s : sends) wait_retire(ck, s);
  }
  // truncation to oneself, both kinds
  for (uint64_t len : {uint64_t{100}, k_mb}) {
    const auto data = pattern(len, 8);
    request* s = post_send(ck, data, me, 6);
    std::vector<char> got(len / 4, 0);
    req_status st = wait_retire(ck, post_recv(ck, got, me, 6));
    wait_retire(ck, s);
    expect_status(ck, st, me, 6, len / 4, errc::truncate, "self truncated " + std::to_string(len));
    ck.expect(same_prefix(got, data, len / 4), "self truncated prefix");
  }
  // blocking send to oneself of an eager size, then a blocking receive
  {
    const auto data = pattern(500, 3);
    ck.expect(send(data.data(), 500, byte_type(), me, 8, world(), send_mode::standard) == errc::success, "self send");
    std::vector<char> got(500, 0);
    req_status st;
    ck.expect(recv(got.data(), 500, byte_type(), me, 8, world(), &st) == errc::success, "self recv");
    expect_status(ck, st, me, 8, 500, errc::success, "blocking self");
    ck.expect(got == data, "blocking self data");
  }
  ck.expect(core::request_live_count() == 0, "every request returned to the pool");
}

TEST(ProtocolSelf, SingletonWithoutLauncher) {
  // No PMI_FD: the runtime runs as a job of one.
  auto res = testing::run_ranks(1, unique_kvs(), {}, [](int) {
    ::unsetenv("PMI_FD");
    return as_rank(0, [](rank_checks& ck) {
      ck.expect(core::rt().world_size == 1, "singleton world");
      ck.expect(!shm_state().on, "no shared memory for one rank");
      self_job(ck);
    });
  });
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].exited_ok()) << res[0].describe();
}

TEST(ProtocolSelf, InsideATwoRankJob) {
  run_job(2, {}, [](rank_checks& ck, int) { self_job(ck); });
}

}  // namespace
}  // namespace baton::p2p
