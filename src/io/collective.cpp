// Collective access: two-phase I/O through aggregators (ROMIO's collective buffering, on
// Baton's schedule engine).
//
// The file is cut into stripes of cb_buffer_size bytes (a multiple of striping_unit when given);
// stripe k belongs to aggregator k mod naggs (f->aggregators: one rank per host by default, or
// cb_nodes / cb_config_list). An access runs in three exchanges, each a plan of the collective
// engine on the file's private communicator, advanced by whoever drives progress (the caller of a
// blocking access, MPI_Test, the progress thread):
//
//   P0  allgather of one record per rank: its error, its file range, and how many of its runs
//       fall in each aggregator's stripes. Every rank then knows whether the ranges interleave:
//       if not (or romio_cb_* disables it, or atomic mode is on) each rank accesses its own runs
//       independently, with data sieving.
//   P1  each rank sends every aggregator the list of its runs in that aggregator's stripes.
//   P2  the data: per stripe, every rank with data there sends its bytes (a contiguous slice of
//       its stream) to the stripe's aggregator, which receives them straight into its collective
//       buffer through an hindexed datatype of the sender's runs, and writes the stripe's covered
//       range with one pwrite (a stripe with many holes is read first under a write lock and
//       written whole; one with a few is written piece by piece). Reads go the other way. Each
//       aggregator alternates two buffers, so stripe j + 1 arrives while stripe j is written:
//       file accesses are task steps that the I/O worker runs (io/worker.hpp), the exchange goes
//       on meanwhile.
//
// The sequence numbers of P1 and P2 are taken at the start, so that operations started later on
// the same file (which every rank starts in the same order) never take theirs.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "coll/coll.hpp"
#include "coll/schedule.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "io/access.hpp"
#include "io/comm_util.hpp"
#include "io/posix.hpp"
#include "io/worker.hpp"

