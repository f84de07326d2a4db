/* Process topologies (MPI-4.1 chapter 8): every constructor and query checked against values
 * computed here, the topology kept by MPI_Comm_dup / MPI_Comm_idup, and every argument error
 * refused with its class while the library keeps working (MPI_ERRORS_RETURN). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are small made-up addresses (standard ABI): GCC warns. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

static void expect_class(int rc, int want, const char* what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

static int prod(const int* d, int n)
{
    int p = 1;
    for (int i = 0; i < n; i++) p *= d[i];
    return p;
}

static void test_dims_create(void)
{
    struct {
        int nnodes, ndims, in[3], out[3];
    } cases[] = {
        {6, 2, {0, 0}, {3, 2}},       {16, 3, {0, 0, 0}, {4, 2, 2}}, {7, 2, {0, 0}, {7, 1}},
        {12, 3, {0, 3, 0}, {2, 3, 2}}, {1, 3, {0, 0, 0}, {1, 1, 1}}, {24, 2, {0, 0}, {6, 4}},
        {8, 1, {0}, {8}},             {36, 2, {0, 0}, {6, 6}},       {30, 3, {0, 0, 0}, {5, 3, 2}},
        {4, 2, {4, 0}, {4, 1}},       {6, 2, {2, 3}, {2, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int d[3];
        memcpy(d, cases[k].in, sizeof d);
        CHECK_MPI(MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d));
        for (int i = 0; i < cases[k].ndims; i++)
            CHECK(d[i] == cases[k].out[i], "Dims_create(%d, %d) case %zu: dims[%d] = %d, expected %d",
                  cases[k].nnodes, cases[k].ndims, k, i, d[i], cases[k].out[i]);
    }
    CHECK_MPI(MPI_Dims_create(5, 0, NULL));
}

/* Local model of a Cartesian grid (row-major, last dimension fastest). */
static int model_rank(const int* dims, const int* periods, int nd, const int* coords)
{
    int r = 0;
    for (int i = 0; i < nd; i++) {
        int x = coords[i];
        if (x < 0 || x >= dims[i]) {
            if (!periods[i]) return MPI_PROC_NULL;
            x = ((x % dims[i]) + dims[i]) % dims[i];
        }
        r = r * dims[i] + x;
    }
    return r;
}
static void model_coords(const int* dims, int nd, int r, int* coords)
{
    for (int i = nd - 1; i >= 0; i--) {
        coords[i] = r % dims[i];
        r /= dims[i];
    }
}

