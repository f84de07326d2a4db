#include "core/info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/runtime.hpp"

namespace baton::core {

const std::string* info::find(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

errc info::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries)
    if (k == key) {
      v = value;
      return errc::success;
    }
  entries.emplace_back(key, value);
  return errc::success;
}

errc info::erase(const std::string& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->first == key) {
      entries.erase(it);
      return errc::success;
    }
  return error_set(errc::info_nokey, "key \"%s\" is not in the info object", key.c_str());
}

errc info_check_key(const char* key) {
  if (!key) return error_set(errc::info_key, "NULL info key");
  const size_t n = std::strlen(key);
  if (n == 0) return error_set(errc::info_key, "empty info key");
  if (n >= info_max_key)
    return error_set(errc::info_key, "info key of %zu characters (at most %zu allowed)", n, info_max_key - 1);
  return errc::success;
}

errc info_check_value(const char* value) {
  if (!value) return error_set(errc::info_value, "NULL info value");
  const size_t n = std::strlen(value);
  if (n >= info_max_value)
    return error_set(errc::info_value, "info value of %zu characters (at most %zu allowed)", n, info_max_value - 1);
  return errc::success;
}

namespace {
// argv of this process from /proc/self/cmdline (MPI_Init may have been given no argv).
std::vector<std::string> self_argv() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == '\0') {
      out.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

void fill_env(info* in, const std::vector<std::string>& argv) {
  const runtime& R = rt();
  auto put = [in](const char* k, const std::string& v) {
    if (v.size() < info_max_value) (void)in->set(k, v);
  };
  if (!argv.empty()) put("command", argv[0]);
  if (argv.size() > 1) {
    std::string a;
    for (size_t i = 1; i < argv.size(); ++i) a += (i > 1 ? " " : "") + argv[i];
    put("argv", a);
  }
  // The same values before MPI_Init, after it and after MPI_Finalize (MPI_Info_create_env may be
  // called at any time): the launcher's job size, the host's name, the launch-time thread level.
  int procs = R.world_size;
  if (!R.initialized.load()) {
    const char* ps = std::getenv("PMI_SIZE");
    procs = std::getenv("PMI_FD") && ps ? std::atoi(ps) : 1;
  }
  put("maxprocs", std::to_string(procs));
  put("soft", std::to_string(procs));
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) put("host", host);
  struct utsname u;
  if (uname(&u) == 0) put("arch", u.machine);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) put("wdir", cwd);
  // "thread_level" is the level requested before the program started (MPI-4.1 11.2.4): Baton's
  // launch-time knob BATON_THREAD_LEVEL, when set; MPI_Init_thread's argument does not change it.
  static const char* levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                 "MPI_THREAD_MULTIPLE"};
  if (const char* v = std::getenv("BATON_THREAD_LEVEL"); v && *v && std::atoi(v) >= 0 && std::atoi(v) <= 3)
    put("thread_level", levels[std::atoi(v)]);
}
}  // namespace

info* info_env() {
  static info* env = [] {
    auto* in = new info;
    in->predefined = true;
    fill_env(in, self_argv());
    return in;
  }();
  return env;
}

info* info_make_env(int argc, char** argv) {
  auto* in = new info;
  std::vector<std::string> a;
  if (argv && argc > 0) {
    for (int i = 0; i < argc; ++i)
      if (argv[i]) a.emplace_back(argv[i]);
  } else {
    a = self_argv();
  }
  fill_env(in, a);
  return in;
}

}  // namespace baton::core
