// What this rank's point-to-point engine waits on, for the stall watchdog (core/stall.hpp):
// posted receives (source, tag, communicator; collective and other internal traffic named as
// such) and sends held up by their peer (rendezvous sends not yet received, messages waiting for
// room in the peer's ring).
#include <cstdio>
#include <string>

#include "core/comm.hpp"
#include "core/runtime.hpp"
#include "core/stall.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/p2p.hpp"
#include "transport/shm/shm.hpp"

namespace baton::p2p {

namespace {
constexpr int max_items = 16;  // a report stays readable; the rest is counted

std::string comm_text(const core::comm* c) {
  if (c == nullptr) return "an unknown communicator";
  if (!c->name.empty()) return c->name + " (context " + std::to_string(c->ctx) + ")";
  return "communicator of " + std::to_string(c->size) + " ranks (context " + std::to_string(c->ctx) + ")";
}

// What traffic context `ctx` carries for communicator c.
std::string traffic(uint32_t ctx, const core::comm* c, int tag) {
  if (c == nullptr || ctx == c->ctx) return "receive";
  if (ctx == c->ctx + 1)
    return tag >= 0 ? "collective step (sequence " + std::to_string((tag >> 12) & 0x3ffff) + ") receive"
                    : "persistent collective or communicator-creation receive";
  if (ctx == c->ctx + 32768 || ctx == c->ctx + 32769) return "matched (MPI_Match) handshake receive";
  if (ctx == c->ctx + 65536 || ctx == c->ctx + 65537) return "partitioned receive";
  if (ctx == c->ctx + 98304)
    return "agreement (MPIX_Comm_agree " + std::to_string((tag >> 12) & 0x3ffff) + ") receive";
  return "internal receive (context " + std::to_string(ctx) + ")";
}

void describe(std::string& out) {
  engine& e = eng();
  int items = 0, more = 0;
  auto add = [&](const std::string& s) {
    if (items++ >= max_items) {
      ++more;
      return;
    }
    if (!out.empty()) out += "; ";
    out += s;
  };
  for (uint32_t ctx = 0; ctx < e.ctxs.size(); ++ctx) {
    const match_ctx* m = e.ctxs[ctx];
    if (m == nullptr) continue;
    for (const request* r = m->posted_head; r; r = r->next) {
      std::string s = traffic(ctx, r->c, r->tag) + " from ";
      s += r->peer == -1 ? "any rank" : "rank " + std::to_string(r->peer);
      s += r->tag == -2 ? ", any tag" : ", tag " + std::to_string(r->tag);
      s += ", on " + comm_text(r->c);
      add(s);
    }
  }
  if (const transport::shm::state* sh = transport::shm::g_state)
    for (const transport::shm::peer_state& p : sh->peers) {
      const int w = p.proc;
      if (p.rndv_out > 0)
        add(std::to_string(p.rndv_out) + " large send" + (p.rndv_out == 1 ? "" : "s") + " to world rank " +
            std::to_string(w) + " not yet received there");
      if (p.outq.size() > 0)
        add(std::to_string(p.outq.size()) + " message" + (p.outq.size() == 1 ? "" : "s") + " to world rank " +
            std::to_string(w) + " waiting for room in its ring");
    }
  if (more > 0) out += "; and " + std::to_string(more) + " more";
}
}  // namespace

void stall_describer_register() { core::stall_add_describer(describe); }

}  // namespace baton::p2p
