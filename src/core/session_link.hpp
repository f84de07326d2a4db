// What the communicators derived from a session share with it (src/comm/session.hpp owns the
// session itself). A group made from a session's process set carries the link, groups and
// communicators made from it inherit it, so a buffered send on such a communicator finds the
// session's buffer (MPI-4.1 3.6). The link outlives the session while any holder remains; after
// MPI_Session_finalize its buffer is gone (nullptr).
#pragma once

namespace baton::p2p {
struct bsend_buffer;  // src/p2p/bsend.cpp
}

namespace baton::core {

struct session_link {
  p2p::bsend_buffer* bsend = nullptr;  // MPI_Session_attach_buffer; engine lock
};

}  // namespace baton::core
