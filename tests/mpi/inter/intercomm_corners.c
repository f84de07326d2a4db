/* Intercommunicator corners that MPICH's test/mpi coll/ and comm/ intercommunicator tests (all
 * passing against Baton) and our intercomm_* tests do not reach:
 * - a ring of MPI_COMM_SELF-to-MPI_COMM_WORLD intercommunicators, each rank in two of them, built
 *   (and then used: traffic, allreduce, merge, dup) in an order that differs between neighbours;
 * - interleaved groups (even / odd world ranks) whose local rank 0 is the highest world rank of the
 *   group: MPI_ANY_SOURCE statuses name the sender's remote rank;
 * - MPI_Comm_idup_with_info on an intercommunicator keeps the info and the attributes;
 * - a per-communicator buffer (MPI_Comm_attach_buffer) with MPI_Bsend on an intercommunicator;
 * - a nonblocking collective pending on an intercommunicator across MPI_Comm_dup and
 *   MPI_Intercomm_merge of it;
 * - MPI_Comm_disconnect of an intercommunicator with a freed, still pending large send;
 * - MPI_Win_create on an intercommunicator refused with MPI_ERR_COMM. */
#include <unistd.h>

#include "mpitest.h"

static int np, me;

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static int copy_calls = 0;
static int copy_attr(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag)
{
    (void)c;
    (void)k;
    (void)extra;
    copy_calls++;
    *(void**)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Even ranks build (and use) the intercommunicator with their right neighbour first, odd ranks
 * the one with their left neighbour; with an odd ring the last rank goes left first. */
static int right_first_pass(int pass)
{
    int right_first = (me % 2 == 0);
    if (np % 2 && me == np - 1) right_first = 0;
    return right_first == (pass == 0);
}

static void ring(void)
{
    const int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Comm icr = MPI_COMM_NULL, icl = MPI_COMM_NULL;
    for (int pass = 0; pass < 2; ++pass) {
        if (right_first_pass(pass))
            CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, right, 100 + me, &icr));
        else
            CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, left, 100 + left, &icl));
    }
    int from_r = -1, from_l = -1;
    MPI_Request q[4];
    CHECK_MPI(MPI_Irecv(&from_r, 1, MPI_INT, 0, 0, icr, &q[0]));
    CHECK_MPI(MPI_Irecv(&from_l, 1, MPI_INT, 0, 0, icl, &q[1]));
    CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, 0, 0, icr, &q[2]));
    CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, 0, 0, icl, &q[3]));
    CHECK_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    CHECK(from_r == right, "ring: the right intercommunicator delivered %d, expected %d", from_r, right);
    CHECK(from_l == left, "ring: the left intercommunicator delivered %d, expected %d", from_l, left);
    for (int pass = 0; pass < 2; ++pass) {
        const int r = right_first_pass(pass);
        MPI_Comm c = r ? icr : icl;
        const int other = r ? right : left;
        int sum = -1;
        CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == other, "ring: allreduce gave %d, expected the neighbour's rank %d", sum, other);
        MPI_Comm m, d;
        CHECK_MPI(MPI_Intercomm_merge(c, r ? 0 : 1, &m));
        int mr = -1;
        MPI_Comm_rank(m, &mr);
        CHECK(mr == (r ? 0 : 1), "ring: merged rank %d, expected %d", mr, r ? 0 : 1);
        CHECK_MPI(MPI_Comm_dup(c, &d));
        CHECK_MPI(MPI_Barrier(d));
        MPI_Comm_free(&d);
        MPI_Comm_free(&m);
    }
    MPI_Comm_free(&icr);
    MPI_Comm_free(&icl);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (np < 2) {
        CHECK(0, "needs at least 2 ranks");
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    ring();

    /* ---- interleaved groups, local rank 0 = highest world rank of the group ---- */
    const int color = me % 2;
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -me, &local));
    int lrank = -1;
    MPI_Comm_rank(local, &lrank);
    const int top_even = (np - 1) % 2 == 0 ? np - 1 : np - 2;
    const int top_odd = (np - 1) % 2 == 1 ? np - 1 : np - 2;
    const int rtop = color ? top_even : top_odd; /* world rank of remote rank 0 */
    MPI_Comm ic;
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rtop, 77, &ic));
    int rsize = 0;
    MPI_Comm_remote_size(ic, &rsize);
    CHECK(rsize == (color ? (np + 1) / 2 : np / 2), "remote size %d", rsize);
    int rsum = 0; /* sum of the remote group's world ranks */
    for (int w = 0; w < np; ++w)
        if (w % 2 != color) rsum += w;
    {
        MPI_Request sq;
        CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, 0, 5, ic, &sq));
        if (lrank == 0)
            for (int i = 0; i < rsize; ++i) {
                int v = -1;
                MPI_Status st;
                CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
                CHECK(v == rtop - 2 * st.MPI_SOURCE, "MPI_ANY_SOURCE: remote rank %d sent world rank %d, expected %d",
                      st.MPI_SOURCE, v, rtop - 2 * st.MPI_SOURCE);
            }
        CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    }
    const int peer = lrank < rsize ? lrank : MPI_PROC_NULL;
    const int peer_world = rtop - 2 * lrank;

    /* ---- idup_with_info keeps info and attributes ---- */
    {
        int key;
        static int payload = 42;
        CHECK_MPI(MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &key, NULL));
        CHECK_MPI(MPI_Comm_set_attr(ic, key, &payload));
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
        MPI_Comm d;
        MPI_Request rq;
        CHECK_MPI(MPI_Comm_idup_with_info(ic, info, &d, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MPI_Info_free(&info);
        void* val = NULL;
        int flag = 0;
        MPI_Comm_get_attr(d, key, &val, &flag);
        CHECK(flag && val == &payload && copy_calls == 1, "idup_with_info: attribute flag %d, copy calls %d", flag,
              copy_calls);
        MPI_Info got;
        CHECK_MPI(MPI_Comm_get_info(d, &got));
        char buf[32] = "";
        int len = sizeof buf, found = 0;
        MPI_Info_get_string(got, "mpi_assert_no_any_tag", &len, buf, &found);
        CHECK(found && strcmp(buf, "true") == 0, "idup_with_info: mpi_assert_no_any_tag found %d value '%s'", found,
              buf);
        MPI_Info_free(&got);
        int b = me;
        const int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, root, d));
        if (color == 1) CHECK(b == top_even, "bcast on the idup'ed intercommunicator gave %d, expected %d", b, top_even);
        MPI_Comm_free(&d);
        MPI_Comm_delete_attr(ic, key);
        MPI_Comm_free_keyval(&key);
    }

    /* ---- per-communicator buffer ---- */
    {
        const int size = 1 << 16;
        char* buf = malloc((size_t)size);
        CHECK_MPI(MPI_Comm_attach_buffer(ic, buf, size));
        int v[100];
        for (int i = 0; i < 100; ++i) v[i] = me * 1000 + i;
        if (peer != MPI_PROC_NULL) {
            for (int k = 0; k < 5; ++k) CHECK_MPI(MPI_Bsend(v, 100, MPI_INT, peer, k, ic));
            for (int k = 0; k < 5; ++k) {
                int r[100];
                CHECK_MPI(MPI_Recv(r, 100, MPI_INT, peer, k, ic, MPI_STATUS_IGNORE));
                CHECK(r[0] == peer_world * 1000 && r[99] == peer_world * 1000 + 99, "bsend %d: got %d..%d", k, r[0],
                      r[99]);
            }
        }
        CHECK_MPI(MPI_Comm_flush_buffer(ic));
        void* back = NULL;
        MPI_Count back_size = 0;
        CHECK_MPI(MPI_Comm_detach_buffer_c(ic, &back, &back_size));
        CHECK(back == buf && back_size == size, "detach gave %p/%lld", back, (long long)back_size);
        free(buf);
    }

    /* ---- nonblocking collective pending across dup and merge ---- */
    for (int it = 0; it < 4; ++it) {
        int s = me, r = -1;
        MPI_Request q;
        CHECK_MPI(MPI_Iallreduce(&s, &r, 1, MPI_INT, MPI_SUM, ic, &q));
        if (color == 1 && it % 2) usleep(20000);
        MPI_Comm d, m;
        CHECK_MPI(MPI_Comm_dup(ic, &d));
        CHECK_MPI(MPI_Intercomm_merge(ic, color, &m));
        int y = -1;
        CHECK_MPI(MPI_Allreduce(&s, &y, 1, MPI_INT, MPI_SUM, m));
        CHECK(y == np * (np - 1) / 2, "allreduce on the merged communicator gave %d", y);
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(r == rsum, "iallreduce pending across dup and merge gave %d, expected %d", r, rsum);
        r = -1;
        CHECK_MPI(MPI_Allreduce(&s, &r, 1, MPI_INT, MPI_SUM, d));
        CHECK(r == rsum, "allreduce on the dup gave %d, expected %d", r, rsum);
        MPI_Comm_free(&d);
        MPI_Comm_free(&m);
    }

    /* ---- disconnect with a freed large send still pending ---- */
    {
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(ic, &d));
        const int n = 1 << 18;
        int* big = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; ++i) big[i] = i ^ me;
        if (peer != MPI_PROC_NULL) {
            if (color == 0) {
                MPI_Request q;
                CHECK_MPI(MPI_Isend(big, n, MPI_INT, peer, 0, d, &q));
                CHECK_MPI(MPI_Request_free(&q));
            } else {
                int* rb = malloc(sizeof(int) * (size_t)n);
                usleep(50000);
                CHECK_MPI(MPI_Recv(rb, n, MPI_INT, peer, 0, d, MPI_STATUS_IGNORE));
                int bad = 0;
                for (int i = 0; i < n; ++i) bad += rb[i] != (i ^ peer_world);
                CHECK(bad == 0, "large send before disconnect: %d elements wrong", bad);
                free(rb);
            }
        }
        CHECK_MPI(MPI_Comm_disconnect(&d));
        CHECK(d == MPI_COMM_NULL, "disconnect left the handle set");
        free(big);
    }

    /* ---- no windows on an intercommunicator ---- */
    {
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int mem = 0;
        MPI_Win w;
        const int rc = MPI_Win_create(&mem, sizeof mem, 1, MPI_INFO_NULL, ic, &w);
        CHECK(err_class(rc) == MPI_ERR_COMM, "MPI_Win_create on an intercommunicator: class %d", err_class(rc));
        if (rc == MPI_SUCCESS) MPI_Win_free(&w);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
