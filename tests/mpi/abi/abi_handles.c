/* MPI-5.0 ABI handle conversion: MPI_<Handle>_toint / _fromint for every handle kind. Predefined
 * handles (null handles included) convert to their own ABI value; user handles to integers outside
 * that range, distinct per live object, stable across calls, and back to the same handle; the
 * handles got back work (a communicator, datatype, op, group, info, request, error handler and
 * message used through their converted-back handles). */
#include <stdint.h>

#include "mpitest.h"

static int rank, size;

#define PREDEF(kind, h) \
    CHECK(MPI_##kind##_toint(h) == (int)(intptr_t)(h), #h " toint gave %d", MPI_##kind##_toint(h)); \
    CHECK(MPI_##kind##_fromint((int)(intptr_t)(h)) == (h), #h " fromint did not give it back")

static void test_predefined(void)
{
    PREDEF(Comm, MPI_COMM_WORLD);
    PREDEF(Comm, MPI_COMM_SELF);
    PREDEF(Comm, MPI_COMM_NULL);
    PREDEF(Type, MPI_INT);
    PREDEF(Type, MPI_DOUBLE);
    PREDEF(Type, MPI_DATATYPE_NULL);
    PREDEF(Type, MPI_2INT);
    PREDEF(Group, MPI_GROUP_EMPTY);
    PREDEF(Group, MPI_GROUP_NULL);
    PREDEF(Request, MPI_REQUEST_NULL);
    PREDEF(Op, MPI_SUM);
    PREDEF(Op, MPI_OP_NULL);
    PREDEF(Op, MPI_NO_OP);
    PREDEF(Info, MPI_INFO_NULL);
    PREDEF(Info, MPI_INFO_ENV);
    PREDEF(Errhandler, MPI_ERRORS_RETURN);
    PREDEF(Errhandler, MPI_ERRORS_ARE_FATAL);
    PREDEF(Errhandler, MPI_ERRHANDLER_NULL);
    PREDEF(Message, MPI_MESSAGE_NULL);
    PREDEF(Message, MPI_MESSAGE_NO_PROC);
    PREDEF(Win, MPI_WIN_NULL);
    PREDEF(File, MPI_FILE_NULL);
    PREDEF(Session, MPI_SESSION_NULL);

    /* MPI-4.1 7.10: null handles have names (found by MPICH's comm/commname) */
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = -1;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "name of MPI_COMM_NULL: '%s' (%d)", name, len);
    CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "name of MPI_DATATYPE_NULL: '%s' (%d)", name, len);
    /* synonyms share one ABI handle: it carries the standard's primary name (MPICH's typename) */
    CHECK_MPI(MPI_Type_get_name(MPI_LONG_LONG, name, &len));
    CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0, "name of MPI_LONG_LONG(_INT): '%s'", name);
    CHECK_MPI(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len));
    CHECK(strcmp(name, "MPI_C_COMPLEX") == 0, "name of MPI_C_(FLOAT_)COMPLEX: '%s'", name);
}

static void user_op(void* in, void* inout, int* len, MPI_Datatype* t)
{
    (void)t;
    for (int i = 0; i < *len; ++i) ((int*)inout)[i] = ((int*)in)[i] * 10 + ((int*)inout)[i];
}

static void eh_fn(MPI_Comm* c, int* code, ...)
{
    (void)c;
    (void)code;
}

