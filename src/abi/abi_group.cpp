// Groups (MPI-4.1 7.3): local operations on ordered sets of processes.
#include "abi/abi.hpp"
#include "abi/abi_objects.hpp"

using namespace baton;
using abi::call;
using core::errc;

namespace baton::abi {

core::group* to_group(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return core::group_empty();
  if (h == MPI_GROUP_NULL) {
    (void)core::error_set(errc::group, "invalid group (MPI_GROUP_NULL)");
    return nullptr;
  }
  if (is_predefined(h)) {
    (void)core::error_set(errc::group, "invalid group handle %p", static_cast<void*>(h));
    return nullptr;
  }
  auto* g = reinterpret_cast<core::group*>(h);
  if (!core::slab_holds<core::group>(g) || g->magic != core::group_magic) {
    (void)core::error_set(errc::group, "invalid group handle %p (freed or never created)", static_cast<void*>(h));
    return nullptr;
  }
  return g;
}

MPI_Group to_handle(core::group* g) {
  if (!g) return MPI_GROUP_NULL;
  if (g == core::group_empty()) return MPI_GROUP_EMPTY;
  return reinterpret_cast<MPI_Group>(g);
}

}  // namespace baton::abi

namespace {
int cmp_to_mpi(core::cmp_result r) {
  switch (r) {
    case core::cmp_result::ident:
      return MPI_IDENT;
    case core::cmp_result::congruent:
      return MPI_CONGRUENT;
    case core::cmp_result::similar:
      return MPI_SIMILAR;
    case core::cmp_result::unequal:
      break;
  }
  return MPI_UNEQUAL;
}

errc check_out(const void* p, const char* what) {
  if (!p) return core::error_set(errc::arg, "NULL %s pointer", what);
  return errc::success;
}

// Shared body of the constructors taking one group and producing one.
template <class Make>
int derive(const char* fn, MPI_Group group, MPI_Group* newgroup, Make make) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::group* g = abi::to_group(group);
  if (!g) return abi::raise(fn, nullptr, errc::group);
  return call(fn, nullptr, [&] {
    if (errc e = check_out(newgroup, "newgroup"); e != errc::success) return e;
    core::group* out = nullptr;
    if (errc e = make(g, &out); e != errc::success) return e;
    *newgroup = abi::to_handle(out);
    return errc::success;
  });
}

template <class Make>
int combine(const char* fn, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, Make make) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::group* a = abi::to_group(group1);
  if (!a) return abi::raise(fn, nullptr, errc::group);
  core::group* b = abi::to_group(group2);
  if (!b) return abi::raise(fn, nullptr, errc::group);
  return call(fn, nullptr, [&] {
    if (errc e = check_out(newgroup, "newgroup"); e != errc::success) return e;
    *newgroup = abi::to_handle(make(a, b));
    return errc::success;
  });
}
}  // namespace

namespace baton::impl {

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise("MPI_Comm_group", nullptr, errc::comm);
  return call("MPI_Comm_group", c, [&] {
    if (errc e = check_out(group, "group"); e != errc::success) return e;
    core::group* g = core::group_make(c->inter ? c->local_world : c->world);  // the local group
    if (!g->predefined) g->session = c->session;  // a session's communicator: so is its group
    *group = abi::to_handle(g);
    return errc::success;
  });
}

int MPI_Group_size(MPI_Group group, int* size) {
  core::group* g = abi::to_group(group);
  if (!g) return abi::raise("MPI_Group_size", nullptr, errc::group);
  if (errc e = check_out(size, "size"); e != errc::success) return abi::raise("MPI_Group_size", nullptr, e);
  *size = g->size();
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  core::group* g = abi::to_group(group);
  if (!g) return abi::raise("MPI_Group_rank", nullptr, errc::group);
  if (errc e = check_out(rank, "rank"); e != errc::success) return abi::raise("MPI_Group_rank", nullptr, e);
  *rank = g->rank < 0 ? MPI_UNDEFINED : g->rank;
  return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group* group) {
  if (!group) {
    (void)core::error_set(errc::arg, "NULL group pointer");
    return abi::raise("MPI_Group_free", nullptr, errc::arg);
  }
  core::group* g = abi::to_group(*group);
  if (!g) return abi::raise("MPI_Group_free", nullptr, errc::group);
  g->release();  // MPI_GROUP_EMPTY: allowed, nothing to free
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return derive("MPI_Group_incl", group, newgroup,
                [&](core::group* g, core::group** out) { return core::group_incl(g, n, ranks, out); });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return derive("MPI_Group_excl", group, newgroup,
                [&](core::group* g, core::group** out) { return core::group_excl(g, n, ranks, out); });
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return derive("MPI_Group_range_incl", group, newgroup,
                [&](core::group* g, core::group** out) { return core::group_range_incl(g, n, ranges, out); });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return derive("MPI_Group_range_excl", group, newgroup,
                [&](core::group* g, core::group** out) { return core::group_range_excl(g, n, ranges, out); });
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine("MPI_Group_union", group1, group2, newgroup, core::group_union);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine("MPI_Group_intersection", group1, group2, newgroup, core::group_intersection);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return combine("MPI_Group_difference", group1, group2, newgroup, core::group_difference);
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  const char* fn = "MPI_Group_translate_ranks";
  core::group* a = abi::to_group(group1);
  if (!a) return abi::raise(fn, nullptr, errc::group);
  core::group* b = abi::to_group(group2);
  if (!b) return abi::raise(fn, nullptr, errc::group);
  return call(fn, nullptr, [&] {
    if (n < 0) return core::error_set(errc::arg, "negative rank count %d", n);
    if (n > 0 && (!ranks1 || !ranks2)) return core::error_set(errc::arg, "NULL rank array with n = %d", n);
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) continue;
      if (r < 0 || r >= a->size())
        return core::error_set(errc::rank, "ranks1[%d] = %d is not a rank of group1 (size %d)", i, r, a->size());
    }
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) {
        ranks2[i] = MPI_PROC_NULL;
        continue;
      }
      int t = core::group_rank_of_world(b, a->world[size_t(r)]);
      ranks2[i] = t < 0 ? MPI_UNDEFINED : t;
    }
    return errc::success;
  });
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  core::group* a = abi::to_group(group1);
  if (!a) return abi::raise("MPI_Group_compare", nullptr, errc::group);
  core::group* b = abi::to_group(group2);
  if (!b) return abi::raise("MPI_Group_compare", nullptr, errc::group);
  if (errc e = check_out(result, "result"); e != errc::success) return abi::raise("MPI_Group_compare", nullptr, e);
  *result = cmp_to_mpi(core::group_compare(a, b));
  return MPI_SUCCESS;
}

}  // namespace baton::impl
