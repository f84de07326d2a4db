// Ports, MPI_Comm_accept / MPI_Comm_connect, MPI_Comm_join, and the watch over connections to
// other launches (design: comm/dynamic.hpp).
//
// Port name: "baton-port:1:<key>:<tcp port>:<addr>,<addr>..." — the key (64 random bits, hex)
// tells this port from another one that later gets the same TCP port number; the addresses are
// the opening process's IPv4 addresses, loopback last.
//
// Handshake between the roots, one frame each way on the TCP connection:
//   connector -> acceptor: "BTNC", key, the connecting group
//   acceptor -> connector: "BTNA", status (0 accepted, 1 no such port), nonce, the accepting group
// A group is its size and, in rank order, each process's identity and UCX worker address. The
// nonce seeds the tag and key of the bridge's agreement (both sides know it, nobody else does).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include "coll/among.hpp"
#include "comm/comm.hpp"
#include "comm/dynamic_wire.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::dynamic {

namespace {

struct open_port_entry {
  int fd = -1;
  uint64_t key = 0;
};

struct port_state {
  std::mutex mu;
  std::map<std::string, open_port_entry> ports;
};

port_state& ports() {
  static port_state s;
  return s;
}

constexpr const char* port_prefix = "baton-port:1:";
constexpr uint32_t status_ok = 0;
constexpr uint32_t status_no_port = 1;

struct parsed_port {
  uint64_t key = 0;
  uint16_t tcp = 0;
  std::vector<std::string> hosts;
};

errc parse_port(const std::string& name, parsed_port* p) {
  auto bad = [&](const char* why) {
    return core::error_set(errc::port, "'%.200s' is not a Baton port name (%s)", name.c_str(), why);
  };
  if (name.compare(0, std::strlen(port_prefix), port_prefix) != 0) return bad("no baton-port:1: prefix");
  const char* s = name.c_str() + std::strlen(port_prefix);
  char* end = nullptr;
  p->key = std::strtoull(s, &end, 16);
  if (end == s || *end != ':') return bad("no key");
  s = end + 1;
  const unsigned long tcp = std::strtoul(s, &end, 10);
  if (end == s || *end != ':' || tcp == 0 || tcp > 65535) return bad("no TCP port");
  p->tcp = uint16_t(tcp);
  std::string rest(end + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    if (comma == std::string::npos) comma = rest.size();
    if (comma > pos) p->hosts.push_back(rest.substr(pos, comma - pos));
    pos = comma + 1;
  }
  if (p->hosts.empty()) return bad("no address");
  return errc::success;
}

const core::datatype* byte_type() { return core::predefined_datatype(0x247); }

// The communicator's collective context as a communicator of its own (internal traffic).
struct coll_shadow {
  comm c;
  explicit coll_shadow(const comm* of) {
    c.ctx = of->ctx + 1;
    c.rank = of->rank;
    c.size = of->size;
    c.world = of->world;
    c.predefined = true;
  }
};

}  // namespace

namespace wire {
errc gather_bytes(comm* c, int root, int tag, const std::string& mine, std::vector<std::string>* all) {
  coll_shadow v(c);
  const core::datatype* bt = byte_type();
  if (c->rank != root) return p2p::send(mine.data(), int64_t(mine.size()), bt, root, tag, &v.c, core::send_mode::standard);
  all->assign(size_t(c->size), std::string());
  (*all)[size_t(root)] = mine;
  for (int r = 0; r < c->size; ++r) {
    if (r == root) continue;
    core::req_status st;
    if (errc e = p2p::probe(r, tag, &v.c, &st); e != errc::success) return e;
    std::string& s = (*all)[size_t(r)];
    s.resize(st.bytes);
    if (errc e = p2p::recv(s.data(), int64_t(s.size()), bt, r, tag, &v.c, nullptr); e != errc::success) return e;
  }
  return errc::success;
}

errc bcast_bytes(comm* c, int root, int tag, std::string* buf) {
  coll_shadow v(c);
  const core::datatype* bt = byte_type();
  if (c->rank != root) {
    core::req_status st;
    if (errc e = p2p::probe(root, tag, &v.c, &st); e != errc::success) return e;
    buf->resize(st.bytes);
    return p2p::recv(buf->data(), int64_t(buf->size()), bt, root, tag, &v.c, nullptr);
  }
  std::vector<core::request*> rs;
  errc first = errc::success;
  for (int r = 0; r < c->size && first == errc::success; ++r) {
    if (r == root) continue;
    core::request* q = nullptr;
    first = p2p::isend(buf->data(), int64_t(buf->size()), bt, r, tag, &v.c, core::send_mode::standard, &q);
    if (first == errc::success) rs.push_back(q);
  }
  for (core::request* q : rs)
    if (errc e = coll::wait_free(q); e != errc::success && first == errc::success) first = e;
  return first;
}
}  // namespace wire

