#!/usr/bin/env bash
# Host-aware collectives across the two simulated hosts (../shared/tools/twohost): Baton's flat
# algorithms (BATON_COLL_HIER=0) against the two-level ones (the default on a communicator that
# spans hosts), in alternating launches of bench/coll_hosts.c, with 2 and 4 ranks per host
# (launched by mpiexec.hydra). Besides the time per call it reports the bytes that crossed between
# the hosts per call (MPI_T counter baton_coll_remote_bytes, summed over the ranks) and what one
# leader per host needs at least. Needs root (namespaces).
#
#   bench/hier.sh [--baton-build DIR] [--repeats R] [--ppn 2,4] [--out DIR] [--quick]
#
# Results go to DIR/hier.md (default bench/results). The machine is shared: read the columns of
# one run against each other (launches alternate, medians over launches).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build=build repeats=5 ppns=2,4 out="$here/results" quick=""
while [ $# -gt 0 ]; do
  case $1 in
    --baton-build) build=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --ppn) ppns=$2; shift ;;
    --out) out=$2; shift ;;
    --quick) quick=--quick ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "hier.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
tools=${BATON_TWOHOST_TOOLS:-$(cd "$root/.." && pwd)/shared/tools/twohost}
[ -x "$tools/up" ] || { echo "hier.sh: no twohost tools at $tools (set BATON_TWOHOST_TOOLS)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d /tmp/baton-hier-bench.XXXXXX)
trap '"$tools/down" >/dev/null 2>&1; rm -rf "$work"' EXIT
"$root/$build/bin/mpicc" -O2 -I "$here" "$here/coll_hosts.c" -o "$work/coll_hosts"

exec 9>/tmp/baton-twohost.lock
flock 9
"$tools/up" >/dev/null
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
IFS=, read -r -a ppn_list <<<"$ppns"
for ((i = 0; i < repeats; i++)); do
  for ppn in "${ppn_list[@]}"; do
    for variant in flat two_level; do
      hier=1
      [ $variant = flat ] && hier=0
      timeout -k 5 600 "$tools/on" hostA mpiexec.hydra -hosts 10.99.0.1,10.99.0.2 -n $((2 * ppn)) -ppn "$ppn" \
        -launcher ssh -launcher-exec "$tools/hydra-exec" -genv BATON_COLL_HIER $hier "$work/coll_hosts" $quick \
        2>"$work/err" | grep '^RESULT' | sed "s/^/$ppn $variant /" >>"$work/results" ||
        { echo "hier.sh: $variant ppn $ppn failed:" >&2; tail -5 "$work/err" >&2; }
    done
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
touch "$work/results"
python3 - "$work/results" "$out/hier.md" "$load_start" "$load_end" "$repeats" <<'PY'
import sys, statistics, collections
res, path, load0, load1, repeats = sys.argv[1:6]
data = collections.defaultdict(list)
for line in open(res):
    ppn, variant, _, name, size, value, unit = line.split()
    data[(int(ppn), variant, name.split("/", 1)[1], int(size))].append(float(value))
def med(k):
    v = data.get(k)
    return statistics.median(v) if v else None
def bound(op, size, ppn):  # bytes one leader per host must move between the 2 hosts, per call
    n = 2 * ppn
    return {"barrier": 0, "bcast": size, "reduce": size, "allreduce": 2 * size,
            "allgather": n * size, "alltoall": 2 * ppn * ppn * size}[op]
out = ["# Host-aware collectives: flat against two-level across two simulated hosts", "",
       f"Medians over {repeats} alternating launches per variant (bench/hier.sh, bench/coll_hosts.c). "
       f"Load average (1/5/15 min) at the start: {load0}; at the end: {load1}.",
       "Remote bytes: sent to the other host per call, all ranks together (MPI_T baton_coll_remote_bytes); "
       "bound: what one leader per host needs.", ""]
for ppn in sorted({k[0] for k in data}):
    out += [f"## 2 hosts x {ppn} ranks", "",
            "| collective | size | flat us | two-level us | flat / two-level | flat remote B | two-level remote B | bound B | flat msgs | two-level msgs |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ops = []
    for k in data:
        if k[0] == ppn and "." not in k[2] and k[2] not in ops:
            ops.append(k[2])
    order = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"]
    for op in sorted(ops, key=lambda o: order.index(o) if o in order else 99):
        for size in sorted({k[3] for k in data if k[0] == ppn and k[2] == op}):
            f, t = med((ppn, "flat", op, size)), med((ppn, "two_level", op, size))
            fb, tb = med((ppn, "flat", op + ".remote_bytes", size)), med((ppn, "two_level", op + ".remote_bytes", size))
            fm, tm = med((ppn, "flat", op + ".remote_messages", size)), med((ppn, "two_level", op + ".remote_messages", size))
            cell = lambda x, fmt: fmt.format(x) if x is not None else "n/a"
            ratio = f"{f / t:.2f}" if f and t else "n/a"
            out.append(f"| {op} | {size} | {cell(f, '{:.1f}')} | {cell(t, '{:.1f}')} | {ratio} | {cell(fb, '{:.0f}')} | "
                       f"{cell(tb, '{:.0f}')} | {bound(op, size, ppn)} | {cell(fm, '{:.1f}')} | {cell(tm, '{:.1f}')} |")
    out.append("")
open(path, "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
