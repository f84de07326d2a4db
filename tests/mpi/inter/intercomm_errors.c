/* Intercommunicator error cases, every call with MPI_ERRORS_RETURN: bad leaders (on every rank,
 * and remote_leader only at the leaders, where the leaders' groups learn it by the broadcast), an
 * intercommunicator as local_comm, overlapping groups, the calls that take intracommunicators only
 * (topology constructors, scan / exscan and their nonblocking and persistent forms, neighborhood
 * collectives, Comm_create_group), merge of an intracommunicator, remote queries
 * on an intracommunicator, a group from the remote side, a rank past the remote size, and a group
 * that passes two values of high to merge. After each error the library keeps working: the test
 * ends with a point-to-point exchange and a new intercommunicator. */
#include <string.h>

#include "mpitest.h"

static int np, me;

#define EXPECT_CLASS(call, cls)                                                                        \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        int ec_ = -1;                                                                                  \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &ec_);                                            \
        CHECK(rc_ != MPI_SUCCESS && ec_ == (cls), "%s returned %d (class %d), expected class %d", #call, \
              rc_, ec_, (cls));                                                                        \
    } while (0)

/* A refusal of an intracommunicator-only call: MPI_ERR_COMM. */
static void expect_refusal(int rc, const char* fn)
{
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_COMM, "%s: returned %d (class %d), expected MPI_ERR_COMM", fn, rc, cls);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (np < 2) {
        CHECK(0, "needs at least 2 ranks");
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }
    /* two halves: the lower half (color 0) and the upper half; leaders local rank 0 */
    const int half = np / 2;
    const int color = me < half ? 0 : 1;
    const int remote_leader = color == 0 ? half : 0; /* world rank of the other leader */
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    int lsize;
    MPI_Comm_size(local, &lsize);
    MPI_Comm ic = MPI_COMM_NULL;

    /* bad local leader (every rank passes it: a local error) */
    EXPECT_CLASS(MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, remote_leader, 1, &ic), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, remote_leader, 1, &ic), MPI_ERR_RANK);
    /* bad remote leader at both leaders: every rank of both groups gets MPI_ERR_RANK */
    EXPECT_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, np + 3, 1, &ic), MPI_ERR_RANK);
    CHECK(ic == MPI_COMM_NULL, "a failed create set the handle");
    /* bad tag at both leaders */
    EXPECT_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, -5, &ic), MPI_ERR_TAG);
    /* MPI_Intercomm_create_from_groups: overlapping groups, the caller outside local_group, bad leader */
    {
        MPI_Comm bad = MPI_COMM_NULL;
        /* create_from_groups with overlapping groups (this half against the whole world) */
        MPI_Group wg, lg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(local, &lg);
        EXPECT_CLASS(MPI_Intercomm_create_from_groups(lg, 0, wg, 0, "overlap", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad),
                     MPI_ERR_GROUP);
        /* the caller not in local_group */
        MPI_Group other;
        int zero = 0;
        MPI_Group_excl(wg, 1, &zero, &other);
        if (me == 0)
            EXPECT_CLASS(MPI_Intercomm_create_from_groups(other, 0, lg, 0, "notme", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad),
                         MPI_ERR_GROUP);
        /* bad leaders of create_from_groups */
        EXPECT_CLASS(MPI_Intercomm_create_from_groups(lg, lsize, wg, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad),
                     MPI_ERR_RANK);
        MPI_Group_free(&other);
        MPI_Group_free(&lg);
        MPI_Group_free(&wg);
    }

    /* MPI_Intercomm_create with overlapping groups {0, 1} and {1, 2}: the leaders (0 and 2) find
     * the overlap in their exchange and both groups fail with MPI_ERR_ARG; rank 1 takes part in
     * both calls, one after the other */
    if (np >= 3 && me <= 2) {
        MPI_Group wg, ga, gb;
        int ra[2] = {0, 1}, rb[2] = {1, 2};
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, 2, ra, &ga);
        MPI_Group_incl(wg, 2, rb, &gb);
        MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL, bad = MPI_COMM_NULL;
        if (me <= 1) CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, ga, 21, &ca));
        if (me >= 1) CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, gb, 22, &cb));
        if (ca != MPI_COMM_NULL) MPI_Comm_set_errhandler(ca, MPI_ERRORS_RETURN);
        if (cb != MPI_COMM_NULL) MPI_Comm_set_errhandler(cb, MPI_ERRORS_RETURN);
        if (me >= 1) EXPECT_CLASS(MPI_Intercomm_create(cb, 1, MPI_COMM_WORLD, 0, 23, &bad), MPI_ERR_ARG);
        if (me <= 1) EXPECT_CLASS(MPI_Intercomm_create(ca, 0, MPI_COMM_WORLD, 2, 23, &bad), MPI_ERR_ARG);
        CHECK(bad == MPI_COMM_NULL, "a failed create set the handle");
        if (ca != MPI_COMM_NULL) MPI_Comm_free(&ca);
        if (cb != MPI_COMM_NULL) MPI_Comm_free(&cb);
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
        MPI_Group_free(&wg);
    }

    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 1, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int rsize = -1;
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == (color == 0 ? np - half : half), "remote size %d", rsize);

    /* an intercommunicator as local_comm */
    MPI_Comm ic2 = MPI_COMM_NULL;
    EXPECT_CLASS(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, remote_leader, 2, &ic2), MPI_ERR_COMM);

    /* intracommunicator-only calls */
    {
        int dims[1] = {0}, periods[1] = {0}, x = 1, y = 0;
        MPI_Comm out = MPI_COMM_NULL;
        MPI_Request rq = MPI_REQUEST_NULL;
        expect_refusal(MPI_Cart_create(ic, 1, dims, periods, 0, &out), "MPI_Cart_create");
        int idx[1] = {0}, edges[1] = {0};
        expect_refusal(MPI_Graph_create(ic, 1, idx, edges, 0, &out), "MPI_Graph_create");
        int none[1] = {0};
        expect_refusal(MPI_Dist_graph_create_adjacent(ic, 0, none, none, 0, none, none,
                                                      MPI_INFO_NULL, 0, &out),
                       "MPI_Dist_graph_create_adjacent");
        int src0 = 0, deg0 = 0;
        expect_refusal(MPI_Dist_graph_create(ic, 0, &src0, &deg0, none, none, MPI_INFO_NULL, 0, &out),
                       "MPI_Dist_graph_create");
        CHECK(out == MPI_COMM_NULL, "a refused constructor set the handle");
        int nr = -1;
        dims[0] = 1;
        expect_refusal(MPI_Cart_map(ic, 1, dims, periods, &nr), "MPI_Cart_map");
        expect_refusal(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic), "MPI_Scan");
        expect_refusal(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic), "MPI_Exscan");
        expect_refusal(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &rq), "MPI_Iscan");
        expect_refusal(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &rq), "MPI_Iexscan");
        expect_refusal(MPI_Scan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq), "MPI_Scan_init");
        expect_refusal(MPI_Exscan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq), "MPI_Exscan_init");
        CHECK(rq == MPI_REQUEST_NULL, "a refused call set the request");
        expect_refusal(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, ic), "MPI_Neighbor_allgather");
        MPI_Group lg;
        MPI_Comm_group(ic, &lg);
        expect_refusal(MPI_Comm_create_group(ic, lg, 3, &out), "MPI_Comm_create_group");
        int status = -1;
        CHECK_MPI(MPI_Topo_test(ic, &status));
        CHECK(status == MPI_UNDEFINED, "Topo_test on an intercommunicator: %d", status);
        /* a group naming remote processes */
        MPI_Group rg;
        MPI_Comm_remote_group(ic, &rg);
        EXPECT_CLASS(MPI_Comm_create(ic, rg, &out), MPI_ERR_GROUP);
        MPI_Group_free(&rg);
        MPI_Group_free(&lg);
    }
    /* intracommunicator where an intercommunicator is needed */
    {
        MPI_Comm m = MPI_COMM_NULL;
        int s = -1;
        MPI_Group g = MPI_GROUP_NULL;
        EXPECT_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &m), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &s), MPI_ERR_COMM);
        EXPECT_CLASS(MPI_Comm_remote_group(local, &g), MPI_ERR_COMM);
        CHECK(m == MPI_COMM_NULL && g == MPI_GROUP_NULL, "outputs set on error");
    }
    /* ranks past the remote group */
    {
        int x = 0;
        EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, rsize, 0, ic), MPI_ERR_RANK);
        EXPECT_CLASS(MPI_Recv(&x, 1, MPI_INT, rsize + 1, 0, ic, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    }
    /* a group passing two values of high (only a group of more than one process can) */
    {
        int lr;
        MPI_Comm_rank(ic, &lr);
        const int mixed = (color == 0 && half >= 2);
        const int high = mixed ? (lr % 2) : color;
        MPI_Comm m = MPI_COMM_NULL;
        int rc = MPI_Intercomm_merge(ic, high, &m);
        if (half >= 2) {
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_NOT_SAME, "merge with two values of high: rc %d class %d", rc, cls);
            CHECK(m == MPI_COMM_NULL, "failed merge set the handle");
        } else {
            CHECK(rc == MPI_SUCCESS, "merge failed: %d", rc);
            if (rc == MPI_SUCCESS) MPI_Comm_free(&m);
        }
    }

    /* the library keeps working: point-to-point on ic, and a new intercomm + merge */
    {
        int lr;
        MPI_Comm_rank(ic, &lr);
        int out = me, in = -1;
        MPI_Status st;
        if (lr < rsize) {
            CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, lr, 4, &in, 1, MPI_INT, lr, 4, ic, &st));
            const int expect = color == 0 ? half + lr : lr;
            CHECK(in == expect && st.MPI_SOURCE == lr, "after errors: got %d from %d", in, st.MPI_SOURCE);
        }
        MPI_Comm again, m;
        CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 9, &again));
        CHECK_MPI(MPI_Intercomm_merge(again, color, &m));
        int mr = -1;
        MPI_Comm_rank(m, &mr);
        CHECK(mr == me, "merged rank %d, expected %d", mr, me);
        CHECK_MPI(MPI_Comm_free(&m));
        CHECK_MPI(MPI_Comm_free(&again));
    }
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&local));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
