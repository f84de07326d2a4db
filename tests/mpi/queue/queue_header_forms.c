/* Compile-only check (strict C11 and C++11, warnings as errors): every queue function accepts the
 * handle by value and by address, for MPI_ and PMPI_ names and MPIX_Queue_enqueue_host. */
#include <mpi.h>
#include <stddef.h>

static void host(void *arg) { (void)arg; }

int queue_header_forms(MPI_Queue q, MPI_Request *r, MPI_Status *st);
int queue_header_forms(MPI_Queue q, MPI_Request *r, MPI_Status *st)
{
    MPI_Queue *qp = &q;
    int rc = 0;
    rc |= MPI_Enqueue_start(q, r);
    rc |= MPI_Enqueue_start(qp, r);
    rc |= MPI_Enqueue_startall(q, 1, r);
    rc |= MPI_Enqueue_startall(&q, 1, r);
    rc |= MPI_Enqueue_wait(q, r, st);
    rc |= MPI_Enqueue_wait(qp, r, MPI_STATUS_IGNORE);
    rc |= MPI_Enqueue_waitall(q, 1, r, st);
    rc |= MPI_Enqueue_waitall(&q, 1, r, MPI_STATUSES_IGNORE);
    rc |= MPI_Queue_fence(q);
    rc |= MPI_Queue_fence(qp);
    rc |= PMPI_Enqueue_start(q, r);
    rc |= PMPI_Enqueue_startall(qp, 1, r);
    rc |= PMPI_Enqueue_wait(q, r, st);
    rc |= PMPI_Enqueue_waitall(qp, 1, r, st);
    rc |= PMPI_Queue_fence(q);
    rc |= MPIX_Queue_enqueue_host(q, host, NULL);
    rc |= MPIX_Queue_enqueue_host(qp, host, NULL);
    rc |= PMPIX_Queue_enqueue_host(q, host, NULL);
    rc |= MPI_Imatch(r, r) | MPI_IMatch(r, r) | MPI_Imatchall(1, r, r) | MPI_IMatchall(1, r, r);
    rc |= MPI_Queue_free(qp);
    return rc;
}
