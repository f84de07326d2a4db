// Internal state of queues, shared by queue.cpp and queue_cuda.cpp.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/slab.hpp"
#include "queue/queue.hpp"

namespace baton::queue {

// One enqueued operation: 32 bytes.
struct op {
  enum kind_t : uint8_t { start, wait, host } kind = start;
  bool set_error = false;  // wait: also set the status's MPI_ERROR (waitall)
  uint32_t seq = 0;        // cuda: trigger value (start) / completion value to publish (wait)
  union {
    request* r = nullptr;  // start, wait
    void (*fn)(void*);     // host
  };
  union {
    void* status = nullptr;  // wait: the caller's status object (nullptr: ignored)
    void* arg;               // host
  };
  status_writer write = nullptr;  // wait
};

// FIFO of operations: a circular buffer that grows by doubling and never shrinks, so a queue in
// its steady state allocates nothing per operation.
class op_ring {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  op& front() { return buf_[head_ & mask_]; }
  op& back() { return buf_[(tail_ - 1) & mask_]; }
  // Emptied, it starts again at the first record: a ring that once grew (a producer that ran
  // ahead of progress) would otherwise write every new record to a cold cache line.
  void pop_front() {
    if (++head_ == tail_) head_ = tail_ = 0;
  }
  // A fresh record at the back, for the caller to fill in place: building an op on the stack and
  // copying it in reads back, 16 bytes at a time, what was just stored a field at a time, and
  // that stalls store forwarding (it was a fifth of an 8-byte queue ring's time).
  op& emplace_back() {
    if (size() == buf_.size()) grow();
    op& d = buf_[tail_++ & mask_];
    d.kind = op::start;
    d.set_error = false;
    d.seq = 0;
    d.r = nullptr;
    d.status = nullptr;
    d.write = nullptr;
    return d;
  }

 private:
  void grow() {
    std::vector<op> b(buf_.empty() ? 64 : buf_.size() * 2);
    const size_t n = size();
    for (size_t i = 0; i < n; ++i) b[i] = buf_[(head_ + i) & mask_];
    buf_.swap(b);
    head_ = 0;
    tail_ = n;
    mask_ = buf_.size() - 1;
  }
  std::vector<op> buf_;
  size_t head_ = 0, tail_ = 0, mask_ = 0;
};

// Host executor of a thread queue.
struct executor {
  std::thread th;
  std::mutex m;
  std::condition_variable work_cv;  // executor: tasks arrived (or stop)
  std::condition_variable idle_cv;  // fence / free: the executor went idle
  std::deque<op> tasks;
  bool busy = false;
  bool stop = false;
};

struct cuda_state;

class queue : public core::slab_allocated<queue> {
 public:
  uint32_t magic = queue_magic;
  queue_type type = queue_type::standard;
  void* external = nullptr;
  op_ring ops;          // standard / cuda: operations not yet executed (engine lock)
  bool listed = false;  // in the poller's list of queues with work
  bool advancing = false;
  errc async_error = errc::success;
  std::string async_message;
  executor* ex = nullptr;
  cuda_state* cu = nullptr;
  // Requests bound to this queue (request::queue == this): an enqueued start whose wait has not
  // completed. MPI_Queue_free refuses the queue while any is (a start without its wait would be
  // left where no call can complete it).
  std::atomic<uint32_t> bound{0};
};

// Binds r to q for an enqueued start (counted once per request, however many starts follow).
inline void bind(queue* q, core::request* r) {
  if (r->queue == nullptr) q->bound.fetch_add(1, std::memory_order_relaxed);
  r->queue = q;
}

// Executes one start / completes one wait (engine lock held).
void execute_start(queue* q, request* r);
void complete_wait(queue* q, const op& o);
// Puts q on the poller's list (engine lock held).
void queue_list(queue* q);

// CUDA type (queue_cuda.cpp). Without the CUDA toolkit, create refuses (unsupported operation).
[[nodiscard]] errc cuda_create(queue* q);
void cuda_destroy(queue* q);
// Records on the stream: one trigger write per start (values *first, *first + 1, ...), or one
// wait for the completion value *seq (published when the last wait of the call completes).
// Engine lock held; nothing is recorded on failure.
// Device-memory requests (request::device_stage) get their copies recorded beside: before the
// trigger of a send, after the wait for a receive.
[[nodiscard]] errc cuda_record_starts(queue* q, request* const* rs, int n, uint32_t* first);
[[nodiscard]] errc cuda_record_wait(queue* q, request* const* rs, int n, uint32_t* seq);
// Head op may execute now (start: the stream reached it).
bool cuda_start_ready(queue* q, const op& o);
// A wait completed: publish its value so the stream goes on.
void cuda_wait_done(queue* q, const op& o);
[[nodiscard]] errc cuda_fence_stream(queue* q);

}  // namespace baton::queue
