// Matching queues of one context: posted receives (in posting order) and unexpected messages
// (in arrival order). Both are intrusive doubly-linked lists.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <unordered_map>

#include "core/request.hpp"
#include "transport/transport.hpp"

namespace baton::p2p {

using core::request;

enum class uq_kind : uint8_t {
  eager,  // data buffered here
  rndv,   // data still at the sender: the transport named in `ref` fetches them (transport.hpp)
};

// An unexpected message (and, after a matched probe, the MPI_Message behind the handle).
struct unexpected : transport::queued {
  unexpected* next = nullptr;
  unexpected* prev = nullptr;
  uq_kind kind = uq_kind::eager;
  bool sync = false;        // sender waits for a match acknowledgement (transport::ack_match)
  int src = 0;              // rank in the communicator
  int tag = 0;
  int peer_world = -1;      // sender's process index (transport.hpp)
  uint32_t ctx = 0;
  uint64_t len = 0;         // message bytes
  uint64_t received = 0;    // eager: bytes buffered so far
  uint64_t cookie = 0;      // sender's request
  transport::rndv_ref ref;  // rendezvous: what the transport holds for the message
  char* data = nullptr;     // eager payload
  char inline_data[64];     // small eager payloads avoid a malloc
  unexpected* bnext = nullptr;  // links in the (source, tag) bucket
  unexpected* bprev = nullptr;

  // Entries come from a free list, so a message that arrives before its receive is posted costs
  // no malloc in the steady state (persistent collectives count on it). Created and destroyed
  // under the engine lock only.
  static void* operator new(size_t n) {
    if (unexpected* f = free_list()) {
      free_list() = f->next;
      return f;
    }
    return ::operator new(n);
  }
  static void operator delete(void* p) {
    auto* u = static_cast<unexpected*>(p);
    u->next = free_list();
    free_list() = u;
  }

 private:
  static unexpected*& free_list() {
    static unexpected* head = nullptr;
    return head;
  }
};

inline bool matches(int want_src, int want_tag, int src, int tag) {
  return (want_src == src || want_src == -1) && (want_tag == tag || (want_tag == -2 && tag >= 0));
}

// Both queues keep one list in order (posting order / arrival order). A short list is searched
// by walking it: a few compares beat a hash lookup (three per message: post, match, unpost). Once
// a list holds more than index_min entries, buckets by exact (source, tag) are built beside it,
// so a specific receive meeting a specific message costs one hash lookup however many operations
// are pending (100,000 nonblocking collectives post that many receives); the buckets go out of
// use (kept, empty, for reuse) when the list empties again. Wildcard receives are counted; while
// any is posted, a message scans the ordered list, which keeps the standard's order between
// wildcard and specific receives.
struct match_ctx {
  static constexpr uint32_t index_min = 16;

  request* posted_head = nullptr;
  request* posted_tail = nullptr;
  unexpected* uq_head = nullptr;
  unexpected* uq_tail = nullptr;
  uint32_t posted_wild = 0;  // posted receives with MPI_ANY_SOURCE or MPI_ANY_TAG
  uint32_t posted_n = 0;
  uint32_t uq_n = 0;
  bool posted_indexed = false;  // posted_by_key holds every specific posted receive
  bool uq_indexed = false;      // uq_by_key holds every unexpected message

  template <class T>
  struct bucket {
    T* head = nullptr;
    T* tail = nullptr;
    uint32_t pinned = 0;  // prepared receives (persistent collectives) keep the bucket alive
  };
  // The buckets by key, with the last bucket used remembered: a stream of messages on one
  // (source, tag) posts, matches and unposts in the same bucket, so it costs one compare instead
  // of a hash lookup each time. Buckets are nodes, so the pointer stays valid until its own
  // erase.
  template <class T>
  struct bucket_map {
    std::unordered_map<uint64_t, bucket<T>> m;
    uint64_t last_key = 0;
    bucket<T>* last = nullptr;
    bucket<T>& operator[](uint64_t k) {
      if (last && last_key == k) return *last;
      last = &m[k];
      last_key = k;
      return *last;
    }
    bucket<T>* find(uint64_t k) {
      if (last && last_key == k) return last;
      auto it = m.find(k);
      if (it == m.end()) return nullptr;
      last = &it->second;
      last_key = k;
      return last;
    }
    // Drops an empty, unpinned bucket once unique keys (collective tags) pile up; empty buckets
    // are otherwise kept for reuse (a ping-pong on one tag allocates nothing).
    void release(uint64_t k, bucket<T>& b) {
      if (b.head || b.pinned || m.size() <= 256) return;
      if (last == &b) last = nullptr;
      m.erase(k);
    }
  };
  bucket_map<request> posted_by_key;
  bucket_map<unexpected> uq_by_key;

