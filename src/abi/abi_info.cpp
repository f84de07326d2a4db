// Info objects (MPI-4.1 10). MPI_INFO_ENV is a read-only predefined object.
#include <cstring>

#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::abi {

core::info* to_info(MPI_Info h) {
  if (h == MPI_INFO_ENV) return core::info_env();
  if (h == MPI_INFO_NULL) {
    (void)core::error_set(errc::info, "invalid info object (MPI_INFO_NULL)");
    return nullptr;
  }
  if (is_predefined(h)) {
    (void)core::error_set(errc::info, "invalid info handle %p", static_cast<void*>(h));
    return nullptr;
  }
  auto* i = reinterpret_cast<core::info*>(h);
  if (!core::slab_holds<core::info>(i) || i->magic != core::info_magic) {
    (void)core::error_set(errc::info, "invalid info handle %p (freed or never created)", static_cast<void*>(h));
    return nullptr;
  }
  return i;
}

MPI_Info to_handle(core::info* i) {
  if (!i) return MPI_INFO_NULL;
  if (i == core::info_env()) return MPI_INFO_ENV;
  return reinterpret_cast<MPI_Info>(i);
}

void copy_out(char* out, int* len, const std::string& s, size_t max) {
  size_t n = std::min(s.size(), max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = 0;
  if (len) *len = int(n);
}

}  // namespace baton::abi

namespace {
errc writable(const core::info* i) {
  if (i->predefined) return core::error_set(errc::info, "MPI_INFO_ENV is read-only");
  return errc::success;
}

errc non_null(const void* p, const char* what) {
  if (!p) return core::error_set(errc::arg, "NULL %s", what);
  return errc::success;
}
}  // namespace

namespace baton::impl {

int MPI_Info_create(MPI_Info* info) {
  return call("MPI_Info_create", nullptr, [&] {
    if (errc e = non_null(info, "info pointer"); e != errc::success) return e;
    *info = abi::to_handle(new core::info);
    return errc::success;
  });
}

int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  return call("MPI_Info_create_env", nullptr, [&] {
    if (errc e = non_null(info, "info pointer"); e != errc::success) return e;
    *info = abi::to_handle(core::info_make_env(argc, argv));
    return errc::success;
  });
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_set", nullptr, errc::info);
  return call("MPI_Info_set", nullptr, [&] {
    if (errc e = writable(i); e != errc::success) return e;
    if (errc e = core::info_check_key(key); e != errc::success) return e;
    if (errc e = core::info_check_value(value); e != errc::success) return e;
    return i->set(key, value);
  });
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_delete", nullptr, errc::info);
  return call("MPI_Info_delete", nullptr, [&] {
    if (errc e = writable(i); e != errc::success) return e;
    if (errc e = core::info_check_key(key); e != errc::success) return e;
    return i->erase(key);
  });
}

int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_get_string", nullptr, errc::info);
  return call("MPI_Info_get_string", nullptr, [&] {
    if (errc e = core::info_check_key(key); e != errc::success) return e;
    if (errc e = non_null(buflen, "buflen"); e != errc::success) return e;
    if (errc e = non_null(flag, "flag"); e != errc::success) return e;
    const std::string* v = i->find(key);
    *flag = v ? 1 : 0;
    if (!v) return errc::success;
    const int room = *buflen;
    if (room < 0) return core::error_set(errc::arg, "negative buflen %d", room);
    if (room > 0) {
      if (!value) return core::error_set(errc::arg, "NULL value buffer with buflen %d", room);
      abi::copy_out(value, nullptr, *v, size_t(room));
    }
    *buflen = int(v->size()) + 1;  // the room the whole value needs, NUL included
    return errc::success;
  });
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_get", nullptr, errc::info);
  return call("MPI_Info_get", nullptr, [&] {
    if (errc e = core::info_check_key(key); e != errc::success) return e;
    if (errc e = non_null(flag, "flag"); e != errc::success) return e;
    if (valuelen < 0) return core::error_set(errc::arg, "negative valuelen %d", valuelen);
    const std::string* v = i->find(key);
    *flag = v ? 1 : 0;
    if (!v) return errc::success;
    if (errc e = non_null(value, "value buffer"); e != errc::success) return e;
    abi::copy_out(value, nullptr, *v, size_t(valuelen) + 1);  // valuelen excludes the NUL
    return errc::success;
  });
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_get_valuelen", nullptr, errc::info);
  return call("MPI_Info_get_valuelen", nullptr, [&] {
    if (errc e = core::info_check_key(key); e != errc::success) return e;
    if (errc e = non_null(flag, "flag"); e != errc::success) return e;
    if (errc e = non_null(valuelen, "valuelen"); e != errc::success) return e;
    const std::string* v = i->find(key);
    *flag = v ? 1 : 0;
    if (v) *valuelen = int(v->size());
    return errc::success;
  });
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_get_nkeys", nullptr, errc::info);
  return call("MPI_Info_get_nkeys", nullptr, [&] {
    if (errc e = non_null(nkeys, "nkeys"); e != errc::success) return e;
    *nkeys = int(i->entries.size());
    return errc::success;
  });
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_get_nthkey", nullptr, errc::info);
  return call("MPI_Info_get_nthkey", nullptr, [&] {
    if (n < 0 || size_t(n) >= i->entries.size())
      return core::error_set(errc::arg, "key index %d out of range (the object has %zu keys)", n, i->entries.size());
    if (errc e = non_null(key, "key buffer"); e != errc::success) return e;
    abi::copy_out(key, nullptr, i->entries[size_t(n)].first, MPI_MAX_INFO_KEY);
    return errc::success;
  });
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  core::info* i = abi::to_info(info);
  if (!i) return abi::raise("MPI_Info_dup", nullptr, errc::info);
  return call("MPI_Info_dup", nullptr, [&] {
    if (errc e = non_null(newinfo, "newinfo pointer"); e != errc::success) return e;
    auto* n = new core::info;
    n->entries = i->entries;
    *newinfo = abi::to_handle(n);
    return errc::success;
  });
}

int MPI_Info_free(MPI_Info* info) {
  if (!info) {
    (void)core::error_set(errc::arg, "NULL info pointer");
    return abi::raise("MPI_Info_free", nullptr, errc::arg);
  }
  core::info* i = abi::to_info(*info);
  if (!i) return abi::raise("MPI_Info_free", nullptr, errc::info);
  if (i->predefined) {
    (void)core::error_set(errc::info, "cannot free the predefined MPI_INFO_ENV");
    return abi::raise("MPI_Info_free", nullptr, errc::info);
  }
  i->magic = 0;
  delete i;
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

}  // namespace baton::impl
