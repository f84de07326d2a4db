/* Shared start of the CUDA tests: MPI_Init, then every rank selects a GPU (rank % devices), or,
 * if any rank has none, the test ends with exit code 77 (ctest: skipped) and a line saying so. */
#ifndef BATON_TESTS_CUDA_TEST_H
#define BATON_TESTS_CUDA_TEST_H

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpitest.h"

static inline void cuda_test_init(int* argc, char*** argv, const char* name, int* rank, int* size)
{
    MPI_Init(argc, argv);
    mpitest_init();
    int ndev = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    int have = cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0;
    int all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        if (*rank == 0) printf("SKIP %s: no CUDA device on this machine (cudaGetDeviceCount)\n", name);
        MPI_Finalize();
        exit(77);
    }
    CHECK(cudaSetDevice(*rank % ndev) == cudaSuccess, "cudaSetDevice");
}

#endif
