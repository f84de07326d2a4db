#include "io/worker.hpp"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/progress.hpp"

namespace baton::io {

namespace {
struct worker_state {
  std::mutex m;
  std::condition_variable cv;
  std::deque<job*> q;
  std::thread t;
  int users = 0;
  bool stop = false;
};
worker_state& W() {
  static worker_state w;
  return w;
}

void loop() {
  pthread_setname_np(pthread_self(), "baton-io");
  worker_state& w = W();
  for (;;) {
    job* j = nullptr;
    {
      std::unique_lock<std::mutex> l(w.m);
      w.cv.wait(l, [&] { return w.stop || !w.q.empty(); });
      if (w.q.empty()) return;  // stop, and nothing left
      j = w.q.front();
      w.q.pop_front();
    }
    j->work();
    j->done.store(true, std::memory_order_release);
    core::progress_kick();        // a thread asleep in a wait
    core::progress_thread_wake();  // the progress thread, if it sleeps
  }
}
}  // namespace

void worker_submit(job* j) {
  worker_state& w = W();
  {
    std::lock_guard<std::mutex> l(w.m);
    w.q.push_back(j);
    if (!w.t.joinable()) {  // the first job since the first file opened starts the thread
      w.stop = false;
      w.t = std::thread(loop);
    }
  }
  w.cv.notify_one();
}

void worker_acquire() {
  worker_state& w = W();
  std::lock_guard<std::mutex> l(w.m);
  ++w.users;
}

void worker_release() {
  worker_state& w = W();
  std::thread t;
  {
    std::lock_guard<std::mutex> l(w.m);
    if (--w.users > 0) return;
    w.stop = true;
    t = std::move(w.t);
  }
  w.cv.notify_all();
  if (t.joinable()) t.join();
}

}  // namespace baton::io
