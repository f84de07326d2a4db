// The C ABI shell: argument checks, handle <-> object conversion, error-handler dispatch.
//
// The entry points are generated from the API description (tools/api/mpi_api.txt, README.md
// there): each MPI function is defined once as PMPI_Name (the profiling interface) and exported as
// a weak alias MPI_Name, so tools interpose on MPI_ names. PMPI_Name runs the checks the
// description gives the generated code, then calls its implementation baton::impl::MPI_Name
// (declared in the generated abi/api_impl.hpp, written in src/abi/*.cpp), which checks the rest
// of its arguments, converts handles, calls the core inside abi::call() (which turns any exception
// into an MPI error class: nothing throws across extern "C") and reports a failure through
// raise(), which runs the communicator's error handler with a message naming the function and the
// problem.
//
// Handles follow the MPI-5.0 standard ABI: predefined handles are small integers (below 0x1000),
// every other handle is the address of the core object.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <new>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/datatype_registry.hpp"
#include "core/error.hpp"
#include "core/op.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"

#include "abi/api_impl.hpp"

// MPI_Name as a weak alias of PMPI_Name (the generated entry points use it; so may a binding file
// written in the old style until tools/api/convert_binding.py converts it).
#define BATON_ALIAS(name) \
  extern "C" __attribute__((weak, alias("P" #name), visibility("default"))) decltype(P##name) name

namespace baton::abi {

using core::errc;

constexpr uintptr_t predefined_limit = 0x1000;

inline bool is_predefined(const void* h) { return reinterpret_cast<uintptr_t>(h) < predefined_limit; }

// Maps an error class of the core to the MPI one (identical numbering, pinned in abi_common.cpp).
inline int to_mpi(errc e) { return static_cast<int>(e); }

// ---- handles ----
core::comm* to_comm(MPI_Comm h);  // nullptr (with error_set) if invalid or MPI_COMM_NULL
MPI_Comm to_handle(core::comm* c);
const core::datatype* to_type(MPI_Datatype h);  // nullptr (with error_set) if invalid
// Derived datatype handles held by the user (core/datatype_registry.hpp): a code that hands a new
// derived type to the user registers it once per handle; to_type() refuses unregistered addresses.
using core::type_register;
using core::type_registered;
// Datatype attributes (abi_type_attr.cpp): copy callbacks of `from`'s attributes onto `to`
// (MPI_Type_dup), and delete callbacks of every attribute of `t`, last set first (the user's last
// handle of `t` is being freed). Both stop at the first failing callback.
errc type_copy_attrs(const core::datatype* from, core::datatype* to);
errc type_delete_attrs(const core::datatype* t);
inline MPI_Datatype to_handle(const core::datatype* t) {
  return t->is_predefined() ? reinterpret_cast<MPI_Datatype>(static_cast<uintptr_t>(t->abi_code()))
                            : reinterpret_cast<MPI_Datatype>(const_cast<core::datatype*>(t));
}
inline core::request* to_request(MPI_Request h) {
  if (h == MPI_REQUEST_NULL) return nullptr;
  return reinterpret_cast<core::request*>(h);
}
inline MPI_Request to_handle(core::request* r) { return reinterpret_cast<MPI_Request>(r); }
// A non-null request handle that does not point at a live request: errc::request. Inline (a
// range, alignment and magic test: every MPI_Start / MPI_Wait / MPI_Test takes it); the refusal
// is out of line.
[[gnu::cold]] errc refuse_request(MPI_Request h, core::request** out);
inline errc check_request(MPI_Request h, core::request** out) {
  core::request* r = to_request(h);
  *out = r;
  if (r && (!core::slab_holds<core::request>(r) || r->magic != core::request_magic)) [[unlikely]]
    return refuse_request(h, out);
  return errc::success;
}
core::errhandler* to_errhandler(MPI_Errhandler h);
MPI_Errhandler to_handle(core::errhandler* e);
// Reduction ops (abi_op.cpp): nullptr (with error_set, errc::op) for MPI_OP_NULL, freed or unknown.
const core::op* to_op(MPI_Op h);
MPI_Op to_handle(const core::op* o);
// Whether `o` applies to `t`'s basic elements (errc::op with a message if not); *kind gets the
// element kind op_apply takes (count * t.basic_count() elements of it per count of t).
errc check_op_type(const core::op& o, const core::datatype& t, core::elem_kind* kind);
// The error a user callback's nonzero return code stands for (attribute copy/delete callbacks,
// abi_common.cpp): the code itself when it is a predefined class or a class/code made by
// MPI_Add_error_class/_code, so the caller gets what the callback returned; else MPI_ERR_OTHER.
errc user_callback_error(int rc);

// ---- argument checks (each sets a clear message) ----
// MPI is usable: the World model is initialized and not finalized, or a session is initialized
// (inline: every call of the queue and request paths makes this check); check_init_failed sets
// the message.
errc check_init_failed(const char* fn);
inline errc check_init(const char* fn) {
  if (core::rt().active.load(std::memory_order_relaxed)) [[likely]]
    return errc::success;
  return check_init_failed(fn);
}
errc check_count(int64_t count);
errc check_type(const core::datatype* t);  // committed, usable for communication
errc check_buffer(const void* buf, int64_t count, const core::datatype* t);
errc check_send_rank(const core::comm* c, int rank);  // valid rank or MPI_PROC_NULL
errc check_recv_rank(const core::comm* c, int rank);  // also MPI_ANY_SOURCE
errc check_send_tag(int tag);
errc check_recv_tag(int tag);  // also MPI_ANY_TAG

// Thread levels: the ABI's values (MPI_THREAD_SINGLE ...) and the core's (abi_env.cpp).
core::thread_level level_from_mpi(int required);
int level_to_mpi(core::thread_level l);

// ---- status ----
void to_status(const core::req_status& s, MPI_Status* st);  // MPI_ERROR left as is
void empty_status(MPI_Status* st);
uint64_t status_bytes(const MPI_Status* st);
void set_status_bytes(MPI_Status* st, uint64_t bytes);

// ---- generalized requests (abi_grequest.cpp, MPI-4.1 13.2) ----
// A request of kind grequest is always active and nonpersistent; `complete` says that
// MPI_Grequest_complete was called. The completion calls (abi_request.cpp) report one through
// these, without the engine lock held (the callbacks may call MPI).
// A completion call reports r: query_fn fills `st` (a scratch status when st is
// MPI_STATUS_IGNORE), free_fn runs, r is destroyed. Returns the request's error: query_fn's code,
// else free_fn's.
errc grequest_retire(core::request* r, MPI_Status* st);
// MPI_Request_get_status(_all/_any/_some) on a completed r: query_fn only. Returns its code.
errc grequest_query(core::request* r, MPI_Status* st);
// MPI_Request_free on r: if MPI_Grequest_complete was called, runs free_fn and destroys r (returns
// free_fn's code); otherwise MPI_Grequest_complete will.
errc grequest_free(core::request* r);

// ---- buffered mode (abi_p2p.cpp): one slot's attach/detach/iflush, shared by the process,
// communicator and session forms. MPI_BUFFER_AUTOMATIC asks for an automatic buffer; detaching one
// gives back MPI_BUFFER_AUTOMATIC and size 0.
errc bsend_attach(p2p::bsend_buffer** slot, void* buffer, int64_t size);
errc bsend_detach(p2p::bsend_buffer** slot, void* buffer_addr, int* size);
errc bsend_detach(p2p::bsend_buffer** slot, void* buffer_addr, MPI_Count* size);
errc bsend_iflush(p2p::bsend_buffer** slot, core::comm* c, MPI_Request* request);

// ---- errors ----
// Runs the error handler of `c` (MPI_COMM_WORLD's when c is null) for error `e` raised in `fn`,
// and returns the error code to give back to the caller.
int raise(const char* fn, core::comm* c, errc e);
// Same, for an error handler given directly (file/window-less objects).
int raise_with(const char* fn, core::errhandler* eh, MPI_Comm handle, errc e);
// The generated "null" check (tools/api): `param` of `fn` is NULL where the function needs a
// pointer. errc::arg, on the error handler of the call's communicator, window or session when
// it has one (a valid one), else MPI_COMM_WORLD's.
int raise_null(const char* fn, const char* param);
int raise_null(const char* fn, MPI_Comm comm, const char* param);
int raise_null(const char* fn, MPI_Win win, const char* param);          // abi_rma.cpp
int raise_null(const char* fn, MPI_Session session, const char* param);  // abi_session.cpp

// Runs `body` (returning errc); exceptions become MPI_ERR_NO_MEM / MPI_ERR_INTERN.
template <class Body>
inline errc run_guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return core::error_set(errc::no_mem, "out of memory");
  } catch (...) {
    return core::error_set(errc::intern, "internal error (unexpected exception)");
  }
}

// run_guarded, then a failure goes to the communicator's error handler.
template <class Body>
inline int call(const char* fn, core::comm* c, Body&& body) {
  errc e = run_guarded(body);
  if (e == errc::success) return MPI_SUCCESS;
  return raise(fn, c, e);
}

}  // namespace baton::abi
