// The MPI_T variables Baton exposes (see abi_tool.hpp; documented in docs/mpit.md). Each reads
// the value the library itself uses, through the accessor of the code that owns it.
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "abi/abi_tool.hpp"
#include "coll/coll.hpp"
#include "coll/hosts.hpp"
#include "coll/shm_region.hpp"
#include "core/copy.hpp"
#include "core/progress.hpp"
#include "core/request.hpp"
#include "core/runtime.hpp"
#include "p2p/p2p.hpp"

namespace baton::abi::tool {

static_assert(sizeof(unsigned long) == sizeof(uint64_t), "u64 variables are MPI_UNSIGNED_LONG");

namespace {

const enum_type g_switch{"baton_switch", {{0, "off"}, {1, "on"}}};
const enum_type g_thread_level{"baton_thread_level",
                               {{-1, "none"},
                                {0, "MPI_THREAD_SINGLE"},
                                {1, "MPI_THREAD_FUNNELED"},
                                {2, "MPI_THREAD_SERIALIZED"},
                                {3, "MPI_THREAD_MULTIPLE"}}};

std::string upper(const char* s) {
  std::string u;
  for (; *s; ++s) u += char(std::toupper(static_cast<unsigned char>(*s)));
  return u;
}

std::string transport_choice() {
  const char* t = std::getenv("BATON_TRANSPORT");
  return t && *t ? t : "auto";
}

struct builder {
  registry r;

  int add_category(const char* name, const char* desc) {
    category c;
    c.name = name;
    c.desc = desc;
    r.categories.push_back(std::move(c));
    return int(r.categories.size()) - 1;
  }
  void add_cvar(int cat, cvar v) {
    r.categories[size_t(cat)].cvars.push_back(int(r.cvars.size()));
    r.cvars.push_back(std::move(v));
  }
  void add_pvar(int cat, pvar v) {
    r.categories[size_t(cat)].pvars.push_back(int(r.pvars.size()));
    r.pvars.push_back(std::move(v));
  }
  static cvar num(const char* name, value_kind kind, int verbosity, int scope, std::string desc,
                  std::function<int64_t()> read, const enum_type* e = nullptr) {
    cvar v;
    v.name = name;
    v.desc = std::move(desc);
    v.kind = kind;
    v.verbosity = verbosity;
    v.scope = scope;
    v.enumtype = e;
    v.read_num = std::move(read);
    return v;
  }
  static pvar level(const char* name, std::string desc, std::function<uint64_t()> read) {
    pvar v;
    v.name = name;
    v.desc = std::move(desc);
    v.read = std::move(read);
    return v;
  }
  // A counter that counts while its handle is started (read gives the running total; the handle
  // keeps the offset): stopped at 0, writable, resettable.
  static pvar counter(const char* name, std::string desc, std::function<uint64_t()> read) {
    pvar v = level(name, std::move(desc), std::move(read));
    v.var_class = MPI_T_PVAR_CLASS_COUNTER;
    v.verbosity = MPI_T_VERBOSITY_USER_DETAIL;
    v.readonly = false;
    v.continuous = false;
    v.atomic = true;
    return v;
  }

