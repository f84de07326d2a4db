/* Error cases of the group, communicator and attribute calls, with MPI_ERRORS_RETURN and with a
 * user error handler (called on the communicator the error belongs to). Every rank takes the same
 * error paths, so no collective call is left half-entered. */
#include "mpitest.h"

static int handler_calls = 0, handler_code = 0;

static void count_handler(MPI_Comm* comm, int* code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT_CLASS(call, cls) \
    do { \
        int rc_ = (call); \
        CHECK(err_class(rc_) == (cls), "%s: error class %d, expected %d (%s)", #call, err_class(rc_), (cls), #cls); \
    } while (0)

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank, size, n, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c, w = MPI_COMM_WORLD, s = MPI_COMM_SELF, nul = MPI_COMM_NULL;
    MPI_Group g, world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* predefined communicators cannot be freed; the handle is left alone */
    EXPECT_CLASS(MPI_Comm_free(&w), MPI_ERR_COMM);
    CHECK(w == MPI_COMM_WORLD, "handle changed by a failed free");
    EXPECT_CLASS(MPI_Comm_free(&s), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_free(&nul), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM);
    /* (a freed handle is not tested: reading it is a use after free that sanitizer builds catch) */

    /* bad colors, split types, tags */
    EXPECT_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 9999, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c), MPI_ERR_TAG);

    /* bad groups */
    EXPECT_CLASS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
    EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c), MPI_ERR_GROUP);
    g = MPI_GROUP_NULL;
    EXPECT_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP);
    CHECK_MPI(MPI_Group_incl(world, 0, NULL, &g));
    /* a group with members outside the communicator */
    if (size > 1) {
        EXPECT_CLASS(MPI_Comm_create(MPI_COMM_SELF, world, &c), MPI_ERR_GROUP);
        EXPECT_CLASS(MPI_Comm_create_group(MPI_COMM_SELF, world, 0, &c), MPI_ERR_GROUP);
    }
    /* the empty group: create gives MPI_COMM_NULL everywhere */
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "create over the empty group");
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 3, &c));
    CHECK(c == MPI_COMM_NULL, "create_group over the empty group (caller not a member)");

    /* intercommunicator queries on an intracommunicator */
    EXPECT_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "test_inter");

    /* invalid keyvals */
    int kv = 0;
    void* v;
    EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, 424242, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    int kv2 = kv;
    CHECK_MPI(MPI_Comm_free_keyval(&kv));
    EXPECT_CLASS(MPI_Comm_free_keyval(&kv2), MPI_ERR_KEYVAL);  /* freed twice */

    /* info arguments */
    EXPECT_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c));  /* no hints */
    MPI_Info got;
    CHECK_MPI(MPI_Comm_get_info(c, &got));
    CHECK_MPI(MPI_Info_get_nkeys(got, &n));
    CHECK(n == 0, "dup_with_info(MPI_INFO_NULL) hints %d", n);
    CHECK_MPI(MPI_Info_free(&got));

    /* a user error handler runs on the communicator in error, with the error code */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(count_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
    int rc = MPI_Comm_create_group(c, world, -7, &nul);
    CHECK(handler_calls == 1 && err_class(handler_code) == MPI_ERR_TAG, "handler calls %d code %d", handler_calls,
          handler_code);
    CHECK(err_class(rc) == MPI_ERR_TAG, "create_group rc %d", rc);
    rc = MPI_Comm_delete_attr(c, 9999999);
    CHECK(handler_calls == 2 && err_class(handler_code) == MPI_ERR_KEYVAL, "handler calls %d code %d",
          handler_calls, handler_code);
    /* a dup inherits the error handler */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    rc = MPI_Comm_split(d, -9, 0, &nul);
    CHECK(handler_calls == 3 && err_class(handler_code) == MPI_ERR_ARG, "dup's handler: calls %d", handler_calls);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_free(&c));

    MPI_Group_free(&world);
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
