/* Collectives on an intercommunicator (MPI-4.1 6.2.2): every collective MPI defines there, in its
 * blocking, nonblocking and persistent forms (the persistent ones started several times with
 * changing data), both groups as root (MPI_ROOT / MPI_PROC_NULL / the remote root), at roots that
 * are not local rank 0, derived datatypes, a non-commutative user op (2x2 matrix products, which
 * show the order of the contributing group), zero counts, several nonblocking collectives on the
 * intercommunicator and on intracommunicators outstanding at once, and large-count (_c) forms.
 *
 * Groups: world ranks with rank % 3 == 0 against the others, so the groups are unequal from 3
 * ranks on; each group's local rank 0 is its HIGHEST world rank (split key -rank), so no leader is
 * world rank 0 unless that group has one member. Every value is computed here from (group, local
 * rank, element, repetition) and checked against the same formula.
 */
#include <unistd.h>

#include "mpitest.h"

static int wrank, wsize, color, lrank, lsize, rsize;
static MPI_Comm inter = MPI_COMM_NULL, local = MPI_COMM_NULL;

/* Element k contributed by local rank i of group g at repetition rep. */
static int val(int g, int i, int k, int rep) { return g * 100000 + i * 1000 + k * 7 + rep * 13; }

/* The root argument for a rooted collective whose root is local rank `pos` (0 or the last) of group rg. */
static int root_arg(int rg, int last)
{
    if (color == rg) {
        const int r = last ? lsize - 1 : 0;
        return lrank == r ? MPI_ROOT : MPI_PROC_NULL;
    }
    return last ? rsize - 1 : 0;
}

/* Runs one collective call in `mode`: 0 blocking, 1 nonblocking + wait, 2 persistent (init at rep 0,
 * then start + wait). */
#define RUN3(mode, req, rep, BLK, NB, INIT)                                                        \
    do {                                                                                           \
        if ((mode) == 0) {                                                                         \
            CHECK_MPI(BLK);                                                                        \
        } else if ((mode) == 1) {                                                                  \
            CHECK_MPI(NB);                                                                         \
            CHECK_MPI(MPI_Wait(&(req), MPI_STATUS_IGNORE));                                        \
        } else {                                                                                   \
            if ((rep) == 0) CHECK_MPI(INIT);                                                       \
            CHECK_MPI(MPI_Start(&(req)));                                                          \
            CHECK_MPI(MPI_Wait(&(req), MPI_STATUS_IGNORE));                                        \
        }                                                                                          \
    } while (0)
#define DONE3(mode, req)                                                                           \
    do {                                                                                           \
        if ((mode) == 2) CHECK_MPI(MPI_Request_free(&(req)));                                      \
    } while (0)
#define NREP 3
static const char* mode_name[] = {"blocking", "nonblocking", "persistent"};

/* ---- 2x2 integer matrices: an associative, non-commutative op ---- */
typedef struct {
    int m[4];
} mat;
static MPI_Datatype mat_type;
static MPI_Op mat_op;
static void mat_mul(const mat* x, const mat* y, mat* out)
{
    mat r;
    r.m[0] = x->m[0] * y->m[0] + x->m[1] * y->m[2];
    r.m[1] = x->m[0] * y->m[1] + x->m[1] * y->m[3];
    r.m[2] = x->m[2] * y->m[0] + x->m[3] * y->m[2];
    r.m[3] = x->m[2] * y->m[1] + x->m[3] * y->m[3];
    *out = r;
}
/* inout = in * inout (in holds the lower ranks' part) */
static void mat_fn(void* in, void* inout, int* len, MPI_Datatype* dt)
{
    (void)dt;
    for (int i = 0; i < *len; ++i) mat_mul((mat*)in + i, (mat*)inout + i, (mat*)inout + i);
}
/* The matrix local rank i of group g contributes as element e at repetition rep. */
static mat mat_of(int g, int i, int e, int rep)
{
    mat r;
    r.m[0] = (i + e + rep) % 3 + 1;
    r.m[1] = 1;
    r.m[2] = (i + g + e) % 2;
    r.m[3] = 1;
    return r;
}
/* The product over the n ranks of group g, in rank order. */
static mat mat_prod(int g, int n, int e, int rep)
{
    mat r = mat_of(g, 0, e, rep);
    for (int i = 1; i < n; ++i) {
        mat x = mat_of(g, i, e, rep);
        mat_mul(&r, &x, &r);
    }
    return r;
}
static int mat_eq(const mat* x, const mat* y) { return memcmp(x, y, sizeof *x) == 0; }