  builder() {
    r.enums = {&g_switch, &g_thread_level};
    const int p2p = add_category("baton_p2p", "Point-to-point engine: matching queues and protocols");
    const int shm = add_category("baton_shm", "Shared-memory transport between ranks on one host");
    const int coll = add_category("baton_coll", "Collective operations");
    const int alg = add_category("baton_coll_algorithm", "Algorithm overrides of the collective operations");
    const int progress = add_category("baton_progress", "Progress, waiting and threads");
    const int request = add_category("baton_request", "Request objects");
    r.categories[size_t(p2p)].categories.push_back(shm);
    r.categories[size_t(coll)].categories.push_back(alg);

    // ---- baton_shm ----
    add_cvar(shm, num("baton_shm_eager_max", value_kind::u64, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY,
                      "Largest message in bytes sent eagerly between ranks on one host (the data travels with "
                      "the envelope through the shared-memory ring); larger messages use the rendezvous "
                      "protocol. BATON_SHM_EAGER_MAX, default 32768, taken at MPI_Init; must be the same on "
                      "every rank.",
                      [] { return int64_t(p2p::engine_limits_now().shm_eager_max); }));
    add_cvar(shm, num("baton_shm_cma_min", value_kind::u64, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY,
                      "Smallest contiguous rendezvous message in bytes that the receiver reads from the "
                      "sender's memory with one process_vm_readv copy (where baton_shm_cma allows it); "
                      "smaller ones stream through the pair's bulk channel. BATON_SHM_CMA_MIN, default 0, "
                      "taken at MPI_Init.",
                      [] { return int64_t(p2p::engine_limits_now().shm_cma_min); }));
    add_cvar(shm, num("baton_shm_cma", value_kind::i32, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_CONSTANT,
                      "Whether single copies between processes (process_vm_readv/writev) may be used, by "
                      "rendezvous messages and single-copy collectives: 1 (on) unless BATON_SHM_CMA=0. Read "
                      "once.",
                      [] { return int64_t(core::cma_wanted() ? 1 : 0); }, &g_switch));
    add_cvar(shm, num("baton_shm_coop_min", value_kind::u64, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY,
                      "Smallest contiguous rendezvous message in bytes that both ends copy together (the "
                      "receiver hands the sender half of the copy); 0: never. BATON_SHM_COOP_MIN, default "
                      "262144, taken at MPI_Init.",
                      [] { return int64_t(p2p::engine_limits_now().shm_coop_min); }));

    // ---- baton_p2p ----
    add_cvar(p2p, num("baton_ucx_eager_max", value_kind::u64, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_READONLY,
#ifdef BATON_HAVE_UCX
                      "Largest message in bytes sent eagerly through the UCX transport (ranks on other hosts, "
                      "or every other rank with BATON_TRANSPORT=ucx); larger messages use rendezvous. "
                      "BATON_UCX_EAGER_MAX, default 65536, taken at MPI_Init.",
#else
                      "Largest message in bytes sent eagerly through the UCX transport; unused: this build "
                      "has no UCX. BATON_UCX_EAGER_MAX, default 65536.",
#endif
                      [] { return int64_t(p2p::engine_limits_now().ucx_eager_max); }));
    {
      cvar v;
      v.name = "baton_transport";
      v.desc =
          "Transport choice: auto (shared memory within a host, UCX between hosts), shm, or ucx (every other "
          "rank through UCX). BATON_TRANSPORT, default auto, taken at MPI_Init.";
      v.kind = value_kind::str;
      v.verbosity = MPI_T_VERBOSITY_USER_BASIC;
      v.scope = MPI_T_SCOPE_READONLY;
      v.read_str = transport_choice;
      v.str_min = 5;
      add_cvar(p2p, std::move(v));
    }
    add_pvar(p2p, level("baton_p2p_unexpected_queued",
                        "Messages that arrived before a matching receive was posted and wait in the unexpected "
                        "queues (all communicators).",
                        [] { return p2p::engine_queues_now().unexpected; }));
    add_pvar(p2p, level("baton_p2p_posted_queued",
                        "Receives posted and not yet matched by a message, in the posted queues (all "
                        "communicators).",
                        [] { return p2p::engine_queues_now().posted; }));
    add_pvar(p2p, level("baton_p2p_sends_pending", "Point-to-point sends started and not yet complete.",
                        [] { return p2p::engine_queues_now().pending_sends; }));
    add_pvar(p2p, counter("baton_p2p_fetches_handed_over",
                          "Rendezvous messages of 64 KiB or more that had arrived when a nonblocking receive "
                          "(MPI_Irecv, MPI_Start) matched them while the progress thread runs: their data were "
                          "copied by the next poll (the progress thread's, or a wait's), not inside the receive "
                          "call, while the handle is started; starts stopped at 0, can be written and reset.",
                          [] { return p2p::engine_queues_now().fetches_handed_over; }));

    // ---- baton_coll ----
    add_cvar(coll, num("baton_coll_shm", value_kind::i32, MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_SCOPE_CONSTANT,
                       "Whether collectives over a communicator whose ranks all share a host may use a "
                       "shared-memory region of the communicator's own: 1 (on) unless BATON_COLL_SHM=0. Read "
                       "once.",
                       [] { return int64_t(coll::shm::coll_shm_enabled() ? 1 : 0); }, &g_switch));
    add_cvar(coll, num("baton_pcoll_single_copy", value_kind::i32, MPI_T_VERBOSITY_TUNER_DETAIL,
                       MPI_T_SCOPE_CONSTANT,
                       "Whether persistent bcast, allreduce and alltoall may move large data by single copies "
                       "between processes: 1 (on) when baton_shm_cma is on and BATON_PCOLL_SINGLE_COPY is not "
                       "0. Read once.",
                       [] { return int64_t(coll::shm::single_copy_enabled() ? 1 : 0); }, &g_switch));
    for (const auto& [name, desc, read] :
         {std::tuple{"baton_coll_remote_bytes",
                     "Bytes that collectives (every algorithm's messages, blocking, nonblocking and persistent) "
                     "sent to ranks on other hosts while the handle is started (what crossed between hosts); starts "
                     "stopped at 0, can be written and reset.",
                     &coll::coll_remote_bytes},
          std::tuple{"baton_coll_remote_messages",
                     "Messages that collectives sent to ranks on other hosts while the handle is started; starts "
                     "stopped at 0, can be written and reset.",
                     &coll::coll_remote_messages}}) {
      // (A copy to capture: clang 14, which scripts/tidy.sh runs, cannot capture a structured binding.)
      add_pvar(coll, counter(name, desc, [fn = read] { return uint64_t(fn()); }));
    }
    for (size_t k = 0; k < size_t(coll::coll_kind::count_); ++k) {
      const auto kind = coll::coll_kind(k);
      const char* cname = coll::coll_name(kind);
      std::string names;
      size_t longest = 0;
      for (const coll::algorithm* a = coll::algorithms_begin(); a != coll::algorithms_end(); ++a) {
        if (a->kind != kind) continue;
        names += names.empty() ? "" : ", ";
        names += a->name;
        longest = std::max(longest, std::strlen(a->name));
      }
      cvar v;
      v.name = std::string("baton_") + cname + "_algorithm";
      v.desc = "Algorithm of MPI_" + upper(cname).substr(0, 1) + std::string(cname).substr(1) +
               " (blocking, nonblocking and persistent) named by BATON_" + upper(cname) +
               "_ALGORITHM; empty: the selection rules choose per call. Algorithms: " + names +
               ". A name that is not one of them, or not usable for a call, leaves that call to the rules. "
               "Read once; must be the same on every rank.";
      v.kind = value_kind::str;
      v.verbosity = MPI_T_VERBOSITY_TUNER_DETAIL;
      v.scope = MPI_T_SCOPE_CONSTANT;
      v.read_str = [kind] {
        const char* s = coll::algorithm_override(kind);
        return std::string(s ? s : "");
      };
      v.str_min = longest + 1;
      add_cvar(alg, std::move(v));
    }

    // ---- baton_progress ----
    add_cvar(progress, num("baton_spin_us", value_kind::u64, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY,
                           "Microseconds a waiting thread polls (spinning) after the last progress before it "
                           "starts yielding its core. BATON_SPIN_US, default 50; MPI_Init makes it 0 when the "
                           "ranks on this host outnumber the cores the process may use, unless BATON_SPIN_US "
                           "is set.",
                           [] { return int64_t(core::progress_backoff().spin_ns / 1000); }));
    add_cvar(progress, num("baton_yield_us", value_kind::u64, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_SCOPE_READONLY,
                           "Microseconds after the last progress until which a waiting thread keeps polling "
                           "with sched_yield, then sleeps on its doorbell. BATON_YIELD_US, default 1000.",
                           [] { return int64_t(core::progress_backoff().yield_ns / 1000); }));
    add_cvar(progress, num("baton_async_progress", value_kind::i32, MPI_T_VERBOSITY_USER_BASIC,
                           MPI_T_SCOPE_READONLY,
                           "Whether a progress thread moves messages in the background (1) or only MPI calls "
                           "do (0). BATON_ASYNC_PROGRESS (any value but 0 turns it on), default off, taken at "
                           "MPI_Init.",
                           [] { return int64_t(core::progress_thread_wanted() ? 1 : 0); }, &g_switch));
    add_cvar(progress, num("baton_thread_level", value_kind::i32, MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_READONLY,
                           "Highest thread level MPI_Init_thread grants, 0 (MPI_THREAD_SINGLE) to 3 "
                           "(MPI_THREAD_MULTIPLE), whatever the program requests; -1 (none): no cap. "
                           "BATON_THREAD_LEVEL, unset by default, taken at MPI_Init.",
                           [] { return int64_t(core::thread_level_cap()); }, &g_thread_level));

    // ---- baton_request ----
    add_pvar(request, level("baton_request_live",
                            "Request objects allocated now: nonblocking and persistent operations not yet "
                            "freed, including the library's internal ones.",
                            [] { return core::request_live_count(); }));
    add_pvar(request, counter("baton_request_created",
                              "Request objects created (each nonblocking or persistent operation, and the library's "
                              "internal ones) while the handle is started; starts stopped at 0, can be written and "
                              "reset.",
                              [] { return core::request_created_count(); }));
  }
};

}  // namespace

const registry& vars() {
  static const builder* b = new builder;  // never destroyed: a tool may call in from an exit handler
  return b->r;
}

}  // namespace baton::abi::tool
