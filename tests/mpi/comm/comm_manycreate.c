/* 20,000 communicators created and freed in a loop (context ids are reused, never collide),
 * mixing dup, split, create and create_group, with traffic on some; then 2,000 alive at once.
 * argv[1], if given, replaces the cycle count. */
#include "mpitest.h"

#define ALIVE 2000

static int wrank, wsize;

static void ring(MPI_Comm c, int iter)
{
    int r, s, got = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    int v = iter * 1000 + r;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % s, 0, &got, 1, MPI_INT, (r - 1 + s) % s, 0, c,
                           MPI_STATUS_IGNORE));
    CHECK(got == iter * 1000 + (r - 1 + s) % s, "iteration %d: got %d", iter, got);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const int cycles = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm base;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    for (int i = 0; i < cycles && mpitest_failures() == 0; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        switch (i % 4) {
        case 0: CHECK_MPI(MPI_Comm_dup(base, &c)); break;
        case 1: CHECK_MPI(MPI_Comm_split(base, wrank % 2, wrank, &c)); break;
        case 2: CHECK_MPI(MPI_Comm_create(base, world, &c)); break;
        default: CHECK_MPI(MPI_Comm_create_group(base, world, i, &c)); break;
        }
        if (c == MPI_COMM_NULL) break;
        if (i % 97 == 0) ring(c, i);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    /* many alive at once, each still usable, then freed in an interleaved order */
    MPI_Comm* cs = (MPI_Comm*)mpitest_malloc(sizeof(MPI_Comm) * ALIVE);
    for (int i = 0; i < ALIVE; i++) CHECK_MPI(MPI_Comm_dup(i ? cs[i - 1] : base, &cs[i]));
    for (int i = 0; i < ALIVE; i += 199) ring(cs[i], i);
    for (int i = 0; i < ALIVE; i += 2) CHECK_MPI(MPI_Comm_free(&cs[i]));
    for (int i = 1; i < ALIVE; i += 2) {
        /* refill the freed slots: the reused ids must not disturb the survivors */
        CHECK_MPI(MPI_Comm_dup(base, &cs[i - 1]));
    }
    for (int i = 0; i < ALIVE; i += 101) ring(cs[i], i + 1);
    for (int i = 0; i < ALIVE; i++) CHECK_MPI(MPI_Comm_free(&cs[i]));
    free(cs);
    CHECK_MPI(MPI_Comm_free(&base));
    MPI_Group_free(&world);
    int result = mpitest_finish();
    MPI_Finalize();
    return result;
}
