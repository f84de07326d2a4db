// PMI-1 wire-protocol client: how a rank learns its rank, the job size and exchanges small
// key/value pairs with its peers at start-up.
//
// Our own mpiexec and MPICH's Hydra both serve the PMI-1 protocol on the file descriptor named by
// PMI_FD (PMI_RANK and PMI_SIZE give the rank and size). Without PMI_FD the process is a singleton:
// rank 0 of 1, and every call below is local.
#pragma once

#include <string>

#include "core/error.hpp"

namespace baton::core {

class pmi_client {
 public:
  [[nodiscard]] errc init();
  [[nodiscard]] errc put(const std::string& key, const std::string& value);
  // Blocks until the key is visible (after the barrier that follows its put).
  [[nodiscard]] errc get(const std::string& key, std::string& value);
  // Values longer than the protocol allows (PMI-1: 1024 bytes) travel as numbered chunks:
  // key.n holds the count, key.0, key.1, ... the pieces. The value must not contain spaces or '='.
  [[nodiscard]] errc put_long(const std::string& key, const std::string& value);
  [[nodiscard]] errc get_long(const std::string& key, std::string& value);
  [[nodiscard]] errc barrier();
  [[nodiscard]] errc finalize();
  // Asks the launcher to end the whole job with exit code `code`; does not return if it works.
  void abort(int code, const std::string& message);

  int rank() const { return rank_; }
  int size() const { return size_; }
  int appnum() const { return appnum_; }
  int universe_size() const { return universe_size_; }
  const std::string& kvsname() const { return kvsname_; }
  bool singleton() const { return fd_ < 0; }
  size_t max_value_len() const { return vallen_max_; }

 private:
  errc command(const std::string& line, const char* expect, std::string* reply);
  errc read_line(std::string& line);

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

}  // namespace baton::core