/* ---- barrier: no process leaves before every remote process has entered ---- */
static void test_barrier(int mode)
{
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < NREP; ++rep) {
        /* Rep 1: the last process of group 1 enters 100 ms late; group 0 must wait for it. */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        const int late = rep == 1 && color == 1 && lrank == lsize - 1;
        if (late) usleep(100000);
        const double t0 = MPI_Wtime();
        RUN3(mode, req, rep, MPI_Barrier(inter), MPI_Ibarrier(inter, &req), MPI_Barrier_init(inter, MPI_INFO_NULL, &req));
        const double dt = MPI_Wtime() - t0;
        if (rep == 1 && color == 0)
            CHECK(dt > 0.05, "%s barrier: group 0 left after %.3f s, before the late remote process entered",
                  mode_name[mode], dt);
    }
    DONE3(mode, req);
}

/* ---- bcast: a vector type (every other int) at the root, plain ints elsewhere ---- */
static void test_bcast(int mode)
{
    MPI_Datatype strided;
    CHECK_MPI(MPI_Type_vector(5, 1, 2, MPI_INT, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    for (int rg = 0; rg < 2; ++rg)
        for (int last = 0; last < 2; ++last) {
            const int root = root_arg(rg, last), rootrank = last ? (color == rg ? lsize : rsize) - 1 : 0;
            int buf[10];
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < NREP; ++rep) {
                for (int k = 0; k < 10; ++k) buf[k] = root == MPI_ROOT ? val(rg, rootrank, k / 2, rep) : -1;
                if (root == MPI_ROOT)
                    RUN3(mode, req, rep, MPI_Bcast(buf, 1, strided, root, inter),
                         MPI_Ibcast(buf, 1, strided, root, inter, &req),
                         MPI_Bcast_init(buf, 1, strided, root, inter, MPI_INFO_NULL, &req));
                else
                    RUN3(mode, req, rep, MPI_Bcast(buf, 5, MPI_INT, root, inter),
                         MPI_Ibcast(buf, 5, MPI_INT, root, inter, &req),
                         MPI_Bcast_init(buf, 5, MPI_INT, root, inter, MPI_INFO_NULL, &req));
                for (int k = 0; k < 10; ++k) {
                    int want = -1;
                    if (root == MPI_ROOT) want = val(rg, rootrank, k / 2, rep);
                    else if (root != MPI_PROC_NULL && k < 5) want = val(rg, rootrank, k, rep);
                    CHECK(buf[k] == want, "%s bcast rg %d last %d rep %d: buf[%d] = %d, expected %d", mode_name[mode],
                          rg, last, rep, k, buf[k], want);
                }
            }
            DONE3(mode, req);
        }
    /* zero count, and the large-count form */
    int x = 42;
    CHECK_MPI(MPI_Bcast(&x, 0, MPI_INT, root_arg(0, 1), inter));
    CHECK(x == 42, "zero-count bcast changed the buffer to %d", x);
    x = color == 1 && lrank == 0 ? 4711 : -1;
    CHECK_MPI(MPI_Bcast_c(&x, 1, MPI_INT, root_arg(1, 0), inter));
    CHECK(x == (color == 0 ? 4711 : lrank == 0 ? 4711 : -1), "MPI_Bcast_c: got %d", x);
    CHECK_MPI(MPI_Type_free(&strided));
}

/* ---- gather, gatherv ---- */
static void test_gather(int mode, int vector)
{
    for (int rg = 0; rg < 2; ++rg)
        for (int last = 0; last < 2; ++last) {
            const int root = root_arg(rg, last);
            const int n = rsize;  /* the root receives one block per remote process */
            int sbuf[3], rbuf[64], counts[16], displs[16];
            for (int j = 0; j < n; ++j) {
                counts[j] = vector ? j % 3 : 3;
                displs[j] = vector ? 4 * j + 1 : 3 * j;
            }
            const int mycount = vector ? lrank % 3 : 3;
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < NREP; ++rep) {
                for (int k = 0; k < 3; ++k) sbuf[k] = val(color, lrank, k, rep);
                for (int k = 0; k < 64; ++k) rbuf[k] = -1;
                if (!vector)
                    RUN3(mode, req, rep, MPI_Gather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, root, inter),
                         MPI_Igather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, root, inter, &req),
                         MPI_Gather_init(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, root, inter, MPI_INFO_NULL, &req));
                else
                    RUN3(mode, req, rep, MPI_Gatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter),
                         MPI_Igatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter, &req),
                         MPI_Gatherv_init(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, root, inter,
                                          MPI_INFO_NULL, &req));
                int want[64];
                for (int k = 0; k < 64; ++k) want[k] = -1;
                if (root == MPI_ROOT)
                    for (int j = 0; j < n; ++j)
                        for (int k = 0; k < counts[j]; ++k) want[displs[j] + k] = val(1 - color, j, k, rep);
                for (int k = 0; k < 64; ++k)
                    CHECK(rbuf[k] == want[k], "%s gather%s rg %d last %d rep %d: rbuf[%d] = %d, expected %d",
                          mode_name[mode], vector ? "v" : "", rg, last, rep, k, rbuf[k], want[k]);
            }
            DONE3(mode, req);
        }
}

