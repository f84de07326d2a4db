/* A 1-D heat equation with halo exchange through a MPIX_QUEUE_TYPE_THREAD queue.
 *
 * Each rank owns M cells. Every step is enqueued on the queue's host executor and runs there in
 * order, while the main thread only enqueues:
 *
 *   host: pack the two edge cells        -> start receives, start sends
 *   host: update the interior cells      (overlaps the halo exchange)
 *   wait for the four requests
 *   host: update the two edge cells from the halos, swap the arrays
 *
 * MPI_Queue_fence waits for all steps; the result is checked against a serial run of the whole
 * rod on every rank.
 *
 *   build/bin/mpiexec -n 4 build/examples/queue_halo_thread
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define M 4096
#define STEPS 200
#define ALPHA 0.25

struct state {
    double *u, *v;                 /* current and next values, with a ghost cell at each end */
    double send_l, send_r, recv_l, recv_r;
};

static void pack(void *arg)
{
    struct state *s = arg;
    s->send_l = s->u[1];
    s->send_r = s->u[M];
}

static void interior(void *arg)
{
    struct state *s = arg;
    for (int i = 2; i < M; i++) s->v[i] = s->u[i] + ALPHA * (s->u[i - 1] - 2 * s->u[i] + s->u[i + 1]);
}

static void edges(void *arg)
{
    struct state *s = arg;
    s->u[0] = s->recv_l;
    s->u[M + 1] = s->recv_r;
    s->v[1] = s->u[1] + ALPHA * (s->u[0] - 2 * s->u[1] + s->u[2]);
    s->v[M] = s->u[M] + ALPHA * (s->u[M - 1] - 2 * s->u[M] + s->u[M + 1]);
    double *t = s->u;
    s->u = s->v;
    s->v = t;
}

static double initial(long g) { return sin(0.001 * (double)g) + (g % 17 == 0 ? 1.0 : 0.0); }

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* a periodic rod: neighbours wrap around */
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    struct state s;
    s.u = calloc(M + 2, sizeof(double));
    s.v = calloc(M + 2, sizeof(double));
    for (int i = 1; i <= M; i++) s.u[i] = initial((long)rank * M + i - 1);

    MPI_Queue q;
    MPI_Request reqs[4];
    MPI_Queue_init(&q, MPIX_QUEUE_TYPE_THREAD, NULL);
    MPI_Recv_init(&s.recv_l, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(&s.recv_r, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send_init(&s.send_l, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Send_init(&s.send_r, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[3]);
    MPI_Matchall(4, reqs);

    double t0 = MPI_Wtime();
    for (int step = 0; step < STEPS; step++) {
        MPIX_Queue_enqueue_host(q, pack, &s);
        MPI_Enqueue_startall(q, 2, &reqs[0]);
        MPI_Enqueue_startall(q, 2, &reqs[2]);
        MPIX_Queue_enqueue_host(q, interior, &s);
        MPI_Enqueue_waitall(q, 4, reqs, MPI_STATUSES_IGNORE);
        MPIX_Queue_enqueue_host(q, edges, &s);
    }
    double t_enqueue = MPI_Wtime() - t0;
    MPI_Queue_fence(q);
    double t_all = MPI_Wtime() - t0;

    /* the same rod, serially */
    long n = (long)M * size;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    for (long g = 0; g < n; g++) a[g] = initial(g);
    for (int step = 0; step < STEPS; step++) {
        for (long g = 0; g < n; g++) b[g] = a[g] + ALPHA * (a[(g - 1 + n) % n] - 2 * a[g] + a[(g + 1) % n]);
        double *t = a;
        a = b;
        b = t;
    }
    int bad = 0;
    for (int i = 1; i <= M; i++)
        if (fabs(s.u[i] - a[(long)rank * M + i - 1]) > 1e-12) bad++;
    printf("rank %d: %d steps of %d cells, enqueued in %.3f ms, done in %.3f ms: %s\n", rank, STEPS, M,
           1e3 * t_enqueue, 1e3 * t_all, bad ? "WRONG" : "matches the serial run");

    for (int i = 0; i < 4; i++) MPI_Request_free(&reqs[i]);
    MPI_Queue_free(&q);
    free(a);
    free(b);
    free(s.u);
    free(s.v);
    MPI_Finalize();
    return bad ? 1 : 0;
}
