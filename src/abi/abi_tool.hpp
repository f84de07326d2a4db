// The MPI tool information interface (MPI-4.1 chapter 15): the variables Baton exposes.
//
// abi_tool_vars.cpp builds the registry once (control variables, performance variables,
// categories, enumerations; never changes afterwards, so indices are stable for the life of the
// process); abi_tool.cpp holds the MPI_T_ entry points, the sessions and the handles.
// docs/mpit.md lists every variable.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace baton::abi::tool {

// An enumeration (MPI_T_enum; the handle is the object's address): named values of an MPI_INT
// variable.
struct enum_type {
  std::string name;
  std::vector<std::pair<int, std::string>> items;
};

// The value types Baton's variables use: MPI_INT, MPI_UNSIGNED_LONG (64 bits), MPI_CHAR.
enum class value_kind { i32, u64, str };

// A control variable. None is writable (scope MPI_T_SCOPE_CONSTANT or MPI_T_SCOPE_READONLY): they
// are read from the environment once or at MPI_Init, and most must agree on every rank.
struct cvar {
  std::string name;
  std::string desc;
  value_kind kind = value_kind::i32;
  int verbosity = MPI_T_VERBOSITY_USER_BASIC;
  int scope = MPI_T_SCOPE_CONSTANT;
  const enum_type* enumtype = nullptr;
  std::function<int64_t()> read_num;      // i32, u64: the value the library uses
  std::function<std::string()> read_str;  // str
  size_t str_min = 0;                     // str: a handle's count is at least this (NUL included)
};

// A performance variable: every one has type MPI_UNSIGNED_LONG, count 1, no object binding.
// MPI_T_PVAR_CLASS_LEVEL ones are read-only and continuous (a read gives read() now);
// MPI_T_PVAR_CLASS_COUNTER ones count per handle, while started, the growth of read().
struct pvar {
  std::string name;
  std::string desc;
  int var_class = MPI_T_PVAR_CLASS_LEVEL;
  int verbosity = MPI_T_VERBOSITY_USER_BASIC;
  bool readonly = true;
  bool continuous = true;
  bool atomic = false;
  std::function<uint64_t()> read;
};

struct category {
  std::string name;
  std::string desc;
  std::vector<int> cvars, pvars, categories;  // indices
};

struct registry {
  std::vector<cvar> cvars;
  std::vector<pvar> pvars;
  std::vector<category> categories;
  std::vector<const enum_type*> enums;
};

// The registry, built on first use (thread-safe).
const registry& vars();

// Name and description of an MPI_T error class (MPI_T_ERR_CANNOT_INIT ... MPI_T_ERR_PVAR_NO_ATOMIC)
// for MPI_Error_class and MPI_Error_string; nullptr for any other code.
const char* error_name(int code);
const char* error_description(int code);

}  // namespace baton::abi::tool
