#!/usr/bin/env bash
# Latency and bandwidth between two simulated hosts (../shared/tools/twohost: two network
# namespaces joined by a veth pair): Baton (UCX transport, launched by mpiexec.hydra), MPICH
# (mpiexec.hydra) and Open MPI (mpirun, its ssh agent replaced by the twohost launcher-exec), one
# rank per host, in the same run, plus UCX's own ucx_perftest (ucp_am_lat / tag_lat / ucp_am_bw)
# over the same link for reference. Needs root (namespaces).
#
#   bench/twohost.sh [--baton-build DIR] [--repeats R] [--max-size BYTES] [--out DIR]
#                    [--libs baton,mpich,openmpi]
#
# Each library runs R launches (default 3) of bench/pt2pt_latency.c and bench/pt2pt_bandwidth.c;
# the table shows the median over launches of each launch's median batch. Results go to
# DIR/twohost.md (default bench/results). Timings on a shared machine are noisy: read the
# columns against each other (and against ucx_perftest's "typical" latency) in the same run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build=build repeats=3 max=4194304 out="$here/results" want=baton,mpich,openmpi
while [ $# -gt 0 ]; do
  case $1 in
    --baton-build) build=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --max-size) max=$2; shift ;;
    --out) out=$2; shift ;;
    --libs) want=$2; shift ;;  # Open MPI's TCP path here takes ~4 ms per message: a run is long
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "twohost.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
tools=${BATON_TWOHOST_TOOLS:-$(cd "$root/.." && pwd)/shared/tools/twohost}
[ -x "$tools/up" ] || { echo "twohost.sh: no twohost tools at $tools (set BATON_TWOHOST_TOOLS)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d /tmp/baton-twohost-bench.XXXXXX)
trap '"$tools/down" >/dev/null 2>&1; rm -rf "$work"' EXIT

declare -A cc=([baton]="$root/$build/bin/mpicc" [mpich]=mpicc.mpich [openmpi]=mpicc.openmpi)
libs=()
for lib in baton mpich openmpi; do
  [[ ",$want," == *",$lib,"* ]] || continue
  if command -v "${cc[$lib]}" >/dev/null 2>&1; then
    for b in pt2pt_latency pt2pt_bandwidth pingpong_typical pingpong_wake; do
      "${cc[$lib]}" -O2 -I "$here" "$here/$b.c" -o "$work/$b.$lib"
    done
    libs+=("$lib")
  else
    echo "twohost.sh: ${cc[$lib]} not found: $lib left out" >&2
  fi
done

exec 9>/tmp/baton-twohost.lock
flock 9
"$tools/up" >/dev/null
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

launch() {  # lib exe args...
  local lib=$1; shift
  case $lib in
    baton|mpich)
      timeout -k 5 300 "$tools/on" hostA mpiexec.hydra -hosts 10.99.0.1,10.99.0.2 -n 2 -ppn 1 \
        -launcher ssh -launcher-exec "$tools/hydra-exec" "$@" ;;
    openmpi)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      timeout -k 5 300 "$tools/on" hostA mpirun --mca plm_rsh_agent "$tools/hydra-exec" \
        --host 10.99.0.1:1,10.99.0.2:1 -n 2 "$@" ;;
  esac
}

for lib in "${libs[@]}"; do
  for ((i = 0; i < repeats; i++)); do
    for size in 8 65536; do
      launch "$lib" "$work/pingpong_typical.$lib" $size 5000 2>"$work/err" | grep '^RESULT' |
        sed "s/^/$lib /" >>"$work/typical" || { echo "twohost.sh: $lib pingpong_typical failed:" >&2; tail -5 "$work/err" >&2; }
    done
  done
  for ((i = 0; i < repeats; i++)); do
    launch "$lib" "$work/pingpong_wake.$lib" 3000 200 2>"$work/err" | grep '^RESULT' |
      sed "s/^/$lib /" >>"$work/wake" || { echo "twohost.sh: $lib pingpong_wake failed:" >&2; tail -5 "$work/err" >&2; }
  done
  for b in pt2pt_latency pt2pt_bandwidth; do
    for ((i = 0; i < repeats; i++)); do
      launch "$lib" "$work/$b.$lib" --max-size "$max" 2>"$work/err" | grep '^RESULT' |
        sed "s/^/$lib /" >>"$work/results" || { echo "twohost.sh: $lib $b failed:" >&2; tail -5 "$work/err" >&2; }
    done
  done
done

