// Datatype attributes (MPI-4.1 7.7.4): MPI_Type_create_keyval / free_keyval / set_attr /
// get_attr / delete_attr. Attributes live on the core datatype (predefined types included); copy
// callbacks run at MPI_Type_dup in the order the attributes were first set, delete callbacks at
// MPI_Type_delete_attr, when MPI_Type_set_attr replaces a value, and when the user frees the last
// handle of the type (last set first). The ABI's predefined callbacks are the sentinels 0
// (MPI_TYPE_NULL_COPY_FN / MPI_TYPE_NULL_DELETE_FN) and 1 (MPI_TYPE_DUP_FN).
//
// One recursive lock serialises every attribute access on datatypes: callbacks run under it and
// may call the attribute functions again (on this or another type).
#include <mutex>

#include "abi/abi.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

std::recursive_mutex& attr_mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}

constexpr uintptr_t sentinel_dup = 1;

errc callback_error(int rc, const char* which, int keyval) {
  errc e = abi::user_callback_error(rc);
  return core::error_set(e, "the %s callback of datatype attribute key %d returned error %d", which, keyval, rc);
}

errc run_delete(const core::datatype* t, const core::attribute a) {  // by value: the callback may edit the list
  auto* fn = reinterpret_cast<MPI_Type_delete_attr_function*>(a.kv->delete_fn);
  if (!fn) return errc::success;
  int rc = fn(abi::to_handle(t), a.kv->id, a.value, a.kv->extra_state);
  if (rc != MPI_SUCCESS) return callback_error(rc, "delete", a.kv->id);
  return errc::success;
}

core::attribute* find_attr(const core::datatype* t, int keyval) {
  for (core::attribute& a : t->attrs())
    if (a.kv->id == keyval) return &a;
  return nullptr;
}

errc get_type(MPI_Datatype h, const core::datatype** t) {
  *t = abi::to_type(h);
  return *t ? errc::success : errc::type;
}

}  // namespace

namespace baton::abi {

errc type_copy_attrs(const core::datatype* from, core::datatype* to) {
  std::lock_guard<std::recursive_mutex> g(attr_mutex());
  const std::vector<core::attribute> snapshot = from->attrs();
  for (const core::attribute& a : snapshot) {
    void* fnp = a.kv->copy_fn;
    void* out = nullptr;
    int flag = 0;
    if (fnp == nullptr) continue;  // MPI_TYPE_NULL_COPY_FN
    if (reinterpret_cast<uintptr_t>(fnp) == sentinel_dup) {
      out = a.value;
      flag = 1;
    } else {
      auto* fn = reinterpret_cast<MPI_Type_copy_attr_function*>(fnp);
      int rc = fn(to_handle(from), a.kv->id, a.kv->extra_state, a.value, &out, &flag);
      if (rc != MPI_SUCCESS) return callback_error(rc, "copy", a.kv->id);
    }
    if (flag) {
      a.kv->retain();
      to->attrs().push_back({a.kv, out});
    }
  }
  return errc::success;
}

errc type_delete_attrs(const core::datatype* t) {
  std::lock_guard<std::recursive_mutex> g(attr_mutex());
  auto& attrs = t->attrs();
  while (!attrs.empty()) {
    core::attribute a = attrs.back();
    if (errc e = run_delete(t, a); e != errc::success) return e;
    // The callback may have changed the list (deleting other attributes): find `a` again.
    for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
      if (it->kv == a.kv) {
        attrs.erase(std::next(it).base());
        a.kv->release();
        break;
      }
    }
  }
  return errc::success;
}

}  // namespace baton::abi

namespace baton::impl {

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                            int* type_keyval, void* extra_state) {
  const char* fn = "MPI_Type_create_keyval";
  if (!type_keyval) return abi::raise(fn, nullptr, core::error_set(errc::arg, "type_keyval is NULL"));
  return call(fn, nullptr, [&] {
    return core::keyval_create(core::keyval_kind::type, reinterpret_cast<void*>(copy_fn),
                               reinterpret_cast<void*>(delete_fn), extra_state, type_keyval);
  });
}

int MPI_Type_free_keyval(int* type_keyval) {
  const char* fn = "MPI_Type_free_keyval";
  if (!type_keyval) return abi::raise(fn, nullptr, core::error_set(errc::arg, "type_keyval is NULL"));
  return call(fn, nullptr, [&] {
    if (errc e = core::keyval_free(*type_keyval, core::keyval_kind::type); e != errc::success) return e;
    *type_keyval = MPI_KEYVAL_INVALID;
    return errc::success;
  });
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* fn = "MPI_Type_set_attr";
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    core::keyval* kv = core::keyval_find(type_keyval, core::keyval_kind::type);
    if (!kv) return errc::keyval;
    if (core::attribute* a = find_attr(t, type_keyval)) {
      if (errc e = run_delete(t, *a); e != errc::success) return e;
      // The delete callback may have touched the list: look the attribute up again.
      if (core::attribute* b = find_attr(t, type_keyval)) {
        b->value = attribute_val;
        return errc::success;
      }
    }
    kv->retain();
    t->attrs().push_back({kv, attribute_val});
    return errc::success;
  });
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Type_get_attr";
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!attribute_val || !flag)
    return abi::raise(fn, nullptr, core::error_set(errc::arg, "attribute_val or flag is NULL"));
  return call(fn, nullptr, [&] {
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    if (!core::keyval_find(type_keyval, core::keyval_kind::type, true)) return errc::keyval;
    core::attribute* a = find_attr(t, type_keyval);
    *flag = a ? 1 : 0;
    if (a) *static_cast<void**>(attribute_val) = a->value;
    return errc::success;
  });
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* fn = "MPI_Type_delete_attr";
  const core::datatype* t = nullptr;
  if (errc e = get_type(datatype, &t); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    std::lock_guard<std::recursive_mutex> g(attr_mutex());
    if (!core::keyval_find(type_keyval, core::keyval_kind::type, true)) return errc::keyval;
    core::attribute* a = find_attr(t, type_keyval);
    if (!a) return core::error_set(errc::keyval, "no attribute with key %d on this datatype", type_keyval);
    if (errc e = run_delete(t, *a); e != errc::success) return e;
    auto& attrs = t->attrs();
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (it->kv->id != type_keyval) continue;
      core::keyval* kv = it->kv;
      attrs.erase(it);
      kv->release();
      break;
    }
    return errc::success;
  });
}

}  // namespace baton::impl
