// Queued communication (draft chapter 13): MPI_Match and variants, MPI_Is_matched, queues,
// enqueued starts and waits, MPI_Queue_fence, and MPIX_Queue_enqueue_host.
//
// The by-value queue overloads of mpi.h would make decltype(PMPI_...) ambiguous in BATON_ALIAS.
#define BATON_NO_QUEUE_BY_VALUE 1

#include "abi/abi.hpp"
#include "p2p/p2p.hpp"
#include "queue/queue.hpp"
#include "queue/small_vec.hpp"

using namespace baton;
using abi::call;
using core::errc;
namespace bq = baton::queue;

namespace {

// A queue handle is the address of the queue object, which carries a magic word (as requests and
// communicators do): MPI_QUEUE_NULL, a freed or a made-up handle gives MPI_ERR_ARG in most cases.
[[gnu::always_inline]] inline errc to_queue(MPI_Queue* h, bq::queue** out) {
  if (!h) return core::error_set(errc::arg, "NULL queue pointer");
  if (*h == MPI_QUEUE_NULL) return core::error_set(errc::arg, "the queue is MPI_QUEUE_NULL");
  auto* q = reinterpret_cast<bq::queue*>(*h);
  if (abi::is_predefined(q) || !bq::queue_valid(q))
    return core::error_set(errc::arg, "invalid queue handle (freed or never created)");
  *out = q;
  return errc::success;
}

// Converts count handles; a null or invalid one is refused (naming its index).
errc to_requests(int count, const MPI_Request* reqs, core::request** out, core::comm** first) {
  if (count < 0) return core::error_set(errc::count, "negative request count %d", count);
  if (count > 0 && !reqs) return core::error_set(errc::arg, "NULL request array");
  for (int i = 0; i < count; ++i) {
    core::request* r = nullptr;
    if (errc e = abi::check_request(reqs[i], &r); e != errc::success) {
      if (count > 1) return core::error_set(e, "request %d of %d: %s", i, count, core::error_message().c_str());
      return e;
    }
    if (!r) {
      if (count > 1) return core::error_set(errc::request, "request %d of %d is MPI_REQUEST_NULL", i, count);
      return core::error_set(errc::request, "the request is MPI_REQUEST_NULL");
    }
    if (!*first) *first = r->c;
    out[i] = r;
  }
  return errc::success;
}

void write_status(const core::req_status& s, void* status, bool set_error) {
  auto* st = static_cast<MPI_Status*>(status);
  abi::to_status(s, st);
  if (set_error) st->MPI_ERROR = abi::to_mpi(s.error);
}

void destroy_match_request(core::request* mr) {
  if (mr->c) mr->c->release();
  core::request_delete(mr);
}

// Matches and waits (MPI_Match, MPI_Matchall).
int match_blocking(const char* fn, int count, MPI_Request* reqs) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (count < 0) {
    (void)core::error_set(errc::count, "negative request count %d", count);
    return abi::raise(fn, nullptr, errc::count);
  }
  bq::small_vec<core::request*> rs(static_cast<size_t>(count));
  core::comm* c = nullptr;
  if (errc e = to_requests(count, reqs, rs.data(), &c); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    core::request* mr = nullptr;
    if (errc e = bq::match_requests(rs.data(), count, c, &mr); e != errc::success) return e;
    (void)p2p::wait(mr);
    errc e = mr->status.error;
    destroy_match_request(mr);
    if (e != errc::success) return core::error_set(e, "matching failed");
    return errc::success;
  });
}

int match_nonblocking(const char* fn, int count, MPI_Request* reqs, MPI_Request* request) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!request) {
    (void)core::error_set(errc::arg, "NULL pointer for the match request");
    return abi::raise(fn, nullptr, errc::arg);
  }
  if (count < 0) {
    (void)core::error_set(errc::count, "negative request count %d", count);
    return abi::raise(fn, nullptr, errc::count);
  }
  bq::small_vec<core::request*> rs(static_cast<size_t>(count));
  core::comm* c = nullptr;
  if (errc e = to_requests(count, reqs, rs.data(), &c); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    core::request* mr = nullptr;
    if (errc e = bq::match_requests(rs.data(), count, c ? c : core::rt().world, &mr); e != errc::success) return e;
    *request = abi::to_handle(mr);
    return errc::success;
  });
}

