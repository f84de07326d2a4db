/* The Sessions model (MPI-4.1 11.3), in three phases of one program:
 *  A. sessions only, before any MPI_Init: process sets, their info and groups, communicators from
 *     groups (ring and allreduce on them), two sessions at once, concurrent creations over disjoint
 *     and overlapping groups, a mismatched group caught as MPI_ERR_NOT_SAME, error handlers, error
 *     cases with MPI_ERRORS_RETURN, then every session finalized and a new one initialized;
 *  B. MPI_Init with that session alive: World and session communicators side by side, invalid
 *     session handles, then MPI_Finalize;
 *  C. after MPI_Finalize: the session still works (a new communicator, ring, allreduce), the
 *     result is agreed on it, and once the last session is finalized a new MPI_Session_init is
 *     refused with MPI_ERR_OTHER (Baton cannot bootstrap a second time).
 * mpitest_finish needs MPI_COMM_WORLD, so the verdict is agreed on a session communicator. */
#include "mpitest.h"

#include <stdint.h>

static int wrank = -1, wsize = 0;

static void ring(MPI_Comm c, int value)
{
    int r, s, in = -1, expect;
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK_MPI(MPI_Comm_size(c, &s));
    int v = value * 100 + r;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % s, 7, &in, 1, MPI_INT, (r + s - 1) % s, 7, c,
                           MPI_STATUS_IGNORE));
    expect = value * 100 + (r + s - 1) % s;
    CHECK(in == expect, "ring on a communicator of %d: got %d, expected %d", s, in, expect);
}

/* Sum of the world ranks of the members, through an allreduce. */
static void check_sum(MPI_Comm c, int expect, const char* what)
{
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == expect, "%s: allreduce of world ranks is %d, expected %d", what, sum, expect);
}

static MPI_Comm from_group(MPI_Group g, const char* tag)
{
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK(c != MPI_COMM_NULL, "MPI_Comm_create_from_group(%s) gave MPI_COMM_NULL", tag);
    return c;
}

static MPI_Group incl(MPI_Group world, int n, const int* ranks)
{
    MPI_Group g = MPI_GROUP_NULL;
    CHECK_MPI(MPI_Group_incl(world, n, ranks, &g));
    return g;
}

static int handler_calls = 0, handler_code = 0;
static MPI_Session handler_session = MPI_SESSION_NULL;
static void session_handler(MPI_Session* s, int* code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

static int comm_handler_calls = 0;
static void comm_handler(MPI_Comm* c, int* code, ...)
{
    (void)c;
    (void)code;
    comm_handler_calls++;
}

static void expect_class(int rc, int cls, const char* what)
{
    int c = -1;
    if (rc == MPI_SUCCESS) {
        CHECK(0, "%s succeeded, expected error class %d", what, cls);
        return;
    }
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void check_psets(MPI_Session s)
{
    int n = -1, found_world = 0, found_self = 0;
    CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets, expected at least 2", n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));  /* length only */
        CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
        int len2 = len;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len2, name));
        CHECK(len2 == len && (int)strlen(name) == len - 1, "pset %d: name '%s', length %d/%d", i, name, len2, len);
        if (strcmp(name, "mpi://WORLD") == 0) found_world = 1;
        if (strcmp(name, "mpi://SELF") == 0) found_self = 1;
        /* truncated to a 4-byte buffer: 3 characters and the NUL, the full length reported */
        char small[8] = "xxxxxxx";
        int len3 = 4;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len3, small));
        CHECK(len3 == len && strlen(small) == 3 && strncmp(small, name, 3) == 0 && small[5] == 'x',
              "pset %d truncated: '%s' length %d", i, small, len3);
    }
    CHECK(found_world && found_self, "mpi://WORLD found %d, mpi://SELF found %d", found_world, found_self);

    const char* names[] = {"mpi://WORLD", "mpi://SELF", "MPI://world"};
    const int sizes[] = {wsize, 1, wsize};
    for (int i = 0; i < 3; i++) {
        MPI_Info info = MPI_INFO_NULL;
        char v[64] = "";
        int flag = 0;
        CHECK_MPI(MPI_Session_get_pset_info(s, names[i], &info));
        CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &(int){sizeof v}, v, &flag));
        CHECK(flag && atoi(v) == sizes[i], "%s: mpi_size '%s' (flag %d), expected %d", names[i], v, flag, sizes[i]);
        CHECK_MPI(MPI_Info_free(&info));
        MPI_Group g = MPI_GROUP_NULL;
        int gs = -1, gr = -2;
        CHECK_MPI(MPI_Group_from_session_pset(s, names[i], &g));
        CHECK_MPI(MPI_Group_size(g, &gs));
        CHECK_MPI(MPI_Group_rank(g, &gr));
        CHECK(gs == sizes[i] && gr == (sizes[i] == 1 ? 0 : wrank), "%s: group size %d rank %d", names[i], gs, gr);
        CHECK_MPI(MPI_Group_free(&g));
    }
}

