#!/bin/sh
# The layering rule of docs/architecture.md: no file under src/ includes a header of a layer above
# it. Layers, low to high:
#
#   core < transport < p2p < {coll, queue, rma, io} < comm < abi
#
# coll, queue, rma and io are one level with coll as its base: queue, rma and io may include coll
# (the schedule engine, persistent collectives, the internal collectives of coll/among.hpp); no
# other include crosses that level sideways. Only src/abi/ includes <mpi.h> or <mpix.h>.
#
# Usage: check_layers.sh [ROOT [ALLOWED]]. ROOT is the repository (default: this script's), ALLOWED
# a list of known exceptions (default: ROOT/scripts/layers_allowed.txt), one per line:
#   <file under ROOT> <included path>   # why, and what removes it
# An exception that no longer occurs is an error too, so the list only shrinks.
# Prints every violation as file:line: message; exits 1 if there is any, 2 on bad usage.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
allowed=${2:-$root/scripts/layers_allowed.txt}
[ -d "$root/src" ] || { echo "check_layers: $root/src is not a directory" >&2; exit 2; }
[ -f "$allowed" ] || allowed=/dev/null

# Every include of every source file, as: file<TAB>line<TAB>included path<TAB>kind ("q" for "x",
# "a" for <x>).
cd "$root" || exit 2
find src -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.def' -o -name '*.inc' \) | sort |
  while IFS= read -r f; do
    awk -v f="$f" '
      /^[ \t]*#[ \t]*include[ \t]*"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); printf "%s\t%d\t%s\tq\n", f, NR, s }
      /^[ \t]*#[ \t]*include[ \t]*</ { s = $0; sub(/^[^<]*</, "", s); sub(/>.*$/, "", s); printf "%s\t%d\t%s\ta\n", f, NR, s }
    ' "$f"
  done |
  awk -F '\t' -v allowed="$allowed" '
    BEGIN {
      rank["core"] = 0; rank["transport"] = 1; rank["p2p"] = 2
      rank["coll"] = 3; rank["queue"] = 3; rank["rma"] = 3; rank["io"] = 3
      rank["comm"] = 4; rank["abi"] = 5
      # Sideways within level 3: only onto coll.
      side["queue coll"] = 1; side["rma coll"] = 1; side["io coll"] = 1
      while ((getline line < allowed) > 0) {
        sub(/#.*/, "", line)
        if (split(line, w, " ") < 2) continue  # " ": fields split on runs of blanks
        exc[w[1] " " w[2]] = 1
        exc_order[++nexc] = w[1] " " w[2]
      }
      bad = 0
    }
    {
      file = $1; line = $2; inc = $3; kind = $4
      split(file, p, "/"); from = p[2]
      if (!(from in rank)) {
        if (!(from in unknown)) {
          printf "%s: src/%s is not a layer this check knows: add it to scripts/check_layers.sh and docs/architecture.md\n", file, from
          unknown[from] = 1; bad = 1
        }
        next
      }
      msg = ""
      if (kind == "a") {
        if ((inc == "mpi.h" || inc == "mpix.h") && from != "abi")
          msg = sprintf("includes <%s>: only src/abi/ spells the MPI binding", inc)
      } else {
        n = split(inc, q, "/"); to = q[1]
        if (n < 2 || !(to in rank)) next  # a header beside the file, or not a layer path
        if (rank[to] > rank[from])
          msg = sprintf("includes \"%s\": %s may not include %s (a layer above it)", inc, from, to)
        else if (rank[to] == rank[from] && to != from && !((from " " to) in side))
          msg = sprintf("includes \"%s\": %s may not include %s (same level; only queue, rma and io may include coll)", inc, from, to)
      }
      if (msg == "") next
      key = file " " inc
      if (key in exc) { seen[key] = 1; next }
      printf "%s:%d: %s\n", file, line, msg
      bad = 1
    }
    END {
      for (i = 1; i <= nexc; i++)
        if (!(exc_order[i] in seen)) {
          printf "%s: listed as an allowed exception, but no longer occurs: remove it from the list\n", exc_order[i]
          bad = 1
        }
      exit bad
    }
  '
