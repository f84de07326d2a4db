/* The progress thread stays out of the way of an application that calls MPI all the time
 * (BATON_ASYNC_PROGRESS=1).
 *
 * A loop of 8-byte Iallreduce+Wait and Allreduce: each call lasts well under a microsecond and the
 * application drives MPI itself, so the progress thread (at SCHED_IDLE, off the engine while the
 * application waits inside MPI) should cost it no blocking waits. It used to be woken at every wait that ended and at every
 * nonblocking call, and in about half the launches the process then blocked and woke tens of
 * thousands of times (futex waits) with each collective taking 10-80 us instead of 0.5. The test
 * counts the process's voluntary context switches (getrusage: every thread's blocking waits)
 * over the loop and fails when there are more than a sleeping thread's periodic checks (one per
 * millisecond) and some slack allow. The results are checked as well.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "mpitest.h"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long iters = argc > 1 ? atol(argv[1]) : 5000;
    double in = rank + 1.0, out = 0.0;
    const double want = size * (size + 1) / 2.0;
    for (int k = 0; k < 1000; ++k) CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));

    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    const double t0 = MPI_Wtime();
    long wrong = 0;
    for (long i = 0; i < iters; ++i) {
        MPI_Request q;
        out = 0.0;
        CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        wrong += out != want;
        out = 0.0;
        CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        wrong += out != want;
    }
    const double ms = (MPI_Wtime() - t0) * 1e3;
    getrusage(RUSAGE_SELF, &r1);
    CHECK(wrong == 0, "%ld of %ld results wrong", wrong, 2 * iters);
    const long switches = r1.ru_nvcsw - r0.ru_nvcsw;
    const long allowed = 100 + (long)(2.0 * ms) + iters / 100;
    CHECK(switches <= allowed,
          "%ld voluntary context switches in %.1f ms (%ld collectives of 8 bytes), more than %ld: "
          "the progress thread is woken while the application drives MPI itself",
          switches, ms, 2 * iters, allowed);
    if (rank == 0) printf("%ld voluntary context switches in %.1f ms (allowed %ld)\n", switches, ms, allowed);
    int rc = mpitest_finish();
    MPI_Finalize();
    return rc;
}
