// MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name.
//
// Through the launcher (PMI-1 publish_name..., PMI-2 name-publish..., PMIx_Publish...), which
// serves the processes it started and their spawned children; or, when BATON_NAMESERVER=host:port
// is set, through Baton's stand-alone name server (tools/nameserver), which jobs started by
// different launchers can share. Its protocol, one frame each way per request (comm/dynamic_wire:
// a 32-bit length, then the bytes, fields separated by NUL):
//   "P" service port -> "K" | "E" message       publish
//   "U" service      -> "K" | "E" message       unpublish
//   "L" service      -> "K" port | "E" message  lookup
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "comm/dynamic_wire.hpp"
#include "core/runtime.hpp"

namespace baton::dynamic {

namespace {

// The name server's answer to one request; *found false (with the server's message recorded)
// when it refused.
errc ask_server(const char* where, const std::string& request, bool* found, std::string* answer) {
  const std::string spec = where;
  const size_t colon = spec.rfind(':');
  const long tcp = colon == std::string::npos ? 0 : std::strtol(spec.c_str() + colon + 1, nullptr, 10);
  if (colon == std::string::npos || tcp <= 0 || tcp > 65535)
    return core::error_set(errc::other, "BATON_NAMESERVER=%s is not host:port (an IPv4 address and a TCP port)", where);
  int fd = -1;
  if (errc e = wire::dial({spec.substr(0, colon)}, uint16_t(tcp), wire::deadline_after(10), &fd); e != errc::success)
    return core::error_set(errc::other, "cannot reach the name server BATON_NAMESERVER=%s: %s", where,
                           core::error_message().c_str());
  std::string reply;
  errc e = wire::send_frame(fd, request);
  if (e == errc::success) e = wire::recv_frame(fd, wire::deadline_after(10), &reply);
  ::close(fd);
  if (e != errc::success)
    return core::error_set(errc::other, "the name server BATON_NAMESERVER=%s did not answer: %s", where,
                           core::error_message().c_str());
  if (reply.empty() || (reply[0] != 'K' && reply[0] != 'E'))
    return core::error_set(errc::other, "BATON_NAMESERVER=%s is not a Baton name server", where);
  *found = reply[0] == 'K';
  *answer = reply.substr(1);
  return errc::success;
}

const char* server() {
  const char* v = std::getenv("BATON_NAMESERVER");
  return v && *v ? v : nullptr;
}

std::string fields(char op, const std::string& a, const std::string& b = std::string()) {
  std::string r(1, op);
  r += a;
  if (!b.empty()) {
    r += '\0';
    r += b;
  }
  return r;
}

}  // namespace

errc publish_name(const std::string& service, const info*, const std::string& port) {
  if (service.empty()) return core::error_set(errc::arg, "empty service name");
  if (const char* where = server()) {
    bool ok = false;
    std::string answer;
    if (errc e = ask_server(where, fields('P', service, port), &ok, &answer); e != errc::success) return e;
    if (!ok) return core::error_set(errc::name, "the name server refused to publish '%s': %s", service.c_str(), answer.c_str());
    return errc::success;
  }
  return core::rt().pmi.publish(service, port);
}

errc unpublish_name(const std::string& service, const info*, const std::string&) {
  if (const char* where = server()) {
    bool ok = false;
    std::string answer;
    if (errc e = ask_server(where, fields('U', service), &ok, &answer); e != errc::success) return e;
    if (!ok) return core::error_set(errc::service, "service name '%s' is not published (%s)", service.c_str(), answer.c_str());
    return errc::success;
  }
  errc e = core::rt().pmi.unpublish(service);
  if (e == errc::name) return core::error_set(errc::service, "%s", core::error_message().c_str());
  return e;
}

errc lookup_name(const std::string& service, const info*, std::string* port) {
  if (const char* where = server()) {
    bool ok = false;
    std::string answer;
    if (errc e = ask_server(where, fields('L', service), &ok, &answer); e != errc::success) return e;
    if (!ok) return core::error_set(errc::name, "service name '%s' is not published", service.c_str());
    *port = answer;
    return errc::success;
  }
  return core::rt().pmi.lookup(service, port);
}

}  // namespace baton::dynamic