namespace {
errc decode_group(const std::string& blob, std::vector<wire::member>* out) {
  size_t pos = 0;
  uint64_t n = 0;
  if (!wire::get_u64(blob, &pos, &n) || n == 0 || n > (1u << 24))
    return core::error_set(errc::port, "the other side sent a malformed group description");
  out->resize(size_t(n));
  for (auto& m : *out)
    if (!wire::get_member(blob, &pos, &m)) return core::error_set(errc::port, "the other side sent a malformed group description");
  return errc::success;
}

// Every member of c describes itself (identity, UCX address) to root, which gets the group's
// description in *group (a 64-bit count, then the members in rank order).
errc describe_group(comm* c, int root, int tag, std::string* group) {
  wire::member me;
  if (errc e = wire::self_member(&me); e != errc::success) return e;
  std::string rec;
  wire::put_member(rec, me);
  std::vector<std::string> recs;
  if (errc e = wire::gather_bytes(c, root, tag, rec, &recs); e != errc::success) return e;
  if (c->rank == root) {
    wire::put_u64(*group, uint64_t(c->size));
    for (const std::string& r : recs) *group += r;
  }
  return errc::success;
}

}  // namespace

namespace wire {
errc join_groups(comm* c, int root, const handshake_fn& handshake, comm** out) {
  *out = nullptr;
  const int tag = coll::comm_next_tag(c);
  std::string group;
  if (errc e = describe_group(c, root, tag, &group); e != errc::success) return e;
  // News from the root: error class, message, nonce, then the other group.
  std::string news;
  handshake_result hr;
  if (c->rank == root) {
    errc e = handshake(group, &hr);
    wire::put_u64(news, uint64_t(e));
    wire::put_u64(news, hr.nonce);
    const std::string msg = e == errc::success ? std::string() : core::error_message();
    wire::put_u64(news, msg.size());
    news += msg;
    news += hr.remote;
  }
  if (errc e = wire::bcast_bytes(c, root, tag, &news); e != errc::success) {
    if (hr.sock >= 0) ::close(hr.sock);
    return e;
  }
  size_t pos = 0;
  uint64_t ecode = 0, nonce = 0, mlen = 0;
  if (!wire::get_u64(news, &pos, &ecode) || !wire::get_u64(news, &pos, &nonce) || !wire::get_u64(news, &pos, &mlen) ||
      news.size() < pos + mlen)
    return core::error_set(errc::intern, "malformed news from the root of the connection");
  const std::string msg = news.substr(pos, mlen);
  pos += mlen;
  if (ecode != 0) {
    if (c->rank == root) return errc(ecode);  // its own message stands
    return core::error_set(errc(ecode), "the root (rank %d) failed: %s", root, msg.c_str());
  }
  std::vector<wire::member> remote;
  std::vector<int> remote_idx;
  errc e = decode_group(news.substr(pos), &remote);
  if (e == errc::success) e = wire::register_members(remote, &remote_idx);
  if (e == errc::success) {
    const int tagn = int(nonce & 0x3fffffffu);
    const uint64_t key = core::fnv1a(&nonce, sizeof nonce, core::fnv_offset ^ 0xd1a1ull);
    e = baton::comm::intercomm_create_from_groups(c->world, 0, remote_idx, 0, tagn, key, out);
  }
  if (e == errc::success) {
    core::comm* ic = *out;
    c->eh->retain();
    ic->eh->release();
    ic->eh = c->eh;
    ic->session = c->session;
  }
  if (hr.sock >= 0) {
    if (e == errc::success && remote[0].id.job != core::job_id())
      wire::watch(hr.sock, remote[0].id.job);
    else
      ::close(hr.sock);
  }
  return e;
}

errc accept_handshake(const std::string& port, uint64_t deadline, const std::string& group, handshake_result* hr) {
  int lfd = -1;
  uint64_t key = 0;
  {
    port_state& P = ports();
    std::lock_guard<std::mutex> g(P.mu);
    auto it = P.ports.find(port);
    if (it == P.ports.end())
      return core::error_set(errc::port, "'%.200s' is not a port this process opened (MPI_Open_port), or it was closed",
                             port.c_str());
    lfd = it->second.fd;
    key = it->second.key;
  }
  for (;;) {
    if (errc e = wire::wait_readable(lfd, deadline); e != errc::success) {
      if (e == errc::pending) return core::error_set(errc::port, "no process connected to the port in time");
      return e;
    }
    const int s = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (s < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EBADF || errno == EINVAL)
        return core::error_set(errc::port, "the port was closed while MPI_Comm_accept waited on it");
      return core::error_set(errc::other, "accept on the port failed: %s", std::strerror(errno));
    }
    std::string hello;
    // A peer that connected gets 10 s to say who it is (it sends at once).
    if (wire::recv_frame(s, wire::deadline_after(10), &hello) != errc::success || hello.size() < 12 ||
        hello.compare(0, 4, "BTNC") != 0) {
      ::close(s);  // not a Baton peer: wait for the next one
      continue;
    }
    size_t pos = 4;
    uint64_t their_key = 0;
    (void)wire::get_u64(hello, &pos, &their_key);
    std::string reply = "BTNA";
    if (their_key != key) {
      const uint32_t st = status_no_port;
      reply.append(reinterpret_cast<const char*>(&st), 4);
      (void)wire::send_frame(s, reply);
      ::close(s);
      continue;
    }
    const uint32_t st = status_ok;
    reply.append(reinterpret_cast<const char*>(&st), 4);
    hr->nonce = wire::random64();
    wire::put_u64(reply, hr->nonce);
    reply += group;
    if (errc e = wire::send_frame(s, reply); e != errc::success) {
      ::close(s);
      continue;  // the connector went away: wait for another
    }
    hr->remote = hello.substr(pos);
    hr->sock = s;
    return errc::success;
  }
}

}  // namespace wire

