/* Shared by the dynamic-process tests: CHECK (message, then MPI_Abort) and error_class. */
#ifndef BATON_DYNAMIC_TEST_H
#define BATON_DYNAMIC_TEST_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                      \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                             \
    }                                                                           \
  } while (0)

static inline int error_class(int rc) {
  int c = rc;
  MPI_Error_class(rc, &c);
  return c;
}

#endif