/* Phase A's error cases, on session s (MPI_ERRORS_RETURN). */
static void check_errors(MPI_Session s, MPI_Group world)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    int n = 0, len = 10;
    char name[16];
    expect_class(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG, "unknown pset name");
    CHECK(g == MPI_GROUP_NULL, "group set after an error");
    expect_class(MPI_Group_from_session_pset(s, NULL, &g), MPI_ERR_ARG, "NULL pset name");
    expect_class(MPI_Group_from_session_pset(s, "mpi://WORLD", NULL), MPI_ERR_ARG, "NULL group pointer");
    expect_class(MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info), MPI_ERR_ARG, "pset info of unknown name");
    expect_class(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "NULL npsets");
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    expect_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, name), MPI_ERR_ARG, "pset index n");
    expect_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, name), MPI_ERR_ARG, "pset index -1");
    expect_class(MPI_Session_get_info(s, NULL), MPI_ERR_ARG, "NULL info pointer");
    expect_class(MPI_Session_get_errhandler(s, NULL), MPI_ERR_ARG, "NULL errhandler pointer");

    expect_class(MPI_Comm_create_from_group(world, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), MPI_ERR_ARG,
                 "NULL stringtag");
    expect_class(MPI_Comm_create_from_group(world, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG,
                 "NULL newcomm");
    expect_class(MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_ERR_GROUP, "MPI_GROUP_NULL");
    char* longtag = mpitest_malloc(MPI_MAX_STRINGTAG_LEN + 1);
    memset(longtag, 'a', MPI_MAX_STRINGTAG_LEN);
    longtag[MPI_MAX_STRINGTAG_LEN] = 0;
    expect_class(MPI_Comm_create_from_group(world, longtag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), MPI_ERR_ARG,
                 "stringtag too long");
    free(longtag);
    /* MPI_GROUP_EMPTY: a local call giving MPI_COMM_NULL */
    c = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "empty", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK(c == MPI_COMM_NULL, "empty group gave a communicator");
    if (wsize > 1) {
        /* a group that leaves this process out */
        int other = (wrank + 1) % wsize;
        MPI_Group o = incl(world, 1, &other);
        expect_class(MPI_Comm_create_from_group(o, "notme", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), MPI_ERR_GROUP,
                     "caller not in the group");
        MPI_Group_free(&o);
    }
    /* a thread level that is no level */
    MPI_Session bad = MPI_SESSION_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_PLENTY");
    expect_class(MPI_Session_init(info, MPI_ERRORS_RETURN, &bad), MPI_ERR_INFO_VALUE, "thread_level value");
    CHECK(bad == MPI_SESSION_NULL, "a session was made after an error");
    MPI_Info_free(&info);
    expect_class(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG, "NULL session pointer");
}

/* Error handlers: a session handler is called with the session and the error; it cannot go on a
 * communicator, nor a communicator's on a session. */
