/* MPI_Comm_idup / MPI_Comm_idup_with_info are nonblocking:
 *  - a chain of synchronous sends that each rank only reaches after its Idup returns (deadlocks if
 *    Idup waits for the other ranks);
 *  - many Idups outstanding at once on MPI_COMM_WORLD, interleaved with Ibarrier / Iallreduce;
 *  - Idups on overlapping communicators started in rank-dependent orders;
 *  - an Idup left pending (its eager round stalled) while the same ranks run a blocking Comm_dup
 *    of a larger communicator;
 *  - the new communicators' contexts are all distinct: a message sent on each of them with the
 *    same source and tag must arrive on that communicator and no other;
 *  - attributes (MPI_COMM_DUP_FN) and info hints are carried over; MPI_Test polling works.
 */
#include <stdlib.h>

#include "mpitest.h"

static int rank, size;

/* Every communicator of `comms` (each over all of MPI_COMM_WORLD's ranks, in some order) carries
 * one message to the next rank of that communicator, all with tag 7; receives are posted for all
 * communicators before any send, sends go in reverse order. Any two sharing a context would swap
 * messages. */
static void check_distinct(MPI_Comm* comms, int n, const char* what)
{
    int* in = malloc(sizeof(int) * (size_t)n);
    int* out = malloc(sizeof(int) * (size_t)n);
    MPI_Request* rq = malloc(sizeof(MPI_Request) * (size_t)(2 * n));
    for (int k = 0; k < n; ++k) {
        int r, s;
        MPI_Comm_rank(comms[k], &r);
        MPI_Comm_size(comms[k], &s);
        in[k] = -1;
        CHECK_MPI(MPI_Irecv(&in[k], 1, MPI_INT, (r + s - 1) % s, 7, comms[k], &rq[k]));
    }
    for (int k = n - 1; k >= 0; --k) {
        int r, s;
        MPI_Comm_rank(comms[k], &r);
        MPI_Comm_size(comms[k], &s);
        out[k] = k * 1000 + r;
        CHECK_MPI(MPI_Isend(&out[k], 1, MPI_INT, (r + 1) % s, 7, comms[k], &rq[n + k]));
    }
    CHECK_MPI(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; ++k) {
        int r, s;
        MPI_Comm_rank(comms[k], &r);
        MPI_Comm_size(comms[k], &s);
        CHECK(in[k] == k * 1000 + (r + s - 1) % s, "%s: communicator %d got %d, expected %d", what, k, in[k],
              k * 1000 + (r + s - 1) % s);
    }
    free(in);
    free(out);
    free(rq);
}

static void check_same_group(MPI_Comm a, MPI_Comm b, const char* what)
{
    int res = -1;
    CHECK_MPI(MPI_Comm_compare(a, b, &res));
    CHECK(res == MPI_CONGRUENT, "%s: compare gave %d, expected MPI_CONGRUENT", what, res);
}

/* Rank r receives a synchronous message from r-1, then starts its Idup, then sends to r+1. Rank 0
 * starts its Idup first. An Idup that waited for every rank would deadlock. */
static void test_chain(void)
{
    MPI_Comm n;
    MPI_Request rq;
    int token = 0;
    if (rank > 0) CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &n, &rq));
    if (rank + 1 < size) {
        token = rank + 1;
        CHECK_MPI(MPI_Ssend(&token, 1, MPI_INT, rank + 1, 3, MPI_COMM_WORLD));
    }
    CHECK(token == rank || rank + 1 < size, "chain token %d", token);
    /* Poll with MPI_Test, as an overlapping application would. */
    int flag = 0;
    long polls = 0;
    while (!flag) {
        CHECK_MPI(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
        ++polls;
    }
    CHECK(rq == MPI_REQUEST_NULL, "completed request not set to MPI_REQUEST_NULL");
    check_same_group(n, MPI_COMM_WORLD, "chain");
    check_distinct(&n, 1, "chain");
    CHECK_MPI(MPI_Comm_free(&n));
}

/* Many Idups outstanding on one communicator, with other nonblocking collectives between them. */
static void test_many_outstanding(int count)
{
    MPI_Comm* nc = malloc(sizeof(MPI_Comm) * (size_t)(count + 1));
    MPI_Request* rq = malloc(sizeof(MPI_Request) * (size_t)(3 * count));
    int* sums = malloc(sizeof(int) * (size_t)count);
    int* ones = malloc(sizeof(int) * (size_t)count);
    int nr = 0;
    for (int k = 0; k < count; ++k) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &nc[k], &rq[nr++]));
        ones[k] = k + rank;
        if (k % 3 == 0) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq[nr++]));
        if (k % 3 == 1) CHECK_MPI(MPI_Iallreduce(&ones[k], &sums[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]));
    }
    CHECK_MPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    for (int k = 1; k < count; k += 3)
        CHECK(sums[k] == k * size + size * (size - 1) / 2, "Iallreduce %d between Idups gave %d", k, sums[k]);
    /* the blocking form agrees beside them */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &nc[count]));
    for (int k = 0; k <= count; ++k) check_same_group(nc[k], MPI_COMM_WORLD, "many");
    check_distinct(nc, count + 1, "many outstanding");
    /* a collective on each new communicator works */
    for (int k = 0; k <= count; ++k) {
        int v = k, s = -1;
        CHECK_MPI(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, nc[k]));
        CHECK(s == k * size, "allreduce on communicator %d gave %d", k, s);
    }
    for (int k = 0; k <= count; ++k) CHECK_MPI(MPI_Comm_free(&nc[k]));
    free(nc);
    free(rq);
    free(sums);
    free(ones);
}

