// baton-nameserver: a stand-alone name service for MPI_Publish_name / MPI_Lookup_name /
// MPI_Unpublish_name, for jobs started by different launchers (docs/dynamic.md).
//
//   baton-nameserver [--port N] [--host ADDR] [--address-file FILE]
//
// Listens on TCP (every address, port N or one the kernel picks), prints "ADDR:PORT" on its first
// stdout line (and into FILE) and serves until SIGINT / SIGTERM. Jobs find it through
// BATON_NAMESERVER=ADDR:PORT. Each request is one connection, one frame each way (a 32-bit
// big-endian length, then the bytes; fields separated by NUL):
//   "P" service NUL port -> "K" | "E" message   publish (refused if already published)
//   "U" service          -> "K" | "E" message   unpublish
//   "L" service          -> "K" port | "E" message
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct client {
  int fd;
  std::string in, out;
};

std::string first_address() {
  std::string out = "127.0.0.1";
  struct ifaddrs* ifs = nullptr;
  if (::getifaddrs(&ifs) != 0) return out;
  for (struct ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    const auto* sin = reinterpret_cast<const struct sockaddr_in*>(i->ifa_addr);
    if (ntohl(sin->sin_addr.s_addr) >> 24 == 127) continue;
    char buf[INET_ADDRSTRLEN];
    if (::inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) {
      out = buf;
      break;
    }
  }
  ::freeifaddrs(ifs);
  return out;
}

std::string frame(const std::string& body) {
  const uint32_t n = htonl(uint32_t(body.size()));
  return std::string(reinterpret_cast<const char*>(&n), 4) + body;
}

// The answer to one request.
std::string serve(std::map<std::string, std::string>& names, const std::string& req) {
  if (req.empty()) return "Eempty request";
  const std::string body = req.substr(1);
  const size_t nul = body.find('\0');
  const std::string service = body.substr(0, nul);
  switch (req[0]) {
    case 'P': {
      if (nul == std::string::npos) return "Eno port given";
      if (names.count(service)) return "Eservice '" + service + "' is already published";
      names[service] = body.substr(nul + 1);
      return "K";
    }
    case 'U':
      return names.erase(service) ? "K" : "Eservice '" + service + "' is not published";
    case 'L': {
      auto it = names.find(service);
      return it == names.end() ? "Eservice '" + service + "' is not published" : "K" + it->second;
    }
    default:
      return "Eunknown request";
  }
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  std::string host, address_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--port" && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (a == "--host" && i + 1 < argc) {
      host = argv[++i];
    } else if (a == "--address-file" && i + 1 < argc) {
      address_file = argv[++i];
    } else {
      std::fprintf(stderr, "usage: baton-nameserver [--port N] [--host ADDR] [--address-file FILE]\n");
      return 2;
    }
  }
  if (host.empty()) host = first_address();
  const int ls = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  sa.sin_port = htons(uint16_t(port));
  socklen_t len = sizeof sa;
  if (ls < 0 || ::bind(ls, reinterpret_cast<struct sockaddr*>(&sa), sizeof sa) != 0 || ::listen(ls, 64) != 0 ||
      ::getsockname(ls, reinterpret_cast<struct sockaddr*>(&sa), &len) != 0) {
    std::fprintf(stderr, "baton-nameserver: cannot listen on port %d: %s\n", port, std::strerror(errno));
    return 1;
  }
  const std::string where = host + ":" + std::to_string(ntohs(sa.sin_port));
  std::printf("%s\n", where.c_str());
  std::fflush(stdout);
  if (!address_file.empty()) {
    const std::string tmp = address_file + ".tmp";
    if (FILE* f = std::fopen(tmp.c_str(), "w")) {
      std::fprintf(f, "%s\n", where.c_str());
      std::fclose(f);
      std::rename(tmp.c_str(), address_file.c_str());
    }
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  const int sfd = ::signalfd(-1, &set, SFD_CLOEXEC);
  ::signal(SIGPIPE, SIG_IGN);
  std::map<std::string, std::string> names;
  std::vector<client> clients;
  for (;;) {
    std::vector<pollfd> fds{{sfd, POLLIN, 0}, {ls, POLLIN, 0}};
    for (const client& c : clients) fds.push_back({c.fd, short(c.out.empty() ? POLLIN : POLLOUT), 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return 1;
    if (fds[0].revents) break;
    if (fds[1].revents) {
      const int c = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (c >= 0) clients.push_back({c, {}, {}});
    }
    for (size_t i = fds.size() - 1; i >= 2; --i) {
      client& c = clients[i - 2];
      bool done = false;
      if (fds[i].revents & POLLOUT) {
        const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n > 0) c.out.erase(0, size_t(n));
        done = n < 0 || c.out.empty();
      } else if (fds[i].revents) {
        char buf[4096];
        const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n <= 0) {
          done = true;
        } else {
          c.in.append(buf, size_t(n));
          uint32_t want = 0;
          if (c.in.size() >= 4) {
            std::memcpy(&want, c.in.data(), 4);
            want = ntohl(want);
            if (want > (1u << 20)) done = true;
            else if (c.in.size() >= 4 + want) c.out = frame(serve(names, c.in.substr(4, want)));
          }
        }
      }
      if (done) {
        ::close(c.fd);
        clients.erase(clients.begin() + long(i - 2));
      }
    }
  }
  return 0;
}
