#!/usr/bin/env python3
"""Baton benchmark driver: builds every benchmark against Baton, MPICH and
Open MPI, runs them interleaved in one session, and writes a report.

Normally started through bench/run.sh (which installs missing packages);
see bench/README.md for the options and the method.

Adding a benchmark: write bench/<name>.c (plain MPI, prints
'RESULT <name> <size> <value> <unit>' from rank 0) and add one Bench(...)
line to BENCHMARKS below.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent


@dataclass(frozen=True)
class Bench:
    name: str  # source bench/<name>.c, and the tag in its RESULT lines
    ranks: int  # processes to launch
    unit: str  # which RESULT unit goes into the table and plot
    better: str  # "lower" or "higher": decides the best peer and the ratio's sense
    title: str
    yscale: str  # plot y axis: "log" or "linear" (x is always log2 of the size)
    # Series benchmarks print 'RESULT <name>/<series> <size> ...' (one program,
    # several operations); rows are (series, size) and the plot is grouped bars.
    series: bool = False
    # Also run the libraries' environment variants (Baton+progress thread,
    # MPICH+async): same executable, second label, extra environment.
    env_variants: bool = False
    # The C source (bench/<source>.c) when it is not bench/<name>.c: one program registered at
    # several rank counts. Such a program takes its RESULT tag from its executable's name.
    source: str = ""


# The registry.  One line per benchmark; order is the report's order.
BENCHMARKS = [
    Bench("pt2pt_latency", 2, "us", "lower", "Ping-pong latency (half round trip)", "log"),
    Bench("pt2pt_bandwidth", 2, "GB/s", "higher", "Streaming bandwidth (window of 64 Isend)", "linear"),
    Bench("pt2pt_mt_rate", 2, "Mmsg/s", "higher", "8-byte message rate from 1 and 2 threads per rank "
          "(MPI_THREAD_MULTIPLE, a communicator per thread)", "linear", series=True),
    Bench("coll_latency", 2, "us", "lower", "Collective time per call (max over ranks)", "log", series=True,
          env_variants=True),
    Bench("coll_overlap", 2, "pct", "higher", "IMB-NBC overlap of nonblocking collectives with work", "linear",
          series=True, env_variants=True),
    Bench("coll_persistent", 2, "us", "lower", "Repeated collective: blocking, I+Wait, persistent (init once, Start+Wait)",
          "log", series=True),
    Bench("comm_create", 2, "us", "lower", "Communicator creation + free (max over ranks)", "log", series=True),
    Bench("queue_ring", 2, "us", "lower", "Example 13.1 ring per iteration (queue / Startall / Isend) and "
          "matched-send ping-pong", "log", series=True),
    Bench("dynamic", 2, "us", "lower", "Dynamic processes: spawn until the merged barrier, connect until the "
          "first message", "log", series=True),
    Bench("io_coll", 2, "GB/s", "higher", "Collective write / read of a 3-D block-distributed array (subarray "
          "view), 2 ranks", "linear", series=True),
    Bench("io_coll_np4", 4, "GB/s", "higher", "Collective write / read of a 3-D block-distributed array (subarray "
          "view), 4 ranks", "linear", series=True, source="io_coll"),
    Bench("io_overlap", 2, "pct", "higher", "MPI_File_iwrite_all overlapped with work (64 MiB, subarray view)",
          "linear", series=True, env_variants=True),
]

UNIT_LABEL = {"us": "µs", "GB/s": "GB/s", "MB/s": "MB/s", "pct": "% overlap", "Mmsg/s": "M msg/s"}

# Environment variants: (key, label, base library key, extra environment).
# They reuse the base library's executables and run only for benchmarks with
# env_variants=True.
ENV_VARIANTS = [
    ("baton-async", "Baton+progress thread", "baton", {"BATON_ASYNC_PROGRESS": "1"}),
    ("mpich-async", "MPICH+async", "mpich", {"MPIR_CVAR_ASYNC_PROGRESS": "1"}),
]
ALL_LIBS = "baton,baton-async,mpich,mpich-async,openmpi"

# Extra text under a benchmark's heading in the report.
BENCH_NOTES = {
    "pt2pt_mt_rate": "threads<T>: T threads per rank (MPI_THREAD_MULTIPLE), thread t of rank 0 streaming to thread t "
    "of rank 1 on a communicator of its own as pt2pt_bandwidth does (window of 64 Isend/Irecv of 8 B, Waitall, ack); "
    "all threads' messages over the batch's wall time. threads1: one thread under MPI_THREAD_MULTIPLE (the cost of "
    "thread safety); threads2: four threads on the 2 ranks; threads2.busy: threads2 while a third thread per rank "
    "computes outside MPI.",
    "comm_create": "dup, idup (+ wait), 8 idups outstanding (per communicator) and a two-color split, each "
    "followed by MPI_Comm_free; listed at 0 B.",
    "coll_latency": "Per-rank message size (alltoall: the block sent to each peer); ibarrier is listed at 0 B. "
    "Each batch's value is the slowest rank's mean time per call. <op>.paired (8 B): the blocking and "
    "nonblocking forms with their batches alternating (same machine phase; their ratio is the nonblocking "
    "form's cost). iallreduce.nbcomm: MPI_Iallreduce + MPI_Wait on a duplicate of MPI_COMM_WORLD that only "
    "ever sees nonblocking collectives.",
    "coll_persistent": "Rows <op>.blocking / .nonblocking (I<op> + Wait) / .persistent (<Op>_init once, untimed; then "
    "Start + Wait). Open MPI 4.1 runs its MPIX_<Op>_init (mpi-ext.h pcollreq extension); a library without "
    "persistent collectives has no .persistent rows.",
    "queue_ring": "ring.*: time per iteration of Example 13.1's exchange with both neighbours (size = bytes "
    "per message); ring.queue enqueues every iteration of a batch on a default MPI_Queue and fences once "
    "(Baton only: MPICH and Open MPI have no MPI_Queue); ring.startall uses the same (in Baton matched) "
    "persistent requests. pingpong.*: half round trip with persistent matched requests (Baton only), plain "
    "persistent requests, and Irecv/Isend. ring.queue.paired / ring.startall.paired: the queue and Startall "
    "rings with their batches alternating (same machine phase for both; their ratio is the queue's cost).",
    "dynamic": "spawn1 / spawn4: MPI_Comm_spawn of 1 / 4 children by 2 parents, then MPI_Intercomm_merge and a "
    "barrier on the merged communicator (slowest parent, from the call until the barrier is over). connect: "
    "MPI_Comm_connect to a port of the other rank (MPI_COMM_SELF on each side) and one 8-byte round trip. "
    "Median of the timed repetitions; listed at 0 B.",
    "io_coll": "MPI_File_write_at_all / read_at_all of the whole array (64 MiB: 128x256x256 doubles, 1 GiB: 512^3), "
    "blocks by MPI_Dims_create, each rank's block its subarray filetype; between barriers, no MPI_File_sync (the "
    "page cache, for every library: the libraries' own cost, not the disk's); the same file overwritten each sample. "
    "At 2 ranks the blocks do not interleave in the file (libraries may write independently), at 4 they do "
    "(two-phase collective buffering).",
    "io_coll_np4": "As io_coll, at 4 ranks (oversubscribed on 2 cores).",
    "io_overlap": "overlap = 100 x (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu) for MPI_File_iwrite_at_all of "
    "io_coll's 64 MiB array; `busy`: a compute loop, `idle`: nanosleep. Times in the logs.",
    "coll_overlap": "overlap = 100 x (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu), clamped to 0..100, "
    "with t_cpu calibrated to about t_pure. `busy`: a compute loop; `idle`: nanosleep (the application "
    "waits without the CPU). t_pure, t_cpu and t_ovrl per launch are in the logs "
    "(`RESULT coll_overlap/<op>.<kind>.t_* <size> <us> us`).",
}


@dataclass
class Library:
    key: str  # short, file-safe
    label: str  # as shown in the report
    mpicc: str
    mpiexec: str
    launch_args: list[str] = field(default_factory=list)  # between mpiexec and -n
    version: str = ""
    na_reason: str | None = None  # set when the whole library is unusable
    env: dict[str, str] = field(default_factory=dict)  # added to the launch's environment
    base: str = ""  # key of the library whose executables it runs (itself when empty)

    @property
    def build_key(self) -> str:
        return self.base or self.key

    @property
    def is_baton(self) -> bool:
        return self.build_key == "baton"


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def tail(text: str, lines: int = 6) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tool_version(mpiexec: str) -> str:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown version"
    text = out.stdout + out.stderr
    m = re.search(r"(\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?)", text)
    version = m.group(1) if m else "unknown version"
    dev = re.search(r"--with-device=(\S+?)'", text)
    return f"{version} ({dev.group(1)})" if dev else version


def resolve(cmd: str) -> str | None:
    if os.sep in cmd:
        return cmd if os.access(cmd, os.X_OK) else None
    return shutil.which(cmd)


def make_libraries(args) -> list[Library]:
    baton_dir = Path(args.baton_build)
    if not baton_dir.is_absolute():
        baton_dir = REPO / baton_dir
    libs = [
        Library("baton", "Baton", str(baton_dir / "bin" / "mpicc"), str(baton_dir / "bin" / "mpiexec")),
        Library("mpich", "MPICH", "mpicc.mpich", "mpiexec.mpich"),
        Library(
            "openmpi",
            "Open MPI",
            "mpicc.openmpi",
            "mpiexec.openmpi",
            (["--allow-run-as-root"] if is_root() else []) + ["--oversubscribe"],
        ),
    ]
    for key, label, base, env in ENV_VARIANTS:
        parent = next(lib for lib in libs if lib.key == base)
        libs.append(Library(key, label, parent.mpicc, parent.mpiexec, list(parent.launch_args), env=dict(env), base=base))
    order = ALL_LIBS.split(",")
    libs.sort(key=lambda lib: order.index(lib.key))
    wanted = set(args.libs.split(","))
    libs = [lib for lib in libs if lib.key in wanted]
    for lib in libs:
        missing = [c for c in (lib.mpicc, lib.mpiexec) if resolve(c) is None]
        if missing:
            hint = ""
            if lib.is_baton:
                hint = (
                    f" (build Baton first: cmake -S . -B {args.baton_build} -G Ninja && "
                    f"cmake --build {args.baton_build}, or pass --build-baton)"
                )
            lib.na_reason = "not found: " + ", ".join(missing) + hint
        elif lib.is_baton:
            lib.version = f"{baton_dir} (repository at git {args.git_head})"
        else:
            lib.version = tool_version(lib.mpiexec)
        if lib.env:
            lib.version += "; environment " + " ".join(f"{k}={v}" for k, v in lib.env.items())
    return libs


def git_head() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def build_baton(args, log_dir: Path) -> str | None:
    """Configure and build Baton; returns a failure reason or None."""
    build = Path(args.baton_build)
    if not build.is_absolute():
        build = REPO / build
    log = log_dir / "baton-build.log"
    steps = [
        ["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja"],
        ["cmake", "--build", str(build)],
    ]
    with log.open("w") as f:
        for cmd in steps:
            print("  $", " ".join(cmd), flush=True)
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
            if rc != 0:
                return f"Baton build failed ({' '.join(cmd[:2])}...: exit {rc}); see {log}"
    return None


def compile_all(libs, benches, out: Path, log_dir: Path, cflags: list[str]) -> dict:
    """Returns {(lib.key, bench.name): executable path or failure reason}."""
    built: dict[tuple[str, str], dict] = {}
    done = set()
    for lib in libs:
        # Variants run their base library's executables: build once per base,
        # even when only the variant was asked for.
        if lib.na_reason or lib.build_key in done:
            continue
        done.add(lib.build_key)
        name = lib.base or lib.label
        bin_dir = out / "build" / lib.build_key
        bin_dir.mkdir(parents=True, exist_ok=True)
        for b in benches:
            exe = bin_dir / b.name
            src = BENCH_DIR / f"{b.source or b.name}.c"
            cmd = [lib.mpicc, *cflags, "-I", str(BENCH_DIR), "-o", str(exe), str(src)]
            res = subprocess.run(cmd, capture_output=True, text=True)
            (log_dir / f"compile.{b.name}.{lib.build_key}.log").write_text(" ".join(cmd) + "\n" + res.stdout + res.stderr)
            if res.returncode != 0:
                missing = sorted(set(re.findall(r"undefined reference to `(\w+)'", res.stderr)))
                if missing:
                    reason = f"link failed, library lacks: {', '.join(missing)}"
                else:
                    reason = f"compile failed: {one_line(tail(res.stderr or res.stdout, 3))}"
                built[(b.name, lib.build_key)] = {"error": reason}
                print(f"  {name:9s} {b.name}: {reason}", flush=True)
            else:
                built[(b.name, lib.build_key)] = {"exe": str(exe)}
        ok = [b.name for b in benches if "exe" in built[(b.name, lib.build_key)]]
        print(f"  {name:9s} built: {', '.join(ok) if ok else 'nothing'}", flush=True)
    for lib in libs:
        if lib.base and not lib.na_reason:
            for b in benches:
                if (b.name, lib.base) in built:
                    built[(b.name, lib.key)] = built[(b.name, lib.base)]
                else:
                    built[(b.name, lib.key)] = {"error": f"{lib.base} was not built"}
    return built


def libs_for(b: Bench, libs):
    """The libraries a benchmark runs with: environment variants only where it asks for them."""
    return [lib for lib in libs if not lib.base or b.env_variants]


RESULT_RE = re.compile(r"^RESULT\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$")


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the launcher's process group (lets mpiexec take its ranks down), then SIGKILL."""
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def run_one(lib: Library, b: Bench, ranks: int, exe: str, bench_args: list[str], timeout: float, log: Path):
    """One launch; returns ({(series, size): value}, error or None, seconds)."""
    cmd = [lib.mpiexec, *lib.launch_args, "-n", str(ranks), exe, *bench_args]
    env = {**os.environ, **lib.env}
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        error = None if proc.returncode == 0 else f"exit code {proc.returncode}"
    except subprocess.TimeoutExpired:
        stop_group(proc)
        stdout, stderr = proc.communicate()
        error = f"timed out after {timeout:.0f} s"
    except BaseException:  # Ctrl-C or SIGTERM: don't leave ranks spinning
        stop_group(proc)
        raise
    seconds = time.monotonic() - start
    env_text = "".join(f"{k}={v} " for k, v in lib.env.items())
    log.write_text(f"$ {env_text}{' '.join(cmd)}\n# {seconds:.2f} s, {error or 'ok'}\n--- stdout\n{stdout}\n--- stderr\n{stderr}")
    values = {}
    for line in stdout.splitlines():
        m = RESULT_RE.match(line.strip())
        if not m or m.group(4) != b.unit:
            continue
        tag = m.group(1)
        if tag == b.name and not b.series:
            series = ""
        elif b.series and tag.startswith(b.name + "/"):
            series = tag[len(b.name) + 1 :]
        else:
            continue
        try:
            values[(series, int(m.group(2)))] = float(m.group(3))
        except ValueError:
            pass
    if error is None and not values:
        error = "no RESULT lines"
    if error:
        detail = one_line(tail(stderr, 3)) if stderr.strip() else ""
        error = f"{error}{': ' + detail if detail else ''} (log: {log})"
    return values, error, seconds


