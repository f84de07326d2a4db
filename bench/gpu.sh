#!/usr/bin/env bash
# GPU benchmark: a ring exchange between device buffers driven by a CUDA stream through an
# MPIX_QUEUE_TYPE_CUDA queue, against the same exchange driven by the host (bench/queue_cuda.c).
# Baton only: no other MPI library installed here binds queues to CUDA streams.
#
#   bench/gpu.sh [--baton-build DIR] [--ranks N]
#
# Needs the CUDA toolkit (nvcc on PATH or in /usr/local/cuda) and a GPU; builds Baton into DIR
# (default build-gpu, without the unit tests) when DIR has no mpicc yet.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$root/build-gpu"
ranks=2
while (($#)); do
    case "$1" in
    --baton-build) build="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    *) echo "gpu.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
[ -x "$nvcc" ] || { echo "gpu.sh: the CUDA toolkit (nvcc) is not installed: nothing to measure" >&2; exit 1; }
cuda="$(dirname "$(dirname "$nvcc")")"
if [ ! -x "$build/bin/mpicc" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATON_UNIT_TESTS=OFF >/dev/null
    cmake --build "$build"
fi
"$build/bin/mpicc" -O2 "$here/queue_cuda.c" -I"$cuda/include" -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" \
    -lcudart -o "$build/bench_queue_cuda"
nvidia-smi -L 2>/dev/null || true
"$build/bin/mpiexec" -n "$ranks" --timeout 300 "$build/bench_queue_cuda"
