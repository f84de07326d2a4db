// How a communicator's ranks sit on hosts, for the host-aware (two-level) collectives
// (src/coll/algorithms/two_level.hpp).
//
// Every rank knows every rank's host (core::rt().host_of_world, from the host names published at
// start-up), so every rank computes the same layout without talking; it is computed on a
// communicator's first use and kept with it (comm::coll_hosts).
//
// Hosts are numbered in order of their lowest communicator rank; a host's members are listed in
// rank order, and the first is its leader (rooted collectives may pick another, see
// two_level.hpp). "Host order" lists the members of host 0, then of host 1, ...: a position in it
// is where a rank's block sits in the leaders' aggregated buffers.
//
// Testing knob: BATON_COLL_HOSTS=<l0>,<l1>,... makes the collectives (and nothing else) see world
// rank w on the host labelled l[w % count], so every layout (3+1, interleaved, one rank per host)
// runs on one machine; the transports still see the real hosts.
#pragma once

#include <cstddef>
#include <vector>

namespace baton::core {
class comm;
}

namespace baton::coll {

struct host_layout {
  int nhosts = 1;
  int max_per_host = 1;
  // Each host's members are consecutive ranks (host order is rank order): reductions with a
  // non-commutative op may combine per host, then across hosts, and keep rank order.
  bool blocked = true;
  std::vector<int> host_of;   // rank -> host
  std::vector<int> index_of;  // rank -> its index among its host's members
  std::vector<int> first;     // host -> offset of its members in `members` (nhosts + 1 entries)
  std::vector<int> members;   // ranks in host order

  int host_size(int h) const { return first[std::size_t(h) + 1] - first[std::size_t(h)]; }
  int member(int h, int i) const { return members[std::size_t(first[std::size_t(h)]) + std::size_t(i)]; }
  const int* members_of(int h) const { return members.data() + first[std::size_t(h)]; }
  int leader(int h) const { return member(h, 0); }
  // Position of rank r in host order.
  int position(int r) const { return first[std::size_t(host_of[std::size_t(r)])] + index_of[std::size_t(r)]; }
};

// The layout of c's ranks (computed once per communicator; engine lock held or c private to the
// caller).
const host_layout& hosts_of(core::comm* c);

// Whether c's ranks span more than one host with more than one rank on at least one of them, and
// the automatic choice of the two-level algorithms is on (BATON_COLL_HIER, default 1): then the
// two-level algorithms are preferred.
bool spans_hosts(core::comm* c);
// BATON_COLL_HIER=0 turns the automatic choice off (forcing an algorithm still works).
bool hier_enabled();
// Bytes per pipelined segment of the two-level bcast, reduce and allreduce
// (BATON_COLL_HIER_SEGMENT, default 128 KiB; at least 4 KiB).
long long hier_segment_bytes();

// Bytes and messages the collectives have sent to ranks on other hosts (as the transports see
// hosts), counted by the executor's send steps: the MPI_T counters baton_coll_remote_bytes and
// baton_coll_remote_messages.
unsigned long long coll_remote_bytes();
unsigned long long coll_remote_messages();

}  // namespace baton::coll
