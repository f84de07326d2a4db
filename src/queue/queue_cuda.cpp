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
// Device memory: a matched send or receive whose buffer is CUDA device memory (found at MPI_Match
// with cuPointerGetAttribute, contiguous datatypes) gets a pinned host staging buffer that stands
// in for it in the match and in every transfer (r->device_stage). A CUDA queue then records the
// copies on the stream: device-to-staging before a send's trigger write (so the start sees what
// the kernels before it wrote), staging-to-device after the wait (so the kernels after it see the
// received data). Stream order keeps the staging buffer from being reused early: a request is
// re-enqueued only after its wait, so its next copy follows the previous transfer's completion.
// Such requests start only through CUDA queues (MPI_Start and other queue types refuse them).
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
#include "core/datatype.hpp"
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
errc cuda_record_starts(queue*, request* const*, int, uint32_t*) {
  return errc::unsupported_operation;
}
errc cuda_record_wait(queue*, request* const*, int, uint32_t*) {
  return errc::unsupported_operation;
}
errc cuda_stage(request*) {
  return errc::success;  // without CUDA there is no device memory
}
}  // namespace baton::queue
namespace baton::core {
void device_stage_release(request*) {}
}  // namespace baton::core
namespace baton::queue {
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
  decltype(&::cuPointerGetAttribute) pointer_get_attribute = nullptr;
  decltype(&::cuMemcpyDtoHAsync) memcpy_dtoh_async = nullptr;
  decltype(&::cuMemcpyHtoDAsync) memcpy_htod_async = nullptr;
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
              sym(h, "cuStreamSynchronize", &x.stream_synchronize) && sym(h, "cuGetErrorString", &x.get_error_string) &&
              sym(h, "cuPointerGetAttribute", &x.pointer_get_attribute) &&
              sym(h, "cuMemcpyDtoHAsync_v2", &x.memcpy_dtoh_async) &&
              sym(h, "cuMemcpyHtoDAsync_v2", &x.memcpy_htod_async);
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


// The staging of a device-memory buffer (request::device_stage).
struct stage {
  CUdeviceptr dev = 0;  // the user's buffer (at its true lower bound)
  void* host = nullptr;  // pinned host memory of the same size
  size_t bytes = 0;
  void* user_buf = nullptr;  // the request's buffer before staging
};

bool is_device_memory(driver& d, const void* p) {
  unsigned int type = 0;
  if (d.pointer_get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(p)) !=
          CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    return false;  // not known to CUDA (plain host memory) or host memory
  unsigned int managed = 0;
  if (d.pointer_get_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, reinterpret_cast<CUdeviceptr>(p)) ==
          CUDA_SUCCESS &&
      managed)
    return false;  // managed memory: the CPU reads and writes it directly
  return true;
}

}  // namespace

errc cuda_stage(request* r) {
  if (r->device_stage || !r->buf || r->count == 0 || !r->dt || r->dt->size() == 0) return errc::success;
  // Device memory exists only in a process that loaded the CUDA driver: programs that never did
  // don't load it here.
  void* loaded = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!loaded) return errc::success;
  dlclose(loaded);
  driver& d = drv();
  if (!d.loaded) return errc::success;
  char* at = static_cast<char*>(r->buf) + r->dt->true_lb();
  if (!is_device_memory(d, at)) return errc::success;
  if (!r->dt->is_contiguous())
    return core::error_set(errc::buffer,
                           "the buffer is CUDA device memory and the datatype is not contiguous: device buffers "
                           "of matched requests need a contiguous datatype");
  auto* st = new stage;
  st->dev = reinterpret_cast<CUdeviceptr>(at);
  st->bytes = static_cast<size_t>(r->count) * static_cast<size_t>(r->dt->size());
  if (CUresult e = d.mem_host_alloc(&st->host, st->bytes, CU_MEMHOSTALLOC_PORTABLE); e != CUDA_SUCCESS) {
    const size_t bytes = st->bytes;
    delete st;
    return core::error_set(errc::no_mem, "staging buffer for a device-memory request (%zu bytes): %s", bytes,
                           cu_err(e));
  }
  st->user_buf = r->buf;
  r->buf = static_cast<char*>(st->host) - r->dt->true_lb();
  r->device_stage = st;
  return errc::success;
}

}  // namespace baton::queue

namespace baton::core {
void device_stage_release(request* r) {
  auto* st = static_cast<queue::stage*>(r->device_stage);
  queue::drv().mem_free_host(st->host);
  r->buf = st->user_buf;
  r->device_stage = nullptr;
  delete st;
}
}  // namespace baton::core

namespace baton::queue {

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

errc cuda_record_starts(queue* q, request* const* rs, int n, uint32_t* first) {
  cuda_state& s = *q->cu;
  driver& d = drv();
  const uint32_t base = s.next_trigger;
  for (int i = 0; i < n; ++i) {
    if (auto* st = static_cast<stage*>(rs[i]->device_stage); st && rs[i]->kind == core::req_kind::send) {
      // The data as the kernels before this start left it.
      if (CUresult r = d.memcpy_dtoh_async(st->host, st->dev, st->bytes, s.stream); r != CUDA_SUCCESS) {
        if (i > 0) s.next_trigger = base + static_cast<uint32_t>(i);
        return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuMemcpyDtoHAsync: %s", cu_err(r));
      }
    }
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

errc cuda_record_wait(queue* q, request* const* rs, int n, uint32_t* seq) {
  cuda_state& s = *q->cu;
  driver& d = drv();
  CUresult r = d.stream_wait_value32(s.stream, s.dev + 64, s.next_done + 1, CU_STREAM_WAIT_VALUE_GEQ);
  if (r != CUDA_SUCCESS)
    return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuStreamWaitValue32: %s", cu_err(r));
  *seq = ++s.next_done;
  for (int i = 0; i < n; ++i) {
    // Received data into the device buffer, before the kernels enqueued after this wait.
    if (auto* st = static_cast<stage*>(rs[i]->device_stage); st && rs[i]->kind == core::req_kind::recv) {
      if (CUresult e = d.memcpy_htod_async(st->dev, st->host, st->bytes, s.stream); e != CUDA_SUCCESS)
        return core::error_set(errc::other, "MPIX_QUEUE_TYPE_CUDA: cuMemcpyHtoDAsync: %s", cu_err(e));
    }
  }
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
