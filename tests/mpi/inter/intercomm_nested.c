/* Many intercommunicators at once (16 over the same two groups, with leaders that move, traffic
 * on all of them received in the reverse order, freed in another order); an intercommunicator as
 * peer_comm; an intercommunicator between the two parities of a merged intercommunicator, merged
 * again (and split, and dup'ed), with a collective on each merged communicator. */
#include "mpitest.h"

static int np, me;

#define MANY 16

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
    const int half = np / 2;
    const int color = me < half ? 0 : 1;
    const int lsize = color == 0 ? half : np - half;
    const int rsize = np - lsize;
    const int lbase = color == 0 ? 0 : half; /* world rank of local rank 0 */
    const int rbase = color == 0 ? half : 0;
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));

    /* ---- many at once ---- */
    MPI_Comm ics[MANY];
    for (int k = 0; k < MANY; ++k) {
        /* leaders: local rank k % size on each side */
        const int rl_world = rbase + k % rsize;
        CHECK_MPI(MPI_Intercomm_create(local, k % lsize, MPI_COMM_WORLD, rl_world, 1000 + k, &ics[k]));
    }
    {
        /* local rank i sends to remote rank i % rsize on every communicator, last created first;
         * every receive is posted first, with ANY_SOURCE */
        const int lr = me - lbase;
        int nrecv = 0;
        for (int j = 0; j < rsize; ++j)
            if (j % lsize == lr) nrecv++;
        int got[MANY][4];
        MPI_Status st[MANY * 4];
        MPI_Request rq[MANY * 4];
        int n = 0;
        for (int k = 0; k < MANY; ++k)
            for (int i = 0; i < nrecv; ++i) {
                got[k][i] = -1;
                CHECK_MPI(MPI_Irecv(&got[k][i], 1, MPI_INT, MPI_ANY_SOURCE, 7, ics[k], &rq[n++]));
            }
        for (int k = MANY - 1; k >= 0; --k) {
            int v = k * 1000 + me;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, lr % rsize, 7, ics[k]));
        }
        CHECK_MPI(MPI_Waitall(n, rq, st));
        n = 0;
        for (int k = 0; k < MANY; ++k)
            for (int i = 0; i < nrecv; ++i, ++n) {
                const int src = got[k][i] % 1000, kk = got[k][i] / 1000;
                CHECK(kk == k && src == rbase + st[n].MPI_SOURCE && st[n].MPI_SOURCE % lsize == lr,
                      "communicator %d: got %d from remote rank %d", k, got[k][i], st[n].MPI_SOURCE);
            }
    }
    for (int k = 0; k < MANY; k += 2) CHECK_MPI(MPI_Comm_free(&ics[k]));
    for (int k = MANY - 1; k > 0; k -= 2) CHECK_MPI(MPI_Comm_free(&ics[k]));

    /* ---- an intercommunicator as peer_comm ---- */
    MPI_Comm ic, ic2;
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rbase, 5, &ic));
    CHECK_MPI(MPI_Intercomm_create(local, lsize - 1, ic, rsize - 1, 6, &ic2));
    {
        int res = -1, rs = -1, f = 0;
        CHECK_MPI(MPI_Comm_compare(ic, ic2, &res));
        CHECK(res == MPI_CONGRUENT, "compare(ic, ic2) = %d", res);
        CHECK_MPI(MPI_Comm_test_inter(ic2, &f));
        CHECK_MPI(MPI_Comm_remote_size(ic2, &rs));
        CHECK(f == 1 && rs == rsize, "ic2: inter %d remote size %d", f, rs);
        const int lr = me - lbase;
        if (lr < rsize) {
            int out = me, got = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, lr, 1, &got, 1, MPI_INT, MPI_ANY_SOURCE, 1, ic2, &st));
            CHECK(got == rbase + lr && st.MPI_SOURCE == lr, "ic2: got %d from %d", got, st.MPI_SOURCE);
        }
    }

    /* ---- nested: merge, split by parity, intercomm between the parities, merge again ---- */
    MPI_Comm m, par, ic3, m2;
    CHECK_MPI(MPI_Intercomm_merge(ic2, color, &m)); /* the lower half first: merged rank = world rank */
    int mr = -1;
    MPI_Comm_rank(m, &mr);
    CHECK(mr == me, "merged rank %d", mr);
    const int parity = mr % 2;
    CHECK_MPI(MPI_Comm_split(m, parity, mr, &par));
    /* leaders: parity 0's is merged rank 0, parity 1's merged rank 1 */
    CHECK_MPI(MPI_Intercomm_create(par, 0, m, 1 - parity, 8, &ic3));
    const int neven = (np + 1) / 2, nodd = np / 2;
    {
        int ls = -1, rs = -1, lr = -1;
        MPI_Comm_size(ic3, &ls);
        MPI_Comm_remote_size(ic3, &rs);
        MPI_Comm_rank(ic3, &lr);
        CHECK(ls == (parity ? nodd : neven) && rs == (parity ? neven : nodd) && lr == mr / 2,
              "ic3: size %d remote %d rank %d", ls, rs, lr);
        /* dup and split of the nested intercomm */
        MPI_Comm d, s;
        CHECK_MPI(MPI_Comm_dup(ic3, &d));
        CHECK_MPI(MPI_Comm_split(d, 0, -lr, &s));
        int slr = -1;
        MPI_Comm_rank(s, &slr);
        CHECK(slr == ls - 1 - lr, "split of the nested intercomm: rank %d", slr);
        if (slr < rs) { /* s-rank q <-> remote s-rank q; remote s-rank q is merged rank 2 (rs - 1 - q) + the other parity */
            int out = me, got = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, slr, 2, &got, 1, MPI_INT, MPI_ANY_SOURCE, 2, s, &st));
            CHECK(got == 2 * (rs - 1 - slr) + (1 - parity) && st.MPI_SOURCE == slr, "split nested: got %d from %d", got,
                  st.MPI_SOURCE);
        }
        CHECK_MPI(MPI_Comm_free(&s));
        CHECK_MPI(MPI_Comm_free(&d));
    }
    CHECK_MPI(MPI_Intercomm_merge(ic3, parity, &m2)); /* even first */
    {
        int r2 = -1;
        MPI_Comm_rank(m2, &r2);
        const int expect = parity ? neven + mr / 2 : mr / 2;
        CHECK(r2 == expect, "m2: rank %d, expected %d", r2, expect);
        int sum = 0, one = me;
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m2));
        CHECK(sum == np * (np - 1) / 2, "m2: allreduce %d", sum);
    }
    CHECK_MPI(MPI_Comm_free(&m2));
    CHECK_MPI(MPI_Comm_free(&ic3));
    CHECK_MPI(MPI_Comm_free(&par));
    CHECK_MPI(MPI_Comm_free(&m));
    CHECK_MPI(MPI_Comm_free(&ic2));
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_MPI(MPI_Comm_free(&local));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