/* ---- scatter, scatterv ---- */
static void test_scatter(int mode, int vector)
{
    for (int rg = 0; rg < 2; ++rg)
        for (int last = 0; last < 2; ++last) {
            const int root = root_arg(rg, last), rootrank = last ? (color == rg ? lsize : rsize) - 1 : 0;
            const int n = rsize;
            int sbuf[64], rbuf[4], counts[16], displs[16];
            for (int j = 0; j < n; ++j) {
                counts[j] = vector ? (j + 1) % 3 : 2;
                displs[j] = vector ? 3 * (n - 1 - j) : 2 * j; /* blocks in reverse order */
            }
            const int mycount = vector ? (lrank + 1) % 3 : 2;
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < NREP; ++rep) {
                for (int k = 0; k < 64; ++k) sbuf[k] = -2;
                if (root == MPI_ROOT)
                    for (int j = 0; j < n; ++j)
                        for (int k = 0; k < counts[j]; ++k) sbuf[displs[j] + k] = val(rg, j, k, rep);
                for (int k = 0; k < 4; ++k) rbuf[k] = -1;
                if (!vector)
                    RUN3(mode, req, rep, MPI_Scatter(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, root, inter),
                         MPI_Iscatter(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, root, inter, &req),
                         MPI_Scatter_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, root, inter, MPI_INFO_NULL, &req));
                else
                    RUN3(mode, req, rep, MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter),
                         MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter, &req),
                         MPI_Scatterv_init(sbuf, counts, displs, MPI_INT, rbuf, mycount, MPI_INT, root, inter,
                                           MPI_INFO_NULL, &req));
                (void)rootrank;
                for (int k = 0; k < 4; ++k) {
                    int want = -1;
                    if (root >= 0 && k < mycount) want = val(rg, lrank, k, rep);
                    CHECK(rbuf[k] == want, "%s scatter%s rg %d last %d rep %d: rbuf[%d] = %d, expected %d",
                          mode_name[mode], vector ? "v" : "", rg, last, rep, k, rbuf[k], want);
                }
            }
            DONE3(mode, req);
        }
}

