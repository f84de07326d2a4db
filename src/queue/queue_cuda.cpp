// MPIX_QUEUE_TYPE_CUDA: a queue bound to a CUDA stream, driven by stream memory operations.
//
// Two 32-bit counters live in host memory mapped into the device (cuMemHostAlloc DEVICEMAP):
// `trigger`, written by the stream, and `done`, written by the host. An enqueued start records
// cuStreamWriteValue32(trigger, n) on the stream: when the stream gets there (after the kernels
// enqueued before it), the counter reaches n and the progress poller starts the request. An
// enqueued wait(all) records cuStreamWaitValue32(done >= m): the stream stops there until the
// poller, having completed that wait in queue order, stores m. Nothing blocks inside a host
// callback, and the stream never waits on anything but a memory word.
//
// Progress: the poller runs in every MPI call that drives progress and in the progress thread,
// which creating a CUDA queue starts (with the engine lock), so a program may sit in
// cudaStreamSynchronize while the communication proceeds. Buffers must be host-accessible
// (cudaMallocHost / cudaMallocManaged): the data moves with the CPU through the shared-memory
// transport; the stream's wait makes it visible to kernels enqueued after the wait.
//
// The driver is loaded at run time (dlopen libcuda.so.1), so the library builds with the toolkit's
// headers only and runs on machines without a GPU; creating a CUDA queue there fails with
// MPI_ERR_UNSUPPORTED_OPERATION and a message saying why.
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "queue/queue_internal.hpp"

#ifdef BATON_HAVE_CUDA
#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#endif

namespace baton::queue {

#ifndef BATON_HAVE_CUDA

struct cuda_state {};

errc cuda_create(queue*) {
  return core::error_set(errc::unsupported_operation,
                         "MPIX_QUEUE_TYPE_CUDA is not available: Baton was built without the CUDA toolkit");
}
void cuda_destroy(queue*) {}
errc cuda_record_starts(queue*, int, uint32_t*) {
  return errc::unsupported_operation;
}
errc cuda_record_wait(queue*, uint32_t*) {
  return errc::unsupported_operation;
}
bool cuda_start_ready(queue*, const op&) {
  return true;
}
void cuda_wait_done(queue*, const op&) {}
errc cuda_fence_stream(queue*) {
  return errc::success;
}

#else

namespace {

struct driver {
  bool loaded = false;
  std::string why;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemHostGetDevicePointer) mem_host_get_device_pointer = nullptr;
  decltype(&::cuMemFreeHost) mem_free_host = nullptr;
  decltype(&::cuStreamWriteValue32) stream_write_value32 = nullptr;
  decltype(&::cuStreamWaitValue32) stream_wait_value32 = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
};

template <class F>
bool sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  return *out != nullptr;
}

driver& drv() {
  static driver d = [] {
    driver x;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      x.why = "the CUDA driver (libcuda.so.1) is not installed on this machine";
      return x;
    }
    bool ok = sym(h, "cuCtxGetCurrent", &x.ctx_get_current) && sym(h, "cuMemHostAlloc", &x.mem_host_alloc) &&
              sym(h, "cuMemHostGetDevicePointer_v2", &x.mem_host_get_device_pointer) &&
              sym(h, "cuMemFreeHost", &x.mem_free_host) && sym(h, "cuStreamWriteValue32_v2", &x.stream_write_value32) &&
              sym(h, "cuStreamWaitValue32_v2", &x.stream_wait_value32) &&
              sym(h, "cuStreamSynchronize", &x.stream_synchronize) && sym(h, "cuGetErrorString", &x.get_error_string);
    if (!ok) {
      x.why = "the CUDA driver lacks the stream memory operations (cuStreamWaitValue32_v2)";
      return x;
    }
    x.loaded = true;
    return x;
  }();
  return d;
}

const char* cu_err(CUresult r) {
  const char* s = nullptr;
  if (drv().get_error_string) drv().get_error_string(r, &s);
  return s ? s : "unknown CUDA error";
}

}  // namespace

struct cuda_state {
  CUstream stream = nullptr;
  volatile uint32_t* host = nullptr;  // [0]: trigger (stream writes), [16]: done (host writes)
  CUdeviceptr dev = 0;
  uint32_t next_trigger = 0;  // last trigger value recorded on the stream
  uint32_t next_done = 0;     // last completion value the stream waits for
};

errc cuda_create(queue* q) {
  driver& d = drv();
  if (!d.loaded) return core::error_set(errc::unsupported_operation, "MPIX_QUEUE_TYPE_CUDA: %s", d.why.c_str());
  CUcontext ctx = nullptr;
  if (d.ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx)
    return core::error_set(errc::unsupported_operation,
                           "MPIX_QUEUE_TYPE_CUDA: no current CUDA context on this thread (create the stream "
                           "with the CUDA runtime first)");
  auto* s = new cuda_state;
  s->stream = static_cast<CUstream>(q->external);
  void* p = nullptr;
  CUresult r = d.mem_host_alloc(&p, 128, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  if (r == CUDA_SUCCESS) r = d.mem_host_get_device_pointer(&s->dev, p, 0);
  if (r != CUDA_SUCCESS) {
    if (p) d.mem_free_host(p);
    delete s;
    return core::error_set(errc::unsupported_operation, "MPIX_QUEUE_TYPE_CUDA: host-mapped counters: %s", cu_err(r));
  }
  s->host = static_cast<volatile uint32_t*>(p);
  s->host[0] = 0;
  s->host[16] = 0;
  q->cu = s;
  return errc::success;
}

void cuda_destroy(queue* q) {
  if (!q->cu) return;
  drv().mem_free_host(const_cast<uint32_t*>(q->cu->host));
  delete q->cu;
  q->cu = nullptr;
}

errc cuda_record_starts(queue* q, int n, uint32_t* first) {
  cuda_state& s = *q->cu;
  driver& d = drv();
  const uint32_t base = s.next_trigger;
  for (int i = 0; i < n; ++i) {
    // A start triggers when the stream has written its value (stream order: after earlier work).
    CUresult r =
        d.stream_write_value32(s.stream, s.dev, base + 1 + static_cast<uint32_t>(i), CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r != CUDA_SUCCESS) {
      if (i > 0) s.next_trigger = base + static_cast<uint32_t>(i);  // those writes are on the stream
      return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuStreamWriteValue32: %s", cu_err(r));
    }
  }
  s.next_trigger = base + static_cast<uint32_t>(n);
  *first = base + 1;
  return errc::success;
}

errc cuda_record_wait(queue* q, uint32_t* seq) {
  cuda_state& s = *q->cu;
  CUresult r = drv().stream_wait_value32(s.stream, s.dev + 64, s.next_done + 1, CU_STREAM_WAIT_VALUE_GEQ);
  if (r != CUDA_SUCCESS)
    return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuStreamWaitValue32: %s", cu_err(r));
  *seq = ++s.next_done;
  return errc::success;
}

bool cuda_start_ready(queue* q, const op& o) {
  const uint32_t seen = __atomic_load_n(&q->cu->host[0], __ATOMIC_ACQUIRE);
  return static_cast<int32_t>(seen - o.seq) >= 0;
}

void cuda_wait_done(queue* q, const op& o) {
  if (o.seq) __atomic_store_n(&q->cu->host[16], o.seq, __ATOMIC_RELEASE);
}

errc cuda_fence_stream(queue* q) {
  CUresult r = drv().stream_synchronize(q->cu->stream);
  if (r != CUDA_SUCCESS)
    return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuStreamSynchronize: %s", cu_err(r));
  return errc::success;
}

#endif

}  // namespace baton::queue