def fmt_size(n: int) -> str:
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt_value(v: float | None) -> str:
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    mag = abs(v)
    if mag >= 100:
        return f"{v:.1f}"
    if mag >= 10:
        return f"{v:.2f}"
    if mag >= 0.1:
        return f"{v:.3f}"
    if mag >= 0.001:
        return f"{v:.4f}"
    return f"{v:.2e}"  # keeps very small bandwidths from printing as 0.0000


def median_or_none(xs):
    return statistics.median(xs) if xs else None


def row_keys(b: Bench, libs, data) -> list[tuple[str, int]]:
    """Rows of a benchmark's table, (series, size): series in first-seen order, then size."""
    series_order: dict[str, int] = {}
    keys = set()
    for lib in libs:
        for key in data.get((b.name, lib.key), {}):
            series_order.setdefault(key[0], len(series_order))
            keys.add(key)
    return sorted(keys, key=lambda k: (series_order[k[0]], k[1]))


def fmt_row(key: tuple[str, int]) -> str:
    series, size = key
    return f"{series} {fmt_size(size)}" if series else fmt_size(size)


def bench_table(b: Bench, libs, data) -> list[str]:
    """Markdown rows: size, one column per library, ratio Baton / best peer."""
    labels = [lib.label for lib in libs]
    has_baton = any(lib.key == "baton" for lib in libs)
    peers = [lib for lib in libs if not lib.is_baton]
    # Percentages compare by difference (a ratio of two small overlaps means little).
    compare = "Baton - best peer (points)" if b.unit == "pct" else "Baton / best peer"
    head = ["Operation, size" if b.series else "Size", *labels] + ([compare] if has_baton else [])
    rows = ["| " + " | ".join(head) + " |", "|" + ("---|" if b.series else "---:|") + "|".join(["---:"] * (len(head) - 1)) + "|"]
    for size in row_keys(b, libs, data):
        meds = {lib.key: median_or_none(data.get((b.name, lib.key), {}).get(size, [])) for lib in libs}
        cells = [fmt_row(size)] + [fmt_value(meds[lib.key]) for lib in libs]
        if has_baton:
            peer_vals = [meds[p.key] for p in peers if meds[p.key] is not None]
            best = (min if b.better == "lower" else max)(peer_vals) if peer_vals else None
            baton = meds.get("baton")
            if b.unit == "pct":
                cells.append(f"{baton - best:+.0f}" if baton is not None and best is not None else "n/a")
            else:
                cells.append(f"{baton / best:.2f}" if baton is not None and best else "n/a")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def spread_line(b: Bench, libs, data) -> str:
    """Median over sizes of (max - min) / median across repetitions, per library."""
    parts = []
    for lib in libs:
        per_size = data.get((b.name, lib.key), {})
        rel = [
            (max(v) - min(v)) / statistics.median(v)
            for v in per_size.values()
            if len(v) >= 2 and statistics.median(v) > 0
        ]
        parts.append(f"{lib.label} {100 * statistics.median(rel):.0f}%" if rel else f"{lib.label} n/a")
    return "Run-to-run spread (median over sizes of (max-min)/median): " + ", ".join(parts)


