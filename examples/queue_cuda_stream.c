/* A ring exchange ordered on a CUDA stream through a MPIX_QUEUE_TYPE_CUDA queue (built only when
 * CMake finds the CUDA toolkit; needs a GPU to run).
 *
 * Every iteration enqueues on one stream, without the host waiting in between:
 *
 *   cudaMemcpyAsync(send <- data)          stream work before the start (packing)
 *   MPI_Enqueue_startall(recv, send)       starts when the stream reaches it
 *   MPI_Enqueue_waitall                    the stream waits until both completed
 *   cudaMemcpyAsync(out[iter] <- recv)     stream work after the wait (sees the received data)
 *
 * The buffers are pinned host memory (cudaMallocHost): Baton moves the data with the CPU, and the
 * stream's copies read and write it where the device can reach it. One cudaStreamSynchronize
 * at the end, then MPI_Queue_fence, then every iteration's received data is checked.
 *
 *   build/bin/mpiexec -n 2 build/examples/queue_cuda_stream
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#define N 256
#define NITER 50

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, ndev = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        if (rank == 0) printf("queue_cuda_stream: no CUDA device here, nothing to run\n");
        MPI_Finalize();
        return 0;
    }
    CU(cudaSetDevice(rank % ndev));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int *data, *sendbuf, *recvbuf, *out;
    CU(cudaMallocHost((void **)&data, sizeof(int) * N * NITER));
    CU(cudaMallocHost((void **)&sendbuf, sizeof(int) * N));
    CU(cudaMallocHost((void **)&recvbuf, sizeof(int) * N));
    CU(cudaMallocHost((void **)&out, sizeof(int) * N * NITER));
    for (int k = 0; k < NITER; k++)
        for (int i = 0; i < N; i++) data[k * N + i] = rank * 1000000 + k * 1000 + i;

    MPI_Queue q;
    MPI_Request reqs[2];
    if (MPI_Queue_init(&q, MPIX_QUEUE_TYPE_CUDA, stream) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Recv_init(recvbuf, N, MPI_INT, left, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(sendbuf, N, MPI_INT, right, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Matchall(2, reqs);

    for (int k = 0; k < NITER; k++) {
        CU(cudaMemcpyAsync(sendbuf, data + k * N, sizeof(int) * N, cudaMemcpyDefault, stream));
        MPI_Enqueue_startall(q, 2, reqs);
        MPI_Enqueue_waitall(q, 2, reqs, MPI_STATUSES_IGNORE);
        CU(cudaMemcpyAsync(out + k * N, recvbuf, sizeof(int) * N, cudaMemcpyDefault, stream));
    }
    CU(cudaStreamSynchronize(stream));
    MPI_Queue_fence(q);

    int bad = 0;
    for (int k = 0; k < NITER; k++)
        for (int i = 0; i < N; i++)
            if (out[k * N + i] != left * 1000000 + k * 1000 + i) bad++;
    printf("rank %d: %d iterations ordered on a CUDA stream: %s\n", rank, NITER, bad ? "WRONG DATA" : "data ok");

    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Queue_free(&q);
    cudaFreeHost(data);
    cudaFreeHost(sendbuf);
    cudaFreeHost(recvbuf);
    cudaFreeHost(out);
    cudaStreamDestroy(stream);
    MPI_Finalize();
    return bad ? 1 : 0;
}