static void test_cart(int nd, const int* periods, int shrink)
{
    int dims[3] = {0, 0, 0};
    int n = size > 1 && shrink ? size - 1 : size;
    MPI_Dims_create(n, nd, dims);
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
    if (rank >= n) {
        CHECK(cart == MPI_COMM_NULL, "Cart_create: rank %d outside the %d-process grid got a communicator", rank, n);
        return;
    }
    CHECK(cart != MPI_COMM_NULL, "Cart_create gave MPI_COMM_NULL");
    if (cart == MPI_COMM_NULL) return;
    int status, cr, cs, ndims;
    CHECK_MPI(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test %d, expected MPI_CART", status);
    MPI_Comm_rank(cart, &cr);
    MPI_Comm_size(cart, &cs);
    CHECK(cr == rank && cs == n, "cart rank/size %d/%d, expected %d/%d (no reorder)", cr, cs, rank, n);
    CHECK_MPI(MPI_Cartdim_get(cart, &ndims));
    CHECK(ndims == nd, "Cartdim_get %d, expected %d", ndims, nd);
    int gd[3], gp[3], gc[3], mc[3];
    CHECK_MPI(MPI_Cart_get(cart, 3, gd, gp, gc));
    model_coords(dims, nd, cr, mc);
    for (int i = 0; i < nd; i++)
        CHECK(gd[i] == dims[i] && gp[i] == (periods[i] != 0) && gc[i] == mc[i],
              "Cart_get dim %d: %d/%d/%d, expected %d/%d/%d", i, gd[i], gp[i], gc[i], dims[i], periods[i] != 0,
              mc[i]);
    for (int r = 0; r < n; r++) {
        int c[3], back = -1, rc[3];
        CHECK_MPI(MPI_Cart_coords(cart, r, nd, c));
        model_coords(dims, nd, r, rc);
        for (int i = 0; i < nd; i++) CHECK(c[i] == rc[i], "Cart_coords(%d)[%d] = %d, expected %d", r, i, c[i], rc[i]);
        CHECK_MPI(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
    }
    /* periodic wrap in Cart_rank */
    for (int i = 0; i < nd; i++) {
        if (!periods[i]) continue;
        int c[3];
        model_coords(dims, nd, cr, c);
        c[i] += 3 * dims[i];
        int got = -1;
        CHECK_MPI(MPI_Cart_rank(cart, c, &got));
        CHECK(got == cr, "Cart_rank with wrapped coordinate in dim %d: %d, expected %d", i, got, cr);
    }
    for (int d = 0; d < nd; d++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst, c[3];
            CHECK_MPI(MPI_Cart_shift(cart, d, disp, &src, &dst));
            model_coords(dims, nd, cr, c);
            c[d] += disp;
            int wd = model_rank(dims, periods, nd, c);
            c[d] -= 2 * disp;
            int ws = model_rank(dims, periods, nd, c);
            CHECK(src == ws && dst == wd, "Cart_shift(dim %d, disp %d) = %d/%d, expected %d/%d", d, disp, src, dst,
                  ws, wd);
        }
    int nr;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, nd, dims, periods, &nr));
    CHECK(nr == rank, "Cart_map %d, expected %d", nr, rank);
    /* Cart_sub: keep each dimension alone, then none */
    for (int keep = 0; keep < nd; keep++) {
        int remain[3] = {0, 0, 0};
        remain[keep] = 1;
        MPI_Comm sub;
        CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
        int ss, sr, sd;
        MPI_Comm_size(sub, &ss);
        MPI_Comm_rank(sub, &sr);
        CHECK(ss == dims[keep] && sr == mc[keep], "Cart_sub keep %d: size/rank %d/%d, expected %d/%d", keep, ss, sr,
              dims[keep], mc[keep]);
        CHECK_MPI(MPI_Cartdim_get(sub, &sd));
        int sdims[1], sper[1], scoord[1];
        CHECK_MPI(MPI_Cart_get(sub, 1, sdims, sper, scoord));
        CHECK(sd == 1 && sdims[0] == dims[keep] && sper[0] == (periods[keep] != 0) && scoord[0] == mc[keep],
              "Cart_sub keep %d: topology %d [%d] per %d coord %d", keep, sd, sdims[0], sper[0], scoord[0]);
        /* the sub-communicator works: sum of world ranks along the kept dimension */
        int sum = 0, want = 0;
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
        for (int x = 0; x < dims[keep]; x++) {
            int c[3];
            memcpy(c, mc, sizeof c);
            c[keep] = x;
            want += model_rank(dims, periods, nd, c);
        }
        CHECK(sum == want, "Cart_sub keep %d: allreduce %d, expected %d", keep, sum, want);
        MPI_Comm_free(&sub);
    }
    int none[3] = {0, 0, 0};
    MPI_Comm sub0;
    CHECK_MPI(MPI_Cart_sub(cart, none, &sub0));
    int s0, d0;
    MPI_Comm_size(sub0, &s0);
    CHECK_MPI(MPI_Cartdim_get(sub0, &d0));
    CHECK(s0 == 1 && d0 == 0, "Cart_sub keeping nothing: size %d ndims %d", s0, d0);
    MPI_Comm_free(&sub0);
    /* dup and idup keep the topology */
    MPI_Comm dup, idup;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_dup(cart, &dup));
    CHECK_MPI(MPI_Comm_idup(cart, &idup, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_Comm_free(&cart);
    MPI_Comm both[2] = {dup, idup};
    for (int k = 0; k < 2; k++) {
        CHECK_MPI(MPI_Topo_test(both[k], &status));
        CHECK(status == MPI_CART, "dup %d: Topo_test %d", k, status);
        CHECK_MPI(MPI_Cart_get(both[k], 3, gd, gp, gc));
        for (int i = 0; i < nd; i++)
            CHECK(gd[i] == dims[i] && gc[i] == mc[i], "dup %d: Cart_get dim %d %d/%d", k, i, gd[i], gc[i]);
        MPI_Comm_free(&both[k]);
    }
}

static void test_graph(void)
{
    /* ring with a self edge and a duplicated edge to the next rank; nodes = size - (size > 2) */
    int n = size > 2 ? size - 1 : size;
    int* index = malloc(sizeof(int) * (size_t)n);
    int* edges = malloc(sizeof(int) * (size_t)n * 5);
    int ne = 0;
    for (int r = 0; r < n; r++) {
        int nb[5] = {(r + 1) % n, (r + 1) % n, r, (r + n - 1) % n, (r + n - 1) % n};
        for (int k = 0; k < 5; k++) edges[ne++] = nb[k];
        index[r] = ne;
    }
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    int nr;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr));
    CHECK(nr == (rank < n ? rank : MPI_UNDEFINED), "Graph_map %d", nr);
    if (rank >= n) {
        CHECK(g == MPI_COMM_NULL, "Graph_create: rank %d outside the graph got a communicator", rank);
    } else {
        int status, nn, nedges;
        CHECK_MPI(MPI_Topo_test(g, &status));
        CHECK(status == MPI_GRAPH, "Topo_test %d, expected MPI_GRAPH", status);
        CHECK_MPI(MPI_Graphdims_get(g, &nn, &nedges));
        CHECK(nn == n && nedges == ne, "Graphdims_get %d/%d, expected %d/%d", nn, nedges, n, ne);
        int* gi = malloc(sizeof(int) * (size_t)n);
        int* ge = malloc(sizeof(int) * (size_t)ne);
        CHECK_MPI(MPI_Graph_get(g, n, ne, gi, ge));
        CHECK(memcmp(gi, index, sizeof(int) * (size_t)n) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
              "Graph_get differs from the graph given");
        for (int r = 0; r < n; r++) {
            int cnt, nb[8];
            CHECK_MPI(MPI_Graph_neighbors_count(g, r, &cnt));
            CHECK(cnt == 5, "Graph_neighbors_count(%d) = %d", r, cnt);
            CHECK_MPI(MPI_Graph_neighbors(g, r, 8, nb));
            for (int k = 0; k < 5; k++)
                CHECK(nb[k] == edges[5 * r + k], "Graph_neighbors(%d)[%d] = %d, expected %d", r, k, nb[k],
                      edges[5 * r + k]);
        }
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(g, &d));
        CHECK_MPI(MPI_Topo_test(d, &status));
        CHECK(status == MPI_GRAPH, "dup of a graph communicator: Topo_test %d", status);
        MPI_Comm_free(&d);
        MPI_Comm_free(&g);
        free(gi);
        free(ge);
    }
    free(index);
    free(edges);
}

