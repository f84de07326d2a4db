// Handle conversion for groups and info objects (defined in abi_group.cpp and abi_info.cpp), shared
// with the communicator entry points (abi_comm.cpp).
#pragma once

#include <mpi.h>

#include <string>

#include "core/error.hpp"
#include "core/group.hpp"
#include "core/info.hpp"

namespace baton::abi {

// nullptr (with error_set, errc::group) for MPI_GROUP_NULL, freed or garbage handles.
core::group* to_group(MPI_Group h);
MPI_Group to_handle(core::group* g);

// nullptr (with error_set, errc::info) for MPI_INFO_NULL, freed or garbage handles.
core::info* to_info(MPI_Info h);
MPI_Info to_handle(core::info* i);

// MPI_Finalize's first step (MPI-4.1 11.2.2): deletes the attributes of MPI_COMM_SELF, then of
// MPI_COMM_WORLD, last set first, while MPI is still fully usable (abi_comm.cpp).
core::errc comm_finalize_attributes();

// Copies `s` into a C buffer of `max` bytes (NUL-terminated, truncated if needed).
void copy_out(char* out, int* len, const std::string& s, size_t max);

}  // namespace baton::abi
