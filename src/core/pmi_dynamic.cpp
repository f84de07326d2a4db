// The process-manager requests of dynamic processes: spawn and the name service, in the three
// protocols (PMIx in pmi_pmix_dynamic.cpp).
//
// PMI-1 (MPICH's Hydra, Baton's mpiexec): spawn is the multi-line command
//   mcmd=spawn / nprocs= / execname= / totspawns= / spawnssofar= / argcnt= / arg1=... /
//   preput_num= / preput_key_0= / preput_val_0= / info_num= / info_key_0= / info_val_0= / endcmd
// once per program, answered once by "cmd=spawn_result rc=0 [errcodes=e,e,...]". The children
// get PMI_SPAWNED=1 and the preput pairs in their own key/value space. Names: publish_name,
// unpublish_name, lookup_name.
// PMI-2 (Hydra): cmd=spawn;ncmds=;preputcount=;ppkey0=;ppval0=; then per program
//   subcmd=;maxprocs=;argc=;argv0=;infokeycount=;infokey0=;infoval0=; answered by spawn-response.
//   Names: name-publish, name-unpublish, name-lookup.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/pmi.hpp"

namespace baton::core {

namespace {
// One request at a time on the launcher's connection: threads may spawn or publish at once
// (MPI_THREAD_MULTIPLE), and every protocol here is a request followed by its answer.
std::mutex g_pmi_mu;

bool has_newline(const std::string& s) { return s.find('\n') != std::string::npos; }

errc check_line_safe(const std::vector<pmi_spawn_app>& apps, const std::string& value) {
  for (const pmi_spawn_app& a : apps) {
    if (has_newline(a.command)) return error_set(errc::spawn, "the command name contains a newline");
    for (const std::string& v : a.argv)
      if (has_newline(v)) return error_set(errc::spawn, "argument '%.60s' contains a newline", v.c_str());
    for (const auto& [k, v] : a.info)
      if (has_newline(v) || v.find(' ') != std::string::npos)
        return error_set(errc::spawn, "info %s=\"%.60s\" contains a blank or a newline", k.c_str(), v.c_str());
  }
  if (has_newline(value) || value.find(' ') != std::string::npos)
    return error_set(errc::intern, "a spawn key/value pair contains a blank");
  return errc::success;
}

size_t total_procs(const std::vector<pmi_spawn_app>& apps) {
  size_t n = 0;
  for (const pmi_spawn_app& a : apps) n += size_t(a.maxprocs);
  return n;
}

// "e,e,..." into errcodes (n entries); absent: all started.
void parse_errcodes(const std::string& list, size_t n, std::vector<int>* errcodes) {
  errcodes->assign(n, 0);
  size_t i = 0, pos = 0;
  while (!list.empty() && pos <= list.size() && i < n) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    (*errcodes)[i++] = std::atoi(list.substr(pos, comma - pos).c_str());
    pos = comma + 1;
  }
}
}  // namespace

errc pmi_client::spawn(const std::vector<pmi_spawn_app>& apps, const std::string& key, const std::string& value,
                       std::vector<int>* errcodes) {
  std::lock_guard<std::mutex> lock(g_pmi_mu);
  if (singleton())
    return error_set(errc::spawn,
                     "this process was started without a launcher (a singleton), so nothing can start processes "
                     "for it: run it under mpiexec (mpiexec -n 1 ./program)");
  if (kind_ == pmi_kind::pmix) return pmix::spawn(apps, "BATON_PARENT_PORT=" + value, errcodes);
  if (errc e = check_line_safe(apps, value); e != errc::success) return e;
  const size_t n = total_procs(apps);
  if (kind_ == pmi_kind::pmi2) {
    if (const char* slurm = std::getenv("SLURM_MPI_TYPE"); slurm && std::strncmp(slurm, "pmi2", 4) == 0)
      return error_set(errc::spawn,
                       "the launcher is Slurm's PMI-2 (srun --mpi=pmi2), which cannot start processes into a "
                       "running job step: spawn under mpiexec.hydra, Open MPI's mpirun or Baton's mpiexec");
    std::string cmd = "cmd=spawn;ncmds=" + std::to_string(apps.size()) + ";preputcount=1;ppkey0=" + pmi2_escape(key) +
                      ";ppval0=" + pmi2_escape(value) + ";";
    for (const pmi_spawn_app& a : apps) {
      cmd += "subcmd=" + pmi2_escape(a.command) + ";maxprocs=" + std::to_string(a.maxprocs) +
             ";argc=" + std::to_string(a.argv.size()) + ";";
      for (size_t i = 0; i < a.argv.size(); ++i) cmd += "argv" + std::to_string(i) + "=" + pmi2_escape(a.argv[i]) + ";";
      cmd += "infokeycount=" + std::to_string(a.info.size()) + ";";
      for (size_t i = 0; i < a.info.size(); ++i)
        cmd += "infokey" + std::to_string(i) + "=" + pmi2_escape(a.info[i].first) + ";infoval" + std::to_string(i) + "=" +
               pmi2_escape(a.info[i].second) + ";";
    }
    std::string r;
    if (errc e = command2(cmd, "spawn-response", &r, false); e != errc::success) return e;
    if (auto rc = pmi2_field(r, "rc"); !rc.empty() && rc != "0")
      return error_set(errc::spawn, "the launcher refused the spawn: %s", r.c_str());
    parse_errcodes(pmi2_field(r, "errcodes"), n, errcodes);
    return errc::success;
  }
  std::string all;
  for (size_t k = 0; k < apps.size(); ++k) {
    const pmi_spawn_app& a = apps[k];
    all += "mcmd=spawn\nnprocs=" + std::to_string(a.maxprocs) + "\nexecname=" + a.command +
           "\ntotspawns=" + std::to_string(apps.size()) + "\nspawnssofar=" + std::to_string(k + 1) + "\n";
    for (size_t i = 0; i < a.argv.size(); ++i) all += "arg" + std::to_string(i + 1) + "=" + a.argv[i] + "\n";
    all += "argcnt=" + std::to_string(a.argv.size()) + "\npreput_num=1\npreput_key_0=" + key + "\npreput_val_0=" + value +
           "\ninfo_num=" + std::to_string(a.info.size()) + "\n";
    for (size_t i = 0; i < a.info.size(); ++i)
      all += "info_key_" + std::to_string(i) + "=" + a.info[i].first + "\ninfo_val_" + std::to_string(i) + "=" +
             a.info[i].second + "\n";
    all += "endcmd\n";
  }
  if (errc e = write_all(all); e != errc::success) return e;
  std::string r;
  if (errc e = read_line(r); e != errc::success) return e;
  if (pmi_field(r, "cmd") != "spawn_result")
    return error_set(errc::spawn, "the launcher answered '%s' to a spawn request", r.c_str());
  if (pmi_field(r, "rc") != "0") {
    // Baton's mpiexec puts a readable message last (blanks included); Hydra's has none.
    const size_t at = r.find(" msg=");
    return error_set(errc::spawn, "the launcher refused the spawn: %s",
                     at == std::string::npos ? r.c_str() : r.c_str() + at + 5);
  }
  parse_errcodes(pmi_field(r, "errcodes"), n, errcodes);
  return errc::success;
}