static int cmp_pair(const void* a, const void* b)
{
    const int* x = a;
    const int* y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static void test_dist_graph(void)
{
    /* adjacent, weighted: out = r+1, r+2, r, r+1; in = r-1, r-2, r, r-1 */
    int out[4] = {(rank + 1) % size, (rank + 2) % size, rank, (rank + 1) % size};
    int in[4] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size, rank, (rank + size - 1) % size};
    int ow[4] = {1, 2, 3, 4}, iw[4] = {5, 6, 7, 8};
    MPI_Comm dg;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, in, iw, 4, out, ow, MPI_INFO_NULL, 0, &dg));
    int status, ind, outd, weighted;
    CHECK_MPI(MPI_Topo_test(dg, &status));
    CHECK(status == MPI_DIST_GRAPH, "Topo_test %d, expected MPI_DIST_GRAPH", status);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &ind, &outd, &weighted));
    CHECK(ind == 4 && outd == 4 && weighted, "neighbors_count %d/%d/%d", ind, outd, weighted);
    int gs[4], gsw[4], gd[4], gdw[4];
    CHECK_MPI(MPI_Dist_graph_neighbors(dg, 4, gs, gsw, 4, gd, gdw));
    for (int k = 0; k < 4; k++)
        CHECK(gs[k] == in[k] && gsw[k] == iw[k] && gd[k] == out[k] && gdw[k] == ow[k],
              "Dist_graph_neighbors[%d]: %d(%d) %d(%d)", k, gs[k], gsw[k], gd[k], gdw[k]);
    MPI_Comm dd;
    CHECK_MPI(MPI_Comm_dup(dg, &dd));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dd, &ind, &outd, &weighted));
    CHECK(ind == 4 && outd == 4 && weighted, "dup: neighbors_count %d/%d/%d", ind, outd, weighted);
    MPI_Comm_free(&dd);
    MPI_Comm_free(&dg);

    /* adjacent, unweighted, degree 0 on one side with MPI_WEIGHTS_EMPTY in a weighted one */
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in, MPI_UNWEIGHTED, 1, out, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &dg));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &ind, &outd, &weighted));
    CHECK(ind == 1 && outd == 1 && !weighted, "unweighted: neighbors_count %d/%d/%d", ind, outd, weighted);
    MPI_Comm_free(&dg);
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 1, out, ow, MPI_INFO_NULL,
                                             0, &dg));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &ind, &outd, &weighted));
    CHECK(ind == 0 && outd == 1 && weighted, "WEIGHTS_EMPTY: neighbors_count %d/%d/%d", ind, outd, weighted);
    MPI_Comm_free(&dg);

    /* general constructor: rank r gives edges r -> r+1 (weight), r+2 -> r, r -> r; rank 0 also
     * gives s -> 0 for every s. Every rank checks its in- and out-edges against the whole spec. */
    for (int w = 0; w < 2; w++) {
        int srcs[3] = {rank, (rank + 2) % size, 0};
        int degs[3] = {2, 1, 0};
        int dsts[3 + 64];
        int wts[3 + 64];
        int ne = 0;
        dsts[ne] = (rank + 1) % size, wts[ne] = 100 * rank + dsts[ne], ne++;
        dsts[ne] = rank, wts[ne] = 100 * rank + rank, ne++;
        dsts[ne] = rank, wts[ne] = 100 * ((rank + 2) % size) + rank, ne++;
        int nsrc = 2;
        if (rank == 0) {
            /* sources s = every rank, one edge each to 0: expressed as separate source entries */
            nsrc = 2;
        }
        MPI_Comm gen;
        if (rank == 0) {
            int s2[2 + 64], d2[2 + 64], w2[3 + 64], dg2[2 + 64];
            int k = 0, e = 0;
            s2[k] = srcs[0], dg2[k++] = 2;
            d2[e] = dsts[0], w2[e] = wts[0], e++;
            d2[e] = dsts[1], w2[e] = wts[1], e++;
            s2[k] = srcs[1], dg2[k++] = 1;
            d2[e] = dsts[2], w2[e] = wts[2], e++;
            for (int s = 0; s < size && s < 60; s++) {
                s2[k] = s, dg2[k++] = 1;
                d2[e] = 0, w2[e] = 100 * s, e++;
            }
            CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, k, s2, dg2, d2, w ? w2 : MPI_UNWEIGHTED, MPI_INFO_NULL,
                                            0, &gen));
        } else {
            CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts, w ? wts : MPI_UNWEIGHTED,
                                            MPI_INFO_NULL, 0, &gen));
        }
        /* expected edges: (peer, weight) pairs, sorted */
        int ein[256][2], eout[256][2], nin = 0, nout = 0;
        for (int r = 0; r < size; r++) {
            int es[3][3] = {{r, (r + 1) % size, 100 * r + (r + 1) % size},
                            {r, r, 100 * r + r},
                            {(r + 2) % size, r, 100 * ((r + 2) % size) + r}};
            for (int k = 0; k < 3; k++) {
                if (es[k][0] == rank) eout[nout][0] = es[k][1], eout[nout++][1] = es[k][2];
                if (es[k][1] == rank) ein[nin][0] = es[k][0], ein[nin++][1] = es[k][2];
            }
        }
        for (int s = 0; s < size && s < 60; s++) {
            if (s == rank) eout[nout][0] = 0, eout[nout++][1] = 100 * s;
            if (rank == 0) ein[nin][0] = s, ein[nin++][1] = 100 * s;
        }
        CHECK_MPI(MPI_Dist_graph_neighbors_count(gen, &ind, &outd, &weighted));
        CHECK(ind == nin && outd == nout && weighted == w, "general (weighted %d): counts %d/%d/%d, expected %d/%d",
              w, ind, outd, weighted, nin, nout);
        if (ind == nin && outd == nout) {
            int gsrc[256], gsw2[256], gdst[256], gdw2[256], got_in[256][2], got_out[256][2];
            CHECK_MPI(MPI_Dist_graph_neighbors(gen, nin, gsrc, gsw2, nout, gdst, gdw2));
            for (int k = 0; k < nin; k++) got_in[k][0] = gsrc[k], got_in[k][1] = w ? gsw2[k] : ein[k][1];
            for (int k = 0; k < nout; k++) got_out[k][0] = gdst[k], got_out[k][1] = w ? gdw2[k] : eout[k][1];
            if (!w) {
                for (int k = 0; k < nin; k++) got_in[k][1] = 0, ein[k][1] = 0;
                for (int k = 0; k < nout; k++) got_out[k][1] = 0, eout[k][1] = 0;
            }
            qsort(got_in, (size_t)nin, sizeof got_in[0], cmp_pair);
            qsort(ein, (size_t)nin, sizeof ein[0], cmp_pair);
            qsort(got_out, (size_t)nout, sizeof got_out[0], cmp_pair);
            qsort(eout, (size_t)nout, sizeof eout[0], cmp_pair);
            CHECK(memcmp(got_in, ein, sizeof(int) * 2 * (size_t)nin) == 0, "general (weighted %d): in-edges differ", w);
            CHECK(memcmp(got_out, eout, sizeof(int) * 2 * (size_t)nout) == 0, "general (weighted %d): out-edges differ",
                  w);
        }
        MPI_Comm_free(&gen);
    }
}