namespace {
using wire::handshake_result;

errc connect_handshake(const std::string& port, uint64_t deadline, const std::string& group, handshake_result* hr) {
  parsed_port pp;
  if (errc e = parse_port(port, &pp); e != errc::success) return e;
  int s = -1;
  if (errc e = wire::dial(pp.hosts, pp.tcp, deadline, &s); e != errc::success) return e;
  std::string hello = "BTNC";
  wire::put_u64(hello, pp.key);
  hello += group;
  std::string reply;
  errc e = wire::send_frame(s, hello);
  if (e == errc::success) e = wire::recv_frame(s, deadline, &reply);
  if (e != errc::success) {
    ::close(s);
    return e;
  }
  uint32_t st = 0;
  if (reply.size() >= 8) std::memcpy(&st, reply.data() + 4, 4);
  if (reply.size() < 8 || reply.compare(0, 4, "BTNA") != 0) {
    ::close(s);
    return core::error_set(errc::port, "the process at the port answered with something else than a Baton accept");
  }
  if (st == status_no_port) {
    ::close(s);
    return core::error_set(errc::port, "port '%.200s' is closed (its TCP port now belongs to another port)", port.c_str());
  }
  size_t pos = 8;
  if (!wire::get_u64(reply, &pos, &hr->nonce)) {
    ::close(s);
    return core::error_set(errc::port, "malformed answer from the accepting side");
  }
  hr->remote = reply.substr(pos);
  hr->sock = s;
  return errc::success;
}

// ---- watched connections (engine lock: the poller runs under it) ----

struct watched {
  int fd;
  uint64_t job;
};
std::vector<watched> g_watches;
unsigned g_watch_calls = 0;
uint64_t g_watch_next = 0;

bool watch_poll();

void watch_remove_locked(size_t i) {
  ::close(g_watches[i].fd);
  g_watches.erase(g_watches.begin() + long(i));
  if (g_watches.empty()) core::progress_remove_poller(watch_poll);
}

// A progress poller while connections are watched: looks at them every 16th call and at most
// every 20 ms (a clock read per 16 polls, nothing else, on the hot path).
bool watch_poll() {
  if ((++g_watch_calls & 15) != 0) return false;
  const uint64_t now = wire::now_ns();
  if (now < g_watch_next) return false;
  g_watch_next = now + 20000000;
  for (size_t i = 0; i < g_watches.size();) {
    struct pollfd p = {g_watches[i].fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) {
      ++i;
      continue;
    }
    char buf[16];
    const ssize_t n = ::recv(p.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      ++i;
      continue;
    }
    // The goodbye frame is 4 + 3 bytes ("BYE"); anything received counts as goodbye, only the
    // end of the stream with nothing before it is a death.
    if (n > 0) {
      watch_remove_locked(i);
      continue;
    }
    char line[200];
    std::snprintf(line, sizeof line,
                  "Baton: a connected launch (job %016" PRIx64 ") ended without MPI_Finalize; ending this one",
                  g_watches[i].job);
    std::fprintf(stderr, "%s\n", line);
    core::runtime_abort(1, line);
  }
  return false;
}

}  // namespace

