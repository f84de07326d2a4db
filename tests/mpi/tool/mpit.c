/* The MPI tool information interface (MPI_T, MPI-4.1 chapter 15).
 *
 * - MPI_T_init_thread/MPI_T_finalize are reference counted and work before MPI_Init and after
 *   MPI_Finalize; every other call returns MPI_T_ERR_NOT_INITIALIZED outside them.
 * - Every control variable, performance variable and category: names, descriptions and their
 *   truncation rules, *_get_index round trips, types, scopes, categories covering every variable.
 * - Control variables read what the library uses: compared with the environment set in mpit.cmake
 *   (argv[1]: the BATON_SHM_EAGER_MAX the registration set, else the default 32768); writes refused.
 * - Performance variables: sessions and handles, the live-request level moving by exactly the
 *   requests an Isend/Irecv pair makes, the queue levels, the created-request counter's
 *   start/stop/read/write/reset/readreset, every error class.
 * - Enumerations, the (empty) event interface, the clock source, MPI_Error_string of MPI_T codes,
 *   and calls from several threads at once.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "mpitest.h"

#define EXPECT_RC(call, want)                                                                      \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == (want), "%s returned %d, expected %d (%s)", #call, rc_, (want), #want);       \
    } while (0)

static unsigned long expected_eager = 32768;

static unsigned long env_ulong(const char* name, unsigned long fallback)
{
    const char* v = getenv(name);
    return v && *v ? strtoul(v, NULL, 0) : fallback;
}

static int env_switch(const char* name) /* 1 unless NAME=0 */
{
    const char* v = getenv(name);
    return !(v && strcmp(v, "0") == 0);
}

/* Index of the control variable NAME, -1 (with a failure) if absent. */
static int cvar_index(const char* name)
{
    int i = -1;
    int rc = MPI_T_cvar_get_index(name, &i);
    CHECK(rc == MPI_SUCCESS, "MPI_T_cvar_get_index(%s) returned %d", name, rc);
    return rc == MPI_SUCCESS ? i : -1;
}

static unsigned long read_cvar_ulong(const char* name)
{
    int i = cvar_index(name), count = -1;
    unsigned long v = 0xdeadbeef;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    if (i < 0) return v;
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_UNSIGNED_LONG, "%s: datatype is not MPI_UNSIGNED_LONG", name);
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    CHECK_MPI(MPI_T_cvar_read(h, &v));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

static int read_cvar_int(const char* name)
{
    int i = cvar_index(name), count = -1, v = -12345;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    if (i < 0) return v;
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_INT, "%s: datatype is not MPI_INT", name);
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    CHECK_MPI(MPI_T_cvar_read(h, &v));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

static void check_cvar_string(const char* name, const char* want)
{
    int i = cvar_index(name), count = -1;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    char buf[256];
    if (i < 0) return;
    CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_CHAR, "%s: datatype is not MPI_CHAR", name);
    CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count > (int)strlen(want) && count <= (int)sizeof buf, "%s: count %d for \"%s\"", name, count, want);
    memset(buf, 'x', sizeof buf);
    CHECK_MPI(MPI_T_cvar_read(h, buf));
    CHECK(memchr(buf, 0, (size_t)count) != NULL, "%s: no null within count %d", name, count);
    buf[sizeof buf - 1] = 0;
    CHECK(strcmp(buf, want) == 0, "%s reads \"%s\", expected \"%s\"", name, buf, want);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
}

