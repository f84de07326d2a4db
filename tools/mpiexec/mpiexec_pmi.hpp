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
//   mcmd=spawn ... endcmd (multi-line, one block per program; MPICH's format) -> handed to
//     hooks.spawn once the last block (spawnssofar == totspawns) is in; it answers
//     cmd=spawn_result rc=0 errcodes=e,... | rc=-1 msg=<text to the end of the line>
//   cmd=publish_name / unpublish_name / lookup_name -> handed to hooks.names
// This class holds the protocol state only; the caller moves the bytes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace baton::launcher {

/// One program of a spawn request (mcmd=spawn block).
struct spawn_app {
  int nprocs = 0;
  std::string execname;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> info;
};
struct spawn_request {
  std::vector<spawn_app> apps;
  std::vector<std::pair<std::string, std::string>> preput;
};

class pmi_server {
 public:
  /// send(rank, line) queues one reply line (without '\n') for a rank;
  /// abort(rank, code, message) is called when a rank asks to abort the job.
  struct hooks {
    std::function<void(int, std::string_view)> send;
    std::function<void(int, int, std::string_view)> abort;
    std::function<void(int, std::string_view)> warn;
    std::function<void(int, const spawn_request&)> spawn;  // answers with reply()
    std::function<void(int, std::string_view)> names;      // answers with reply()
    /// `cmd=stall rank=R seconds=S what=<text>` (no reply): the stall watchdog's report.
    std::function<void(int, double, std::string_view)> stall;
  };

  pmi_server(int size, std::string kvsname, hooks h);

  /// Handles one command line (without '\n') from `rank`.
  void pmi_handle_line(int rank, std::string_view line);

  /// Queues one reply line for a rank (the spawn and name hooks answer through it).
  void reply(int rank, std::string line) { hooks_.send(rank, line); }
  /// What get_universe_size and get_appnum answer; pairs put before any rank starts.
  void set_universe_size(int n) { universe_ = n; }
  void set_appnum(int rank, int appnum) { ranks_[rank].appnum = appnum; }
  void preput(const std::string& key, const std::string& value) { kvs_.insert_or_assign(key, value); }

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
    int appnum = 0;
    std::vector<std::pair<std::string, std::string>> mcmd;  // the block being received
    spawn_request spawn;                                     // blocks received so far
  };

  void handle_mcmd_line(int rank, std::string_view line);

  int size_;
  std::string kvsname_;
  hooks hooks_;
  std::vector<rank_state> ranks_;
  int barrier_count_ = 0;
  int universe_ = 0;
  std::map<std::string, std::string, std::less<>> kvs_;
};

}  // namespace baton::launcher
