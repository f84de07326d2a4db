// Attribute caching (MPI-4.1 7.7): key values and the attributes objects carry.
//
// A keyval is created by the user with a copy and a delete callback. The core keeps the callbacks
// as opaque pointers: only src/abi knows their C types and calls them (copy at MPI_Comm_dup, delete
// at MPI_Comm_free / MPI_Comm_delete_attr / replacement). The ABI's predefined callbacks are the
// sentinel values 0 (null copy / null delete) and 1 (dup): callers test for them, never call them.
//
// Keyval numbers: 0 is MPI_KEYVAL_INVALID; 501-507 and 601-605 are the standard's predefined keys,
// 1001-1099 Baton's (mpix.h). User keyvals start at keyval_first_user and are never reused.
// A keyval freed while attributes still use it stays alive (reference counted) until the last of
// them is deleted (MPI-4.1 7.7.2): until then get_attr / delete_attr / free_keyval still accept its
// number (a second free does nothing), set_attr refuses it; afterwards the number is invalid.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace baton::core {

constexpr int keyval_first_user = 1100;

enum class keyval_kind : uint8_t { comm, type, win };

class keyval {
 public:
  int id = 0;
  keyval_kind kind = keyval_kind::comm;
  void* copy_fn = nullptr;    // sentinel 0 = null copy, 1 = dup; else a C callback
  void* delete_fn = nullptr;  // sentinel 0 = null delete; else a C callback
  void* extra_state = nullptr;
  bool freed = false;        // the user called free_keyval
  std::atomic<int> refs{1};  // the user's reference plus one per attribute
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  void release();
};

// One attribute on an object; lists keep the order attributes were first set.
struct attribute {
  keyval* kv;
  void* value;
};

// True for every number reserved to predefined keys (never handed to users).
bool keyval_is_predefined(int id);

[[nodiscard]] errc keyval_create(keyval_kind kind, void* copy_fn, void* delete_fn, void* extra_state, int* id);
// The live keyval of this number and kind; nullptr with errc::keyval set otherwise. One the user
// freed (still held by attributes) is found only with allow_freed.
keyval* keyval_find(int id, keyval_kind kind, bool allow_freed = false);
// Marks the keyval freed and drops the user's reference.
[[nodiscard]] errc keyval_free(int id, keyval_kind kind);

}  // namespace baton::core
