#!/usr/bin/env bash
# Baton benchmarks side by side with MPICH and Open MPI, in one run.
#
#   bench/run.sh [--baton-build DIR] [--build-baton] [--repeats R] [--quick]
#                [--bench a,b] [--libs baton,mpich,openmpi] [--max-size BYTES]
#
# Installs the peers and matplotlib with apt-get when missing, then hands over
# to bench/driver.py, which writes bench/results/report.md and *.png.
# bench/run.sh --help lists every option; bench/README.md explains the method.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

have() { command -v "$1" >/dev/null 2>&1; }

# A Python that can import matplotlib: the distribution's first, since
# python3-matplotlib installs there even when another python3 is first on PATH.
pick_python() {
    local cand
    for cand in /usr/bin/python3 python3; do
        if have "$cand" && "$cand" -c 'import matplotlib' >/dev/null 2>&1; then
            echo "$cand"
            return 0
        fi
    done
    return 1
}

pkgs=()
{ have mpicc.mpich && have mpiexec.mpich; } || pkgs+=(mpich libmpich-dev)
{ have mpicc.openmpi && have mpiexec.openmpi; } || pkgs+=(openmpi-bin libopenmpi-dev)
pick_python >/dev/null || pkgs+=(python3-matplotlib)

if ((${#pkgs[@]})); then
    echo "run.sh: installing missing packages: ${pkgs[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
    if ! { "${sudo[@]}" apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${pkgs[@]}"; }; then
        echo "run.sh: warning: apt-get failed; missing libraries will be reported as n/a" >&2
    fi
fi

py="$(pick_python || true)"
if [ -z "$py" ]; then
    echo "run.sh: warning: no Python with matplotlib; the report will have no plots" >&2
    py="$(command -v python3 || command -v /usr/bin/python3)"
fi

exec "$py" "$here/driver.py" "$@"
