// The registry of user datatype handles and the cache of MPI_Type_create_f90_* types (see
// datatype_registry.hpp).
#include "core/datatype_registry.hpp"

#include <map>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>

namespace baton::core {

namespace {

struct type_registry {
  std::shared_mutex m;
  std::unordered_map<const datatype*, int64_t> handles;
};

// Never destroyed: handles may be checked by atexit handlers and other static destructors.
type_registry& registry() {
  static auto* r = new type_registry;
  return *r;
}

struct f90_cache {
  std::mutex m;
  std::map<std::tuple<int, int, int>, const datatype*> types;
};
f90_cache& f90_types() {
  static auto* c = new f90_cache;
  return *c;
}

}  // namespace

void type_register(const datatype* t) {
  type_registry& r = registry();
  std::unique_lock lock(r.m);
  ++r.handles[t];
}

bool type_registered(const datatype* t) {
  type_registry& r = registry();
  std::shared_lock lock(r.m);
  return r.handles.find(t) != r.handles.end();
}

bool type_unregister(const datatype* t) {
  type_registry& r = registry();
  std::unique_lock lock(r.m);
  auto it = r.handles.find(t);
  if (it == r.handles.end()) return false;
  if (--it->second == 0) r.handles.erase(it);
  return true;
}

int64_t type_handles(const datatype* t) {
  type_registry& r = registry();
  std::shared_lock lock(r.m);
  auto it = r.handles.find(t);
  return it == r.handles.end() ? 0 : it->second;
}

bool type_is_permanent(const datatype& t) {
  const combiner c = t.get_combiner();
  return t.is_predefined() || c == combiner::f90_real || c == combiner::f90_complex || c == combiner::f90_integer;
}

errc type_f90_get(combiner which, int p, int r, const datatype* base, const datatype** out) {
  f90_cache& c = f90_types();
  std::lock_guard<std::mutex> g(c.m);
  const auto key = std::make_tuple(static_cast<int>(which), which == combiner::f90_integer ? 0 : p, r);
  auto it = c.types.find(key);
  if (it == c.types.end()) {
    datatype* t = nullptr;
    if (errc e = type_f90(which, p, r, base, &t); e != errc::success) return e;
    try {
      type_register(t);
      it = c.types.emplace(key, t).first;
    } catch (...) {
      t->release();
      throw;
    }
  }
  *out = it->second;
  return errc::success;
}

}  // namespace baton::core