namespace wire {
void watch(int fd, uint64_t job) {
  core::engine_guard lock;
  if (g_watches.empty()) core::progress_add_poller(watch_poll);
  g_watches.push_back(watched{fd, job});
}
}  // namespace wire

errc open_port(const info*, std::string* name) {
  int fd = -1;
  uint16_t tcp = 0;
  if (errc e = wire::listen_any(&fd, &tcp); e != errc::success) return e;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  const uint64_t key = wire::random64();
  char head[96];
  std::snprintf(head, sizeof head, "%s%016" PRIx64 ":%u:", port_prefix, key, unsigned(tcp));
  std::string n = head;
  bool first = true;
  for (const std::string& a : wire::local_addresses()) {
    if (n.size() + a.size() + 1 >= 1023) break;  // MPI_MAX_PORT_NAME
    n += (first ? "" : ",") + a;
    first = false;
  }
  port_state& P = ports();
  std::lock_guard<std::mutex> g(P.mu);
  P.ports[n] = open_port_entry{fd, key};
  *name = n;
  return errc::success;
}

errc close_port(const std::string& name) {
  port_state& P = ports();
  std::lock_guard<std::mutex> g(P.mu);
  auto it = P.ports.find(name);
  if (it == P.ports.end())
    return core::error_set(errc::port, "'%.200s' is not an open port of this process", name.c_str());
  // shutdown first: an MPI_Comm_accept polling the socket in another thread wakes and fails.
  ::shutdown(it->second.fd, SHUT_RDWR);
  ::close(it->second.fd);
  P.ports.erase(it);
  return errc::success;
}

errc accept(const std::string& port, const info* in, int root, comm* c, comm** out) {
  double t = 0;
  // Only the root's info counts; the default is to wait for a connection as long as it takes.
  if (c->rank == root)
    if (errc e = wire::timeout_of(in, "BATON_ACCEPT_TIMEOUT", 0, &t); e != errc::success) return e;
  const uint64_t deadline = wire::deadline_after(t);
  return wire::join_groups(
      c, root,
      [&](const std::string& group, handshake_result* hr) { return wire::accept_handshake(port, deadline, group, hr); },
      out);
}

errc connect(const std::string& port, const info* in, int root, comm* c, comm** out) {
  double t = 30;
  if (c->rank == root)
    if (errc e = wire::timeout_of(in, "BATON_CONNECT_TIMEOUT", 30, &t); e != errc::success) return e;
  const uint64_t deadline = wire::deadline_after(t);
  return wire::join_groups(
      c, root,
      [&](const std::string& group, handshake_result* hr) { return connect_handshake(port, deadline, group, hr); }, out);
}

