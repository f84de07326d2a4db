#include "comm/dynamic_wire.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/runtime.hpp"
#include "p2p/p2p.hpp"
#include "transport/ucx/ucx.hpp"

namespace baton::dynamic::wire {

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

uint64_t deadline_after(double seconds) {
  if (seconds <= 0) return 0;
  return now_ns() + uint64_t(seconds * 1e9);
}

errc timeout_of(const info* in, const char* env, double fallback, double* seconds) {
  *seconds = fallback;
  if (const char* v = std::getenv(env); v && *v) *seconds = std::strtod(v, nullptr);
  if (in)
    if (const std::string* v = in->find("timeout")) {
      char* end = nullptr;
      const double t = std::strtod(v->c_str(), &end);
      if (end == v->c_str() || *end != '\0' || t < 0)
        return core::error_set(errc::info_value, "info key timeout=\"%s\" is not a number of seconds", v->c_str());
      *seconds = t;
    }
  return errc::success;
}

errc wait_readable(int fd, uint64_t deadline) {
  for (;;) {
    int ms = 1;  // MPI progress at least every millisecond while nothing comes
    if (deadline) {
      const uint64_t now = now_ns();
      if (now >= deadline) return errc::pending;
      if (deadline - now < 1000000) ms = 0;
    }
    struct pollfd p = {fd, POLLIN, 0};
    const int n = ::poll(&p, 1, ms);
    if (n > 0) return errc::success;
    if (n < 0 && errno != EINTR) return core::error_set(errc::other, "poll on a connection socket failed: %s", std::strerror(errno));
    (void)p2p::poll();
  }
}

namespace {
errc write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd q = {fd, POLLOUT, 0};
      (void)::poll(&q, 1, 100);
      continue;
    }
    if (k <= 0) return core::error_set(errc::port, "the connection to the other side broke (%s)", std::strerror(errno));
    p += k;
    n -= size_t(k);
  }
  return errc::success;
}

errc read_all(int fd, char* p, size_t n, uint64_t deadline) {
  while (n > 0) {
    if (errc e = wait_readable(fd, deadline); e != errc::success) {
      if (e == errc::pending) return core::error_set(errc::port, "the other side did not answer in time");
      return e;
    }
    const ssize_t k = ::recv(fd, p, n, MSG_DONTWAIT);
    if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (k == 0) return core::error_set(errc::port, "the other side closed the connection");
    if (k < 0) return core::error_set(errc::port, "the connection to the other side broke (%s)", std::strerror(errno));
    p += k;
    n -= size_t(k);
  }
  return errc::success;
}
}  // namespace

errc send_frame(int fd, const std::string& bytes) {
  const uint32_t n = htonl(uint32_t(bytes.size()));
  std::string out(reinterpret_cast<const char*>(&n), 4);
  out += bytes;
  return write_all(fd, out.data(), out.size());
}

errc recv_frame(int fd, uint64_t deadline, std::string* out) {
  uint32_t n = 0;
  if (errc e = read_all(fd, reinterpret_cast<char*>(&n), 4, deadline); e != errc::success) return e;
  n = ntohl(n);
  if (n > (16u << 20)) return core::error_set(errc::port, "the other side sent a frame of %u bytes: not a Baton peer", n);
  out->resize(n);
  return read_all(fd, out->data(), n, deadline);
}

std::vector<std::string> local_addresses() {
  std::vector<std::string> out;
  struct ifaddrs* ifs = nullptr;
  if (::getifaddrs(&ifs) == 0) {
    for (struct ifaddrs* i = ifs; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      char buf[INET_ADDRSTRLEN];
      const auto* sin = reinterpret_cast<const struct sockaddr_in*>(i->ifa_addr);
      if (!::inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) continue;
      if (ntohl(sin->sin_addr.s_addr) >> 24 == 127) continue;
      out.emplace_back(buf);
    }
    ::freeifaddrs(ifs);
  }
  out.emplace_back("127.0.0.1");
  return out;
}

