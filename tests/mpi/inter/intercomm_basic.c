/* Intercommunicators: MPI_Intercomm_create over a peer communicator that is not MPI_COMM_WORLD
 * (ranks reversed) with leaders that are not rank 0 of their group, groups of unequal sizes
 * (world ranks divisible by 3 against the others); the queries (size, rank, group, remote size and
 * group, test_inter, compare); point-to-point both ways (ANY_SOURCE / ANY_TAG and statuses,
 * PROC_NULL, Sendrecv, Ssend, probes, matched probes, persistent requests, partitioned); dup,
 * idup, split, split_type, create (with MPI_COMM_NULL where a side is empty), attributes and names on an
 * intercommunicator; MPI_Intercomm_merge with high both ways and equal; create_from_groups; free. */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int np, me;

static int color_of(int w) { return (w % 3 == 0) ? 0 : 1; }

/* World ranks of color c in local-comm rank order (the local comms are split with key -rank). */
static int group_list(int c, int* out)
{
    int n = 0;
    for (int w = np - 1; w >= 0; --w)
        if (color_of(w) == c) out[n++] = w;
    return n;
}

static int index_of(const int* list, int n, int w)
{
    for (int i = 0; i < n; ++i)
        if (list[i] == w) return i;
    return -1;
}

/* The world ranks of a group, in group order. */
static void group_worlds(MPI_Group g, int n, int* out)
{
    MPI_Group wg;
    int* ranks = malloc(sizeof(int) * (size_t)(n + 1));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; ++i) ranks[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, wg, out));
    MPI_Group_free(&wg);
    free(ranks);
}

/* Checks that ic's local group is `mine` (nmine) and its remote group `other` (nother). */
static void check_groups(MPI_Comm ic, const int* mine, int nmine, const int* other, int nother, const char* what)
{
    int flag = 0, size = -1, rsize = -1, rank = -1;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag == 1, "%s: test_inter gives %d", what, flag);
    CHECK_MPI(MPI_Comm_size(ic, &size));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    CHECK_MPI(MPI_Comm_rank(ic, &rank));
    CHECK(size == nmine, "%s: size %d, expected %d", what, size, nmine);
    CHECK(rsize == nother, "%s: remote size %d, expected %d", what, rsize, nother);
    CHECK(rank == index_of(mine, nmine, me), "%s: rank %d, expected %d", what, rank, index_of(mine, nmine, me));
    MPI_Group lg, rg;
    CHECK_MPI(MPI_Comm_group(ic, &lg));
    CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
    int w[64];
    int gs = -1;
    MPI_Group_size(lg, &gs);
    CHECK(gs == nmine, "%s: local group size %d", what, gs);
    if (gs == nmine) {
        group_worlds(lg, nmine, w);
        for (int i = 0; i < nmine; ++i) CHECK(w[i] == mine[i], "%s: local group rank %d is world %d, expected %d", what, i, w[i], mine[i]);
    }
    MPI_Group_size(rg, &gs);
    CHECK(gs == nother, "%s: remote group size %d", what, gs);
    if (gs == nother) {
        group_worlds(rg, nother, w);
        for (int i = 0; i < nother; ++i) CHECK(w[i] == other[i], "%s: remote group rank %d is world %d, expected %d", what, i, w[i], other[i]);
    }
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
}

/* Every local rank i sends to remote rank i % rsize; each process receives its share with
 * ANY_SOURCE / ANY_TAG and checks source, tag, count and value. */
static void exchange(MPI_Comm ic, const int* mine, int nmine, const int* other, int nother, int tagbase, const char* what)
{
    (void)mine; /* the values sent are computed from me and the rank */
    int rank;
    MPI_Comm_rank(ic, &rank);
    int out = me * 1000 + rank;
    MPI_Request rq;
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, rank % nother, tagbase + rank, ic, &rq));
    int expect = 0;
    for (int j = 0; j < nother; ++j)
        if (j % nmine == rank) expect++;
    int seen[64] = {0};
    for (int k = 0; k < expect; ++k) {
        int in = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st));
        int j = st.MPI_SOURCE;
        CHECK(j >= 0 && j < nother && j % nmine == rank, "%s: message from remote rank %d", what, j);
        if (j < 0 || j >= nother) continue;
        CHECK(!seen[j], "%s: two messages from remote rank %d", what, j);
        seen[j] = 1;
        CHECK(st.MPI_TAG == tagbase + j, "%s: tag %d from %d, expected %d", what, st.MPI_TAG, j, tagbase + j);
        CHECK(in == other[j] * 1000 + j, "%s: value %d from remote %d, expected %d", what, in, j, other[j] * 1000 + j);
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 1, "%s: count %d", what, cnt);
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* The receives above take any source and tag: no remote process may send this one its next
     * message (a later part of the test) before every receive here is done. Seen on a 16-core
     * machine: remote rank 1's Sendrecv overtook remote rank 4's exchange message, so the loop
     * took it and the Sendrecv then waited forever. */
    CHECK_MPI(MPI_Barrier(ic));
}

