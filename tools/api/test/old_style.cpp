// A binding file in the style before tools/api (the conversion test's input).
#include "abi/abi.hpp"

namespace {
int amode_impl(const char* fn, MPI_File fh, int* amode) { return fn && fh && amode ? 0 : 1; }
}  // namespace

extern "C" {

int PMPI_File_get_amode(MPI_File fh, int* amode) { return amode_impl("MPI_File_get_amode", fh, amode); }
BATON_ALIAS(MPI_File_get_amode);

#define BATON_FILE_SYNC(Name)                 \
  int P##Name(MPI_File fh) {                  \
    return PMPI_File_get_amode(fh, nullptr);  \
  }                                           \
  BATON_ALIAS(Name);

BATON_FILE_SYNC(MPI_File_sync)

MPI_File PMPI_File_fromint(int i) { return i ? MPI_FILE_NULL : MPI_FILE_NULL; }
BATON_ALIAS(MPI_File_fromint);

}  // extern "C"
