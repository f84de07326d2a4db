/* Window errors with MPI_ERRORS_RETURN (each returns the right class and the library keeps
 * working), and window names, info, error handlers, keyvals and attributes. */
#include <unistd.h>

#include "mpitest.h"

static int rank, size;

#define EXPECT_CLASS(call, cls)                                                                  \
    do {                                                                                         \
        int rc_ = (call), c_ = -1;                                                               \
        MPI_Error_class(rc_, &c_);                                                               \
        CHECK(c_ == (cls), "%s gave class %d, expected %s (%d)", #call, c_, #cls, (int)(cls));   \
    } while (0)

static int handler_calls = 0, handler_code = 0;
static MPI_Win handler_win = MPI_WIN_NULL;
static void win_handler(MPI_Win* w, int* code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_win = *w;
}

static int deletes = 0;
static int del_fn(MPI_Win w, int kv, void* val, void* extra)
{
    (void)w; (void)kv; (void)extra;
    deletes += (int)(size_t)val;
    return MPI_SUCCESS;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int* mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the window did not inherit the communicator's error handler");
    MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int v = 1;

    /* creation errors */
    MPI_Win bad;
    EXPECT_CLASS(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_SIZE);
    EXPECT_CLASS(MPI_Win_create(mem, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_create(mem, 4, 1, MPI_INFO_NULL, MPI_COMM_NULL, &bad), MPI_ERR_COMM);
    /* invalid windows */
    EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    /* operations outside any epoch */
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    MPI_Request req;
    float fv = 1.0f;
    CHECK_MPI(MPI_Win_fence(0, win));
    EXPECT_CLASS(MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
    /* bad arguments inside a fence epoch */
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&v, 2, MPI_INT, 0, 3, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_SHORT, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&fv, 1, MPI_FLOAT, 0, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE);
    MPI_Op user;
    MPI_Op_create((MPI_User_function*)0x1, 1, &user);
    EXPECT_CLASS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, user, win), MPI_ERR_OP);
    MPI_Op_free(&user);
    double dv = 0, dr = 0;
    EXPECT_CLASS(MPI_Compare_and_swap(&dv, &dv, &dr, MPI_DOUBLE, 0, 0, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Win_fence(1, win), MPI_ERR_ASSERT);
    {
        MPI_Datatype c2;
        MPI_Type_contiguous(1, MPI_INT, &c2);
        MPI_Type_commit(&c2);
        int r = 0;
        EXPECT_CLASS(MPI_Fetch_and_op(&v, &r, c2, 0, 0, MPI_SUM, win), MPI_ERR_TYPE);
        EXPECT_CLASS(MPI_Get_accumulate(&v, 1, MPI_INT, &fv, 1, MPI_FLOAT, 0, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE);
        MPI_Type_free(&c2);
    }
    {
        /* a target datatype of more pieces than the header holds (gaps alternate 1 and 2 ints,
           so no two neighbouring pieces form one strided segment with a third): its segment
           list travels with the data (test rma_many_pieces checks the values) */
        enum { NB = 6000, NOK = 1600 };
        int* many;
        MPI_Win big;
        CHECK_MPI(MPI_Win_allocate(16000 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &many, &big));
        CHECK_MPI(MPI_Win_set_errhandler(big, MPI_ERRORS_RETURN));
        int* bl = malloc(sizeof(int) * NB);
        int* dp = malloc(sizeof(int) * NB);
        int* src = malloc(sizeof(int) * NB);
        for (int i = 0, d = 0; i < NB; ++i) { bl[i] = 1; dp[i] = d; d += (i % 2) ? 2 : 3; src[i] = i; }
        MPI_Datatype frag;
        MPI_Type_indexed(NB, bl, dp, MPI_INT, &frag);
        MPI_Type_commit(&frag);
        CHECK_MPI(MPI_Win_fence(0, big));
        CHECK_MPI(MPI_Put(src, NB, MPI_INT, 0, 0, 1, frag, big));
        CHECK_MPI(MPI_Win_fence(0, big));
        /* a type of fewer pieces is fine */
        MPI_Datatype frag2;
        MPI_Type_indexed(NOK, bl, dp, MPI_INT, &frag2);
        MPI_Type_commit(&frag2);
        if (rank == 0) for (int i = 0; i < 16000; ++i) many[i] = -1;
        CHECK_MPI(MPI_Win_fence(0, big));
        if (rank == 1 % size) CHECK_MPI(MPI_Put(src, NOK, MPI_INT, 0, 1, 1, frag2, big));
        CHECK_MPI(MPI_Win_fence(0, big));
        if (rank == 0) {
            int bad = 0;
            for (int i = 0; i < NOK; ++i) if (many[1 + dp[i]] != i) ++bad;
            CHECK(bad == 0, "%d-piece put: %d wrong", NOK, bad);
            CHECK(many[0] == -1 && many[2] == -1, "the put wrote a hole");
        }
        MPI_Type_free(&frag);
        MPI_Type_free(&frag2);
        free(bl); free(dp); free(src);
        CHECK_MPI(MPI_Win_free(&big));
    }
    /* MPI_MODE_NOPRECEDE with an operation of this epoch not complete (an accumulate: never a
       direct copy, aimed at rank 1 while it sleeps outside MPI, so it cannot have been applied;
       one aimed at this process itself is applied within its call) */
    {
        int* sm;
        MPI_Win sw;
        CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &sm, &sw));
        CHECK_MPI(MPI_Win_set_errhandler(sw, MPI_ERRORS_RETURN));
        *sm = 5;
        CHECK_MPI(MPI_Win_fence(0, sw));
        if (size == 1) {
            CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, sw));
            CHECK(*sm == 6, "accumulate to itself not applied within the call: %d", *sm);
        } else if (rank == 0) {
            CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, sw));
            EXPECT_CLASS(MPI_Win_fence(MPI_MODE_NOPRECEDE, sw), MPI_ERR_RMA_SYNC);
        } else if (rank == 1) {
            usleep(300000);
        }
        CHECK_MPI(MPI_Win_fence(0, sw));
        CHECK(*sm == (rank == 1 || size == 1 ? 6 : 5), "accumulate after the refused fence: %d", *sm);
        CHECK_MPI(MPI_Win_free(&sw));
    }
    /* the window still works */
    CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (rank == 0) CHECK(mem[1] >= 0 && mem[1] < size, "put after errors: %d", mem[1]);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* lock errors */
    EXPECT_CLASS(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT);
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    CHECK(win != MPI_WIN_NULL, "a refused MPI_Win_free cleared the handle");
    EXPECT_CLASS(MPI_Win_unlock(1 % size == 0 ? size : 1, win), size == 1 ? MPI_ERR_RANK : MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_unlock(0, win));
    /* flavor-specific calls */
    MPI_Aint qs; int qd; void* qb;
    /* MPI-4.1: shared_query answers on MPI_Win_create windows too (size 0 for private memory) */
    CHECK_MPI(MPI_Win_shared_query(win, 0, &qs, &qd, &qb));
    CHECK(rank == 0 ? qs > 0 : qs == 0, "shared_query of rank 0's segment gave size %ld", (long)qs);
    EXPECT_CLASS(MPI_Win_attach(win, mem, 4), MPI_ERR_RMA_FLAVOR);

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "default window name has length %d", len);
    CHECK_MPI(MPI_Win_set_name(win, "my window"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "my window") == 0 && len == 9, "name '%s' (%d)", name, len);
    /* info */
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    CHECK_MPI(MPI_Win_set_info(win, info));
    CHECK_MPI(MPI_Win_get_info(win, &got));
    char val[64];
    int flag = 0;
    MPI_Info_get_string(got, "no_locks", &(int){64}, val, &flag);
    CHECK(flag && strcmp(val, "false") == 0, "info no_locks: flag %d value '%s'", flag, val);
    MPI_Info_free(&got);
    MPI_Info_free(&info);
    /* user error handler: gets the window and the code */
    MPI_Errhandler weh;
    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &weh));
    CHECK_MPI(MPI_Win_set_errhandler(win, weh));
    int rc = MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(handler_calls == 1 && handler_win == win, "window handler calls %d", handler_calls);
    CHECK(cls == MPI_ERR_RMA_SYNC && handler_code == rc, "handler code %d, rc %d", handler_code, rc);
    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: calls %d code %d", handler_calls, handler_code);
    CHECK_MPI(MPI_Errhandler_free(&weh));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* keyvals and attributes; the delete callback runs at delete and at free */
    int kv = MPI_KEYVAL_INVALID;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL));
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(size_t)5));
    void* a = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, kv, &a, &flag));
    CHECK(flag && a == (void*)(size_t)5, "attribute %p flag %d", a, flag);
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(size_t)7)); /* replaces: delete(5) */
    CHECK(deletes == 5, "deletes %d after replace", deletes);
    CHECK_MPI(MPI_Win_delete_attr(win, kv));
    CHECK(deletes == 12, "deletes %d after delete", deletes);
    CHECK_MPI(MPI_Win_get_attr(win, kv, &a, &flag));
    CHECK(flag == 0, "deleted attribute still there");
    EXPECT_CLASS(MPI_Win_delete_attr(win, kv), MPI_ERR_KEYVAL);
    EXPECT_CLASS(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Win_set_attr(win, kv, (void*)(size_t)100));
    CHECK_MPI(MPI_Win_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "keyval not reset");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(deletes == 112, "deletes %d after MPI_Win_free", deletes);

    /* a target-side range error on a dynamic window is reported at the next synchronization */
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, (MPI_Aint)16, 1, MPI_INT, win));
    rc = MPI_Win_fence(0, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "dynamic window, nothing attached: fence gave class %d", cls);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));

    /* a shared window over more than one host is refused (the twohost runs); on one host it works */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int ns;
    MPI_Comm_size(node, &ns);
    int* sbase;
    rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &sbase, &win);
    MPI_Error_class(rc, &cls);
    if (ns == size) {
        CHECK(rc == MPI_SUCCESS, "allocate_shared on one host failed with class %d", cls);
        if (rc == MPI_SUCCESS) CHECK_MPI(MPI_Win_free(&win));
    } else {
        CHECK(cls == MPI_ERR_RMA_SHARED, "allocate_shared across hosts gave class %d", cls);
    }
    MPI_Comm_free(&node);
    int rc2 = mpitest_finish();
    MPI_Finalize();
    return rc2;
}
