// The Sessions model (MPI-4.1 11.3): the session object, the registry of live sessions, process
// sets, and the thread level a session's info asks for. src/abi/abi_session.cpp is the binding
// (handles, argument checks, error handlers).
//
// A session is a counted user of the runtime: session_open brings the runtime up if neither
// MPI_Init nor another session has (runtime_acquire), session_close lets go of it
// (runtime_release: the runtime stays up while the World model or any session uses it).
// Process sets: "mpi://WORLD" (every process of the launch) and "mpi://SELF" (the caller); names
// are matched without regard to case.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/info.hpp"
#include "core/runtime.hpp"
#include "core/session_link.hpp"
#include "core/slab.hpp"

namespace baton::core {
class errhandler;
}

namespace baton::comm {

using core::errc;
using core::errhandler;
using core::info;
using core::session_link;
using core::thread_level;

struct session : core::slab_allocated<session> {
  static constexpr uint32_t live_magic = 0x53455331;  // "SES1"
  uint32_t magic = live_magic;
  errhandler* eh = nullptr;  // a reference held
  thread_level level = thread_level::single;
  // Shared with the groups and communicators derived from the session: its buffered-send buffer.
  std::shared_ptr<session_link> link = std::make_shared<session_link>();
};

// Acquires the runtime at thread level `want` and registers a new session holding a reference on
// `eh`; *out gets it.
[[nodiscard]] errc session_open(thread_level want, errhandler* eh, session** out);
// Unregisters and frees `s` (the caller detached its buffer first), then releases the runtime.
// *eh gets the session's error handler, still referenced (the caller reports a failure of the
// release on it, then releases it).
[[nodiscard]] errc session_close(session* s, errhandler** eh);
// Whether `s` is a live session (a finalized or made-up address is refused without reading it).
[[nodiscard]] bool session_valid(const session* s);

// Process sets.
[[nodiscard]] int pset_count();
[[nodiscard]] const char* pset_name(int n);  // 0 <= n < pset_count()
// The members (world ranks) of process set `name`; errc::arg if there is none of that name.
[[nodiscard]] errc pset_members(const char* name, std::vector<int>* world);

// The thread level that `in` asks for (key "thread_level", or the drafts' "mpi_thread_support_level";
// values "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE"): single without an info or the key;
// errc::info_value for another value.
[[nodiscard]] errc thread_level_from_info(const info* in, thread_level* out);
[[nodiscard]] const char* thread_level_name(thread_level l);  // "MPI_THREAD_SINGLE" ...

}  // namespace baton::comm
