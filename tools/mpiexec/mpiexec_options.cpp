#include "mpiexec_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <unistd.h>

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

bool options_local_host(const std::string& host) {
  char self[256] = {};
  ::gethostname(self, sizeof self - 1);
  return host == "localhost" || host == self || host == "127.0.0.1";
}

bool options_hostfile_slots(const std::string& path, int* slots, std::string& error) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    error = "cannot read hostfile '" + path + "': " + std::strerror(errno);
    return false;
  }
  *slots = 0;
  char line[1024];
  bool ok = true;
  while (ok && std::fgets(line, sizeof line, f) != nullptr) {
    std::string l = line;
    if (size_t h = l.find('#'); h != std::string::npos) l.erase(h);
    size_t a = l.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) continue;
    size_t b = l.find_first_of(" \t\r\n:", a);
    std::string host = l.substr(a, b == std::string::npos ? std::string::npos : b - a);
    int n = 1;
    if (size_t c = l.find(':', a); c != std::string::npos) n = std::atoi(l.c_str() + c + 1);
    if (size_t c = l.find("slots="); c != std::string::npos) n = std::atoi(l.c_str() + c + 6);
    if (!options_local_host(host)) {
      error = "hostfile '" + path + "' names host '" + host + "', but this mpiexec starts processes on " +
              "its own host only; use mpiexec.hydra or Open MPI's mpirun across hosts";
      ok = false;
    }
    *slots += n > 0 ? n : 1;
  }
  std::fclose(f);
  return ok;
}

const char* options_usage() {
  return "usage: mpiexec [options] [-n N] program [args...] [: -n N program [args...]]...\n"
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
         "  -wdir DIR              working directory of the ranks (per program)\n"
         "  --universe-size N      MPI_UNIVERSE_SIZE (also -usize; default: the hostfile's\n"
         "                         slots, else the job's size)\n"
         "  --hostfile FILE        hosts for this job and what it spawns (also -f); each\n"
         "                         must be this host (host[:slots] per line)\n"
         "  program : program      several programs (MPMD), each with its own -n / -wdir\n"
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
  launch_app app;
next_app:
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
      if (!parse_count(v, app.np)) {
        error = std::string("bad rank count '") + v + "'";
        return parse_outcome::error;
      }
    } else if (is_option(arg, {"-wdir", "--wdir"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      app.wdir = v;
    } else if (is_option(arg, {"--universe-size", "-usize", "--usize"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      if (!parse_count(v, out.universe_size)) {
        error = std::string("bad universe size '") + v + "'";
        return parse_outcome::error;
      }
    } else if (is_option(arg, {"--hostfile", "-hostfile", "-f"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      out.hostfile = v;
    } else if (is_option(arg, {"--baton-spawn-fd"}, &value)) {
      const char* v = next(arg);
      if (v == nullptr) return parse_outcome::error;
      out.spawn_fd = std::atoi(v);
    } else if (is_option(arg, {"--baton-preput"}, &value) && value == nullptr) {
      if (i + 2 >= argc) {
        error = "option --baton-preput needs KEY and VALUE";
        return parse_outcome::error;
      }
      out.preput.emplace_back(argv[i + 1], argv[i + 2]);
      i += 2;
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
  for (; i < argc && std::strcmp(argv[i], ":") != 0; ++i) app.command.emplace_back(argv[i]);
  if (app.command.empty()) {
    error = "no program given";
    return parse_outcome::error;
  }
  out.apps.push_back(std::move(app));
  if (i < argc) {  // ":" another program follows
    ++i;
    app = launch_app{};
    goto next_app;
  }
  out.command = out.apps[0].command;
  out.np = 0;
  for (const launch_app& a : out.apps) out.np += a.np;
  if (!out.hostfile.empty()) {
    int slots = 0;
    if (!options_hostfile_slots(out.hostfile, &slots, error)) return parse_outcome::error;
    if (out.universe_size == 0) out.universe_size = slots;
  }
  if (!timeout_given && env_timeout != nullptr && *env_timeout != '\0' &&
      !parse_timeout(env_timeout, out)) {
    error = std::string("bad MPIEXEC_TIMEOUT '") + env_timeout + "' (seconds, >= 0)";
    return parse_outcome::error;
  }
  return parse_outcome::run;
}

}  // namespace baton::launcher
