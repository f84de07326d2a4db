#!/bin/sh
# Installs what building and testing Baton needs on Debian, when it is missing.
set -e
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v g++ >/dev/null 2>&1 || need="$need g++"
[ -f /usr/include/gtest/gtest.h ] || need="$need libgtest-dev googletest"
# tests/install: a Meson project and pkg-config against the installed library
command -v meson >/dev/null 2>&1 || need="$need meson"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v python3 >/dev/null 2>&1 || need="$need python3"  # tools/api/gen_api.py (the build runs it)
# the Fortran bindings (fortran/, tests/mpi/fortran): built only when gfortran is present
command -v gfortran >/dev/null 2>&1 || need="$need gfortran"
for extra in "$@"; do
  case "$extra" in
    peers)  command -v mpicc.mpich >/dev/null 2>&1 || need="$need mpich libmpich-dev"
            command -v mpicc.openmpi >/dev/null 2>&1 || need="$need openmpi-bin libopenmpi-dev"
            python3 -c 'import matplotlib' >/dev/null 2>&1 || need="$need python3-matplotlib" ;;
    multihost)  # the UCX transport, the PMIx client and the two-host tests/benchmarks (issue 7)
            [ -f /usr/include/ucp/api/ucp.h ] || need="$need libucx-dev"
            pkg-config --exists pmix 2>/dev/null || need="$need libpmix-dev"
            command -v ucx_perftest >/dev/null 2>&1 || need="$need ucx-utils"
            command -v mpiexec.hydra >/dev/null 2>&1 || need="$need mpich"
            command -v mpirun.openmpi >/dev/null 2>&1 || need="$need openmpi-bin"
            command -v ip >/dev/null 2>&1 || need="$need iproute2"
            # Slurm for the two-host srun tests (tests/twohost/slurm.sh runs its own daemons)
            command -v srun >/dev/null 2>&1 || need="$need slurm-client"
            [ -x /usr/sbin/slurmd ] || need="$need slurmd"
            [ -x /usr/sbin/slurmctld ] || need="$need slurmctld"
            [ -x /usr/sbin/munged ] || need="$need munge" ;;
    tidy)   command -v run-clang-tidy >/dev/null 2>&1 || need="$need clang-tidy" ;;  # scripts/tidy.sh
  esac
done
if [ -n "$need" ]; then
  echo "deps: installing$need"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
