#!/usr/bin/env bash
# Runs dynamic_no_launcher.c where nothing can spawn: as a singleton (no launcher at all), and
# under mpiexec.hydra speaking PMI-2 with SLURM_MPI_TYPE=pmi2 (what srun --mpi=pmi2 sets; the
# refusal must not depend on Slurm itself being there). Skips (77) the second without Hydra.
set -u
prog=$1
env -u PMI_FD -u PMIX_NAMESPACE timeout 30 "$prog" singleton || exit 1
command -v mpiexec.hydra > /dev/null || { echo "SKIP: mpiexec.hydra not installed"; exit 77; }
timeout 30 mpiexec.hydra -n 1 -genv PMI_VERSION 2 -genv SLURM_MPI_TYPE pmi2 "$prog" slurm
