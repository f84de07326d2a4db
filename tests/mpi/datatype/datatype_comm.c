/* Non-contiguous datatypes on the wire: vector, indexed, struct and subarray messages around a ring
 * (rank r sends to r+1; with one rank that is a self-send) and to self, small (eager) and above
 * 1 MB (rendezvous), received with the same type, with MPI_PACKED, with the matching contiguous
 * basic type, and sent as MPI_PACKED to a typed receive. Receive buffers start filled with a
 * sentinel: exactly the bytes of the type map must change. A datatype freed right after
 * MPI_Isend/MPI_Irecv (before the wait), or after MPI_Send_init/MPI_Recv_init, must still work. Get_count/Get_elements on messages that
 * end inside an element of the receive type. */
#include "mpitest.h"

#include <stddef.h>

#define SENTINEL 0xEE

struct sample {
    int a;
    double b;
    char c[3];
};

struct tcase {
    const char* name;
    MPI_Datatype t;
    MPI_Datatype basic; /* the one basic type of the map, or MPI_DATATYPE_NULL if mixed */
    int basic_size;
};

static int rank, size;

static void make_cases(struct tcase* c)
{
    CHECK_MPI(MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &c[0].t));
    c[0].name = "vector(4, 3, 5, DOUBLE)";
    c[0].basic = MPI_DOUBLE;
    c[0].basic_size = 8;

    int bl[] = {3, 1, 2}, d[] = {0, 5, 9};
    CHECK_MPI(MPI_Type_indexed(3, bl, d, MPI_INT, &c[1].t));
    c[1].name = "indexed({3,1,2}, {0,5,9}, INT)";
    c[1].basic = MPI_INT;
    c[1].basic_size = 4;

    int sbl[] = {1, 1, 3};
    MPI_Aint sd[] = {offsetof(struct sample, a), offsetof(struct sample, b), offsetof(struct sample, c)};
    MPI_Datatype st[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, s0;
    CHECK_MPI(MPI_Type_create_struct(3, sbl, sd, st, &s0));
    CHECK_MPI(MPI_Type_create_resized(s0, 0, sizeof(struct sample), &c[2].t));
    CHECK_MPI(MPI_Type_free(&s0));
    c[2].name = "struct{int, double, char[3]}";
    c[2].basic = MPI_DATATYPE_NULL;
    c[2].basic_size = 0;

    int sz[] = {6, 7, 8}, sub[] = {3, 4, 5}, sta[] = {1, 2, 3};
    CHECK_MPI(MPI_Type_create_subarray(3, sz, sub, sta, MPI_ORDER_C, MPI_FLOAT, &c[3].t));
    c[3].name = "subarray {6,7,8} {3,4,5} {1,2,3} FLOAT";
    c[3].basic = MPI_FLOAT;
    c[3].basic_size = 4;

    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Type_commit(&c[i].t));
}

/* Buffer span of count elements (every type here has lb 0 and true_lb >= 0). */
static size_t span_of(MPI_Datatype t, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return (size_t)((count - 1) * ext + tlb + text);
}

/* The packed stream a peer with `seed` sends, and the receive buffer it must produce. */
static void expected(MPI_Datatype t, int count, size_t span, uint32_t seed, char* stream, int bytes,
                     unsigned char* want)
{
    unsigned char* src = mpitest_malloc(span);
    int pos = 0;
    mpitest_fill_bytes(src, span, seed);
    CHECK_MPI(MPI_Pack(src, count, t, stream, bytes, &pos, MPI_COMM_WORLD));
    memset(want, SENTINEL, span);
    pos = 0;
    CHECK_MPI(MPI_Unpack(stream, bytes, &pos, want, count, t, MPI_COMM_WORLD));
    free(src);
}

