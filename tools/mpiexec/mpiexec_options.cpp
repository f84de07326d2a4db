#include "mpiexec_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace baton::launcher {
namespace {

bool parse_count(const char* text, int& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > 100000) return false;
  out = static_cast<int>(v);
  return true;
}

bool parse_timeout(const char* text, launch_options& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0) return false;
  out.timeout_s = v;
  out.timeout_text = text;
  return true;
}

// Matches "-name", "--name" (any of the spellings given) and "--name=value".
bool is_option(const char* arg, std::initializer_list<const char*> names, const char** inline_value) {
  *inline_value = nullptr;
  for (const char* name : names) {
    size_t n = std::strlen(name);
    if (std::strncmp(arg, name, n) != 0) continue;
    if (arg[n] == '\0') return true;
    if (arg[n] == '=' && name[1] == '-') {
      *inline_value = arg + n + 1;
      return true;
    }
  }
  return false;
}

}  // namespace

const char* options_usage() {
  return "usage: mpiexec [options] [-n N] program [args...]\n"
         "\n"
         "Starts N copies of program on this host (default N = 1) and serves them the\n"
         "PMI-1 wire protocol on the descriptor named by PMI_FD.\n"
         "\n"
         "options:\n"
         "  -n N, -np N            number of ranks\n"
         "  --tag-output, -l       prefix every forwarded output line with \"[rank] \"\n"
         "  --timeout SECONDS      end the job after SECONDS (also env MPIEXEC_TIMEOUT;\n"
         "                         0 = no limit); exits with code 124\n"
         "  --bind-to core|none    core: rank r may run only on the r-th CPU this mpiexec\n"
         "                         may use (round robin when ranks outnumber them);\n"
         "                         none (default): wherever the kernel puts it\n"
         "  --pmi-trace            print every PMI request and reply on stderr\n"
         "  -genv VAR VALUE        set VAR=VALUE in the ranks' environment (also -env)\n"
         "  -x VAR[=VALUE]         set VAR=VALUE, or pass VAR from this environment\n"
         "  --cleanup              remove what jobs of this user that are over (killed\n"
         "                         with their launcher, or run by another launcher) left\n"
         "                         in /dev/shm, and exit; live jobs are left alone\n"
         "  --help                 this text\n"
         "  --version              the version\n"
         "\n"
         "exit status: 0 when every rank exits 0 (and each rank that initialized PMI also\n"
         "finalized); otherwise the first failure: a rank's exit code, 128+signal for a\n"
         "rank killed by a signal, the code given to abort, 1 for a rank that exited\n"
         "without finalize, 124 on timeout, 128+signal when mpiexec itself is signalled,\n"
         "126/127 when the program cannot be executed, 2 for a usage error.\n";
}

parse_outcome options_parse(int argc, char** argv, const char* env_timeout,
                            launch_options& out, std::string& error) {
  bool timeout_given = false;
  int i = 0;
  for (; i < argc; ++i) {
    const char* arg = argv[i];
    const char* value = nullptr;
    auto next = [&](const char* what) -> const char* {
      if (value != nullptr) return value;
      if (i + 1 >= argc) {
        error = std::string("option ") + what + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    if (std::strcmp(arg, "--") == 0) {
      ++i;
      break;
    }
    if (arg[0] != '-' || arg[1] == '\0') break;  // the program
    if (is_option(arg, {"-n", "-np", "--n", "--np"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      if (!parse_count(v, out.np)) {
        error = std::string("bad rank count '") + v + "'";
        return parse_outcome::error;
      }
    } else if (is_option(arg, {"--tag-output", "-tag-output", "-l"}, &value) && value == nullptr) {
      out.tag_output = true;
    } else if (is_option(arg, {"--bind-to", "-bind-to"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      if (std::strcmp(v, "core") == 0) {
        out.bind_core = true;
      } else if (std::strcmp(v, "none") == 0) {
        out.bind_core = false;
      } else {
        error = std::string("bad --bind-to '") + v + "' (core or none)";
        return parse_outcome::error;
      }
    } else if (is_option(arg, {"--pmi-trace"}, &value) && value == nullptr) {
      out.pmi_trace = true;
    } else if (is_option(arg, {"--timeout", "-timeout"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      if (!parse_timeout(v, out)) {
        error = std::string("bad timeout '") + v + "' (seconds, >= 0)";
        return parse_outcome::error;
      }
      timeout_given = true;
    } else if (is_option(arg, {"-genv", "--genv", "-env"}, &value) && value == nullptr) {
      if (i + 2 >= argc) {
        error = "option -genv needs VAR and VALUE";
        return parse_outcome::error;
      }
      out.env.emplace_back(argv[i + 1], argv[i + 2]);
      i += 2;
    } else if (is_option(arg, {"-x"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      std::string spec = v;
      size_t eq = spec.find('=');
      if (eq == 0 || spec.empty()) {
        error = "option -x needs VAR[=VALUE]";
        return parse_outcome::error;
      }
      if (eq != std::string::npos) {
        out.env.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
      } else if (const char* cur = std::getenv(spec.c_str())) {
        out.env.emplace_back(spec, cur);
      }
    } else if (is_option(arg, {"--help", "-help", "-h"}, &value) && value == nullptr) {
      return parse_outcome::help;
    } else if (is_option(arg, {"--cleanup"}, &value) && value == nullptr) {
      return parse_outcome::cleanup;
    } else if (is_option(arg, {"--version", "-version"}, &value) && value == nullptr) {
      return parse_outcome::version;
    } else {
      error = std::string("unknown option '") + arg + "'";
      return parse_outcome::error;
    }
  }
  for (; i < argc; ++i) out.command.emplace_back(argv[i]);
  if (out.command.empty()) {
    error = "no program given";
    return parse_outcome::error;
  }
  if (!timeout_given && env_timeout != nullptr && *env_timeout != '\0' &&
      !parse_timeout(env_timeout, out)) {
    error = std::string("bad MPIEXEC_TIMEOUT '") + env_timeout + "' (seconds, >= 0)";
    return parse_outcome::error;
  }
  return parse_outcome::run;
}

}  // namespace baton::launcher
