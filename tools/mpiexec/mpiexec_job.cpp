#include "mpiexec_job.hpp"
#include "mpiexec_cleanup.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char** environ;

namespace baton::launcher {
namespace {

constexpr int pmi_child_fd = 3;            // PMI_FD in every rank
constexpr size_t read_chunk = size_t{64} * 1024;
constexpr int max_reads_per_wake = 16;     // keeps one chatty rank from starving the rest
constexpr size_t max_pmi_line = 1 << 20;
constexpr auto kill_grace = std::chrono::seconds(1);   // SIGTERM -> SIGKILL
constexpr auto drain_grace = std::chrono::seconds(1);  // output still open after the last exit

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// "baton-<pid>-<16 hex digits>": the random part from getrandom only (a job's shared-memory
// names start with it, and a clock would make them guessable); empty if the kernel gives none.
std::string make_jobid() {
  uint64_t rnd = 0;
  if (::getrandom(&rnd, sizeof rnd, 0) != static_cast<ssize_t>(sizeof rnd)) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "baton-%ld-%016llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(rnd));
  return buf;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Variables the launcher sets itself, or that would point a rank at another launcher.
bool is_launcher_var(std::string_view entry) {
  return starts_with(entry, "PMI_") || starts_with(entry, "PMIX_") ||
         starts_with(entry, "BATON_JOBID=") || starts_with(entry, "BATON_LOCAL_RANK=") ||
         starts_with(entry, "BATON_LOCAL_SIZE=") || starts_with(entry, "BATON_UNIVERSE_SIZE=");
}

std::string signal_text(int sig) {
  const char* s = ::strsignal(sig);
  return "signal " + std::to_string(sig) + " (" + (s != nullptr ? s : "unknown") + ")";
}

}  // namespace

job::job(launch_options opts) : opts_(std::move(opts)), ranks_(static_cast<size_t>(opts_.np)) {}

job::~job() {
  for (rank_proc& rp : ranks_) {
    close_fd(rp.pmi_fd);
    close_fd(rp.out_fd);
    close_fd(rp.err_fd);
  }
  close_fd(sig_fd_);
  close_fd(devnull_fd_);
  close_fd(stdin_pipe_w_);
}

void job::job_say(const std::string& line) { err_sink_.write_chunk(line + "\n", this); }

bool job::job_setup() {
  jobid_ = make_jobid();
  if (jobid_.empty()) {
    job_say(std::string("mpiexec: no random bytes from the kernel (getrandom: ") + std::strerror(errno) +
            "): cannot name the job");
    return false;
  }

  // Each rank costs the launcher three descriptors; take what the hard limit allows.
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }

  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0 ||
      (sig_fd_ = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
    job_say(std::string("mpiexec: signalfd: ") + std::strerror(errno));
    return false;
  }
  ::signal(SIGPIPE, SIG_IGN);

  devnull_fd_ = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull_fd_ < 0) {
    job_say(std::string("mpiexec: /dev/null: ") + std::strerror(errno));
    return false;
  }

  // Rank 0 reads our stdin. A file or pipe it inherits as is; a terminal it cannot read
  // from its own process group (SIGTTIN), so the launcher forwards it through a pipe.
  stdin_src_ = 0;
  if (::isatty(0) != 0) {
    // In the background (or if no pipe can be had) rank 0 gets no stdin.
    stdin_src_ = devnull_fd_;
    int p[2];
    if (::tcgetpgrp(0) == ::getpgrp() && ::pipe2(p, O_CLOEXEC) == 0) {
      stdin_src_ = p[0];
      stdin_pipe_w_ = p[1];
      set_nonblocking(stdin_pipe_w_);
      forward_stdin_ = true;
    }
  }

  for (int r = 0; r < opts_.np; ++r) {
    std::string prefix = opts_.tag_output ? "[" + std::to_string(r) + "] " : "";
    ranks_[r].out = std::make_unique<line_stream>(out_sink_, prefix);
    ranks_[r].err = std::make_unique<line_stream>(err_sink_, prefix);
  }

