/* Info objects: set/get_string/get/get_valuelen/get_nkeys/get_nthkey/delete/dup/free round
 * trips, key order, replacement, buffer-length protocol of MPI_Info_get_string, limits and error
 * classes, MPI_INFO_ENV (read-only) and MPI_Info_create_env. */
#include "mpitest.h"

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info in, dup;
    char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY];
    int n, flag, len;
    CHECK_MPI(MPI_Info_create(&in));
    CHECK_MPI(MPI_Info_get_nkeys(in, &n));
    CHECK(n == 0, "new info has %d keys", n);
    CHECK_MPI(MPI_Info_set(in, "alpha", "1"));
    CHECK_MPI(MPI_Info_set(in, "beta", "two"));
    CHECK_MPI(MPI_Info_set(in, "gamma", ""));
    CHECK_MPI(MPI_Info_set(in, "alpha", "uno"));  /* replaces, keeps position */
    CHECK_MPI(MPI_Info_get_nkeys(in, &n));
    CHECK(n == 3, "nkeys %d", n);
    const char* order[3] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3 && i < n; i++) {
        CHECK_MPI(MPI_Info_get_nthkey(in, i, key));
        CHECK(strcmp(key, order[i]) == 0, "key %d is \"%s\", expected \"%s\"", i, key, order[i]);
    }
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(in, "alpha", &len, val, &flag));
    CHECK(flag && strcmp(val, "uno") == 0 && len == 4, "alpha: flag %d \"%s\" len %d", flag, val, len);
    len = 0;  /* ask for the length only */
    CHECK_MPI(MPI_Info_get_string(in, "beta", &len, NULL, &flag));
    CHECK(flag && len == 4, "beta length query: flag %d len %d", flag, len);
    len = 2;  /* truncated */
    CHECK_MPI(MPI_Info_get_string(in, "beta", &len, val, &flag));
    CHECK(flag && strcmp(val, "t") == 0 && len == 4, "beta truncated: \"%s\" len %d", val, len);
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(in, "gamma", &len, val, &flag));
    CHECK(flag && val[0] == 0 && len == 1, "empty value: flag %d len %d", flag, len);
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(in, "delta", &len, val, &flag));
    CHECK(!flag, "absent key found");
    /* deprecated getters */
    CHECK_MPI(MPI_Info_get_valuelen(in, "beta", &len, &flag));
    CHECK(flag && len == 3, "valuelen %d", len);
    CHECK_MPI(MPI_Info_get(in, "beta", 2, val, &flag));
    CHECK(flag && strcmp(val, "tw") == 0, "Info_get truncated \"%s\"", val);
    CHECK_MPI(MPI_Info_get(in, "beta", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "two") == 0, "Info_get \"%s\"", val);
    CHECK_MPI(MPI_Info_get_valuelen(in, "nope", &len, &flag));
    CHECK(!flag, "valuelen of an absent key");

    /* dup is deep */
    CHECK_MPI(MPI_Info_dup(in, &dup));
    CHECK_MPI(MPI_Info_delete(in, "beta"));
    CHECK_MPI(MPI_Info_get_nkeys(in, &n));
    CHECK(n == 2, "nkeys after delete %d", n);
    CHECK_MPI(MPI_Info_get_nthkey(in, 1, key));
    CHECK(strcmp(key, "gamma") == 0, "order after delete: \"%s\"", key);
    CHECK_MPI(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 3, "dup nkeys %d", n);
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(dup, "beta", &len, val, &flag));
    CHECK(flag && strcmp(val, "two") == 0, "dup keeps beta");

    /* limits and errors */
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof longkey);
    longkey[MPI_MAX_INFO_KEY - 1] = 0;  /* 255 characters: allowed */
    CHECK_MPI(MPI_Info_set(in, longkey, "ok"));
    longkey[MPI_MAX_INFO_KEY - 1] = 'k';
    longkey[MPI_MAX_INFO_KEY] = 0;  /* 256: too long */
    CHECK(err_class(MPI_Info_set(in, longkey, "x")) == MPI_ERR_INFO_KEY, "long key");
    CHECK(err_class(MPI_Info_set(in, "", "x")) == MPI_ERR_INFO_KEY, "empty key");
    char* longval = (char*)mpitest_malloc(MPI_MAX_INFO_VAL + 2);
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL + 1] = 0;
    CHECK(err_class(MPI_Info_set(in, "k", longval)) == MPI_ERR_INFO_VALUE, "long value");
    longval[MPI_MAX_INFO_VAL - 1] = 0;
    CHECK_MPI(MPI_Info_set(in, "k", longval));
    free(longval);
    CHECK(err_class(MPI_Info_delete(in, "absent")) == MPI_ERR_INFO_NOKEY, "delete absent");
    CHECK(err_class(MPI_Info_get_nthkey(in, 99, key)) == MPI_ERR_ARG, "nthkey out of range");
    CHECK(err_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_INFO, "MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_free(&in));
    CHECK(in == MPI_INFO_NULL, "Info_free sets MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_free(&dup));

    /* MPI_INFO_ENV */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &len, val, &flag));
    CHECK(flag && atoi(val) == size, "env maxprocs \"%s\"", flag ? val : "");
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "command", &len, val, &flag));
    CHECK(flag && strstr(val, "info_basic") != NULL, "env command \"%s\"", flag ? val : "");
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(MPI_INFO_ENV, "host", &len, val, &flag));
    CHECK(flag && val[0], "env host");
    CHECK(err_class(MPI_Info_set(MPI_INFO_ENV, "a", "b")) == MPI_ERR_INFO, "INFO_ENV is read-only");
    MPI_Info env = MPI_INFO_ENV;
    CHECK(err_class(MPI_Info_free(&env)) == MPI_ERR_INFO, "INFO_ENV cannot be freed");
    CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &dup));
    CHECK_MPI(MPI_Info_set(dup, "a", "b"));  /* a dup is writable */
    CHECK_MPI(MPI_Info_free(&dup));
    char* av[3] = {"prog", "x", "y z"};
    CHECK_MPI(MPI_Info_create_env(3, av, &dup));
    len = sizeof val;
    CHECK_MPI(MPI_Info_get_string(dup, "argv", &len, val, &flag));
    CHECK(flag && strcmp(val, "x y z") == 0, "create_env argv \"%s\"", flag ? val : "");
    CHECK_MPI(MPI_Info_free(&dup));

    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
