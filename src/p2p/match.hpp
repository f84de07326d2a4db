// Matching queues of one context: posted receives (in posting order) and unexpected messages
// (in arrival order). Both are intrusive doubly-linked lists.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "core/request.hpp"

namespace baton::p2p {

using core::request;

enum class uq_kind : uint8_t {
  eager,  // data buffered here
  rndv,   // RTS from a shared-memory peer: data still at the sender
  self,   // send to oneself: data still in the sender's buffer (sreq)
};

// An unexpected message (and, after a matched probe, the MPI_Message behind the handle).
struct unexpected {
  unexpected* next = nullptr;
  unexpected* prev = nullptr;
  uq_kind kind = uq_kind::eager;
  bool sync = false;        // sender waits for a match acknowledgement
  bool cma = false;         // rendezvous: sender's buffer readable with process_vm_readv
  int src = 0;              // rank in the communicator
  int tag = 0;
  int peer_world = -1;
  uint32_t ctx = 0;
  uint64_t len = 0;         // message bytes
  uint64_t received = 0;    // eager: bytes buffered so far
  uint64_t cookie = 0;      // sender's request
  uint64_t addr = 0;        // rendezvous: sender's buffer address
  char* data = nullptr;     // eager payload
  request* sreq = nullptr;  // self: the sending request
  char inline_data[64];     // small eager payloads avoid a malloc
};

inline bool matches(int want_src, int want_tag, int src, int tag) {
  return (want_src == src || want_src == -1) && (want_tag == tag || (want_tag == -2 && tag >= 0));
}

struct match_ctx {
  request* posted_head = nullptr;
  request* posted_tail = nullptr;
  unexpected* uq_head = nullptr;
  unexpected* uq_tail = nullptr;

  void post(request* r) {
    r->next = nullptr;
    r->prev = posted_tail;
    if (posted_tail) posted_tail->next = r; else posted_head = r;
    posted_tail = r;
  }
  void unpost(request* r) {
    if (r->prev) r->prev->next = r->next; else posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else posted_tail = r->prev;
    r->next = r->prev = nullptr;
  }
  request* find_posted(int src, int tag) const {
    for (request* r = posted_head; r; r = r->next)
      if (matches(r->peer, r->tag, src, tag)) return r;
    return nullptr;
  }
  void push_uq(unexpected* u) {
    u->next = nullptr;
    u->prev = uq_tail;
    if (uq_tail) uq_tail->next = u; else uq_head = u;
    uq_tail = u;
  }
  void remove_uq(unexpected* u) {
    if (u->prev) u->prev->next = u->next; else uq_head = u->next;
    if (u->next) u->next->prev = u->prev; else uq_tail = u->prev;
    u->next = u->prev = nullptr;
  }
  unexpected* find_uq(int src, int tag) const {
    for (unexpected* u = uq_head; u; u = u->next)
      if (matches(src, tag, u->src, u->tag)) return u;
    return nullptr;
  }
};

}  // namespace baton::p2p
