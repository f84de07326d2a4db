// PMI-1 wire protocol server (the protocol MPICH's simple PMI client and Hydra speak).
//
// One line per command, "cmd=<name> key=value ...\n"; every reply is one line too.
// Commands served and their replies:
//   cmd=init pmi_version=1 pmi_subversion=1 -> cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
//   cmd=get_maxes          -> cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0
//   cmd=get_appnum         -> cmd=appnum appnum=0 rc=0
//   cmd=get_my_kvsname     -> cmd=my_kvsname kvsname=<name> rc=0
//   cmd=get_universe_size  -> cmd=universe_size size=<N> rc=0
//   cmd=put kvsname=K key=k value=v -> cmd=put_result rc=0 msg=success
//   cmd=get kvsname=K key=k -> cmd=get_result rc=0 msg=success value=v
//                            | cmd=get_result rc=-1 msg=key_not_found
//   cmd=barrier_in         -> cmd=barrier_out, to every rank once all have entered
//   cmd=finalize           -> cmd=finalize_ack
//   cmd=abort exitcode=N [message=...|error_msg=...] -> no reply; the job ends with N
// This class holds the protocol state only; the caller moves the bytes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace baton::launcher {

class pmi_server {
 public:
  /// send(rank, line) queues one reply line (without '\n') for a rank;
  /// abort(rank, code, message) is called when a rank asks to abort the job.
  struct hooks {
    std::function<void(int, std::string_view)> send;
    std::function<void(int, int, std::string_view)> abort;
    std::function<void(int, std::string_view)> warn;
    /// `cmd=stall rank=R seconds=S what=<text>` (no reply): the stall watchdog's report.
    std::function<void(int, double, std::string_view)> stall;
  };

  pmi_server(int size, std::string kvsname, hooks h);

  /// Handles one command line (without '\n') from `rank`.
  void pmi_handle_line(int rank, std::string_view line);

  bool rank_initialized(int rank) const { return ranks_[rank].initialized; }
  bool rank_finalized(int rank) const { return ranks_[rank].finalized; }
  const std::string& kvsname() const { return kvsname_; }

  static constexpr int kvsname_max = 256;
  static constexpr int keylen_max = 64;
  static constexpr int vallen_max = 1024;

 private:
  struct rank_state {
    bool initialized = false;
    bool finalized = false;
    bool in_barrier = false;
  };

  void reply(int rank, std::string line) { hooks_.send(rank, line); }

  int size_;
  std::string kvsname_;
  hooks hooks_;
  std::vector<rank_state> ranks_;
  int barrier_count_ = 0;
  std::map<std::string, std::string, std::less<>> kvs_;
};

}  // namespace baton::launcher
