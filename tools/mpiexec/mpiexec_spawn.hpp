// MPI_Comm_spawn under Baton's mpiexec, and the launcher's name service.
//
// A spawn request (PMI-1 mcmd=spawn from a rank) starts a nested mpiexec for the children: the
// same launcher, serving the new job its own PMI space (its own MPI_COMM_WORLD, kvs and
// barriers), with the request's programs as an MPMD job, PMI_SPAWNED=1 and the preput pairs in
// the children's store. The nested mpiexec is this launcher's child (not in the ranks' process
// group; it dies with this launcher, PR_SET_PDEATHSIG) and talks to it over a socket pair (its
// --baton-spawn-fd), one line at a time:
//   nested -> parent  cmd=spawn_started rc=0 errcodes=0,...   once its ranks were executed
//                     cmd=spawn_started rc=-1 msg=...         a program could not be executed
//   nested -> parent  cmd=publish_name / unpublish_name / lookup_name (forwarded; answered by
//                     the same reply line, in order)
// The rank that asked gets cmd=spawn_result when the nested launcher reports. This launcher
// waits for its nested launchers before it exits; one that fails after a successful start (a
// child crashed) fails the whole job, as a failing rank does; when this job fails, they get
// SIGTERM (then SIGKILL) with the ranks.
//
// Names: the first mpiexec (the one the user started) keeps the published names; nested ones
// forward the requests to it, so parents and children of every generation share one store.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mpiexec_options.hpp"
#include "mpiexec_pmi.hpp"

namespace baton::launcher {

class spawn_manager {
 public:
  struct hooks {
    std::function<void(int, std::string)> reply;             // a line for a rank
    std::function<void(int, const std::string&)> fail;       // end the job with this code, message
    std::function<void(const std::string&)> say;             // a line on stderr
  };

  spawn_manager(const launch_options& opts, hooks h);
  ~spawn_manager();
  spawn_manager(const spawn_manager&) = delete;
  spawn_manager& operator=(const spawn_manager&) = delete;

  /// A rank's spawn request: starts a nested mpiexec (or answers rc=-1 at once).
  void spawn_start(int rank, const spawn_request& req);
  /// A rank's name-service command.
  void names(int rank, std::string_view line);
  /// This launcher is a nested one: tells the parent launcher how its ranks' executions went
  /// (per rank: 0 when it ran, errno of the exec, or -errno of entering its working directory;
  /// programs[r] names what failed).
  void report_started(const std::vector<int>& exec_errnos, const std::vector<std::string>& programs);

  /// Descriptors to poll; handle() takes the entry back.
  void spawn_fds(std::vector<pollfd>& fds, std::vector<int>& ids) const;
  void spawn_handle(int id, short revents);
  /// Reaps nested launchers that exited; returns how many are still running.
  int spawn_reap();
  void spawn_terminate(int sig);
  int spawn_live() const;

 private:
  struct nested {
    pid_t pid = -1;
    int fd = -1;
    int rank = -1;         // the rank that asked
    bool answered = false; // the rank got its spawn_result
    bool failed = false;   // its start failed (reported to the rank, not a job failure)
    bool exited = false;
    std::string in, out;
  };
  // Who waits for a name answer: a rank (>= 0) or a nested launcher (-1 - index).
  void name_request(int who, std::string_view line);
  void name_answer(int who, const std::string& line);
  void upstream_line(const std::string& line);
  void nested_line(size_t i, const std::string& line);
  void flush(int fd, std::string& out);

  const launch_options& opts_;
  hooks hooks_;
  std::vector<std::unique_ptr<nested>> nested_;
  std::map<std::string, std::string> names_;  // the first launcher's store
  int up_fd_ = -1;                            // nested: the parent launcher
  std::string up_in_, up_out_;
  std::deque<int> up_waiters_;                // forwarded name requests, oldest first
};

}  // namespace baton::launcher
