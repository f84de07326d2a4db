// MPI_Comm_spawn(_multiple) and the children's side (MPI_Comm_get_parent).
//
// The parents' root opens a private port, asks its launcher to start the children with the port's
// name under the key "baton.parent_port" (PMI-1 / PMI-2 preput, PMIx environment), and accepts
// on it; the other parents wait for the root's news inside the accept's collective part. The
// children connect to that port from MPI_Init over their MPI_COMM_WORLD. Info keys, at the root:
//   soft      honoured here: the largest count of the soft set not above maxprocs is started
//             (the others get MPI_ERR_SPAWN in array_of_errcodes)
//   arch      honoured here: must be this machine's architecture (uname -m), else MPI_ERR_SPAWN
//   path      honoured here: a command without '/' is looked for in that directory
//   wdir, host, hostfile   passed to the launcher, which applies them (Baton's mpiexec places
//             processes on its own host only and refuses other hosts with MPI_ERR_SPAWN)
// Other keys are ignored, as the standard allows.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "coll/among.hpp"
#include "comm/comm.hpp"
#include "comm/dynamic_wire.hpp"
#include "core/runtime.hpp"

namespace baton::dynamic {

namespace {

std::mutex g_parent_mu;
comm* g_parent = nullptr;

constexpr int err_spawn = 53;  // MPI_ERR_SPAWN, for array_of_errcodes

// The soft set "a:b:s,c,..." (MPI-4.1 11.8.4): the largest member not above maxprocs, -1 if none.
errc soft_count(const std::string& spec, int maxprocs, int* n) {
  *n = -1;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    int a = 0, b = 0, s = 1;
    const int got = std::sscanf(item.c_str(), "%d:%d:%d", &a, &b, &s);
    if (got < 1 || a < 0 || s <= 0 || (got >= 2 && b < a))
      return core::error_set(errc::info_value, "info key soft=\"%s\": '%s' is not a count or a:b[:s] triplet",
                             spec.c_str(), item.c_str());
    if (got == 1) b = a;
    for (int v = a; v <= b; v += s)
      if (v <= maxprocs && v > *n) *n = v;
  }
  return errc::success;
}

// Turns one command's arguments into a launcher request (root only).
errc prepare(const spawn_command& sc, core::pmi_spawn_app* app, int* started) {
  if (sc.command.empty()) return core::error_set(errc::arg, "empty command name");
  if (sc.maxprocs <= 0)
    return core::error_set(errc::arg, "maxprocs %d for '%s': at least one process must be asked for", sc.maxprocs,
                           sc.command.c_str());
  app->command = sc.command;
  app->argv = sc.argv;
  app->maxprocs = sc.maxprocs;
  *started = sc.maxprocs;
  if (!sc.in) return errc::success;
  if (const std::string* v = sc.in->find("soft")) {
    int n = 0;
    if (errc e = soft_count(*v, sc.maxprocs, &n); e != errc::success) return e;
    if (n <= 0)
      return core::error_set(errc::spawn, "info key soft=\"%s\" allows no count from 1 to maxprocs (%d)", v->c_str(),
                             sc.maxprocs);
    app->maxprocs = n;
    *started = n;
  }
  if (const std::string* v = sc.in->find("arch")) {
    struct utsname u;
    if (::uname(&u) != 0 || *v != u.machine)
      return core::error_set(errc::spawn, "info key arch=\"%s\": this launcher starts processes on %s machines only",
                             v->c_str(), ::uname(&u) == 0 ? u.machine : "(unknown)");
  }
  if (const std::string* v = sc.in->find("path"))
    if (sc.command.find('/') == std::string::npos && !v->empty())
      app->command = *v + (v->back() == '/' ? "" : "/") + sc.command;
  for (const char* k : {"wdir", "host", "hostfile"})
    if (const std::string* v = sc.in->find(k)) {
      if (v->empty()) return core::error_set(errc::info_value, "info key %s is empty", k);
      app->info.emplace_back(k, *v);
    }
  return errc::success;
}

}  // namespace

