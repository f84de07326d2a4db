/* Neighborhood collectives (MPI-4.1 8.6-8.7): neighbor allgather(v) and alltoall(v,w), blocking,
 * nonblocking, large-count and persistent, on Cartesian (1-3 dimensions, periodic or not: the
 * MPI_PROC_NULL blocks stay untouched), graph (duplicate and self edges) and distributed graph
 * topologies (both constructors, a rank with no edges). Every received element is checked against
 * a value computed here from the sender's rank and block; many nonblocking ones are outstanding at
 * once mixed with other collectives; persistent ones restart with new buffer contents. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define MAXD 64
#define CNT 3
#define SENT (-7)

static int rank, size;

typedef struct {
    const char* name;
    MPI_Comm comm;
    int cart;
    int nin, nout, in[MAXD], out[MAXD];
    int* all_out;  /* size x MAXD: every rank's out-list */
    int* all_nout; /* size */
} topo_t;

static void topo_lists(topo_t* t)
{
    int st;
    MPI_Topo_test(t->comm, &st);
    t->cart = st == MPI_CART;
    if (st == MPI_CART) {
        int nd;
        MPI_Cartdim_get(t->comm, &nd);
        t->nin = t->nout = 2 * nd;
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]);
            t->out[2 * d] = t->in[2 * d];
            t->out[2 * d + 1] = t->in[2 * d + 1];
        }
    } else if (st == MPI_GRAPH) {
        int me;
        MPI_Comm_rank(t->comm, &me);
        MPI_Graph_neighbors_count(t->comm, me, &t->nin);
        MPI_Graph_neighbors(t->comm, me, MAXD, t->in);
        t->nout = t->nin;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &w);
        MPI_Dist_graph_neighbors(t->comm, MAXD, t->in, MPI_UNWEIGHTED, MAXD, t->out, MPI_UNWEIGHTED);
    }
    t->all_out = malloc(sizeof(int) * MAXD * (size_t)size);
    t->all_nout = malloc(sizeof(int) * (size_t)size);
    CHECK_MPI(MPI_Allgather(t->out, MAXD, MPI_INT, t->all_out, MAXD, MPI_INT, t->comm));
    CHECK_MPI(MPI_Allgather(&t->nout, 1, MPI_INT, t->all_nout, 1, MPI_INT, t->comm));
}

/* The sender's out-index whose block lands in my in-block i. */
static int source_block(const topo_t* t, int i)
{
    if (t->cart) return (i / 2) * 2 + 1 - i % 2;
    int s = t->in[i], k = 0;
    for (int x = 0; x < i; x++) k += t->in[x] == s;
    for (int j = 0; j < t->all_nout[s]; j++)
        if (t->all_out[s * MAXD + j] == rank && k-- == 0) return j;
    return -1;
}

static int val(int s, int j, int e, int iter) { return s * 1000003 + j * 1009 + e * 7 + iter * 31 + 1; }
static int cnt_of(int s, int j) { return 1 + (s + j) % 3; }

/* ---- allgather / alltoall ---- */
static void fill_a2a(const topo_t* t, int* sbuf, int iter, int gather)
{
    for (int j = 0; j < (gather ? 1 : t->nout); j++)
        for (int e = 0; e < CNT; e++) sbuf[j * CNT + e] = val(rank, gather ? 0 : j, e, iter);
}
static void check_a2a(const topo_t* t, const int* rbuf, int iter, int gather, const char* what)
{
    int bad = 0;
    for (int i = 0; i < t->nin; i++) {
        int s = t->in[i];
        int j = s == MPI_PROC_NULL ? -1 : gather ? 0 : source_block(t, i);
        for (int e = 0; e < CNT; e++) {
            int want = s == MPI_PROC_NULL ? SENT : val(s, j, e, iter);
            if (rbuf[i * CNT + e] != want && bad++ == 0)
                CHECK(0, "%s %s iter %d: block %d (from %d) elem %d = %d, expected %d", t->name, what, iter, i, s, e,
                      rbuf[i * CNT + e], want);
        }
    }
    if (rbuf[t->nin * CNT] != SENT) CHECK(0, "%s %s: wrote past the last block", t->name, what);
}
static void reset(int* b, int n)
{
    for (int i = 0; i < n; i++) b[i] = SENT;
}

