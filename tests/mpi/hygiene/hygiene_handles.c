/* Garbage handles of every kind give the kind's error class, never a crash: random addresses,
 * non-canonical values, a live object's address plus one (misaligned), a freed object, a
 * pointer into the stack, one into the heap, small values that are not predefined handles, and
 * a live handle of another kind. Before Baton-owned slabs (core/slab.hpp) MPI_Send, MPI_Wait,
 * MPI_Test and most other calls read the magic word through the raw pointer and crashed on
 * most of these. MPI_ERRORS_RETURN everywhere; the library must keep working afterwards (a final
 * exchange). */
#include <mpi.h>
#include <stdint.h>

#include "mpitest.h"

#define NBAD 12
static void* bad[NBAD];
static int nbad;

/* The garbage values for one kind: `live` a valid handle of it (for +1 and as a freed one after
 * the caller frees it), `freed` a handle of a freed object of it (or NULL). */
static void garbage(void* live, void* freed, void* other_kind)
{
    static int stack_word;
    int local = 0;
    nbad = 0;
    bad[nbad++] = (void*)(uintptr_t)0x00007f3a12345678ULL; /* random, most likely unmapped */
    bad[nbad++] = (void*)(uintptr_t)0xdeadbeefdeadbeefULL; /* not canonical */
    bad[nbad++] = (void*)(uintptr_t)0x0000000100000000ULL;
    bad[nbad++] = (char*)live + 1;                          /* misaligned */
    bad[nbad++] = (char*)live + 40;                         /* inside it */
    bad[nbad++] = &local;                                   /* the stack */
    bad[nbad++] = &stack_word;                              /* static data */
    bad[nbad++] = malloc(256);                              /* the heap (freed below) */
    bad[nbad++] = (void*)(uintptr_t)0x7;                    /* small, not predefined */
    bad[nbad++] = (void*)(uintptr_t)0xff8;
    if (freed) bad[nbad++] = freed;
    if (other_kind) bad[nbad++] = other_kind;
}

static void release_garbage(void) { free(bad[7]); }

