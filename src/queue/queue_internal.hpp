// Internal state of queues, shared by queue.cpp and queue_cuda.cpp.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "queue/queue.hpp"

namespace baton::queue {

struct op {
  enum kind_t : uint8_t { start, wait, host } kind = start;
  bool set_error = false;   // wait: also set the status's MPI_ERROR (waitall)
  request* r = nullptr;
  void* status = nullptr;   // wait: the caller's status object (nullptr: ignored)
  status_writer write = nullptr;
  void (*fn)(void*) = nullptr;  // host
  void* arg = nullptr;
  uint32_t seq = 0;         // cuda: trigger value (start) / completion value to publish (wait)
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

class queue {
 public:
  uint32_t magic = queue_magic;
  queue_type type = queue_type::standard;
  void* external = nullptr;
  std::deque<op> ops;  // standard / cuda: operations not yet executed (engine lock)
  bool listed = false; // in the poller's list of queues with work
  bool advancing = false;
  errc async_error = errc::success;
  std::string async_message;
  executor* ex = nullptr;
  cuda_state* cu = nullptr;
};

// Executes one start / completes one wait (engine lock held).
void execute_start(queue* q, request* r);
void complete_wait(queue* q, const op& o);
// Puts q on the poller's list (engine lock held).
void queue_list(queue* q);

// CUDA type (queue_cuda.cpp). Without the CUDA toolkit, create refuses (unsupported operation).
[[nodiscard]] errc cuda_create(queue* q);
void cuda_destroy(queue* q);
// Records the stream operations for ops about to be appended (starts: one stream write each;
// waits: one stream wait after the last). Sets op.seq. Engine lock held.
[[nodiscard]] errc cuda_enqueue(queue* q, op* ops, int n);
// Head op may execute now (start: the stream reached it).
bool cuda_start_ready(queue* q, const op& o);
// A wait completed: publish its value so the stream goes on.
void cuda_wait_done(queue* q, const op& o);
[[nodiscard]] errc cuda_fence_stream(queue* q);

}  // namespace baton::queue