# The headline rows: the README's one benchmark table is summary.md, and its plot summary.png,
# both written by every run from the rows below that the run measured. (bench, Baton's series,
# the peers' series (None: the same), size, label, Baton variant to show, peers' variants).
HEADLINE = [
    ("pt2pt_latency", "", None, 8, "Ping-pong latency, 8 B", "baton", ("mpich", "openmpi")),
    ("pt2pt_latency", "", None, 1024, "Ping-pong latency, 1 KiB", "baton", ("mpich", "openmpi")),
    ("pt2pt_latency", "", None, 1 << 20, "Ping-pong latency, 1 MiB", "baton", ("mpich", "openmpi")),
    ("pt2pt_bandwidth", "", None, 8, "Streaming 8 B messages (window of 64)", "baton", ("mpich", "openmpi")),
    ("pt2pt_bandwidth", "", None, 1 << 20, "Streaming bandwidth, 1 MiB", "baton", ("mpich", "openmpi")),
    ("pt2pt_mt_rate", "threads2", None, 8, "8 B message rate, 2 threads per rank (THREAD_MULTIPLE)", "baton",
     ("mpich", "openmpi")),
    ("coll_latency", "allreduce", None, 8, "Allreduce, 8 B", "baton", ("mpich", "openmpi")),
    ("coll_latency", "allreduce", None, 1 << 20, "Allreduce, 1 MiB", "baton", ("mpich", "openmpi")),
    ("coll_latency", "bcast", None, 1 << 20, "Bcast, 1 MiB", "baton", ("mpich", "openmpi")),
    ("coll_latency", "ialltoall", None, 65536, "Ialltoall + Wait, 64 KiB", "baton", ("mpich", "openmpi")),
    ("coll_latency", "ialltoall", None, 1 << 20, "Ialltoall + Wait, 1 MiB", "baton", ("mpich", "openmpi")),
    ("coll_persistent", "allreduce.persistent", None, 8, "Persistent allreduce, 8 B", "baton", ("mpich", "openmpi")),
    ("coll_overlap", "iallreduce.idle", None, 1 << 20, "Iallreduce overlap of an idle wait, 1 MiB",
     "baton-async", ("mpich-async", "openmpi")),
    ("queue_ring", "ring.queue", "ring.isend", 8192, "Example 13.1 ring, 8 KiB (peers: Isend ring)", "baton",
     ("mpich", "openmpi")),
    ("comm_create", "dup", None, 0, "MPI_Comm_dup + free", "baton", ("mpich", "openmpi")),
    ("io_coll", "write", None, 64 << 20, "Collective write, 64 MiB 3-D subarray view", "baton", ("mpich", "openmpi")),
    ("io_coll", "read", None, 64 << 20, "Collective read, 64 MiB 3-D subarray view", "baton", ("mpich", "openmpi")),
    ("io_overlap", "iwrite_all.idle", None, 64 << 20, "MPI_File_iwrite_all overlap of an idle wait, 64 MiB",
     "baton-async", ("mpich-async", "openmpi")),
    ("dynamic", "spawn1", None, 0, "MPI_Comm_spawn of 1 child until the merged barrier", "baton",
     ("mpich", "openmpi")),
    ("dynamic", "connect", None, 0, "MPI_Comm_connect/accept and one message", "baton", ("mpich", "openmpi")),
]


