// Process creation and management (MPI-4.1 11.8-11.10): spawn, ports, connect/accept, join, name
// publishing. Thin: argument checks and handle conversion; the work is in src/comm/dynamic_*.cpp.
// MPI_Comm_get_parent lives with the other communicator calls (abi_comm.cpp).
#include <cstring>
#include <string>
#include <vector>

#include "abi/abi.hpp"
#include "abi/abi_coll.hpp"
#include "abi/abi_objects.hpp"
#include "comm/dynamic.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace {

// An info argument: MPI_INFO_NULL gives nullptr; a bad handle fails with errc::info.
errc info_arg(MPI_Info h, const core::info** out) {
  *out = nullptr;
  if (h == MPI_INFO_NULL) return errc::success;
  const core::info* in = abi::to_info(h);
  if (!in) return errc::info;
  *out = in;
  return errc::success;
}

errc check_root(const core::comm* c, int root) {
  if (root < 0 || root >= c->size)
    return core::error_set(errc::root, "root %d is not a rank of the communicator (size %d)", root, c->size);
  return errc::success;
}

// The communicator of a collective dynamic call: valid and an intracommunicator.
errc intra_arg(const char* fn, MPI_Comm h, core::comm** out) {
  if (errc e = abi::comm_check(fn, h, out); e != errc::success) return e;
  return abi::check_intra(fn, *out);
}

std::vector<std::string> argv_of(char* const* argv) {
  std::vector<std::string> v;
  if (argv)
    for (char* const* a = argv; *a; ++a) v.emplace_back(*a);
  return v;
}

int spawn_common(const char* fn, const std::vector<dynamic::spawn_command>& cmds, int root, core::comm* c,
                 MPI_Comm* intercomm, int* errcodes, errc root_error) {
  return call(fn, c, [&] {
    if (!intercomm) return core::error_set(errc::arg, "NULL intercomm pointer");
    *intercomm = MPI_COMM_NULL;
    if (errc e = check_root(c, root); e != errc::success) return e;
    std::vector<int> codes;
    core::comm* n = nullptr;
    // A root whose own arguments are wrong still takes part: every process gets its error.
    errc e = dynamic::spawn(cmds, root, c, root_error, &n, &codes);
    if (errcodes != MPI_ERRCODES_IGNORE && !codes.empty()) std::memcpy(errcodes, codes.data(), codes.size() * sizeof(int));
    if (e != errc::success) return e;
    *intercomm = abi::to_handle(n);
    return errc::success;
  });
}

// MPI_Comm_accept and MPI_Comm_connect: the same arguments, the same checks.
int meet(const char* fn, const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm,
         errc (*side)(const std::string&, const core::info*, int, core::comm*, core::comm**)) {
  core::comm* c = nullptr;
  if (errc e = intra_arg(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  return call(fn, c, [&] {
    if (!newcomm) return core::error_set(errc::arg, "NULL newcomm pointer");
    *newcomm = MPI_COMM_NULL;
    if (errc e = check_root(c, root); e != errc::success) return e;
    const core::info* in = nullptr;
    std::string port;
    if (c->rank == root) {
      if (errc e = info_arg(info, &in); e != errc::success) return e;
      if (!port_name) return core::error_set(errc::port, "NULL port_name at the root");
      port = port_name;
    }
    core::comm* n = nullptr;
    if (errc e = side(port, in, root, c, &n); e != errc::success) return e;
    *newcomm = abi::to_handle(n);
    return errc::success;
  });
}

}  // namespace

namespace baton::impl {

int MPI_Open_port(MPI_Info info, char* port_name) {
  const char* fn = "MPI_Open_port";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (!port_name) return core::error_set(errc::arg, "NULL port_name");
    std::string name;
    if (errc e = dynamic::open_port(in, &name); e != errc::success) return e;
    abi::copy_out(port_name, nullptr, name, MPI_MAX_PORT_NAME);
    return errc::success;
  });
}

int MPI_Close_port(const char* port_name) {
  const char* fn = "MPI_Close_port";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (!port_name) return core::error_set(errc::arg, "NULL port_name");
    return dynamic::close_port(port_name);
  });
}

