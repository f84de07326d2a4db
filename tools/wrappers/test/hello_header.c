/* Needs mpi.h at compile time and libmpi_abi at run time (through the rpath), no MPI calls. */
#include <mpi.h>
#include <stdio.h>

int main(void) {
  printf("hello from a C program built against MPI %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
  return 0;
}
