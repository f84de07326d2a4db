/* MPIX_QUEUE_TYPE_CUDA with buffers in device memory (cudaMalloc), produced and consumed by
 * kernels (compiled at run time with NVRTC, launched with the CUDA runtime). Exits 77, which ctest
 * reports as skipped, with a line saying why, where there is no GPU.
 *
 * Per round k, on each stream, with no host synchronization in between:
 *   fill<<<>>>(send, base(rank, k))          a kernel writes the message
 *   MPI_Enqueue_startall(recv, send)         the start must see what fill wrote
 *   MPI_Enqueue_waitall                      kernels after it must see the received data
 *   check<<<>>>(recv, base(left, k), bad+k)  counts wrong values of round k
 *   fill<<<>>>(recv, -1)                     poison: round k+1 must overwrite it
 * Queue 0 moves 256 ints (eager), queue 1 256 Ki ints (1 MiB, credit-gated single copy), queue 2
 * 1001 ints starting one int past the start of the cudaMalloc'd block (a staged buffer that is
 * not 16-byte aligned and not a multiple of 16 bytes long).
 * Then the refusals: MPI_Start of a device-memory request, enqueueing it on a default queue, and
 * matching a device buffer with a non-contiguous datatype (MPI_ERR_BUFFER, nothing changed). */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_test.h"

enum { NITER = 30, NQ = 3 };
static const int sizes[NQ] = {256, 256 * 1024, 1001};
static const int offsets[NQ] = {0, 0, 1}; /* in ints from the start of the cudaMalloc'd block */

static const char* kernels =
    "extern \"C\" __global__ void fill(int* b, int n, int base) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) b[i] = base < 0 ? base : base + i;\n"
    "}\n"
    "extern \"C\" __global__ void check(const int* b, int n, int base, int* bad) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n && b[i] != base + i) atomicAdd(bad, 1);\n"
    "}\n";

static cudaKernel_t k_fill, k_check;

static int build_kernels(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char* opts[] = {arch};
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, kernels, "queue_cuda_device.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return 0;
    if (nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char* log = malloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "nvrtc: %s\n", log);
        free(log);
        return 0;
    }
    size_t n = 0;
    nvrtcGetPTXSize(prog, &n);
    char* ptx = malloc(n);
    nvrtcGetPTX(prog, ptx);
    nvrtcDestroyProgram(&prog);
    cudaLibrary_t lib;
    int ok = cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0) == cudaSuccess &&
             cudaLibraryGetKernel(&k_fill, lib, "fill") == cudaSuccess &&
             cudaLibraryGetKernel(&k_check, lib, "check") == cudaSuccess;
    free(ptx);
    return ok;
}

