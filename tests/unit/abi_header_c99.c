/*
 * Compile-only check that include/mpi.h is plain C99 (and, compiled with
 * -x c++, C++11): ctest runs the compiler on this file with -pedantic
 * -Werror.  Nothing here is linked or run.
 *
 * It uses the header the way programs and tools do: constants in constant
 * expressions, status fields, callbacks of the standard's types, and a
 * profiling wrapper that defines MPI_Send on top of PMPI_Send (which only
 * compiles if both are declared with this exact signature).
 */
#include <mpi.h>
#include <stddef.h>

/* C99 has no _Static_assert: a negative array size fails the compile. */
#define BATON_CHECK(name, cond) typedef char baton_check_##name[(cond) ? 1 : -1]

#if MPI_VERSION != 5 || MPI_SUBVERSION != 0
#error "mpi.h must announce MPI 5.0"
#endif
#if MPI_ABI_VERSION != 1 || MPI_ABI_SUBVERSION != 0
#error "mpi.h must announce standard ABI 1.0"
#endif

BATON_CHECK(status_size, sizeof(MPI_Status) == 8 * sizeof(int));
BATON_CHECK(status_source, offsetof(MPI_Status, MPI_SOURCE) == 0);
BATON_CHECK(status_tag, offsetof(MPI_Status, MPI_TAG) == sizeof(int));
BATON_CHECK(status_error, offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(int));
BATON_CHECK(aint_size, sizeof(MPI_Aint) == sizeof(void *));
BATON_CHECK(count_size, sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8);
BATON_CHECK(any_source, MPI_ANY_SOURCE == -1 && MPI_PROC_NULL == -3);
BATON_CHECK(threads, MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
                     MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
                     MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
BATON_CHECK(bsend_overhead, MPI_BSEND_OVERHEAD == 512);
BATON_CHECK(extension_key, MPIX_ICOLL_MAX_OUTSTANDING == 1001);

/* A profiling tool's wrapper. */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

/* Callbacks with the standard's types. */
void baton_c99_sum(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
void baton_c99_sum(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    const int *in = (const int *)invec;
    int *inout = (int *)inoutvec;
    int i;
    (void)datatype;
    for (i = 0; i < *len; ++i)
        inout[i] += in[i];
}

void baton_c99_on_error(MPI_Comm *comm, int *error_code, ...);
void baton_c99_on_error(MPI_Comm *comm, int *error_code, ...)
{
    (void)comm;
    (void)error_code;
}

const char *baton_c99_class_name(int error_class);
const char *baton_c99_class_name(int error_class)
{
    switch (error_class) { /* enumerators are integer constant expressions */
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_ABI: return "MPI_ERR_ABI";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID";
    default: return "?";
    }
}

/* An ordinary program fragment. */
int baton_c99_program(int argc, char **argv);
int baton_c99_program(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, rank = MPI_UNDEFINED, value = 1, flag = 0, err;
    int *max_outstanding = NULL;
    MPI_User_function *sum_fn = baton_c99_sum;
    MPI_Comm_errhandler_function *handler_fn = baton_c99_on_error;
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_Op op = MPI_OP_NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Status status;
    MPI_Count bytes = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    int name_len = 0;
    int keyval = MPI_KEYVAL_INVALID;

    err = MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(name, &name_len);
    MPI_Comm_create_errhandler(handler_fn, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    MPI_Op_create(sum_fn, 1, &op);
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_ICOLL_MAX_OUTSTANDING, &max_outstanding, &flag);
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &request);
    MPI_Wait(&request, &status);
    MPI_Get_count_c(&status, MPI_BYTE, &bytes);
    MPI_Send(&value, 1, MPI_INT, status.MPI_SOURCE == rank ? MPI_PROC_NULL : status.MPI_SOURCE,
             status.MPI_TAG, dup);
    MPI_Barrier(dup);
    MPI_Sendrecv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, &value, 1, MPI_INT, MPI_PROC_NULL, 0, dup,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free_keyval(&keyval);
    MPI_Comm_free(&dup);
    MPI_Op_free(&op);
    MPI_Errhandler_free(&handler);
    (void)MPI_Wtime();
    return MPI_Finalize();
}
