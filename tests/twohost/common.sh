# Sourced by run.sh and slurm.sh (the runs across the two simulated hosts of
# ../shared/tools/twohost): their shared argument handling and setup.
#
#   twohost_args "$@"   after the script's own first arguments: VAR=value... -- PROGRAM [ARGS...]
#                       sets envs (the VAR=value words) and prog (the command line)
#   twohost_up          finds the tools ($tools), takes the machine-wide lock (one twohost run at a
#                       time) and brings the two hosts up; exits 77 (ctest: skipped) with a line
#                       saying why when that is impossible here

twohost_args() {
  envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  prog=("$@")
}

twohost_up() {
  tools=${BATON_TWOHOST_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared/tools/twohost}
  if [ ! -x "$tools/up" ]; then
    echo "SKIP: the twohost tools are not at $tools (set BATON_TWOHOST_TOOLS)"
    exit 77
  fi
  exec 9>/tmp/baton-twohost.lock
  flock 9
  local out rc
  if ! out=$("$tools/up" 2>&1); then
    rc=$?
    echo "$out"
    if [ $rc = 77 ]; then echo "SKIP: cannot create two simulated hosts here (needs root and iproute2)"; exit 77; fi
    exit $rc
  fi
}
