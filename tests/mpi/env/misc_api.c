/* MPI_Alloc_mem / MPI_Free_mem, MPI_Pcontrol, the MPI-5.0 status accessors, user error classes,
 * codes and strings (with MPI_LASTUSEDCODE and the removal rules) and the MPI-5.0 ABI information
 * functions. Every erroneous call is made under MPI_ERRORS_RETURN and must return the right class;
 * the library must keep working afterwards. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;

#define EXPECT_CLASS(call, expected)                                                               \
    do {                                                                                           \
        int rc_ = (call), cl_ = -1;                                                                \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &cl_);                                        \
        CHECK(rc_ != MPI_SUCCESS && cl_ == (expected), "%s: returned %d (class %d), expected class %d", \
              #call, rc_, cl_, (expected));                                                        \
    } while (0)

/* ---- a user error handler that records what it was called with ---- */
static int handler_calls = 0;
static int handler_code = 0;
static int handler_class = -1;
static void record_handler(MPI_Comm* comm, int* code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
    if (MPI_Error_class(*code, &handler_class) != MPI_SUCCESS) handler_class = -2;
}

static int lastused(void)
{
    int* v = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag == 1 && v != NULL, "MPI_LASTUSEDCODE not set on MPI_COMM_WORLD");
    return (flag && v) ? *v : -1;
}

static void test_alloc_mem(void)
{
    const MPI_Aint sizes[] = {0, 1, 63, 64, 100, 4095, 4096, 10000, 1 << 20};
    void* blocks[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        void* p = NULL;
        CHECK_MPI(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p));
        blocks[i] = p;
        CHECK(p != NULL, "Alloc_mem(%ld) gave NULL", (long)sizes[i]);
        if (!p) continue;
        uintptr_t align = sizes[i] >= 4096 ? 4096 : 64;
        CHECK((uintptr_t)p % align == 0, "Alloc_mem(%ld) = %p: not aligned to %lu", (long)sizes[i], p,
              (unsigned long)align);
        memset(p, (int)(i + 1), (size_t)sizes[i]);
    }
    CHECK(blocks[0] != NULL && blocks[0] != blocks[1], "two blocks share an address");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const unsigned char* c = blocks[i];
        int bad = 0;
        for (MPI_Aint j = 0; c && j < sizes[i]; ++j) bad += c[j] != (unsigned char)(i + 1);
        CHECK(bad == 0, "block of %ld bytes: %d bytes changed", (long)sizes[i], bad);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) CHECK_MPI(MPI_Free_mem(blocks[i]));

    /* info: the alignment hint is honoured, unknown keys are fine, a bad alignment is refused */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "some_unknown_hint", "yes"));
    CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "65536"));
    void* big = NULL;
    CHECK_MPI(MPI_Alloc_mem(1000, info, &big));
    CHECK(big != NULL && (uintptr_t)big % 65536 == 0, "Alloc_mem with 64 KiB alignment gave %p", big);
    CHECK_MPI(MPI_Free_mem(big));
    CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "48"));
    void* q = (void*)&info;
    EXPECT_CLASS(MPI_Alloc_mem(16, info, &q), MPI_ERR_INFO_VALUE);
    CHECK(q == (void*)&info, "a failed Alloc_mem changed baseptr");
    CHECK_MPI(MPI_Info_free(&info));
    EXPECT_CLASS(MPI_Alloc_mem(16, (MPI_Info)(uintptr_t)0x137, &q), MPI_ERR_INFO);

    /* the memory works as a communication buffer */
    int *sbuf = NULL, *rbuf = NULL;
    const int n = 5000;
    CHECK_MPI(MPI_Alloc_mem(n * (MPI_Aint)sizeof(int), MPI_INFO_NULL, &sbuf));
    CHECK_MPI(MPI_Alloc_mem(n * (MPI_Aint)sizeof(int), MPI_INFO_NULL, &rbuf));
    if (sbuf && rbuf) {
        for (int i = 0; i < n; ++i) sbuf[i] = rank * 100000 + i;
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_INT, right, 7, rbuf, n, MPI_INT, left, 7, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += rbuf[i] != left * 100000 + i;
        CHECK(bad == 0, "%d wrong ints received into MPI_Alloc_mem memory", bad);
    }

    /* errors */
    EXPECT_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &q), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Alloc_mem(16, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    int local = 0;
    EXPECT_CLASS(MPI_Free_mem(&local), MPI_ERR_BASE);
    EXPECT_CLASS(MPI_Free_mem((char*)sbuf + 8), MPI_ERR_BASE);
    CHECK_MPI(MPI_Free_mem(sbuf));
    EXPECT_CLASS(MPI_Free_mem(sbuf), MPI_ERR_BASE); /* already freed */
    CHECK_MPI(MPI_Free_mem(rbuf));
    CHECK_MPI(MPI_Free_mem(NULL));

    /* out of memory goes through MPI_COMM_WORLD's error handler with MPI_ERR_NO_MEM */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(record_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    handler_calls = 0;
    q = NULL;
    int rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &q);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_MEM && q == NULL, "Alloc_mem(2^62): rc %d class %d, ptr %p", rc, cls, q);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_MEM,
          "MPI_COMM_WORLD's handler: %d calls, class %d", handler_calls, handler_class);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&eh));
}

