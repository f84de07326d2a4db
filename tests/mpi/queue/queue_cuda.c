/* MPIX_QUEUE_TYPE_CUDA on a real stream (built with the CUDA toolkit; exits 77, which ctest
 * reports as skipped, with a line saying why, where there is no GPU).
 *
 * Each iteration enqueues on the stream, with no host synchronization in between:
 *   host function sleeping 1 ms, then cudaMemcpyAsync(send <- data[k])   (work before the start)
 *   MPI_Enqueue_startall(recv, send)     must not start before that work
 *   MPI_Enqueue_waitall                   the stream must wait for the message
 *   cudaMemcpyAsync(out[k] <- recv)      must see round k's data
 * on two streams/queues at once (different tags), then every round is checked. */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <unistd.h>

#include "cuda_test.h"

enum { N = 512, NITER = 40, NQ = 2 };

static void CUDART_CB slow(void* arg)
{
    (void)arg;
    usleep(1000);
}

int main(int argc, char** argv)
{
    int rank, size;
    cuda_test_init(&argc, &argv, "queue_cuda", &rank, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    cudaStream_t st[NQ];
    MPI_Queue q[NQ];
    MPI_Request reqs[NQ][2];
    MPI_Status stat[NQ][NITER][2];
    int *data[NQ], *sendbuf[NQ], *recvbuf[NQ], *out[NQ];
    for (int j = 0; j < NQ; j++) {
        CHECK(cudaStreamCreateWithFlags(&st[j], cudaStreamNonBlocking) == cudaSuccess, "stream");
        CHECK(cudaMallocHost((void**)&data[j], sizeof(int) * N * NITER) == cudaSuccess, "alloc");
        CHECK(cudaMallocHost((void**)&sendbuf[j], sizeof(int) * N) == cudaSuccess, "alloc");
        CHECK(cudaMallocHost((void**)&recvbuf[j], sizeof(int) * N) == cudaSuccess, "alloc");
        CHECK(cudaMallocHost((void**)&out[j], sizeof(int) * N * NITER) == cudaSuccess, "alloc");
        for (int k = 0; k < NITER; k++)
            for (int i = 0; i < N; i++) data[j][k * N + i] = rank * 1000000 + j * 100000 + k * 1000 + i;
        for (int i = 0; i < N; i++) sendbuf[j][i] = -1;
        CHECK_MPI(MPI_Queue_init(&q[j], MPIX_QUEUE_TYPE_CUDA, st[j]));
        CHECK_MPI(MPI_Recv_init(recvbuf[j], N, MPI_INT, left, j, MPI_COMM_WORLD, &reqs[j][0]));
        CHECK_MPI(MPI_Send_init(sendbuf[j], N, MPI_INT, right, j, MPI_COMM_WORLD, &reqs[j][1]));
        CHECK_MPI(MPI_Matchall(2, reqs[j]));
    }
    for (int k = 0; k < NITER; k++) {
        for (int j = 0; j < NQ; j++) {
            CHECK(cudaLaunchHostFunc(st[j], slow, NULL) == cudaSuccess, "cudaLaunchHostFunc");
            CHECK(cudaMemcpyAsync(sendbuf[j], data[j] + k * N, sizeof(int) * N, cudaMemcpyDefault, st[j]) ==
                      cudaSuccess,
                  "memcpy");
            CHECK_MPI(MPI_Enqueue_startall(q[j], 2, reqs[j]));
            CHECK_MPI(MPI_Enqueue_waitall(q[j], 2, reqs[j], stat[j][k]));
            CHECK(cudaMemcpyAsync(out[j] + k * N, recvbuf[j], sizeof(int) * N, cudaMemcpyDefault, st[j]) ==
                      cudaSuccess,
                  "memcpy");
        }
    }
    for (int j = 0; j < NQ; j++) {
        CHECK(cudaStreamSynchronize(st[j]) == cudaSuccess, "cudaStreamSynchronize");
        CHECK_MPI(MPI_Queue_fence(q[j]));
    }
    for (int j = 0; j < NQ; j++) {
        int bad = 0;
        for (int k = 0; k < NITER; k++) {
            for (int i = 0; i < N; i++)
                if (out[j][k * N + i] != left * 1000000 + j * 100000 + k * 1000 + i) bad++;
            if (stat[j][k][0].MPI_SOURCE != left || stat[j][k][0].MPI_TAG != j) bad++;
        }
        CHECK(bad == 0, "queue %d: %d wrong values (out[0] = %d)", j, bad, out[j][0]);
        CHECK_MPI(MPI_Request_free(&reqs[j][0]));
        CHECK_MPI(MPI_Request_free(&reqs[j][1]));
        CHECK_MPI(MPI_Queue_free(&q[j]));
        cudaFreeHost(data[j]);
        cudaFreeHost(sendbuf[j]);
        cudaFreeHost(recvbuf[j]);
        cudaFreeHost(out[j]);
        cudaStreamDestroy(st[j]);
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
