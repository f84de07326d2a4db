// File handles and file error handlers (abi_file.cpp), shared with the data access entry points
// (abi_file_access.cpp).
#pragma once

#include <mpi.h>

#include "abi/abi.hpp"
#include "io/file.hpp"

namespace baton::abi {

// MPI usable and fh a live file: *out is set and MPI_SUCCESS returned; otherwise the error has
// been raised (on MPI_FILE_NULL's error handler) and its code is returned.
inline MPI_File to_handle(io::file* f) { return reinterpret_cast<MPI_File>(f); }

int file_entry(const char* fn, MPI_File fh, io::file** out);
// Runs f's error handler (MPI_FILE_NULL's when f is null) for error e raised in fn.
int raise_file(const char* fn, io::file* f, errc e);

template <class Body>
inline int file_call(const char* fn, io::file* f, Body&& body) {
  errc e = run_guarded(body);
  if (e == errc::success) return MPI_SUCCESS;
  return raise_file(fn, f, e);
}

}  // namespace baton::abi
