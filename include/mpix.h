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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BATON_MPIX_H */
