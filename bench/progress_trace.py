#!/usr/bin/env python3
"""Summarizes BATON_PROGRESS_TRACE files (src/core/progress_thread.cpp): when the progress thread
ran, per process.

    BATON_ASYNC_PROGRESS=1 BATON_PROGRESS_TRACE=/tmp/pt build/bin/mpiexec -n 2 ./coll_overlap
    bench/progress_trace.py /tmp/pt.*

Each trace line is "<ns> <event> <cpu>" (runs of one event are collapsed into their first
record). Prints, per file: the events seen, the time spent between an event and the next one by
event kind (what the thread was doing or waiting in), the cores it ran on, how often it moved, and
the longest gaps between two records while it was not asleep (time it was runnable or running but
recorded nothing: preempted, or kept off a busy core)."""
import collections
import sys


def summarize(path):
    rows = []
    for line in open(path):
        parts = line.split()
        if len(parts) == 3:
            rows.append((int(parts[0]), parts[1], int(parts[2])))
    if len(rows) < 2:
        print(f"{path}: {len(rows)} records")
        return
    span = rows[-1][0] - rows[0][0]
    time_in = collections.Counter()
    count = collections.Counter()
    cpus = collections.Counter()
    gaps = []
    for (t, ev, cpu), (t2, _, _) in zip(rows, rows[1:]):
        time_in[ev] += t2 - t
        count[ev] += 1
        cpus[cpu] += 1
        if ev != "sleep":
            gaps.append((t2 - t, ev, t - rows[0][0]))
    gaps.sort(reverse=True)
    print(f"{path}: {len(rows)} records over {span / 1e6:.1f} ms")
    for ev, ns in time_in.most_common():
        print(f"  {ev:11s} {count[ev]:8d} times, {ns / 1e6:9.2f} ms ({100.0 * ns / span:5.1f}%)")
    print("  cores: " + ", ".join(f"{c}: {n}" for c, n in sorted(cpus.items())) + f"; moves: {count['pin']}")
    print("  longest gaps while not asleep: " +
          ", ".join(f"{g / 1e3:.0f} us after {ev} at {at / 1e6:.1f} ms" for g, ev, at in gaps[:5]))


for p in sys.argv[1:]:
    summarize(p)