def headline_rows(benches, libs, data):
    """(label, unit, better, Baton, MPICH, Open MPI) for each headline row this run measured."""
    by_name = {b.name: b for b in benches}
    have = {lib.key for lib in libs if not lib.na_reason}
    rows = []
    for bench, series, peer_series, size, label, baton_key, peer_keys in HEADLINE:
        b = by_name.get(bench)
        if b is None:
            continue

        def med(lib_key, ser):
            if lib_key not in have:
                return None
            return median_or_none(data.get((bench, lib_key), {}).get((ser, size), []))

        baton = med(baton_key, series)
        peers = [med(k, peer_series if peer_series is not None else series) for k in peer_keys]
        if baton is None and all(p is None for p in peers):
            continue
        rows.append((label, b.unit, b.better, baton, *peers))
    return rows


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def write_summary(benches, libs, data, out: Path, started, head: str, load: float) -> None:
    """summary.md (the README's table) and summary.png (its plot: how many times faster Baton is
    than the better peer on each row; percentages as the difference in points)."""
    rows = headline_rows(benches, libs, data)
    if not rows:
        return
    lines = [
        f"Measured {started:%Y-%m-%d %H:%M} UTC on `{platform.node()}` ({os.cpu_count()} CPUs, "
        f"{cpu_model()}), git {head}, 2 ranks, load average {load:.1f} at the start, "
        "medians of interleaved launches (`bench/run.sh`; details in its report.md):",
        "",
        "| | Baton | MPICH | Open MPI | Baton vs best peer |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    bars = []
    for label, unit, better, baton, mpich, ompi in rows:
        peer_vals = [v for v in (mpich, ompi) if v is not None]
        best = (min if better == "lower" else max)(peer_vals) if peer_vals else None
        u = UNIT_LABEL.get(unit, unit)
        if baton is None or best is None or best == 0 or baton == 0:
            verdict, speed = "n/a", None
        elif unit == "pct":
            verdict, speed = f"{baton - best:+.0f} points", None
        else:
            speed = best / baton if better == "lower" else baton / best
            verdict = f"{speed:.2f}x {'faster' if speed >= 1 else 'slower'}"
        cells = [fmt_value(v) + (f" {u}" if v is not None and unit != "pct" else ("%" if v is not None else ""))
                 for v in (baton, mpich, ompi)]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {verdict} |")
        if speed is not None:
            bars.append((label, speed))
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    if not bars:
        return
    fig, ax = plt.subplots(figsize=(8, 0.38 * len(bars) + 1.2))
    labels = [b[0] for b in bars][::-1]
    vals = [b[1] for b in bars][::-1]
    ax.barh(labels, vals, color=["tab:red" if v >= 1 else "tab:gray" for v in vals])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Baton's speed relative to the better of MPICH and Open MPI (>1: Baton faster)")
    ax.set_title(f"Baton vs MPICH / Open MPI, {started:%Y-%m-%d}, 2 ranks", fontsize=10)
    for y, v in enumerate(vals):
        ax.text(v, y, f" {v:.2f}x", va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "summary.png", dpi=110)
    plt.close(fig)


STYLES = {
    "baton": ("tab:red", "o"),
    "baton-async": ("tab:orange", "D"),
    "mpich": ("tab:blue", "s"),
    "mpich-async": ("tab:cyan", "v"),
    "openmpi": ("tab:green", "^"),
}


def plot_bars(b: Bench, libs, data, na_notes: list[str], path: Path, plt) -> bool:
    """Series benchmarks: one panel per size (a 0-byte series joins the smallest), in
    each a group of bars per operation, one bar per library (median over repetitions)
    with a min..max whisker.  Panels have their own y range."""
    keys = row_keys(b, libs, data)
    shown = [lib for lib in libs if data.get((b.name, lib.key))]
    sizes = sorted({k[1] for k in keys if k[1] > 0}) or sorted({k[1] for k in keys})
    panels = {size: [k for k in keys if k[1] == size or (k[1] == 0 and size == sizes[0])] for size in sizes}
    if not keys or not shown:
        fig, ax = plt.subplots(figsize=(9, 4))
        ax.text(0.5, 0.5, "no data", ha="center", va="center")
    else:
        width = 0.8 / len(shown)
        most = max(len(v) for v in panels.values())
        fig, axes = plt.subplots(
            len(panels), 1, figsize=(max(9.0, 0.3 * most * len(shown) + 2), 3.2 * len(panels) + 0.8), squeeze=False
        )
        unit = UNIT_LABEL.get(b.unit, b.unit)
        for ax, (psize, pkeys) in zip(axes[:, 0], panels.items()):
            for j, lib in enumerate(shown):
                per = data.get((b.name, lib.key), {})
                xs, meds, lo, hi = [], [], [], []
                for i, key in enumerate(pkeys):
                    v = per.get(key)
                    if not v:
                        continue
                    m = statistics.median(v)
                    xs.append(i - 0.4 + width * (j + 0.5))
                    meds.append(m)
                    lo.append(m - min(v))
                    hi.append(max(v) - m)
                color = STYLES.get(lib.key, (None, "o"))[0]
                ax.bar(xs, meds, width=width, color=color, label=lib.label)
                ax.errorbar(xs, meds, yerr=[lo, hi], fmt="none", ecolor="black", elinewidth=0.8, capsize=1.5)
            ax.set_xticks(range(len(pkeys)))
            ax.set_xticklabels([k[0] if k[1] == psize else fmt_row(k) for k in pkeys], fontsize=9)
            ax.set_xlim(-0.6, most - 0.4)
            ax.set_yscale(b.yscale)
            if b.unit == "pct":
                ax.set_ylim(0, 105)
            ax.set_title(fmt_size(psize), fontsize=10, loc="left")
            ax.set_ylabel(f"{unit}")
            ax.grid(True, axis="y", which="major", alpha=0.4)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.suptitle(f"{b.title} ({b.better} is better): median of repetitions, whisker = min..max", fontsize=11)
        fig.legend(handles, labels, fontsize=9, ncol=len(shown), loc="upper center", bbox_to_anchor=(0.5, 0.955))
    if na_notes:
        fig.text(0.01, 0.01, "\n".join(na_notes), fontsize=8, color="dimgray", va="bottom")
    fig.tight_layout(rect=(0, 0.02 * len(na_notes), 1, 0.92))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot(b: Bench, libs, data, na_notes: list[str], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        return False
    if b.series:
        return plot_bars(b, libs, data, na_notes, path, plt)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for lib in libs:
        per_size = {size: v for (_, size), v in data.get((b.name, lib.key), {}).items()}
        sizes = sorted(s for s in per_size if s > 0 and per_size[s])  # log axis: no 0 B point
        if not sizes:
            continue
        color, marker = STYLES.get(lib.key, (None, "o"))
        meds = [statistics.median(per_size[s]) for s in sizes]
        ax.plot(sizes, meds, marker=marker, markersize=4, color=color, label=lib.label, linewidth=1.6)
        lows = [min(per_size[s]) for s in sizes]
        highs = [max(per_size[s]) for s in sizes]
        ax.fill_between(sizes, lows, highs, color=color, alpha=0.15, linewidth=0)
    ax.set_xscale("log", base=2)
    largest = max((s for lib in libs for (_, s) in data.get((b.name, lib.key), {})), default=1)
    ax.set_xticks([4**k for k in range(16) if 4**k <= largest])
    ax.set_yscale(b.yscale)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: fmt_size(int(x)).replace(" ", "") if x >= 1 else ""))
    ax.set_xlabel("Message size")
    unit = UNIT_LABEL.get(b.unit, b.unit)
    ax.set_ylabel(f"{unit} ({b.better} is better)")
    ax.set_title(f"{b.title}: median of repetitions, band = min..max")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.12)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    if na_notes:
        fig.text(0.01, 0.01, "\n".join(na_notes), fontsize=8, color="dimgray", va="bottom")
    plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
    fig.tight_layout(rect=(0, 0.035 * len(na_notes), 1, 1))
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baton-build", default="build", help="Baton build dir, relative to the repo root (default: build)")
    ap.add_argument("--build-baton", action="store_true", help="configure and build Baton in that dir first")
    ap.add_argument("--repeats", type=int, default=None, help="launches per benchmark and library (default 5, 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="short runs: fewer iterations, samples and repeats")
    ap.add_argument("--bench", default=",".join(b.name for b in BENCHMARKS), help="comma-separated benchmarks to run")
    ap.add_argument(
        "--libs",
        default=ALL_LIBS,
        help=f"comma-separated subset of {ALL_LIBS} (default: all; the -async variants run only "
        "the benchmarks that ask for them)",
    )
    ap.add_argument(
        "--ranks",
        type=int,
        default=None,
        help="ranks per launch for every benchmark (default: each benchmark's registered count, 2); "
        "more than the cores oversubscribes; the default --out becomes bench/results/ranks<N> when N is not 2",
    )
    ap.add_argument("--max-size", type=int, default=None, help="largest message size in bytes (default 4 MiB)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per launch (default 180, 60 with --quick)")
    ap.add_argument("--out", default=None, help="output dir (default bench/results, or bench/results/ranks<N>)")
    ap.add_argument("--cflags", default="-O2", help="flags for every mpicc (default -O2)")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 5)
    timeout = args.timeout if args.timeout is not None else (60.0 if args.quick else 180.0)
    wanted = args.bench.split(",")
    unknown = [w for w in wanted if w not in {b.name for b in BENCHMARKS}]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    benches = [b for b in BENCHMARKS if b.name in wanted]
    if args.ranks is not None and args.ranks < 2:
        print("--ranks must be at least 2", file=sys.stderr)
        return 2
    unknown = [k for k in args.libs.split(",") if k not in ALL_LIBS.split(",")]
    if unknown:
        print(f"unknown librar(y/ies): {', '.join(unknown)} (known: {ALL_LIBS})", file=sys.stderr)
        return 2
    if args.out is None:
        args.out = str(BENCH_DIR / "results" / (f"ranks{args.ranks}" if args.ranks not in (None, 2) else ""))
    out = Path(args.out)
    log_dir = out / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_start = os.getloadavg()[0]
    args.git_head = git_head()  # once: others may commit while this runs
    t_start = time.monotonic()

    baton_build_error = None
    if args.build_baton and any(k.startswith("baton") for k in args.libs.split(",")):
        print("Building Baton", flush=True)
        baton_build_error = build_baton(args, log_dir)
    libs = make_libraries(args)
    for lib in libs:
        if lib.is_baton and baton_build_error:
            lib.na_reason = baton_build_error
    if load_start > (os.cpu_count() or 1):
        print(
            f"Warning: load average {load_start:.1f} on {os.cpu_count()} CPUs: other work competes with the "
            "busy-polling ranks; expect slow launches and noisy numbers",
            flush=True,
        )
    print("Libraries:", flush=True)
    for lib in libs:
        print(f"  {lib.label:21s} {'n/a: ' + lib.na_reason if lib.na_reason else lib.version}", flush=True)

    print("Compiling benchmarks", flush=True)
    bench_args = (["--quick"] if args.quick else []) + (
        ["--max-size", str(args.max_size)] if args.max_size is not None else []
    )
    built = compile_all(libs, benches, out, log_dir, args.cflags.split())

    # (bench, lib) -> {(series, size): [value per successful repetition]}
    data: dict[tuple[str, str], dict[tuple[str, int], list[float]]] = {}
    errors: dict[tuple[str, str], list[str]] = {}
    raw_rows = []
    for rep in range(repeats):
        for b in benches:
            active = [lib for lib in libs_for(b, libs) if not lib.na_reason]
            # Interleave the libraries within every repetition and rotate which
            # goes first, so slow drifts and bursts of noise hit all of them.
            order = active[rep % len(active):] + active[: rep % len(active)] if active else []
            for lib in order:
                key = (b.name, lib.key)
                entry = built.get(key, {})
                if "exe" not in entry:
                    continue
                if errors.get(key) and not data.get(key):
                    continue  # failed before ever producing numbers: don't keep paying for it
                log = log_dir / f"{b.name}.{lib.key}.rep{rep + 1}.log"
                values, error, secs = run_one(lib, b, args.ranks or b.ranks, entry["exe"], bench_args, timeout, log)
                status = "ok" if not error else "FAILED: " + error
                print(f"  [rep {rep + 1}/{repeats}] {b.name:16s} {lib.label:21s} {secs:6.1f} s  {status}", flush=True)
                if error:
                    errors.setdefault(key, []).append(f"rep {rep + 1}: {error}")
                    continue
                for (series, size), v in values.items():
                    data.setdefault(key, {}).setdefault((series, size), []).append(v)
                    raw_rows.append([b.name, series, lib.label, rep + 1, size, v, b.unit])

    with (out / "raw.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["bench", "series", "library", "repetition", "size_bytes", "value", "unit"])
        w.writerows(raw_rows)

    elapsed = time.monotonic() - t_start
    counts = sorted({args.ranks or b.ranks for b in benches})
    ranks_text = f"{'/'.join(map(str, counts))} ranks per launch" + (
        " (oversubscribed)" if counts and max(counts) > (os.cpu_count() or 1) else ""
    )
    report = [
        "# Baton benchmark report",
        "",
        f"- Generated: {started:%Y-%m-%d %H:%M UTC} on `{platform.node()}` "
        f"({os.cpu_count()} CPUs, {platform.machine()}, {platform.platform(terse=True)})",
        f"- Command: `bench/run.sh {' '.join(sys.argv[1:])}`".replace("`bench/run.sh `", "`bench/run.sh`"),
        f"- Repository: git {args.git_head}; mode: {'quick' if args.quick else 'full'}; "
        f"{repeats} launches per benchmark and library, interleaved; {ranks_text}; took {elapsed:.0f} s",
        f"- Load average (1 min) at start / end: {load_start:.1f} / {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs (above the CPU count, expect noisy numbers)",
        "- Each value is the median over launches of each launch's own median of timed batches "
        "(see bench/README.md).",
        "",
        "## Libraries",
        "",
    ]
    for lib in libs:
        if lib.na_reason:
            report.append(f"- **{lib.label}: n/a** — {lib.na_reason}")
        else:
            launcher = " ".join([lib.mpiexec, *lib.launch_args])
            report.append(f"- {lib.label}: {lib.version}; `{lib.mpicc}`, `{launcher}`")
    stdout_tables = []
    for b in benches:
        unit = UNIT_LABEL.get(b.unit, b.unit)
        if b.unit == "pct":
            ratio_note = "Baton - best peer < 0 means Baton overlaps less"
        elif b.better == "lower":
            ratio_note = "Baton / best peer > 1 means Baton is slower"
        else:
            ratio_note = "Baton / best peer < 1 means Baton is slower"
        report += ["", f"## {b.name}: {b.title}, {unit} ({b.better} is better; {ratio_note})", ""]
        if b.name in BENCH_NOTES:
            report += [BENCH_NOTES[b.name], ""]
        blibs = libs_for(b, libs)
        notes = []
        for lib in blibs:
            key = (b.name, lib.key)
            if lib.na_reason:
                notes.append(f"{lib.label}: n/a ({one_line(lib.na_reason, 120)})")
            elif "error" in built.get(key, {}):
                notes.append(f"{lib.label}: n/a ({one_line(built[key]['error'], 120)})")
            elif not data.get(key):
                first = errors.get(key, ["no data"])[0]
                notes.append(f"{lib.label}: n/a (run failed: {one_line(first, 120)})")
            elif errors.get(key):
                notes.append(f"{lib.label}: {len(errors[key])} of {repeats} launches failed, first: {one_line(errors[key][0], 120)}")
        table = bench_table(b, blibs, data)
        report += table
        report += ["", spread_line(b, blibs, data) + "."]
        if notes:
            report += [""] + [f"- {n}" for n in notes]
        png = out / f"{b.name}.png"
        if plot(b, blibs, data, [n for n in notes if "n/a" in n], png):
            report += ["", f"![{b.name}]({png.name})"]
        else:
            report += ["", "(no plot: matplotlib is not available to this Python)"]
        stdout_tables += ["", f"{b.name}: {b.title}, {unit} ({b.better} is better)", *table, *notes]

    (out / "report.md").write_text("\n".join(report) + "\n")
    write_summary(benches, libs, data, out, started, args.git_head, load_start)
    print("\n".join(stdout_tables))
    print(f"\nReport: {out / 'report.md'}  (plots and raw.csv beside it, logs in {log_dir}); {elapsed:.0f} s")
    # Succeed when every available peer produced numbers: Baton may legitimately be n/a.
    peers_ok = all(
        data.get((b.name, lib.key))
        for b in benches
        for lib in libs_for(b, libs)
        if not lib.is_baton and not lib.na_reason
    )
    return 0 if peers_ok else 1


if __name__ == "__main__":
    sys.exit(main())