static void test_uniform(const topo_t* t)
{
    int sbuf[MAXD * CNT], rbuf[MAXD * CNT + 1];
    MPI_Request rq;
    for (int gather = 0; gather < 2; gather++)
        for (int form = 0; form < 4; form++) {
            int iter = form + 10 * gather;
            fill_a2a(t, sbuf, iter, gather);
            reset(rbuf, MAXD * CNT + 1);
            const char* what = gather ? "allgather" : "alltoall";
            if (gather) {
                if (form == 0) CHECK_MPI(MPI_Neighbor_allgather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm));
                if (form == 1) CHECK_MPI(MPI_Neighbor_allgather_c(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm));
                if (form == 2) CHECK_MPI(MPI_Ineighbor_allgather(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm, &rq));
                if (form == 3)
                    CHECK_MPI(MPI_Ineighbor_allgather_c(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm, &rq));
            } else {
                if (form == 0) CHECK_MPI(MPI_Neighbor_alltoall(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm));
                if (form == 1) CHECK_MPI(MPI_Neighbor_alltoall_c(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm));
                if (form == 2) CHECK_MPI(MPI_Ineighbor_alltoall(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm, &rq));
                if (form == 3)
                    CHECK_MPI(MPI_Ineighbor_alltoall_c(sbuf, CNT, MPI_INT, rbuf, CNT, MPI_INT, t->comm, &rq));
            }
            if (form >= 2) CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            check_a2a(t, rbuf, iter, gather, what);
        }
}

