// One mpiexec job: N ranks on this host, their PMI-1 server, output forwarding and
// the exit policy.
//
// Ranks share one process group (led by rank 0) so the launcher can signal them all at
// once; each also dies with the launcher (PR_SET_PDEATHSIG). The first failure decides
// the exit code; the other ranks then get SIGTERM and, one second later, SIGKILL.
// Whatever is left in the process group when the last rank has exited is killed.
#pragma once

#include "mpiexec_options.hpp"
#include "mpiexec_output.hpp"
#include "mpiexec_pmi.hpp"
#include "mpiexec_spawn.hpp"
#include "mpiexec_watchdog.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace baton::launcher {

/// Exit code when --timeout / MPIEXEC_TIMEOUT expires (as timeout(1) does).
inline constexpr int exit_timeout = 124;
/// Exit code for a usage error.
inline constexpr int exit_usage = 2;
/// Exit code when the launcher itself cannot go on (socket, pipe, fork failed).
inline constexpr int exit_launcher_error = 1;

class job {
 public:
  explicit job(launch_options opts);
  ~job();
  job(const job&) = delete;
  job& operator=(const job&) = delete;

  /// Starts the ranks, serves them until they have all ended; returns the exit code.
  int job_run();

 private:
  using clock = std::chrono::steady_clock;

  struct rank_proc {
    pid_t pid = -1;
    int pmi_fd = -1;          // launcher end of the PMI socket
    int out_fd = -1;          // read end of the rank's stdout pipe
    int err_fd = -1;          // read end of the rank's stderr pipe
    int exec_errno = 0;       // exec failed with this errno
    bool exited = false;
    bool reaped = false;
    bool pmi_closed = false;  // aborted: its PMI input is ignored
    std::string pmi_in, pmi_out;
    std::unique_ptr<line_stream> out, err;
  };

  bool job_setup();
  bool job_spawn_all();
  void job_loop();
  void job_fail(int code, const std::string& message);
  void job_terminate(int sig);
  void job_reap();
  void job_rank_exited(int r, int status);
  void job_all_exited();
  void job_signal(int sig);
  void job_read_pmi(int r);
  void job_flush_pmi(int r);
  void job_read_output(int r, bool err);
  void job_stdin_in();
  void job_stdin_out();
  void job_close_stdin_pipe();
  void job_say(const std::string& line);

  launch_options opts_;
  std::string jobid_;
  std::unique_ptr<pmi_server> pmi_;
  std::unique_ptr<spawn_manager> spawn_;  // MPI_Comm_spawn's nested launchers, the name service
  std::vector<int> rank_app_;             // program (index into opts_.apps) of each rank
  output_sink out_sink_{1};
  output_sink err_sink_{2};
  std::vector<rank_proc> ranks_;
  pid_t pgid_ = 0;
  int sig_fd_ = -1;
  int devnull_fd_ = -1;

  // stdin forwarding to rank 0, used when our stdin is a terminal
  bool forward_stdin_ = false;
  int stdin_src_ = -1;        // what rank 0 gets as fd 0
  int stdin_pipe_w_ = -1;     // launcher end of that pipe
  bool stdin_eof_ = false;
  std::string stdin_buf_;

  bool failed_ = false;
  bool all_exited_ = false;
  int exit_code_ = 0;
  int signals_seen_ = 0;
  int live_ranks_ = 0;
  std::optional<clock::time_point> timeout_at_, kill_at_, drain_until_;
  stall_watchdog watchdog_;
};

}  // namespace baton::launcher
