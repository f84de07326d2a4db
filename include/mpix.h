/*
 * mpix.h -- Baton extensions to MPI.
 *
 * Everything here is Baton's own, not the standard's, and every name starts
 * with MPIX_ (functions also get a PMPIX_ profiling twin through
 * BATON_MPI_DECL from mpi.h).  A program that uses only mpi.h's standard
 * names stays portable to any standard-ABI MPI library; one that uses MPIX_
 * names should guard them, e.g. with #ifdef MPIX_ICOLL_MAX_OUTSTANDING.
 *
 * mpi.h includes this file at its end; including it alone also works.
 */
#ifndef BATON_MPIX_H
#define BATON_MPIX_H

#include "mpi.h"

/*
 * The implementation and its version, for programs and build tools that tell MPI libraries apart
 * at compile time (as MPICH_VERSION and OPEN_MPI do for those). MPI_Get_library_version gives the
 * same version at run time: "Baton <major>.<minor>.<patch> (...)". The build reads the version
 * from here (CMakeLists.txt).
 */
#define BATON_MPI 1
#define BATON_VERSION_MAJOR 0
#define BATON_VERSION_MINOR 1
#define BATON_VERSION_PATCH 0
#define BATON_VERSION_STRING "0.1.0"
#define BATON_NUMVERSION (BATON_VERSION_MAJOR * 10000 + BATON_VERSION_MINOR * 100 + BATON_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Predefined attribute keys.
 *
 * The standard's predefined keys are 501-507 (communicators) and 601-605
 * (windows); MPI_KEYVAL_INVALID is 0.  Baton's predefined keys take
 * 1001-1099, clear of the standard's and of the range the library hands out
 * for keys created with MPI_Comm_create_keyval and friends (src/core must
 * never allocate a user key below 1100).
 *
 * MPIX_ICOLL_MAX_OUTSTANDING: communicator attribute, read-only.
 *   MPI_Comm_get_attr yields a pointer to an int: how many nonblocking (and
 *   started persistent) collective operations Baton lets run at once on one
 *   communicator.  The collective layer (src/coll/) sets the number and owns
 *   what happens past it.
 */
enum {
    MPIX_ICOLL_MAX_OUTSTANDING = 1001
};

/*
 * Queue types beyond MPI_QUEUE_TYPE_DEFAULT (docs/queues.md).
 *
 * MPIX_QUEUE_TYPE_THREAD: the queue owns a host executor thread that runs
 *   its operations as a serial task stream; `external` is ignored (pass
 *   NULL).  MPIX_Queue_enqueue_host adds the program's own host functions to
 *   that stream, ordered with the enqueued starts and waits.  Creating one
 *   makes the library thread-safe internally whatever thread level the
 *   program asked for.
 * MPIX_QUEUE_TYPE_CUDA: `external` is a cudaStream_t.  An enqueued start
 *   begins when the stream reaches it; the stream waits at an enqueued wait
 *   until the communication completed (stream memory operations on
 *   host-mapped counters).  Available when Baton was built with the CUDA
 *   toolkit and the process has a CUDA context; otherwise MPI_Queue_init
 *   returns MPI_ERR_UNSUPPORTED_OPERATION.  Buffers must be host-accessible.
 */
enum {
    MPIX_QUEUE_TYPE_THREAD = 1001,
    MPIX_QUEUE_TYPE_CUDA   = 1002
};

/* MPIX_Queue_enqueue_host runs fn(arg) on a MPIX_QUEUE_TYPE_THREAD queue's
 * executor, after every operation enqueued before it and before every operation
 * enqueued after. fn must not call MPI_Enqueue_ or MPI_Queue_ functions on its
 * own queue.
 * MPIX_Comm_agree / MPIX_Comm_iagree (the ULFM names MPICH and Open MPI export)
 * set *flag to the bitwise AND of every rank's *flag on an intracommunicator;
 * agreements are ordered among themselves, not against other collectives. */
/* @api begin: mpix (generated from tools/api/mpi_api.txt by tools/api/gen_api.py) */
BATON_MPI_DECL(int, MPIX_Comm_agree, (MPI_Comm comm, int *flag));
BATON_MPI_DECL(int, MPIX_Comm_iagree, (MPI_Comm comm, int *flag, MPI_Request *request));
BATON_MPI_DECL(int, MPIX_Queue_enqueue_host, (MPI_Queue *queue, void (*fn)(void *arg), void *arg));
/* @api end */

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifndef BATON_NO_QUEUE_BY_VALUE
#if defined(__cplusplus)
inline int MPIX_Queue_enqueue_host(MPI_Queue queue, void (*fn)(void *arg), void *arg) { return MPIX_Queue_enqueue_host(&queue, fn, arg); }
inline int PMPIX_Queue_enqueue_host(MPI_Queue queue, void (*fn)(void *arg), void *arg) { return PMPIX_Queue_enqueue_host(&queue, fn, arg); }
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static inline int baton_queue_enqueue_host_v(MPI_Queue queue, void (*fn)(void *arg), void *arg) { return (MPIX_Queue_enqueue_host)(&queue, fn, arg); }
static inline int baton_pqueue_enqueue_host_v(MPI_Queue queue, void (*fn)(void *arg), void *arg) { return (PMPIX_Queue_enqueue_host)(&queue, fn, arg); }
#define MPIX_Queue_enqueue_host(queue, ...) _Generic((queue), MPI_Queue: baton_queue_enqueue_host_v, default: MPIX_Queue_enqueue_host)(queue, __VA_ARGS__)
#define PMPIX_Queue_enqueue_host(queue, ...) _Generic((queue), MPI_Queue: baton_pqueue_enqueue_host_v, default: PMPIX_Queue_enqueue_host)(queue, __VA_ARGS__)
#endif
#endif /* BATON_NO_QUEUE_BY_VALUE */

/* MPI_Fint and the classic c2f / f2c names over MPI_<Handle>_toint / _fromint (mpi_fortran.h). */
#ifndef BATON_NO_MPI_FORTRAN_H
#include "mpi_fortran.h"
#endif

#endif /* BATON_MPIX_H */