static void test_user(void)
{
    /* communicators: distinct integers, round trip, the converted-back handle works */
    MPI_Comm c1, c2;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
    int i1 = MPI_Comm_toint(c1), i2 = MPI_Comm_toint(c2);
    CHECK(i1 != i2, "two communicators got the same integer %d", i1);
    CHECK(i1 >= 0x1000 && i2 >= 0x1000, "user communicators got predefined-range integers %d %d", i1, i2);
    CHECK(MPI_Comm_toint(c1) == i1, "integer of a communicator changed");
    MPI_Comm back = MPI_Comm_fromint(i1);
    CHECK(back == c1, "fromint(toint(comm)) is another handle");
    int r = -1;
    CHECK_MPI(MPI_Comm_rank(MPI_Comm_fromint(i2), &r));
    CHECK(r == rank, "rank through the converted handle is %d", r);
    int v = rank + 1, s = 0;
    CHECK_MPI(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_Comm_fromint(i2)));
    CHECK(s == size * (size + 1) / 2, "allreduce over the converted handle gave %d", s);
    CHECK(MPI_Comm_fromint(0x7ffffff0) == MPI_COMM_NULL, "an integer never handed out did not give MPI_COMM_NULL");

    /* datatypes */
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    int ti = MPI_Type_toint(t);
    CHECK(ti >= 0x1000 && MPI_Type_fromint(ti) == t, "datatype round trip (%d)", ti);
    int sz = 0;
    CHECK_MPI(MPI_Type_size(MPI_Type_fromint(ti), &sz));
    CHECK(sz == 8, "size through the converted datatype is %d", sz);

    /* ops */
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(user_op, 0, &op));
    int oi = MPI_Op_toint(op);
    CHECK(oi >= 0x1000 && MPI_Op_fromint(oi) == op, "op round trip (%d)", oi);
    int in = 1, io = 2;
    CHECK_MPI(MPI_Reduce_local(&in, &io, 1, MPI_INT, MPI_Op_fromint(oi)));
    CHECK(io == 12, "reduce_local through the converted op gave %d", io);

    /* groups */
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(c1, &g));
    int gi = MPI_Group_toint(g);
    CHECK(gi >= 0x1000 && MPI_Group_fromint(gi) == g, "group round trip (%d)", gi);
    int gs = 0;
    CHECK_MPI(MPI_Group_size(MPI_Group_fromint(gi), &gs));
    CHECK(gs == size, "group size through the converted handle is %d", gs);

    /* info */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "k", "v"));
    int ii = MPI_Info_toint(info);
    CHECK(ii >= 0x1000 && MPI_Info_fromint(ii) == info, "info round trip (%d)", ii);
    int nk = 0;
    CHECK_MPI(MPI_Info_get_nkeys(MPI_Info_fromint(ii), &nk));
    CHECK(nk == 1, "nkeys through the converted handle is %d", nk);

    /* error handlers */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(eh_fn, &eh));
    int ei = MPI_Errhandler_toint(eh);
    CHECK(ei >= 0x1000 && MPI_Errhandler_fromint(ei) == eh, "errhandler round trip (%d)", ei);
    CHECK_MPI(MPI_Comm_set_errhandler(c2, MPI_Errhandler_fromint(ei)));

    /* requests: Fortran-style code keeps the integer and waits on the converted-back handle */
    int rbuf = -1, sbuf = rank;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(&rbuf, 1, MPI_INT, (rank + size - 1) % size, 4, c1, &rq[0]));
    CHECK_MPI(MPI_Isend(&sbuf, 1, MPI_INT, (rank + 1) % size, 4, c1, &rq[1]));
    int ri0 = MPI_Request_toint(rq[0]), ri1 = MPI_Request_toint(rq[1]);
    CHECK(ri0 != ri1 && ri0 >= 0x1000 && ri1 >= 0x1000, "request integers %d %d", ri0, ri1);
    MPI_Request back_rq[2] = {MPI_Request_fromint(ri0), MPI_Request_fromint(ri1)};
    CHECK(back_rq[0] == rq[0] && back_rq[1] == rq[1], "request round trip");
    CHECK_MPI(MPI_Waitall(2, back_rq, MPI_STATUSES_IGNORE));
    CHECK(rbuf == (rank + size - 1) % size, "received %d through converted requests", rbuf);

    /* messages */
    CHECK_MPI(MPI_Send(&sbuf, 1, MPI_INT, 0, 6, MPI_COMM_SELF));
    MPI_Message m;
    MPI_Status st;
    CHECK_MPI(MPI_Mprobe(0, 6, MPI_COMM_SELF, &m, &st));
    int mi = MPI_Message_toint(m);
    CHECK(mi >= 0x1000 && MPI_Message_fromint(mi) == m, "message round trip (%d)", mi);
    MPI_Message mb = MPI_Message_fromint(mi);
    rbuf = -1;
    CHECK_MPI(MPI_Mrecv(&rbuf, 1, MPI_INT, &mb, &st));
    CHECK(rbuf == rank && mb == MPI_MESSAGE_NULL, "mrecv through the converted message got %d", rbuf);

    /* kinds have separate integer spaces but each is consistent */
    CHECK(MPI_Comm_toint(c1) == i1 && MPI_Type_toint(t) == ti && MPI_Op_toint(op) == oi, "integers changed");

    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Comm_free(&c1));
    CHECK_MPI(MPI_Comm_free(&c2));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_predefined();
    test_user();
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
