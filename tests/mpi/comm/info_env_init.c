/* MPI_Info_create_env gives the same keys and values before MPI_Init, after it and after
 * MPI_Finalize (MPI-4.1 11.2.4 allows it at any time), and MPI_INFO_ENV agrees with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int failures;

static void same(MPI_Info a, MPI_Info b, const char* when)
{
    const char* keys[] = {"command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "file", "thread_level"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
        char va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
        int la = MPI_MAX_INFO_VAL, lb = MPI_MAX_INFO_VAL, fa = 0, fb = 0;
        MPI_Info_get_string(a, keys[i], &la, va, &fa);
        MPI_Info_get_string(b, keys[i], &lb, vb, &fb);
        if (fa != fb || (fa && strcmp(va, vb) != 0)) {
            fprintf(stderr, "%s: key %s differs: %s'%s' vs %s'%s'\n", when, keys[i], fa ? "" : "(unset)", fa ? va : "",
                    fb ? "" : "(unset)", fb ? vb : "");
            ++failures;
        }
    }
}

int main(int argc, char** argv)
{
    MPI_Info before, during, after;
    MPI_Info_create_env(argc, argv, &before);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info_create_env(argc, argv, &during);
    same(before, during, "before/after MPI_Init");
    same(during, MPI_INFO_ENV, "create_env/MPI_INFO_ENV");
    char v[MPI_MAX_INFO_VAL];
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MPI_Info_get_string(during, "maxprocs", &len, v, &flag);
    if (!flag || atoi(v) != size) {
        fprintf(stderr, "maxprocs '%s', expected %d\n", flag ? v : "(unset)", size);
        ++failures;
    }
    /* the verdict goes through point-to-point before finalize; the after-finalize check is local */
    MPI_Finalize();
    MPI_Info_create_env(argc, argv, &after);
    same(before, after, "before MPI_Init/after MPI_Finalize");
    MPI_Info_free(&before);
    MPI_Info_free(&during);
    MPI_Info_free(&after);
    printf("%s (rank %d)\n", failures ? "FAIL" : "PASS", rank);
    return failures ? 1 : 0;
}
