// Info objects (MPI-4.1 10): an ordered list of (key, value) strings.
//
// Keys keep the order in which they were first set (MPI_Info_get_nthkey walks that order); setting
// an existing key replaces its value in place. Limits are the ABI's: a key has at most
// info_max_key - 1 characters, a value at most info_max_value - 1.
// The environment object (MPI_INFO_ENV) is built once at first use and is read-only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/slab.hpp"

namespace baton::core {

constexpr uint32_t info_magic = 0x494e4631;  // "INF1"
constexpr size_t info_max_key = 256;         // MPI_MAX_INFO_KEY
constexpr size_t info_max_value = 1024;      // MPI_MAX_INFO_VAL

class info : public slab_allocated<info> {
 public:
  uint32_t magic = info_magic;
  bool predefined = false;  // MPI_INFO_ENV: read-only, never freed
  std::vector<std::pair<std::string, std::string>> entries;

  // nullptr when absent.
  const std::string* find(const std::string& key) const;
  [[nodiscard]] errc set(const std::string& key, const std::string& value);
  [[nodiscard]] errc erase(const std::string& key);  // errc::info_nokey when absent
};

// Checks a key's length (errc::info_key) and a value's (errc::info_value).
[[nodiscard]] errc info_check_key(const char* key);
[[nodiscard]] errc info_check_value(const char* value);

// The environment info: command, argv, maxprocs, soft, host, arch, wdir, thread_level (those known).
info* info_env();
// What MPI_Info_create_env returns: the environment info for this argc/argv (argv may be null).
info* info_make_env(int argc, char** argv);

}  // namespace baton::core