  pmi_server::hooks h;
  h.send = [this](int r, std::string_view line) {
    rank_proc& rp = ranks_[r];
    if (opts_.pmi_trace) job_say("mpiexec: pmi " + std::to_string(r) + " <- " + std::string(line));
    rp.pmi_out.append(line);
    rp.pmi_out.push_back('\n');
    job_flush_pmi(r);
  };
  h.abort = [this](int r, int code, std::string_view message) {
    ranks_[r].pmi_closed = true;
    std::string line = "mpiexec: rank " + std::to_string(r) + " aborted the job with exit code " +
                       std::to_string(code);
    if (!message.empty()) line += ": " + std::string(message);
    // Exit statuses are 8 bits; keep a non-zero abort code non-zero.
    int status = code & 0xff;
    if (status == 0 && code != 0) status = 1;
    job_fail(status, line);
  };
  h.warn = [this](int r, std::string_view what) {
    job_say("mpiexec: rank " + std::to_string(r) + ": " + std::string(what));
  };
  h.spawn = [this](int r, const spawn_request& q) { spawn_->spawn_start(r, q); };
  h.names = [this](int r, std::string_view line) { spawn_->names(r, line); };
  spawn_manager::hooks sh;
  sh.reply = [this](int r, std::string line) { pmi_->reply(r, std::move(line)); };
  sh.fail = [this](int code, const std::string& message) { job_fail(code, message); };
  sh.say = [this](const std::string& line) { job_say(line); };
  spawn_ = std::make_unique<spawn_manager>(opts_, std::move(sh));
  h.stall = [this](int r, double seconds, std::string_view what) {
    watchdog_.stall_report(r, seconds, what, clock::now());
  };
  pmi_ = std::make_unique<pmi_server>(opts_.np, "kvs_" + jobid_, std::move(h));
  pmi_->set_universe_size(opts_.universe_size);
  for (const auto& [k, v] : opts_.preput) pmi_->preput(k, v);
  for (size_t a = 0; a < opts_.apps.size(); ++a)
    for (int k = 0; k < opts_.apps[a].np; ++k) rank_app_.push_back(static_cast<int>(a));
  for (int r = 0; r < opts_.np; ++r) pmi_->set_appnum(r, rank_app_[static_cast<size_t>(r)]);

  if (opts_.timeout_s > 0)
    timeout_at_ = clock::now() + std::chrono::duration_cast<clock::duration>(
                                     std::chrono::duration<double>(opts_.timeout_s));
  return true;
}

