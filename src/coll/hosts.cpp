#include "coll/hosts.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/comm.hpp"
#include "core/runtime.hpp"

namespace baton::coll {

namespace {
// BATON_COLL_HOSTS: host labels per world rank (cyclic), read once; empty when unset or malformed.
const std::vector<long>& fake_labels() {
  static const std::vector<long> labels = [] {
    std::vector<long> out;
    const char* v = std::getenv("BATON_COLL_HOSTS");
    if (!v || !*v) return out;
    const char* p = v;
    while (*p) {
      char* end = nullptr;
      const long x = std::strtol(p, &end, 10);
      if (end == p) return std::vector<long>{};  // not a number: ignored as a whole
      out.push_back(x);
      p = end;
      if (*p == ',') ++p;
    }
    return out;
  }();
  return labels;
}

long host_label(int world) {
  const std::vector<int>& hosts = core::rt().host_of_world;
  const std::vector<long>& fake = fake_labels();
  if (!fake.empty()) return fake[size_t(world) % fake.size()];
  return hosts[size_t(world)];
}

std::shared_ptr<const host_layout> compute(const core::comm* c) {
  auto L = std::make_shared<host_layout>();
  const int n = c->size;
  // A communicator with processes of other launches (dynamic processes: indices past this
  // launch's world): each process knows the hosts of its own launch only, so the members would
  // compute different layouts and pick different algorithms. Every member sees some process of
  // another launch, so all of them take the same answer: every rank a host of its own (flat
  // algorithms; those processes are reached through UCX anyway).
  bool spans_launches = false;
  for (int r = 0; r < n && !spans_launches; ++r)
    spans_launches = size_t(c->world_rank(r)) >= core::rt().host_of_world.size();
  L->host_of.assign(size_t(n), 0);
  L->index_of.assign(size_t(n), 0);
  std::unordered_map<long, int> number;  // label -> host index
  std::vector<int> count;
  for (int r = 0; r < n; ++r) {
    const long label = spans_launches ? long(r) : host_label(c->world_rank(r));
    const auto [it, fresh] = number.try_emplace(label, int(count.size()));
    if (fresh) count.push_back(0);
    const int h = it->second;
    L->host_of[size_t(r)] = h;
    L->index_of[size_t(r)] = count[size_t(h)]++;
    // blocked: a rank's host is its predecessor's, or a host not seen before
    if (r > 0 && h != L->host_of[size_t(r) - 1] && !fresh) L->blocked = false;
  }
  L->nhosts = int(count.size());
  L->first.assign(size_t(L->nhosts) + 1, 0);
  for (int h = 0; h < L->nhosts; ++h) {
    L->first[size_t(h) + 1] = L->first[size_t(h)] + count[size_t(h)];
    if (count[size_t(h)] > L->max_per_host) L->max_per_host = count[size_t(h)];
  }
  L->members.assign(size_t(n), 0);
  for (int r = 0; r < n; ++r) L->members[size_t(L->first[size_t(L->host_of[size_t(r)])]) + size_t(L->index_of[size_t(r)])] = r;
  return L;
}
}  // namespace

const host_layout& hosts_of(core::comm* c) {
  if (!c->coll_hosts) c->coll_hosts = compute(c);
  return *static_cast<const host_layout*>(c->coll_hosts.get());
}

bool hier_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BATON_COLL_HIER");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

bool spans_hosts(core::comm* c) {
  if (!hier_enabled() || c->size < 3) return false;
  const host_layout& L = hosts_of(c);
  return L.nhosts > 1 && L.max_per_host > 1;
}

long long hier_segment_bytes() {
  static const long long bytes = [] {
    const char* v = std::getenv("BATON_COLL_HIER_SEGMENT");
    const long long x = v && *v ? std::atoll(v) : (128LL << 10);
    return x < 4096 ? 4096LL : x;
  }();
  return bytes;
}

}  // namespace baton::coll
