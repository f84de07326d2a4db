#include "mpiexec_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace baton::launcher {
namespace {

constexpr int nested_spawn_fd = 3;  // --baton-spawn-fd in the nested mpiexec

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// The value of `key=` in a one-line command; empty if absent.
std::string field(std::string_view line, std::string_view key) {
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view tok = line.substr(pos, end - pos);
    if (tok.size() > key.size() && tok.substr(0, key.size()) == key && tok[key.size()] == '=')
      return std::string(tok.substr(key.size() + 1));
    pos = end + 1;
  }
  return {};
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "mpiexec";
  return std::string(buf, static_cast<size_t>(n));
}

// Reads what is there; false at end of stream or error.
bool read_some(int fd, std::string& in) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

}  // namespace

spawn_manager::spawn_manager(const launch_options& opts, hooks h) : opts_(opts), hooks_(std::move(h)) {
  if (opts_.spawn_fd >= 0) {
    up_fd_ = opts_.spawn_fd;
    ::fcntl(up_fd_, F_SETFD, FD_CLOEXEC);
    set_nonblocking(up_fd_);
  }
}

spawn_manager::~spawn_manager() {
  for (auto& n : nested_)
    if (n->fd >= 0) ::close(n->fd);
}

void spawn_manager::flush(int fd, std::string& out) {
  while (!out.empty() && fd >= 0) {
    ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      out.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;  // poll says when
    } else {
      out.clear();
      return;
    }
  }
}

void spawn_manager::spawn_start(int rank, const spawn_request& req) {
  auto refuse = [&](const std::string& why) { hooks_.reply(rank, "cmd=spawn_result rc=-1 msg=" + why); };
  std::vector<std::string> args{self_exe(), "--baton-spawn-fd", std::to_string(nested_spawn_fd), "--universe-size",
                                std::to_string(opts_.universe_size > 0 ? opts_.universe_size : opts_.np)};
  if (opts_.tag_output) args.emplace_back("--tag-output");
  for (const auto& [k, v] : req.preput) {
    args.insert(args.end(), {"--baton-preput", k, v});
  }
  if (req.apps.empty()) return refuse("no program to start");
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const spawn_app& a = req.apps[i];
    if (a.nprocs < 1) return refuse("program " + std::to_string(i) + " asks for " + std::to_string(a.nprocs) + " processes");
    if (a.execname.empty()) return refuse("program " + std::to_string(i) + " has no name");
    std::string exec = a.execname;
    std::string wdir;
    for (const auto& [k, v] : a.info) {
      if (k == "host" || k == "hosts") {
        size_t pos = 0;
        while (pos <= v.size()) {
          size_t comma = v.find(',', pos);
          if (comma == std::string::npos) comma = v.size();
          std::string h = v.substr(pos, comma - pos);
          if (!h.empty() && !options_local_host(h))
            return refuse("host '" + h + "' is not this host: Baton's mpiexec starts processes on its own host "
                          "only (use mpiexec.hydra or Open MPI's mpirun across hosts)");
          pos = comma + 1;
        }
      } else if (k == "hostfile") {
        int slots = 0;
        std::string error;
        if (!options_hostfile_slots(v, &slots, error)) return refuse(error);
      } else if (k == "wdir") {
        wdir = v;
      } else if (k == "path") {
        if (exec.find('/') == std::string::npos) exec = v + "/" + exec;
      }
    }
    if (i > 0) args.emplace_back(":");
    args.insert(args.end(), {"-n", std::to_string(a.nprocs)});
    if (!wdir.empty()) args.insert(args.end(), {"-wdir", wdir});
    args.emplace_back("--");
    args.push_back(exec);
    args.insert(args.end(), a.args.begin(), a.args.end());
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return refuse(std::string("cannot create a socket pair: ") + std::strerror(errno));
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(sv[1], nested_spawn_fd);  // dup2 clears close-on-exec
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    return refuse(std::string("cannot start a launcher for the children: ") + std::strerror(fork_errno));
  }
  set_nonblocking(sv[0]);
  auto n = std::make_unique<nested>();
  n->pid = pid;
  n->fd = sv[0];
  n->rank = rank;
  nested_.push_back(std::move(n));
}

void spawn_manager::report_started(const std::vector<int>& exec_errnos, const std::vector<std::string>& programs) {
  if (up_fd_ < 0) return;
  std::string line;
  for (size_t r = 0; r < exec_errnos.size(); ++r)
    if (exec_errnos[r] != 0) {
      const int e = exec_errnos[r] < 0 ? -exec_errnos[r] : exec_errnos[r];
      line = std::string("cmd=spawn_started rc=-1 msg=") + (exec_errnos[r] < 0 ? "cannot enter " : "cannot execute ") +
             programs[r] + ": " + std::strerror(e);
      break;
    }
  if (line.empty()) {
    line = "cmd=spawn_started rc=0 errcodes=";
    for (size_t r = 0; r < exec_errnos.size(); ++r) line += (r ? "," : "") + std::string("0");
  }
  up_out_ += line + "\n";
  flush(up_fd_, up_out_);
}

void spawn_manager::names(int rank, std::string_view line) { name_request(rank, line); }