bool job::job_spawn_all() {
  std::vector<std::string> base;
  for (char** e = environ; *e != nullptr; ++e)
    if (!is_launcher_var(*e)) base.emplace_back(*e);
  for (const auto& [key, value] : opts_.env) {
    std::string lead = key + "=";
    std::erase_if(base, [&](const std::string& s) { return starts_with(s, lead); });
    base.push_back(lead + value);
  }
  std::string n = std::to_string(opts_.np);
  const std::string usize = std::to_string(opts_.universe_size > 0 ? opts_.universe_size : opts_.np);

  std::vector<std::vector<char*>> argvs(opts_.apps.size());
  for (size_t a = 0; a < opts_.apps.size(); ++a) {
    for (std::string& s : opts_.apps[a].command) argvs[a].push_back(s.data());
    argvs[a].push_back(nullptr);
  }

  const pid_t parent = ::getpid();
  std::vector<int> exec_fds(ranks_.size(), -1);
  // --bind-to core: the CPUs this mpiexec may use, in order; rank r gets cpus[r % size].
  std::vector<int> cpus;
  if (opts_.bind_core) {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (::sched_getaffinity(0, sizeof mine, &mine) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mine)) cpus.push_back(c);
  }
  for (int r = 0; r < opts_.np; ++r) {
    rank_proc& rp = ranks_[r];
    std::vector<std::string> env = base;
    std::string rs = std::to_string(r);
    env.push_back("PMI_FD=" + std::to_string(pmi_child_fd));
    env.push_back("PMI_RANK=" + rs);
    env.push_back("PMI_SIZE=" + n);
    env.push_back("BATON_JOBID=" + jobid_);
    env.push_back("BATON_LOCAL_RANK=" + rs);
    env.push_back("BATON_LOCAL_SIZE=" + n);
    env.push_back("BATON_UNIVERSE_SIZE=" + usize);
    if (opts_.spawn_fd >= 0) env.push_back("PMI_SPAWNED=1");  // MPI_Comm_spawn's children
    const launch_app& app = opts_.apps[static_cast<size_t>(rank_app_[static_cast<size_t>(r)])];
    std::vector<char*>& argv = argvs[static_cast<size_t>(rank_app_[static_cast<size_t>(r)])];
    std::vector<char*> envp;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);

    int sv[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, execp[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        ::pipe2(outp, O_CLOEXEC) != 0 || ::pipe2(errp, O_CLOEXEC) != 0 ||
        ::pipe2(execp, O_CLOEXEC) != 0) {
      int e = errno;
      for (int fd : {sv[0], sv[1], outp[0], outp[1], errp[0], errp[1], execp[0], execp[1]})
        if (fd >= 0) ::close(fd);
      job_fail(exit_launcher_error, "mpiexec: cannot create pipes for rank " + rs + ": " +
                                        std::strerror(e));
      break;
    }
    int in_fd = r == 0 ? stdin_src_ : devnull_fd_;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, pgid_);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      if (in_fd != 0) ::dup2(in_fd, 0);
      ::dup2(outp[1], 1);
      ::dup2(errp[1], 2);
      if (sv[1] == pmi_child_fd)
        ::fcntl(pmi_child_fd, F_SETFD, 0);
      else
        ::dup2(sv[1], pmi_child_fd);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::signal(SIGPIPE, SIG_DFL);
      if (!cpus.empty()) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[static_cast<size_t>(r) % cpus.size()], &one);
        (void)::sched_setaffinity(0, sizeof one, &one);
      }
      if (!app.wdir.empty() && ::chdir(app.wdir.c_str()) != 0) {
        int e = -errno;  // negative: the working directory, not the program
        ssize_t ignored = ::write(execp[1], &e, sizeof e);
        (void)ignored;
        ::_exit(126);
      }
      ::execvpe(argv[0], argv.data(), envp.data());
      int e = errno;
      ssize_t ignored = ::write(execp[1], &e, sizeof e);
      (void)ignored;
      ::_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
    }
    int fork_errno = errno;
    for (int fd : {sv[1], outp[1], errp[1], execp[1]}) ::close(fd);
    if (pid < 0) {
      for (int fd : {sv[0], outp[0], errp[0], execp[0]}) ::close(fd);
      job_fail(exit_launcher_error, "mpiexec: cannot start rank " + rs + ": " +
                                        std::strerror(fork_errno));
      break;
    }
    if (pgid_ == 0) pgid_ = pid;
    ::setpgid(pid, pgid_);  // also done by the child; whichever runs first wins
    rp.pid = pid;
    rp.pmi_fd = sv[0];
    rp.out_fd = outp[0];
    rp.err_fd = errp[0];
    for (int fd : {rp.pmi_fd, rp.out_fd, rp.err_fd}) set_nonblocking(fd);
    exec_fds[r] = execp[0];
    ++live_ranks_;
  }
  if (forward_stdin_) close_fd(stdin_src_);

  // Every child is forked before we wait for any exec, so the execs overlap.
  for (int r = 0; r < opts_.np; ++r) {
    if (exec_fds[r] < 0) continue;
    int e = 0;
    ssize_t got;
    do {
      got = ::read(exec_fds[r], &e, sizeof e);
    } while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof e)) ranks_[r].exec_errno = e;
    ::close(exec_fds[r]);
  }
  for (rank_proc& rp : ranks_)
    if (rp.pid < 0) rp.exited = rp.reaped = true;  // never started
  if (opts_.spawn_fd >= 0) {  // a job MPI_Comm_spawn asked for: tell the parent launcher
    std::vector<int> errnos;
    std::vector<std::string> programs;
    for (int r = 0; r < opts_.np; ++r) {
      errnos.push_back(ranks_[r].pid < 0 && ranks_[r].exec_errno == 0 ? EAGAIN : ranks_[r].exec_errno);
      const launch_app& app = opts_.apps[static_cast<size_t>(rank_app_[static_cast<size_t>(r)])];
      programs.push_back(ranks_[r].exec_errno < 0 ? "working directory '" + app.wdir + "'" : "'" + app.command[0] + "'");
    }
    spawn_->report_started(errnos, programs);
  }
  return live_ranks_ > 0;
}