static void launch_fill(cudaStream_t s, int* b, int n, int base)
{
    void* args[] = {&b, &n, &base};
    dim3 grid = {(unsigned)(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    CHECK(cudaLaunchKernel((const void*)k_fill, grid, block, args, 0, s) == cudaSuccess, "launch fill");
}

static void launch_check(cudaStream_t s, int* b, int n, int base, int* bad)
{
    void* args[] = {&b, &n, &base, &bad};
    dim3 grid = {(unsigned)(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    CHECK(cudaLaunchKernel((const void*)k_check, grid, block, args, 0, s) == cudaSuccess, "launch check");
}

int main(int argc, char** argv)
{
    int rank, size;
    cuda_test_init(&argc, &argv, "queue_cuda_device", &rank, &size);
    CHECK(build_kernels(), "compiling the test kernels with NVRTC");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    cudaStream_t st[NQ];
    MPI_Queue q[NQ];
    MPI_Request reqs[NQ][2];
    int *dsend[NQ], *drecv[NQ], *dsend_block[NQ], *drecv_block[NQ], *dbad;
    CHECK(cudaMalloc((void**)&dbad, sizeof(int) * NQ * NITER) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMemset(dbad, 0, sizeof(int) * NQ * NITER) == cudaSuccess, "cudaMemset");
    for (int j = 0; j < NQ; j++) {
        CHECK(cudaStreamCreateWithFlags(&st[j], cudaStreamNonBlocking) == cudaSuccess, "stream");
        CHECK(cudaMalloc((void**)&dsend_block[j], sizeof(int) * (sizes[j] + offsets[j])) == cudaSuccess, "cudaMalloc");
        CHECK(cudaMalloc((void**)&drecv_block[j], sizeof(int) * (sizes[j] + offsets[j])) == cudaSuccess, "cudaMalloc");
        dsend[j] = dsend_block[j] + offsets[j];
        drecv[j] = drecv_block[j] + offsets[j];
        CHECK_MPI(MPI_Queue_init(&q[j], MPIX_QUEUE_TYPE_CUDA, st[j]));
        CHECK_MPI(MPI_Recv_init(drecv[j], sizes[j], MPI_INT, left, j, MPI_COMM_WORLD, &reqs[j][0]));
        CHECK_MPI(MPI_Send_init(dsend[j], sizes[j], MPI_INT, right, j, MPI_COMM_WORLD, &reqs[j][1]));
        CHECK_MPI(MPI_Matchall(2, reqs[j]));
    }
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
    for (int k = 0; k < NITER; k++) {
        for (int j = 0; j < NQ; j++) {
            launch_fill(st[j], dsend[j], sizes[j], rank * 10000000 + j * 1000000 + k * 1000);
            CHECK_MPI(MPI_Enqueue_startall(q[j], 2, reqs[j]));
            CHECK_MPI(MPI_Enqueue_waitall(q[j], 2, reqs[j], MPI_STATUSES_IGNORE));
            launch_check(st[j], drecv[j], sizes[j], left * 10000000 + j * 1000000 + k * 1000, dbad + j * NITER + k);
            launch_fill(st[j], drecv[j], sizes[j], -1);
        }
    }
    for (int j = 0; j < NQ; j++) {
        CHECK(cudaStreamSynchronize(st[j]) == cudaSuccess, "cudaStreamSynchronize");
        CHECK_MPI(MPI_Queue_fence(q[j]));
    }
    int bad[NQ * NITER];
    CHECK(cudaMemcpy(bad, dbad, sizeof bad, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy");
    for (int j = 0; j < NQ; j++) {
        int wrong = 0, first = -1;
        for (int k = 0; k < NITER; k++) {
            wrong += bad[j * NITER + k];
            if (bad[j * NITER + k] && first < 0) first = k;
        }
        CHECK(wrong == 0, "queue %d (%d ints): %d wrong values seen by the kernels, first in round %d", j, sizes[j],
              wrong, first);
    }

    /* Refusals: device-memory requests start only through CUDA queues. */
    int rc = MPI_Start(&reqs[0][0]);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "MPI_Start of a device-memory request: error class %d, want MPI_ERR_BUFFER", cls);
    MPI_Queue dq;
    CHECK_MPI(MPI_Queue_init(&dq, MPI_QUEUE_TYPE_DEFAULT, NULL));
    rc = MPI_Enqueue_start(dq, &reqs[0][1]);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "enqueueing a device-memory request on a default queue: class %d", cls);
    CHECK_MPI(MPI_Queue_free(&dq));
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Request vr;
    CHECK_MPI(MPI_Send_init(dsend[0], 1, vec, right, 99, MPI_COMM_WORLD, &vr));
    rc = MPI_Match(&vr);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "matching a device buffer with a non-contiguous datatype: class %d", cls);
    int matched = 1;
    CHECK_MPI(MPI_Is_matched(vr, &matched));
    CHECK(!matched, "the refused request must stay unmatched");
    CHECK_MPI(MPI_Request_free(&vr));
    MPI_Type_free(&vec);

    for (int j = 0; j < NQ; j++) {
        CHECK_MPI(MPI_Request_free(&reqs[j][0]));
        CHECK_MPI(MPI_Request_free(&reqs[j][1]));
        CHECK_MPI(MPI_Queue_free(&q[j]));
        cudaFree(dsend_block[j]);
        cudaFree(drecv_block[j]);
        cudaStreamDestroy(st[j]);
    }
    cudaFree(dbad);
    rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
