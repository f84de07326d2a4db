// The datatype handles the user holds, and the predefined-like types of MPI_Type_create_f90_*.
//
// Derived datatype handles are addresses of core objects. The registry counts the handles the user
// holds on each derived type (one per constructor call, one per handle MPI_Type_get_contents
// returns), so the binding refuses a freed or made-up handle (MPI_ERR_TYPE) instead of crashing.
// Every registered handle owns one core reference, so a registered type is always alive. Thread
// safe (a shared mutex: lookups, which every call taking a derived type makes, run side by side).
#pragma once

#include <cstdint>

#include "core/datatype.hpp"
#include "core/error.hpp"

namespace baton::core {

// One more user handle on t (t's reference for it is the caller's).
void type_register(const datatype* t);
// Whether the user holds a handle on t.
bool type_registered(const datatype* t);
// Drops one user handle; false if t has none.
bool type_unregister(const datatype* t);
// How many user handles t has (0 if none).
int64_t type_handles(const datatype* t);
// Predefined types and the predefined-like ones of MPI_Type_create_f90_*: never freed, and
// MPI_Type_get_contents returns them as they are.
bool type_is_permanent(const datatype& t);

// MPI_Type_create_f90_real/complex/integer (MPI-4.1 19.1.9): one type per (combiner, p, r), made
// from `base` (the predefined type Fortran's SELECTED_*_KIND would pick, chosen by the caller) at
// the first call, registered, and kept to the end (never freed: MPI_Type_free refuses it, as for a
// named type). For f90_integer, p is ignored.
[[nodiscard]] errc type_f90_get(combiner which, int p, int r, const datatype* base, const datatype** out);

}  // namespace baton::core