void job::job_fail(int code, const std::string& message) {
  if (failed_) return;
  failed_ = true;
  exit_code_ = code;
  job_say(message);
  job_terminate(SIGTERM);
}

void job::job_terminate(int sig) {
  spawn_->spawn_terminate(sig);
  if (live_ranks_ == 0) return;
  if (pgid_ > 0) ::killpg(pgid_, sig);
  for (rank_proc& rp : ranks_)
    if (rp.pid > 0 && !rp.reaped) ::kill(rp.pid, sig);  // unreaped: the pid is still ours
  if (sig != SIGKILL && !kill_at_) kill_at_ = clock::now() + kill_grace;
}

void job::job_signal(int sig) {
  if (++signals_seen_ == 1 && !failed_) {
    failed_ = true;
    exit_code_ = 128 + sig;
    job_say("mpiexec: received " + signal_text(sig) + ", ending the job");
    job_terminate(sig == SIGHUP ? SIGTERM : sig);
  } else {
    job_terminate(SIGKILL);
  }
}

void job::job_reap() {
  for (int r = 0; r < opts_.np; ++r) {
    rank_proc& rp = ranks_[r];
    if (rp.pid <= 0 || rp.exited) continue;
    siginfo_t si{};
    // Peek without reaping: the group leader stays a zombie until the job is over, so
    // its pid (the process group id) cannot be reused while we may still signal it.
    if (::waitid(P_PID, static_cast<id_t>(rp.pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        si.si_pid != rp.pid)
      continue;
    int status = si.si_code == CLD_EXITED ? si.si_status : -si.si_status;
    if (rp.pid != pgid_) {
      ::waitpid(rp.pid, nullptr, WNOHANG);
      rp.reaped = true;
    }
    job_rank_exited(r, status);
  }
  (void)spawn_->spawn_reap();
  if (live_ranks_ == 0 && !all_exited_) {
    all_exited_ = true;
    job_all_exited();
  }
}

// status >= 0: exit code; status < 0: killed by signal -status.
void job::job_rank_exited(int r, int status) {
  rank_proc& rp = ranks_[r];
  rp.exited = true;
  --live_ranks_;
  if (r == 0) job_close_stdin_pipe();
  // What the rank said last (an abort, its final words) comes before our verdict.
  job_read_pmi(r);
  job_read_output(r, false);
  job_read_output(r, true);
  if (failed_) return;
  std::string who = "mpiexec: rank " + std::to_string(r);
  if (rp.exec_errno != 0) {
    const launch_app& app = opts_.apps[static_cast<size_t>(rank_app_[static_cast<size_t>(r)])];
    job_fail(status > 0 ? status : 127,
             rp.exec_errno < 0
                 ? who + ": cannot enter working directory '" + app.wdir + "': " + std::strerror(-rp.exec_errno)
                 : who + ": cannot execute '" + app.command[0] + "': " + std::strerror(rp.exec_errno));
  } else if (status < 0) {
    job_fail(128 + -status, who + " killed by " + signal_text(-status));
  } else if (status != 0) {
    job_fail(status, who + " exited with code " + std::to_string(status));
  } else if (pmi_->rank_initialized(r) && !pmi_->rank_finalized(r)) {
    job_fail(1, who + " exited with code 0 without calling finalize after init");
  }
}

void job::job_all_exited() {
  // Anything the ranks left behind in their process group goes too.
  if (pgid_ > 0) {
    ::killpg(pgid_, SIGKILL);
    for (rank_proc& rp : ranks_)
      if (rp.pid == pgid_ && !rp.reaped) {
        ::waitpid(rp.pid, nullptr, 0);
        rp.reaped = true;
      }
  }
  kill_at_.reset();
  timeout_at_.reset();
  drain_until_ = clock::now() + drain_grace;
}

void job::job_read_pmi(int r) {
  rank_proc& rp = ranks_[r];
  if (rp.pmi_fd < 0) return;
  char buf[4096];
  bool eof = false;
  for (;;) {
    ssize_t n = ::read(rp.pmi_fd, buf, sizeof buf);
    if (n > 0) {
      rp.pmi_in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) eof = true;
    break;
  }
  size_t pos = 0;
  while (!rp.pmi_closed) {
    size_t nl = rp.pmi_in.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string_view line(rp.pmi_in.data() + pos, nl - pos);
    pos = nl + 1;
    if (opts_.pmi_trace) job_say("mpiexec: pmi " + std::to_string(r) + " -> " + std::string(line));
    pmi_->pmi_handle_line(r, line);
  }
  rp.pmi_in.erase(0, pos);
  if (rp.pmi_closed) rp.pmi_in.clear();
  if (rp.pmi_in.size() > max_pmi_line) {
    job_say("mpiexec: rank " + std::to_string(r) + ": PMI line too long, closing its PMI channel");
    eof = true;
  }
  if (eof) {
    close_fd(rp.pmi_fd);
    rp.pmi_in.clear();
    rp.pmi_out.clear();
  }
}

void job::job_flush_pmi(int r) {
  rank_proc& rp = ranks_[r];
  while (!rp.pmi_out.empty() && rp.pmi_fd >= 0) {
    ssize_t n = ::send(rp.pmi_fd, rp.pmi_out.data(), rp.pmi_out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      rp.pmi_out.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;  // the rest goes when poll says POLLOUT
    } else {
      rp.pmi_out.clear();  // the rank is gone; its read side will see the end
      return;
    }
  }
}

void job::job_read_output(int r, bool err) {
  rank_proc& rp = ranks_[r];
  int& fd = err ? rp.err_fd : rp.out_fd;
  line_stream& stream = err ? *rp.err : *rp.out;
  static char buf[read_chunk];
  for (int i = 0; i < max_reads_per_wake && fd >= 0; ++i) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      stream.feed(std::string_view(buf, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    stream.finish();
    close_fd(fd);
  }
}

void job::job_close_stdin_pipe() {
  close_fd(stdin_pipe_w_);
  stdin_buf_.clear();
  stdin_eof_ = true;
}

void job::job_stdin_in() {
  char buf[read_chunk];
  ssize_t n = ::read(0, buf, sizeof buf);
  if (n > 0) {
    stdin_buf_.append(buf, static_cast<size_t>(n));
    job_stdin_out();
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    stdin_eof_ = true;
    if (stdin_buf_.empty()) close_fd(stdin_pipe_w_);
  }
}

void job::job_stdin_out() {
  while (!stdin_buf_.empty() && stdin_pipe_w_ >= 0) {
    ssize_t n = ::write(stdin_pipe_w_, stdin_buf_.data(), stdin_buf_.size());
    if (n > 0) {
      stdin_buf_.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return;
    } else {
      job_close_stdin_pipe();  // rank 0 closed its stdin
      return;
    }
  }
  if (stdin_eof_) close_fd(stdin_pipe_w_);
}

void job::job_loop() {
  enum class what { signal, stdin_in, stdin_out, pmi, out, err, spawn };
  std::vector<pollfd> fds;
  std::vector<std::pair<what, int>> whats;
  auto add = [&](int fd, short events, what w, int r) {
    fds.push_back(pollfd{fd, events, 0});
    whats.emplace_back(w, r);
  };
  for (;;) {
    bool pipes_open = std::any_of(ranks_.begin(), ranks_.end(), [](const rank_proc& rp) {
      return rp.out_fd >= 0 || rp.err_fd >= 0;
    });
    auto now = clock::now();
    if (live_ranks_ == 0 && spawn_->spawn_live() == 0 &&
        (!pipes_open || (drain_until_ && now >= *drain_until_)))
      break;

    fds.clear();
    whats.clear();
    add(sig_fd_, POLLIN, what::signal, -1);
    if (stdin_pipe_w_ >= 0) {
      if (!stdin_buf_.empty())
        add(stdin_pipe_w_, POLLOUT, what::stdin_out, -1);
      else if (!stdin_eof_)
        add(0, POLLIN, what::stdin_in, -1);
    }
    for (int r = 0; r < opts_.np; ++r) {
      const rank_proc& rp = ranks_[r];
      if (rp.pmi_fd >= 0)
        add(rp.pmi_fd, static_cast<short>(POLLIN | (rp.pmi_out.empty() ? 0 : POLLOUT)), what::pmi, r);
      if (rp.out_fd >= 0) add(rp.out_fd, POLLIN, what::out, r);
      if (rp.err_fd >= 0) add(rp.err_fd, POLLIN, what::err, r);
    }
    {
      std::vector<pollfd> sf;
      std::vector<int> ids;
      spawn_->spawn_fds(sf, ids);
      for (size_t k = 0; k < sf.size(); ++k) add(sf[k].fd, sf[k].events, what::spawn, ids[k]);
    }

    int timeout_ms = -1;
    for (const auto& d : {timeout_at_, kill_at_, drain_until_, watchdog_.stall_due()}) {
      if (!d) continue;
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*d - now).count();
      ms = std::max<decltype(ms)>(ms, 0);
      if (timeout_ms < 0 || ms < timeout_ms) timeout_ms = static_cast<int>(ms);
    }
    int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) {
      job_fail(exit_launcher_error, std::string("mpiexec: poll: ") + std::strerror(errno));
      job_terminate(SIGKILL);
    }

    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      short re = fds[i].revents;
      if (re == 0) continue;
      auto [w, r] = whats[i];
      switch (w) {
        case what::signal: {
          signalfd_siginfo si{};
          while (::read(sig_fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
            if (static_cast<int>(si.ssi_signo) == SIGCHLD)
              job_reap();
            else
              job_signal(static_cast<int>(si.ssi_signo));
          }
          break;
        }
        case what::stdin_in: job_stdin_in(); break;
        case what::stdin_out: job_stdin_out(); break;
        case what::pmi:
          if ((re & POLLOUT) != 0) job_flush_pmi(r);
          if ((re & (POLLIN | POLLHUP | POLLERR)) != 0) job_read_pmi(r);
          break;
        case what::out: job_read_output(r, false); break;
        case what::err: job_read_output(r, true); break;
        case what::spawn: spawn_->spawn_handle(r, re); break;
      }
    }

    now = clock::now();
    watchdog_.stall_flush(
        now, opts_.np, [this](int r) { return !ranks_[r].exited; }, [this](const std::string& l) { job_say(l); });
    if (timeout_at_ && now >= *timeout_at_ && live_ranks_ > 0) {
      timeout_at_.reset();
      job_fail(exit_timeout, "mpiexec: job timed out after " + opts_.timeout_text + " s");
    }
    if (kill_at_ && now >= *kill_at_) {
      kill_at_.reset();
      job_terminate(SIGKILL);
    }
  }
  for (rank_proc& rp : ranks_) {
    if (rp.out_fd >= 0) rp.out->finish();
    if (rp.err_fd >= 0) rp.err->finish();
    close_fd(rp.out_fd);
    close_fd(rp.err_fd);
  }
}

int job::job_run() {
  if (!job_setup()) return exit_launcher_error;
  if (job_spawn_all()) job_reap();  // a rank may already be gone
  job_loop();
  // Every rank has exited: whatever of the job is left in /dev/shm (a job that died during
  // start-up or while a shared-memory object was being set up) goes now.
  if (const int n = cleanup_job(jobid_); n > 0)
    job_say("mpiexec: removed " + std::to_string(n) + " shared-memory object" + (n == 1 ? "" : "s") +
            " the job left in /dev/shm");
  return exit_code_;
}

}  // namespace baton::launcher