errc introduce(comm* local, int leader, comm* peer, int remote_leader, int tag, std::vector<int>* remote) {
  const int t = coll::comm_next_tag(local);
  std::string group;
  if (errc e = describe_group(local, leader, t, &group); e != errc::success) return e;
  std::string news;
  if (local->rank == leader) {
    // The leaders' swap: the user's tag on peer_comm, as the rest of MPI_Intercomm_create's.
    const core::datatype* bt = byte_type();
    core::request* s = nullptr;
    std::string theirs;
    errc e = p2p::isend(group.data(), int64_t(group.size()), bt, remote_leader, tag, peer, core::send_mode::standard, &s);
    core::req_status st;
    if (e == errc::success) e = p2p::probe(remote_leader, tag, peer, &st);
    if (e == errc::success) {
      theirs.resize(st.bytes);
      e = p2p::recv(theirs.data(), int64_t(theirs.size()), bt, remote_leader, tag, peer, nullptr);
    }
    if (s)
      if (errc es = coll::wait_free(s); es != errc::success && e == errc::success) e = es;
    wire::put_u64(news, uint64_t(e));
    news += theirs;
  }
  if (errc e = wire::bcast_bytes(local, leader, t, &news); e != errc::success) return e;
  size_t pos = 0;
  uint64_t ecode = 0;
  if (!wire::get_u64(news, &pos, &ecode)) return core::error_set(errc::intern, "malformed news from the leader");
  if (ecode != 0) {
    if (local->rank == leader) return errc(ecode);
    return core::error_set(errc(ecode), "the local leader failed to exchange the groups");
  }
  std::vector<wire::member> ms;
  if (errc e = decode_group(news.substr(pos), &ms); e != errc::success) return e;
  return wire::register_members(ms, remote);
}

errc join(int fd, comm** out) {
  *out = nullptr;
  wire::member me;
  if (errc e = wire::self_member(&me); e != errc::success) return e;
  std::string mine, theirs;
  wire::put_member(mine, me);
  // Both sides write first, then read: socket buffers hold a few hundred bytes without a reader.
  int dupfd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dupfd < 0) return core::error_set(errc::arg, "fd %d is not an open descriptor", fd);
  errc e = wire::send_frame(dupfd, mine);
  double t = 30;
  if (e == errc::success) e = wire::timeout_of(nullptr, "BATON_CONNECT_TIMEOUT", 30, &t);
  if (e == errc::success) e = wire::recv_frame(dupfd, wire::deadline_after(t), &theirs);
  ::close(dupfd);
  if (e != errc::success) return e;
  wire::member peer;
  size_t pos = 0;
  if (!wire::get_member(theirs, &pos, &peer)) return core::error_set(errc::arg, "the other side of fd %d is not a Baton process in MPI_Comm_join", fd);
  if (peer.id.job == me.id.job && peer.id.rank == me.id.rank)
    return core::error_set(errc::arg, "fd %d leads back to this process: MPI_Comm_join needs two processes", fd);
  std::vector<int> idx;
  if (errc r = wire::register_members({peer}, &idx); r != errc::success) return r;
  // Both sides compute the same seed from the two identities, lower one first.
  const bool me_first = me.id.job != peer.id.job ? me.id.job < peer.id.job : me.id.rank < peer.id.rank;
  const core::proc_id ids[2] = {me_first ? me.id : peer.id, me_first ? peer.id : me.id};
  const uint64_t seed = core::fnv1a(ids, sizeof ids, core::fnv_offset ^ 0x701dull);
  const int tag = int(seed & 0x3fffffffu);
  return baton::comm::intercomm_create_from_groups({core::rt().world_rank}, 0, idx, 0, tag, seed ^ 0x55ull, out);
}

void finalize() {
  parent_release();
  {
    core::engine_guard lock;
    for (const watched& w : g_watches) {
      (void)wire::send_frame(w.fd, "BYE");
      ::close(w.fd);
    }
    if (!g_watches.empty()) core::progress_remove_poller(watch_poll);
    g_watches.clear();
  }
  port_state& P = ports();
  std::lock_guard<std::mutex> g(P.mu);
  for (auto& [n, p] : P.ports) ::close(p.fd);
  P.ports.clear();
}

}  // namespace baton::dynamic