static void check_errhandlers(MPI_Session s, MPI_Comm c)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL, ceh = MPI_ERRHANDLER_NULL;
    MPI_Group g = MPI_GROUP_NULL;
    CHECK_MPI(MPI_Session_create_errhandler(session_handler, &eh));
    CHECK_MPI(MPI_Session_set_errhandler(s, eh));
    CHECK_MPI(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "MPI_Session_get_errhandler gave another handler");
    MPI_Errhandler_free(&got);
    handler_calls = 0;
    int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_ARG && handler_session == s,
          "handler: %d calls, code %d, same session %d", handler_calls, handler_code, handler_session == s);
    expect_class(rc, MPI_ERR_ARG, "unknown pset through the user handler");
    CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d", handler_calls,
          handler_code);
    /* a communicator's handler on a session: refused, through the session's handler */
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
    rc = MPI_Session_set_errhandler(s, ceh);
    expect_class(rc, MPI_ERR_ERRHANDLER, "communicator handler on a session");
    CHECK(handler_calls == 3, "refusal went through the session's handler (%d calls)", handler_calls);
    /* a session's handler on a communicator: refused (the communicator returns errors) */
    expect_class(MPI_Comm_set_errhandler(c, eh), MPI_ERR_ARG, "session handler on a communicator");
    CHECK(handler_calls == 3, "handler called by a communicator call (%d calls)", handler_calls);
    CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Errhandler_free(&ceh));
    expect_class(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG, "after reset");
    CHECK(handler_calls == 3, "handler called after it was replaced");
}

