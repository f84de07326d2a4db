#!/bin/sh
# check.sh: runs a command, then checks its exit code, output and run time.
#
#   check.sh [--rc N] [--max-ms MS] [--stdin FILE]
#            [--out ERE] [--err ERE] [--no-out ERE] [--no-err ERE]
#            [--count-out N ERE] [--all-out ERE] -- command [args...]
#
# --out/--err: some line of stdout/stderr matches; --no-*: none does;
# --count-out: exactly N stdout lines match ERE; --all-out: every stdout line matches.
set -u
rc_want=0
max_ms=
stdin=/dev/null
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/checks"
while [ $# -gt 0 ]; do
  case $1 in
    --rc) rc_want=$2; shift 2 ;;
    --max-ms) max_ms=$2; shift 2 ;;
    --stdin) stdin=$2; shift 2 ;;
    --out|--err|--no-out|--no-err|--all-out) printf '%s %s\n' "$1" "$2" >> "$tmp/checks"; shift 2 ;;
    --count-out) printf '%s %s %s\n' "$1" "$2" "$3" >> "$tmp/checks"; shift 3 ;;
    --) shift; break ;;
    *) echo "check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

start=$(date +%s%N)
"$@" < "$stdin" > "$tmp/out" 2> "$tmp/err"
rc=$?
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))

fail=0
complain() { echo "check.sh: FAIL: $*"; fail=1; }
[ "$rc" = "$rc_want" ] || complain "exit code $rc, expected $rc_want"
if [ -n "$max_ms" ] && [ "$ms" -gt "$max_ms" ]; then complain "took $ms ms, limit $max_ms ms"; fi
while IFS= read -r line; do
  kind=${line%% *}
  re=${line#* }
  case $kind in
    --out) grep -qE -- "$re" "$tmp/out" || complain "no stdout line matches '$re'" ;;
    --err) grep -qE -- "$re" "$tmp/err" || complain "no stderr line matches '$re'" ;;
    --no-out) ! grep -qE -- "$re" "$tmp/out" || complain "a stdout line matches '$re'" ;;
    --no-err) ! grep -qE -- "$re" "$tmp/err" || complain "a stderr line matches '$re'" ;;
    --all-out) ! grep -vqE -- "$re" "$tmp/out" || complain "a stdout line does not match '$re'" ;;
    --count-out)
      n=${re%% *}
      re=${re#* }
      got=$(grep -cE -- "$re" "$tmp/out")
      [ "$got" = "$n" ] || complain "$got stdout lines match '$re', expected $n" ;;
  esac
done < "$tmp/checks"

echo "command: $*"
echo "exit code $rc, $ms ms"
if [ "$fail" -ne 0 ] || [ -n "${CHECK_VERBOSE:-}" ]; then
  echo "--- stdout (first 40 lines)"; head -n 40 "$tmp/out" | cut -c1-160
  echo "--- stderr (first 40 lines)"; head -n 40 "$tmp/err" | cut -c1-160
fi
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