// What every enqueue call checks first: the library state, the queue, the count and the requests
// (converted into rs, which holds `count` entries). Returns MPI_SUCCESS, or the error already raised.
// Inlined into the enqueue calls: it runs on every one of them (a loop like Example 13.1's
// makes three per iteration).
[[gnu::always_inline]] inline int enqueue_args(const char* fn, MPI_Queue* queue, int count, MPI_Request* reqs,
                                               bq::queue** q, core::request** rs, core::comm** c) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = to_queue(queue, q); e != errc::success) return abi::raise(fn, nullptr, e);
  if (count < 0) {
    (void)core::error_set(errc::count, "negative request count %d", count);
    return abi::raise(fn, nullptr, errc::count);
  }
  // The common case inline (live, non-null handles); to_requests() finds and names a bad one.
  bool ok = count == 0 || reqs;
  for (int i = 0; ok && i < count; ++i) {
    core::request* r = abi::to_request(reqs[i]);
    if (!r || !core::slab_holds<core::request>(r) || r->magic != core::request_magic) {
      ok = false;
      break;
    }
    rs[i] = r;
  }
  if (ok) {
    if (count > 0) *c = rs[0]->c;
    return MPI_SUCCESS;
  }
  if (errc e = to_requests(count, reqs, rs, c); e != errc::success) return abi::raise(fn, *c, e);
  return MPI_SUCCESS;
}

// Request pointers on the stack up to 16, on the heap beyond.
struct request_array {
  explicit request_array(int count) : p(count > 16 ? new core::request*[static_cast<size_t>(count)] : local) {}
  ~request_array() {
    if (p != local) delete[] p;
  }
  request_array(const request_array&) = delete;
  request_array& operator=(const request_array&) = delete;
  core::request* local[16];
  core::request** p;
};

int enqueue_starts(const char* fn, MPI_Queue* queue, int count, MPI_Request* reqs) {
  bq::queue* q = nullptr;
  core::comm* c = nullptr;
  request_array rs(count);
  if (int rc = enqueue_args(fn, queue, count, reqs, &q, rs.p, &c); rc != MPI_SUCCESS) return rc;
  return call(fn, c, [&] { return bq::enqueue_start(q, rs.p, count); });
}

int enqueue_waits(const char* fn, MPI_Queue* queue, int count, MPI_Request* reqs, MPI_Status* statuses, bool all) {
  bq::queue* q = nullptr;
  core::comm* c = nullptr;
  request_array rs(count);
  if (int rc = enqueue_args(fn, queue, count, reqs, &q, rs.p, &c); rc != MPI_SUCCESS) return rc;
  void* sts = statuses == MPI_STATUSES_IGNORE ? nullptr : statuses;
  return call(fn, c, [&] { return bq::enqueue_wait(q, rs.p, sts, sizeof(MPI_Status), count, write_status, all); });
}

}  // namespace

namespace baton::impl {

int MPI_Match(MPI_Request* request) {
  if (!request) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_Match", nullptr, errc::request);
  }
  return match_blocking("MPI_Match", 1, request);
}

int MPI_Matchall(int count, MPI_Request array_of_requests[]) {
  return match_blocking("MPI_Matchall", count, array_of_requests);
}

int MPI_IMatch(MPI_Request* tomatch, MPI_Request* matchrequest) {
  if (!tomatch) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_IMatch", nullptr, errc::request);
  }
  return match_nonblocking("MPI_IMatch", 1, tomatch, matchrequest);
}

int MPI_IMatchall(int count, MPI_Request array_of_requests[], MPI_Request* request) {
  return match_nonblocking("MPI_IMatchall", count, array_of_requests, request);
}

int MPI_Imatch(MPI_Request* tomatch, MPI_Request* matchrequest) {
  return PMPI_IMatch(tomatch, matchrequest);
}

int MPI_Imatchall(int count, MPI_Request array_of_requests[], MPI_Request* request) {
  return PMPI_IMatchall(count, array_of_requests, request);
}