/* ---- allgather, allgatherv: each group receives the remote group's blocks ---- */
static void test_allgather(int mode, int vector)
{
    int sbuf[3], rbuf[64], counts[16], displs[16];
    for (int j = 0; j < rsize; ++j) {
        counts[j] = vector ? (j + color) % 3 : 2;
        displs[j] = vector ? 3 * j + 1 : 2 * j;
    }
    const int mycount = vector ? (lrank + (1 - color)) % 3 : 2;
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < NREP; ++rep) {
        for (int k = 0; k < 3; ++k) sbuf[k] = val(color, lrank, k, rep);
        for (int k = 0; k < 64; ++k) rbuf[k] = -1;
        if (!vector)
            RUN3(mode, req, rep, MPI_Allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter),
                 MPI_Iallgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, &req),
                 MPI_Allgather_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, MPI_INFO_NULL, &req));
        else
            RUN3(mode, req, rep, MPI_Allgatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, inter),
                 MPI_Iallgatherv(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, inter, &req),
                 MPI_Allgatherv_init(sbuf, mycount, MPI_INT, rbuf, counts, displs, MPI_INT, inter, MPI_INFO_NULL,
                                     &req));
        int want[64];
        for (int k = 0; k < 64; ++k) want[k] = -1;
        for (int j = 0; j < rsize; ++j)
            for (int k = 0; k < counts[j]; ++k) want[displs[j] + k] = val(1 - color, j, k, rep);
        for (int k = 0; k < 64; ++k)
            CHECK(rbuf[k] == want[k], "%s allgather%s rep %d: rbuf[%d] = %d, expected %d", mode_name[mode],
                  vector ? "v" : "", rep, k, rbuf[k], want[k]);
    }
    DONE3(mode, req);
}

/* ---- alltoall, alltoallv, alltoallw ---- */
/* The value local rank i of group g sends to remote rank j, element k. */
static int a2a_val(int g, int i, int j, int k, int rep) { return val(g, i, j * 10 + k, rep); }
static void test_alltoall(int mode, int form)
{
    int sbuf[128], rbuf[128];
    int scounts[16], sdispls[16], rcounts[16], rdispls[16];
    MPI_Datatype stypes[16], rtypes[16], pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    for (int j = 0; j < rsize; ++j) {
        /* alltoall: 2 each; v: (i + j) % 3 (sender's i = lrank, receiver's j = remote rank);
         * w: 2 ints sent as MPI_INT, received as one `pair`, byte displacements */
        scounts[j] = form == 1 ? (lrank + j) % 3 : 2;
        rcounts[j] = form == 1 ? (j + lrank) % 3 : form == 2 ? 1 : 2;
        sdispls[j] = form == 1 ? 3 * j : 2 * j;
        rdispls[j] = form == 1 ? 3 * (rsize - 1 - j) : 2 * j;
        if (form == 2) {
            sdispls[j] *= (int)sizeof(int);
            rdispls[j] *= (int)sizeof(int);
        }
        stypes[j] = MPI_INT;
        rtypes[j] = pair;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < NREP; ++rep) {
        for (int k = 0; k < 128; ++k) sbuf[k] = rbuf[k] = -1;
        for (int j = 0; j < rsize; ++j)
            for (int k = 0; k < scounts[j]; ++k) sbuf[(form == 1 ? 3 : 2) * j + k] = a2a_val(color, lrank, j, k, rep);
        if (form == 0)
            RUN3(mode, req, rep, MPI_Alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter),
                 MPI_Ialltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, &req),
                 MPI_Alltoall_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, inter, MPI_INFO_NULL, &req));
        else if (form == 1)
            RUN3(mode, req, rep, MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, inter),
                 MPI_Ialltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, inter, &req),
                 MPI_Alltoallv_init(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, inter,
                                    MPI_INFO_NULL, &req));
        else
            RUN3(mode, req, rep, MPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, inter),
                 MPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, inter, &req),
                 MPI_Alltoallw_init(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, inter,
                                    MPI_INFO_NULL, &req));
        int want[128];
        for (int k = 0; k < 128; ++k) want[k] = -1;
        for (int j = 0; j < rsize; ++j) {
            const int n = form == 1 ? (j + lrank) % 3 : 2;
            const int at = form == 1 ? rdispls[j] : 2 * j;
            for (int k = 0; k < n; ++k) want[at + k] = a2a_val(1 - color, j, lrank, k, rep);
        }
        for (int k = 0; k < 128; ++k)
            CHECK(rbuf[k] == want[k], "%s alltoall form %d rep %d: rbuf[%d] = %d, expected %d", mode_name[mode], form,
                  rep, k, rbuf[k], want[k]);
    }
    DONE3(mode, req);
    CHECK_MPI(MPI_Type_free(&pair));
}