static void test_pcontrol(void)
{
    CHECK_MPI(MPI_Pcontrol(0));
    CHECK_MPI(MPI_Pcontrol(1));
    CHECK_MPI(MPI_Pcontrol(2, "extra", 3.5));
    CHECK_MPI(MPI_Pcontrol(-7));
}

static void test_status(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sbuf[3] = {rank, rank, rank}, rbuf[3] = {-1, -1, -1};
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(sbuf, 3, MPI_INT, right, 40 + rank, rbuf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &st));
    int v = -99, count = -1;
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK(v == left && v == st.MPI_SOURCE, "get_source: %d, expected %d", v, left);
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK(v == 40 + left && v == st.MPI_TAG, "get_tag: %d, expected %d", v, 40 + left);
    st.MPI_ERROR = MPI_SUCCESS;
    CHECK_MPI(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_SUCCESS, "get_error: %d", v);

    /* round trips; the count the library keeps in the status is untouched */
    CHECK_MPI(MPI_Status_set_source(&st, 12345));
    CHECK_MPI(MPI_Status_set_tag(&st, 678));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    CHECK(st.MPI_SOURCE == 12345 && st.MPI_TAG == 678 && st.MPI_ERROR == MPI_ERR_TRUNCATE,
          "set_*: fields %d %d %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK(v == 12345, "get_source after set: %d", v);
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK(v == 678, "get_tag after set: %d", v);
    CHECK_MPI(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TRUNCATE, "get_error after set: %d", v);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 3, "count after the set_* calls: %d", count);
    CHECK(rbuf[0] == left && rbuf[2] == left, "received %d %d", rbuf[0], rbuf[2]);

    /* NULL status or output */
    EXPECT_CLASS(MPI_Status_get_source(NULL, &v), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_tag(NULL, &v), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_error(NULL, &v), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_error(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_source(NULL, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_tag(NULL, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_error(NULL, 1), MPI_ERR_ARG);
}

static void check_string(int code, const char* expected)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 'x', sizeof s);
    CHECK_MPI(MPI_Error_string(code, s, &len));
    CHECK(len == (int)strlen(expected) && strcmp(s, expected) == 0, "Error_string(%d) = \"%.40s\" (%d), expected \"%.40s\"",
          code, s, len, expected);
}

static void check_class(int code, int expected)
{
    int c = -1;
    CHECK_MPI(MPI_Error_class(code, &c));
    CHECK(c == expected, "Error_class(%d) = %d, expected %d", code, c, expected);
}

