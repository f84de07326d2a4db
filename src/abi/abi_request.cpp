// Starts and completions (MPI-4.1 3.7.3-3.9): the binding. Every completion call works on any mix
// of request kinds; null and inactive requests give the empty status. What the calls do to the
// requests (waiting, polling, retiring, freeing, cancelling, starting) is p2p/completion.hpp's;
// here are the handles, statuses, argument checks and error handlers, and the generalized
// requests' callbacks (abi_grequest.cpp).
#include <functional>
#include <vector>

#include "abi/abi.hpp"
#include "core/progress.hpp"
#include "p2p/completion.hpp"
#include "p2p/p2p.hpp"
#include "queue/queue.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

using p2p::pending;
using p2p::reportable;

// Reports a complete request: writes the status, frees a nonpersistent one (handle -> NULL) or
// makes a persistent one inactive. Returns the operation's error. A generalized request runs its
// query_fn and free_fn here (never under the engine lock).
errc retire(MPI_Request* h, MPI_Status* st) {
  core::request* r = abi::to_request(*h);
  if (r->kind == core::req_kind::grequest) {
    *h = MPI_REQUEST_NULL;
    return abi::grequest_retire(r, st);
  }
  errc e = r->status.error;
  if (p2p::request_retire(r, [st](const core::req_status& s) { abi::to_status(s, st); })) *h = MPI_REQUEST_NULL;
  return e;
}

// A request whose enqueued start is pending belongs to its queue (draft chapter 13.4): standard
// calls refuse it.
inline errc refuse_if_queued(const core::request* r) {
  return r && r->queue ? queue::refuse_queued(r) : errc::success;
}

errc check_array(const char* fn, int count, const MPI_Request* reqs, core::comm** first) {
  if (errc e = abi::check_init(fn); e != errc::success) return e;
  if (count < 0) return core::error_set(errc::count, "negative request count %d", count);
  if (count > 0 && !reqs) return core::error_set(errc::arg, "NULL request array");
  for (int i = 0; i < count; ++i) {
    core::request* r = nullptr;
    if (errc e = abi::check_request(reqs[i], &r); e != errc::success) return e;
    if (errc e = refuse_if_queued(r); e != errc::success)
      return core::error_set(e, "request %d of %d: %s", i, count, core::error_message().c_str());
    if (r && !*first) *first = r->c;
  }
  return errc::success;
}

MPI_Status* status_at(MPI_Status* array, int i) { return array == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array[i]; }

// The status of a complete request, which stays as it is (MPI_Request_get_status_*): a generalized
// request's comes from its query_fn. Returns the request's error.
errc peek_status(core::request* r, MPI_Status* st) {
  if (r->kind == core::req_kind::grequest) return abi::grequest_query(r, st);
  abi::to_status(r->status, st);
  return r->status.error;
}

}  // namespace

namespace baton::impl {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  core::request* r = nullptr;
  if (errc e = abi::check_init("MPI_Wait"); e != errc::success) return abi::raise("MPI_Wait", nullptr, e);
  if (!request) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_Wait", nullptr, errc::request);
  }
  if (errc e = abi::check_request(*request, &r); e != errc::success) return abi::raise("MPI_Wait", nullptr, e);
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise("MPI_Wait", r->c, e);
  if (!r || !r->active) {
    abi::empty_status(status);
    return MPI_SUCCESS;
  }
  core::comm* c = r->c;
  if (c) c->retain();
  int rc = call("MPI_Wait", c, [&] {
    if (!r->is_complete()) (void)p2p::wait(r);
    return retire(request, status);
  });
  if (c) c->release();
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  core::request* r = nullptr;
  if (errc e = abi::check_init("MPI_Test"); e != errc::success) return abi::raise("MPI_Test", nullptr, e);
  if (!request) {
    (void)core::error_set(errc::request, "NULL request pointer");
    return abi::raise("MPI_Test", nullptr, errc::request);
  }
  if (errc e = abi::check_request(*request, &r); e != errc::success) return abi::raise("MPI_Test", nullptr, e);
  if (!flag) return abi::raise("MPI_Test", r ? r->c : nullptr, core::error_set(errc::arg, "NULL flag pointer"));
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise("MPI_Test", r->c, e);
  if (!r || !r->active) {
    *flag = 1;
    abi::empty_status(status);
    return MPI_SUCCESS;
  }
  core::comm* c = r->c;
  return call("MPI_Test", c, [&] {
    if (!r->is_complete()) p2p::poll_once(r);
    *flag = r->is_complete();
    if (!*flag) return errc::success;
    return retire(request, status);
  });
}