static void phase_a(MPI_Session* keep)
{
    int flag = -1;
    MPI_Session s1 = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
    MPI_Info info;
    MPI_Initialized(&flag);
    CHECK(flag == 0, "MPI_Initialized %d before anything", flag);

    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED");
    CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1));
    MPI_Info_free(&info);
    CHECK(s1 != MPI_SESSION_NULL, "no session");
    MPI_Initialized(&flag);
    CHECK(flag == 0, "MPI_Initialized %d with only a session", flag);

    MPI_Info used = MPI_INFO_NULL;
    char level[64] = "";
    CHECK_MPI(MPI_Session_get_info(s1, &used));
    CHECK_MPI(MPI_Info_get_string(used, "thread_level", &(int){sizeof level}, level, &flag));
    CHECK(flag && strncmp(level, "MPI_THREAD_", 11) == 0, "session thread_level '%s'", level);
    MPI_Info_free(&used);

    /* the world group, and the process's place in it */
    MPI_Group world = MPI_GROUP_NULL;
    CHECK_MPI(MPI_Group_from_session_pset(s1, "mpi://WORLD", &world));
    CHECK_MPI(MPI_Group_size(world, &wsize));
    CHECK_MPI(MPI_Group_rank(world, &wrank));
    mpitest_rank_ = wrank;
    check_psets(s1);

    MPI_Comm wc = from_group(world, "org.baton.test.world");
    int r = -1, n = -1;
    MPI_Comm_rank(wc, &r);
    MPI_Comm_size(wc, &n);
    CHECK(r == wrank && n == wsize, "world communicator: rank %d size %d", r, n);
    ring(wc, 1);
    check_sum(wc, wsize * (wsize - 1) / 2, "world");

    /* a second session, at the same time, and its SELF communicator */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    CHECK(s2 != s1, "two sessions with one handle");
    MPI_Group self = MPI_GROUP_NULL;
    CHECK_MPI(MPI_Group_from_session_pset(s2, "mpi://SELF", &self));
    MPI_Comm sc = from_group(self, "org.baton.test.self");
    MPI_Comm_size(sc, &n);
    CHECK(n == 1, "self communicator of size %d", n);
    check_sum(sc, wrank, "self");

    /* disjoint groups (even and odd world ranks) created at the same time, distinct tags */
    int* ranks = mpitest_malloc(sizeof(int) * (size_t)wsize);
    int half = 0, expect = 0;
    for (int i = wrank % 2; i < wsize; i += 2) {
        ranks[half++] = i;
        expect += i;
    }
    MPI_Group parity = incl(world, half, ranks);
    MPI_Comm pc = from_group(parity, wrank % 2 ? "odd" : "even");
    ring(pc, 2);
    check_sum(pc, expect, "parity");

    /* overlapping groups, one after the other: the world reversed, then the world's first half */
    for (int i = 0; i < wsize; i++) ranks[i] = wsize - 1 - i;
    MPI_Group rev = incl(world, wsize, ranks);
    MPI_Comm rc = from_group(rev, "reversed");
    MPI_Comm_rank(rc, &r);
    CHECK(r == wsize - 1 - wrank, "reversed communicator: rank %d, expected %d", r, wsize - 1 - wrank);
    ring(rc, 3);
    MPI_Comm hc = MPI_COMM_NULL;
    const int nh = (wsize + 1) / 2;
    for (int i = 0; i < nh; i++) ranks[i] = i;
    MPI_Group first = incl(world, nh, ranks);
    if (wrank < nh) {
        hc = from_group(first, "first-half");
        check_sum(hc, nh * (nh - 1) / 2, "first half");
    }
    /* one string tag twice in a row: two distinct communicators, messages do not cross */
    MPI_Comm a1 = from_group(world, "again"), a2 = from_group(world, "again");
    if (wsize > 1) {
        int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize, x1 = -1, x2 = -1;
        int v1 = 1000 + wrank, v2 = 2000 + wrank;
        MPI_Request rq[4];
        CHECK_MPI(MPI_Irecv(&x2, 1, MPI_INT, from, 0, a2, &rq[0]));
        CHECK_MPI(MPI_Irecv(&x1, 1, MPI_INT, from, 0, a1, &rq[1]));
        CHECK_MPI(MPI_Isend(&v1, 1, MPI_INT, to, 0, a1, &rq[2]));
        CHECK_MPI(MPI_Isend(&v2, 1, MPI_INT, to, 0, a2, &rq[3]));
        CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(x1 == 1000 + from && x2 == 2000 + from, "same-tag communicators crossed: %d %d", x1, x2);
    }

    /* members that disagree on the group's order: MPI_ERR_NOT_SAME on every member */
    if (wsize >= 3 && wrank < 3) {
        int order[3] = {0, 1, 2};
        if (wrank == 2) {
            order[1] = 2;
            order[2] = 1;
        }
        MPI_Group odd = incl(world, 3, order);
        MPI_Comm bad = MPI_COMM_NULL;
        expect_class(MPI_Comm_create_from_group(odd, "disagree", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad),
                     MPI_ERR_NOT_SAME, "members with different groups");
        CHECK(bad == MPI_COMM_NULL, "a communicator after MPI_ERR_NOT_SAME");
        MPI_Group_free(&odd);
    }

    check_errors(s1, world);
    check_errhandlers(s2, wc);
    /* the world communicator still works after all that */
    check_sum(wc, wsize * (wsize - 1) / 2, "world again");

    free(ranks);
    MPI_Comm_free(&a1);
    MPI_Comm_free(&a2);
    if (hc != MPI_COMM_NULL) MPI_Comm_free(&hc);
    MPI_Comm_free(&rc);
    MPI_Comm_free(&pc);
    MPI_Comm_free(&sc);
    MPI_Comm_free(&wc);
    MPI_Group_free(&first);
    MPI_Group_free(&rev);
    MPI_Group_free(&parity);
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    CHECK_MPI(MPI_Session_finalize(&s2));
    CHECK(s2 == MPI_SESSION_NULL, "handle not reset by MPI_Session_finalize");
    CHECK_MPI(MPI_Session_finalize(&s1));

    /* every session is gone: a new one still works */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, keep));
    CHECK_MPI(MPI_Group_from_session_pset(*keep, "mpi://WORLD", &world));
    wc = from_group(world, "org.baton.test.second");
    ring(wc, 4);
    check_sum(wc, wsize * (wsize - 1) / 2, "world, second session");
    MPI_Comm_free(&wc);
    MPI_Group_free(&world);
    MPI_Initialized(&flag);
    CHECK(flag == 0, "MPI_Initialized %d after phase A", flag);
}