namespace {
errc no_name_service() {
  return error_set(errc::unsupported_operation,
                   "this process was started without a launcher, which would keep the published names: start it "
                   "under mpiexec, or give a stand-alone name server with BATON_NAMESERVER");
}
bool blank_free(const std::string& s) { return s.find_first_of(" \n;") == std::string::npos; }
}  // namespace

errc pmi_client::publish(const std::string& service, const std::string& port) {
  std::lock_guard<std::mutex> lock(g_pmi_mu);
  if (singleton()) return no_name_service();
  if (kind_ == pmi_kind::pmix) return pmix::publish(service, port);
  if (!blank_free(service) || !blank_free(port))
    return error_set(errc::name, "service name '%.60s' holds a blank, ';' or a newline, which the launcher's protocol cannot carry",
                     service.c_str());
  std::string r;
  if (kind_ == pmi_kind::pmi2) {
    if (errc e = command2("cmd=name-publish;name=" + service + ";port=" + port + ";", "name-publish-response", &r, false);
        e != errc::success)
      return e;
    if (auto rc = pmi2_field(r, "rc"); !rc.empty() && rc != "0")
      return error_set(errc::name, "the launcher refused to publish '%s': %s", service.c_str(), r.c_str());
    return errc::success;
  }
  if (errc e = command("cmd=publish_name service=" + service + " port=" + port, "publish_result", &r); e != errc::success)
    return e;
  if (pmi_field(r, "rc") != "0")
    return error_set(errc::name, "the launcher refused to publish '%s': %s", service.c_str(), r.c_str());
  return errc::success;
}

errc pmi_client::unpublish(const std::string& service) {
  std::lock_guard<std::mutex> lock(g_pmi_mu);
  if (singleton()) return no_name_service();
  if (kind_ == pmi_kind::pmix) return pmix::unpublish(service);
  if (!blank_free(service)) return error_set(errc::name, "service name '%.60s' is not published", service.c_str());
  std::string r;
  if (kind_ == pmi_kind::pmi2) {
    if (errc e = command2("cmd=name-unpublish;name=" + service + ";", "name-unpublish-response", &r, false);
        e != errc::success)
      return e;
    if (auto rc = pmi2_field(r, "rc"); !rc.empty() && rc != "0")
      return error_set(errc::name, "service name '%s' is not published", service.c_str());
    return errc::success;
  }
  if (errc e = command("cmd=unpublish_name service=" + service, "unpublish_result", &r); e != errc::success) return e;
  if (pmi_field(r, "rc") != "0") return error_set(errc::name, "service name '%s' is not published", service.c_str());
  return errc::success;
}

errc pmi_client::lookup(const std::string& service, std::string* port) {
  std::lock_guard<std::mutex> lock(g_pmi_mu);
  if (singleton()) return no_name_service();
  if (kind_ == pmi_kind::pmix) return pmix::lookup(service, port);
  if (!blank_free(service)) return error_set(errc::name, "service name '%.60s' is not published", service.c_str());
  std::string r;
  if (kind_ == pmi_kind::pmi2) {
    if (errc e = command2("cmd=name-lookup;name=" + service + ";", "name-lookup-response", &r, false); e != errc::success)
      return e;
    if (pmi2_field(r, "found") != "TRUE") return error_set(errc::name, "service name '%s' is not published", service.c_str());
    *port = pmi2_field(r, "port");
    return errc::success;
  }
  if (errc e = command("cmd=lookup_name service=" + service, "lookup_result", &r); e != errc::success) return e;
  if (pmi_field(r, "rc") != "0" || pmi_field(r, "port").empty())
    return error_set(errc::name, "service name '%s' is not published", service.c_str());
  *port = pmi_field(r, "port");
  return errc::success;
}

errc pmi_client::spawned_value(const std::string& key, std::string* value) {
  value->clear();
  if (kind_ == pmi_kind::pmix) {
    if (const char* v = std::getenv("BATON_PARENT_PORT")) *value = v;
    return errc::success;
  }
  const char* spawned = std::getenv("PMI_SPAWNED");
  if (singleton() || !spawned || std::atoi(spawned) == 0) return errc::success;
  return get(key, *value);
}

}  // namespace baton::core
