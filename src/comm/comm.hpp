// Communicator construction (the comm layer: above point-to-point and the collectives, below the C
// binding). Every constructor here is collective: it agrees a context pair with the other members
// (comm_context.cpp) and exchanges what the new communicator needs over internal point-to-point or
// collectives. The communicator object itself (fields, reference count, attributes) is core's
// (core/comm.hpp); topologies are in comm/topo.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace baton::comm {

using core::comm;  // the object, so that `comm` below names it and not this namespace
using core::errc;
using core::request;

// Builds a communicator over the given world ranks with a context agreed by the parent's members.
// Collective over `parent`; `members` is this rank's new group (empty: this rank gets no comm).
// comm_dup, comm_split, comm_create and the idup pair also take an intercommunicator parent (see
// intercomm_dup and the others below).
[[nodiscard]] errc comm_dup(comm* parent, comm** out);
// What dup and idup make of an intracommunicator `parent`: the same group, error handler,
// topology and session, with context `ctx` (not collective).
comm* comm_copy(comm* parent, uint32_t ctx);
[[nodiscard]] errc comm_split(comm* parent, int color, int key, comm** out);
// MPI_Comm_create: collective over `parent`; `members` (world ranks, this rank's group, possibly
// different but disjoint on other ranks) must be parent members. *out is nullptr for non-members.
[[nodiscard]] errc comm_create(comm* parent, const std::vector<int>& members, comm** out);
// MPI_Comm_create_group: collective over `members` only (world ranks, all of them in `parent`, the
// caller among them). The agreement runs on the parent's collective context with tag
// core::create_group_tag(tag).
[[nodiscard]] errc comm_create_group(comm* parent, const std::vector<int>& members, int tag, comm** out);
// MPI_Comm_create_from_group: collective over `members` only (world ranks, the caller among them),
// with no parent: the agreement runs over rt().processes (a context no user communicator has) with
// tag create_group_tag(tag), `tag` being derived from the string tag. First the first member
// gathers every member's `key` (a digest of the string tag and the member list): if they differ,
// every member fails with errc::not_same. *out gets the caller's error handler set by the caller.
[[nodiscard]] errc comm_create_from_group(const std::vector<int>& members, int tag, uint64_t key, comm** out);
// The same from the user's string tag (`len` characters, NUL-terminated): the agreement's tag
// comes from the string tag alone (so that different tags seldom meet), the key every member
// checks with the first one from the whole string and the member list.
[[nodiscard]] errc comm_create_from_stringtag(const std::vector<int>& members, const char* stringtag, size_t len,
                                              comm** out);

// Intercommunicators (intercomm.cpp). The bridge of an intercommunicator puts first the group whose
// leader has the lower world rank (Intercomm_create, Intercomm_create_from_groups); communicators
// derived from an intercommunicator (dup, idup, split, create) keep their parent's bridge order.
// The intercommunicator's point-to-point context is its bridge's (c->ctx == bridge->ctx): the
// bridge's own point-to-point is never used, and its collective context (ctx + 1) carries the
// intercommunicator's collectives and the internal agreements of dup/split/merge.
// MPI_Intercomm_create: collective over `local` (an intracommunicator); only the local leader
// uses `peer`, `remote_leader` and `tag` (its exchange with the remote leader runs over `peer`'s
// point-to-point context with `tag`, as the standard says). `leader_error` is the local leader's
// verdict on its own arguments: when it is not success, the leader skips the exchange and every
// member of `local` fails with it.
[[nodiscard]] errc intercomm_create(comm* local, int local_leader, comm* peer, int remote_leader, int tag,
                                    errc leader_error, comm** out);
// MPI_Intercomm_create_from_groups: `local` / `remote` are world ranks (disjoint, the caller in
// `local`); `tag` and `key` derived from the string tag as for comm_create_from_group.
[[nodiscard]] errc intercomm_create_from_groups(const std::vector<int>& local, int local_leader,
                                                const std::vector<int>& remote, int remote_leader, int tag,
                                                uint64_t key, comm** out);
// The same from the user's string tag (`len` characters, NUL-terminated): the tag comes from the
// string tag (with another seed than comm_create_from_stringtag's, so the two seldom meet), the key
// from the string tag and both groups (intercomm_create_from_groups adds the bridge's member
// order): every member of both groups must pass the same string tag and the same two groups
// (swapped on the other side).
[[nodiscard]] errc intercomm_create_from_stringtag(const std::vector<int>& local, int local_leader,
                                                   const std::vector<int>& remote, int remote_leader,
                                                   const char* stringtag, size_t len, comm** out);
// MPI_Intercomm_merge: collective over both groups of `ic`.
[[nodiscard]] errc intercomm_merge(comm* ic, bool high, comm** out);
// What comm_dup, comm_split, comm_create and comm_idup_prepare do when their parent is an
// intercommunicator (they call these): the result is an intercommunicator (nullptr where the
// standard gives MPI_COMM_NULL). intercomm_create_sub takes this side's group (world ranks, a
// subset of the local group); it is a split with color 0 for the group's members, keyed by their
// position in it.
[[nodiscard]] errc intercomm_dup(comm* ic, comm** out);
[[nodiscard]] errc intercomm_split(comm* ic, int color, int key, comm** out);
[[nodiscard]] errc intercomm_create_sub(comm* ic, const std::vector<int>& members, comm** out);
comm* intercomm_idup_prepare(comm* ic);

// MPI_Comm_idup in two steps: comm_idup_prepare makes the new communicator (its ctx is
// context_none: unusable until the request completes), the caller copies attributes and hints onto
// it, then comm_idup starts the agreement (collective over `parent`) and gives a collective-kind
// request that completes when the context is set (status.error says if the agreement failed). If
// the caller fails between the two, it still starts the agreement (the other ranks need it) and
// abandons the request with comm_idup_abandon (freed when the agreement ends).
comm* comm_idup_prepare(comm* parent);
[[nodiscard]] errc comm_idup(comm* parent, comm* c, request** req);
void comm_idup_abandon(request* req);

// Context agreement (comm_context.cpp) over the process's free mask of context pairs (core's:
// core::context_mask_read, context_reserve). An agreement runs in rounds over the members, as
// internal point-to-point on the parent's collective context with one tag (the parent's collective
// sequence, or create_group_tag): every member sends the root its free mask of the portions it owns
// (zeros elsewhere) and the ownership flags; the root ANDs them and sends back the lowest common
// free pair, or "retry". A process lends each portion to one agreement at a time, so concurrent
// agreements never pick the same pair. Round 0 uses the eager portion if it is free (one round in
// the common case); it also proves that every member has started the agreement, so from round 1 on
// an agreement never waits on a rank that has not joined. In round 1 and later the main portion
// (and the eager one, if free) goes to this process's highest-priority pending agreement, priority
// being (parent context, tag), the same order on every process: the highest agreement pending
// anywhere gets the portion on all its members within a round or two, then the next, so concurrent
// agreements over overlapping communicators never livelock or deadlock. Rounds advance from the
// progress engine (request callbacks only count and queue), so MPI_Comm_idup is truly nonblocking;
// the blocking constructors start an agreement and wait.
// Agreed over all of `parent` (blocking; consumes one collective sequence number).
[[nodiscard]] errc comm_agree_context(comm* parent, uint32_t* ctx);
// The same over a subset of the parent: `members` are parent ranks (ascending order is not
// required, but every member must pass the same list), `tag` is used on the collective context.
[[nodiscard]] errc comm_agree_context_among(comm* parent, const std::vector<int>& members, int tag, uint32_t* ctx);

}  // namespace baton::comm
