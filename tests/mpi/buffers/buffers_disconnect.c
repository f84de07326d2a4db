/* MPI_Comm_disconnect: waits for the pending Isend/Irecv (eager and rendezvous) and an Ibarrier on
 * the communicator (the receive buffers are full when it returns, before any MPI_Wait), detaches
 * the communicator's buffer (a buffered send made just before is delivered), leaves an inactive
 * persistent request usable until freed, nulls the handle, refuses MPI_COMM_WORLD, MPI_COMM_SELF
 * and MPI_COMM_NULL (MPI_ERR_COMM). MPI_Get_hw_resource_info: a new info whose CPU keys agree with
 * sched_getaffinity. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "mpitest.h"

#define SMALL 16
#define LARGE (1 << 18) /* ints: rendezvous */

static int rank, size, next, prev;

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void check_hw_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_Get_hw_resource_info(&info));
    CHECK(info != MPI_INFO_NULL, "no info object");
    if (info == MPI_INFO_NULL) return;
    int nkeys = 0;
    CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 5, "only %d keys", nkeys);
    cpu_set_t set;
    CPU_ZERO(&set);
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity failed");
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0, len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, "baton_num_cpus", &len, v, &flag));
    CHECK(flag && atoi(v) == CPU_COUNT(&set), "baton_num_cpus is %s, sched_getaffinity has %d", flag ? v : "unset",
          CPU_COUNT(&set));
    /* baton_cpus lists exactly the CPUs of the mask */
    len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, "baton_cpus", &len, v, &flag));
    CHECK(flag, "baton_cpus unset");
    if (flag) {
        cpu_set_t listed;
        CPU_ZERO(&listed);
        char* p = v;
        while (*p) {
            char* end;
            long a = strtol(p, &end, 10), b = a;
            if (*end == '-') b = strtol(end + 1, &end, 10);
            for (long c = a; c <= b; c++) CPU_SET((int)c, &listed);
            p = *end == ',' ? end + 1 : end;
            if (end == p && *p) break;
        }
        CHECK(CPU_EQUAL(&listed, &set), "baton_cpus \"%s\" differs from the affinity mask", v);
    }
    len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, "baton_online_cpus", &len, v, &flag));
    CHECK(flag && atoi(v) >= CPU_COUNT(&set), "baton_online_cpus %s below the affinity count", flag ? v : "unset");
    len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, "mpi_hw_resource_type", &len, v, &flag));
    CHECK(flag && strcmp(v, "mpi_shared_memory") == 0, "mpi_hw_resource_type is %s", flag ? v : "unset");
    len = MPI_MAX_INFO_VAL;
    CHECK_MPI(MPI_Info_get_string(info, "baton_memory_bytes", &len, v, &flag));
    CHECK(flag && atoll(v) > 0, "baton_memory_bytes is %s", flag ? v : "unset");
    CHECK_MPI(MPI_Info_free(&info));
    int rc = MPI_Get_hw_resource_info(NULL);
    CHECK(err_class(rc) == MPI_ERR_ARG, "NULL hw_info gave class %d", err_class(rc));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    mpitest_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int* out_l = malloc(sizeof(int) * LARGE);
    int* in_l = malloc(sizeof(int) * LARGE);
    int out_s[SMALL], in_s[SMALL], in_b[SMALL];
    for (int i = 0; i < LARGE; i++) {
        out_l[i] = rank * 3 + i;
        in_l[i] = -1;
    }
    for (int i = 0; i < SMALL; i++) {
        out_s[i] = rank * 5 + i;
        in_s[i] = in_b[i] = -1;
    }

    for (int round = 0; round < 3; round++) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        char* buf = malloc(SMALL * sizeof(int) + MPI_BSEND_OVERHEAD);
        CHECK_MPI(MPI_Comm_attach_buffer(c, buf, SMALL * sizeof(int) + MPI_BSEND_OVERHEAD));
        MPI_Request r[6];
        MPI_Request pr;
        CHECK_MPI(MPI_Recv_init(in_s, SMALL, MPI_INT, prev, 99, c, &pr)); /* inactive: must not hold it up */
        /* round 1: the receives are posted after every send has started (unexpected messages) */
        if (round != 1) {
            CHECK_MPI(MPI_Irecv(in_l, LARGE, MPI_INT, prev, 1, c, &r[0]));
            CHECK_MPI(MPI_Irecv(in_s, SMALL, MPI_INT, prev, 2, c, &r[1]));
            CHECK_MPI(MPI_Irecv(in_b, SMALL, MPI_INT, prev, 3, c, &r[2]));
        }
        CHECK_MPI(MPI_Isend(out_l, LARGE, MPI_INT, next, 1, c, &r[3]));
        CHECK_MPI(MPI_Isend(out_s, SMALL, MPI_INT, next, 2, c, &r[4]));
        CHECK_MPI(MPI_Bsend(out_s, SMALL, MPI_INT, next, 3, c));
        if (round == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Irecv(in_l, LARGE, MPI_INT, prev, 1, c, &r[0]));
            CHECK_MPI(MPI_Irecv(in_s, SMALL, MPI_INT, prev, 2, c, &r[1]));
            CHECK_MPI(MPI_Irecv(in_b, SMALL, MPI_INT, prev, 3, c, &r[2]));
        }
        CHECK_MPI(MPI_Ibarrier(c, &r[5]));
        MPI_Comm keep = c;
        CHECK_MPI(MPI_Comm_disconnect(&c));
        CHECK(c == MPI_COMM_NULL, "round %d: Comm_disconnect did not null the handle", round);
        (void)keep;
        /* everything completed inside disconnect: the data is there before any MPI_Wait */
        int bad = 0;
        for (int i = 0; i < LARGE; i++) bad += in_l[i] != prev * 3 + i;
        for (int i = 0; i < SMALL; i++) bad += (in_s[i] != prev * 5 + i) + (in_b[i] != prev * 5 + i);
        CHECK(bad == 0, "round %d: %d values not received when Comm_disconnect returned", round, bad);
        for (int i = 0; i < 6; i++) {
            int flag = 0;
            MPI_Status st;
            CHECK_MPI(MPI_Request_get_status(r[i], &flag, &st));
            CHECK(flag, "round %d: request %d not complete after Comm_disconnect", round, i);
        }
        MPI_Status sts[6];
        CHECK_MPI(MPI_Waitall(6, r, sts));
        CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 1, "round %d: large receive status %d/%d", round,
              sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        CHECK_MPI(MPI_Request_free(&pr));
        free(buf); /* detached by disconnect, its message delivered */
        for (int i = 0; i < LARGE; i++) in_l[i] = -1;
        for (int i = 0; i < SMALL; i++) in_s[i] = in_b[i] = -1;
        if (round == 2) {
            /* a persistent request started before: disconnect waits for it like any other */
            CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
            MPI_Request ps[2];
            CHECK_MPI(MPI_Recv_init(in_s, SMALL, MPI_INT, prev, 7, c, &ps[0]));
            CHECK_MPI(MPI_Send_init(out_s, SMALL, MPI_INT, next, 7, c, &ps[1]));
            CHECK_MPI(MPI_Startall(2, ps));
            CHECK_MPI(MPI_Comm_disconnect(&c));
            bad = 0;
            for (int i = 0; i < SMALL; i++) bad += in_s[i] != prev * 5 + i;
            CHECK(bad == 0, "persistent receive not complete after Comm_disconnect");
            CHECK_MPI(MPI_Waitall(2, ps, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Request_free(&ps[0]));
            CHECK_MPI(MPI_Request_free(&ps[1]));
        }
    }

    /* refused: the predefined communicators and MPI_COMM_NULL */
    MPI_Comm w = MPI_COMM_WORLD;
    int rc = MPI_Comm_disconnect(&w);
    CHECK(err_class(rc) == MPI_ERR_COMM, "disconnecting MPI_COMM_WORLD gave class %d", err_class(rc));
    CHECK(w == MPI_COMM_WORLD, "the handle changed");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm self = MPI_COMM_SELF;
    rc = MPI_Comm_disconnect(&self);
    CHECK(err_class(rc) == MPI_ERR_COMM, "disconnecting MPI_COMM_SELF gave class %d", err_class(rc));
    MPI_Comm nul = MPI_COMM_NULL;
    rc = MPI_Comm_disconnect(&nul);
    CHECK(err_class(rc) == MPI_ERR_COMM, "disconnecting MPI_COMM_NULL gave class %d", err_class(rc));
    rc = MPI_Comm_disconnect(NULL);
    CHECK(err_class(rc) == MPI_ERR_ARG, "a NULL pointer gave class %d", err_class(rc));
    MPI_Barrier(MPI_COMM_WORLD); /* still works */

    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent is not MPI_COMM_NULL");

    check_hw_info();

    int result = mpitest_finish();
    free(out_l);
    free(in_l);
    MPI_Finalize();
    return result;
}
