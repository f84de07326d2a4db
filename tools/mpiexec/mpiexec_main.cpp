// mpiexec / mpirun: starts an MPI job on this host. See mpiexec_job.hpp for the policy
// and mpiexec_pmi.hpp for the protocol the ranks speak.
#include "mpiexec_cleanup.hpp"
#include "mpiexec_job.hpp"
#include "mpiexec_options.hpp"

#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <unistd.h>

#ifndef BATON_VERSION
#define BATON_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace baton::launcher;
  // Descriptors 0-2 must be open, or our own pipes would land on them.
  for (int fd = 0; fd < 3; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && ::open("/dev/null", O_RDWR) != fd) return exit_launcher_error;

  launch_options opts;
  std::string error;
  switch (options_parse(argc - 1, argv + 1, std::getenv("MPIEXEC_TIMEOUT"), opts, error)) {
    case parse_outcome::help:
      std::fputs(options_usage(), stdout);
      return 0;
    case parse_outcome::cleanup:
      return cleanup_dead_jobs();
    case parse_outcome::version:
      std::printf("mpiexec (Baton) %s\n", BATON_VERSION);
      return 0;
    case parse_outcome::error:
      std::fprintf(stderr, "mpiexec: %s\n%s", error.c_str(), options_usage());
      return exit_usage;
    case parse_outcome::run:
      break;
  }
  std::fflush(stdout);
  job j(std::move(opts));
  return j.job_run();
}
