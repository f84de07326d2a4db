// Command line of the mpiexec launcher.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace baton::launcher {

/// One program of the job (MPMD: "-n 2 a : -n 3 b" gives two).
struct launch_app {
  int np = 1;                         ///< its ranks (-n)
  std::string wdir;                   ///< working directory (-wdir); empty: mpiexec's
  std::vector<std::string> command;   ///< program and its arguments
};

/// What the command line asks for, once parsed.
struct launch_options {
  int np = 1;                 ///< number of ranks, all programs together
  bool tag_output = false;    ///< prefix forwarded lines with "[rank] " (--tag-output, -l)
  bool pmi_trace = false;     ///< print every PMI request and reply on stderr (--pmi-trace)
  bool bind_core = false;     ///< --bind-to core: rank r runs on the r-th allowed CPU (round robin)
  double timeout_s = 0;       ///< end the job after this long; 0 means never
  std::string timeout_text;   ///< the timeout as the user wrote it, for the message
  std::vector<std::pair<std::string, std::string>> env;  ///< -genv / -x, in order
  std::vector<std::string> command;                       ///< the first program and its arguments
  std::vector<launch_app> apps;  ///< every program, in rank order (apps[0].command == command)
  int universe_size = 0;         ///< --universe-size / -usize / hostfile slots; 0: np
  std::string hostfile;          ///< --hostfile / -f: every host must be this one
  // Internal, for the jobs MPI_Comm_spawn asks for (mpiexec_spawn.hpp): the channel to the
  // mpiexec that started this one, and key/value pairs put into the job's store before it starts.
  int spawn_fd = -1;
  std::vector<std::pair<std::string, std::string>> preput;
};

enum class parse_outcome { run, help, version, cleanup, error };

/// Parses argv (argv[0] excluded); env_timeout is MPIEXEC_TIMEOUT or nullptr.
/// On error, `error` says why.
parse_outcome options_parse(int argc, char** argv, const char* env_timeout,
                            launch_options& out, std::string& error);

/// Whether `host` names this host (localhost, 127.0.0.1 or its host name).
bool options_local_host(const std::string& host);
/// Reads a hostfile ("host[:slots]" or "host slots=N" per line, '#' comments) into its slot
/// count; false (with `error`) if it cannot be read or names a host other than this one.
bool options_hostfile_slots(const std::string& path, int* slots, std::string& error);

/// The --help text.
const char* options_usage();

}  // namespace baton::launcher
