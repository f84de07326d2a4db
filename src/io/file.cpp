// Files: open / close / delete, size, sync, atomicity, info, views and file pointers.
#include "io/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/group.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "io/comm_util.hpp"
#include "io/datarep.hpp"
#include "io/posix.hpp"
#include "io/shared_fp.hpp"
#include "io/worker.hpp"

namespace baton::io {

// ---- the live-file registry ----
namespace {
std::mutex g_live_mutex;
std::unordered_set<const file*>& live() {
  static std::unordered_set<const file*> s;
  return s;
}
}  // namespace

bool file_valid(const file* f) {
  std::lock_guard<std::mutex> g(g_live_mutex);
  return live().count(f) != 0;
}

// ---- open ----
namespace {
errc check_amode(int amode) {
  const int known = mode_append | mode_create | mode_delete_on_close | mode_excl | mode_rdonly | mode_rdwr |
                    mode_sequential | mode_unique_open | mode_wronly;
  if (amode & ~known) return core::error_set(errc::amode, "invalid access mode bits 0x%x", amode & ~known);
  const int rw = (amode & mode_rdonly ? 1 : 0) + (amode & mode_rdwr ? 1 : 0) + (amode & mode_wronly ? 1 : 0);
  if (rw != 1)
    return core::error_set(errc::amode, "the access mode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                                        "MPI_MODE_WRONLY");
  if ((amode & mode_rdonly) && (amode & (mode_create | mode_excl)))
    return core::error_set(errc::amode, "MPI_MODE_RDONLY cannot be combined with MPI_MODE_CREATE or MPI_MODE_EXCL");
  if ((amode & mode_rdwr) && (amode & mode_sequential))
    return core::error_set(errc::amode, "MPI_MODE_SEQUENTIAL cannot be combined with MPI_MODE_RDWR");
  return errc::success;
}

// What each rank tells the others at open.
struct open_record {
  int32_t amode;
  int32_t check;       // errc of the local argument checks
  int32_t open_errno;  // rank 0: errno of its open (0: opened)
  int32_t pad;
  uint64_t host;       // hash of the host name (aggregator placement)
  uint64_t id;         // rank 0: the id of the shared file pointer's lock file
};

int open_flags(int amode, bool first, bool readable_write) {
  int fl = O_CLOEXEC;
  if (amode & mode_rdonly) fl |= O_RDONLY;
  // Write-only files are opened for reading too where permitted: data sieving and two-phase
  // read-modify-write need to read the holes they write back.
  if (amode & mode_wronly) fl |= readable_write ? O_RDWR : O_WRONLY;
  if (amode & mode_rdwr) fl |= O_RDWR;
  if (first && (amode & mode_create)) fl |= O_CREAT;
  if (first && (amode & mode_excl)) fl |= O_EXCL;
  return fl;
}

int open_file(const char* name, int amode, bool first, int perm, bool* readable) {
  int fd = ::open(name, open_flags(amode, first, true), perm);
  *readable = true;
  if (fd < 0 && (amode & mode_wronly) && errno == EACCES) {
    fd = ::open(name, open_flags(amode, first, false), perm);
    *readable = false;
  }
  return fd < 0 ? -errno : fd;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Aggregators: cb_nodes ranks spread over the hosts (host-major: the first rank of every host,
// then the second ...), or cb_per_host on each host.
std::vector<int> choose_aggregators(const std::vector<uint64_t>& host_of_rank, const hints& h) {
  std::vector<uint64_t> hosts;
  std::vector<std::vector<int>> members;
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    size_t k = size_t(std::find(hosts.begin(), hosts.end(), host_of_rank[r]) - hosts.begin());
    if (k == hosts.size()) {
      hosts.push_back(host_of_rank[r]);
      members.emplace_back();
    }
    members[k].push_back(int(r));
  }
  const int size = int(host_of_rank.size());
  int want = h.cb_nodes > 0 ? h.cb_nodes : 0;
  if (want == 0)
    for (auto& m : members) want += std::min<int>(int(m.size()), h.cb_per_host);
  want = std::clamp(want, 1, size);
  std::vector<int> aggs;
  for (size_t depth = 0; int(aggs.size()) < want; ++depth)
    for (auto& m : members)
      if (depth < m.size() && int(aggs.size()) < want) aggs.push_back(m[depth]);
  std::sort(aggs.begin(), aggs.end());
  return aggs;
}

uint64_t next_open_id() {
  static std::atomic<uint64_t> n{0};
  return (uint64_t(::getpid()) << 20) ^ n.fetch_add(1);
}
}  // namespace

errc file_open(core::comm* c, const char* filename, int amode,
               const std::vector<std::pair<std::string, std::string>>& given, core::errhandler* eh, file** out) {
  auto fail = [&](errc e) {
    (void)core::comm_free(c);
    return e;
  };
  hints h;
  hints_apply(&h, given, c->size);
  open_record mine{};
  mine.amode = amode;
  mine.check = int32_t(check_amode(amode));
  std::string my_msg = mine.check ? core::error_message() : std::string();
  if (mine.check == 0 && (!filename || !*filename)) {
    mine.check = int32_t(core::error_set(errc::bad_file, "the file name is empty"));
    my_msg = core::error_message();
  }
  mine.host = core::fnv1a(core::rt().hostname.data(), core::rt().hostname.size(), core::fnv_offset);
  int fd = -1;
  bool readable = true;
  if (c->rank == 0 && mine.check == 0) {
    fd = open_file(filename, amode, true, h.file_perm, &readable);
    mine.open_errno = fd < 0 ? -fd : 0;
    mine.id = next_open_id();
  }
  std::vector<open_record> all(size_t(c->size));
  if (errc e = allgather(c, &mine, sizeof(mine), all.data()); e != errc::success) {
    if (fd >= 0) ::close(fd);
    return fail(e);
  }
  // Every rank reaches the same verdict from the same records.
  errc verdict = errc::success;
  for (int r = 0; r < c->size && verdict == errc::success; ++r) {
    if (all[size_t(r)].check != 0) {
      verdict = errc(all[size_t(r)].check);
      if (r == c->rank)
        (void)core::error_set(verdict, "%s", my_msg.c_str());
      else
        (void)core::error_set(verdict, "rank %d passed an invalid access mode or file name", r);
    } else if (all[size_t(r)].amode != amode) {
      verdict = core::error_set(errc::not_same, "the access mode differs between ranks (0x%x here, 0x%x on rank %d)",
                                amode, all[size_t(r)].amode, r);
    }
  }
  if (verdict == errc::success && all[0].open_errno != 0)
    verdict = posix::fail(all[0].open_errno, "cannot open", filename);
  if (verdict != errc::success) {
    if (fd >= 0) ::close(fd);
    return fail(verdict);
  }
  int my_errno = 0;
  if (c->rank != 0) {
    fd = open_file(filename, amode, false, h.file_perm, &readable);
    my_errno = fd < 0 ? -fd : 0;
  }
  if (c->size > 1) {
    std::vector<int32_t> errs(size_t(c->size));
    const int32_t me = my_errno;
    if (errc e = allgather(c, &me, sizeof(me), errs.data()); e != errc::success) {
      if (fd >= 0) ::close(fd);
      return fail(e);
    }
    for (int r = 0; r < c->size; ++r)
      if (errs[size_t(r)] != 0) {
        if (fd >= 0) ::close(fd);
        errc e = posix::fail(errs[size_t(r)], "cannot open", filename);
        if (r != c->rank) (void)core::error_set(e, "rank %d %s", r, core::error_message().c_str());
        return fail(e);
      }
  }
  auto* f = new file;
  f->c = c;
  f->rank = c->rank;
  f->size = c->size;
  f->name = filename;
  f->amode = amode;
  f->fd = fd;
  f->h = h;
  if (!readable) f->h.ds_write = tri::disable;
  view_default(&f->v);
  eh->retain();
  f->eh = eh;
  std::vector<uint64_t>& host_of_rank = f->host_of_rank;
  host_of_rank.resize(size_t(c->size));
  for (int r = 0; r < c->size; ++r) host_of_rank[size_t(r)] = all[size_t(r)].host;
  f->aggregators = choose_aggregators(host_of_rank, f->h);
  f->sfp = new shared_fp;
  const std::string lock_name = "." + base_of(f->name) + ".baton-shfp." + std::to_string(all[0].id);
  f->sfp->path = dir_of(f->name) + "/" + lock_name;
  bool one_host = std::all_of(host_of_rank.begin(), host_of_rank.end(), [&](uint64_t x) { return x == host_of_rank[0]; });
  if (one_host) {
    const char* tmp = std::getenv("TMPDIR");
    f->sfp->fallback = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + lock_name;
  }
  if (amode & mode_append) {
    // Every file pointer starts at the end of the file.
    int64_t end = 0;
    errc e = file_end_etypes(f, &end);
    f->fp = end;
    if (e == errc::success && f->rank == 0) e = shfp_set(f->sfp, end);
    if (e == errc::success && f->size > 1) e = barrier(c);
    if (e != errc::success) {
      ::close(fd);
      shfp_close(f->sfp, f->rank == 0);
      delete f->sfp;
      view_release(&f->v);
      eh->release();
      delete f;
      return fail(e);
    }
  }
  {
    std::lock_guard<std::mutex> g(g_live_mutex);
    live().insert(f);
  }
  worker_acquire();
  *out = f;
  return errc::success;
}

errc file_close(file* f) {
  // Requests the program freed (MPI_Request_free) may still be running on this file: they finish
  // first, since they use it.
  if (f->pending.load(std::memory_order_acquire) > 0) {
    core::engine_guard g;
    core::progress_wait(g, [f] { return f->pending.load(std::memory_order_acquire) == 0; });
  }
  // Everyone is done with the file (its shared pointer included) before the lock file and, with
  // MPI_MODE_DELETE_ON_CLOSE, the file go.
  errc e = f->size > 1 ? barrier(f->c) : errc::success;
  {
    std::lock_guard<std::mutex> g(g_live_mutex);
    live().erase(f);
  }
  if (::close(f->fd) != 0 && e == errc::success) e = posix::fail(errno, "cannot close", f->name);
  shfp_close(f->sfp, f->rank == 0);
  delete f->sfp;
  if ((f->amode & mode_delete_on_close) && f->rank == 0 && ::unlink(f->name.c_str()) != 0 && e == errc::success)
    e = posix::fail(errno, "cannot delete (MPI_MODE_DELETE_ON_CLOSE)", f->name);
  view_release(&f->v);
  f->eh->release();
  (void)core::comm_free(f->c);
  f->magic = 0;
  delete f;
  worker_release();
  return e;
}

errc file_delete(const char* filename) {
  if (!filename || !*filename) return core::error_set(errc::bad_file, "the file name is empty");
  if (::unlink(filename) != 0) return posix::fail(errno, "cannot delete", filename);
  return errc::success;
}

// ---- size, sync, atomicity ----
namespace {
// Every rank passed the same value (a collective argument): errc::not_same otherwise.
errc agree_same(file* f, int64_t v, const char* what) {
  if (f->size == 1) return errc::success;
  std::vector<int64_t> all(size_t(f->size));
  if (errc e = allgather(f->c, &v, sizeof(v), all.data()); e != errc::success) return e;
  for (int r = 0; r < f->size; ++r)
    if (all[size_t(r)] != v)
      return core::error_set(errc::not_same, "the %s differs between ranks (%lld here, %lld on rank %d)", what,
                             (long long)v, (long long)all[size_t(r)], r);
  return errc::success;
}

// Rank 0 did something; its outcome (error class and message) reaches everyone.
errc share_outcome(file* f, errc mine) {
  if (f->size == 1) return mine;
  struct {
    int32_t e;
    char msg[244];
  } rec{};
  if (f->rank == 0) {
    rec.e = int32_t(mine);
    std::snprintf(rec.msg, sizeof(rec.msg), "%s", mine == errc::success ? "" : core::error_message().c_str());
  }
  if (errc e = bcast(f->c, &rec, sizeof(rec), 0); e != errc::success) return e;
  if (rec.e != 0 && f->rank != 0) return core::error_set(errc(rec.e), "%s", rec.msg);
  return errc(rec.e);
}

errc writable(const file* f, const char* what) {
  if (f->amode & mode_rdonly)
    return core::error_set(errc::read_only, "cannot %s '%s': it was opened with MPI_MODE_RDONLY", what,
                           f->name.c_str());
  return errc::success;
}
}  // namespace

errc file_set_size(file* f, int64_t size) {
  if (errc e = agree_same(f, size, "size"); e != errc::success) return e;
  errc mine = errc::success;
  if (f->rank == 0) {
    mine = writable(f, "resize");
    if (mine == errc::success && ::ftruncate(f->fd, size) != 0) mine = posix::fail(errno, "cannot resize", f->name);
  }
  return share_outcome(f, mine);
}

errc file_preallocate(file* f, int64_t size) {
  if (errc e = agree_same(f, size, "size"); e != errc::success) return e;
  errc mine = errc::success;
  if (f->rank == 0) {
    mine = writable(f, "preallocate");
    int64_t cur = 0;
    if (mine == errc::success) mine = posix::file_size(f->fd, f->name, &cur);
    if (mine == errc::success && size > cur) {
      int rc = ::posix_fallocate(f->fd, 0, size);
      if (rc == EOPNOTSUPP || rc == EINVAL) {
        // No fallocate on this file system: write zeros past the end.
        std::vector<char> zero(size_t(1) << 20, 0);
        for (int64_t at = cur; at < size && mine == errc::success; at += int64_t(zero.size()))
          mine = posix::write_at(f->fd, f->name, zero.data(), std::min<int64_t>(int64_t(zero.size()), size - at), at);
      } else if (rc != 0) {
        mine = posix::fail(rc, "cannot preallocate", f->name);
      }
    }
  }
  return share_outcome(f, mine);
}

errc file_get_size(file* f, int64_t* size) { return posix::file_size(f->fd, f->name, size); }

errc file_sync(file* f) {
  // Data (and the size) reach the device; a rank killed after this loses nothing it wrote.
  if (::fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS) return posix::fail(errno, "cannot sync", f->name);
  return errc::success;
}

errc file_set_atomicity(file* f, bool flag) {
  if (errc e = agree_same(f, flag ? 1 : 0, "atomicity flag"); e != errc::success) return e;
  f->atomic = flag;
  return errc::success;
}

errc file_set_info(file* f, const std::vector<std::pair<std::string, std::string>>& given) {
  hints_apply(&f->h, given, f->size);
  f->aggregators = choose_aggregators(f->host_of_rank, f->h);
  return errc::success;
}

std::vector<std::pair<std::string, std::string>> file_get_info(const file* f) {
  return hints_report(f->h, int(f->aggregators.size()));
}

core::group* file_get_group(const file* f) { return core::group_make(f->c->world); }

// ---- views ----
errc file_set_view(file* f, int64_t disp, const core::datatype* etype, const core::datatype* filetype,
                   const char* datarep, const std::vector<std::pair<std::string, std::string>>& given) {
  constexpr int64_t displacement_current = -1;
  const bool seq = (f->amode & mode_sequential) != 0;
  struct rec {
    int32_t check;
    int32_t current;
    int64_t disp;
    int64_t esize;
    uint64_t rep;
  } mine{};
  std::string my_msg;
  const io::datarep* rep = nullptr;
  errc check = datarep_find(datarep ? datarep : "", &rep);
  if (check == errc::success && disp == displacement_current && !seq)
    check = core::error_set(errc::arg, "MPI_DISPLACEMENT_CURRENT is only valid for files opened with "
                                       "MPI_MODE_SEQUENTIAL");
  if (check == errc::success && disp < 0 && disp != displacement_current)
    check = core::error_set(errc::arg, "negative displacement %lld", (long long)disp);
  view probe{};
  if (check == errc::success) check = view_set(&probe, disp == displacement_current ? 0 : disp, etype, filetype, rep);
  if (check != errc::success) my_msg = core::error_message();
  mine.check = int32_t(check);
  mine.current = disp == displacement_current;
  mine.disp = disp;
  mine.esize = probe.esize;
  mine.rep = core::fnv1a(datarep ? datarep : "", datarep ? std::strlen(datarep) : 0, core::fnv_offset);
  std::vector<rec> all(size_t(f->size));
  errc e = f->size > 1 ? allgather(f->c, &mine, sizeof(mine), all.data()) : errc::success;
  if (f->size == 1) all[0] = mine;
  if (e == errc::success)
    for (int r = 0; r < f->size && e == errc::success; ++r) {
      const rec& o = all[size_t(r)];
      if (o.check != 0)
        e = r == f->rank ? core::error_set(errc(o.check), "%s", my_msg.c_str())
                         : core::error_set(errc(o.check), "rank %d passed an invalid view", r);
      else if (o.rep != mine.rep)
        e = core::error_set(errc::not_same, "the data representation differs between ranks (rank %d)", r);
      else if (o.esize != mine.esize)
        e = core::error_set(errc::not_same, "the etype's size differs between ranks (%lld here, %lld on rank %d)",
                            (long long)mine.esize, (long long)o.esize, r);
      else if (o.current != mine.current)
        e = core::error_set(errc::not_same, "MPI_DISPLACEMENT_CURRENT was passed on some ranks only");
    }
  if (e != errc::success) {
    view_release(&probe);
    return e;
  }
  if (mine.current) {
    // The displacement is where the shared pointer points now (in bytes, under the old view).
    int64_t cur = 0;
    errc r0 = errc::success;
    if (f->rank == 0) {
      r0 = shfp_fetch_add(f->sfp, 0, &cur);
      cur = view_file_offset(f->v, cur * f->v.esize);
    }
    if (errc x = share_outcome(f, r0); x != errc::success) {
      view_release(&probe);
      return x;
    }
    if (f->size > 1)
      if (errc x = bcast(f->c, &cur, sizeof(cur), 0); x != errc::success) {
        view_release(&probe);
        return x;
      }
    probe.disp = cur;
  }
  view_release(&f->v);
  f->v = probe;  // takes over probe's references
  f->fp = 0;
  hints_apply(&f->h, given, f->size);
  f->aggregators = choose_aggregators(f->host_of_rank, f->h);
  // The shared pointer returns to 0 once every rank has left the old view.
  errc r0 = errc::success;
  if (f->rank == 0 && (::access(f->sfp->path.c_str(), F_OK) == 0 || f->sfp->fd >= 0)) r0 = shfp_set(f->sfp, 0);
  return share_outcome(f, r0);
}

// ---- pointers ----
errc file_end_etypes(file* f, int64_t* etypes) {
  int64_t size = 0;
  if (errc e = posix::file_size(f->fd, f->name, &size); e != errc::success) return e;
  const int64_t bytes = view_stream_below(f->v, size);
  *etypes = (bytes + f->v.esize - 1) / f->v.esize;
  return errc::success;
}

errc file_seek(file* f, int64_t offset, whence w) {
  if (f->amode & mode_sequential)
    return core::error_set(errc::unsupported_operation, "'%s' was opened with MPI_MODE_SEQUENTIAL: it has no "
                                                        "individual file pointer", f->name.c_str());
  int64_t base = 0;
  if (w == whence::cur) base = f->fp;
  if (w == whence::end)
    if (errc e = file_end_etypes(f, &base); e != errc::success) return e;
  if (base + offset < 0)
    return core::error_set(errc::arg, "the file pointer would become negative (%lld)", (long long)base + (long long)offset);
  f->fp = base + offset;
  return errc::success;
}

errc file_seek_shared(file* f, int64_t offset, whence w) {
  if (errc e = agree_same(f, offset, "offset"); e != errc::success) return e;
  if (errc e = agree_same(f, int64_t(w), "whence"); e != errc::success) return e;
  errc mine = errc::success;
  if (f->rank == 0) {
    int64_t base = 0;
    if (w == whence::cur) mine = shfp_fetch_add(f->sfp, 0, &base);
    if (w == whence::end) mine = file_end_etypes(f, &base);
    if (mine == errc::success && base + offset < 0)
      mine = core::error_set(errc::arg, "the shared file pointer would become negative (%lld)", (long long)base + (long long)offset);
    if (mine == errc::success) mine = shfp_set(f->sfp, base + offset);
  }
  return share_outcome(f, mine);
}

errc file_get_position_shared(file* f, int64_t* offset) { return shfp_fetch_add(f->sfp, 0, offset); }

errc file_get_byte_offset(file* f, int64_t offset, int64_t* disp) {
  if (offset < 0) return core::error_set(errc::arg, "negative offset %lld", (long long)offset);
  *disp = view_file_offset(f->v, offset * f->v.esize);
  return errc::success;
}

errc file_type_extent(const file* f, const core::datatype* t, int64_t* extent) {
  return datarep_extent(*f->v.rep, *t, extent);
}

}  // namespace baton::io
