#include "mpiexec_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "core/shm_names.hpp"

namespace baton::launcher {
namespace {

namespace names = baton::core::shm_names;
constexpr const char* shm_dir = "/dev/shm";  // where glibc's shm_open keeps its objects

bool pid_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// Calls `visit(name, st)` for every regular file in `dir` that belongs to this user.
void each_own_object(const char* dir, const std::function<void(const char*, const struct stat&)>& visit) {
  DIR* d = ::opendir(dir);
  if (d == nullptr) return;
  const uid_t me = ::geteuid();
  while (const dirent* e = ::readdir(d)) {
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != me) continue;  // never another user's
    visit(e->d_name, st);
  }
  ::closedir(d);
}

}  // namespace

int cleanup_job(const std::string& jobid) {
  if (jobid.empty()) return 0;
  const std::string lead = std::string(names::prefix) + jobid + ".";
  int removed = 0;
  const int dir = ::open(shm_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  each_own_object(shm_dir, [&](const char* name, const struct stat&) {
    if (std::strncmp(name, lead.c_str(), lead.size()) == 0 && ::unlinkat(dir, name, 0) == 0) ++removed;
  });
  ::close(dir);
  return removed;
}

int cleanup_dead_jobs() {
  // BATON_SHM_DIR: another directory to clean (tests work on a copy, never on the shared /dev/shm).
  const char* env = std::getenv("BATON_SHM_DIR");
  const char* where = env != nullptr && *env != '\0' ? env : shm_dir;
  const int dir = ::open(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    std::fprintf(stderr, "mpiexec: --cleanup: cannot open %s: %s\n", where, std::strerror(errno));
    return 1;
  }
  int removed = 0, kept = 0, failed = 0;
  unsigned long long bytes = 0;
  each_own_object(where, [&](const char* name, const struct stat& st) {
    names::parsed p;
    if (!names::parse(name, &p)) return;
    // A job is over when the process that made the object is gone and, for a job of Baton's
    // mpiexec, that mpiexec is gone too (it removes its job's objects itself when it ends).
    if (pid_alive(p.creator) || pid_alive(p.launcher)) {
      ++kept;
      return;
    }
    if (::unlinkat(dir, name, 0) != 0) {
      std::fprintf(stderr, "mpiexec: --cleanup: cannot remove %s/%s: %s\n", where, name, std::strerror(errno));
      ++failed;
      return;
    }
    ++removed;
    bytes += static_cast<unsigned long long>(st.st_size);
    std::printf("removed %s/%s (%lld bytes, %s object of a job that is over)\n", where, name,
                static_cast<long long>(st.st_size), p.kind.c_str());
  });
  ::close(dir);
  std::printf("mpiexec --cleanup: removed %d object%s (%llu bytes); %d of live jobs left alone\n", removed,
              removed == 1 ? "" : "s", bytes, kept);
  return failed == 0 ? 0 : 1;
}

}  // namespace baton::launcher
