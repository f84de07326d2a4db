/* MPI_THREAD_MULTIPLE: 4 threads per rank create, commit, query (envelope/contents), use (a
 * self-send with the derived type, Reduce_local with a user op) and free datatypes and ops at the
 * same time, so the handle registries and reference counts are exercised concurrently. Each thread
 * keeps its own failure count; the main thread CHECKs them after the join. */
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 1500

static int thread_failures[NTHREADS];
static char thread_msg[NTHREADS][200];

static void add_one(void* in, void* inout, int* len, MPI_Datatype* dt)
{
    const int* a = in;
    int* b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i] + 1;
    (void)dt;
}

#define TCHECK(id, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (thread_failures[id]++ == 0) snprintf(thread_msg[id], sizeof thread_msg[id], __VA_ARGS__); \
        }                                                                                          \
    } while (0)

static void* worker(void* arg)
{
    const int id = (int)(intptr_t)arg;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int src[12], dst[12];
    for (int it = 0; it < ITERS; it++) {
        MPI_Datatype v, d, got;
        int ints[4], ni, na, nd, comb;
        MPI_Aint addrs[1];
        TCHECK(id, MPI_Type_vector(3, 2, 4, MPI_INT, &v) == MPI_SUCCESS, "vector");
        TCHECK(id, MPI_Type_dup(v, &d) == MPI_SUCCESS, "dup");
        TCHECK(id, MPI_Type_free(&v) == MPI_SUCCESS, "free vector");
        TCHECK(id, MPI_Type_commit(&d) == MPI_SUCCESS, "commit");
        TCHECK(id, MPI_Type_get_envelope(d, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_DUP,
               "envelope");
        TCHECK(id, MPI_Type_get_contents(d, 4, 1, 1, ints, addrs, &got) == MPI_SUCCESS, "contents");
        int sz = 0;
        TCHECK(id, MPI_Type_size(got, &sz) == MPI_SUCCESS && sz == 24, "component size %d", sz);
        TCHECK(id, MPI_Type_free(&got) == MPI_SUCCESS, "free component");

        for (int i = 0; i < 12; i++) {
            src[i] = it * 100 + id * 10 + i;
            dst[i] = -1;
        }
        MPI_Request rq;
        TCHECK(id, MPI_Isend(src, 1, d, rank, id, MPI_COMM_WORLD, &rq) == MPI_SUCCESS, "isend");
        TCHECK(id, MPI_Type_free(&d) == MPI_SUCCESS, "free dup with a send pending");
        TCHECK(id, MPI_Recv(dst, 6, MPI_INT, rank, id, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS,
               "recv");
        TCHECK(id, MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
        TCHECK(id, dst[0] == src[0] && dst[1] == src[1] && dst[2] == src[4] && dst[5] == src[9],
               "iteration %d: data %d %d", it, dst[2], dst[5]);

        MPI_Op op;
        TCHECK(id, MPI_Op_create(add_one, 1, &op) == MPI_SUCCESS, "op create");
        TCHECK(id, MPI_Reduce_local(src, dst, 2, MPI_INT, op) == MPI_SUCCESS, "reduce_local");
        TCHECK(id, dst[0] == 2 * src[0] + 1, "user op result");
        TCHECK(id, MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL, "op free");
    }
    return NULL;
}

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpitest_init();
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th[NTHREADS];
        for (int i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void*)(intptr_t)i);
        for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < NTHREADS; i++)
            CHECK(thread_failures[i] == 0, "thread %d: %d failures; first: %s", i, thread_failures[i],
                  thread_msg[i]);
    }
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