static void test_error_classes(void)
{
    CHECK(lastused() == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE starts at %d, expected %d", lastused(),
          MPI_ERR_LASTCODE);

    int c1 = -1, k1 = -1, k2 = -1, k3 = -1;
    CHECK_MPI(MPI_Add_error_class(&c1));
    CHECK(c1 > MPI_ERR_LASTCODE, "new class %d is not above MPI_ERR_LASTCODE", c1);
    CHECK(lastused() == c1, "LASTUSEDCODE %d after adding class %d", lastused(), c1);
    check_class(c1, c1);
    check_string(c1, "");

    CHECK_MPI(MPI_Add_error_code(c1, &k1));
    CHECK(k1 > MPI_ERR_LASTCODE && k1 != c1, "new code %d", k1);
    check_class(k1, c1);
    check_string(k1, "");
    CHECK(lastused() == k1, "LASTUSEDCODE %d after adding code %d", lastused(), k1);
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_RANK, &k2)); /* a code of a predefined class */
    check_class(k2, MPI_ERR_RANK);
    CHECK_MPI(MPI_Add_error_code(c1, &k3));
    CHECK(k3 != k1 && k3 != k2, "codes %d %d %d not distinct", k1, k2, k3);
    CHECK(lastused() == k3, "LASTUSEDCODE %d, expected %d", lastused(), k3);

    /* strings: set, replace, the longest allowed; predefined strings are unchanged */
    CHECK_MPI(MPI_Add_error_string(k1, "first string of code one"));
    check_string(k1, "first string of code one");
    CHECK_MPI(MPI_Add_error_string(k1, "code one: the disk is on fire"));
    check_string(k1, "code one: the disk is on fire");
    CHECK_MPI(MPI_Add_error_string(c1, "class one"));
    check_string(c1, "class one");
    char longest[MPI_MAX_ERROR_STRING];
    memset(longest, 'L', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    CHECK_MPI(MPI_Add_error_string(k2, longest));
    check_string(k2, longest);
    char toolong[MPI_MAX_ERROR_STRING + 10];
    memset(toolong, 'T', sizeof toolong - 1);
    toolong[sizeof toolong - 1] = '\0';
    EXPECT_CLASS(MPI_Add_error_string(k3, toolong), MPI_ERR_ARG);
    check_string(k3, "");
    EXPECT_CLASS(MPI_Add_error_string(k3, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_string(MPI_ERR_RANK, "mine"), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_string(MPI_ERR_LASTCODE, "mine"), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_string(k3 + 1000, "nobody"), MPI_ERR_ARG);
    {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        CHECK_MPI(MPI_Error_string(MPI_ERR_RANK, s, &len));
        CHECK(strstr(s, "mine") == NULL && len > 0, "predefined string changed: %s", s);
    }

    /* bad arguments to the add functions */
    EXPECT_CLASS(MPI_Add_error_class(NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_code(c1, NULL), MPI_ERR_ARG);
    int dummy = -1;
    EXPECT_CLASS(MPI_Add_error_code(k1, &dummy), MPI_ERR_ARG);  /* k1 is a code, not a class */
    EXPECT_CLASS(MPI_Add_error_code(k3 + 1000, &dummy), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_code(-3, &dummy), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Error_class(k3 + 1000, &dummy), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Error_class(-1, &dummy), MPI_ERR_ARG);

    /* error handlers get user codes */
    MPI_Comm dup;
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_create_errhandler(record_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
    handler_calls = 0;
    CHECK_MPI(MPI_Comm_call_errhandler(dup, k1));
    CHECK(handler_calls == 1 && handler_code == k1 && handler_class == c1,
          "handler: %d calls, code %d (expected %d), class %d (expected %d)", handler_calls, handler_code, k1,
          handler_class, c1);
    CHECK_MPI(MPI_Comm_call_errhandler(dup, c1));
    CHECK(handler_calls == 2 && handler_code == c1 && handler_class == c1, "handler with a class: code %d class %d",
          handler_code, handler_class);
    CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_free(&dup));

    /* removal rules */
    EXPECT_CLASS(MPI_Remove_error_class(c1), MPI_ERR_ARG); /* still has codes k1, k3 */
    EXPECT_CLASS(MPI_Remove_error_code(k1), MPI_ERR_ARG);  /* still has a string */
    EXPECT_CLASS(MPI_Remove_error_class(MPI_ERR_RANK), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Remove_error_code(MPI_ERR_RANK), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Remove_error_string(MPI_ERR_RANK), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Remove_error_code(c1), MPI_ERR_ARG);  /* a class, not a code */
    EXPECT_CLASS(MPI_Remove_error_class(k3), MPI_ERR_ARG); /* a code, not a class */
    EXPECT_CLASS(MPI_Remove_error_string(k3), MPI_ERR_ARG); /* has no string */
    EXPECT_CLASS(MPI_Remove_error_class(k3 + 1000), MPI_ERR_ARG);

    CHECK_MPI(MPI_Remove_error_string(k1));
    check_string(k1, "");
    check_class(k1, c1);
    EXPECT_CLASS(MPI_Remove_error_string(k1), MPI_ERR_ARG);
    CHECK_MPI(MPI_Remove_error_code(k1));
    EXPECT_CLASS(MPI_Error_class(k1, &dummy), MPI_ERR_ARG);
    {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        EXPECT_CLASS(MPI_Error_string(k1, s, &len), MPI_ERR_ARG);
    }
    EXPECT_CLASS(MPI_Remove_error_code(k1), MPI_ERR_ARG); /* already removed */
    EXPECT_CLASS(MPI_Remove_error_class(c1), MPI_ERR_ARG); /* still has k3 */
    CHECK(lastused() == k3, "LASTUSEDCODE %d after removing %d, expected %d", lastused(), k1, k3);
    CHECK_MPI(MPI_Remove_error_code(k3));
    CHECK(lastused() == k2, "LASTUSEDCODE %d after removing %d, expected %d", lastused(), k3, k2);
    EXPECT_CLASS(MPI_Remove_error_class(c1), MPI_ERR_ARG); /* still has its own string */
    CHECK_MPI(MPI_Remove_error_string(c1));
    CHECK_MPI(MPI_Remove_error_class(c1));
    EXPECT_CLASS(MPI_Error_class(c1, &dummy), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Add_error_code(c1, &dummy), MPI_ERR_ARG); /* class gone */
    CHECK_MPI(MPI_Remove_error_string(k2));
    CHECK_MPI(MPI_Remove_error_code(k2));
    CHECK(lastused() == MPI_ERR_LASTCODE, "LASTUSEDCODE %d after removing everything", lastused());

    /* values are not reused */
    int c4 = -1;
    CHECK_MPI(MPI_Add_error_class(&c4));
    CHECK(c4 > k3, "class %d reuses a removed value (<= %d)", c4, k3);
    CHECK(lastused() == c4, "LASTUSEDCODE %d, expected %d", lastused(), c4);
    CHECK_MPI(MPI_Remove_error_class(c4));
    CHECK(lastused() == MPI_ERR_LASTCODE, "LASTUSEDCODE %d at the end", lastused());
}

static int info_int(MPI_Info info, const char* key)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &(int){MPI_MAX_INFO_VAL}, v, &flag));
    CHECK(flag, "info key %s missing", key);
    return flag ? atoi(v) : -1;
}

