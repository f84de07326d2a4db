#include "core/attr.hpp"

#include <climits>
#include <mutex>
#include <unordered_map>

namespace baton::core {

namespace {
std::mutex g_keyval_mutex;
std::unordered_map<int, keyval*> g_keyvals;  // live keyvals (freed ones too while attributes hold them)
int g_next_keyval = keyval_first_user;

const char* kind_name(keyval_kind k) {
  switch (k) {
    case keyval_kind::comm:
      return "communicator";
    case keyval_kind::type:
      return "datatype";
    case keyval_kind::win:
      return "window";
  }
  return "?";
}
}  // namespace

void keyval::release() {
  if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    {
      std::lock_guard<std::mutex> g(g_keyval_mutex);
      g_keyvals.erase(id);
    }
    delete this;
  }
}

bool keyval_is_predefined(int id) {
  return id == 0 || (id >= 501 && id <= 507) || (id >= 601 && id <= 605) || (id >= 1001 && id <= 1099);
}

errc keyval_create(keyval_kind kind, void* copy_fn, void* delete_fn, void* extra_state, int* id) {
  std::lock_guard<std::mutex> g(g_keyval_mutex);
  if (g_next_keyval == INT_MAX) return error_set(errc::keyval, "out of attribute key values");
  auto* k = new keyval;
  k->id = g_next_keyval++;
  k->kind = kind;
  k->copy_fn = copy_fn;
  k->delete_fn = delete_fn;
  k->extra_state = extra_state;
  g_keyvals.emplace(k->id, k);
  *id = k->id;
  return errc::success;
}

keyval* keyval_find(int id, keyval_kind kind, bool allow_freed) {
  std::lock_guard<std::mutex> g(g_keyval_mutex);
  auto it = g_keyvals.find(id);
  if (it != g_keyvals.end() && it->second->freed && !allow_freed) {
    (void)error_set(errc::keyval, "attribute key %d was freed (MPI_*_free_keyval): no new attribute may use it", id);
    return nullptr;
  }
  if (it == g_keyvals.end()) {
    if (id == 0)
      (void)error_set(errc::keyval, "invalid attribute key (MPI_KEYVAL_INVALID)");
    else if (keyval_is_predefined(id))
      (void)error_set(errc::keyval, "attribute key %d is predefined (read-only)", id);
    else
      (void)error_set(errc::keyval, "invalid attribute key %d (freed or never created)", id);
    return nullptr;
  }
  if (it->second->kind != kind) {
    (void)error_set(errc::keyval, "attribute key %d was created for %s objects, not %s ones", id,
                    kind_name(it->second->kind), kind_name(kind));
    return nullptr;
  }
  return it->second;
}

errc keyval_free(int id, keyval_kind kind) {
  keyval* k = keyval_find(id, kind, true);
  if (!k) return errc::keyval;
  {
    std::lock_guard<std::mutex> g(g_keyval_mutex);
    if (k->freed) return errc::success;  // freed before, still held by attributes: nothing to drop
    k->freed = true;
  }
  k->release();
  return errc::success;
}

}  // namespace baton::core
