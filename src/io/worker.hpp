// The I/O worker: one thread per process that runs file accesses which would otherwise hold up the
// progress engine (a 16 MiB pwrite of a two-phase round, an independent nonblocking read). A job
// is a function and a completion flag: the worker runs it, sets the flag (release) and rings the
// process's doorbell, so a thread asleep in MPI_Wait, or the progress thread, picks the
// completion up at once; the engine itself never blocks on the file system.
//
// The thread starts with the first job and stops when the last open file is closed (files must
// be closed before MPI_Finalize), so a program that never needs it never has it. It runs at normal
// priority: unlike the progress thread (SCHED_IDLE), its work is the data movement itself.
#pragma once

#include <atomic>
#include <functional>

namespace baton::io {

struct job {
  std::function<void()> work;
  std::atomic<bool> done{false};
};

// Queues j (the caller keeps it alive until j->done).
void worker_submit(job* j);
// Counted users (open files): when the last one leaves, the thread stops.
void worker_acquire();
void worker_release();

}  // namespace baton::io