static int copied_attr_calls = 0;
static int copy_fn(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag)
{
    (void)c; (void)k; (void)extra;
    copied_attr_calls++;
    *(void**)out = (void*)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
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
    const int mycolor = color_of(me);
    int mine[64], other[64];
    const int nmine = group_list(mycolor, mine);
    const int nother = group_list(1 - mycolor, other);

    MPI_Comm peer, local, ic;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &peer)); /* peer rank = np - 1 - world rank */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, mycolor, -me, &local));
    const int lleader = nmine / 2;
    const int rleader_world = other[nother / 2];
    const int lleader_world = mine[nmine / 2];
    CHECK_MPI(MPI_Intercomm_create(local, lleader, peer, np - 1 - rleader_world, 77, &ic));

    /* ---- queries ---- */
    check_groups(ic, mine, nmine, other, nother, "ic");
    int flag = -1;
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "MPI_COMM_WORLD: test_inter gives %d", flag);
    int res = -1;
    CHECK_MPI(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(ic, ic) = %d", res);
    CHECK_MPI(MPI_Comm_compare(ic, local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(ic, local) = %d", res);

    /* ---- point-to-point ---- */
    exchange(ic, mine, nmine, other, nother, 100, "ic");
    {
        int myrank;
        MPI_Comm_rank(ic, &myrank);
        /* PROC_NULL */
        MPI_Status st;
        int x = 5;
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, ic));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, ic, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status %d %d", st.MPI_SOURCE, st.MPI_TAG);
        /* Sendrecv / Ssend between pairs (local rank r <-> remote rank r for r < both sizes). */
        const int pairs = nmine < nother ? nmine : nother;
        if (myrank < pairs) {
            int in = -1, outv = me;
            CHECK_MPI(MPI_Sendrecv(&outv, 1, MPI_INT, myrank, 5, &in, 1, MPI_INT, myrank, 5, ic, &st));
            CHECK(in == other[myrank] && st.MPI_SOURCE == myrank && st.MPI_TAG == 5, "sendrecv got %d from %d", in, st.MPI_SOURCE);
            /* group A Ssends first, group B receives first */
            if (mycolor == 0) {
                CHECK_MPI(MPI_Ssend(&outv, 1, MPI_INT, myrank, 6, ic));
                CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, myrank, 6, ic, &st));
            } else {
                CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, myrank, 6, ic, &st));
                CHECK_MPI(MPI_Ssend(&outv, 1, MPI_INT, myrank, 6, ic));
            }
            CHECK(in == other[myrank], "ssend got %d", in);

            /* probes: three ints with tag 9, then a matched probe of tag 10 */
            int three[3] = {me, me + 1, me + 2}, got[3] = {0, 0, 0};
            CHECK_MPI(MPI_Send(three, 3, MPI_INT, myrank, 9, ic));
            CHECK_MPI(MPI_Send(three, 2, MPI_INT, myrank, 10, ic));
            CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 9, ic, &st));
            int cnt = -1;
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(st.MPI_SOURCE == myrank && cnt == 3, "probe: source %d count %d", st.MPI_SOURCE, cnt);
            CHECK_MPI(MPI_Recv(got, 3, MPI_INT, st.MPI_SOURCE, 9, ic, &st));
            CHECK(got[0] == other[myrank] && got[2] == other[myrank] + 2, "probed recv got %d %d", got[0], got[2]);
            MPI_Message msg;
            int f = 0;
            while (!f) CHECK_MPI(MPI_Improbe(myrank, 10, ic, &f, &msg, &st));
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(cnt == 2 && st.MPI_SOURCE == myrank, "improbe: count %d source %d", cnt, st.MPI_SOURCE);
            CHECK_MPI(MPI_Mrecv(got, 2, MPI_INT, &msg, &st));
            CHECK(got[1] == other[myrank] + 1, "mrecv got %d", got[1]);

            /* persistent: three rounds */
            int sv = 0, rv = -1;
            MPI_Request pr[2];
            CHECK_MPI(MPI_Send_init(&sv, 1, MPI_INT, myrank, 11, ic, &pr[0]));
            CHECK_MPI(MPI_Recv_init(&rv, 1, MPI_INT, MPI_ANY_SOURCE, 11, ic, &pr[1]));
            for (int round = 0; round < 3; ++round) {
                sv = me * 10 + round;
                CHECK_MPI(MPI_Startall(2, pr));
                MPI_Status sts[2];
                CHECK_MPI(MPI_Waitall(2, pr, sts));
                CHECK(rv == other[myrank] * 10 + round && sts[1].MPI_SOURCE == myrank, "persistent round %d got %d from %d", round, rv, sts[1].MPI_SOURCE);
            }
            MPI_Request_free(&pr[0]);
            MPI_Request_free(&pr[1]);

            /* partitioned: group A sends 4 partitions of 2 ints, group B receives */
            int pbuf[8];
            MPI_Request preq;
            if (mycolor == 0) {
                for (int i = 0; i < 8; ++i) pbuf[i] = me * 100 + i;
                CHECK_MPI(MPI_Psend_init(pbuf, 4, 2, MPI_INT, myrank, 12, ic, MPI_INFO_NULL, &preq));
                CHECK_MPI(MPI_Start(&preq));
                for (int p = 3; p >= 0; --p) CHECK_MPI(MPI_Pready(p, preq));
            } else {
                for (int i = 0; i < 8; ++i) pbuf[i] = -1;
                CHECK_MPI(MPI_Precv_init(pbuf, 4, 2, MPI_INT, myrank, 12, ic, MPI_INFO_NULL, &preq));
                CHECK_MPI(MPI_Start(&preq));
            }
            CHECK_MPI(MPI_Wait(&preq, MPI_STATUS_IGNORE));
            if (mycolor == 1)
                for (int i = 0; i < 8; ++i) CHECK(pbuf[i] == other[myrank] * 100 + i, "partitioned [%d] = %d", i, pbuf[i]);
            MPI_Request_free(&preq);
        }
    }

    /* ---- dup, attributes, names ---- */
    int key;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(ic, key, (void*)(intptr_t)40));
    CHECK_MPI(MPI_Comm_set_name(ic, "my intercomm"));
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(ic, &dup));
    check_groups(dup, mine, nmine, other, nother, "dup");
    CHECK_MPI(MPI_Comm_compare(ic, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
    {
        void* v = NULL;
        int f = 0;
        CHECK_MPI(MPI_Comm_get_attr(dup, key, &v, &f));
        CHECK(f && (intptr_t)v == 41 && copied_attr_calls == 1, "dup attribute %d (flag %d), copies %d", (int)(intptr_t)v, f, copied_attr_calls);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        CHECK_MPI(MPI_Comm_get_name(ic, name, &len));
        CHECK(strcmp(name, "my intercomm") == 0, "name '%s'", name);
    }
    /* the dup's traffic is separate: send on ic then dup, receive dup first */
    {
        int myrank;
        MPI_Comm_rank(ic, &myrank);
        if (myrank < nother && myrank < nmine) {
            int a = 1, b = 2, x = 0, y = 0;
            MPI_Request r2[2];
            CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, myrank, 3, ic, &r2[0]));
            CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, myrank, 3, dup, &r2[1]));
            CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, myrank, 3, dup, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, MPI_STATUS_IGNORE));
            CHECK(x == 1 && y == 2, "ic got %d, dup got %d", x, y);
            CHECK_MPI(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
        }
    }
    exchange(dup, mine, nmine, other, nother, 200, "dup");
    MPI_Comm idup;
    MPI_Request ir;
    CHECK_MPI(MPI_Comm_idup(dup, &idup, &ir));
    CHECK_MPI(MPI_Wait(&ir, MPI_STATUS_IGNORE));
    check_groups(idup, mine, nmine, other, nother, "idup");
    exchange(idup, mine, nmine, other, nother, 300, "idup");
    {
        void* v = NULL;
        int f = 0;
        CHECK_MPI(MPI_Comm_get_attr(idup, key, &v, &f));
        CHECK(f && (intptr_t)v == 42, "idup attribute %d (flag %d)", (int)(intptr_t)v, f);
    }
    MPI_Comm dupi;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "baton_test_hint", "yes");
    CHECK_MPI(MPI_Comm_dup_with_info(ic, info, &dupi));
    MPI_Info_free(&info);
    check_groups(dupi, mine, nmine, other, nother, "dup_with_info");
    {
        MPI_Info used;
        CHECK_MPI(MPI_Comm_get_info(dupi, &used));
        char val[16] = "";
        int f = 0;
        MPI_Info_get_string(used, "baton_test_hint", &(int){16}, val, &f);
        CHECK(f && strcmp(val, "yes") == 0, "dup_with_info hint '%s' flag %d", val, f);
        MPI_Info_free(&used);
    }

    /* ---- split: parity of the local rank, key = -local rank ---- */
    {
        int myrank;
        MPI_Comm_rank(ic, &myrank);
        const int parity = myrank % 2;
        MPI_Comm sp;
        CHECK_MPI(MPI_Comm_split(ic, parity, -myrank, &sp));
        int lm[64], lo[64], nlm = 0, nlo = 0;
        for (int i = nmine - 1; i >= 0; --i)
            if (i % 2 == parity) lm[nlm++] = mine[i];
        for (int i = nother - 1; i >= 0; --i)
            if (i % 2 == parity) lo[nlo++] = other[i];
        if (nlo == 0) {
            CHECK(sp == MPI_COMM_NULL, "split: no remote rank of parity %d, but a communicator came back", parity);
        } else {
            CHECK(sp != MPI_COMM_NULL, "split: MPI_COMM_NULL for parity %d", parity);
            if (sp != MPI_COMM_NULL) {
                check_groups(sp, lm, nlm, lo, nlo, "split");
                exchange(sp, lm, nlm, lo, nlo, 400, "split");
                CHECK_MPI(MPI_Comm_free(&sp));
            }
        }
        /* split_type: when every rank shares one host, SHARED gives the same groups (ordered by
         * key = -local rank), HW_UNGUIDED nothing smaller (MPI_COMM_NULL); across hosts (the
         * two-host runs) the groups depend on the placement, so only one-host runs check them */
        MPI_Comm sh;
        int one_host = 0;
        {
            MPI_Comm wsh;
            int wsize = 0, hsize = 0;
            CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &wsh));
            MPI_Comm_size(MPI_COMM_WORLD, &wsize);
            MPI_Comm_size(wsh, &hsize);
            int all = hsize == wsize, every = 0;
            CHECK_MPI(MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
            one_host = every;
            CHECK_MPI(MPI_Comm_free(&wsh));
        }
        if (one_host) {
            CHECK_MPI(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, -myrank, MPI_INFO_NULL, &sh));
            {
                int rm[64], ro[64];
                for (int i = 0; i < nmine; ++i) rm[i] = mine[nmine - 1 - i];
                for (int i = 0; i < nother; ++i) ro[i] = other[nother - 1 - i];
                CHECK(sh != MPI_COMM_NULL, "split_type SHARED gave MPI_COMM_NULL");
                if (sh != MPI_COMM_NULL) {
                    check_groups(sh, rm, nmine, ro, nother, "split_type");
                    exchange(sh, rm, nmine, ro, nother, 450, "split_type");
                    CHECK_MPI(MPI_Comm_free(&sh));
                }
            }
            CHECK_MPI(MPI_Comm_split_type(ic, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &sh));
            CHECK(sh == MPI_COMM_NULL, "split_type HW_UNGUIDED gave a communicator");
        }
        MPI_Comm spu;
        CHECK_MPI(MPI_Comm_split(ic, MPI_UNDEFINED, 0, &spu));
        CHECK(spu == MPI_COMM_NULL, "split with MPI_UNDEFINED gave a communicator");

        /* ---- create: every local rank but local rank 0 (when the group has more than one) ---- */
        MPI_Group lg, sub;
        MPI_Comm_group(ic, &lg);
        int zero = 0;
        if (nmine > 1)
            MPI_Group_excl(lg, 1, &zero, &sub);
        else
            MPI_Group_incl(lg, 1, &zero, &sub);
        MPI_Comm cr;
        CHECK_MPI(MPI_Comm_create(ic, sub, &cr));
        const int cm = nmine > 1 ? nmine - 1 : 1, co = nother > 1 ? nother - 1 : 1;
        const int* cml = nmine > 1 ? mine + 1 : mine;
        const int* col = nother > 1 ? other + 1 : other;
        if (nmine > 1 && myrank == 0) {
            CHECK(cr == MPI_COMM_NULL, "create: excluded rank got a communicator");
        } else {
            CHECK(cr != MPI_COMM_NULL, "create: MPI_COMM_NULL for a member");
            if (cr != MPI_COMM_NULL) {
                check_groups(cr, cml, cm, col, co, "create");
                exchange(cr, cml, cm, col, co, 500, "create");
                CHECK_MPI(MPI_Comm_free(&cr));
            }
        }
        /* create with the empty group on one side: MPI_COMM_NULL everywhere */
        MPI_Comm ce;
        CHECK_MPI(MPI_Comm_create(ic, mycolor == 0 ? MPI_GROUP_EMPTY : lg, &ce));
        CHECK(ce == MPI_COMM_NULL, "create with an empty side gave a communicator");
        MPI_Group_free(&sub);
        MPI_Group_free(&lg);
    }

    /* ---- merge ---- */
    {
        int myrank;
        MPI_Comm_rank(ic, &myrank);
        for (int variant = 0; variant < 4; ++variant) {
            /* 0: A high (B first); 1: B high (A first); 2: both low, 3: both high (bridge order:
             * the group with the lower leader world rank first) */
            int high;
            if (variant == 0) high = mycolor == 0;
            else if (variant == 1) high = mycolor == 1;
            else high = variant == 3;
            int mine_first;
            if (variant == 0) mine_first = mycolor == 1;
            else if (variant == 1) mine_first = mycolor == 0;
            else mine_first = lleader_world < rleader_world;
            MPI_Comm m;
            CHECK_MPI(MPI_Intercomm_merge(ic, high, &m));
            int msize = -1, mrank = -1, inter = -1;
            MPI_Comm_size(m, &msize);
            MPI_Comm_rank(m, &mrank);
            MPI_Comm_test_inter(m, &inter);
            CHECK(inter == 0 && msize == np, "merge %d: inter %d size %d", variant, inter, msize);
            const int expect = mine_first ? myrank : nother + myrank;
            CHECK(mrank == expect, "merge %d: rank %d, expected %d", variant, mrank, expect);
            /* the merged communicator works: an allgather of world ranks in merged order */
            int all[64];
            CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, m));
            for (int i = 0; i < np; ++i) {
                const int* first = mine_first ? mine : other;
                const int* second = mine_first ? other : mine;
                const int nfirst = mine_first ? nmine : nother;
                const int w = i < nfirst ? first[i] : second[i - nfirst];
                CHECK(all[i] == w, "merge %d: merged rank %d is world %d, expected %d", variant, i, all[i], w);
            }
            CHECK_MPI(MPI_Comm_free(&m));
        }
    }

    /* ---- create_from_groups: leaders the last rank of each group ---- */
    {
        MPI_Group wg, lg, rg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, nmine, mine, &lg);
        MPI_Group_incl(wg, nother, other, &rg);
        MPI_Comm fg;
        CHECK_MPI(MPI_Intercomm_create_from_groups(lg, nmine - 1, rg, nother - 1, "baton.test.ic", MPI_INFO_NULL,
                                                   MPI_ERRORS_RETURN, &fg));
        check_groups(fg, mine, nmine, other, nother, "from_groups");
        exchange(fg, mine, nmine, other, nother, 600, "from_groups");
        MPI_Errhandler eh;
        CHECK_MPI(MPI_Comm_get_errhandler(fg, &eh));
        CHECK(eh == MPI_ERRORS_RETURN, "from_groups: error handler not the one passed");
        MPI_Errhandler_free(&eh);
        MPI_Comm fm;
        CHECK_MPI(MPI_Intercomm_merge(fg, mycolor, &fm)); /* A low: A first */
        int mrank = -1;
        MPI_Comm_rank(fm, &mrank);
        int lr;
        MPI_Comm_rank(fg, &lr);
        CHECK(mrank == (mycolor == 0 ? lr : nother + lr), "from_groups merge: rank %d", mrank);
        CHECK_MPI(MPI_Comm_free(&fm));
        CHECK_MPI(MPI_Comm_free(&fg));
        CHECK(fg == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
        MPI_Group_free(&lg);
        MPI_Group_free(&rg);
        MPI_Group_free(&wg);
    }

    CHECK_MPI(MPI_Comm_free(&dupi));
    CHECK_MPI(MPI_Comm_free(&idup));
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK(ic == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK_MPI(MPI_Comm_free(&local));
    CHECK_MPI(MPI_Comm_free(&peer));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
