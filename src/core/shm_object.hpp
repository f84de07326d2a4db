// Every POSIX shared-memory object of the library is made and opened here (the host segment,
// collective regions, persistent-collective regions, shared windows), so all follow one set of
// rules (docs/architecture.md, "Shared-memory objects"):
// - names carry the job (core/shm_names.hpp) and 128 bits from getrandom, never a clock or a
//   counter: nobody can plant a file under a name the job will use;
// - creation uses O_EXCL and, should the name exist all the same, retries under a new one;
// - opening checks that the object belongs to this user, is private to it (mode 0600) and has
//   the size the creator gave it, so no other user's file is ever mapped;
// - the creator hands the name to the other users through the bootstrap or a collective, and the
//   name is unlinked as soon as every user has mapped it. What a job that dies in between leaves
//   is removed by the launcher (it removes every name of its job) or by `mpiexec --cleanup`.
#pragma once

#include <cstddef>
#include <string>

#include "core/error.hpp"

namespace baton::core {

struct shm_object {
  std::string name;  // "/baton.<job>.<kind>.<pid>.<random>"; empty when none
  char* base = nullptr;
  size_t bytes = 0;
};

// The <job> field of this process's object names (BATON_JOBID under Baton's mpiexec, else from
// the process manager's job name; "s<pid>" for a singleton). Fixed at the first call, which must
// come after the bootstrap has started.
const std::string& shm_job();

// Fills `out` with `n` bytes from getrandom(2). errc::intern with a message when the kernel gives
// none: names are never made from a clock.
[[nodiscard]] errc random_bytes(void* out, size_t n);

// Creates, sizes and maps a new object of `bytes` bytes under a fresh name of kind `kind`.
// Failures: errc::no_mem (no room: ftruncate/mmap), errc::intern (no randomness, shm_open).
[[nodiscard]] errc shm_create(const char* kind, size_t bytes, shm_object* out);

// Opens and maps `name`, made by another rank of this job with shm_create(.., bytes, ..).
// errc::other when the object is not this user's, is open to others, or has another size.
[[nodiscard]] errc shm_open_checked(const std::string& name, size_t bytes, shm_object* out);

// Removes the name (the mapping stays); `o.name` is cleared. Safe to call twice.
void shm_unlink_name(shm_object& o);
// Unmaps (and leaves the name alone).
void shm_unmap(shm_object& o);

}  // namespace baton::core
