/* Built by tests/install/build_project.sh through CMake, Meson and pkg-config against an installed
 * Baton: the version macros of mpix.h must agree with the library's MPI_Get_library_version. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank = -1, size = -1, len = 0, version = 0, subversion = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
#ifndef BATON_VERSION_STRING
#error "mpi.h does not name Baton (BATON_VERSION_STRING)"
#endif
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_version(&version, &subversion);
  MPI_Get_library_version(lib, &len);
  if (strncmp(lib, "Baton " BATON_VERSION_STRING " ", strlen("Baton " BATON_VERSION_STRING " ")) != 0) {
    fprintf(stderr, "the library says \"%s\", the header Baton %s\n", lib, BATON_VERSION_STRING);
    return 1;
  }
  printf("hello from rank %d of %d (MPI %d.%d, Baton %s)\n", rank, size, version, subversion, BATON_VERSION_STRING);
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