  static uint64_t key(int src, int tag) { return (uint64_t(uint32_t(src)) << 32) | uint32_t(tag); }
  static bool wild(const request* r) { return r->peer == -1 || r->tag == -2; }

  template <class T>
  static void bucket_push(bucket<T>& b, T* x) {
    x->bnext = nullptr;
    x->bprev = b.tail;
    if (b.tail) b.tail->bnext = x; else b.head = x;
    b.tail = x;
  }
  template <class T>
  static void bucket_remove(bucket_map<T>& m, uint64_t k, T* x) {
    bucket<T>& b = *m.find(k);
    if (x->bprev) x->bprev->bnext = x->bnext; else b.head = x->bnext;
    if (x->bnext) x->bnext->bprev = x->bprev; else b.tail = x->bprev;
    x->bnext = x->bprev = nullptr;
    m.release(k, b);
  }

  void post(request* r) {
    r->next = nullptr;
    r->prev = posted_tail;
    if (posted_tail) posted_tail->next = r; else posted_head = r;
    posted_tail = r;
    ++posted_n;
    if (wild(r)) {
      ++posted_wild;
    } else if (posted_indexed) {
      bucket_push(posted_by_key[key(r->peer, r->tag)], r);
    } else if (posted_n > index_min) {
      for (request* x = posted_head; x; x = x->next)
        if (!wild(x)) bucket_push(posted_by_key[key(x->peer, x->tag)], x);
      posted_indexed = true;
    }
  }
  void unpost(request* r) {
    if (r->prev) r->prev->next = r->next; else posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else posted_tail = r->prev;
    r->next = r->prev = nullptr;
    --posted_n;
    if (wild(r)) --posted_wild;
    else if (posted_indexed) bucket_remove(posted_by_key, key(r->peer, r->tag), r);
    if (posted_n == 0) posted_indexed = false;  // every bucket is empty now
  }
  request* find_posted(int src, int tag) {
    if (!posted_head) return nullptr;
    // The earliest posted receive matches first (in-order streams: the usual case).
    if (matches(posted_head->peer, posted_head->tag, src, tag)) return posted_head;
    if (posted_indexed && posted_wild == 0) {
      bucket<request>* b = posted_by_key.find(key(src, tag));
      return b ? b->head : nullptr;
    }
    for (request* r = posted_head; r; r = r->next)
      if (matches(r->peer, r->tag, src, tag)) return r;
    return nullptr;
  }
  void push_uq(unexpected* u) {
    u->next = nullptr;
    u->prev = uq_tail;
    if (uq_tail) uq_tail->next = u; else uq_head = u;
    uq_tail = u;
    ++uq_n;
    if (uq_indexed) {
      bucket_push(uq_by_key[key(u->src, u->tag)], u);
    } else if (uq_n > index_min) {
      for (unexpected* x = uq_head; x; x = x->next) bucket_push(uq_by_key[key(x->src, x->tag)], x);
      uq_indexed = true;
    }
  }
  void remove_uq(unexpected* u) {
    if (u->prev) u->prev->next = u->next; else uq_head = u->next;
    if (u->next) u->next->prev = u->prev; else uq_tail = u->prev;
    u->next = u->prev = nullptr;
    --uq_n;
    if (uq_indexed) bucket_remove(uq_by_key, key(u->src, u->tag), u);
    if (uq_n == 0) uq_indexed = false;
  }
  // A receive prepared once and started many times: its buckets exist from now on, so neither a
  // post nor an early arrival allocates, whether or not the lists are indexed at the time.
  // unpin() undoes one pin().
  void pin(int src, int tag) {
    ++posted_by_key[key(src, tag)].pinned;
    ++uq_by_key[key(src, tag)].pinned;
  }
  void unpin(int src, int tag) {
    --posted_by_key[key(src, tag)].pinned;
    --uq_by_key[key(src, tag)].pinned;
  }
  unexpected* find_uq(int src, int tag) {
    if (!uq_head) return nullptr;
    // The earliest unexpected message matches first (in-order streams: the usual case).
    if (matches(src, tag, uq_head->src, uq_head->tag)) return uq_head;
    if (uq_indexed && src != -1 && tag != -2) {
      bucket<unexpected>* b = uq_by_key.find(key(src, tag));
      return b ? b->head : nullptr;
    }
    for (unexpected* u = uq_head; u; u = u->next)
      if (matches(src, tag, u->src, u->tag)) return u;
    return nullptr;
  }
};

}  // namespace baton::p2p