static void test_abi_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    int nkeys = -1;
    CHECK_MPI(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Abi_get_info gave MPI_INFO_NULL");
    if (info != MPI_INFO_NULL) {
        CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
        CHECK(nkeys == 3, "MPI_Abi_get_info: %d keys", nkeys);
        CHECK(info_int(info, "mpi_aint_size") == (int)sizeof(MPI_Aint), "mpi_aint_size");
        CHECK(info_int(info, "mpi_count_size") == (int)sizeof(MPI_Count), "mpi_count_size");
        CHECK(info_int(info, "mpi_offset_size") == (int)sizeof(MPI_Offset), "mpi_offset_size");
        CHECK_MPI(MPI_Info_free(&info));
    }
    EXPECT_CLASS(MPI_Abi_get_info(NULL), MPI_ERR_ARG);

    MPI_Info f = MPI_INFO_NULL;
    CHECK_MPI(MPI_Abi_get_fortran_info(&f));
    CHECK(f != MPI_INFO_NULL, "MPI_Abi_get_fortran_info gave MPI_INFO_NULL");
    if (f != MPI_INFO_NULL) {
        const struct {
            const char* key;
            MPI_Datatype type;
        } sized[] = {{"mpi_logical_size", MPI_LOGICAL},
                     {"mpi_integer_size", MPI_INTEGER},
                     {"mpi_real_size", MPI_REAL},
                     {"mpi_double_precision_size", MPI_DOUBLE_PRECISION}};
        for (int i = 0; i < 4; ++i) {
            int ts = -1;
            CHECK_MPI(MPI_Type_size(sized[i].type, &ts));
            CHECK(info_int(f, sized[i].key) == ts, "%s: %d, MPI_Type_size says %d", sized[i].key,
                  info_int(f, sized[i].key), ts);
        }
        const char* optional[] = {"mpi_logical1", "mpi_logical2", "mpi_logical4", "mpi_logical8", "mpi_logical16",
                                  "mpi_integer1", "mpi_integer2", "mpi_integer4", "mpi_integer8", "mpi_integer16",
                                  "mpi_real2",    "mpi_real4",    "mpi_real8",    "mpi_real16",   "mpi_complex4",
                                  "mpi_complex8", "mpi_complex16", "mpi_complex32", "mpi_double_complex"};
        for (size_t i = 0; i < sizeof optional / sizeof optional[0]; ++i) {
            char key[64], v[16];
            int flag = 0, len = sizeof v;
            snprintf(key, sizeof key, "%s_supported", optional[i]);
            CHECK_MPI(MPI_Info_get_string(f, key, &len, v, &flag));
            CHECK(flag && strcmp(v, "true") == 0, "%s: %s", key, flag ? v : "(missing)");
        }
        CHECK_MPI(MPI_Info_get_nkeys(f, &nkeys));
        CHECK(nkeys == 4 + 19, "MPI_Abi_get_fortran_info: %d keys", nkeys);
        /* the details are built in: setting them is refused */
        EXPECT_CLASS(MPI_Abi_set_fortran_info(f), MPI_ERR_ABI);
        CHECK_MPI(MPI_Info_free(&f));
    }
    EXPECT_CLASS(MPI_Abi_get_fortran_info(NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Abi_set_fortran_info(MPI_INFO_NULL), MPI_ERR_INFO);

    /* Fortran booleans: 1 and 0, not set, until set once */
    int32_t t4 = 77, f4 = 77;
    int is_set = -1;
    CHECK_MPI(MPI_Abi_get_fortran_booleans(4, &t4, &f4, &is_set));
    CHECK(t4 == 1 && f4 == 0 && is_set == 0, "default booleans: %d %d set %d", t4, f4, is_set);
    EXPECT_CLASS(MPI_Abi_get_fortran_booleans(3, &t4, &f4, &is_set), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Abi_get_fortran_booleans(4, &t4, &f4, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Abi_set_fortran_booleans(6, &t4, &f4), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Abi_set_fortran_booleans(4, NULL, &f4), MPI_ERR_ARG);
    int32_t same = 5;
    EXPECT_CLASS(MPI_Abi_set_fortran_booleans(4, &same, &same), MPI_ERR_ARG);

    /* LAND/LOR/LXOR on MPI_LOGICAL with the default values */
    int32_t in[4] = {1, rank == 0, 0, rank == 0 ? 7 : 0}, out[4] = {-5, -5, -5, -5};
    CHECK_MPI(MPI_Allreduce(in, out, 4, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    /* (one rank: the reduction of one value is that value, unchanged) */
    if (size == 1)
        CHECK(memcmp(in, out, sizeof in) == 0, "LAND default, one rank: %d %d %d %d", out[0], out[1], out[2], out[3]);
    else
        CHECK(out[0] == 1 && out[1] == 0 && out[2] == 0 && out[3] == 0, "LAND default: %d %d %d %d", out[0], out[1],
              out[2], out[3]);

    /* Intel-style booleans: .TRUE. = -1 */
    int32_t tt = -1, ff = 0;
    CHECK_MPI(MPI_Abi_set_fortran_booleans(4, &tt, &ff));
    CHECK_MPI(MPI_Abi_get_fortran_booleans(4, &t4, &f4, &is_set));
    CHECK(t4 == -1 && f4 == 0 && is_set == 1, "booleans after set: %d %d set %d", t4, f4, is_set);
    int8_t t1 = 0, f1 = 9;
    CHECK_MPI(MPI_Abi_get_fortran_booleans(1, &t1, &f1, &is_set));
    CHECK(t1 == -1 && f1 == 0 && is_set == 1, "1-byte booleans: %d %d", t1, f1);
    unsigned char t16[16], f16[16];
    memset(t16, 0, sizeof t16);
    memset(f16, 0x55, sizeof f16);
    CHECK_MPI(MPI_Abi_get_fortran_booleans(16, t16, f16, &is_set));
    int bad16 = 0;
    for (int i = 0; i < 16; ++i) bad16 += t16[i] != 0xff || f16[i] != 0;
    CHECK(bad16 == 0, "16-byte booleans: %d wrong bytes", bad16);
    EXPECT_CLASS(MPI_Abi_set_fortran_booleans(4, &tt, &ff), MPI_ERR_ABI); /* only once */

    int32_t fin[4] = {-1, rank == 0 ? -1 : 0, 0, rank == 0 ? 5 : 0}, fout[4] = {9, 9, 9, 9};
    if (size > 1) {
        CHECK_MPI(MPI_Allreduce(fin, fout, 4, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
        CHECK(fout[0] == -1 && fout[1] == 0 && fout[2] == 0 && fout[3] == 0, "LAND .TRUE.=-1: %d %d %d %d", fout[0],
              fout[1], fout[2], fout[3]);
        CHECK_MPI(MPI_Allreduce(fin, fout, 4, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
        CHECK(fout[0] == -1 && fout[1] == -1 && fout[2] == 0 && fout[3] == -1, "LOR .TRUE.=-1: %d %d %d %d",
              fout[0], fout[1], fout[2], fout[3]);
        CHECK_MPI(MPI_Allreduce(fin, fout, 4, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
        CHECK(fout[0] == (size % 2 ? -1 : 0) && fout[1] == -1 && fout[2] == 0 && fout[3] == -1,
              "LXOR .TRUE.=-1: %d %d %d %d", fout[0], fout[1], fout[2], fout[3]);
        int8_t bin = rank == 0 ? 3 : -1, bout = 0;
        CHECK_MPI(MPI_Allreduce(&bin, &bout, 1, MPI_LOGICAL1, MPI_LAND, MPI_COMM_WORLD));
        CHECK(bout == -1, "LAND on LOGICAL1: %d", bout);
        /* C integers keep 1 and 0 */
        int cin = -1, cout = 0;
        CHECK_MPI(MPI_Allreduce(&cin, &cout, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
        CHECK(cout == 1, "LAND on MPI_INT: %d", cout);
    }
    /* any rank count: MPI_Reduce_local applies the op itself */
    int32_t a[3] = {-1, 0, 2}, b[3] = {-1, -1, 0};
    CHECK_MPI(MPI_Reduce_local(a, b, 3, MPI_LOGICAL, MPI_LOR));
    CHECK(b[0] == -1 && b[1] == -1 && b[2] == -1, "Reduce_local LOR .TRUE.=-1: %d %d %d", b[0], b[1], b[2]);
    int32_t c[3] = {-1, 0, 2}, d[3] = {-1, -1, 0};
    CHECK_MPI(MPI_Reduce_local(c, d, 3, MPI_LOGICAL, MPI_LAND));
    CHECK(d[0] == -1 && d[1] == 0 && d[2] == 0, "Reduce_local LAND .TRUE.=-1: %d %d %d", d[0], d[1], d[2]);
    int ci[2] = {-1, 3}, co[2] = {2, 0};
    CHECK_MPI(MPI_Reduce_local(ci, co, 2, MPI_INT, MPI_LAND));
    CHECK(co[0] == 1 && co[1] == 0, "Reduce_local LAND on MPI_INT: %d %d", co[0], co[1]);

    int major = -1, minor = -1;
    CHECK_MPI(MPI_Abi_get_version(&major, &minor));
    CHECK(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION, "ABI version %d.%d", major, minor);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    test_alloc_mem();
    test_pcontrol();
    test_status();
    test_error_classes();
    test_abi_info();

    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
