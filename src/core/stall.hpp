// The stall watchdog (rank side): a thread that has waited inside MPI for BATON_STALL_WARN
// seconds (default 60; 0 turns it off) without any progress says what this rank waits on, once
// per stall: to Baton's mpiexec, which gathers the ranks' reports and prints them together
// (tools/mpiexec/mpiexec_watchdog.cpp), or on stderr under another launcher. Subsystems that hold
// pending operations register a describer that lists them (operation, peer, tag, communicator).
#pragma once

#include <cstdint>
#include <string>

namespace baton::core {

// The threshold in nanoseconds (0: off); read from the environment once.
uint64_t stall_warn_ns();

// Appends one "; "-separated item per pending operation of the subsystem (engine lock held).
using stall_describer = void (*)(std::string& out);
void stall_add_describer(stall_describer d);

// What the registered describers say, "; "-separated ("nothing pending" when empty).
std::string stall_describe();

// A wait has slept `stalled_ns` without progress (engine lock held): reports what this rank waits
// on. progress_wait calls it once per stall.
void stall_report(uint64_t stalled_ns);

// Stall checks: a subsystem that can tell from shared state that a wait will never end (the
// collectives' mismatch check, src/coll/mismatch.cpp) registers a checker; progress_wait runs the
// checkers once a wait has slept stall_check_ns without progress, and again every stall_check_ns
// while it stays asleep (engine lock held). A checker returns true when it changed something (it
// failed an operation), and the wait polls again at once. Waits that do not sleep never pay. A
// program that tests in a loop (MPI_Test and its kin) runs them too, once its tests have moved
// nothing for stall_check_ns (progress_poll_test).
using stall_checker = bool (*)();
void stall_add_checker(stall_checker c);
constexpr uint64_t stall_check_ns = 100000000;  // 100 ms
bool stall_check();

}  // namespace baton::core