static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int d2[2] = {4, 0}, dneg[2] = {-1, 0}, per[3] = {0, 0, 0}, out = 0, c[3] = {0, 0, 0};
    expect_class(MPI_Dims_create(6, 2, d2), MPI_ERR_DIMS, "Dims_create fixed 4 does not divide 6");
    expect_class(MPI_Dims_create(6, -1, d2), MPI_ERR_DIMS, "Dims_create ndims -1");
    expect_class(MPI_Dims_create(6, 2, dneg), MPI_ERR_DIMS, "Dims_create dims[0] -1");
    expect_class(MPI_Dims_create(0, 2, d2), MPI_ERR_ARG, "Dims_create nnodes 0");
    MPI_Comm cm = MPI_COMM_NULL;
    int big[1] = {size + 1}, zero[1] = {0}, one[2] = {1, 1};
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, -1, one, per, 0, &cm), MPI_ERR_DIMS, "Cart_create ndims -1");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, per, 0, &cm), MPI_ERR_DIMS, "Cart_create dims 0");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, big, per, 0, &cm), MPI_ERR_ARG, "Cart_create too large");
    expect_class(MPI_Cart_create(MPI_COMM_NULL, 1, one, per, 0, &cm), MPI_ERR_COMM, "Cart_create COMM_NULL");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, one, per, 0, NULL), MPI_ERR_ARG, "Cart_create NULL out");
    expect_class(MPI_Cart_map(MPI_COMM_WORLD, 1, big, per, &out), MPI_ERR_ARG, "Cart_map too large");
    expect_class(MPI_Cart_rank(MPI_COMM_WORLD, c, &out), MPI_ERR_TOPOLOGY, "Cart_rank without topology");
    expect_class(MPI_Cartdim_get(MPI_COMM_WORLD, &out), MPI_ERR_TOPOLOGY, "Cartdim_get without topology");
    expect_class(MPI_Topo_test(MPI_COMM_NULL, &out), MPI_ERR_COMM, "Topo_test COMM_NULL");
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &out));
    CHECK(out == MPI_UNDEFINED, "Topo_test on MPI_COMM_WORLD: %d", out);

    int dims[1] = {size};
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart));
    c[0] = size;
    expect_class(MPI_Cart_rank(cart, c, &out), MPI_ERR_ARG, "Cart_rank out of range, non-periodic");
    c[0] = -1;
    expect_class(MPI_Cart_rank(cart, c, &out), MPI_ERR_ARG, "Cart_rank -1, non-periodic");
    expect_class(MPI_Cart_coords(cart, size, 1, c), MPI_ERR_RANK, "Cart_coords rank = size");
    expect_class(MPI_Cart_coords(cart, -1, 1, c), MPI_ERR_RANK, "Cart_coords rank -1");
    expect_class(MPI_Cart_coords(cart, 0, 0, c), MPI_ERR_ARG, "Cart_coords maxdims 0");
    expect_class(MPI_Cart_get(cart, 0, c, c, c), MPI_ERR_ARG, "Cart_get maxdims 0");
    int a, b;
    expect_class(MPI_Cart_shift(cart, 1, 1, &a, &b), MPI_ERR_ARG, "Cart_shift direction 1 of 1");
    expect_class(MPI_Cart_shift(cart, -1, 1, &a, &b), MPI_ERR_ARG, "Cart_shift direction -1");
    expect_class(MPI_Graphdims_get(cart, &a, &b), MPI_ERR_TOPOLOGY, "Graphdims_get on Cartesian");
    expect_class(MPI_Dist_graph_neighbors_count(cart, &a, &b, &out), MPI_ERR_TOPOLOGY,
                 "Dist_graph_neighbors_count on Cartesian");
    expect_class(MPI_Cart_sub(MPI_COMM_WORLD, c, &cm), MPI_ERR_TOPOLOGY, "Cart_sub without topology");

    int idx[2] = {1, 2}, edg[2] = {1, 0}, bad_idx[2] = {2, 1}, bad_edg[2] = {0, 7};
    expect_class(MPI_Graph_create(MPI_COMM_WORLD, size + 1, idx, edg, 0, &cm), MPI_ERR_ARG, "Graph_create nnodes > size");
    expect_class(MPI_Graph_create(MPI_COMM_WORLD, -1, idx, edg, 0, &cm), MPI_ERR_ARG, "Graph_create nnodes -1");
    if (size >= 2) {
        expect_class(MPI_Graph_create(MPI_COMM_WORLD, 2, bad_idx, edg, 0, &cm), MPI_ERR_ARG, "Graph_create index down");
        expect_class(MPI_Graph_create(MPI_COMM_WORLD, 2, idx, bad_edg, 0, &cm), MPI_ERR_ARG, "Graph_create edge 7");
        MPI_Comm g;
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 2, idx, edg, 0, &g));
        if (g != MPI_COMM_NULL) {
            int nb[2];
            expect_class(MPI_Graph_neighbors_count(g, 2, &a), MPI_ERR_RANK, "Graph_neighbors_count rank 2");
            expect_class(MPI_Graph_neighbors(g, -1, 2, nb), MPI_ERR_RANK, "Graph_neighbors rank -1");
            expect_class(MPI_Graph_neighbors(g, 0, 0, nb), MPI_ERR_ARG, "Graph_neighbors maxneighbors 0");
            expect_class(MPI_Graph_get(g, 1, 2, nb, nb), MPI_ERR_ARG, "Graph_get maxindex 1");
            expect_class(MPI_Cart_shift(g, 0, 1, &a, &b), MPI_ERR_TOPOLOGY, "Cart_shift on graph");
            MPI_Comm_free(&g);
        }
    }
    expect_class(MPI_Graph_map(MPI_COMM_WORLD, 0, idx, edg, &out), MPI_ERR_ARG, "Graph_map nnodes 0");

    int src[1] = {0}, w1[1] = {1}, badr[1] = {size}, negw[1] = {-2};
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, w1, 0, NULL, w1, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_ARG, "adjacent indegree -1");
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, badr, w1, 0, NULL, w1, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_RANK, "adjacent source = size");
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_WEIGHTS_EMPTY, 0, NULL,
                                                MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_ARG, "adjacent WEIGHTS_EMPTY with an edge");
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, src, w1, MPI_INFO_NULL, 0,
                                                &cm),
                 MPI_ERR_ARG, "adjacent mixed UNWEIGHTED");
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, negw, 0, NULL, w1, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_ARG, "adjacent negative weight");
    int deg1[1] = {1};
    expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg1, badr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_RANK, "general destination = size");
    expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, badr, deg1, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_RANK, "general source = size");
    expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, src, deg1, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_ARG, "general n -1");
    expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg1, src, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &cm),
                 MPI_ERR_ARG, "general WEIGHTS_EMPTY with an edge");
    MPI_Comm dg;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, src, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &dg));
    int s1[1], d1[1];
    expect_class(MPI_Dist_graph_neighbors(dg, 0, s1, MPI_UNWEIGHTED, 1, d1, MPI_UNWEIGHTED), MPI_ERR_ARG,
                 "Dist_graph_neighbors maxindegree 0");
    expect_class(MPI_Cart_coords(dg, 0, 1, c), MPI_ERR_TOPOLOGY, "Cart_coords on a dist graph");
    expect_class(MPI_Graph_neighbors_count(dg, 0, &a), MPI_ERR_TOPOLOGY, "Graph_neighbors_count on a dist graph");
    MPI_Comm_free(&dg);

    /* still working */
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cart));
    CHECK(sum == size * (size - 1) / 2, "allreduce after errors: %d", sum);
    MPI_Comm_free(&cart);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_dims_create();
    int p1[1] = {1}, p0[1] = {0}, p2[2] = {1, 0}, p3[3] = {0, 1, 1}, p3b[3] = {1, 1, 1};
    test_cart(1, p1, 0);
    test_cart(1, p0, 0);
    test_cart(1, p0, 1);
    test_cart(2, p2, 0);
    test_cart(2, p2, 1);
    test_cart(3, p3, 0);
    test_cart(3, p3b, 1);
    {
        /* ndims 0: one process */
        MPI_Comm c0;
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c0));
        CHECK((rank == 0) == (c0 != MPI_COMM_NULL), "0-dimensional Cart_create on rank %d", rank);
        if (c0 != MPI_COMM_NULL) {
            int nd = -1, s = 0;
            CHECK_MPI(MPI_Cartdim_get(c0, &nd));
            MPI_Comm_size(c0, &s);
            CHECK(nd == 0 && s == 1, "0-dimensional: ndims %d size %d", nd, s);
            MPI_Comm_free(&c0);
        }
    }
    test_graph();
    test_dist_graph();
    test_errors();
    (void)prod;
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