errc spawn(const std::vector<spawn_command>& cmds, int root, comm* c, errc root_error, comm** out,
           std::vector<int>* errcodes) {
  *out = nullptr;
  // At root: the codes per child asked for (the children actually asked for are 0 unless the
  // launcher says otherwise; those a soft set left out get MPI_ERR_SPAWN).
  std::vector<int32_t> codes;
  std::vector<core::pmi_spawn_app> apps;
  std::vector<int> started;
  errc pre = root_error;
  if (c->rank == root) {
    size_t total = 0;
    for (const spawn_command& sc : cmds) total += size_t(std::max(sc.maxprocs, 0));
    codes.assign(total, err_spawn);
    for (const spawn_command& sc : cmds) {
      apps.emplace_back();
      started.push_back(0);
      if (pre == errc::success) pre = prepare(sc, &apps.back(), &started.back());
    }
  }
  double t = 60;
  if (c->rank == root)
    if (errc e = wire::timeout_of(nullptr, "BATON_SPAWN_TIMEOUT", 60, &t); e != errc::success && pre == errc::success)
      pre = e;
  const uint64_t deadline_span = uint64_t(t * 1e9);
  errc e = wire::join_groups(
      c, root,
      [&](const std::string& group, wire::handshake_result* hr) -> errc {
        if (pre != errc::success) return pre;
        std::string port;
        if (errc p = open_port(nullptr, &port); p != errc::success) return p;
        std::vector<int> launched;
        errc r = core::rt().pmi.spawn(apps, "baton.parent_port", port, &launched);
        if (r == errc::success) {
          // Map the launcher's codes (one per started child) onto the children asked for.
          size_t at = 0, got = 0;
          for (size_t i = 0; i < cmds.size(); ++i) {
            for (int k = 0; k < started[i]; ++k, ++got)
              codes[at + size_t(k)] = got < launched.size() && launched[got] != 0 ? err_spawn : 0;
            at += size_t(cmds[i].maxprocs);
          }
          r = wire::accept_handshake(port, wire::deadline_after(double(deadline_span) * 1e-9), group, hr);
          if (r != errc::success)
            r = core::error_set(errc::spawn, "the children did not connect to their parents: %s",
                                core::error_message().c_str());
        }
        (void)close_port(port);
        return r;
      },
      out);
  // Every process gets the codes (the root's failure, if any, already reached them all).
  const int tag = coll::comm_next_tag(c);
  std::string blob;
  if (c->rank == root) blob.assign(reinterpret_cast<const char*>(codes.data()), codes.size() * sizeof(int32_t));
  if (errc b = wire::bcast_bytes(c, root, tag, &blob); b != errc::success && e == errc::success) e = b;
  errcodes->assign(blob.size() / sizeof(int32_t), 0);
  for (size_t i = 0; i < errcodes->size(); ++i) {
    int32_t v;
    std::memcpy(&v, blob.data() + i * sizeof v, sizeof v);
    (*errcodes)[i] = e == errc::success ? v : err_spawn;
  }
  if (e != errc::success && *out) {
    (*out)->release();
    *out = nullptr;
  }
  return e;
}

errc init_parent() {
  std::string port;
  if (errc e = core::rt().pmi.spawned_value("baton.parent_port", &port); e != errc::success) return e;
  if (port.empty()) return errc::success;
  comm* p = nullptr;
  if (errc e = connect(port, nullptr, 0, core::rt().world, &p); e != errc::success)
    return core::error_set(e, "a spawned process could not reach its parents: %s", core::error_message().c_str());
  p->name = "MPI_COMM_PARENT";
  std::lock_guard<std::mutex> g(g_parent_mu);
  g_parent = p;
  return errc::success;
}

comm* parent() {
  std::lock_guard<std::mutex> g(g_parent_mu);
  return g_parent;
}

void parent_forget(comm* c) {
  std::lock_guard<std::mutex> g(g_parent_mu);
  if (c == g_parent) g_parent = nullptr;
}

void parent_release() {
  comm* p = nullptr;
  {
    std::lock_guard<std::mutex> g(g_parent_mu);
    std::swap(p, g_parent);
  }
  if (p) p->release();  // MPI_COMM_PARENT the program never freed: ours since MPI_Init made it
}

}  // namespace baton::dynamic