/* The string conventions on one name (15.3.3), through MPI_T_cvar_get_info / pvar / category. */
typedef int (*name_fn)(int index, char* name, int* name_len);
static int cvar_name(int i, char* n, int* l) { return MPI_T_cvar_get_info(i, n, l, NULL, NULL, NULL, NULL, NULL, NULL, NULL); }
static int pvar_name(int i, char* n, int* l)
{
    return MPI_T_pvar_get_info(i, n, l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}
static int cat_name(int i, char* n, int* l) { return MPI_T_category_get_info(i, n, l, NULL, NULL, NULL, NULL, NULL); }

/* Returns the full name in out (size 256); checks the truncation rules on the way. */
static void check_name_rules(const char* what, name_fn fn, int i, char* out)
{
    char buf[256], small[8];
    int len = 0, need = -1;
    /* NULL buffer: the length with the null */
    CHECK_MPI(fn(i, NULL, &need));
    CHECK(need > 1 && need <= (int)sizeof buf, "%s %d: needed length %d", what, i, need);
    if (need <= 1 || need > (int)sizeof buf) return;
    /* length 0 with a buffer: the length, buffer untouched */
    memset(small, 'x', sizeof small);
    len = 0;
    CHECK_MPI(fn(i, small, &len));
    CHECK(len == need && small[0] == 'x', "%s %d: len 0 gave %d (need %d), buffer %s", what, i, len, need,
          small[0] == 'x' ? "untouched" : "written");
    /* exact buffer */
    memset(buf, 'x', sizeof buf);
    len = need;
    CHECK_MPI(fn(i, buf, &len));
    CHECK(len == need && (int)strlen(buf) == need - 1, "%s %d: exact buffer gave len %d, strlen %zu, need %d", what,
          i, len, strlen(buf), need);
    strcpy(out, buf);
    /* truncation to 4 characters: 3 and a null */
    memset(small, 'x', sizeof small);
    len = 4;
    CHECK_MPI(fn(i, small, &len));
    CHECK(len == 4 && small[3] == 0 && strncmp(small, out, 3) == 0 && small[4] == 'x',
          "%s %d: truncated to 4 gave len %d \"%.7s\"", what, i, len, small);
    /* NULL length: nothing returned */
    memset(small, 'x', sizeof small);
    CHECK_MPI(fn(i, small, NULL));
    CHECK(small[0] == 'x', "%s %d: a NULL length still wrote the buffer", what, i);
}

static void check_not_initialized(const char* when)
{
    int n = -1;
    MPI_T_pvar_session s;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_Count ts;
    EXPECT_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_cvar_get_index("baton_shm_eager_max", &n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_cvar_handle_alloc(0, NULL, &ch, &n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_category_changed(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_event_handle_free(NULL, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    if (mpitest_failures()) fprintf(stderr, "(the failures above: %s)\n", when);
}

/* ---- control variables ---- */

static void test_cvars(void)
{
    int num = -1, rc;
    CHECK_MPI(MPI_T_cvar_get_num(&num));
    CHECK(num >= 30, "only %d control variables", num);
    char(*names)[256] = mpitest_malloc(sizeof *names * (size_t)(num > 0 ? num : 1));
    for (int i = 0; i < num; i++) {
        char desc[2048];
        int verbosity = -1, bind = -1, scope = -1, desc_len = sizeof desc, idx = -1, count = -1;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum en = (MPI_T_enum)&num;
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        check_name_rules("cvar", cvar_name, i, names[i]);
        CHECK(strncmp(names[i], "baton_", 6) == 0, "cvar %d is named \"%s\"", i, names[i]);
        for (int j = 0; j < i; j++) CHECK(strcmp(names[i], names[j]) != 0, "cvars %d and %d both \"%s\"", j, i, names[j]);
        CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, &verbosity, &dt, &en, desc, &desc_len, &bind, &scope));
        CHECK(desc_len > 20 && (int)strlen(desc) == desc_len - 1, "cvar %s: description length %d", names[i], desc_len);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "cvar %s: verbosity %d",
              names[i], verbosity);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG || dt == MPI_CHAR, "cvar %s: datatype", names[i]);
        CHECK(en == MPI_T_ENUM_NULL || dt == MPI_INT, "cvar %s: an enumeration on a non-int variable", names[i]);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s: bind %d", names[i], bind);
        CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY, "cvar %s: scope %d", names[i], scope);
        CHECK_MPI(MPI_T_cvar_get_index(names[i], &idx));
        CHECK(idx == i, "cvar_get_index(%s) = %d, expected %d", names[i], idx, i);
        /* every variable reads and refuses writes */
        CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        CHECK(count >= 1, "cvar %s: count %d", names[i], count);
        if (h != MPI_T_CVAR_HANDLE_NULL) {
            char* buf = mpitest_malloc((size_t)(count > 0 ? count : 1) * 8);
            CHECK_MPI(MPI_T_cvar_read(h, buf));
            EXPECT_RC(MPI_T_cvar_write(h, buf), MPI_T_ERR_CVAR_SET_NEVER);
            EXPECT_RC(MPI_T_cvar_read(h, NULL), MPI_T_ERR_INVALID);
            CHECK_MPI(MPI_T_cvar_handle_free(&h));
            CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free did not null the handle");
            free(buf);
        }
    }

    /* values: what the environment (mpit.cmake) says, with the library's documented defaults */
    CHECK(read_cvar_ulong("baton_shm_eager_max") == expected_eager, "baton_shm_eager_max is %lu, expected %lu",
          read_cvar_ulong("baton_shm_eager_max"), expected_eager);
    CHECK(read_cvar_ulong("baton_shm_eager_max") == env_ulong("BATON_SHM_EAGER_MAX", 32768),
          "baton_shm_eager_max disagrees with the environment");
    CHECK(read_cvar_ulong("baton_shm_cma_min") == env_ulong("BATON_SHM_CMA_MIN", 0), "baton_shm_cma_min is %lu",
          read_cvar_ulong("baton_shm_cma_min"));
    CHECK(read_cvar_ulong("baton_shm_coop_min") == env_ulong("BATON_SHM_COOP_MIN", 262144),
          "baton_shm_coop_min is %lu", read_cvar_ulong("baton_shm_coop_min"));
    CHECK(read_cvar_ulong("baton_ucx_eager_max") == env_ulong("BATON_UCX_EAGER_MAX", 65536),
          "baton_ucx_eager_max is %lu", read_cvar_ulong("baton_ucx_eager_max"));
    CHECK(read_cvar_int("baton_shm_cma") == env_switch("BATON_SHM_CMA"), "baton_shm_cma is %d",
          read_cvar_int("baton_shm_cma"));
    CHECK(read_cvar_int("baton_coll_shm") == env_switch("BATON_COLL_SHM"), "baton_coll_shm is %d",
          read_cvar_int("baton_coll_shm"));
    CHECK(read_cvar_int("baton_pcoll_single_copy") ==
              (env_switch("BATON_SHM_CMA") && env_switch("BATON_PCOLL_SINGLE_COPY")),
          "baton_pcoll_single_copy is %d", read_cvar_int("baton_pcoll_single_copy"));
    {
        const char* a = getenv("BATON_ASYNC_PROGRESS");
        int want = a && *a && strcmp(a, "0") != 0;
        CHECK(read_cvar_int("baton_async_progress") == want, "baton_async_progress is %d",
              read_cvar_int("baton_async_progress"));
    }
    {
        const char* t = getenv("BATON_THREAD_LEVEL");
        int want = t && *t && atoi(t) >= 0 && atoi(t) <= 3 ? atoi(t) : -1;
        CHECK(read_cvar_int("baton_thread_level") == want, "baton_thread_level is %d, expected %d",
              read_cvar_int("baton_thread_level"), want);
    }
    {
        const char* s = getenv("BATON_SPIN_US");
        unsigned long spin = read_cvar_ulong("baton_spin_us");
        if (s)
            CHECK(spin == strtoul(s, NULL, 10), "baton_spin_us is %lu, BATON_SPIN_US=%s", spin, s);
        else
            CHECK(spin == 50 || spin == 0, "baton_spin_us is %lu, expected 50 (or 0 on too few cores)", spin);
        CHECK(read_cvar_ulong("baton_yield_us") == env_ulong("BATON_YIELD_US", 1000), "baton_yield_us is %lu",
              read_cvar_ulong("baton_yield_us"));
    }
    {
        const char* t = getenv("BATON_TRANSPORT");
        check_cvar_string("baton_transport", t && *t ? t : "auto");
        const char* a = getenv("BATON_ALLREDUCE_ALGORITHM");
        check_cvar_string("baton_allreduce_algorithm", a ? a : "");
        a = getenv("BATON_BCAST_ALGORITHM");
        check_cvar_string("baton_bcast_algorithm", a ? a : "");
        a = getenv("BATON_NEIGHBOR_ALLTOALLW_ALGORITHM");
        check_cvar_string("baton_neighbor_alltoallw_algorithm", a ? a : "");
    }

    /* the thread-level enumeration */
    {
        int i = cvar_index("baton_thread_level"), n = -1, value = 99, len = 64;
        char name[64];
        MPI_T_enum en = MPI_T_ENUM_NULL;
        if (i >= 0) CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL));
        CHECK(en != MPI_T_ENUM_NULL, "baton_thread_level has no enumeration");
        CHECK_MPI(MPI_T_enum_get_info(en, &n, name, &len));
        CHECK(n == 5 && strcmp(name, "baton_thread_level") == 0 && len == (int)strlen(name) + 1,
              "enum: %d items, name \"%s\" (len %d)", n, name, len);
        len = sizeof name;
        CHECK_MPI(MPI_T_enum_get_item(en, 0, &value, name, &len));
        CHECK(value == -1 && strcmp(name, "none") == 0, "enum item 0: %d \"%s\"", value, name);
        len = sizeof name;
        CHECK_MPI(MPI_T_enum_get_item(en, 4, &value, name, &len));
        CHECK(value == 3 && strcmp(name, "MPI_THREAD_MULTIPLE") == 0, "enum item 4: %d \"%s\"", value, name);
        len = 0;
        CHECK_MPI(MPI_T_enum_get_item(en, 4, &value, name, &len));
        CHECK(len == (int)strlen("MPI_THREAD_MULTIPLE") + 1, "enum item 4: needed length %d", len);
        EXPECT_RC(MPI_T_enum_get_item(en, 5, &value, name, &len), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_enum_get_item(en, -1, &value, name, &len), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_enum_get_info((MPI_T_enum)&n, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_enum_get_item((MPI_T_enum)&n, 0, &value, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
        /* a switch variable's enumeration */
        i = cvar_index("baton_shm_cma");
        if (i >= 0) CHECK_MPI(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL));
        CHECK_MPI(MPI_T_enum_get_item(en, 1, &value, name, &len));
        CHECK(value == 1 && strcmp(name, "on") == 0, "switch item 1: %d \"%s\"", value, name);
    }

    /* error paths */
    {
        int idx = 7, count = 0;
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL, bogus = (MPI_T_cvar_handle)&idx;
        char name[16];
        int len = sizeof name;
        EXPECT_RC(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
        EXPECT_RC(MPI_T_cvar_get_info(num, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_cvar_get_index("baton_no_such_variable", &idx), MPI_T_ERR_INVALID_NAME);
        CHECK(idx == 7, "a failed cvar_get_index wrote %d", idx);
        EXPECT_RC(MPI_T_cvar_get_index(NULL, &idx), MPI_T_ERR_INVALID);
        EXPECT_RC(MPI_T_cvar_get_index("baton_shm_eager_max", NULL), MPI_T_ERR_INVALID);
        EXPECT_RC(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
        EXPECT_RC(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count), MPI_T_ERR_INVALID);
        EXPECT_RC(MPI_T_cvar_handle_alloc(0, NULL, &h, NULL), MPI_T_ERR_INVALID);
        EXPECT_RC(MPI_T_cvar_read(bogus, name), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, name), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_cvar_write(bogus, name), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_cvar_handle_free(&bogus), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_cvar_handle_free(NULL), MPI_T_ERR_INVALID);
        /* a freed handle is invalid */
        rc = MPI_T_cvar_handle_alloc(0, NULL, &h, &count);
        CHECK(rc == MPI_SUCCESS, "cvar_handle_alloc(0) returned %d", rc);
        bogus = h;
        CHECK_MPI(MPI_T_cvar_handle_free(&h));
        EXPECT_RC(MPI_T_cvar_read(bogus, name), MPI_T_ERR_INVALID_HANDLE);
        EXPECT_RC(MPI_T_cvar_handle_free(&bogus), MPI_T_ERR_INVALID_HANDLE);
    }
    free(names);
}

/* ---- performance variables ---- */

static int pvar_index(const char* name, int var_class)
{
    int i = -1;
    int rc = MPI_T_pvar_get_index(name, var_class, &i);
    CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_get_index(%s) returned %d", name, rc);
    return i;
}

static unsigned long pv_read(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long v = 0xdeadbeef;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* One message to myself and one from my left neighbour to my right: 2 + 2 requests. */
static void traffic(MPI_Request req[4], int* sbuf, int* rbuf)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Irecv(&rbuf[0], 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Irecv(&rbuf[1], 1, MPI_INT, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Isend(&sbuf[0], 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req[2]));
    CHECK_MPI(MPI_Isend(&sbuf[1], 1, MPI_INT, (rank + 1) % size, 6, MPI_COMM_WORLD, &req[3]));
}

static void test_pvars(void)
{
    int num = -1, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_T_pvar_get_num(&num));
    CHECK(num >= 5, "only %d performance variables", num);
    for (int i = 0; i < num; i++) {
        char name[256], desc[1024];
        int verbosity, var_class = -1, bind = -1, ro = -1, cont = -1, atomic = -1, desc_len = sizeof desc, idx = -1;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum en = (MPI_T_enum)&num;
        check_name_rules("pvar", pvar_name, i, name);
        CHECK_MPI(MPI_T_pvar_get_info(i, NULL, NULL, &verbosity, &var_class, &dt, &en, desc, &desc_len, &bind, &ro, &cont,
                                      &atomic));
        CHECK(desc_len > 20, "pvar %s: description length %d", name, desc_len);
        CHECK(dt == MPI_UNSIGNED_LONG && en == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT,
              "pvar %s: type/enum/bind", name);
        CHECK(var_class == MPI_T_PVAR_CLASS_LEVEL ? (ro == 1 && cont == 1 && atomic == 0)
                                                  : (var_class == MPI_T_PVAR_CLASS_COUNTER && ro == 0 && cont == 0 && atomic == 1),
              "pvar %s: class %d readonly %d continuous %d atomic %d", name, var_class, ro, cont, atomic);
        CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &idx));
        CHECK(idx == i, "pvar_get_index(%s) = %d, expected %d", name, idx, i);
        int other = var_class == MPI_T_PVAR_CLASS_LEVEL ? MPI_T_PVAR_CLASS_COUNTER : MPI_T_PVAR_CLASS_LEVEL;
        EXPECT_RC(MPI_T_pvar_get_index(name, other, &idx), MPI_T_ERR_INVALID_NAME);
    }
    const int live_i = pvar_index("baton_request_live", MPI_T_PVAR_CLASS_LEVEL);
    const int made_i = pvar_index("baton_request_created", MPI_T_PVAR_CLASS_COUNTER);
    const int uq_i = pvar_index("baton_p2p_unexpected_queued", MPI_T_PVAR_CLASS_LEVEL);
    const int posted_i = pvar_index("baton_p2p_posted_queued", MPI_T_PVAR_CLASS_LEVEL);
    const int pend_i = pvar_index("baton_p2p_sends_pending", MPI_T_PVAR_CLASS_LEVEL);
    if (live_i < 0 || made_i < 0 || uq_i < 0 || posted_i < 0 || pend_i < 0) return;

    MPI_T_pvar_session s1 = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
    MPI_T_pvar_handle live = MPI_T_PVAR_HANDLE_NULL, made = MPI_T_PVAR_HANDLE_NULL, uq, posted, pend, made2;
    int count = 0;
    CHECK_MPI(MPI_T_pvar_session_create(&s1));
    CHECK_MPI(MPI_T_pvar_session_create(&s2));
    CHECK(s1 != MPI_T_PVAR_SESSION_NULL && s1 != s2, "sessions %p %p", (void*)s1, (void*)s2);
    CHECK_MPI(MPI_T_pvar_handle_alloc(s1, live_i, NULL, &live, &count));
    CHECK(count == 1, "live: count %d", count);
    CHECK_MPI(MPI_T_pvar_handle_alloc(s1, made_i, NULL, &made, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s1, uq_i, NULL, &uq, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s1, posted_i, NULL, &posted, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s1, pend_i, NULL, &pend, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s2, made_i, NULL, &made2, &count));

    /* the live-request level moves by exactly the requests in flight */
    MPI_Request req[4];
    int sbuf[2] = {11, 12}, rbuf[2] = {0, 0};
    unsigned long l0 = pv_read(s1, live);
    CHECK(l0 < 1000, "%lu live requests before any traffic", l0);
    traffic(req, sbuf, rbuf);
    unsigned long l1 = pv_read(s1, live);
    CHECK(l1 == l0 + 4, "live requests %lu after 2 Isend + 2 Irecv, %lu before", l1, l0);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    unsigned long l2 = pv_read(s1, live);
    CHECK(l2 == l0, "live requests %lu after Waitall, %lu before", l2, l0);
    CHECK(rbuf[0] == 11 && rbuf[1] == 12, "received %d %d", rbuf[0], rbuf[1]);

    /* the created-request counter: stopped at 0 until started */
    CHECK(pv_read(s1, made) == 0, "a stopped counter reads %lu", pv_read(s1, made));
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 0, "a stopped counter moved: %lu", pv_read(s1, made));
    CHECK_MPI(MPI_T_pvar_start(s1, made));
    CHECK_MPI(MPI_T_pvar_start(s1, made)); /* already started: no effect */
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 4, "counter %lu after 4 requests", pv_read(s1, made));
    CHECK(pv_read(s2, made2) == 0, "a handle of another session moved: %lu", pv_read(s2, made2));
    CHECK_MPI(MPI_T_pvar_stop(s1, made));
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 4, "counter %lu after stop, expected 4", pv_read(s1, made));
    unsigned long v = 0;
    CHECK_MPI(MPI_T_pvar_readreset(s1, made, &v));
    CHECK(v == 4 && pv_read(s1, made) == 0, "readreset gave %lu, then %lu", v, pv_read(s1, made));
    v = 100;
    CHECK_MPI(MPI_T_pvar_write(s1, made, &v));
    CHECK(pv_read(s1, made) == 100, "after write 100: %lu", pv_read(s1, made));
    CHECK_MPI(MPI_T_pvar_start(s1, MPI_T_PVAR_ALL_HANDLES)); /* starts `made`, leaves the continuous ones */
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 104, "after write 100 and 4 requests: %lu", pv_read(s1, made));
    CHECK_MPI(MPI_T_pvar_readreset(s1, made, &v));
    CHECK(v == 104, "readreset gave %lu", v);
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 4, "started counter after readreset and 4 requests: %lu", pv_read(s1, made));
    CHECK_MPI(MPI_T_pvar_reset(s1, made));
    CHECK(pv_read(s1, made) == 0, "after reset: %lu", pv_read(s1, made));
    v = 9;
    CHECK_MPI(MPI_T_pvar_write(s1, made, &v));
    CHECK_MPI(MPI_T_pvar_reset(s1, MPI_T_PVAR_ALL_HANDLES)); /* resets `made`, skips the read-only ones */
    CHECK(pv_read(s1, made) == 0, "after reset of all handles: %lu", pv_read(s1, made));
    CHECK_MPI(MPI_T_pvar_stop(s1, MPI_T_PVAR_ALL_HANDLES));
    traffic(req, sbuf, rbuf);
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(pv_read(s1, made) == 0, "stopped by MPI_T_PVAR_ALL_HANDLES, moved to %lu", pv_read(s1, made));
    CHECK(pv_read(s1, live) == l0, "live requests %lu, expected %lu", pv_read(s1, live), l0);

    /* queue levels: messages to myself only, between barriers (nothing else arrives) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    {
        unsigned long u0 = pv_read(s1, uq), p0 = pv_read(s1, posted), e0 = pv_read(s1, pend);
        MPI_Request q[4];
        int a = 1, b = 2, ra = 0, rb = 0;
        CHECK_MPI(MPI_Irecv(&ra, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &q[0]));
        CHECK(pv_read(s1, posted) == p0 + 1, "posted %lu after an Irecv, %lu before", pv_read(s1, posted), p0);
        CHECK(pv_read(s1, uq) == u0, "unexpected %lu after an Irecv, %lu before", pv_read(s1, uq), u0);
        /* synchronous: the send stays pending until its receive is posted (an eager send to
         * oneself completes at once) */
        CHECK_MPI(MPI_Issend(&b, 1, MPI_INT, rank, 78, MPI_COMM_WORLD, &q[1]));
        CHECK(pv_read(s1, uq) == u0 + 1, "unexpected %lu after an unmatched send to self, %lu before", pv_read(s1, uq), u0);
        CHECK(pv_read(s1, posted) == p0 + 1, "posted %lu", pv_read(s1, posted));
        CHECK(pv_read(s1, pend) == e0 + 1, "pending sends %lu with a send to self unmatched, %lu before",
              pv_read(s1, pend), e0);
        CHECK_MPI(MPI_Irecv(&rb, 1, MPI_INT, rank, 78, MPI_COMM_WORLD, &q[2]));
        CHECK(pv_read(s1, uq) == u0, "unexpected %lu after the matching Irecv", pv_read(s1, uq));
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &q[3]));
        CHECK(pv_read(s1, posted) == p0, "posted %lu after the matching Isend", pv_read(s1, posted));
        CHECK_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        CHECK(ra == 1 && rb == 2, "received %d %d", ra, rb);
        CHECK(pv_read(s1, pend) == e0, "%lu sends pending after Waitall, %lu before", pv_read(s1, pend), e0);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* error classes */
    v = 1;
    EXPECT_RC(MPI_T_pvar_start(s1, live), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT_RC(MPI_T_pvar_stop(s1, live), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT_RC(MPI_T_pvar_write(s1, live, &v), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT_RC(MPI_T_pvar_reset(s1, live), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT_RC(MPI_T_pvar_readreset(s1, live, &v), MPI_T_ERR_PVAR_NO_ATOMIC);
    EXPECT_RC(MPI_T_pvar_read(s1, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_write(s1, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_readreset(s1, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_read(s1, MPI_T_PVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_read(s2, made, &v), MPI_T_ERR_INVALID_HANDLE); /* handle of s1 */
    EXPECT_RC(MPI_T_pvar_start(s2, made), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_read(s1, made, NULL), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, made, &v), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_reset((MPI_T_pvar_session)&v, made), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s1, num, NULL, &uq, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s1, -1, NULL, &uq, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, live_i, NULL, &uq, &count), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s1, live_i, NULL, NULL, &count), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_pvar_handle_free(s2, &made), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_pvar_get_index("baton_no_such_pvar", MPI_T_PVAR_CLASS_LEVEL, &count), MPI_T_ERR_INVALID_NAME);
    EXPECT_RC(MPI_T_pvar_get_index(NULL, MPI_T_PVAR_CLASS_LEVEL, &count), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_pvar_get_num(NULL), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_pvar_session_create(NULL), MPI_T_ERR_INVALID);

    /* freeing */
    MPI_T_pvar_handle old = made;
    CHECK_MPI(MPI_T_pvar_handle_free(s1, &made));
    CHECK(made == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free did not null the handle");
    EXPECT_RC(MPI_T_pvar_read(s1, old, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_handle_free(s1, &old), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_session olds = s1;
    CHECK_MPI(MPI_T_pvar_session_free(&s1)); /* frees live, uq, posted, pend with it */
    CHECK(s1 == MPI_T_PVAR_SESSION_NULL, "pvar_session_free did not null the session");
    EXPECT_RC(MPI_T_pvar_read(olds, live, &v), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_session_free(&olds), MPI_T_ERR_INVALID_SESSION);
    /* s2 (with a handle) is left for MPI_T_finalize to free */
    CHECK(pv_read(s2, made2) == 0, "s2's stopped counter reads %lu", pv_read(s2, made2));
}

/* ---- categories ---- */

static void test_categories(void)
{
    int num = -1, ncv = 0, npv = 0, stamp = -1, stamp2 = -2;
    CHECK_MPI(MPI_T_category_get_num(&num));
    CHECK_MPI(MPI_T_cvar_get_num(&ncv));
    CHECK_MPI(MPI_T_pvar_get_num(&npv));
    CHECK(num >= 4, "only %d categories", num);
    int* cv_seen = calloc((size_t)ncv + 1, sizeof(int));
    int* pv_seen = calloc((size_t)npv + 1, sizeof(int));
    int* cat_parents = calloc((size_t)num + 1, sizeof(int));
    CHECK_MPI(MPI_T_category_changed(&stamp));
    for (int c = 0; c < num; c++) {
        char name[256], desc[512];
        int desc_len = sizeof desc, nc = -1, np = -1, nsub = -1, ne = -1, idx = -1;
        int list[128];
        check_name_rules("category", cat_name, c, name);
        CHECK_MPI(MPI_T_category_get_info(c, NULL, NULL, desc, &desc_len, &nc, &np, &nsub));
        CHECK(desc_len > 5 && nc >= 0 && np >= 0 && nsub >= 0 && nc + np + nsub > 0 && nc <= 128 && np <= 128 &&
                  nsub <= 128,
              "category %s: desc_len %d, %d cvars, %d pvars, %d categories", name, desc_len, nc, np, nsub);
        CHECK_MPI(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category_get_index(%s) = %d", name, idx);
        CHECK_MPI(MPI_T_category_get_num_events(c, &ne));
        CHECK(ne == 0, "category %s: %d events", name, ne);
        CHECK_MPI(MPI_T_category_get_events(c, 4, list));
        if (nc > 0 && nc <= 128) {
            list[nc] = -77;
            CHECK_MPI(MPI_T_category_get_cvars(c, nc + 1, list));
            CHECK(list[nc] == -77, "category %s: get_cvars wrote past its %d variables", name, nc);
            for (int k = 0; k < nc; k++) {
                CHECK(list[k] >= 0 && list[k] < ncv, "category %s: cvar index %d", name, list[k]);
                if (list[k] >= 0 && list[k] < ncv) cv_seen[list[k]]++;
            }
            if (nc > 1) {
                list[1] = -77;
                CHECK_MPI(MPI_T_category_get_cvars(c, 1, list));
                CHECK(list[1] == -77, "category %s: get_cvars with len 1 wrote 2", name);
            }
        }
        if (np > 0 && np <= 128) {
            CHECK_MPI(MPI_T_category_get_pvars(c, np, list));
            for (int k = 0; k < np; k++) {
                CHECK(list[k] >= 0 && list[k] < npv, "category %s: pvar index %d", name, list[k]);
                if (list[k] >= 0 && list[k] < npv) pv_seen[list[k]]++;
            }
        }
        if (nsub > 0 && nsub <= 128) {
            CHECK_MPI(MPI_T_category_get_categories(c, nsub, list));
            for (int k = 0; k < nsub; k++) {
                CHECK(list[k] >= 0 && list[k] < num && list[k] != c, "category %s: subcategory %d", name, list[k]);
                if (list[k] >= 0 && list[k] < num) cat_parents[list[k]]++;
            }
        }
    }
    for (int i = 0; i < ncv; i++) CHECK(cv_seen[i] == 1, "cvar %d is in %d categories", i, cv_seen[i]);
    for (int i = 0; i < npv; i++) CHECK(pv_seen[i] == 1, "pvar %d is in %d categories", i, pv_seen[i]);
    {
        int shm = -1, p2p = -1, sub = -1, n = 0;
        CHECK_MPI(MPI_T_category_get_index("baton_shm", &shm));
        CHECK_MPI(MPI_T_category_get_index("baton_p2p", &p2p));
        CHECK_MPI(MPI_T_category_get_info(p2p, NULL, NULL, NULL, NULL, NULL, NULL, &n));
        CHECK_MPI(MPI_T_category_get_categories(p2p, 1, &sub));
        CHECK(n == 1 && sub == shm && cat_parents[shm] == 1, "baton_p2p holds %d categories, first %d (baton_shm: %d)", n,
              sub, shm);
    }
    CHECK_MPI(MPI_T_category_changed(&stamp2));
    CHECK(stamp == stamp2, "category stamp changed %d -> %d", stamp, stamp2);
    int idx = 5, list[2];
    EXPECT_RC(MPI_T_category_get_index("baton_nope", &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT_RC(MPI_T_category_get_index(NULL, &idx), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_category_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_cvars(-1, 2, list), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_pvars(num, 2, list), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_categories(num, 2, list), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_events(num, 2, list), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_num_events(num, &idx), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_cvars(0, -1, list), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_category_get_cvars(0, 2, NULL), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_category_changed(NULL), MPI_T_ERR_INVALID);
    free(cv_seen);
    free(pv_seen);
    free(cat_parents);
}

/* ---- events (none) and the clock source ---- */

static void test_events_sources(void)
{
    int n = -1, idx = 3, len = 0;
    MPI_T_event_registration reg = NULL;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Count t0 = 0, t1 = 0, tps = 0, maxt = 0;
    MPI_T_source_order order = MPI_T_SOURCE_UNORDERED;
    char name[64], buf[16];
    CHECK_MPI(MPI_T_event_get_num(&n));
    CHECK(n == 0, "%d event types", n);
    EXPECT_RC(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_event_get_index("baton_anything", &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT_RC(MPI_T_event_get_index(NULL, &idx), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    reg = (MPI_T_event_registration)&n;
    EXPECT_RC(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_handle_get_info(reg, &info), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
              MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_read((MPI_T_event_instance)&n, 0, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_copy((MPI_T_event_instance)&n, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_get_timestamp((MPI_T_event_instance)&n, &t0), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_event_get_source((MPI_T_event_instance)&n, &idx), MPI_T_ERR_INVALID_HANDLE);

    CHECK_MPI(MPI_T_source_get_num(&n));
    CHECK(n == 1, "%d sources", n);
    len = sizeof name;
    CHECK_MPI(MPI_T_source_get_info(0, name, &len, NULL, NULL, &order, &tps, &maxt, &info));
    CHECK(strcmp(name, "baton_clock") == 0 && order == MPI_T_SOURCE_ORDERED && tps == 1000000000 && maxt > 0,
          "source 0: \"%s\" order %d, %lld ticks/s, max %lld", name, (int)order, (long long)tps, (long long)maxt);
    CHECK(info != MPI_INFO_NULL, "source_get_info gave no info");
    if (info != MPI_INFO_NULL) {
        int nkeys = -1;
        CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
        CHECK(nkeys == 0, "source info has %d keys", nkeys);
        CHECK_MPI(MPI_Info_free(&info));
    }
    CHECK_MPI(MPI_T_source_get_timestamp(0, &t0));
    usleep(2000);
    CHECK_MPI(MPI_T_source_get_timestamp(0, &t1));
    CHECK(t1 - t0 >= 2000000 && t1 - t0 < 10000000000LL, "2 ms of sleep took %lld ticks", (long long)(t1 - t0));
    EXPECT_RC(MPI_T_source_get_timestamp(1, &t0), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_source_get_timestamp(0, NULL), MPI_T_ERR_INVALID);
    EXPECT_RC(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
}

/* ---- several threads at once (no engine state is read, so any MPI thread level will do) ---- */

static void* thread_body(void* arg)
{
    int* bad = arg;
    int provided, i_eager = -1, i_live = -1, count;
    if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) { (*bad)++; return NULL; }
    if (MPI_T_cvar_get_index("baton_shm_eager_max", &i_eager) != MPI_SUCCESS) (*bad)++;
    if (MPI_T_pvar_get_index("baton_request_live", MPI_T_PVAR_CLASS_LEVEL, &i_live) != MPI_SUCCESS) (*bad)++;
    for (int k = 0; k < 300 && *bad == 0; k++) {
        MPI_T_cvar_handle ch;
        MPI_T_pvar_session s;
        MPI_T_pvar_handle ph;
        unsigned long v = 0;
        if (MPI_T_cvar_handle_alloc(i_eager, NULL, &ch, &count) != MPI_SUCCESS) { (*bad)++; break; }
        if (MPI_T_cvar_read(ch, &v) != MPI_SUCCESS || v != expected_eager) (*bad)++;
        if (MPI_T_cvar_handle_free(&ch) != MPI_SUCCESS) (*bad)++;
        if (MPI_T_pvar_session_create(&s) != MPI_SUCCESS) { (*bad)++; break; }
        if (MPI_T_pvar_handle_alloc(s, i_live, NULL, &ph, &count) != MPI_SUCCESS) (*bad)++;
        else if (MPI_T_pvar_read(s, ph, &v) != MPI_SUCCESS) (*bad)++;
        if (MPI_T_pvar_session_free(&s) != MPI_SUCCESS) (*bad)++;
    }
    if (MPI_T_finalize() != MPI_SUCCESS) (*bad)++;
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[3];
    int bad[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&t[i], NULL, thread_body, &bad[i]) == 0, "pthread_create");
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(bad[i] == 0, "thread %d: %d failed MPI_T calls", i, bad[i]);
    }
}

int main(int argc, char** argv)
{
    int provided = -1, n = -1;
    if (argc > 1) expected_eager = strtoul(argv[1], NULL, 0);

    /* before MPI_Init: not initialized, then two references */
    check_not_initialized("before MPI_T_init_thread");
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK(read_cvar_ulong("baton_shm_eager_max") == expected_eager, "before MPI_Init: baton_shm_eager_max %lu",
          read_cvar_ulong("baton_shm_eager_max"));
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_T_cvar_get_num(&n)); /* one reference left */

    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    test_cvars();
    test_pvars();
    test_categories();
    test_events_sources();
    test_threads();
    {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0, cls = -1;
        CHECK_MPI(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, s, &len));
        CHECK(strncmp(s, "MPI_T_ERR_INVALID_INDEX", 23) == 0 && len == (int)strlen(s), "error string \"%s\"", s);
        CHECK_MPI(MPI_Error_class(MPI_T_ERR_PVAR_NO_ATOMIC, &cls));
        CHECK(cls == MPI_T_ERR_PVAR_NO_ATOMIC, "error class %d", cls);
        EXPECT_RC(MPI_Error_class(1019, &cls), MPI_ERR_ARG);
    }

    int rc = mpitest_finish();
    MPI_Finalize();

    /* after MPI_Finalize: the interface still works until its last MPI_T_finalize */
    int before = mpitest_failures();
    CHECK(read_cvar_ulong("baton_shm_eager_max") == expected_eager, "after MPI_Finalize: baton_shm_eager_max %lu",
          read_cvar_ulong("baton_shm_eager_max"));
    {
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        int count, i = pvar_index("baton_p2p_unexpected_queued", MPI_T_PVAR_CLASS_LEVEL);
        CHECK_MPI(MPI_T_pvar_session_create(&s));
        CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
        CHECK(pv_read(s, h) == 0, "after MPI_Finalize: %lu unexpected messages", pv_read(s, h));
        CHECK_MPI(MPI_T_pvar_session_free(&s));
    }
    CHECK_MPI(MPI_T_finalize());
    check_not_initialized("after the last MPI_T_finalize");
    /* and it can start again */
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided));
    CHECK(provided == MPI_THREAD_FUNNELED, "provided %d", provided);
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK_MPI(MPI_T_finalize());
    if (mpitest_failures() > before) {
        printf("FAIL: %d failure(s) after MPI_Finalize\n", mpitest_failures() - before);
        return 1;
    }
    return rc;
}