/* ---- reduce, allreduce: the non-commutative matrix product, in the remote group's rank order ---- */
static void test_reduce(int mode)
{
    for (int rg = 0; rg < 2; ++rg)
        for (int last = 0; last < 2; ++last) {
            const int root = root_arg(rg, last);
            mat s[2], r[2];
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < NREP; ++rep) {
                for (int e = 0; e < 2; ++e) {
                    s[e] = mat_of(color, lrank, e, rep);
                    memset(&r[e], 0xff, sizeof r[e]);
                }
                RUN3(mode, req, rep, MPI_Reduce(s, r, 2, mat_type, mat_op, root, inter),
                     MPI_Ireduce(s, r, 2, mat_type, mat_op, root, inter, &req),
                     MPI_Reduce_init(s, r, 2, mat_type, mat_op, root, inter, MPI_INFO_NULL, &req));
                for (int e = 0; e < 2; ++e) {
                    mat want;
                    if (root == MPI_ROOT) want = mat_prod(1 - color, rsize, e, rep);
                    else memset(&want, 0xff, sizeof want);
                    CHECK(mat_eq(&r[e], &want), "%s reduce rg %d last %d rep %d elem %d: [%d %d %d %d], expected [%d %d %d %d]",
                          mode_name[mode], rg, last, rep, e, r[e].m[0], r[e].m[1], r[e].m[2], r[e].m[3], want.m[0],
                          want.m[1], want.m[2], want.m[3]);
                }
            }
            DONE3(mode, req);
        }
    /* MPI_SUM, zero count */
    int x = 5, y = -1;
    CHECK_MPI(MPI_Reduce(&x, &y, 0, MPI_INT, MPI_SUM, root_arg(1, 1), inter));
    CHECK(y == -1, "zero-count reduce wrote %d", y);
}

static void test_allreduce(int mode)
{
    mat s[3], r[3];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < NREP; ++rep) {
        for (int e = 0; e < 3; ++e) {
            s[e] = mat_of(color, lrank, e, rep);
            memset(&r[e], 0xff, sizeof r[e]);
        }
        RUN3(mode, req, rep, MPI_Allreduce(s, r, 3, mat_type, mat_op, inter),
             MPI_Iallreduce(s, r, 3, mat_type, mat_op, inter, &req),
             MPI_Allreduce_init_c(s, r, 3, mat_type, mat_op, inter, MPI_INFO_NULL, &req));
        for (int e = 0; e < 3; ++e) {
            mat want = mat_prod(1 - color, rsize, e, rep);
            CHECK(mat_eq(&r[e], &want), "%s allreduce rep %d elem %d: [%d %d %d %d], expected [%d %d %d %d]",
                  mode_name[mode], rep, e, r[e].m[0], r[e].m[1], r[e].m[2], r[e].m[3], want.m[0], want.m[1],
                  want.m[2], want.m[3]);
        }
    }
    DONE3(mode, req);
    /* MPI_SUM on ints: the remote group's sum */
    int x = val(color, lrank, 0, 0), y = -1, want = 0;
    for (int j = 0; j < rsize; ++j) want += val(1 - color, j, 0, 0);
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter));
    CHECK(y == want, "allreduce sum: %d, expected %d", y, want);
}

/* ---- reduce_scatter_block, reduce_scatter: the remote group's reduced vector, scattered here.
 * Both groups' vectors have lsize * rsize elements. ---- */