namespace baton::io {

namespace {

// A file access step of P2.
struct io_task {
  file* f = nullptr;
  bool write = false;
  std::vector<frun> pieces;  // the file runs; buffer byte b holds file byte base + b
  int64_t base = 0;
  bool lock_take = false;  // a read-modify-write: the read takes a write lock, the write drops it
  bool lock_drop = false;
  int64_t lock_lo = 0, lock_len = 0;
  bool worker = false;
  int state = 0;  // 0: not started, 1: on the worker, 2: done
  job j;
  errc err = errc::success;
  std::string msg;
};

void task_run(io_task* t, char* buf) {
  file* f = t->f;
  errc e = errc::success;
  if (t->lock_take) e = posix::lock(f->fd, f->name, posix::lock_kind::write, t->lock_lo, t->lock_len);
  for (size_t i = 0; i < t->pieces.size() && e == errc::success; ++i) {
    const frun& p = t->pieces[i];
    char* at = buf + (p.off - t->base);
    if (t->write) {
      e = posix::write_at(f->fd, f->name, at, p.len, p.off);
    } else {
      int64_t got = 0;
      e = posix::read_at(f->fd, f->name, at, p.len, p.off, &got);
      if (e == errc::success && got < p.len) std::memset(at + got, 0, size_t(p.len - got));  // past the end
    }
  }
  if (t->lock_drop || (t->lock_take && e != errc::success)) posix::unlock(f->fd, t->lock_lo, t->lock_len);
  if (e != errc::success) {
    t->err = e;
    t->msg = core::error_message();
  }
}

bool task_poll(const coll::poll_ctx& ctx, const coll::step& s) {
  auto* t = static_cast<io_task*>(s.arg);
  if (t->state == 0) {
    char* buf = ctx.address(s.a);
    if (t->worker) {
      t->j.work = [t, buf] { task_run(t, buf); };
      t->state = 1;
      worker_submit(&t->j);
      return false;
    }
    task_run(t, buf);
    t->state = 2;
  } else if (t->state == 1) {
    if (!t->j.done.load(std::memory_order_acquire)) return false;
    t->state = 2;
  }
  if (t->err != errc::success) {
    (void)core::error_set(t->err, "%s", t->msg.c_str());
    ctx.fail(t->err);
  }
  return true;
}

enum class stage : uint8_t { p0, p1, p2, indep, done };

// The slice of this rank's access inside one stripe.
struct slice {
  int64_t stripe;
  int64_t stream_off;
  int64_t bytes;
  size_t first, n;  // its runs in coll_op::runs
};

// One sender's runs inside one of this aggregator's stripes.
struct contribution {
  int rank;
  const int64_t* runs;  // (offset, length) pairs in in_buf
  int64_t n;
};

}  // namespace

struct coll_op {
  file* f = nullptr;
  transfer t;
  bool nonblocking = false;
  errc local = errc::success;
  std::string local_msg;
  stage st = stage::p0;
  core::request* cur = nullptr;
  errc error = errc::success;
  uint64_t seq1 = 0, seq2 = 0;
  int64_t stripe = 0;
  int naggs = 1;
  int my_agg = -1;
  std::vector<frun> runs;  // this rank's runs, cut at stripe boundaries
  std::vector<slice> slices;
  std::vector<int64_t> rec, all;
  std::vector<int64_t> out_buf, out_off, out_n;  // run lists to each aggregator
  std::vector<int64_t> in_buf, in_off, in_n;     // run lists from each rank (aggregators)
  std::vector<std::unique_ptr<io_task>> tasks;
  job indep;
  errc indep_err = errc::success;
  std::string indep_msg;
};

namespace {

// P0 record: error, lo, hi, unsorted (this rank's runs go backwards somewhere), then per aggregator
// the number of runs in its stripes.
constexpr int rec_counts = 4;
int rec_len(const coll_op* op) { return rec_counts + op->naggs; }

// Cuts this rank's runs at stripe boundaries and groups them by stripe.
void cut_runs(coll_op* op) {
  std::vector<frun> raw;
  view_runs(op->f->v, op->t.pos, op->t.len, raw);
  const int64_t S = op->stripe;
  int64_t stream = 0;
  for (const frun& r : raw) {
    int64_t off = r.off, len = r.len;
    while (len > 0) {
      const int64_t k = off / S;
      const int64_t n = std::min(len, (k + 1) * S - off);
      if (op->slices.empty() || op->slices.back().stripe != k)
        op->slices.push_back(slice{k, stream, 0, op->runs.size(), 0});
      op->runs.push_back(frun{off, n});
      op->slices.back().bytes += n;
      op->slices.back().n += 1;
      stream += n;
      off += n;
      len -= n;
    }
  }
}

core::request* start_plan(coll_op* op, coll::plan* p, const void* sendbuf, void* recvbuf, uint64_t seq, errc* e) {
  coll::builder(*p).finish();
  core::request* r = nullptr;
  *e = coll::run_start(p, op->f->c, sendbuf, recvbuf, coll::make_tag_prefix(seq, op->nonblocking), &r);
  p->release();  // the run holds its own reference
  return r;
}

// P1: run lists to the aggregators.
errc start_p1(coll_op* op) {
  file* f = op->f;
  const int n = f->size;
  op->in_n.assign(size_t(n), 0);
  op->in_off.assign(size_t(n), 0);
  int64_t total = 0;
  if (op->my_agg >= 0)
    for (int r = 0; r < n; ++r) {
      op->in_n[size_t(r)] = op->all[size_t(r) * size_t(rec_len(op)) + size_t(rec_counts + op->my_agg)];
      op->in_off[size_t(r)] = total;
      total += 2 * op->in_n[size_t(r)];
    }
  op->in_buf.resize(size_t(total));
  auto* p = new coll::plan;
  coll::builder b(*p);
  for (int a = 0; a < op->naggs; ++a)
    if (op->out_n[size_t(a)] > 0)
      b.send(f->aggregators[size_t(a)], {coll::slot_send, op->out_off[size_t(a)] * 8}, op->out_n[size_t(a)] * 16,
             byte_type());
  for (int r = 0; r < n; ++r)
    if (op->in_n[size_t(r)] > 0)
      b.recv(r, {coll::slot_recv, op->in_off[size_t(r)] * 8}, op->in_n[size_t(r)] * 16, byte_type());
  errc e = errc::success;
  op->cur = start_plan(op, p, op->out_buf.data(), op->in_buf.data(), op->seq1, &e);
  op->st = stage::p1;
  return e;
}

// The union of the contributions' runs (sorted, touching runs merged).
std::vector<frun> covered(const std::vector<contribution>& cs) {
  std::vector<frun> all;
  for (const contribution& c : cs)
    for (int64_t i = 0; i < c.n; ++i) all.push_back(frun{c.runs[2 * i], c.runs[2 * i + 1]});
  std::sort(all.begin(), all.end(), [](const frun& a, const frun& b) { return a.off < b.off; });
  std::vector<frun> u;
  for (const frun& r : all) {
    if (!u.empty() && r.off <= u.back().off + u.back().len)
      u.back().len = std::max(u.back().len, r.off + r.len - u.back().off);
    else
      u.push_back(r);
  }
  return u;
}

// Whether the runs of one sender in one stripe travel as one message per run (both sides then
// contiguous: the shared-memory transport copies such a message once, straight between the two
// processes) or as one message through an hindexed datatype (many small runs: fewer messages).
// Sender and aggregator decide alike from the same run list.
bool per_run(int64_t nruns, int64_t bytes) { return nruns > 1 && nruns <= 64 && bytes / nruns >= (int64_t{32} << 10); }

int64_t contribution_bytes(const contribution& c) {
  int64_t n = 0;
  for (int64_t i = 0; i < c.n; ++i) n += c.runs[2 * i + 1];
  return n;
}

// The datatype placing one contribution's bytes at their offsets in a buffer that starts at file
// offset lo: *count / *type for a step at buffer offset *at. Only bytes below `end` count (a read
// sends nothing from past the end of the file, so the receiver's buffer keeps its bytes there).
errc contribution_type(const contribution& c, int64_t lo, int64_t end, int64_t* at, int64_t* count,
                       const core::datatype** type, bool* owned) {
  std::vector<int64_t> lens, displs;
  for (int64_t i = 0; i < c.n && c.runs[2 * i] < end; ++i) {
    displs.push_back(c.runs[2 * i] - lo);
    lens.push_back(std::min(c.runs[2 * i + 1], end - c.runs[2 * i]));
  }
  *owned = false;
  *type = byte_type();
  *at = 0;
  *count = 0;
  if (lens.size() <= 1) {
    if (!lens.empty()) {
      *at = displs[0];
      *count = lens[0];
    }
    return errc::success;
  }
  core::datatype* t = nullptr;
  if (errc e = core::type_hindexed(int64_t(lens.size()), lens.data(), displs.data(), byte_type(), &t); e != errc::success)
    return e;
  if (errc e = t->commit(); e != errc::success) {
    t->release();
    return e;
  }
  *count = 1;
  *type = t;
  *owned = true;
  return errc::success;
}

// P2: the data, and the aggregators' file accesses.
errc start_p2(coll_op* op) {
  file* f = op->f;
  const bool write = op->t.write;
  auto* p = new coll::plan;
  p->short_recvs = !write;  // an aggregator sends none of a stripe's data past the end of the file
  coll::builder b(*p);
  // This rank's slices go to (writes) or come from (reads) their stripes' aggregators.
  for (const slice& s : op->slices) {
    const int agg = f->aggregators[size_t(s.stripe % op->naggs)];
    const auto kind = write ? coll::step_kind::send : coll::step_kind::recv;
    const uint8_t slot = write ? coll::slot_send : coll::slot_recv;
    if (!per_run(int64_t(s.n), s.bytes)) {
      b.add(coll::make_step(kind, agg, {slot, s.stream_off}, {}, s.bytes, byte_type()), {});
      continue;
    }
    int64_t at = s.stream_off;
    for (size_t i = s.first; i < s.first + s.n; ++i) {
      b.add(coll::make_step(kind, agg, {slot, at}, {}, op->runs[i].len, byte_type()), {});
      at += op->runs[i].len;
    }
  }
  // Reads: what lies past the end of the file is not read (the status says so).
  int64_t eof = INT64_MAX;
  if (!write) {
    if (errc x = posix::file_size(f->fd, f->name, &eof); x != errc::success) {
      p->release();
      return x;
    }
    op->t.done = std::clamp<int64_t>(view_stream_below(f->v, eof) - op->t.pos, 0, op->t.len);
  } else {
    op->t.done = op->t.len;
  }
  errc e = errc::success;
  if (op->my_agg >= 0) {
    // The contributions to each of this aggregator's stripes, stripe by stripe.
    std::map<int64_t, std::vector<contribution>> stripes;
    for (int r = 0; r < f->size; ++r) {
      const int64_t* runs = op->in_buf.data() + op->in_off[size_t(r)];
      for (int64_t i = 0, n = op->in_n[size_t(r)]; i < n;) {
        const int64_t k = runs[2 * i] / op->stripe;
        int64_t j = i + 1;
        while (j < n && runs[2 * j] / op->stripe == k) ++j;
        stripes[k].push_back(contribution{r, runs + 2 * i, j - i});
        i = j;
      }
    }
    int64_t span = 0;
    std::vector<std::pair<int64_t, int64_t>> bounds;
    for (auto& [k, cs] : stripes) {
      int64_t lo = INT64_MAX, hi = 0;
      for (const contribution& c : cs)
        for (int64_t i = 0; i < c.n; ++i) {
          lo = std::min(lo, c.runs[2 * i]);
          hi = std::max(hi, c.runs[2 * i] + c.runs[2 * i + 1]);
        }
      bounds.emplace_back(lo, hi);
      span = std::max(span, hi - lo);
    }
    const size_t nstripes = stripes.size();
    uint8_t buf[2] = {0, 0};
    if (nstripes > 0) buf[0] = b.temp(span);
    if (nstripes > 1) buf[1] = b.temp(span);
    // Blocking accesses of a single stripe run the file access in the caller; otherwise the
    // worker does, so that the exchange of the next stripe overlaps it.
    const bool worker = op->nonblocking || core::rt().threaded || nstripes > 1;
    std::vector<uint32_t> last_access(2, UINT32_MAX);  // per buffer: the steps that free it
    std::vector<std::vector<uint32_t>> frees(2);
    size_t j = 0;
    for (auto& [k, cs] : stripes) {
      const auto [lo, hi] = bounds[j];
      const int bi = int(j % 2);
      const coll::buf_ref at{buf[bi], 0};
      std::vector<uint32_t> ready = frees[size_t(bi)];  // the buffer's previous stripe is done with it
      const std::vector<frun> u = covered(cs);
      int64_t data = 0;
      for (const frun& r : u) data += r.len;
      auto task = std::make_unique<io_task>();
      task->f = f;
      task->base = lo;
      task->worker = worker;
      std::vector<uint32_t> done_with;
      if (write) {
        const bool full = u.size() == 1;
        const bool rmw = !full && u.size() > 16 && f->h.ds_write != tri::disable;
        if (rmw) {
          auto rd = std::make_unique<io_task>();
          rd->f = f;
          rd->base = lo;
          rd->worker = worker;
          rd->pieces.push_back(frun{lo, hi - lo});
          rd->lock_take = true;
          rd->lock_lo = lo;
          rd->lock_len = hi - lo;
          ready = {b.task(task_poll, rd.get(), at, hi - lo, byte_type(), ready)};
          op->tasks.push_back(std::move(rd));
          task->pieces.push_back(frun{lo, hi - lo});
          task->lock_drop = true;
          task->lock_lo = lo;
          task->lock_len = hi - lo;
        } else {
          task->pieces = u;
        }
        task->write = true;
        std::vector<uint32_t> recvs;
        for (const contribution& c : cs) {
          if (per_run(c.n, contribution_bytes(c))) {
            for (int64_t i = 0; i < c.n; ++i)
              recvs.push_back(b.add(coll::make_step(coll::step_kind::recv, c.rank, {buf[bi], c.runs[2 * i] - lo}, {},
                                                    c.runs[2 * i + 1], byte_type()),
                                    ready));
            continue;
          }
          int64_t off = 0, count = 0;
          const core::datatype* t = nullptr;
          bool owned = false;
          if (e = contribution_type(c, lo, INT64_MAX, &off, &count, &t, &owned); e != errc::success) break;
          recvs.push_back(b.add(coll::make_step(coll::step_kind::recv, c.rank, {buf[bi], off}, {}, count, t), ready));
          if (owned) t->release();
        }
        if (e != errc::success) break;
        done_with = {b.task(task_poll, task.get(), at, data, byte_type(), recvs)};
      } else {
        // A stripe mostly holes is read piece by piece, else its hull at once.
        if (u.size() <= 64 && (hi - lo) > 2 * data)
          task->pieces = u;
        else
          task->pieces.push_back(frun{lo, hi - lo});
        const uint32_t rd = b.task(task_poll, task.get(), at, data, byte_type(), ready);
        for (const contribution& c : cs) {
          if (per_run(c.n, contribution_bytes(c))) {
            // Nothing from past the end of the file: a shorter message leaves the rest of the
            // receiver's buffer as it was.
            for (int64_t i = 0; i < c.n; ++i) {
              const int64_t off = c.runs[2 * i];
              const int64_t n = std::clamp<int64_t>(eof - off, 0, c.runs[2 * i + 1]);
              done_with.push_back(
                  b.add(coll::make_step(coll::step_kind::send, c.rank, {buf[bi], off - lo}, {}, n, byte_type()), {rd}));
            }
            continue;
          }
          int64_t off = 0, count = 0;
          const core::datatype* t = nullptr;
          bool owned = false;
          if (e = contribution_type(c, lo, eof, &off, &count, &t, &owned); e != errc::success) break;
          done_with.push_back(b.add(coll::make_step(coll::step_kind::send, c.rank, {buf[bi], off}, {}, count, t), {rd}));
          if (owned) t->release();
        }
        if (e != errc::success) break;
      }
      op->tasks.push_back(std::move(task));
      frees[size_t(bi)] = done_with;
      ++j;
    }
  }
  if (e != errc::success) {
    p->release();
    return e;
  }
  op->cur = start_plan(op, p, op->t.stream, op->t.stream, op->seq2, &e);
  op->st = stage::p2;
  return e;
}

errc start_indep(coll_op* op) {
  op->st = stage::indep;
  if (!op->nonblocking) {
    op->indep_err = indep_run(&op->t);
    op->indep.done.store(true, std::memory_order_relaxed);
    return op->indep_err;
  }
  op->indep.work = [op] {
    op->indep_err = indep_run(&op->t);
    if (op->indep_err != errc::success) op->indep_msg = core::error_message();
  };
  worker_submit(&op->indep);
  return errc::success;
}

// After P0: everyone's verdict, then two-phase or independent.
errc decide(coll_op* op) {
  file* f = op->f;
  const int L = rec_len(op);
  for (int r = 0; r < f->size; ++r) {
    const int64_t err = op->all[size_t(r) * size_t(L)];
    if (err != 0) {
      op->st = stage::done;
      if (r == f->rank) return core::error_set(errc(err), "%s", op->local_msg.c_str());
      return core::error_set(errc(err), "rank %d could not take part in this collective access (%s)", r,
                             core::errc_name(errc(err)));
    }
  }
  // Ranges of the ranks with data, in file order: do they interleave? Two-phase needs every
  // rank's runs in file order (slices of its stream per stripe); otherwise independent access.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  bool unsorted = false;
  for (int r = 0; r < f->size; ++r) unsorted |= op->all[size_t(r) * size_t(L) + 3] != 0;
  for (int r = 0; r < f->size; ++r) {
    const int64_t lo = op->all[size_t(r) * size_t(L) + 1], hi = op->all[size_t(r) * size_t(L) + 2];
    if (hi > lo) ranges.emplace_back(lo, hi);
  }
  if (ranges.empty()) {
    op->st = stage::done;
    return errc::success;
  }
  std::sort(ranges.begin(), ranges.end());
  bool interleaved = false;
  for (size_t i = 1; i < ranges.size(); ++i) interleaved |= ranges[i].first < ranges[i - 1].second;
  const tri mode = op->t.write ? f->h.cb_write : f->h.cb_read;
  const bool two_phase = !f->atomic && !unsorted && (mode == tri::enable || (mode == tri::automatic && interleaved));
  if (!two_phase) return start_indep(op);
  return start_p1(op);
}
}  // namespace

errc coll_start(file* f, const access& a, int64_t etype_off, errc local, bool nonblocking, coll_op** out) {
  auto op = std::make_unique<coll_op>();
  op->f = f;
  op->nonblocking = nonblocking;
  op->t.write = a.write;
  if (local == errc::success) local = transfer_prepare(f, a, etype_off, &op->t);
  if (local != errc::success) op->local_msg = core::error_message();
  op->local = local;
  op->naggs = int(f->aggregators.size());
  for (int i = 0; i < op->naggs; ++i)
    if (f->aggregators[size_t(i)] == f->rank) op->my_agg = i;
  int64_t S = f->h.cb_buffer_size;
  if (f->h.striping_unit > 0) S = std::max<int64_t>(1, S / f->h.striping_unit) * f->h.striping_unit;
  op->stripe = S;
  if (f->size == 1) {
    // Nobody to aggregate with.
    if (local != errc::success) return local;
    (void)start_indep(op.get());
    *out = op.release();
    return errc::success;
  }
  op->rec.assign(size_t(rec_len(op.get())), 0);
  op->rec[0] = int64_t(local);
  op->out_n.assign(size_t(op->naggs), 0);
  op->out_off.assign(size_t(op->naggs), 0);
  if (local == errc::success && op->t.len > 0) {
    cut_runs(op.get());
    int64_t lo = INT64_MAX, hi = 0;
    for (const frun& r : op->runs) {
      lo = std::min(lo, r.off);
      hi = std::max(hi, r.off + r.len);
    }
    op->rec[1] = lo;
    op->rec[2] = hi;
    for (size_t i = 1; i < op->runs.size() && op->rec[3] == 0; ++i) op->rec[3] = op->runs[i].off < op->runs[i - 1].off;
    // Run lists per aggregator, in stripe order (each list sorted by offset).
    for (const slice& s : op->slices) op->out_n[size_t(s.stripe % op->naggs)] += int64_t(s.n);
    int64_t at = 0;
    for (int i = 0; i < op->naggs; ++i) {
      op->out_off[size_t(i)] = at;
      at += 2 * op->out_n[size_t(i)];
      op->rec[size_t(rec_counts) + size_t(i)] = op->out_n[size_t(i)];
    }
    op->out_buf.resize(size_t(at));
    std::vector<int64_t> fill(op->out_off);
    for (const slice& s : op->slices) {
      int64_t& w = fill[size_t(s.stripe % op->naggs)];
      for (size_t i = s.first; i < s.first + s.n; ++i) {
        op->out_buf[size_t(w++)] = op->runs[i].off;
        op->out_buf[size_t(w++)] = op->runs[i].len;
      }
    }
  }
  op->all.resize(size_t(rec_len(op.get())) * size_t(f->size));
  coll::coll_args g;
  g.kind = coll::coll_kind::allgather;
  g.c = f->c;
  g.sendbuf = op->rec.data();
  g.recvbuf = op->all.data();
  g.count = g.rcount = int64_t(op->rec.size() * 8);
  g.type = g.rtype = byte_type();
  if (errc e = coll::start(g, true, &op->cur); e != errc::success) return e;
  op->seq1 = f->c->coll_seq++;
  op->seq2 = f->c->coll_seq++;
  op->st = stage::p0;
  *out = op.release();
  return errc::success;
}

bool coll_advance(coll_op* op) {
  for (;;) {
    switch (op->st) {
      case stage::done:
        return true;
      case stage::indep:
        if (!op->indep.done.load(std::memory_order_acquire)) return false;
        if (op->indep_err != errc::success) {
          op->error = op->nonblocking ? core::error_set(op->indep_err, "%s", op->indep_msg.c_str()) : op->indep_err;
        }
        op->st = stage::done;
        return true;
      case stage::p0:
      case stage::p1:
      case stage::p2: {
        if (!op->cur->is_complete()) return false;
        errc e = op->cur->status.error;
        core::request_delete(op->cur);
        op->cur = nullptr;
        if (e == errc::success) {
          if (op->st == stage::p0)
            e = decide(op);
          else if (op->st == stage::p1)
            e = start_p2(op);
          else
            op->st = stage::done;
        }
        if (e != errc::success) {
          op->error = e;
          // A failed start leaves no plan to wait for; one that started still runs to its end.
          if (!op->cur) op->st = stage::done;
        }
        break;
      }
    }
  }
}

void coll_kick(coll_op* op) {
  // Ranks usually start a collective access together: its first exchanges (small records and run
  // lists) then complete within microseconds, and what follows needs no other rank to run (the
  // worker's file access, or the data exchange a progress thread drives). Waiting that long here
  // rather than at the next MPI call is what lets the access overlap the computation after it.
  const uint64_t until = core::progress_now_ns() + 50000;
  while (op->st == stage::p0 || op->st == stage::p1) {
    (void)core::progress_poll();
    if (coll_advance(op) || core::progress_now_ns() > until) return;
  }
}

errc coll_finish(coll_op* op, core::req_status* st) {
  std::unique_ptr<coll_op> hold(op);
  if (op->error != errc::success) return op->error;
  if (op->local != errc::success) return op->local;
  return transfer_finish(&op->t, st);
}

}  // namespace baton::io