errc listen_any(int* fd, uint16_t* port) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return core::error_set(errc::other, "cannot create a socket for the port: %s", std::strerror(errno));
  struct sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<struct sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0 ||
      ::getsockname(s, reinterpret_cast<struct sockaddr*>(&a), &len) != 0) {
    const int e = errno;
    ::close(s);
    return core::error_set(errc::other, "cannot listen on a TCP port: %s", std::strerror(e));
  }
  *fd = s;
  *port = ntohs(a.sin_port);
  return errc::success;
}

errc dial(const std::vector<std::string>& hosts, uint16_t port, uint64_t deadline, int* fd) {
  std::string tried;
  for (const std::string& h : hosts) {
    struct sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (::inet_pton(AF_INET, h.c_str(), &a.sin_addr) != 1) continue;
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) return core::error_set(errc::other, "cannot create a socket: %s", std::strerror(errno));
    int rc = ::connect(s, reinterpret_cast<struct sockaddr*>(&a), sizeof a);
    if (rc != 0 && errno == EINPROGRESS) {
      // At most 5 s per address (a host that drops packets), less if the deadline is nearer.
      uint64_t until = now_ns() + 5000000000ull;
      if (deadline && deadline < until) until = deadline;
      for (;;) {
        const uint64_t now = now_ns();
        if (now >= until) break;
        struct pollfd p = {s, POLLOUT, 0};
        const int n = ::poll(&p, 1, int(std::min<uint64_t>((until - now) / 1000000 + 1, 100)));
        if (n > 0) {
          int err = 0;
          socklen_t el = sizeof err;
          ::getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el);
          rc = err == 0 ? 0 : -1;
          errno = err;
          break;
        }
      }
      if (rc != 0 && errno == EINPROGRESS) errno = ETIMEDOUT;
    }
    if (rc == 0) {
      const int one = 1;
      ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::fcntl(s, F_SETFL, ::fcntl(s, F_GETFL) & ~O_NONBLOCK);
      *fd = s;
      return errc::success;
    }
    tried += (tried.empty() ? "" : ", ") + h + " (" + std::strerror(errno) + ")";
    ::close(s);
  }
  return core::error_set(errc::port, "no process listens on the port's TCP port %u at %s: the port is closed, or "
                                     "its process has ended",
                         unsigned(port), tried.empty() ? "(no usable address)" : tried.c_str());
}

void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get_u64(const std::string& in, size_t* pos, uint64_t* v) {
  if (in.size() < *pos + sizeof *v) return false;
  std::memcpy(v, in.data() + *pos, sizeof *v);
  *pos += sizeof *v;
  return true;
}

void put_member(std::string& out, const member& m) {
  out.append(reinterpret_cast<const char*>(&m.id), sizeof m.id);
  const uint32_t n = uint32_t(m.addr.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += m.addr;
}

bool get_member(const std::string& in, size_t* pos, member* m) {
  uint32_t n = 0;
  if (in.size() < *pos + sizeof m->id + sizeof n) return false;
  std::memcpy(&m->id, in.data() + *pos, sizeof m->id);
  std::memcpy(&n, in.data() + *pos + sizeof m->id, sizeof n);
  *pos += sizeof m->id + sizeof n;
  if (in.size() < *pos + n || m->id.job_size <= 0 || m->id.rank < 0 || m->id.rank >= m->id.job_size) return false;
  m->addr.assign(in, *pos, n);
  *pos += n;
  return true;
}

errc register_members(const std::vector<member>& ms, std::vector<int>* out) {
  out->clear();
  for (const member& m : ms) {
    int index = -1;
    if (errc e = core::proc_register(m.id, &index); e != errc::success) return e;
    if (core::proc_foreign(index)) transport::ucx::dyn_add_peer(index, m.addr);
    out->push_back(index);
  }
  return errc::success;
}

errc self_member(member* m) {
  if (errc e = transport::ucx::dyn_init(); e != errc::success) return e;
  m->id = core::proc_identity(core::rt().world_rank);
  return transport::ucx::dyn_address(m->addr);
}

uint64_t random64() {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof v, 0) != ssize_t(sizeof v)) v = now_ns() ^ (uint64_t(::getpid()) << 32);
  return v;
}

}  // namespace baton::dynamic::wire
