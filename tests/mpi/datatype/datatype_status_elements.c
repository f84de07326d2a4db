/* MPI_Status_set_elements(_c/_x) take a number of basic elements, not of the datatype: Get_count
 * and Get_elements must then agree with it for derived, mixed (struct), pair and > 2 GiB types
 * (found by MPICH's datatype/large_count). */
#include <limits.h>

#include "mpitest.h"

static void expect(MPI_Datatype t, MPI_Count n, int want_count, MPI_Count want_elements, const char* what)
{
    MPI_Status st;
    int count = -7, elements = -7;
    MPI_Count ec = -7;
    if (n <= INT_MAX) {
        CHECK_MPI(MPI_Status_set_elements(&st, t, (int)n));
        CHECK_MPI(MPI_Get_count(&st, t, &count));
        CHECK_MPI(MPI_Get_elements(&st, t, &elements));
        CHECK(count == want_count, "%s: set_elements(%lld): count %d, expected %d", what, (long long)n, count,
              want_count);
        CHECK(elements == (int)want_elements, "%s: set_elements(%lld): elements %d", what, (long long)n, elements);
    }
    CHECK_MPI(MPI_Status_set_elements_c(&st, t, n));
    CHECK_MPI(MPI_Get_count(&st, t, &count));
    CHECK_MPI(MPI_Get_elements_c(&st, t, &ec));
    CHECK_MPI(MPI_Get_elements(&st, t, &elements));
    CHECK(count == want_count, "%s: set_elements_c(%lld): count %d, expected %d", what, (long long)n, count,
          want_count);
    CHECK(ec == want_elements, "%s: set_elements_c(%lld): elements %lld", what, (long long)n, (long long)ec);
    CHECK(elements == (want_elements > INT_MAX ? MPI_UNDEFINED : (int)want_elements),
          "%s: set_elements_c(%lld): int elements %d", what, (long long)n, elements);
    CHECK_MPI(MPI_Status_set_elements_x(&st, t, n));
    CHECK_MPI(MPI_Get_elements_x(&st, t, &ec));
    CHECK(ec == want_elements, "%s: set_elements_x(%lld): elements %lld", what, (long long)n, (long long)ec);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Datatype four, mixed, big;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK_MPI(MPI_Type_commit(&four));
    expect(four, 4, 1, 4, "contiguous(4 int)");
    expect(four, 8, 2, 8, "contiguous(4 int)");
    expect(four, 6, MPI_UNDEFINED, 6, "contiguous(4 int)");
    int bl[4] = {1, 1, 1, 1};
    MPI_Aint dis[4] = {0, 8, 16, 24};
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_SHORT};
    CHECK_MPI(MPI_Type_create_struct(4, bl, dis, ty, &mixed));
    CHECK_MPI(MPI_Type_commit(&mixed));
    expect(mixed, 4, 1, 4, "struct(char,int,double,short)");
    expect(mixed, 10, MPI_UNDEFINED, 10, "struct(char,int,double,short)");
    expect(mixed, 12, 3, 12, "struct(char,int,double,short)");
    expect(MPI_2INT, 2, 1, 2, "MPI_2INT");
    expect(MPI_2INT, 3, MPI_UNDEFINED, 3, "MPI_2INT");
    expect(MPI_DOUBLE_INT, 4, 2, 4, "MPI_DOUBLE_INT");
    /* a type of more than 2 GiB (never allocated) */
    CHECK_MPI(MPI_Type_vector(INT_MAX / 2, 1, 3, four, &big));
    CHECK_MPI(MPI_Type_commit(&big));
    const MPI_Count per = 4LL * (INT_MAX / 2);
    expect(big, per, 1, per, "vector of > 2 GiB");
    expect(big, 3 * per, 3, 3 * per, "vector of > 2 GiB");
    CHECK_MPI(MPI_Type_free(&big));
    CHECK_MPI(MPI_Type_free(&mixed));
    CHECK_MPI(MPI_Type_free(&four));
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
