/* MPI_Comm_spawn: the parents (every rank of MPI_COMM_WORLD) start `nchildren` copies of this
 * program ("child" mode); both sides check data through the intercommunicator (point-to-point
 * both ways, bcast from a parent root, allreduce across the groups), then after
 * MPI_Intercomm_merge (sizes, order, allreduce, barrier), then disconnect.
 *   dynamic_spawn NCHILDREN [grand]   "grand": each child job spawns one grandchild too.
 * DYNAMIC_TEST_USIZE=N: MPI_UNIVERSE_SIZE must be N (mpiexec --universe-size, --hostfile). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynamic_test.h"

/* The checks both sides run on the intercommunicator; `parents` says which side this is. */
static void exercise(MPI_Comm ic, int parents) {
  int rank, size, rsize;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  /* Point-to-point: every parent sends its rank*100+j to each child j; children answer. */
  if (parents) {
    for (int j = 0; j < rsize; ++j) {
      int v = rank * 100 + j, back = -1;
      MPI_Send(&v, 1, MPI_INT, j, 7, ic);
      MPI_Recv(&back, 1, MPI_INT, j, 8, ic, MPI_STATUS_IGNORE);
      CHECK(back == v + 1, "parent %d: child %d answered %d, not %d", rank, j, back, v + 1);
    }
  } else {
    for (int i = 0; i < rsize; ++i) {
      int v = -1;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st);
      CHECK(v == st.MPI_SOURCE * 100 + rank, "child %d: got %d from parent %d", rank, v, st.MPI_SOURCE);
      ++v;
      MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, 8, ic);
    }
  }
  /* Bcast from parent 0 to the children; a larger buffer too (UCX rendezvous). */
  enum { big = 300000 };
  int* buf = malloc(big * sizeof(int));
  if (parents) {
    for (int i = 0; i < big; ++i) buf[i] = i ^ 0x5a5a;
    MPI_Bcast(buf, big, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic);
  } else {
    memset(buf, 0, big * sizeof(int));
    MPI_Bcast(buf, big, MPI_INT, 0, ic);
    for (int i = 0; i < big; ++i) CHECK(buf[i] == (i ^ 0x5a5a), "child %d: bcast element %d is %d", rank, i, buf[i]);
  }
  free(buf);
  /* Allreduce across: each side gets the sum over the other group of (rank + 1). */
  int mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic);
  CHECK(sum == rsize * (rsize + 1) / 2, "%s %d: intercomm allreduce %d, expected %d", parents ? "parent" : "child",
        rank, sum, rsize * (rsize + 1) / 2);
  /* Merge: parents first (high = 0), children after. */
  MPI_Comm merged;
  MPI_Intercomm_merge(ic, parents ? 0 : 1, &merged);
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + rsize, "merged size %d, expected %d", msize, size + rsize);
  CHECK(mrank == (parents ? rank : rsize + rank), "merged rank %d (%s %d)", mrank, parents ? "parent" : "child", rank);
  int total = 0;
  MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == msize * (msize - 1) / 2, "merged allreduce %d", total);
  int* all = malloc(msize * sizeof(int));
  MPI_Allgather(&mrank, 1, MPI_INT, all, 1, MPI_INT, merged);
  for (int i = 0; i < msize; ++i) CHECK(all[i] == i, "merged allgather[%d] = %d", i, all[i]);
  free(all);
  MPI_Barrier(merged);
  /* Processes of two launches never share Baton's shared memory: MPI_COMM_TYPE_SHARED keeps each
   * launch apart, and a shared window over both is refused. */
  MPI_Comm shared;
  MPI_Comm_split_type(merged, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int side = parents, sides[2] = {0, 0};
  MPI_Allreduce(&side, &sides[0], 1, MPI_INT, MPI_MIN, shared);
  MPI_Allreduce(&side, &sides[1], 1, MPI_INT, MPI_MAX, shared);
  CHECK(sides[0] == sides[1], "MPI_COMM_TYPE_SHARED put parents and children together");
  MPI_Comm_free(&shared);
  MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
  void* base = NULL;
  MPI_Win win = MPI_WIN_NULL;
  int rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, merged, &base, &win);
  CHECK(error_class(rc) == MPI_ERR_RMA_SHARED, "a shared window over two launches gave class %d",
        error_class(rc));
  MPI_Comm_free(&merged);
  /* Names through the launcher across generations: the children's rank 0 publishes a service,
   * the parents' rank 0 looks it up (Baton's mpiexec forwards a nested launcher's requests to
   * the first one), then the children unpublish it. */
  char service[64], port[MPI_MAX_PORT_NAME];
  int pid = (int)getpid();
  if (!parents && rank == 0) {
    snprintf(service, sizeof service, "baton-child-%d", pid);
    snprintf(port, sizeof port, "fake-port-%d", pid);
    CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "child: publish");
    MPI_Send(&pid, 1, MPI_INT, 0, 11, ic);
  }
  if (parents && rank == 0) {
    int cpid;
    MPI_Recv(&cpid, 1, MPI_INT, 0, 11, ic, MPI_STATUS_IGNORE);
    snprintf(service, sizeof service, "baton-child-%d", cpid);
    char want[64];
    snprintf(want, sizeof want, "fake-port-%d", cpid);
    CHECK(MPI_Lookup_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS && strcmp(port, want) == 0,
          "parent: lookup of the child's service gave '%s'", port);
  }
  MPI_Barrier(ic);
  if (!parents && rank == 0) CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const int grand = argc > 2 && strcmp(argv[2], "grand") == 0;
  if (parent == MPI_COMM_NULL) {
    CHECK(argc > 1, "usage: dynamic_spawn NCHILDREN [grand]");
    const int n = atoi(argv[1]);
    int* flag = NULL;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag, &found);
    CHECK(found && *flag >= wsize, "MPI_UNIVERSE_SIZE %d (found %d)", found ? *flag : -1, found);
    /* Set by the tests that give mpiexec --universe-size or a hostfile. */
    if (getenv("DYNAMIC_TEST_USIZE"))
      CHECK(*flag == atoi(getenv("DYNAMIC_TEST_USIZE")), "MPI_UNIVERSE_SIZE %d, expected %s", *flag,
            getenv("DYNAMIC_TEST_USIZE"));
    char* cargv[] = {argv[1], "child", grand ? "grand" : NULL, NULL};
    int* codes = malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) codes[i] = -1;
    MPI_Comm ic;
    int rc = MPI_Comm_spawn(argv[0], cargv, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_spawn returned %d", rc);
    for (int i = 0; i < n; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, codes[i]);
    free(codes);
    int rsize, flag2;
    MPI_Comm_test_inter(ic, &flag2);
    CHECK(flag2, "the spawn result is not an intercommunicator");
    MPI_Comm_remote_size(ic, &rsize);
    CHECK(rsize == n, "remote size %d, expected %d", rsize, n);
    exercise(ic, 1);
    MPI_Comm_disconnect(&ic);
    CHECK(ic == MPI_COMM_NULL, "disconnect left the handle");
    if (wrank == 0) printf("spawn of %d children by %d parents: ok\n", n, wsize);
  } else {
    int* appnum = NULL;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &found);
    CHECK(found && *appnum == 0, "child: MPI_APPNUM %d (found %d)", found ? *appnum : -1, found);
    CHECK(argc > 2 && strcmp(argv[2], "child") == 0, "child: argv[2] is '%s'", argc > 2 ? argv[2] : "(none)");
    CHECK(wsize == atoi(argv[1]), "child: world size %d, asked %s", wsize, argv[1]);
    int flag2;
    MPI_Comm_test_inter(parent, &flag2);
    CHECK(flag2, "the parent communicator is not an intercommunicator");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(parent, name, &len);
    CHECK(strcmp(name, "MPI_COMM_PARENT") == 0, "parent's name is '%s'", name);
    exercise(parent, 0);
    if (argc > 3 && strcmp(argv[3], "grand") == 0) {
      /* A spawned job spawns too: one grandchild, which is checked the same way. */
      char* gargv[] = {"1", "child", NULL};
      MPI_Comm gic;
      int code = -1;
      CHECK(MPI_Comm_spawn(argv[0], gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &gic, &code) == MPI_SUCCESS &&
                code == 0,
            "child: spawning a grandchild failed");
      exercise(gic, 1);
      MPI_Comm_disconnect(&gic);
    }
    MPI_Comm_disconnect(&parent);
    MPI_Comm p2;
    MPI_Comm_get_parent(&p2);
    CHECK(p2 == MPI_COMM_NULL, "MPI_Comm_get_parent after disconnect is not MPI_COMM_NULL");
  }
  MPI_Finalize();
  return 0;
}