static void run_case(const struct tcase* c, int ci, int count)
{
    const int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    const uint32_t myseed = (uint32_t)(rank * 100 + ci), peerseed = (uint32_t)(src * 100 + ci);
    const size_t span = span_of(c->t, count);
    int tsize;
    MPI_Type_size(c->t, &tsize);
    const int bytes = tsize * count;
    unsigned char* sbuf = mpitest_malloc(span);
    unsigned char* rbuf = mpitest_malloc(span);
    unsigned char* want = mpitest_malloc(span);
    char* stream = mpitest_malloc((size_t)bytes);
    char* mystream = mpitest_malloc((size_t)bytes);
    char* pbuf = mpitest_malloc((size_t)bytes);
    MPI_Request rq[2];
    MPI_Status st[2];
    int n;

    mpitest_fill_bytes(sbuf, span, myseed);
    expected(c->t, count, span, peerseed, stream, bytes, want);
    {
        int pos = 0;
        CHECK_MPI(MPI_Pack(sbuf, count, c->t, mystream, bytes, &pos, MPI_COMM_WORLD));
    }

    /* A: same type on both sides */
    memset(rbuf, SENTINEL, span);
    CHECK_MPI(MPI_Irecv(rbuf, count, c->t, src, ci, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(sbuf, count, c->t, dest, ci, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, st));
    CHECK(memcmp(rbuf, want, span) == 0, "%s x %d: received buffer differs", c->name, count);
    CHECK_MPI(MPI_Get_count(&st[0], c->t, &n));
    CHECK(n == count, "%s x %d: Get_count %d", c->name, count, n);

    /* B: received as MPI_PACKED */
    CHECK_MPI(MPI_Irecv(pbuf, bytes, MPI_PACKED, src, ci, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(sbuf, count, c->t, dest, ci, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, st));
    CHECK(memcmp(pbuf, stream, (size_t)bytes) == 0, "%s x %d: MPI_PACKED receive differs from MPI_Pack",
          c->name, count);

    /* C: sent as MPI_PACKED, received typed */
    memset(rbuf, SENTINEL, span);
    CHECK_MPI(MPI_Irecv(rbuf, count, c->t, src, ci, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(mystream, bytes, MPI_PACKED, dest, ci, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, st));
    CHECK(memcmp(rbuf, want, span) == 0, "%s x %d: typed receive of MPI_PACKED differs", c->name, count);

    /* D: received as contiguous basic elements (same type signature) */
    if (c->basic != MPI_DATATYPE_NULL) {
        CHECK_MPI(MPI_Irecv(pbuf, bytes / c->basic_size, c->basic, src, ci, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Isend(sbuf, count, c->t, dest, ci, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Waitall(2, rq, st));
        CHECK(memcmp(pbuf, stream, (size_t)bytes) == 0, "%s x %d: contiguous receive differs", c->name,
              count);
        CHECK_MPI(MPI_Get_elements(&st[0], c->basic, &n));
        CHECK(n == bytes / c->basic_size, "%s x %d: Get_elements %d", c->name, count, n);
    }

    /* E: both types freed right after the nonblocking calls, before the wait */
    {
        MPI_Datatype ds, dr;
        CHECK_MPI(MPI_Type_dup(c->t, &ds));
        CHECK_MPI(MPI_Type_dup(c->t, &dr));
        CHECK_MPI(MPI_Type_commit(&ds));
        CHECK_MPI(MPI_Type_commit(&dr));
        memset(rbuf, SENTINEL, span);
        CHECK_MPI(MPI_Irecv(rbuf, count, dr, src, ci, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Isend(sbuf, count, ds, dest, ci, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Type_free(&dr));
        CHECK_MPI(MPI_Type_free(&ds));
        CHECK_MPI(MPI_Waitall(2, rq, st));
        CHECK(memcmp(rbuf, want, span) == 0, "%s x %d: freed-before-wait receive differs", c->name, count);
    }

    /* G: persistent requests outlive their freed types across several starts */
    {
        MPI_Datatype ds, dr;
        CHECK_MPI(MPI_Type_dup(c->t, &ds));
        CHECK_MPI(MPI_Type_dup(c->t, &dr));
        CHECK_MPI(MPI_Type_commit(&ds));
        CHECK_MPI(MPI_Type_commit(&dr));
        CHECK_MPI(MPI_Recv_init(rbuf, count, dr, src, ci, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Send_init(sbuf, count, ds, dest, ci, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Type_free(&dr));
        CHECK_MPI(MPI_Type_free(&ds));
        for (int it = 0; it < 2; it++) {
            memset(rbuf, SENTINEL, span);
            CHECK_MPI(MPI_Startall(2, rq));
            CHECK_MPI(MPI_Waitall(2, rq, st));
            CHECK(memcmp(rbuf, want, span) == 0, "%s x %d: persistent receive %d differs", c->name, count, it);
        }
        CHECK_MPI(MPI_Request_free(&rq[0]));
        CHECK_MPI(MPI_Request_free(&rq[1]));
    }

    /* F: to self, blocking receive after the send started */
    {
        unsigned char* self_want = mpitest_malloc(span);
        expected(c->t, count, span, myseed, stream, bytes, self_want);
        memset(rbuf, SENTINEL, span);
        CHECK_MPI(MPI_Isend(sbuf, count, c->t, rank, 1000 + ci, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Recv(rbuf, count, c->t, rank, 1000 + ci, MPI_COMM_WORLD, &st[0]));
        CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        CHECK(memcmp(rbuf, self_want, span) == 0, "%s x %d: self receive differs", c->name, count);
        free(self_want);
    }

    free(sbuf);
    free(rbuf);
    free(want);
    free(stream);
    free(mystream);
    free(pbuf);
}

/* Messages that end inside an element of the receive type. */
static void test_partial(void)
{
    const int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    MPI_Status st;
    int n;
    MPI_Count nc;
    MPI_Request rq;

    /* 5 ints into pairs of ints */
    {
        int s[5] = {1, 2, 3, 4, 5}, r[6] = {0, 0, 0, 0, 0, 0};
        MPI_Datatype pair;
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
        CHECK_MPI(MPI_Type_commit(&pair));
        CHECK_MPI(MPI_Irecv(r, 3, pair, src, 50, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Send(s, 5, MPI_INT, dest, 50, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_MPI(MPI_Get_count(&st, pair, &n));
        CHECK(n == MPI_UNDEFINED, "Get_count of 5 ints in pairs: %d, expected MPI_UNDEFINED", n);
        CHECK_MPI(MPI_Get_elements(&st, pair, &n));
        CHECK(n == 5, "Get_elements of 5 ints in pairs: %d", n);
        CHECK_MPI(MPI_Get_elements_c(&st, pair, &nc));
        CHECK(nc == 5, "Get_elements_c: %lld", (long long)nc);
        CHECK(r[4] == 5 && r[5] == 0, "partial pair receive data");
        CHECK_MPI(MPI_Type_free(&pair));
    }
    /* {int, double, int} into two {int, double} */
    {
        struct id {
            int i;
            double d;
        } r[2];
        struct {
            int i;
            double d;
            int j;
        } s = {7, 1.25, 9};
        int bl[] = {1, 1, 1};
        MPI_Aint d3[] = {0, 8, 16}, d2[] = {0, 8};
        MPI_Datatype t3, t2, ty[] = {MPI_INT, MPI_DOUBLE, MPI_INT};
        CHECK_MPI(MPI_Type_create_struct(3, bl, d3, ty, &t3));
        CHECK_MPI(MPI_Type_create_struct(2, bl, d2, ty, &t2));
        CHECK_MPI(MPI_Type_commit(&t3));
        CHECK_MPI(MPI_Type_commit(&t2));
        memset(r, 0, sizeof r);
        CHECK_MPI(MPI_Irecv(r, 2, t2, src, 51, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Send(&s, 1, t3, dest, 51, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_MPI(MPI_Get_count(&st, t2, &n));
        CHECK(n == MPI_UNDEFINED, "Get_count of {int,double,int} as {int,double}: %d", n);
        CHECK_MPI(MPI_Get_elements(&st, t2, &n));
        CHECK(n == 3, "Get_elements of {int,double,int} as {int,double}: %d", n);
        CHECK(r[0].i == 7 && r[0].d == 1.25 && r[1].i == 9 && r[1].d == 0, "partial struct data");
        CHECK_MPI(MPI_Type_free(&t3));
        CHECK_MPI(MPI_Type_free(&t2));
    }
}

int main(int argc, char** argv)
{
    struct tcase cases[4];
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_cases(cases);
    for (int i = 0; i < 4; i++) {
        int tsize;
        MPI_Type_size(cases[i].t, &tsize);
        run_case(&cases[i], i, 1);
        run_case(&cases[i], i, 3000 / tsize + 1);          /* a few KB: eager */
        run_case(&cases[i], i, (3 << 20) / 2 / tsize + 1); /* 1.5 MB: rendezvous */
    }
    test_partial();
    for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Type_free(&cases[i].t));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