void spawn_manager::name_request(int who, std::string_view line) {
  if (up_fd_ >= 0) {  // nested: the first launcher keeps the names
    up_out_ += std::string(line) + "\n";
    up_waiters_.push_back(who);
    flush(up_fd_, up_out_);
    return;
  }
  const std::string cmd = field(line, "cmd");
  const std::string service = field(line, "service");
  std::string answer;
  if (cmd == "publish_name") {
    const std::string port = field(line, "port");
    if (service.empty() || port.empty())
      answer = "cmd=publish_result rc=-1 msg=service_or_port_missing";
    else if (names_.count(service))
      answer = "cmd=publish_result rc=-1 msg=service_already_published";
    else {
      names_[service] = port;
      answer = "cmd=publish_result rc=0 msg=success";
    }
  } else if (cmd == "unpublish_name") {
    answer = names_.erase(service) ? "cmd=unpublish_result rc=0 msg=success"
                                   : "cmd=unpublish_result rc=-1 msg=service_not_found";
  } else {
    auto it = names_.find(service);
    answer = it == names_.end() ? "cmd=lookup_result rc=-1 msg=service_not_found"
                                : "cmd=lookup_result rc=0 port=" + it->second + " msg=success";
  }
  name_answer(who, answer);
}

void spawn_manager::name_answer(int who, const std::string& line) {
  if (who >= 0) {
    hooks_.reply(who, line);
    return;
  }
  nested& n = *nested_[static_cast<size_t>(-1 - who)];
  n.out += line + "\n";
  flush(n.fd, n.out);
}

void spawn_manager::upstream_line(const std::string& line) {
  if (up_waiters_.empty()) return;
  const int who = up_waiters_.front();
  up_waiters_.pop_front();
  name_answer(who, line);
}

void spawn_manager::nested_line(size_t i, const std::string& line) {
  nested& n = *nested_[i];
  const std::string cmd = field(line, "cmd");
  if (cmd == "spawn_started") {
    if (n.answered) return;
    n.answered = true;
    if (field(line, "rc") == "0") {
      hooks_.reply(n.rank, "cmd=spawn_result rc=0 errcodes=" + field(line, "errcodes"));
    } else {
      n.failed = true;
      const size_t at = line.find(" msg=");
      hooks_.reply(n.rank, "cmd=spawn_result rc=-1 msg=" + (at == std::string::npos ? line : line.substr(at + 5)));
    }
  } else if (cmd == "publish_name" || cmd == "unpublish_name" || cmd == "lookup_name") {
    name_request(-1 - static_cast<int>(i), line);
  }
}

void spawn_manager::spawn_fds(std::vector<pollfd>& fds, std::vector<int>& ids) const {
  if (up_fd_ >= 0) {
    fds.push_back(pollfd{up_fd_, static_cast<short>(POLLIN | (up_out_.empty() ? 0 : POLLOUT)), 0});
    ids.push_back(-1);
  }
  for (size_t i = 0; i < nested_.size(); ++i)
    if (nested_[i]->fd >= 0) {
      fds.push_back(pollfd{nested_[i]->fd, static_cast<short>(POLLIN | (nested_[i]->out.empty() ? 0 : POLLOUT)), 0});
      ids.push_back(static_cast<int>(i));
    }
}

void spawn_manager::spawn_handle(int id, short revents) {
  int& fd = id < 0 ? up_fd_ : nested_[static_cast<size_t>(id)]->fd;
  std::string& in = id < 0 ? up_in_ : nested_[static_cast<size_t>(id)]->in;
  std::string& out = id < 0 ? up_out_ : nested_[static_cast<size_t>(id)]->out;
  if (revents & POLLOUT) flush(fd, out);
  if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
  const bool open = read_some(fd, in);
  size_t nl;
  while ((nl = in.find('\n')) != std::string::npos) {
    std::string line = in.substr(0, nl);
    in.erase(0, nl + 1);
    if (id < 0)
      upstream_line(line);
    else
      nested_line(static_cast<size_t>(id), line);
  }
  if (!open) {
    ::close(fd);
    fd = -1;
  }
}

int spawn_manager::spawn_reap() {
  for (auto& n : nested_) {
    if (n->exited) continue;
    int status = 0;
    if (::waitpid(n->pid, &status, WNOHANG) != n->pid) continue;
    n->exited = true;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code == 0 || n->failed) continue;
    if (!n->answered) {
      n->answered = true;
      n->failed = true;
      hooks_.reply(n->rank, "cmd=spawn_result rc=-1 msg=the launcher of the children ended with code " +
                                std::to_string(code) + " before starting them");
      continue;
    }
    hooks_.fail(code, "mpiexec: the job spawned by rank " + std::to_string(n->rank) + " failed (exit code " +
                          std::to_string(code) + ")");
  }
  return spawn_live();
}

void spawn_manager::spawn_terminate(int sig) {
  for (auto& n : nested_)
    if (!n->exited) ::kill(n->pid, sig);
}

int spawn_manager::spawn_live() const {
  int live = 0;
  for (const auto& n : nested_) live += n->exited ? 0 : 1;
  return live;
}

}  // namespace baton::launcher