// port_name and info are significant at root only (MPI-4.1 11.10.2).
int MPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return meet("MPI_Comm_accept", port_name, info, root, comm, newcomm, dynamic::accept);
}

int MPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return meet("MPI_Comm_connect", port_name, info, root, comm, newcomm, dynamic::connect);
}

int MPI_Comm_join(int fd, MPI_Comm* intercomm) {
  const char* fn = "MPI_Comm_join";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    if (!intercomm) return core::error_set(errc::arg, "NULL intercomm pointer");
    *intercomm = MPI_COMM_NULL;
    if (fd < 0) return core::error_set(errc::arg, "fd %d is not a descriptor", fd);
    core::comm* n = nullptr;
    if (errc e = dynamic::join(fd, &n); e != errc::success) return e;
    *intercomm = abi::to_handle(n);
    return errc::success;
  });
}

// command, argv, maxprocs and info are significant at root only (MPI-4.1 11.8.2).
int MPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* fn = "MPI_Comm_spawn";
  core::comm* c = nullptr;
  if (errc e = intra_arg(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  std::vector<dynamic::spawn_command> cmds;
  errc pre = errc::success;
  if (c->rank == root) {
    dynamic::spawn_command sc;
    if (!command) pre = core::error_set(errc::arg, "NULL command at the root");
    if (pre == errc::success) pre = info_arg(info, &sc.in);
    if (pre == errc::success) {
      sc.command = command;
      sc.argv = argv_of(argv);
      sc.maxprocs = maxprocs;
      cmds.push_back(std::move(sc));
    }
  }
  return spawn_common(fn, cmds, root, c, intercomm, array_of_errcodes, pre);
}

int MPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* fn = "MPI_Comm_spawn_multiple";
  core::comm* c = nullptr;
  if (errc e = intra_arg(fn, comm, &c); e != errc::success) return abi::raise(fn, c, e);
  std::vector<dynamic::spawn_command> cmds;
  errc pre = errc::success;
  if (c->rank == root) {
    if (count <= 0) pre = core::error_set(errc::arg, "count %d: at least one command is needed", count);
    else if (!array_of_commands || !array_of_maxprocs)
      pre = core::error_set(errc::arg, "NULL array_of_commands or array_of_maxprocs at the root");
    for (int i = 0; pre == errc::success && i < count; ++i) {
      dynamic::spawn_command sc;
      if (!array_of_commands[i]) {
        pre = core::error_set(errc::arg, "NULL command %d", i);
        break;
      }
      if (array_of_info) pre = info_arg(array_of_info[i], &sc.in);
      sc.command = array_of_commands[i];
      if (array_of_argv != MPI_ARGVS_NULL && array_of_argv) sc.argv = argv_of(array_of_argv[i]);
      sc.maxprocs = array_of_maxprocs[i];
      cmds.push_back(std::move(sc));
    }
  }
  return spawn_common(fn, cmds, root, c, intercomm, array_of_errcodes, pre);
}

int MPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const char* fn = "MPI_Publish_name";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (!service_name || !port_name) return core::error_set(errc::arg, "NULL service_name or port_name");
    return dynamic::publish_name(service_name, in, port_name);
  });
}

int MPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const char* fn = "MPI_Unpublish_name";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (!service_name) return core::error_set(errc::service, "NULL service_name");
    return dynamic::unpublish_name(service_name, in, port_name ? port_name : "");
  });
}

int MPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  const char* fn = "MPI_Lookup_name";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return call(fn, nullptr, [&] {
    const core::info* in = nullptr;
    if (errc e = info_arg(info, &in); e != errc::success) return e;
    if (!service_name || !port_name) return core::error_set(errc::arg, "NULL service_name or port_name");
    std::string port;
    if (errc e = dynamic::lookup_name(service_name, in, &port); e != errc::success) return e;
    abi::copy_out(port_name, nullptr, port, MPI_MAX_PORT_NAME);
    return errc::success;
  });
}

}  // namespace baton::impl
