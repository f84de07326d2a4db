/* Several spawns outstanding at once from different threads and communicators
 * (MPI_THREAD_MULTIPLE): each of 3 threads spawns 1 child over its own duplicate of
 * MPI_COMM_WORLD, sends it a value, gets value + 1 back, merges and disconnects. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_test.h"

#define NTHREADS 3

static const char* self_path;
static MPI_Comm comms[NTHREADS];

static void* run(void* arg) {
  const int t = (int)(long)arg;
  char tn[16];
  snprintf(tn, sizeof tn, "%d", t);
  char* args[] = {"child", tn, NULL};
  MPI_Comm ic;
  int code = -1;
  CHECK(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, comms[t], &ic, &code) == MPI_SUCCESS && code == 0,
        "thread %d: spawn failed", t);
  int rank;
  MPI_Comm_rank(comms[t], &rank);
  int v = 1000 * t + rank, w = -1;
  MPI_Send(&v, 1, MPI_INT, 0, t, ic);
  MPI_Recv(&w, 1, MPI_INT, 0, t, ic, MPI_STATUS_IGNORE);
  CHECK(w == v + 1, "thread %d: child answered %d to %d", t, w, v);
  MPI_Comm m;
  MPI_Intercomm_merge(ic, 0, &m);
  int sum = 0, one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m);
  int msize;
  MPI_Comm_size(m, &msize);
  CHECK(sum == msize, "thread %d: merged allreduce %d of %d", t, sum, msize);
  MPI_Comm_free(&m);
  MPI_Comm_disconnect(&ic);
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    const int t = atoi(argv[2]);
    int psize;
    MPI_Comm_remote_size(parent, &psize);
    for (int i = 0; i < psize; ++i) {
      int v;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, t, parent, &st);
      ++v;
      MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, t, parent);
    }
    MPI_Comm m;
    MPI_Intercomm_merge(parent, 1, &m);
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m);
    MPI_Comm_free(&m);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
  self_path = argv[0];
  for (int t = 0; t < NTHREADS; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; ++t) pthread_create(&th[t], NULL, run, (void*)(long)t);
  for (int t = 0; t < NTHREADS; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < NTHREADS; ++t) MPI_Comm_free(&comms[t]);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%d concurrent spawns: ok\n", NTHREADS);
  MPI_Finalize();
  return 0;
}
