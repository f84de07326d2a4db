/* Erroneous uses of persistent collectives (MPI-4.1 7.13), with MPI_ERRORS_RETURN: each is refused
 * with the right error class (the message naming the function goes to the fatal handler's output,
 * not to MPI_Error_string), and the library keeps working. */
#include "mpitest.h"

static int rank, size;

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

#define EXPECT_CLASS(call, cls)                                                                        \
  do {                                                                                                 \
    int rc_ = (call);                                                                                  \
    CHECK(rc_ != MPI_SUCCESS && error_class(rc_) == (cls), "%s returned class %d, expected %s", #call, \
          rc_ == MPI_SUCCESS ? 0 : error_class(rc_), #cls);                                            \
  } while (0)

/* A non-commutative user op: inout = in. */
static void first_of(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  int a = rank + 1, b = -1;
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));

  /* cancel: refused, inactive or active */
  EXPECT_CLASS(MPI_Cancel(&req), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Start(&req));
  EXPECT_CLASS(MPI_Cancel(&req), MPI_ERR_REQUEST);
  /* free while active: refused, the request stays usable */
  int rc = MPI_Request_free(&req);
  CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_REQUEST, "MPI_Request_free of an active request: %d", rc);
  CHECK(req != MPI_REQUEST_NULL, "a refused MPI_Request_free nulled the handle");
  /* start while active: refused, alone and in Startall (which then starts nothing) */
  rc = MPI_Start(&req);
  CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_REQUEST, "MPI_Start of an active request: %d", rc);
  int c = 0, d = -1;
  MPI_Request other;
  CHECK_MPI(MPI_Bcast_init(&c, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &other));
  MPI_Request both[2] = {other, req};
  EXPECT_CLASS(MPI_Startall(2, both), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(b == size * (size + 1) / 2, "allreduce after refused calls gave %d", b);
  /* the Startall above started nothing: `other` is inactive, a Test returns at once */
  int flag = 0;
  CHECK_MPI(MPI_Test(&other, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1, "an inactive request tested incomplete");

  /* a start after completion works again, many times */
  for (int it = 0; it < 4; ++it) {
    a = rank + it;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(b == size * (size - 1) / 2 + size * it, "restart %d gave %d", it, b);
  }

  /* bad arguments at init: the collective's own checks, the info, the request pointer */
  MPI_Request bad = MPI_REQUEST_NULL;
  EXPECT_CLASS(MPI_Allreduce_init(&a, &d, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &bad), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Allreduce_init(&a, &d, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
               MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Allreduce_init(&a, &d, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, MPI_INFO_NULL, &bad), MPI_ERR_OP);
  EXPECT_CLASS(MPI_Bcast_init(&c, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &bad), MPI_ERR_COMM);
  rc = MPI_Allreduce_init(&a, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
  CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_ARG, "NULL request pointer: %d", rc);
  CHECK(bad == MPI_REQUEST_NULL, "a refused init set the request");
  /* info: an algorithm that does not exist, one that cannot run these arguments */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "no_such_algorithm"));
  rc = MPI_Allreduce_init(&a, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &bad);
  CHECK(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_INFO_VALUE, "unknown baton_algorithm: %d", rc);
  CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "ring")); /* ring needs a commutative op */
  MPI_Op noncomm;
  CHECK_MPI(MPI_Op_create(first_of, 0, &noncomm));
  EXPECT_CLASS(MPI_Allreduce_init(&a, &d, 1, MPI_INT, noncomm, MPI_COMM_WORLD, info, &bad), MPI_ERR_INFO_VALUE);
  CHECK_MPI(MPI_Op_free(&noncomm));
  CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "dissemination")); /* a barrier algorithm */
  EXPECT_CLASS(MPI_Bcast_init(&c, 1, MPI_INT, 0, MPI_COMM_WORLD, info, &bad), MPI_ERR_INFO_VALUE);
  CHECK_MPI(MPI_Info_delete(info, "baton_algorithm"));
  CHECK_MPI(MPI_Info_set(info, "baton_bcast_algorithm", "binomial"));
  MPI_Request ok;
  CHECK_MPI(MPI_Bcast_init(&c, 1, MPI_INT, 0, MPI_COMM_WORLD, info, &ok)); /* a valid choice works */
  CHECK_MPI(MPI_Info_free(&info));
  /* a made-up info handle (a value in the predefined range that names no object) */
  EXPECT_CLASS(MPI_Barrier_init(MPI_COMM_WORLD, (MPI_Info)(intptr_t)0x123, &bad), MPI_ERR_INFO);

  /* the library keeps working: every rank made the same refused inits, so the valid ones match */
  c = rank == 0 ? 77 : -1;
  CHECK_MPI(MPI_Start(&ok));
  CHECK_MPI(MPI_Wait(&ok, MPI_STATUS_IGNORE));
  CHECK(c == 77, "bcast after refused inits gave %d", c);
  CHECK_MPI(MPI_Request_free(&ok));
  CHECK_MPI(MPI_Request_free(&other));
  CHECK_MPI(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free of an inactive request left the handle");
  /* a freed request is refused */
  EXPECT_CLASS(MPI_Start(&req), MPI_ERR_REQUEST);
  int x = rank, y = -1;
  CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(y == size - 1, "blocking allreduce after the errors gave %d", y);

  int result = mpitest_finish();
  MPI_Finalize();
  return result;
}