static void test_reduce_scatter(int mode, int block)
{
    const int total = lsize * rsize;
    int counts[16], first[17];
    first[0] = 0;
    for (int i = 0; i < lsize; ++i) {
        counts[i] = block ? rsize : i == lsize - 1 ? total - first[i] : (i % 2 ? rsize + 1 : rsize - 1);
        first[i + 1] = first[i] + counts[i];
    }
    mat* s = malloc(sizeof(mat) * (size_t)total);
    mat r[16];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < NREP; ++rep) {
        for (int e = 0; e < total; ++e) s[e] = mat_of(color, lrank, e, rep);
        memset(r, 0xff, sizeof r);
        if (block)
            RUN3(mode, req, rep, MPI_Reduce_scatter_block(s, r, rsize, mat_type, mat_op, inter),
                 MPI_Ireduce_scatter_block(s, r, rsize, mat_type, mat_op, inter, &req),
                 MPI_Reduce_scatter_block_init(s, r, rsize, mat_type, mat_op, inter, MPI_INFO_NULL, &req));
        else
            RUN3(mode, req, rep, MPI_Reduce_scatter(s, r, counts, mat_type, mat_op, inter),
                 MPI_Ireduce_scatter(s, r, counts, mat_type, mat_op, inter, &req),
                 MPI_Reduce_scatter_init(s, r, counts, mat_type, mat_op, inter, MPI_INFO_NULL, &req));
        for (int k = 0; k < 16; ++k) {
            mat want;
            if (k < counts[lrank]) want = mat_prod(1 - color, rsize, first[lrank] + k, rep);
            else memset(&want, 0xff, sizeof want);
            CHECK(mat_eq(&r[k], &want), "%s reduce_scatter%s rep %d: elem %d is [%d %d %d %d], expected [%d %d %d %d]",
                  mode_name[mode], block ? "_block" : "", rep, k, r[k].m[0], r[k].m[1], r[k].m[2], r[k].m[3],
                  want.m[0], want.m[1], want.m[2], want.m[3]);
        }
    }
    DONE3(mode, req);
    free(s);
}

/* ---- several nonblocking collectives outstanding at once, on the intercommunicator and on
 * intracommunicators, completed in reverse order ---- */
static void test_outstanding(void)
{
    int b = color == 1 && lrank == lsize - 1 ? 99 : -1;
    int x = lrank + 1, sum = -1, lsum = -1, ag[32], a2s[32], a2r[32];
    int wsum = -1, one = 1;
    MPI_Request reqs[6];
    for (int j = 0; j < rsize; ++j) a2s[j] = val(color, lrank, j, 0);
    CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, root_arg(1, 1), inter, &reqs[0]));
    CHECK_MPI(MPI_Iallreduce(&x, &lsum, 1, MPI_INT, MPI_SUM, local, &reqs[1]));
    CHECK_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, inter, &reqs[2]));
    CHECK_MPI(MPI_Iallgather(&x, 1, MPI_INT, ag, 1, MPI_INT, inter, &reqs[3]));
    CHECK_MPI(MPI_Iallreduce(&one, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[4]));
    CHECK_MPI(MPI_Ialltoall(a2s, 1, MPI_INT, a2r, 1, MPI_INT, inter, &reqs[5]));
    for (int i = 5; i >= 0; --i) CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    CHECK(b == (color == 0 ? 99 : lrank == lsize - 1 ? 99 : -1), "outstanding ibcast: %d", b);
    CHECK(lsum == lsize * (lsize + 1) / 2, "outstanding local iallreduce: %d", lsum);
    CHECK(sum == rsize * (rsize + 1) / 2, "outstanding inter iallreduce: %d, expected %d", sum, rsize * (rsize + 1) / 2);
    for (int j = 0; j < rsize; ++j) {
        CHECK(ag[j] == j + 1, "outstanding iallgather: ag[%d] = %d", j, ag[j]);
        CHECK(a2r[j] == val(1 - color, j, lrank, 0), "outstanding ialltoall: a2r[%d] = %d", j, a2r[j]);
    }
    CHECK(wsum == wsize, "outstanding world iallreduce: %d", wsum);
}

