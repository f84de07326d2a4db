/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first (last set first), then those of
 * MPI_COMM_WORLD, while MPI is still usable (MPI-4.1 11.2.2). Checked after MPI_Finalize: each
 * rank exits non-zero if the callbacks did not run in that order. */
#include "mpitest.h"

static int order[8], norder = 0, usable = 1;

static int del_cb(MPI_Comm c, int key, void* val, void* extra)
{
    (void)c;
    (void)key;
    (void)extra;
    int r = -1;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r < 0) usable = 0;
    if (norder < 8) order[norder] = (int)(intptr_t)val;
    norder++;
    return MPI_SUCCESS;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int k1, k2;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_cb, &k1, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_cb, &k2, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, (void*)(intptr_t)3));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void*)(intptr_t)2));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void*)(intptr_t)1));
    CHECK_MPI(MPI_Comm_free_keyval(&k1));  /* attributes outlive their freed keyvals */
    CHECK_MPI(MPI_Comm_free_keyval(&k2));
    int result = mpitest_finish();
    MPI_Finalize();
    if (norder != 3 || order[0] != 1 || order[1] != 2 || order[2] != 3 || !usable) {
        fprintf(stderr, "finalize ran %d delete callbacks (%d %d %d), MPI usable: %d; expected 1 2 3\n", norder,
                order[0], order[1], order[2], usable);
        return 1;
    }
    return result;
}