static void expect(int rc, int cls, const char* call, int i)
{
    int got = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &got);
    CHECK(rc != MPI_SUCCESS && got == cls, "%s with garbage value %d (%p): class %d, expected %d", call, i, bad[i],
          got, cls);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int buf = 0, flag = 0, n = 0;

    /* live objects of every kind, and a freed one of each */
    MPI_Comm dup, dead_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_dup(MPI_COMM_WORLD, &dead_comm);
    MPI_Comm stale_comm = dead_comm;
    MPI_Comm_free(&dead_comm);
    MPI_Request live_req, dead_req, stale_req;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &live_req);
    MPI_Group grp, dead_grp;
    MPI_Comm_group(MPI_COMM_WORLD, &grp);
    MPI_Comm_group(MPI_COMM_WORLD, &dead_grp);
    MPI_Group stale_grp = dead_grp;
    MPI_Group_free(&dead_grp);
    MPI_Info info, dead_info;
    MPI_Info_create(&info);
    MPI_Info_create(&dead_info);
    MPI_Info stale_info = dead_info;
    MPI_Info_free(&dead_info);
    int* wmem;
    MPI_Win win, dead_win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &dead_win);
    MPI_Win stale_win = dead_win;
    MPI_Win_free(&dead_win);
    MPI_Errhandler eh, dead_eh;
    MPI_Comm_create_errhandler((MPI_Comm_errhandler_function*)(void*)free, &eh);
    MPI_Comm_create_errhandler((MPI_Comm_errhandler_function*)(void*)free, &dead_eh);
    MPI_Errhandler stale_eh = dead_eh;
    MPI_Errhandler_free(&dead_eh);
    MPI_Session ses, dead_ses;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &dead_ses);
    MPI_Session stale_ses = dead_ses;
    MPI_Session_finalize(&dead_ses);
    MPI_Op op, dead_op;
    MPI_Op_create((MPI_User_function*)(void*)free, 1, &op);
    MPI_Op_create((MPI_User_function*)(void*)free, 1, &dead_op);
    MPI_Op stale_op = dead_op;
    MPI_Op_free(&dead_op);
    MPI_Datatype ty, dead_ty;
    MPI_Type_contiguous(2, MPI_INT, &ty);
    MPI_Type_commit(&ty);
    MPI_Type_contiguous(2, MPI_INT, &dead_ty);
    MPI_Type_commit(&dead_ty);
    MPI_Datatype stale_ty = dead_ty;
    MPI_Type_free(&dead_ty);
    MPI_Queue q, dead_q;
    MPI_Queue_init(&q, MPI_QUEUE_TYPE_DEFAULT, NULL);
    MPI_Queue_init(&dead_q, MPI_QUEUE_TYPE_DEFAULT, NULL);
    MPI_Queue stale_q = dead_q;
    MPI_Queue_free(&dead_q);

    garbage(dup, stale_comm, live_req);
    for (int i = 0; i < nbad; i++) {
        MPI_Comm c = (MPI_Comm)bad[i];
        expect(MPI_Send(&buf, 1, MPI_INT, 0, 0, c), MPI_ERR_COMM, "MPI_Send", i);
        expect(MPI_Comm_rank(c, &n), MPI_ERR_COMM, "MPI_Comm_rank", i);
        expect(MPI_Barrier(c), MPI_ERR_COMM, "MPI_Barrier", i);
    }
    release_garbage();
    /* Requests are recycled most recently freed first (their pool is on the hot path): a freed
     * request's handle is refused until a new request takes its memory, so it is made here, with
     * no request made between its free and its use below. */
    MPI_Isend(&buf, 1, MPI_INT, rank, 4343, MPI_COMM_WORLD, &dead_req);
    stale_req = dead_req;
    MPI_Recv(&n, 1, MPI_INT, rank, 4343, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&dead_req, MPI_STATUS_IGNORE);
    garbage(live_req, stale_req, dup);
    for (int i = 0; i < nbad; i++) {
        MPI_Request r = (MPI_Request)bad[i];
        expect(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait", i);
        r = (MPI_Request)bad[i];
        expect(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Test", i);
        MPI_Request two[2] = {MPI_REQUEST_NULL, (MPI_Request)bad[i]};
        expect(MPI_Waitall(2, two, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall", i);
        r = (MPI_Request)bad[i];
        expect(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free", i);
    }
    release_garbage();
    garbage(grp, stale_grp, info);
    for (int i = 0; i < nbad; i++) expect(MPI_Group_size((MPI_Group)bad[i], &n), MPI_ERR_GROUP, "MPI_Group_size", i);
    release_garbage();
    garbage(info, stale_info, grp);
    for (int i = 0; i < nbad; i++) expect(MPI_Info_set((MPI_Info)bad[i], "k", "v"), MPI_ERR_INFO, "MPI_Info_set", i);
    release_garbage();
    garbage(win, stale_win, dup);
    for (int i = 0; i < nbad; i++) expect(MPI_Win_fence(0, (MPI_Win)bad[i]), MPI_ERR_WIN, "MPI_Win_fence", i);
    release_garbage();
    garbage(eh, stale_eh, win);
    for (int i = 0; i < nbad; i++)
        expect(MPI_Comm_set_errhandler(dup, (MPI_Errhandler)bad[i]), MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler", i);
    release_garbage();
    garbage(ses, stale_ses, dup);
    for (int i = 0; i < nbad; i++)
        expect(MPI_Session_get_num_psets((MPI_Session)bad[i], MPI_INFO_NULL, &n), MPI_ERR_SESSION,
               "MPI_Session_get_num_psets", i);
    release_garbage();
    garbage(op, stale_op, dup);
    for (int i = 0; i < nbad; i++) expect(MPI_Op_commutative((MPI_Op)bad[i], &n), MPI_ERR_OP, "MPI_Op_commutative", i);
    release_garbage();
    garbage(ty, stale_ty, dup);
    for (int i = 0; i < nbad; i++) {
        MPI_Count s;
        /* 0x7 and 0xff8 are not datatypes (predefined datatype values start at 0x200) */
        expect(MPI_Type_size_c((MPI_Datatype)bad[i], &s), MPI_ERR_TYPE, "MPI_Type_size_c", i);
    }
    release_garbage();
    garbage(q, stale_q, dup);
    for (int i = 0; i < nbad; i++) expect(MPI_Queue_fence((MPI_Queue)bad[i]), MPI_ERR_ARG, "MPI_Queue_fence", i);
    release_garbage();
    {
        MPI_Message m = MPI_MESSAGE_NULL;
        garbage(dup, NULL, live_req);
        for (int i = 0; i < nbad; i++) {
            m = (MPI_Message)bad[i];
            expect(MPI_Mrecv(&buf, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Mrecv", i);
        }
        release_garbage();
    }

    /* everything still works */
    MPI_Cancel(&live_req);
    MPI_Wait(&live_req, MPI_STATUS_IGNORE);
    int token = rank, got = -1;
    CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT, (rank + size - 1) % size, 1,
                           dup, MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "ring after the garbage: got %d", got);
    MPI_Queue_free(&q);
    MPI_Type_free(&ty);
    MPI_Op_free(&op);
    MPI_Session_finalize(&ses);
    MPI_Errhandler_free(&eh);
    MPI_Win_free(&win);
    MPI_Info_free(&info);
    MPI_Group_free(&grp);
    MPI_Comm_free(&dup);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