/* ---- large-count forms of the vector collectives ---- */
static void test_large_count(void)
{
    MPI_Count counts[16];
    MPI_Aint displs[16];
    int sbuf[2] = {val(color, lrank, 0, 5), val(color, lrank, 1, 5)}, rbuf[32];
    for (int j = 0; j < rsize; ++j) {
        counts[j] = 2;
        displs[j] = 2 * j;
    }
    for (int k = 0; k < 32; ++k) rbuf[k] = -1;
    CHECK_MPI(MPI_Allgatherv_c(sbuf, 2, MPI_INT, rbuf, counts, displs, MPI_INT, inter));
    for (int j = 0; j < rsize; ++j)
        for (int k = 0; k < 2; ++k)
            CHECK(rbuf[2 * j + k] == val(1 - color, j, k, 5), "MPI_Allgatherv_c: rbuf[%d] = %d", 2 * j + k,
                  rbuf[2 * j + k]);
    MPI_Count rcounts[16];
    for (int i = 0; i < lsize; ++i) rcounts[i] = rsize;
    int* s = malloc(sizeof(int) * (size_t)(lsize * rsize));
    for (int e = 0; e < lsize * rsize; ++e) s[e] = e + lrank;
    int r[16];
    CHECK_MPI(MPI_Reduce_scatter_c(s, r, rcounts, MPI_INT, MPI_SUM, inter));
    for (int k = 0; k < rsize; ++k) {
        const int e = lrank * rsize + k;
        const int want = rsize * e + rsize * (rsize - 1) / 2;
        CHECK(r[k] == want, "MPI_Reduce_scatter_c: r[%d] = %d, expected %d", k, r[k], want);
    }
    free(s);
}

/* ---- larger messages (past the eager limit) and a duplicated intercommunicator ---- */
static void test_large(void)
{
    const int n = 1 << 17; /* 512 KiB of ints */
    int* buf = malloc(sizeof(int) * (size_t)n);
    int* out = malloc(sizeof(int) * (size_t)n);
    const int root = root_arg(0, 1);
    for (int k = 0; k < n; ++k) buf[k] = root == MPI_ROOT ? k ^ 0x5a5a : -1;
    CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, inter));
    int bad = 0;
    for (int k = 0; k < n; ++k) bad += buf[k] != (root == MPI_PROC_NULL ? -1 : k ^ 0x5a5a);
    CHECK(bad == 0, "large bcast: %d elements wrong", bad);
    for (int k = 0; k < n; ++k) buf[k] = k + lrank;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(inter, &dup));
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(buf, out, n, MPI_INT, MPI_SUM, dup, &req));
    CHECK_MPI(MPI_Barrier(inter));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    bad = 0;
    for (int k = 0; k < n; ++k) bad += out[k] != rsize * k + rsize * (rsize - 1) / 2;
    CHECK(bad == 0, "large allreduce on a duplicate: %d elements wrong", bad);
    /* alltoall with blocks of n / 16 ints */
    const int blk = n / 16;
    for (int j = 0; j < rsize; ++j)
        for (int k = 0; k < blk; ++k) buf[j * blk + k] = a2a_val(color, lrank, j, k % 5, 0);
    CHECK_MPI(MPI_Alltoall(buf, blk, MPI_INT, out, blk, MPI_INT, dup));
    bad = 0;
    for (int j = 0; j < rsize; ++j)
        for (int k = 0; k < blk; ++k) bad += out[j * blk + k] != a2a_val(1 - color, j, lrank, k % 5, 0);
    CHECK(bad == 0, "large alltoall: %d elements wrong", bad);
    CHECK_MPI(MPI_Comm_free(&dup));
    free(buf);
    free(out);
}