/* Idups of three overlapping communicators, started in an order that depends on the rank, then an
 * Idup of each result before the first ones are waited for by some ranks. */
static void test_overlapping(void)
{
    MPI_Comm base[3], dup[3], dup2[3];
    MPI_Request rq[3];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[0]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &base[1])); /* reversed */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, (rank * 7) % size == 0 ? rank : (rank * 7) % size, &base[2]));
    int order[3] = {0, 1, 2};
    if (rank % 2 == 1) {
        order[0] = 2;
        order[2] = 0;
    }
    if (rank % 3 == 2) {
        order[0] = 1;
        order[1] = 2;
        order[2] = 0;
    }
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Comm_idup(base[order[i]], &dup[order[i]], &rq[order[i]]));
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; ++i) check_same_group(dup[i], base[i], "overlapping");
    /* second generation, again in rank-dependent order, waited one by one in yet another order */
    for (int i = 2; i >= 0; --i) {
        const int k = (i + rank) % 3;
        CHECK_MPI(MPI_Comm_idup(dup[k], &dup2[k], &rq[k]));
    }
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Wait(&rq[(i + 2 * rank) % 3], MPI_STATUS_IGNORE));
    MPI_Comm all[9] = {base[0], base[1], base[2], dup[0], dup[1], dup[2], dup2[0], dup2[1], dup2[2]};
    check_distinct(all, 9, "overlapping");
    for (int i = 0; i < 3; ++i) {
        CHECK_MPI(MPI_Comm_free(&dup2[i]));
        CHECK_MPI(MPI_Comm_free(&dup[i]));
        CHECK_MPI(MPI_Comm_free(&base[i]));
    }
}

/* Ranks 0 and 1 form `pair`. Rank 0 starts an Idup of `pair` (it cannot finish: rank 1 has not
 * joined) and then a blocking Comm_dup of MPI_COMM_WORLD; rank 1 joins the world dup first and
 * only then the pair's Idup. The pending Idup must not keep the world dup from agreeing. */
static void test_stalled(void)
{
    if (size < 2) return;
    MPI_Comm pair, w, pd = MPI_COMM_NULL;
    MPI_Request rq = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
    if (rank == 0) CHECK_MPI(MPI_Comm_idup(pair, &pd, &rq));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &w));
    if (rank == 1) CHECK_MPI(MPI_Comm_idup(pair, &pd, &rq));
    if (rank < 2) CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_distinct(&w, 1, "stalled");
    if (rank < 2) {
        MPI_Comm two[2] = {pair, pd};
        check_distinct(two, 2, "stalled pair");
        CHECK_MPI(MPI_Comm_free(&pd));
        CHECK_MPI(MPI_Comm_free(&pair));
    }
    CHECK_MPI(MPI_Comm_free(&w));
}

static int copies;
static int copy_fn(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    ++copies;
    *(void**)out = (char*)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_attributes_and_info(void)
{
    int kv = MPI_KEYVAL_INVALID;
    static char anchor[4];
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    MPI_Comm base, n1, n2;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    CHECK_MPI(MPI_Comm_set_attr(base, kv, anchor));
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_Request rq[2];
    copies = 0;
    CHECK_MPI(MPI_Comm_idup(base, &n1, &rq[0]));
    CHECK_MPI(MPI_Comm_idup_with_info(base, info, &n2, &rq[1]));
    CHECK(copies == 2, "copy callback ran %d times at the Idup calls, expected 2", copies);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    void* v = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(n1, kv, &v, &flag));
    CHECK(flag && v == anchor + 1, "attribute on the Idup result: flag %d", flag);
    MPI_Info got;
    CHECK_MPI(MPI_Comm_get_info(n2, &got));
    char val[16] = "";
    CHECK_MPI(MPI_Info_get_string(got, "mpi_assert_no_any_tag", &(int){16}, val, &flag));
    CHECK(flag && strcmp(val, "true") == 0, "hint on the Idup_with_info result: flag %d value '%s'", flag, val);
    CHECK_MPI(MPI_Info_free(&got));
    MPI_Comm all[3] = {base, n1, n2};
    check_distinct(all, 3, "attributes");
    CHECK_MPI(MPI_Comm_free(&n1));
    CHECK_MPI(MPI_Comm_free(&n2));
    CHECK_MPI(MPI_Comm_free(&base));
    CHECK_MPI(MPI_Comm_free_keyval(&kv));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_chain();
    test_many_outstanding(40);
    test_overlapping();
    test_stalled();
    test_attributes_and_info();
    /* repeated creation and freeing keeps working (contexts are reused, never shared) */
    for (int i = 0; i < 20; ++i) test_many_outstanding(5);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
