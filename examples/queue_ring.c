/* Example 13.1 of the draft chapter on queued communication (MPI_Queue), as printed: a ring
 * exchange whose persistent requests are matched once (MPI_Matchall) and then started and waited
 * through a queue every iteration. The lines marked "added" fill the send buffers and check the
 * received data; everything else is the chapter's text.
 *
 *   build/bin/mpiexec -n 4 build/examples/queue_ring
 */
#include <stdio.h>  /* added */

#include "mpi.h"
#define N    1024
#define NITER 100

int main(int argc, char *argv[])
{
    int rank, size, left, right;
    double send_left[N], send_right[N];
    double recv_left[N], recv_right[N];
    MPI_Queue queue;
    MPI_Request reqs[4];
    MPI_Status  statuses[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Determine neighbors in a 1-D ring topology */
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;

    /* Initialize a queue. A system-specific type and external execution
     * context can be used if available. */
    MPI_Queue_init(&queue, MPI_QUEUE_TYPE_DEFAULT, NULL);

    /* Create persistent send and receive requests for ring exchange */
    MPI_Recv_init(recv_left, N, MPI_DOUBLE, left, 0,
                MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(recv_right, N, MPI_DOUBLE, right, 0,
                MPI_COMM_WORLD, &reqs[1]);
    MPI_Send_init(send_left, N, MPI_DOUBLE, left, 0,
                MPI_COMM_WORLD, &reqs[2]);
    MPI_Send_init(send_right, N, MPI_DOUBLE, right, 0,
                MPI_COMM_WORLD, &reqs[3]);

    /* Match all requests once, removing per-iteration tag matching and
      buffer negotiation from the communication critical path */
    MPI_Matchall(4, reqs);

    for (int i = 0; i < N; i++) {           /* added: what each rank sends */
        send_left[i] = 1000.0 * rank + i;   /* added */
        send_right[i] = -1000.0 * rank - i; /* added */
    }                                       /* added */

    /* Enqueue the data exchange operations each iteration */
    for (int iter = 0; iter < NITER; iter++) {
        MPI_Enqueue_startall(queue, 2, &reqs[0]);

        /* Schedule iteration work needed prior to sending
         * (e.g., packing send buffers) here */
        MPI_Enqueue_startall(queue, 2, &reqs[2]);

        /* Schedule work overlapped with communication here */

        /* Enqueue waits for all sends and receives to complete */
        MPI_Enqueue_waitall(queue, 4, reqs, statuses);

        /* Schedule work that depends on the results of the receive
         * (e.g., unpacking receive buffers) here */
    }

    /* Block until all enqueued communication operations complete */
    MPI_Queue_fence(queue);

    /* added: the left neighbour sent its send_right to us, the right one its send_left. On 1 or
     * 2 ranks both neighbours are one process and the two messages of a pair match in the
     * order of the MPI_Matchall calls: recv_left gets send_left, recv_right gets send_right. */
    int bad = 0;                                                         /* added */
    for (int i = 0; i < N; i++) {                                        /* added */
        double want_left = left == right ? 1000.0 * left + i : -1000.0 * left - i; /* added */
        double want_right = left == right ? -1000.0 * right - i : 1000.0 * right + i; /* added */
        if (recv_left[i] != want_left) bad++;                            /* added */
        if (recv_right[i] != want_right) bad++;                          /* added */
    }                                                                    /* added */
    if (statuses[0].MPI_SOURCE != left || statuses[1].MPI_SOURCE != right) bad++; /* added */
    printf("rank %d: %d iterations with %s and %s: %s\n", rank, NITER,   /* added */
           size > 1 ? "both neighbours" : "itself", "queue", bad ? "WRONG DATA" : "data ok");

    /* Free requests and the queue */
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&reqs[i]);
    MPI_Queue_free(&queue);

    MPI_Finalize();
    return bad ? 1 : 0; /* added: was "return 0;" */
}