int MPI_Is_matched(MPI_Request request, int* flag) {
  core::request* r = nullptr;
  if (errc e = abi::check_request(request, &r); e != errc::success) return abi::raise("MPI_Is_matched", nullptr, e);
  if (!r) {
    (void)core::error_set(errc::request, "the request is MPI_REQUEST_NULL");
    return abi::raise("MPI_Is_matched", nullptr, errc::request);
  }
  if (!r->persistent || r->kind == core::req_kind::grequest) {
    (void)core::error_set(errc::request, "MPI_Is_matched needs a persistent communication request");
    return abi::raise("MPI_Is_matched", r->c, errc::request);
  }
  if (!flag) {
    (void)core::error_set(errc::arg, "NULL flag pointer");
    return abi::raise("MPI_Is_matched", r->c, errc::arg);
  }
  core::engine_guard g;
  *flag = r->match_done ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Queue_init(MPI_Queue* queue, int type, void* external) {
  const char* fn = "MPI_Queue_init";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!queue) {
    (void)core::error_set(errc::arg, "NULL queue pointer");
    return abi::raise(fn, nullptr, errc::arg);
  }
  bq::queue_type t;
  switch (type) {
    case MPI_QUEUE_TYPE_DEFAULT:
      t = bq::queue_type::standard;
      break;
    case MPIX_QUEUE_TYPE_THREAD:
      t = bq::queue_type::thread;
      break;
    case MPIX_QUEUE_TYPE_CUDA:
      t = bq::queue_type::cuda;
      break;
    default:
      (void)core::error_set(errc::arg,
                            "unsupported queue type %d (MPI_QUEUE_TYPE_DEFAULT, MPIX_QUEUE_TYPE_THREAD and "
                            "MPIX_QUEUE_TYPE_CUDA are supported)",
                            type);
      return abi::raise(fn, nullptr, errc::arg);
  }
  return call(fn, nullptr, [&] {
    bq::queue* q = nullptr;
    if (errc e = bq::queue_create(t, external, &q); e != errc::success) return e;
    *queue = reinterpret_cast<MPI_Queue>(q);
    return errc::success;
  });
}

int MPI_Queue_free(MPI_Queue* queue) {
  const char* fn = "MPI_Queue_free";
  bq::queue* q = nullptr;
  if (errc e = to_queue(queue, &q); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (errc e = bq::queue_destroy(q); e != errc::success) return e;
    *queue = MPI_QUEUE_NULL;
    return errc::success;
  });
}

int MPI_Enqueue_start(MPI_Queue* queue, MPI_Request* request) {
  if (!request) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_Enqueue_start", nullptr, errc::request);
  }
  return enqueue_starts("MPI_Enqueue_start", queue, 1, request);
}

int MPI_Enqueue_startall(MPI_Queue* queue, int count, MPI_Request array_of_requests[]) {
  return enqueue_starts("MPI_Enqueue_startall", queue, count, array_of_requests);
}

int MPI_Enqueue_wait(MPI_Queue* queue, MPI_Request* request, MPI_Status* status) {
  if (!request) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_Enqueue_wait", nullptr, errc::request);
  }
  return enqueue_waits("MPI_Enqueue_wait", queue, 1, request, status, false);
}

int MPI_Enqueue_waitall(MPI_Queue* queue, int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  return enqueue_waits("MPI_Enqueue_waitall", queue, count, array_of_requests, array_of_statuses, true);
}

int MPI_Queue_fence(MPI_Queue* queue) {
  const char* fn = "MPI_Queue_fence";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  bq::queue* q = nullptr;
  if (errc e = to_queue(queue, &q); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] { return bq::queue_fence(q); });
}

int MPIX_Queue_enqueue_host(MPI_Queue* queue, void (*fn_)(void*), void* arg) {
  const char* fn = "MPIX_Queue_enqueue_host";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  bq::queue* q = nullptr;
  if (errc e = to_queue(queue, &q); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!fn_) {
    (void)core::error_set(errc::arg, "NULL host function");
    return abi::raise(fn, nullptr, errc::arg);
  }
  return call(fn, nullptr, [&] { return bq::enqueue_host(q, fn_, arg); });
}

}  // namespace baton::impl
