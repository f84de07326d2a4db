// The process-manager client: how a rank learns its rank, the job size and exchanges small
// key/value pairs with its peers at start-up. Three protocols, picked from the environment:
// - PMIx through libpmix (Open MPI's mpirun/PRRTE, Slurm --mpi=pmix): PMIX_NAMESPACE is set.
// - PMI-2 wire protocol on PMI_FD (Slurm --mpi=pmi2; Hydra accepts it too): PMI_VERSION=2 or
//   SLURM_MPI_TYPE=pmi2.
// - PMI-1 wire protocol on PMI_FD (our mpiexec, MPICH's Hydra): PMI_FD set otherwise.
// BATON_PMI=1|2|pmix overrides the choice. Without any of them the process is a singleton: rank 0
// of 1, and every call below is local.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace baton::core {

enum class pmi_kind { singleton, pmi1, pmi2, pmix };

// One program of a spawn request (MPI_Comm_spawn_multiple's command i): `info` holds the keys the
// launcher is asked to apply (host, hostfile, wdir), already checked by the caller.
struct pmi_spawn_app {
  std::string command;
  std::vector<std::string> argv;  // without the command itself
  int maxprocs = 0;
  std::vector<std::pair<std::string, std::string>> info;
};

class pmi_client {
 public:
  [[nodiscard]] errc init();
  [[nodiscard]] errc put(const std::string& key, const std::string& value);
  // Blocks until the key is visible (after the barrier that follows its put). `owner` is the rank
  // that put it (PMIx looks keys up by owner; -1: a job-level key).
  [[nodiscard]] errc get(const std::string& key, std::string& value, int owner = -1);
  // Values longer than the protocol allows (PMI-1: 1024 bytes) travel as numbered chunks:
  // key.n holds the count, key.0, key.1, ... the pieces. The value must not contain spaces or '='.
  [[nodiscard]] errc put_long(const std::string& key, const std::string& value);
  [[nodiscard]] errc get_long(const std::string& key, std::string& value, int owner = -1);
  [[nodiscard]] errc barrier();
  [[nodiscard]] errc finalize();
  // Asks the launcher to end the whole job with exit code `code`; does not return if it works.
  void abort(int code, const std::string& message);
  // Whether the launcher is Baton's mpiexec (PMI-1, BATON_JOBID set and naming this job): it
  // accepts notify() and removes the job's shared-memory objects when the job ends.
  bool baton_launcher() const;
  // Baton's mpiexec only: one line that gets no reply (the stall watchdog's report); newlines in
  // `line` become spaces.
  void notify(const std::string& line);

  // Dynamic processes (pmi_dynamic.cpp). spawn asks the launcher to start the apps as one new
  // launch whose processes find `value` under `key` (spawned_value); errcodes gets one entry per
  // process asked for (0: started). errc::spawn with the launcher's answer when it refuses or
  // cannot spawn at all (a singleton, Slurm's PMI-2).
  [[nodiscard]] errc spawn(const std::vector<pmi_spawn_app>& apps, const std::string& key, const std::string& value,
                           std::vector<int>* errcodes);
  // The launcher's name service: errc::name when a service is not published (lookup, unpublish),
  // errc::unsupported_operation when the launcher has none (a singleton).
  [[nodiscard]] errc publish(const std::string& service, const std::string& port);
  [[nodiscard]] errc unpublish(const std::string& service);
  [[nodiscard]] errc lookup(const std::string& service, std::string* port);
  // What the launch that spawned this one left under `key`; empty when this launch was not spawned.
  [[nodiscard]] errc spawned_value(const std::string& key, std::string* value);

  int rank() const { return rank_; }
  int size() const { return size_; }
  int appnum() const { return appnum_; }
  int universe_size() const { return universe_size_; }
  const std::string& kvsname() const { return kvsname_; }
  bool singleton() const { return kind_ == pmi_kind::singleton; }
  pmi_kind kind() const { return kind_; }
  size_t max_value_len() const { return vallen_max_; }

 private:
  errc command(const std::string& line, const char* expect, std::string* reply);
  errc read_line(std::string& line);
  errc write_all(const std::string& out);
  // PMI-2: one command out, its reply back (fields split, ";;" unescaped).
  errc command2(const std::string& cmd, const char* expect, std::string* reply, bool check_rc = true);
  errc init_pmi2();
  errc init_pmix();

  pmi_kind kind_ = pmi_kind::singleton;
  std::string jobid_;  // PMI-2

  int fd_ = -1;
  int rank_ = 0;
  int size_ = 1;
  int appnum_ = 0;
  int universe_size_ = 1;
  size_t vallen_max_ = 1024;
  std::string kvsname_ = "singleton";
  std::string inbuf_;
  std::string local_kvs_;  // singleton mode: nothing to exchange, but put/get still work locally
};

// Value of `key` in a PMI reply line "cmd=x key=value ..."; empty if absent.
std::string pmi_field(const std::string& line, const std::string& key);
// Value of `key` in a PMI-2 command "cmd=x;key=value;..." (";;" stands for ';'); empty if absent.
std::string pmi2_field(const std::string& cmd, const std::string& key);
// A PMI-2 value with ';' doubled.
std::string pmi2_escape(const std::string& v);

// PMIx through libpmix (pmi_pmix.cpp); each returns errc::unsupported_operation when Baton was
// built without libpmix.
namespace pmix {
errc init(int* rank, int* size, int* appnum, int* universe, std::string* nspace);
errc put(const std::string& key, const std::string& value);
errc fence();
errc get(const std::string& key, int owner, std::string& value);
errc finalize();
void abort(int code, const std::string& message);
// Dynamic processes (pmi_pmix_dynamic.cpp). spawn puts env ("NAME=value") into every new process's
// environment.
errc spawn(const std::vector<pmi_spawn_app>& apps, const std::string& env, std::vector<int>* errcodes);
errc publish(const std::string& service, const std::string& port);
errc unpublish(const std::string& service);
errc lookup(const std::string& service, std::string* port);
}  // namespace pmix

}  // namespace baton::core
