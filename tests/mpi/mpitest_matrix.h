/* A non-commutative reduction for tests of rank order: 2x2 matrices of unsigned ints (mod 2^32),
 * multiplied as inout = in x inout, and the matrix a rank contributes. */
#pragma once

#include <stdint.h>

#include <mpi.h>

/* The user op (MPI_Op_create(mpitest_matmul, 0, &op)): len matrices of 4 unsigned ints each. */
static inline void mpitest_matmul(void* in, void* inout, int* len, MPI_Datatype* dt)
{
    (void)dt;
    const unsigned* a = (const unsigned*)in;
    unsigned* b = (unsigned*)inout;
    for (int k = 0; k < *len; ++k, a += 4, b += 4) {
        unsigned c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
        unsigned c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
        b[0] = c0;
        b[1] = c1;
        b[2] = c2;
        b[3] = c3;
    }
}

/* Rank r's matrix for element (or salt) i. */
static inline void mpitest_matrix(int64_t i, int r, unsigned* m)
{
    m[0] = 1u + (unsigned)(r % 3);
    m[1] = (unsigned)(r + 1 + i % 5);
    m[2] = (unsigned)(i % 3);
    m[3] = 1u + (unsigned)((r + i) % 2);
}
