// Command line of the mpiexec launcher.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace baton::launcher {

/// What the command line asks for, once parsed.
struct launch_options {
  int np = 1;                 ///< number of ranks (-n / -np)
  bool tag_output = false;    ///< prefix forwarded lines with "[rank] " (--tag-output, -l)
  bool pmi_trace = false;     ///< print every PMI request and reply on stderr (--pmi-trace)
  bool bind_core = false;     ///< --bind-to core: rank r runs on the r-th allowed CPU (round robin)
  double timeout_s = 0;       ///< end the job after this long; 0 means never
  std::string timeout_text;   ///< the timeout as the user wrote it, for the message
  std::vector<std::pair<std::string, std::string>> env;  ///< -genv / -x, in order
  std::vector<std::string> command;                       ///< program and its arguments
};

enum class parse_outcome { run, help, version, cleanup, error };

/// Parses argv (argv[0] excluded); env_timeout is MPIEXEC_TIMEOUT or nullptr.
/// On error, `error` says why.
parse_outcome options_parse(int argc, char** argv, const char* env_timeout,
                            launch_options& out, std::string& error);

/// The --help text.
const char* options_usage();

}  // namespace baton::launcher
