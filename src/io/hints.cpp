// Info hints of files (MPI-4.1 14.2.8 and ROMIO's names, which scripts tuned for MPICH pass):
//
//   cb_buffer_size        bytes an aggregator moves per round of two-phase I/O (stripe size)
//   cb_nodes              number of aggregators (default: cb_config_list's count on every host)
//   cb_config_list        "*:n" puts n aggregators on each host
//   romio_cb_read/_write  enable / disable / automatic two-phase collective access
//   collective_buffering  true / false: the same for both directions
//   romio_ds_read/_write  enable / disable / automatic data sieving of independent access
//   ind_rd_buffer_size    data sieving chunk for reads; ind_wr_buffer_size for writes
//   striping_unit         stripes of two-phase I/O are whole multiples of it
//   striping_factor       recorded (a POSIX file system has no stripe count to set)
//   romio_no_indep_rw     recorded: every access then goes through the collective path anyway
//   file_perm             permissions (octal) of a file MPI_File_open creates
//   access_style, io_node_list, nb_proc, num_io_nodes, chunked*, filename: accepted and reported
//
// A hint never causes an error: a value that does not parse is ignored (the standard lets an
// implementation ignore any hint) and MPI_File_get_info shows the value in force.
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/file.hpp"

namespace baton::io {

namespace {
bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 0);
  while (end && *end == ' ') ++end;
  if (!end || *end != '\0') return false;
  *v = x;
  return true;
}

bool parse_tri(const std::string& s, tri* t) {
  if (s == "enable" || s == "true") {
    *t = tri::enable;
    return true;
  }
  if (s == "disable" || s == "false") {
    *t = tri::disable;
    return true;
  }
  if (s == "automatic") {
    *t = tri::automatic;
    return true;
  }
  return false;
}

const char* tri_name(tri t) {
  switch (t) {
    case tri::enable: return "enable";
    case tri::disable: return "disable";
    default: return "automatic";
  }
}

void remember(hints* h, const std::string& k, const std::string& v) {
  for (auto& kv : h->given)
    if (kv.first == k) {
      kv.second = v;
      return;
    }
  h->given.emplace_back(k, v);
}
}  // namespace

void hints_apply(hints* h, const std::vector<std::pair<std::string, std::string>>& given, int comm_size) {
  for (const auto& [k, v] : given) {
    int64_t x = 0;
    tri t = tri::automatic;
    if (k == "cb_buffer_size") {
      if (parse_int(v, &x) && x > 0) h->cb_buffer_size = x;
    } else if (k == "cb_nodes") {
      if (parse_int(v, &x) && x > 0) h->cb_nodes = int(x > comm_size ? comm_size : x);
    } else if (k == "cb_config_list") {
      // "*:n" (n aggregators on every host) or "*:*" (every rank); other forms name hosts, which
      // a POSIX file system does not need: one per host then.
      const char* colon = std::strrchr(v.c_str(), ':');
      if (colon && colon[1] == '*')
        h->cb_per_host = 1 << 20;
      else if (colon && parse_int(colon + 1, &x) && x > 0)
        h->cb_per_host = int(x);
    } else if (k == "romio_cb_read") {
      if (parse_tri(v, &t)) h->cb_read = t;
    } else if (k == "romio_cb_write") {
      if (parse_tri(v, &t)) h->cb_write = t;
    } else if (k == "collective_buffering") {
      if (parse_tri(v, &t)) h->cb_read = h->cb_write = t;
    } else if (k == "romio_ds_read") {
      if (parse_tri(v, &t)) h->ds_read = t;
    } else if (k == "romio_ds_write") {
      if (parse_tri(v, &t)) h->ds_write = t;
    } else if (k == "ind_rd_buffer_size") {
      if (parse_int(v, &x) && x > 0) h->ind_rd_buffer_size = x;
    } else if (k == "ind_wr_buffer_size") {
      if (parse_int(v, &x) && x > 0) h->ind_wr_buffer_size = x;
    } else if (k == "striping_unit") {
      if (parse_int(v, &x) && x > 0) h->striping_unit = x;
    } else if (k == "striping_factor") {
      if (parse_int(v, &x) && x > 0) h->striping_factor = int(x);
    } else if (k == "romio_no_indep_rw") {
      h->no_indep_rw = v == "true" || v == "enable";
    } else if (k == "file_perm") {
      char* end = nullptr;
      long p = std::strtol(v.c_str(), &end, 8);
      if (end && *end == '\0' && p >= 0 && p <= 07777) h->file_perm = int(p);
    }
    remember(h, k, v);
  }
}

std::vector<std::pair<std::string, std::string>> hints_report(const hints& h, int naggs) {
  std::vector<std::pair<std::string, std::string>> out;
  auto put = [&](const std::string& k, const std::string& v) { out.emplace_back(k, v); };
  put("cb_buffer_size", std::to_string(h.cb_buffer_size));
  put("romio_cb_read", tri_name(h.cb_read));
  put("romio_cb_write", tri_name(h.cb_write));
  put("cb_nodes", std::to_string(naggs));
  put("cb_config_list", h.cb_per_host >= (1 << 20) ? "*:*" : "*:" + std::to_string(h.cb_per_host));
  put("romio_no_indep_rw", h.no_indep_rw ? "true" : "false");
  put("ind_rd_buffer_size", std::to_string(h.ind_rd_buffer_size));
  put("ind_wr_buffer_size", std::to_string(h.ind_wr_buffer_size));
  put("romio_ds_read", tri_name(h.ds_read));
  put("romio_ds_write", tri_name(h.ds_write));
  if (h.striping_unit > 0) put("striping_unit", std::to_string(h.striping_unit));
  if (h.striping_factor > 0) put("striping_factor", std::to_string(h.striping_factor));
  // Every other key the user gave, as given.
  for (const auto& [k, v] : h.given) {
    bool known = false;
    for (const auto& kv : out) known |= kv.first == k;
    if (!known && k != "collective_buffering") out.emplace_back(k, v);
    if (k == "collective_buffering") put(k, v);
  }
  return out;
}

}  // namespace baton::io
