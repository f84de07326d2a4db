// What a job leaves in /dev/shm: removed by the launcher when the job ends, and by
// `mpiexec --cleanup` for jobs that ended without their launcher (killed with SIGKILL, or
// started by another launcher). Names follow src/core/shm_names.hpp.
#pragma once

#include <string>

namespace baton::launcher {

/// Removes every shared-memory object of job `jobid` (BATON_JOBID) that belongs to this user;
/// returns how many it removed. Called once all of the job's ranks have exited.
int cleanup_job(const std::string& jobid);

/// `mpiexec --cleanup`: removes the objects of this user's Baton jobs that are over (their
/// creating process and, for a job of Baton's mpiexec, that mpiexec are gone), printing each;
/// a live job's objects are never touched. Returns the exit code (0, or 1 if a removal failed).
int cleanup_dead_jobs();

}  // namespace baton::launcher