static void phase_b(MPI_Session s, MPI_Comm* sc)
{
    int flag = 0, r = -1;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Initialized(&flag);
    CHECK(flag == 1, "MPI_Initialized %d after MPI_Init", flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    CHECK(r == wrank, "world rank %d, the session said %d", r, wrank);

    /* invalid sessions: errors with no object go to MPI_COMM_WORLD's handler */
    MPI_Info info = MPI_INFO_NULL;
    int dummy = 0;
    MPI_Session fake = (MPI_Session)(void*)&dummy;
    expect_class(MPI_Session_get_info(MPI_SESSION_NULL, &info), MPI_ERR_SESSION, "MPI_SESSION_NULL");
    expect_class(MPI_Session_get_info(fake, &info), MPI_ERR_SESSION, "made-up session handle");
    expect_class(MPI_Session_get_num_psets(fake, MPI_INFO_NULL, &dummy), MPI_ERR_SESSION, "made-up handle, psets");
    expect_class(MPI_Session_finalize(&fake), MPI_ERR_SESSION, "finalize of a made-up handle");
    expect_class(MPI_Session_finalize(NULL), MPI_ERR_ARG, "finalize(NULL)");
    expect_class(MPI_Session_create_errhandler(NULL, &(MPI_Errhandler){MPI_ERRHANDLER_NULL}), MPI_ERR_ARG,
                 "create_errhandler(NULL)");
    MPI_Errhandler ceh;
    MPI_Session other = MPI_SESSION_NULL;
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
    expect_class(MPI_Session_init(MPI_INFO_NULL, ceh, &other), MPI_ERR_ERRHANDLER, "session with a comm handler");
    MPI_Errhandler_free(&ceh);
    /* a session's handler for a new communicator: refused (no object: MPI_COMM_WORLD's handler) */
    MPI_Errhandler seh;
    CHECK_MPI(MPI_Session_create_errhandler(session_handler, &seh));
    handler_calls = 0;
    expect_class(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "x", MPI_INFO_NULL, seh, &(MPI_Comm){MPI_COMM_NULL}),
                 MPI_ERR_ERRHANDLER, "session handler for a new communicator");
    CHECK(handler_calls == 0 && comm_handler_calls == 0, "a handler ran: %d %d", handler_calls, comm_handler_calls);
    MPI_Errhandler_free(&seh);

    /* World and session communicators side by side */
    MPI_Group world;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    *sc = from_group(world, "org.baton.test.across-finalize");
    MPI_Group_free(&world);
    check_sum(MPI_COMM_WORLD, wsize * (wsize - 1) / 2, "MPI_COMM_WORLD");
    check_sum(*sc, wsize * (wsize - 1) / 2, "session communicator beside the World model");
}

int main(int argc, char** argv)
{
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Comm kept = MPI_COMM_NULL;
    int flag = 0;
    phase_a(&s);

    CHECK_MPI(MPI_Init(&argc, &argv));
    phase_b(s, &kept);
    CHECK_MPI(MPI_Finalize());

    /* phase C: the World model is finalized, the session is not */
    MPI_Finalized(&flag);
    CHECK(flag == 1, "MPI_Finalized %d", flag);
    expect_class(MPI_Comm_size(MPI_COMM_WORLD, &flag), MPI_ERR_COMM, "MPI_COMM_WORLD after MPI_Finalize");
    check_sum(kept, wsize * (wsize - 1) / 2, "communicator made before MPI_Finalize");
    MPI_Group world;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MPI_Comm c = from_group(world, "org.baton.test.after-finalize");
    MPI_Group_free(&world);
    ring(c, 5);
    check_sum(c, wsize * (wsize - 1) / 2, "communicator made after MPI_Finalize");

    /* the verdict, on the session communicator */
    int total = 0;
    if (MPI_Allreduce(&mpitest_failures_, &total, 1, MPI_INT, MPI_SUM, c) != MPI_SUCCESS) total = 1 + mpitest_failures_;
    if (wrank == 0) {
        if (mpitest_failures_) printf("rank 0 first failure: %s\n", mpitest_first_msg_);
        if (total == 0)
            printf("PASS (%d ranks)\n", wsize);
        else
            printf("FAIL: %d failure(s) over %d ranks\n", total, wsize);
        fflush(stdout);
    }
    MPI_Comm_free(&c);
    MPI_Comm_free(&kept);
    if (MPI_Session_finalize(&s) != MPI_SUCCESS) total++;

    /* the runtime went down with the last user: a new session is refused, cleanly */
    MPI_Session again = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OTHER || again != MPI_SESSION_NULL) {
        fprintf(stderr, "[rank %d] MPI_Session_init after the runtime went down: rc %d class %d\n", wrank, rc, cls);
        total++;
    }
    return total == 0 ? 0 : 1;
}
