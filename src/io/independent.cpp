// Independent access: a process reads or writes its own file runs.
//
// Runs close together are served by data sieving (ROMIO's term): one read of their hull into a
// buffer of ind_rd_buffer_size, from which the pieces are copied out; writes read the hull, patch
// the pieces in and write it back under a byte-range write lock (another process may write the
// holes meanwhile: non-conflicting accesses must survive). Whether sieving pays is judged per
// group of runs: it costs the copy of the holes, a system call per run costs about a microsecond,
// so holes averaging below a few KiB favour sieving (romio_ds_read / romio_ds_write force either).
//
// Atomic mode (MPI_File_set_atomicity) holds a lock over the access's whole hull, read or write,
// for its duration: overlapping accesses of different processes then happen one after the other.
#include <algorithm>
#include <cstring>

#include "core/datatype.hpp"
#include "io/access.hpp"
#include "io/datarep.hpp"
#include "io/posix.hpp"

namespace baton::io {

transfer::~transfer() {
  if (type) type->release();
}

errc access_size(const file* f, int64_t count, const core::datatype* type, int64_t* len, int64_t* etypes) {
  if (errc e = datarep_size(*f->v.rep, *type, count, len); e != errc::success) return e;
  if (*len % f->v.esize != 0)
    return core::error_set(errc::arg,
                           "the access moves %lld bytes in the file, not a whole number of etypes (%lld bytes "
                           "each): only whole etypes can be accessed",
                           (long long)*len, (long long)f->v.esize);
  *etypes = *len / f->v.esize;
  return errc::success;
}

errc transfer_prepare(file* f, const access& a, int64_t etype_off, transfer* t) {
  t->f = f;
  t->write = a.write;
  t->buf = a.buf;
  t->count = a.count;
  a.type->retain();
  t->type = a.type;
  int64_t etypes = 0;
  if (errc e = access_size(f, a.count, a.type, &t->len, &etypes); e != errc::success) return e;
  t->mem_bytes = a.count * a.type->size();
  t->pos = etype_off * f->v.esize;
  if (t->len == 0) return errc::success;
  if (f->v.rep->identity() && a.type->is_contiguous()) {
    t->stream = static_cast<char*>(a.buf) + a.type->true_lb();
    return errc::success;
  }
  t->staging.reset(new char[size_t(t->len)]);
  t->stream = t->staging.get();
  if (a.write) return datarep_to_file(*f->v.rep, a.buf, a.count, *a.type, t->stream);
  return errc::success;
}

errc transfer_finish(transfer* t, core::req_status* st) {
  int64_t bytes = t->done;
  if (t->len > 0 && t->done < t->len) {
    // A read that met the end of the file: the memory bytes of the elements read.
    bytes = t->mem_bytes == t->len ? t->done : t->done / (t->len / std::max<int64_t>(t->count, 1)) * t->type->size();
  } else if (t->len > 0) {
    bytes = t->mem_bytes;
  }
  if (!t->write && t->staging && t->done > 0) {
    if (t->f->v.rep->identity()) {
      core::pack_cursor cur(t->buf, t->count, *t->type);
      (void)cur.unpack(t->stream, size_t(t->done));
    } else {
      const int64_t per = t->len / std::max<int64_t>(t->count, 1);
      const int64_t elems = per > 0 ? t->done / per : 0;
      if (errc e = datarep_from_file(*t->f->v.rep, t->stream, elems * per, t->buf, elems, *t->type); e != errc::success)
        return e;
    }
  }
  if (st) {
    *st = core::req_status{};
    st->bytes = uint64_t(bytes);
  }
  return errc::success;
}

namespace {
constexpr int64_t stream_chunk = int64_t{64} << 20;  // bounds the run list of one pass

errc direct_run(file* f, bool write, const frun& r, char* mem, int64_t* got) {
  if (write) {
    *got = r.len;
    return posix::write_at(f->fd, f->name, mem, r.len, r.off);
  }
  return posix::read_at(f->fd, f->name, mem, r.len, r.off, got);
}

bool sieve_pays(tri mode, bool write, size_t nruns, int64_t data, int64_t hull) {
  if (nruns < 2 || mode == tri::disable) return false;
  if (mode == tri::enable) return true;
  const int64_t holes = hull - data;
  return write ? nruns >= 4 && holes < int64_t(nruns - 1) * 4096 : holes < int64_t(nruns - 1) * 8192;
}

errc sieve_group(file* f, bool write, bool locked, const frun* runs, size_t n, char* mem, int64_t* done, bool* eof) {
  const int64_t lo = runs[0].off;
  int64_t hi = lo;
  for (size_t k = 0; k < n; ++k) hi = std::max(hi, runs[k].off + runs[k].len);
  std::unique_ptr<char[]> sieve(new char[size_t(hi - lo)]);
  posix::range_lock l;
  if (write && !locked)
    if (errc e = l.take(f->fd, f->name, posix::lock_kind::write, lo, hi - lo); e != errc::success) return e;
  int64_t got = 0;
  if (errc e = posix::read_at(f->fd, f->name, sieve.get(), hi - lo, lo, &got); e != errc::success) return e;
  if (write) {
    if (got < hi - lo) std::memset(sieve.get() + got, 0, size_t(hi - lo - got));
    int64_t m = 0;
    for (size_t k = 0; k < n; ++k) {
      std::memcpy(sieve.get() + (runs[k].off - lo), mem + m, size_t(runs[k].len));
      m += runs[k].len;
    }
    *done += m;
    return posix::write_at(f->fd, f->name, sieve.get(), hi - lo, lo);
  }
  const int64_t end = lo + got;
  int64_t m = 0;
  for (size_t k = 0; k < n; ++k) {
    const int64_t avail = std::min(runs[k].len, end - runs[k].off);
    if (avail > 0) std::memcpy(mem + m, sieve.get() + (runs[k].off - lo), size_t(avail));
    if (avail < runs[k].len) {
      *done += m + std::max<int64_t>(avail, 0);
      *eof = true;
      return errc::success;
    }
    m += runs[k].len;
  }
  *done += m;
  return errc::success;
}
}  // namespace

errc runs_transfer_locked(file* f, bool write, bool locked, const std::vector<frun>& runs, char* mem, int64_t* done) {
  *done = 0;
  const int64_t buf = write ? f->h.ind_wr_buffer_size : f->h.ind_rd_buffer_size;
  const tri mode = write ? f->h.ds_write : f->h.ds_read;
  // A window [i, j) of runs whose hull fits the buffer slides forward (two pointers: each run
  // enters and leaves it once). hi may overestimate the window's hull after its first run left,
  // which only makes the next group smaller.
  const size_t n = runs.size();
  size_t i = 0, j = 0;
  int64_t m = 0, data = 0, hi = 0;
  while (i < n) {
    if (mode != tri::disable) {
      if (j <= i) {
        j = i + 1;
        data = runs[i].len;
        hi = runs[i].off + runs[i].len;
      }
      while (j < n && runs[j].off >= runs[j - 1].off && std::max(hi, runs[j].off + runs[j].len) - runs[i].off <= buf) {
        hi = std::max(hi, runs[j].off + runs[j].len);
        data += runs[j].len;
        ++j;
      }
      if (runs[i].len <= buf && sieve_pays(mode, write, j - i, data, hi - runs[i].off)) {
        bool eof = false;
        int64_t got = 0;
        if (errc e = sieve_group(f, write, locked, &runs[i], j - i, mem + m, &got, &eof); e != errc::success) return e;
        *done += got;
        if (eof) return errc::success;
        m += data;
        i = j;
        continue;
      }
      data -= runs[i].len;
    }
    int64_t got = 0;
    if (errc e = direct_run(f, write, runs[i], mem + m, &got); e != errc::success) return e;
    *done += got;
    if (got < runs[i].len) return errc::success;  // end of file
    m += runs[i].len;
    ++i;
  }
  return errc::success;
}

errc runs_transfer(file* f, bool write, const std::vector<frun>& runs, char* mem, int64_t* done) {
  return runs_transfer_locked(f, write, false, runs, mem, done);
}

errc indep_run(transfer* t) {
  file* f = t->f;
  t->done = 0;
  if (t->len == 0) return errc::success;
  posix::range_lock hull;
  if (f->atomic) {
    // The hull of the access (the whole file when the view's tiles overlap: len 0 locks to the end).
    const int64_t lo = f->v.monotonic ? view_file_offset(f->v, t->pos) : 0;
    const int64_t hi = f->v.monotonic ? view_file_offset(f->v, t->pos + t->len - 1) + 1 : 0;
    if (errc e = hull.take(f->fd, f->name, t->write ? posix::lock_kind::write : posix::lock_kind::read, lo, hi - lo);
        e != errc::success)
      return e;
  }
  std::vector<frun> runs;
  for (int64_t p = 0; p < t->len; p += stream_chunk) {
    const int64_t n = std::min(stream_chunk, t->len - p);
    runs.clear();
    view_runs(f->v, t->pos + p, n, runs);
    int64_t got = 0;
    if (errc e = runs_transfer_locked(f, t->write, f->atomic, runs, t->stream + p, &got); e != errc::success) return e;
    t->done += got;
    if (got < n) break;
  }
  return errc::success;
}

}  // namespace baton::io
