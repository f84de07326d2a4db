/* queue_cuda.c - a ring exchange between GPU buffers, driven by a CUDA stream through an
 * MPIX_QUEUE_TYPE_CUDA queue, against the same exchange driven by the host (Baton only: no other
 * MPI library on these machines has queues bound to CUDA streams). Run by bench/gpu.sh.
 *
 * Every rank sends `size` bytes of device memory (cudaMalloc) to its right neighbour and receives
 * as many from its left one, once per iteration. Each iteration first rewrites the send buffer on
 * the stream (cudaMemsetAsync, standing in for the kernel that produces the data) and ends with
 * a stream operation that reads the received data (cudaMemsetAsync of a scratch buffer, standing
 * in for the consumer), so the exchange is ordered with device work on both sides.
 *
 *   queue      fill; MPI_Enqueue_startall(recv, send); MPI_Enqueue_waitall; consume  -- the host
 *              only enqueues; one cudaStreamSynchronize + MPI_Queue_fence per batch
 *   host       fill; cudaMemcpyAsync(device -> pinned); cudaStreamSynchronize; MPI_Startall;
 *              MPI_Waitall; cudaMemcpyAsync(pinned -> device); consume -- what a program does
 *              today with a host-memory MPI library; one cudaStreamSynchronize per batch
 *
 * Both use the same persistent requests' pattern (the queue's matched, the host's plain) and the
 * same copies (the queue's staging copies are the host version's memcpys, recorded by the
 * library). Prints, on rank 0, the median time per iteration over the samples:
 *
 *     RESULT queue_cuda/<series> <size> <microseconds> us
 */
#include "bench_common.h"
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SAMPLES = 15, BATCH = 200 };

static void check(int ok, const char* what)
{
    if (!ok) {
        fprintf(stderr, "queue_cuda: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ndev = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        if (rank == 0) printf("queue_cuda: no CUDA device on this machine: nothing measured\n");
        MPI_Finalize();
        return 0;
    }
    cudaSetDevice(rank % ndev);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    static const size_t sizes[] = {8, 65536, 1048576};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        char *dsend, *drecv, *dscratch, *hsend, *hrecv;
        cudaStream_t st;
        check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess, "stream");
        check(cudaMalloc((void**)&dsend, n) == cudaSuccess && cudaMalloc((void**)&drecv, n) == cudaSuccess &&
                  cudaMalloc((void**)&dscratch, n) == cudaSuccess,
              "cudaMalloc");
        check(cudaMallocHost((void**)&hsend, n) == cudaSuccess && cudaMallocHost((void**)&hrecv, n) == cudaSuccess,
              "cudaMallocHost");
        MPI_Queue q;
        MPI_Request qr[2], hr[2];
        check(MPI_Queue_init(&q, MPIX_QUEUE_TYPE_CUDA, st) == MPI_SUCCESS, "MPI_Queue_init");
        MPI_Recv_init(drecv, (int)n, MPI_BYTE, left, 0, MPI_COMM_WORLD, &qr[0]);
        MPI_Send_init(dsend, (int)n, MPI_BYTE, right, 0, MPI_COMM_WORLD, &qr[1]);
        check(MPI_Matchall(2, qr) == MPI_SUCCESS, "MPI_Matchall");
        MPI_Recv_init(hrecv, (int)n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &hr[0]);
        MPI_Send_init(hsend, (int)n, MPI_BYTE, right, 1, MPI_COMM_WORLD, &hr[1]);
        double t_queue[SAMPLES], t_host[SAMPLES];
        for (int s = -1; s < SAMPLES; s++) { /* sample -1: warm-up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = bench_now_us();
            for (int i = 0; i < BATCH; i++) {
                cudaMemsetAsync(dsend, i & 0xff, n, st);
                MPI_Enqueue_startall(q, 2, qr);
                MPI_Enqueue_waitall(q, 2, qr, MPI_STATUSES_IGNORE);
                cudaMemcpyAsync(dscratch, drecv, n, cudaMemcpyDeviceToDevice, st);
            }
            check(cudaStreamSynchronize(st) == cudaSuccess, "cudaStreamSynchronize");
            MPI_Queue_fence(q);
            double t1 = bench_now_us();
            MPI_Barrier(MPI_COMM_WORLD);
            double t2 = bench_now_us();
            for (int i = 0; i < BATCH; i++) {
                cudaMemsetAsync(dsend, i & 0xff, n, st);
                cudaMemcpyAsync(hsend, dsend, n, cudaMemcpyDeviceToHost, st);
                cudaStreamSynchronize(st);
                MPI_Startall(2, hr);
                MPI_Waitall(2, hr, MPI_STATUSES_IGNORE);
                cudaMemcpyAsync(drecv, hrecv, n, cudaMemcpyHostToDevice, st);
                cudaMemcpyAsync(dscratch, drecv, n, cudaMemcpyDeviceToDevice, st);
            }
            check(cudaStreamSynchronize(st) == cudaSuccess, "cudaStreamSynchronize");
            double t3 = bench_now_us();
            if (s >= 0) {
                t_queue[s] = (t1 - t0) / BATCH;
                t_host[s] = (t3 - t2) / BATCH;
            }
        }
        /* The last iteration's data arrived on both paths: check it once. */
        unsigned char last = (BATCH - 1) & 0xff, got_q = 0, got_h = 0;
        cudaMemcpy(&got_q, dscratch, 1, cudaMemcpyDeviceToHost);
        got_h = (unsigned char)hrecv[n - 1];
        check(got_q == last && got_h == last, "data check");
        qsort(t_queue, SAMPLES, sizeof(double), bench_cmp_double);
        qsort(t_host, SAMPLES, sizeof(double), bench_cmp_double);
        if (rank == 0) {
            printf("RESULT queue_cuda/queue %zu %.3f us\n", n, t_queue[SAMPLES / 2]);
            printf("RESULT queue_cuda/host %zu %.3f us\n", n, t_host[SAMPLES / 2]);
            fflush(stdout);
        }
        MPI_Request_free(&qr[0]);
        MPI_Request_free(&qr[1]);
        MPI_Request_free(&hr[0]);
        MPI_Request_free(&hr[1]);
        MPI_Queue_free(&q);
        cudaFree(dsend);
        cudaFree(drecv);
        cudaFree(dscratch);
        cudaFreeHost(hsend);
        cudaFreeHost(hrecv);
        cudaStreamDestroy(st);
    }
    MPI_Finalize();
    return 0;
}