/* ---- allgatherv: my send count is 1 + rank % 3; block i lands in reversed order with gaps ---- */
static void test_allgatherv(const topo_t* t)
{
    int sbuf[8], rbuf[MAXD * 8], rc[MAXD], rd[MAXD];
    MPI_Count rcc[MAXD];
    MPI_Aint rdc[MAXD];
    int scount = 1 + rank % 3, at = 0;
    for (int i = t->nin - 1; i >= 0; i--) {
        rc[i] = t->in[i] == MPI_PROC_NULL ? 2 : 1 + t->in[i] % 3;
        rd[i] = at;
        at += rc[i] + 1;
        rcc[i] = rc[i];
        rdc[i] = rd[i];
    }
    for (int form = 0; form < 3; form++) {
        MPI_Request rq;
        for (int e = 0; e < scount; e++) sbuf[e] = val(rank, 0, e, form);
        reset(rbuf, MAXD * 8);
        if (form == 0) CHECK_MPI(MPI_Neighbor_allgatherv(sbuf, scount, MPI_INT, rbuf, rc, rd, MPI_INT, t->comm));
        if (form == 1) CHECK_MPI(MPI_Neighbor_allgatherv_c(sbuf, scount, MPI_INT, rbuf, rcc, rdc, MPI_INT, t->comm));
        if (form == 2) {
            CHECK_MPI(MPI_Ineighbor_allgatherv(sbuf, scount, MPI_INT, rbuf, rc, rd, MPI_INT, t->comm, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        }
        int bad = 0;
        for (int i = 0; i < t->nin; i++)
            for (int e = 0; e <= rc[i]; e++) {
                int s = t->in[i];
                int want = (e == rc[i] || s == MPI_PROC_NULL) ? SENT : val(s, 0, e, form);
                if (rbuf[rd[i] + e] != want && bad++ == 0)
                    CHECK(0, "%s allgatherv form %d: block %d elem %d = %d, expected %d", t->name, form, i, e,
                          rbuf[rd[i] + e], want);
            }
    }
}

/* ---- alltoallv / alltoallw: count cnt_of(sender, out-index) ---- */
typedef struct {
    int sc[MAXD], sd[MAXD], rc[MAXD], rd[MAXD], src_block[MAXD];
    MPI_Aint sdb[MAXD], rdb[MAXD];
    MPI_Count scc[MAXD], rcc[MAXD];
    MPI_Aint sdc[MAXD], rdc[MAXD];
    MPI_Datatype st[MAXD], rt[MAXD];
    int rtc[MAXD]; /* receive count in units of rt */
} vlayout;

static MPI_Datatype pair_t;

static void layout(const topo_t* t, vlayout* v)
{
    int at = 2;
    for (int j = 0; j < t->nout; j++) {
        v->sc[j] = cnt_of(rank, j);
        v->sd[j] = at;
        at += v->sc[j] + 2;
        v->scc[j] = v->sc[j];
        v->sdc[j] = v->sd[j];
        v->sdb[j] = (MPI_Aint)sizeof(int) * v->sd[j];
        v->st[j] = MPI_INT;
    }
    at = 0;
    for (int i = t->nin - 1; i >= 0; i--) {
        int s = t->in[i];
        v->src_block[i] = s == MPI_PROC_NULL ? -1 : source_block(t, i);
        v->rc[i] = s == MPI_PROC_NULL ? 2 : cnt_of(s, v->src_block[i]);
        v->rd[i] = at;
        at += v->rc[i] + 1;
        v->rcc[i] = v->rc[i];
        v->rdc[i] = v->rd[i];
        v->rdb[i] = (MPI_Aint)sizeof(int) * v->rd[i];
        v->rt[i] = v->rc[i] % 2 == 0 ? pair_t : MPI_INT;
        v->rtc[i] = v->rc[i] % 2 == 0 ? v->rc[i] / 2 : v->rc[i];
    }
}

static void fill_v(const topo_t* t, const vlayout* v, int* sbuf, int iter)
{
    reset(sbuf, MAXD * 8);
    for (int j = 0; j < t->nout; j++)
        for (int e = 0; e < v->sc[j]; e++) sbuf[v->sd[j] + e] = val(rank, j, e, iter);
}

static void check_v(const topo_t* t, const vlayout* v, const int* rbuf, int iter, const char* what)
{
    int bad = 0;
    for (int i = 0; i < t->nin; i++)
        for (int e = 0; e <= v->rc[i]; e++) {
            int s = t->in[i];
            int want = (e == v->rc[i] || s == MPI_PROC_NULL) ? SENT : val(s, v->src_block[i], e, iter);
            if (rbuf[v->rd[i] + e] != want && bad++ == 0)
                CHECK(0, "%s %s iter %d: block %d (from %d) elem %d = %d, expected %d", t->name, what, iter, i, s, e,
                      rbuf[v->rd[i] + e], want);
        }
}

static void test_vw(const topo_t* t)
{
    vlayout v;
    layout(t, &v);
    int sbuf[MAXD * 8], rbuf[MAXD * 8];
    for (int form = 0; form < 6; form++) {
        MPI_Request rq = MPI_REQUEST_NULL;
        fill_v(t, &v, sbuf, form);
        reset(rbuf, MAXD * 8);
        switch (form) {
        case 0: CHECK_MPI(MPI_Neighbor_alltoallv(sbuf, v.sc, v.sd, MPI_INT, rbuf, v.rc, v.rd, MPI_INT, t->comm)); break;
        case 1:
            CHECK_MPI(MPI_Neighbor_alltoallv_c(sbuf, v.scc, v.sdc, MPI_INT, rbuf, v.rcc, v.rdc, MPI_INT, t->comm));
            break;
        case 2:
            CHECK_MPI(MPI_Ineighbor_alltoallv(sbuf, v.sc, v.sd, MPI_INT, rbuf, v.rc, v.rd, MPI_INT, t->comm, &rq));
            break;
        case 3:
            CHECK_MPI(MPI_Neighbor_alltoallw(sbuf, v.sc, v.sdb, v.st, rbuf, v.rtc, v.rdb, v.rt, t->comm));
            break;
        case 4: {
            MPI_Count sc[MAXD], rc[MAXD];
            for (int j = 0; j < t->nout; j++) sc[j] = v.sc[j];
            for (int i = 0; i < t->nin; i++) rc[i] = v.rtc[i];
            CHECK_MPI(MPI_Ineighbor_alltoallw_c(sbuf, sc, v.sdb, v.st, rbuf, rc, v.rdb, v.rt, t->comm, &rq));
            break;
        }
        case 5:
            CHECK_MPI(MPI_Ineighbor_alltoallw(sbuf, v.sc, v.sdb, v.st, rbuf, v.rtc, v.rdb, v.rt, t->comm, &rq));
            break;
        }
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        check_v(t, &v, rbuf, form, form < 3 ? "alltoallv" : "alltoallw");
    }
}

/* ---- persistent: bound once, restarted with new contents ---- */
static void test_persistent(const topo_t* t)
{
    vlayout v;
    layout(t, &v);
    int sa[MAXD * CNT], ra[MAXD * CNT + 1], sg[MAXD * CNT], rg[MAXD * CNT + 1], sv[MAXD * 8], rv[MAXD * 8];
    int sw[MAXD * 8], rw[MAXD * 8];
    MPI_Request rq[4];
    CHECK_MPI(MPI_Neighbor_alltoall_init(sa, CNT, MPI_INT, ra, CNT, MPI_INT, t->comm, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Neighbor_allgather_init_c(sg, CNT, MPI_INT, rg, CNT, MPI_INT, t->comm, MPI_INFO_NULL, &rq[1]));
    CHECK_MPI(MPI_Neighbor_alltoallv_init(sv, v.sc, v.sd, MPI_INT, rv, v.rc, v.rd, MPI_INT, t->comm, MPI_INFO_NULL,
                                          &rq[2]));
    CHECK_MPI(MPI_Neighbor_alltoallw_init(sw, v.sc, v.sdb, v.st, rw, v.rtc, v.rdb, v.rt, t->comm, MPI_INFO_NULL,
                                          &rq[3]));
    for (int iter = 100; iter < 104; iter++) {
        fill_a2a(t, sa, iter, 0);
        fill_a2a(t, sg, iter, 1);
        fill_v(t, &v, sv, iter);
        fill_v(t, &v, sw, iter + 50);
        reset(ra, MAXD * CNT + 1);
        reset(rg, MAXD * CNT + 1);
        reset(rv, MAXD * 8);
        reset(rw, MAXD * 8);
        if (iter % 2) {
            CHECK_MPI(MPI_Startall(4, rq));
        } else {
            for (int k = 3; k >= 0; k--) CHECK_MPI(MPI_Start(&rq[k]));
        }
        CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        check_a2a(t, ra, iter, 0, "persistent alltoall");
        check_a2a(t, rg, iter, 1, "persistent allgather");
        check_v(t, &v, rv, iter, "persistent alltoallv");
        check_v(t, &v, rw, iter + 50, "persistent alltoallw");
    }
    for (int k = 0; k < 4; k++) CHECK_MPI(MPI_Request_free(&rq[k]));
}

/* ---- many outstanding, mixed with other collectives ---- */
#define NOUT 40
static void test_outstanding(const topo_t* t)
{
    int (*sb)[MAXD * CNT] = malloc(sizeof *sb * NOUT);
    int (*rb)[MAXD * CNT + 1] = malloc(sizeof *rb * NOUT);
    int sums[NOUT], ones[NOUT];
    MPI_Request rq[2 * NOUT];
    int nr = 0;
    for (int k = 0; k < NOUT; k++) {
        fill_a2a(t, sb[k], 200 + k, k % 3 == 0);
        reset(rb[k], MAXD * CNT + 1);
        if (k % 3 == 0)
            CHECK_MPI(MPI_Ineighbor_allgather(sb[k], CNT, MPI_INT, rb[k], CNT, MPI_INT, t->comm, &rq[nr++]));
        else
            CHECK_MPI(MPI_Ineighbor_alltoall(sb[k], CNT, MPI_INT, rb[k], CNT, MPI_INT, t->comm, &rq[nr++]));
        if (k % 4 == 1) {
            ones[k] = k;
            CHECK_MPI(MPI_Iallreduce(&ones[k], &sums[k], 1, MPI_INT, MPI_SUM, t->comm, &rq[nr++]));
        }
        if (k % 10 == 5) CHECK_MPI(MPI_Ibarrier(t->comm, &rq[nr++]));
    }
    CHECK_MPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    int csize;
    MPI_Comm_size(t->comm, &csize);
    for (int k = 0; k < NOUT; k++) {
        check_a2a(t, rb[k], 200 + k, k % 3 == 0, "outstanding");
        if (k % 4 == 1) CHECK(sums[k] == k * csize, "%s iallreduce %d = %d", t->name, k, sums[k]);
    }
    free(sb);
    free(rb);
}

static void run_all(topo_t* t)
{
    if (t->comm == MPI_COMM_NULL) return;
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    int dbg = getenv("NEIGHBOR_DEBUG") != NULL;
    topo_lists(t);
    if (dbg) fprintf(stderr, "[%d] %s: uniform\n", rank, t->name);
    test_uniform(t);
    if (dbg) fprintf(stderr, "[%d] %s: allgatherv\n", rank, t->name);
    test_allgatherv(t);
    if (dbg) fprintf(stderr, "[%d] %s: vw\n", rank, t->name);
    test_vw(t);
    if (dbg) fprintf(stderr, "[%d] %s: persistent\n", rank, t->name);
    test_persistent(t);
    if (dbg) fprintf(stderr, "[%d] %s: outstanding\n", rank, t->name);
    test_outstanding(t);
    free(t->all_out);
    free(t->all_nout);
    MPI_Comm_free(&t->comm);
}

static void cart(const char* name, int nd, const int* periods)
{
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, nd, dims);
    topo_t t = {.name = name};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t.comm));
    run_all(&t);
}

