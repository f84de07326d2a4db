#include "coll/coll.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "coll/algorithms/algorithms.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"

namespace baton::coll {

namespace {
const algorithm g_algorithms[] = {
#define BATON_ALGORITHM(coll, name, fn, usable, preferred) {coll_kind::coll, #name, fn, usable, preferred},
#include "coll/algorithms.def"
#undef BATON_ALGORITHM
};

const char* const g_names[] = {
#define BATON_COLLECTIVE(name) #name,
#include "coll/collectives.def"
#undef BATON_COLLECTIVE
};

// BATON_<COLLECTIVE>_ALGORITHM, read once per collective.
const char* env_choice(coll_kind k) {
  static std::string cache[size_t(coll_kind::count_)];
  static bool read[size_t(coll_kind::count_)] = {};
  size_t i = size_t(k);
  if (!read[i]) {
    std::string var = "BATON_";
    for (const char* c = g_names[i]; *c; ++c) var += char(std::toupper(static_cast<unsigned char>(*c)));
    var += "_ALGORITHM";
    if (const char* v = std::getenv(var.c_str())) cache[i] = v;
    read[i] = true;
  }
  return cache[i].empty() ? nullptr : cache[i].c_str();
}
}  // namespace

const char* coll_name(coll_kind k) { return g_names[size_t(k)]; }
const algorithm* algorithms_begin() { return g_algorithms; }
const algorithm* algorithms_end() { return g_algorithms + sizeof g_algorithms / sizeof g_algorithms[0]; }

const algorithm* select(const coll_args& a) {
  const algorithm* first_usable = nullptr;
  if (const char* want = env_choice(a.kind)) {
    for (const algorithm* al = algorithms_begin(); al != algorithms_end(); ++al)
      if (al->kind == a.kind && std::string(al->name) == want && al->usable(a)) return al;
  }
  for (const algorithm* al = algorithms_begin(); al != algorithms_end(); ++al) {
    if (al->kind != a.kind || !al->usable(a)) continue;
    if (al->preferred(a)) return al;
    if (!first_usable) first_usable = al;
  }
  return first_usable;
}

errc start(const coll_args& a, bool nonblocking, core::request** out) {
  core::engine_guard g;
  // Every rank consumes one sequence number per collective, whatever happens below.
  const uint64_t seq = a.c->coll_seq++;
  const algorithm* al = select(a);
  if (!al)
    return core::error_set(errc::intern, "no %s algorithm can run these arguments", coll_name(a.kind));
  auto* p = new plan;
  builder b(*p);
  if (errc e = al->build(a, b); e != errc::success) {
    delete p;
    return e;
  }
  b.finish();
  errc e = run_start(p, true, a.c, a.sendbuf, a.recvbuf, make_tag_prefix(seq, nonblocking), out);
  if (nonblocking) core::progress_new_work();
  return e;
}

errc run_blocking(const coll_args& a) {
  core::request* r = nullptr;
  if (errc e = start(a, false, &r); e != errc::success) return e;
  {
    core::engine_guard g;
    core::progress_wait(g, [r] { return r->is_complete(); });
  }
  errc e = r->status.error;
  core::request_delete(r);
  return e;
}

}  // namespace baton::coll