static int complete_all(const char* fn, int count, MPI_Request reqs[], MPI_Status statuses[]) {
  // Every request is complete (or null/inactive): report them all.
  bool failed = false;
  core::comm* failed_comm = nullptr;
  for (int i = 0; i < count; ++i) {
    core::request* r = abi::to_request(reqs[i]);
    MPI_Status* st = status_at(statuses, i);
    if (!r || !r->active) {
      abi::empty_status(st);
      continue;
    }
    core::comm* c = r->c;
    errc e = retire(&reqs[i], st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = abi::to_mpi(e);
    if (e != errc::success && !failed) {
      failed = true;
      failed_comm = c;
    }
  }
  if (!failed) return MPI_SUCCESS;
  (void)core::error_set(errc::in_status, "at least one request failed: see the MPI_ERROR field of each status");
  return abi::raise(fn, failed_comm, errc::in_status);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  core::comm* c = nullptr;
  if (errc e = check_array("MPI_Waitall", count, array_of_requests, &c); e != errc::success)
    return abi::raise("MPI_Waitall", c, e);
  int rc = call("MPI_Waitall", c, [&] {
    int next = 0;  // requests before `next` are known complete
    p2p::wait_until([&] {
      while (next < count && !pending(abi::to_request(array_of_requests[next]))) ++next;
      return next == count;
    });
    return errc::success;
  });
  if (rc != MPI_SUCCESS) return rc;
  return complete_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  core::comm* c = nullptr;
  if (errc e = check_array("MPI_Testall", count, array_of_requests, &c); e != errc::success)
    return abi::raise("MPI_Testall", c, e);
  if (!flag) return abi::raise("MPI_Testall", c, core::error_set(errc::arg, "NULL flag pointer"));
  p2p::poll_once();
  for (int i = 0; i < count; ++i) {
    if (pending(abi::to_request(array_of_requests[i]))) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return complete_all("MPI_Testall", count, array_of_requests, array_of_statuses);
}

static int any_impl(const char* fn, int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status,
                    bool block) {
  core::comm* c = nullptr;
  if (errc e = check_array(fn, count, reqs, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!index) return abi::raise(fn, c, core::error_set(errc::arg, "NULL index pointer"));
  if (!block && !flag) return abi::raise(fn, c, core::error_set(errc::arg, "NULL flag pointer"));
  int found = -1;
  bool any_active = false;
  auto scan = [&] {
    found = p2p::first_reportable(count, [reqs](int i) { return abi::to_request(reqs[i]); }, &any_active);
    return found >= 0 || !any_active;
  };
  if (block) {
    p2p::wait_until(scan);
  } else {
    p2p::poll_once();
    scan();
  }
  if (found < 0) {
    *index = MPI_UNDEFINED;
    if (flag) *flag = any_active ? 0 : 1;
    if (!any_active) abi::empty_status(status);
    return MPI_SUCCESS;
  }
  if (flag) *flag = 1;
  *index = found;
  core::comm* rc = abi::to_request(reqs[found])->c;
  errc e = retire(&reqs[found], status);
  if (e != errc::success) return abi::raise(fn, rc, e);
  return MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  return any_impl("MPI_Waitany", count, array_of_requests, index, nullptr, status, true);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  return any_impl("MPI_Testany", count, array_of_requests, index, flag, status, false);
}

static int some_impl(const char* fn, int incount, MPI_Request reqs[], int* outcount, int indices[],
                     MPI_Status statuses[], bool block) {
  core::comm* c = nullptr;
  if (errc e = check_array(fn, incount, reqs, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!outcount) return abi::raise(fn, c, core::error_set(errc::arg, "NULL outcount pointer"));
  if (!indices && incount > 0) return abi::raise(fn, c, core::error_set(errc::arg, "NULL array_of_indices"));
  bool any_active = false;
  auto scan = [&] {
    return p2p::first_reportable(incount, [reqs](int i) { return abi::to_request(reqs[i]); }, &any_active) >= 0 ||
           !any_active;
  };
  if (block) {
    p2p::wait_until(scan);
  } else {
    p2p::poll_once();
    scan();
  }
  if (!any_active) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int n = 0;
  bool failed = false;
  core::comm* failed_comm = nullptr;
  for (int i = 0; i < incount; ++i) {
    core::request* r = abi::to_request(reqs[i]);
    if (!reportable(r)) continue;
    MPI_Status* st = status_at(statuses, n);
    core::comm* rc = r->c;
    errc e = retire(&reqs[i], st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = abi::to_mpi(e);
    if (e != errc::success && !failed) {
      failed = true;
      failed_comm = rc;
    }
    indices[n++] = i;
  }
  *outcount = n;
  if (!failed) return MPI_SUCCESS;
  (void)core::error_set(errc::in_status, "at least one request failed: see the MPI_ERROR field of each status");
  return abi::raise(fn, failed_comm, errc::in_status);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  return some_impl("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  return some_impl("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false);
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  core::request* r = nullptr;
  if (errc e = abi::check_request(request, &r); e != errc::success)
    return abi::raise("MPI_Request_get_status", nullptr, e);
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise("MPI_Request_get_status", r->c, e);
  if (!flag)
    return abi::raise("MPI_Request_get_status", r ? r->c : nullptr, core::error_set(errc::arg, "NULL flag pointer"));
  if (!r || !r->active) {
    *flag = 1;
    abi::empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->is_complete()) p2p::poll_once();
  *flag = r->is_complete();
  if (!*flag) return MPI_SUCCESS;
  if (r->kind == core::req_kind::grequest) {
    if (errc e = abi::grequest_query(r, status); e != errc::success)
      return abi::raise("MPI_Request_get_status", nullptr, e);
    return MPI_SUCCESS;
  }
  abi::to_status(r->status, status);
  return MPI_SUCCESS;
}

// MPI-4.1 3.7.5: the array forms of Request_get_status test like Testall/Testany/Testsome but never
// free a request or make it inactive.
static int get_status_report(const char* fn, core::comm* c, bool failed) {
  if (!failed) return MPI_SUCCESS;
  (void)core::error_set(errc::in_status, "at least one request failed: see the MPI_ERROR field of each status");
  return abi::raise(fn, c, errc::in_status);
}

int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int* flag,
                                MPI_Status* array_of_statuses) {
  const char* fn = "MPI_Request_get_status_all";
  core::comm* c = nullptr;
  if (errc e = check_array(fn, count, array_of_requests, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!flag) {
    (void)core::error_set(errc::arg, "NULL flag pointer");
    return abi::raise(fn, c, errc::arg);
  }
  p2p::poll_once();
  for (int i = 0; i < count; ++i) {
    if (pending(abi::to_request(array_of_requests[i]))) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  bool failed = false;
  core::comm* failed_comm = nullptr;
  for (int i = 0; i < count; ++i) {
    core::request* r = abi::to_request(array_of_requests[i]);
    MPI_Status* st = status_at(array_of_statuses, i);
    if (!r || !r->active) {
      abi::empty_status(st);
      continue;
    }
    errc e = peek_status(r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = abi::to_mpi(e);
    if (e != errc::success && !failed) {
      failed = true;
      failed_comm = r->c;
    }
  }
  return get_status_report(fn, failed_comm, failed);
}

int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int* indx, int* flag,
                                MPI_Status* status) {
  const char* fn = "MPI_Request_get_status_any";
  core::comm* c = nullptr;
  if (errc e = check_array(fn, count, array_of_requests, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!flag || !indx) {
    (void)core::error_set(errc::arg, "NULL %s pointer", !flag ? "flag" : "index");
    return abi::raise(fn, c, errc::arg);
  }
  p2p::poll_once();
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    core::request* r = abi::to_request(array_of_requests[i]);
    if (!r || !r->active) continue;
    any_active = true;
    if (r->is_complete()) {
      *indx = i;
      *flag = 1;
      if (errc e = peek_status(r, status); e != errc::success) return abi::raise(fn, r->c, e);
      return MPI_SUCCESS;
    }
  }
  *indx = MPI_UNDEFINED;
  *flag = any_active ? 0 : 1;
  if (!any_active) abi::empty_status(status);
  return MPI_SUCCESS;
}

int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int* outcount,
                                 int array_of_indices[], MPI_Status* array_of_statuses) {
  const char* fn = "MPI_Request_get_status_some";
  core::comm* c = nullptr;
  if (errc e = check_array(fn, incount, array_of_requests, &c); e != errc::success) return abi::raise(fn, c, e);
  if (!outcount) {
    (void)core::error_set(errc::arg, "NULL outcount pointer");
    return abi::raise(fn, c, errc::arg);
  }
  p2p::poll_once();
  bool any_active = false;
  int n = 0;
  bool failed = false;
  core::comm* failed_comm = nullptr;
  for (int i = 0; i < incount; ++i) {
    core::request* r = abi::to_request(array_of_requests[i]);
    if (!r || !r->active) continue;
    any_active = true;
    if (!r->is_complete()) continue;
    MPI_Status* st = status_at(array_of_statuses, n);
    errc e = peek_status(r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = abi::to_mpi(e);
    if (e != errc::success && !failed) {
      failed = true;
      failed_comm = r->c;
    }
    array_of_indices[n++] = i;
  }
  *outcount = any_active ? n : MPI_UNDEFINED;
  return get_status_report(fn, failed_comm, failed);
}

int MPI_Request_free(MPI_Request* request) {
  core::request* r = nullptr;
  if (!request || *request == MPI_REQUEST_NULL) {
    (void)core::error_set(errc::request, "cannot free MPI_REQUEST_NULL");
    return abi::raise("MPI_Request_free", nullptr, errc::request);
  }
  if (errc e = abi::check_request(*request, &r); e != errc::success) return abi::raise("MPI_Request_free", nullptr, e);
  core::comm* c = r->c;
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise("MPI_Request_free", c, e);
  if (r->kind == core::req_kind::grequest) {
    // free_fn runs now if MPI_Grequest_complete was called, else there; the handle is freed either way.
    *request = MPI_REQUEST_NULL;
    if (errc e = abi::grequest_free(r); e != errc::success) return abi::raise("MPI_Request_free", nullptr, e);
    return MPI_SUCCESS;
  }
  if (errc e = p2p::request_free(r); e != errc::success) return abi::raise("MPI_Request_free", c, e);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request* request) {
  core::request* r = nullptr;
  if (!request || *request == MPI_REQUEST_NULL) {
    (void)core::error_set(errc::request, "cannot cancel MPI_REQUEST_NULL");
    return abi::raise("MPI_Cancel", nullptr, errc::request);
  }
  if (errc e = abi::check_request(*request, &r); e != errc::success) return abi::raise("MPI_Cancel", nullptr, e);
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise("MPI_Cancel", r->c, e);
  return call("MPI_Cancel", r->c, [&] { return p2p::request_cancel(r); });
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (!status) return abi::raise("MPI_Test_cancelled", nullptr, core::error_set(errc::arg, "NULL status pointer"));
  if (!flag) return abi::raise("MPI_Test_cancelled", nullptr, core::error_set(errc::arg, "NULL flag pointer"));
  *flag = status->MPI_internal[2] != 0;
  return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (!status)
    return abi::raise("MPI_Status_set_cancelled", nullptr, core::error_set(errc::arg, "NULL status pointer"));
  status->MPI_internal[2] = flag ? 1 : 0;
  return MPI_SUCCESS;
}

static int start_impl(const char* fn, core::request* r) {
  if (!r) {
    (void)core::error_set(errc::request, "cannot start MPI_REQUEST_NULL");
    return abi::raise(fn, nullptr, errc::request);
  }
  if (errc e = refuse_if_queued(r); e != errc::success) return abi::raise(fn, r->c, e);
  return call(fn, r->c, [&] { return p2p::request_start(r); });
}

int MPI_Start(MPI_Request* request) {
  core::request* r = nullptr;
  if (errc e = abi::check_init("MPI_Start"); e != errc::success) return abi::raise("MPI_Start", nullptr, e);
  if (errc e = abi::check_request(request ? *request : MPI_REQUEST_NULL, &r); e != errc::success)
    return abi::raise("MPI_Start", nullptr, e);
  return start_impl("MPI_Start", r);
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  core::comm* c = nullptr;
  if (errc e = check_array("MPI_Startall", count, array_of_requests, &c); e != errc::success)
    return abi::raise("MPI_Startall", c, e);
  // Check every request first, so that a bad one starts nothing.
  for (int i = 0; i < count; ++i) {
    core::request* r = abi::to_request(array_of_requests[i]);
    if (!r || !r->persistent || r->active) {
      (void)core::error_set(errc::request, "request %d of %d cannot be started (%s)", i, count,
                            !r ? "MPI_REQUEST_NULL" : !r->persistent ? "not persistent" : "already active");
      return abi::raise("MPI_Startall", r ? r->c : c, errc::request);
    }
    if (errc e = p2p::start_check(r); e != errc::success) return abi::raise("MPI_Startall", r->c, e);
  }
  for (int i = 0; i < count; ++i) {
    int rc = start_impl("MPI_Startall", abi::to_request(array_of_requests[i]));
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// ---- counts ----

static int get_count_impl(const char* fn, const MPI_Status* status, MPI_Datatype datatype, int64_t* count) {
  const core::datatype* t = abi::to_type(datatype);
  if (!t) return abi::raise(fn, nullptr, errc::type);
  if (!status) return abi::raise(fn, nullptr, core::error_set(errc::arg, "NULL status pointer (MPI_STATUS_IGNORE)"));
  uint64_t bytes = abi::status_bytes(status);
  if (t->size() == 0) {
    *count = bytes == 0 ? 0 : MPI_UNDEFINED;
  } else if (bytes % uint64_t(t->size()) != 0) {
    *count = MPI_UNDEFINED;
  } else {
    *count = int64_t(bytes / uint64_t(t->size()));
  }
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  int64_t c = 0;
  if (!count) return abi::raise("MPI_Get_count", nullptr, core::error_set(errc::arg, "NULL count pointer"));
  int rc = get_count_impl("MPI_Get_count", status, datatype, &c);
  if (rc == MPI_SUCCESS) *count = c > INT32_MAX ? MPI_UNDEFINED : int(c);
  return rc;
}
int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  int64_t c = 0;
  if (!count) return abi::raise("MPI_Get_count_c", nullptr, core::error_set(errc::arg, "NULL count pointer"));
  int rc = get_count_impl("MPI_Get_count_c", status, datatype, &c);
  if (rc == MPI_SUCCESS) *count = c;
  return rc;
}

static int get_elements_impl(const char* fn, const MPI_Status* status, MPI_Datatype datatype, int64_t* count) {
  const core::datatype* t = abi::to_type(datatype);
  if (!t) return abi::raise(fn, nullptr, errc::type);
  if (!status) return abi::raise(fn, nullptr, core::error_set(errc::arg, "NULL status pointer (MPI_STATUS_IGNORE)"));
  int64_t n = t->elements_in(abi::status_bytes(status));
  *count = n < 0 ? static_cast<int64_t>(MPI_UNDEFINED) : n;
  return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  int64_t c = 0;
  if (!count) return abi::raise("MPI_Get_elements", nullptr, core::error_set(errc::arg, "NULL count pointer"));
  int rc = get_elements_impl("MPI_Get_elements", status, datatype, &c);
  if (rc == MPI_SUCCESS) *count = c > INT32_MAX ? MPI_UNDEFINED : int(c);
  return rc;
}
int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  int64_t c = 0;
  if (!count) return abi::raise("MPI_Get_elements_c", nullptr, core::error_set(errc::arg, "NULL count pointer"));
  int rc = get_elements_impl("MPI_Get_elements_c", status, datatype, &c);
  if (rc == MPI_SUCCESS) *count = c;
  return rc;
}
int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  int64_t c = 0;
  if (!count) return abi::raise("MPI_Get_elements_x", nullptr, core::error_set(errc::arg, "NULL count pointer"));
  int rc = get_elements_impl("MPI_Get_elements_x", status, datatype, &c);
  if (rc == MPI_SUCCESS) *count = c;
  return rc;
}

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  const core::datatype* t = abi::to_type(datatype);
  if (!t) return abi::raise("MPI_Status_set_elements", nullptr, errc::type);
  if (!status) return abi::raise("MPI_Status_set_elements", nullptr, core::error_set(errc::arg, "NULL status pointer"));
  abi::set_status_bytes(status, uint64_t(t->bytes_of_elements(count)));  // count is in basic elements
  return MPI_SUCCESS;
}
int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  const core::datatype* t = abi::to_type(datatype);
  if (!t) return abi::raise("MPI_Status_set_elements_c", nullptr, errc::type);
  if (!status)
    return abi::raise("MPI_Status_set_elements_c", nullptr, core::error_set(errc::arg, "NULL status pointer"));
  abi::set_status_bytes(status, uint64_t(t->bytes_of_elements(count)));  // count is in basic elements
  return MPI_SUCCESS;
}
int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  const core::datatype* t = abi::to_type(datatype);
  if (!t) return abi::raise("MPI_Status_set_elements_x", nullptr, errc::type);
  if (!status)
    return abi::raise("MPI_Status_set_elements_x", nullptr, core::error_set(errc::arg, "NULL status pointer"));
  abi::set_status_bytes(status, uint64_t(t->bytes_of_elements(count)));  // count is in basic elements
  return MPI_SUCCESS;
}

}  // namespace baton::impl