static void expect_class(int rc, int want, const char* what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

static void test_errors(void)
{
    int s[4] = {0}, r[4 * MAXD] = {0}, cnt[MAXD] = {0}, dis[MAXD] = {0};
    MPI_Aint bd[MAXD] = {0};
    MPI_Datatype ty[MAXD];
    for (int i = 0; i < MAXD; i++) ty[i] = MPI_INT;
    MPI_Request rq;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_class(MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY,
                 "alltoall without topology");
    expect_class(MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, &rq), MPI_ERR_TOPOLOGY,
                 "Ineighbor_allgather without topology");
    expect_class(MPI_Neighbor_alltoallw_init(s, cnt, bd, ty, r, cnt, bd, ty, MPI_COMM_WORLD, MPI_INFO_NULL, &rq),
                 MPI_ERR_TOPOLOGY, "alltoallw_init without topology");
    expect_class(MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM, "COMM_NULL");
    int dims[1] = {size}, per[1] = {1};
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    expect_class(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, c), MPI_ERR_BUFFER, "MPI_IN_PLACE");
    expect_class(MPI_Neighbor_allgather(s, -1, MPI_INT, r, 1, MPI_INT, c), MPI_ERR_COUNT, "count -1");
    expect_class(MPI_Neighbor_allgather(s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, c), MPI_ERR_TYPE, "DATATYPE_NULL");
    expect_class(MPI_Neighbor_alltoallv(s, NULL, dis, MPI_INT, r, cnt, dis, MPI_INT, c), MPI_ERR_ARG,
                 "alltoallv sendcounts NULL");
    cnt[1] = -2;
    expect_class(MPI_Ineighbor_alltoallv(s, cnt, dis, MPI_INT, r, cnt, dis, MPI_INT, c, &rq), MPI_ERR_COUNT,
                 "alltoallv count -2");
    cnt[1] = 0;
    ty[0] = MPI_DATATYPE_NULL;
    cnt[0] = 1;
    expect_class(MPI_Neighbor_alltoallw(s, cnt, bd, ty, r, cnt, bd, ty, c), MPI_ERR_TYPE, "alltoallw null type");
    expect_class(MPI_Neighbor_alltoall_init(s, 1, MPI_INT, r, 1, MPI_INT, c, MPI_INFO_NULL, NULL), MPI_ERR_ARG,
                 "alltoall_init NULL request");
    /* still working */
    int sb[2] = {rank, rank}, rb[2] = {-1, -1};
    CHECK_MPI(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c));
    CHECK(rb[0] == (rank + size - 1) % size && rb[1] == (rank + 1) % size, "after errors: %d %d", rb[0], rb[1]);
    MPI_Comm_free(&c);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &pair_t);
    MPI_Type_commit(&pair_t);

    int p1[1] = {1}, p0[1] = {0}, p10[2] = {1, 0}, p011[3] = {0, 1, 1}, p111[3] = {1, 1, 1}, p000[3] = {0, 0, 0};
    cart("cart1d-periodic", 1, p1);
    cart("cart1d", 1, p0);
    cart("cart2d-periodic-row", 2, p10);
    cart("cart3d-011", 3, p011);
    cart("cart3d-periodic", 3, p111);
    cart("cart3d-open", 3, p000);

    { /* graph with duplicate and self edges */
        int* index = malloc(sizeof(int) * (size_t)size);
        int* edges = malloc(sizeof(int) * (size_t)size * 5);
        int ne = 0;
        for (int r = 0; r < size; r++) {
            int nb[5] = {(r + 1) % size, (r + 1) % size, r, (r + size - 1) % size, (r + size - 1) % size};
            for (int k = 0; k < 5; k++) edges[ne++] = nb[k];
            index[r] = ne;
        }
        topo_t t = {.name = "graph"};
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t.comm));
        run_all(&t);
        free(index);
        free(edges);
    }
    { /* adjacent dist graph: out r+1, r+2, r, r+1 (in: the matching sources, in another order) */
        int out[4] = {(rank + 1) % size, (rank + 2) % size, rank, (rank + 1) % size};
        int in[4] = {(rank + size - 1) % size, rank, (rank + 2 * size - 2) % size, (rank + size - 1) % size};
        topo_t t = {.name = "dist-adjacent"};
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, in, MPI_UNWEIGHTED, 4, out, MPI_UNWEIGHTED,
                                                 MPI_INFO_NULL, 0, &t.comm));
        run_all(&t);
    }
    { /* star: every rank sends to 0 only; rank 0 receives from all, sends nothing; weighted */
        int in[MAXD], w[MAXD], zero = 0, one = 1;
        int nin = size > 1 ? size - 1 : 1;
        for (int r = 0; r < nin; r++) in[r] = size > 1 ? r + 1 : 0, w[r] = r;
        topo_t t = {.name = "dist-star"};
        if (rank == 0)
            CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, w, size > 1 ? 0 : 1, &zero,
                                                     size > 1 ? MPI_WEIGHTS_EMPTY : &one, MPI_INFO_NULL, 0, &t.comm));
        else
            CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 1, &zero, &one,
                                                     MPI_INFO_NULL, 0, &t.comm));
        run_all(&t);
    }
    { /* general dist graph: rank r gives r -> r+1, r -> r, r+2 -> r; rank 0 adds s -> 0 for all s */
        int srcs[2 + MAXD], degs[2 + MAXD], dsts[3 + MAXD], n = 0, ne = 0;
        srcs[n] = rank, degs[n++] = 2;
        dsts[ne++] = (rank + 1) % size;
        dsts[ne++] = rank;
        srcs[n] = (rank + 2) % size, degs[n++] = 1;
        dsts[ne++] = rank;
        if (rank == 0)
            for (int s = 0; s < size; s++) srcs[n] = s, degs[n++] = 1, dsts[ne++] = 0;
        topo_t t = {.name = "dist-general"};
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                        &t.comm));
        run_all(&t);
    }
    test_errors();
    MPI_Type_free(&pair_t);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
