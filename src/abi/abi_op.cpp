// Reduction operations (MPI-4.1 section 6.9): MPI_Op_create/free/commutative and MPI_Reduce_local.
//
// Predefined op handles are their ABI values; a user op handle is the address of its core::op,
// listed in a registry while the user holds it so that a freed or made-up handle gives MPI_ERR_OP.
// The core calls a user op through a wrapper here, which calls the C function with the
// datatype handle the caller of op_apply passed (the MPI_Datatype).
#include <climits>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

#include "abi/abi.hpp"
#include "core/reduce.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

struct op_registry {
  std::shared_mutex m;
  std::unordered_set<const core::op*> live;
};

op_registry& registry() {
  static auto* r = new op_registry;  // never destroyed: usable from static destructors
  return *r;
}

// The datatype behind a handle the core hands back to a user op wrapper (already validated by
// the call that started the reduction, and kept alive by it).
const core::datatype* type_of(MPI_Datatype h) {
  if (abi::is_predefined(h)) return core::predefined_datatype(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h)));
  return reinterpret_cast<const core::datatype*>(h);
}

// MPI_User_function takes an int count: larger counts go in INT_MAX pieces.
void call_user_fn(void* in, void* inout, int64_t count, void* datatype_handle, void* ctx) {
  auto* fn = reinterpret_cast<MPI_User_function*>(ctx);
  auto dt = static_cast<MPI_Datatype>(datatype_handle);
  const int64_t extent = count > INT_MAX ? type_of(dt)->extent() : 0;
  auto* a = static_cast<char*>(in);
  auto* b = static_cast<char*>(inout);
  while (count > 0) {
    int n = count > INT_MAX ? INT_MAX : static_cast<int>(count);
    fn(a, b, &n, &dt);
    a += int64_t(n) * extent;
    b += int64_t(n) * extent;
    count -= n;
  }
}

void call_user_fn_c(void* in, void* inout, int64_t count, void* datatype_handle, void* ctx) {
  auto* fn = reinterpret_cast<MPI_User_function_c*>(ctx);
  auto dt = static_cast<MPI_Datatype>(datatype_handle);
  MPI_Count n = count;
  fn(in, inout, &n, &dt);
}

int op_create_impl(const char* fn, core::user_fn wrapper, void* user_function, int commute, MPI_Op* op) {
  if (!user_function) return abi::raise(fn, nullptr, core::error_set(errc::arg, "user_fn is NULL"));
  if (!op) return abi::raise(fn, nullptr, core::error_set(errc::arg, "op is NULL"));
  return call(fn, nullptr, [&] {
    core::op* o = nullptr;
    if (errc e = core::op_create_user(wrapper, user_function, commute != 0, &o); e != errc::success) return e;
    try {
      op_registry& r = registry();
      std::unique_lock lock(r.m);
      r.live.insert(o);
    } catch (...) {
      o->release();
      throw;
    }
    *op = abi::to_handle(o);
    return errc::success;
  });
}

int reduce_local_impl(const char* fn, const void* inbuf, void* inoutbuf, int64_t count, MPI_Datatype datatype,
                      MPI_Op op) {
  const core::datatype* t = abi::to_type(datatype);
  if (errc e = abi::check_type(t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_count(count); e != errc::success) return abi::raise(fn, nullptr, e);
  const core::op* o = abi::to_op(op);
  if (!o) return abi::raise(fn, nullptr, errc::op);
  core::elem_kind k = core::elem_kind::none;
  if (errc e = abi::check_op_type(*o, *t, &k); e != errc::success) return abi::raise(fn, nullptr, e);
  // MPI_IN_PLACE is not an option of this call, and the two buffers must not alias (MPI-4.1
  // section 2.3): refused before either is touched (MPI_IN_PLACE is address 1 in the ABI).
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return abi::raise(fn, nullptr,
                      core::error_set(errc::buffer, "MPI_IN_PLACE given as %s; MPI_Reduce_local has no in-place form",
                                      inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf"));
  if (errc e = abi::check_buffer(inbuf, count, t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (errc e = abi::check_buffer(inoutbuf, count, t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (count == 0 || t->size() == 0) return MPI_SUCCESS;
  if (inbuf == inoutbuf)
    return abi::raise(fn, nullptr,
                      core::error_set(errc::buffer, "inbuf and inoutbuf are the same buffer (aliased arguments)"));
  return call(fn, nullptr, [&] {
    return core::reduce_typed(*o, inbuf, inoutbuf, count, *t, static_cast<void*>(abi::to_handle(t)));
  });
}

}  // namespace

namespace baton::abi {

const core::op* to_op(MPI_Op h) {
  if (h == MPI_OP_NULL) {
    (void)core::error_set(errc::op, "invalid op (MPI_OP_NULL)");
    return nullptr;
  }
  if (is_predefined(h)) {
    const core::op* o = core::predefined_op(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h)));
    if (!o) (void)core::error_set(errc::op, "invalid op handle %p", static_cast<void*>(h));
    return o;
  }
  const auto* o = reinterpret_cast<const core::op*>(h);
  op_registry& r = registry();
  std::shared_lock lock(r.m);
  if (r.live.find(o) == r.live.end()) {
    (void)core::error_set(errc::op, "invalid op handle %p (freed or never created)", static_cast<void*>(h));
    return nullptr;
  }
  return o;
}

MPI_Op to_handle(const core::op* o) {
  if (o->is_predefined()) return reinterpret_cast<MPI_Op>(static_cast<uintptr_t>(o->abi_code()));
  return reinterpret_cast<MPI_Op>(const_cast<core::op*>(o));
}

errc check_op_type(const core::op& o, const core::datatype& t, core::elem_kind* kind) {
  *kind = t.basic() ? core::elem_kind_of_abi_code(t.basic()->abi_code()) : core::elem_kind::none;
  const char* name = !t.name().empty() ? t.name().c_str()
                     : t.basic()       ? "(a derived datatype)"
                                       : "(a derived datatype mixing element types)";
  return core::op_check(o, *kind, name);
}

}  // namespace baton::abi

namespace baton::impl {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create_impl("MPI_Op_create", call_user_fn, reinterpret_cast<void*>(user_fn), commute, op);
}
int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create_impl("MPI_Op_create_c", call_user_fn_c, reinterpret_cast<void*>(user_fn), commute, op);
}

int MPI_Op_free(MPI_Op* op) {
  const char* fn = "MPI_Op_free";
  if (!op) return abi::raise(fn, nullptr, core::error_set(errc::arg, "op is NULL"));
  const core::op* o = abi::to_op(*op);
  if (!o) return abi::raise(fn, nullptr, errc::op);
  if (o->is_predefined())
    return abi::raise(fn, nullptr, core::error_set(errc::op, "MPI_%s is predefined and cannot be freed", o->name()));
  {
    op_registry& r = registry();
    std::unique_lock lock(r.m);
    if (r.live.erase(o) == 0) {  // another thread freed it first
      return abi::raise(
          fn, nullptr,
          core::error_set(errc::op, "invalid op handle %p (freed or never created)", static_cast<void*>(*op)));
    }
  }
  // Operations in flight hold their own references.
  o->release();
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  const char* fn = "MPI_Op_commutative";
  const core::op* o = abi::to_op(op);
  if (!o) return abi::raise(fn, nullptr, errc::op);
  if (!commute) return abi::raise(fn, nullptr, core::error_set(errc::arg, "commute is NULL"));
  *commute = o->is_commutative() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local_impl("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local_impl("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

}  // namespace baton::impl