# ucx_perftest: server on hostB, client on hostA; "typical" latency and bandwidth columns.
port=13337
perftest() {  # test size iters -> prints the Final line (a fresh port each time)
  port=$((port + 1))
  "$tools/on" hostB timeout 60 ucx_perftest -p $port -t "$1" -s "$2" -n "$3" >/dev/null 2>&1 &
  sleep 0.5
  "$tools/on" hostA timeout 60 ucx_perftest 10.99.0.2 -p $port -t "$1" -s "$2" -n "$3" 2>/dev/null | grep Final || true
  wait || true
}
ref=""
if command -v ucx_perftest >/dev/null 2>&1; then
  for t in ucp_am_lat tag_lat; do
    for s in 8 65536; do
      line=$(perftest $t $s 5000)
      # Final: iterations typical average overall (latency us) ...
      ref+="| ucx_perftest $t | $s | $(echo "$line" | awk '{print $3}') | $(echo "$line" | awk '{print $4}') |"$'\n'
    done
  done
  line=$(perftest ucp_am_bw 1048576 2000)
  ref+="| ucx_perftest ucp_am_bw (MB/s, average) | 1048576 | $(echo "$line" | awk '{printf "%.0f", $6 * 1.048576}') | |"$'\n'
else
  ref="| ucx_perftest not installed (Debian ucx-utils) | | | |"$'\n'
fi

touch "$work/typical" "$work/results" "$work/wake"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work/results" "$out/twohost.md" "$work/typical" "$work/wake" "$load_start" "$load_end" "${libs[@]}" <<'EOF' 3<<<"$ref"
import sys, statistics, collections, os
res, path, typical, wake, load0, load1, libs = (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
                                                sys.argv[5], sys.argv[6], sys.argv[7:])
data = collections.defaultdict(list)
units = {}
for line in open(res):
    lib, _, bench, size, value, unit = line.split()
    v = float(value)
    if unit == "GB/s":  # the bandwidth benchmark switches units with size
        v, unit = v * 1000, "MB/s"
    data[(bench, lib, int(size))].append(v)
    units[bench] = unit
ref = os.fdopen(3).read()
out = ["# Two simulated hosts: Baton vs MPICH vs Open MPI over the veth link", "",
       "One rank per host. Measured on a shared 2-core machine: compare columns within this run.",
       f"Load average (1/5/15 min) at the start: {load0}; at the end: {load1}.", ""]
typ = collections.defaultdict(list)
for line in open(typical):
    lib, _, bench, size, med, mean = line.split()
    typ[(lib, int(size))].append((float(med), float(mean)))
out += ["## One-way latency per round trip (pingpong_typical: median, i.e. ucx_perftest's \"typical\"; "
        "best launch of the run, in us)", "", "| size | " + " | ".join(libs) + " |", "|---:|" + "---:|" * len(libs)]
for size in sorted({s for (l, s) in typ}):
    cells = []
    for lib in libs:
        v = typ.get((lib, size))
        cells.append(f"{min(m for m, _ in v):.2f} (mean {min(a for _, a in v):.1f})" if v else "n/a")
    out.append(f"| {size} | " + " | ".join(cells) + " |")
wk = collections.defaultdict(list)
for line in open(wake):
    lib, _, bench, delay, med, mean, p90, mx = line.split()
    wk[lib].append((float(med), float(mean), float(p90), float(mx)))
out += ["", "## Waking a sleeping receiver (pingpong_wake: the answer comes 3 ms after the ping; "
        "send-to-receive time, median over launches, in us)", "",
        "| library | median | mean | p90 | max |", "|---|---:|---:|---:|---:|"]
for lib in libs:
    v = wk.get(lib)
    if v:
        out.append(f"| {lib} | " + " | ".join(f"{statistics.median(x[k] for x in v):.1f}" for k in range(4)) + " |")
out += ["", "Batch averages (the pt2pt benchmarks below: median over launches of each launch's median "
        "batch) include every descheduling of a rank; on a loaded machine they overstate latency.", ""]
for bench in ("pt2pt_latency", "pt2pt_bandwidth"):
    sizes = sorted({s for (b, l, s) in data if b == bench})
    out += [f"## {bench} ({units.get(bench, '')})", "", "| size | " + " | ".join(libs) + " |",
            "|---:|" + "---:|" * len(libs)]
    for s in sizes:
        cells = []
        for lib in libs:
            v = data.get((bench, lib, s))
            cells.append(f"{statistics.median(v):.4g}" if v else "n/a")
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("")
out += ["## UCX reference (ucx_perftest over the same link)", "",
        "| test | size | typical latency (us) | average latency (us) |", "|---|---:|---:|---:|", ref]
open(path, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
