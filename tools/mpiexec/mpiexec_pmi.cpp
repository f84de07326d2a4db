#include "mpiexec_pmi.hpp"

#include <cstdlib>

namespace baton::launcher {
namespace {

// The key=value fields of one command line, in order.
struct pmi_fields {
  std::vector<std::pair<std::string_view, std::string_view>> items;

  explicit pmi_fields(std::string_view line) {
    size_t pos = 0;
    while (pos < line.size()) {
      while (pos < line.size() && line[pos] == ' ') ++pos;
      size_t end = line.find(' ', pos);
      if (end == std::string_view::npos) end = line.size();
      if (end > pos) {
        std::string_view tok = line.substr(pos, end - pos);
        size_t eq = tok.find('=');
        if (eq == std::string_view::npos)
          items.emplace_back(tok, std::string_view{});
        else
          items.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
      }
      pos = end;
    }
  }

  [[nodiscard]] const std::string_view* find(std::string_view key) const {
    for (const auto& kv : items)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
  [[nodiscard]] std::string_view get(std::string_view key) const {
    const std::string_view* v = find(key);
    return v != nullptr ? *v : std::string_view{};
  }
};

}  // namespace

pmi_server::pmi_server(int size, std::string kvsname, hooks h)
    : size_(size), kvsname_(std::move(kvsname)), hooks_(std::move(h)), ranks_(size) {
  // Hydra publishes the node layout under this key; MPICH clients read it.
  kvs_["PMI_process_mapping"] = "(vector,(0,1," + std::to_string(size) + "))";
}

// One line of an "mcmd=spawn" block: key=value up to the end of the line (arguments may hold
// blanks). At "endcmd" the block becomes a program of the rank's spawn request; the last one
// (spawnssofar == totspawns) goes to the spawn hook.
void pmi_server::handle_mcmd_line(int rank, std::string_view line) {
  rank_state& st = ranks_[rank];
  if (line != "endcmd") {
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) eq = line.size();
    st.mcmd.emplace_back(std::string(line.substr(0, eq)),
                         eq < line.size() ? std::string(line.substr(eq + 1)) : std::string());
    return;
  }
  auto get = [&](const std::string& k) -> std::string {
    for (const auto& kv : st.mcmd)
      if (kv.first == k) return kv.second;
    return {};
  };
  spawn_app app;
  app.nprocs = std::atoi(get("nprocs").c_str());
  app.execname = get("execname");
  const int argcnt = std::atoi(get("argcnt").c_str());
  for (int i = 1; i <= argcnt; ++i) app.args.push_back(get("arg" + std::to_string(i)));
  const int ninfo = std::atoi(get("info_num").c_str());
  for (int i = 0; i < ninfo; ++i)
    app.info.emplace_back(get("info_key_" + std::to_string(i)), get("info_val_" + std::to_string(i)));
  const int npre = std::atoi(get("preput_num").c_str());
  for (int i = 0; i < npre && st.spawn.apps.empty(); ++i)
    st.spawn.preput.emplace_back(get("preput_key_" + std::to_string(i)), get("preput_val_" + std::to_string(i)));
  st.spawn.apps.push_back(std::move(app));
  const int total = std::atoi(get("totspawns").c_str());
  const int sofar = std::atoi(get("spawnssofar").c_str());
  st.mcmd.clear();
  if (sofar < total) return;
  spawn_request req = std::move(st.spawn);
  st.spawn = spawn_request{};
  hooks_.spawn(rank, req);
}

void pmi_server::pmi_handle_line(int rank, std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  if (!ranks_[rank].mcmd.empty() || line == "mcmd=spawn") {
    handle_mcmd_line(rank, line);
    return;
  }
  pmi_fields f(line);
  std::string_view cmd = f.get("cmd");
  if (f.find("cmd") == nullptr) {
    hooks_.warn(rank, "unsupported PMI request '" + std::string(line.substr(0, 80)) + "'");
    reply(rank, "cmd=unknown_result rc=-1 msg=unsupported");
    return;
  }
  rank_state& st = ranks_[rank];
  std::string n = std::to_string(size_);

  if (cmd == "init") {
    bool ok = f.get("pmi_version") == "1";
    st.initialized = true;
    reply(rank, std::string("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=") +
                    (ok ? "0" : "-1"));
  } else if (cmd == "get_maxes") {
    reply(rank, "cmd=maxes kvsname_max=" + std::to_string(kvsname_max) +
                    " keylen_max=" + std::to_string(keylen_max) +
                    " vallen_max=" + std::to_string(vallen_max) + " rc=0");
  } else if (cmd == "get_appnum") {
    reply(rank, "cmd=appnum appnum=" + std::to_string(st.appnum) + " rc=0");
  } else if (cmd == "get_my_kvsname") {
    reply(rank, "cmd=my_kvsname kvsname=" + kvsname_ + " rc=0");
  } else if (cmd == "get_universe_size") {
    reply(rank, "cmd=universe_size size=" + (universe_ > 0 ? std::to_string(universe_) : n) + " rc=0");
  } else if (cmd == "put") {
    std::string_view key = f.get("key");
    const std::string_view* value = f.find("value");
    if (f.get("kvsname") != kvsname_) {
      reply(rank, "cmd=put_result rc=-1 msg=invalid_kvsname");
    } else if (key.empty() || key.size() > keylen_max || value == nullptr) {
      reply(rank, "cmd=put_result rc=-1 msg=invalid_key");
    } else if (value->size() > vallen_max) {
      reply(rank, "cmd=put_result rc=-1 msg=value_too_long");
    } else {
      kvs_.insert_or_assign(std::string(key), std::string(*value));
      reply(rank, "cmd=put_result rc=0 msg=success");
    }
  } else if (cmd == "get") {
    if (f.get("kvsname") != kvsname_) {
      reply(rank, "cmd=get_result rc=-1 msg=invalid_kvsname");
      return;
    }
    auto it = kvs_.find(f.get("key"));
    if (it == kvs_.end())
      reply(rank, "cmd=get_result rc=-1 msg=key_not_found");
    else
      reply(rank, "cmd=get_result rc=0 msg=success value=" + it->second);
  } else if (cmd == "barrier_in") {
    if (!st.in_barrier) {
      st.in_barrier = true;
      ++barrier_count_;
    }
    if (barrier_count_ == size_) {
      barrier_count_ = 0;
      for (int r = 0; r < size_; ++r) {
        ranks_[r].in_barrier = false;
        reply(r, "cmd=barrier_out");
      }
    }
  } else if (cmd == "finalize") {
    st.finalized = true;
    reply(rank, "cmd=finalize_ack");
  } else if (cmd == "publish_name" || cmd == "unpublish_name" || cmd == "lookup_name") {
    hooks_.names(rank, line);
  } else if (cmd == "abort") {
    std::string code_text(f.get("exitcode"));
    int code = code_text.empty() ? 1 : static_cast<int>(std::strtol(code_text.c_str(), nullptr, 10));
    std::string_view message;
    for (std::string_view key : {" message=", " error_msg="}) {
      size_t at = line.find(key);
      if (at != std::string_view::npos) {
        message = line.substr(at + key.size());
        break;
      }
    }
    hooks_.abort(rank, code, message);
  } else if (cmd == "stall") {
    // One-way (the rank reads no reply); `what` is the rest of the line, spaces included.
    constexpr std::string_view key = " what=";
    const size_t at = line.find(key);
    const std::string seconds(f.get("seconds"));
    if (hooks_.stall)
      hooks_.stall(rank, std::strtod(seconds.c_str(), nullptr),
                   at == std::string_view::npos ? std::string_view{} : line.substr(at + key.size()));
  } else {
    hooks_.warn(rank, "unknown PMI command '" + std::string(cmd.substr(0, 80)) + "'");
    reply(rank, "cmd=" + std::string(cmd.substr(0, 80)) + "_result rc=-1 msg=unknown_command");
  }
}

}  // namespace baton::launcher