/* ---- errors (MPI_ERRORS_RETURN): bad roots, MPI_IN_PLACE, scan/exscan; the library keeps working ---- */
static void expect_class(int rc, int cls, const char* what)
{
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}
static void still_works(const char* after)
{
    int x = 1, y = -1;
    CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter));
    CHECK(y == rsize, "allreduce after %s: %d, expected %d", after, y, rsize);
}
static void test_errors(void)
{
    CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int buf[4] = {0, 0, 0, 0}, out[64];
    MPI_Request req;
    expect_class(MPI_Bcast(buf, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT, "bcast root = remote size");
    still_works("bcast with a bad root");
    expect_class(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, -7, inter), MPI_ERR_ROOT, "reduce root = -7");
    expect_class(MPI_Igather(buf, 1, MPI_INT, out, 1, MPI_INT, rsize + 3, inter, &req), MPI_ERR_ROOT,
                 "igather root past the remote group");
    still_works("gather with a bad root");
    expect_class(MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER, "allreduce in place");
    expect_class(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, inter), MPI_ERR_BUFFER, "alltoall in place");
    expect_class(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, inter), MPI_ERR_BUFFER,
                 "allgather in place");
    expect_class(MPI_Reduce_scatter_block(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER,
                 "reduce_scatter_block in place");
    expect_class(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, root_arg(0, 0), inter), MPI_ERR_BUFFER,
                 "gather in place");
    still_works("MPI_IN_PLACE refusals");
    expect_class(MPI_Scan(buf, out, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM, "scan on an intercommunicator");
    expect_class(MPI_Exscan(buf, out, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM, "exscan on an intercommunicator");
    expect_class(MPI_Iscan(buf, out, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_COMM, "iscan on an intercommunicator");
    expect_class(MPI_Scan_init(buf, out, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req), MPI_ERR_COMM,
                 "scan_init on an intercommunicator");
    still_works("scan refusals");
    /* A persistent operation's info may name only an intercommunicator algorithm here. */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "binomial"));
    req = MPI_REQUEST_NULL;
    expect_class(MPI_Bcast_init(buf, 1, MPI_INT, root_arg(1, 0), inter, info, &req), MPI_ERR_INFO_VALUE,
                 "bcast_init naming an intracommunicator algorithm");
    CHECK(req == MPI_REQUEST_NULL, "a refused init set the request");
    still_works("an intracommunicator algorithm named in info");
    CHECK_MPI(MPI_Info_set(info, "baton_algorithm", "inter_binomial"));
    buf[0] = color == 1 && lrank == 0 ? 31 : -1;
    CHECK_MPI(MPI_Bcast_init(buf, 1, MPI_INT, root_arg(1, 0), inter, info, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(buf[0] == (color == 0 || lrank == 0 ? 31 : -1), "bcast_init with inter_binomial: %d", buf[0]);
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        int rc = mpitest_finish();
        MPI_Finalize();
        return rc;
    }

    color = wrank % 3 == 0 ? 0 : 1;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &local));
    int remote_leader = -1;
    for (int r = 0; r < wsize; ++r)
        if ((r % 3 == 0 ? 0 : 1) != color) remote_leader = r; /* the highest: local rank 0 there */
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 77, &inter));
    CHECK_MPI(MPI_Comm_rank(inter, &lrank));
    CHECK_MPI(MPI_Comm_size(inter, &lsize));
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    int expect_l = 0;
    for (int r = 0; r < wsize; ++r) expect_l += (r % 3 == 0 ? 0 : 1) == color;
    CHECK(lsize == expect_l && rsize == wsize - expect_l, "group sizes %d/%d", lsize, rsize);

    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat_type));
    CHECK_MPI(MPI_Type_commit(&mat_type));
    CHECK_MPI(MPI_Op_create(mat_fn, 0, &mat_op));

    for (int mode = 0; mode < 3; ++mode) {
        test_barrier(mode);
        test_bcast(mode);
        test_gather(mode, 0);
        test_gather(mode, 1);
        test_scatter(mode, 0);
        test_scatter(mode, 1);
        test_allgather(mode, 0);
        test_allgather(mode, 1);
        test_alltoall(mode, 0);
        test_alltoall(mode, 1);
        test_alltoall(mode, 2);
        test_reduce(mode);
        test_allreduce(mode);
        test_reduce_scatter(mode, 1);
        test_reduce_scatter(mode, 0);
    }
    test_outstanding();
    test_large_count();
    test_large();
    test_errors();

    CHECK_MPI(MPI_Op_free(&mat_op));
    CHECK_MPI(MPI_Type_free(&mat_type));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
