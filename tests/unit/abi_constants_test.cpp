// Pins include/mpi.h to the MPI-5.0 standard ABI.
//
// Every number below is typed in from the standard, not computed from the header, so a changed
// value in mpi.h fails here. A binary built against any standard-ABI mpi.h relies on these exact
// values; none of them is ours to change.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <type_traits>

namespace {

template <typename Handle>
std::uintptr_t value_of(Handle h) {
  return reinterpret_cast<std::uintptr_t>(h);
}

}  // namespace

// ---- types ------------------------------------------------------------------------------------

static_assert(std::is_same_v<MPI_Aint, std::intptr_t>);
static_assert(std::is_same_v<MPI_Offset, std::int64_t>);
static_assert(std::is_same_v<MPI_Count, std::int64_t>);

// Handles are pointers to distinct incomplete structs, so mixing kinds does not compile.
static_assert(std::is_pointer_v<MPI_Comm> && std::is_pointer_v<MPI_Datatype>);
static_assert(!std::is_same_v<MPI_Comm, MPI_Group>);
static_assert(!std::is_same_v<MPI_Comm, MPI_Win>);
static_assert(!std::is_same_v<MPI_Datatype, MPI_Op>);
static_assert(!std::is_same_v<MPI_Request, MPI_Message>);
static_assert(!std::is_same_v<MPI_Info, MPI_Errhandler>);
static_assert(!std::is_same_v<MPI_File, MPI_Session>);
static_assert(!std::is_convertible_v<MPI_Comm, MPI_Group>);

// MPI_T enums that appear in signatures have fixed names (and so C++ mangled names).
static_assert(std::is_enum_v<MPI_T_cb_safety>);
static_assert(std::is_enum_v<MPI_T_source_order>);

// A few signatures, written out from the standard, and their PMPI_ twins.
static_assert(std::is_same_v<decltype(&MPI_Send),
                             int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm)>);
static_assert(std::is_same_v<decltype(&MPI_Send_c),
                             int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm)>);
static_assert(std::is_same_v<decltype(&MPI_Wait), int (*)(MPI_Request*, MPI_Status*)>);
static_assert(std::is_same_v<decltype(&MPI_Wtime), double (*)()>);
static_assert(std::is_same_v<decltype(&MPI_Aint_add), MPI_Aint (*)(MPI_Aint, MPI_Aint)>);
static_assert(std::is_same_v<decltype(&MPI_Comm_fromint), MPI_Comm (*)(int)>);
static_assert(std::is_same_v<decltype(&MPI_Abi_get_version), int (*)(int*, int*)>);
static_assert(std::is_same_v<decltype(&MPI_Abi_get_info), int (*)(MPI_Info*)>);
static_assert(std::is_same_v<decltype(&MPI_Op_create_c),
                             int (*)(MPI_User_function_c*, int, MPI_Op*)>);
static_assert(std::is_same_v<decltype(&MPI_Comm_create_keyval),
                             int (*)(MPI_Comm_copy_attr_function*, MPI_Comm_delete_attr_function*,
                                     int*, void*)>);
static_assert(std::is_same_v<decltype(MPI_Send), decltype(PMPI_Send)>);
static_assert(std::is_same_v<decltype(MPI_Isend_c), decltype(PMPI_Isend_c)>);
static_assert(std::is_same_v<decltype(MPI_Allreduce_init), decltype(PMPI_Allreduce_init)>);
static_assert(std::is_same_v<decltype(MPI_Wtime), decltype(PMPI_Wtime)>);
static_assert(std::is_same_v<decltype(MPI_Type_toint), decltype(PMPI_Type_toint)>);
static_assert(std::is_same_v<decltype(MPI_T_init_thread), decltype(PMPI_T_init_thread)>);
static_assert(std::is_same_v<decltype(MPI_Abi_get_fortran_info), decltype(PMPI_Abi_get_fortran_info)>);

// Callbacks: the error-handler functions are variadic, reductions return void.
static_assert(std::is_same_v<MPI_Comm_errhandler_function, void(MPI_Comm*, int*, ...)>);
static_assert(std::is_same_v<MPI_Session_errhandler_function, void(MPI_Session*, int*, ...)>);
static_assert(std::is_same_v<MPI_Comm_errhandler_fn, MPI_Comm_errhandler_function>);
static_assert(std::is_same_v<MPI_User_function, void(void*, void*, int*, MPI_Datatype*)>);
static_assert(std::is_same_v<MPI_User_function_c, void(void*, void*, MPI_Count*, MPI_Datatype*)>);

// ---- tests ------------------------------------------------------------------------------------

TEST(AbiHeader, Versions) {
  EXPECT_EQ(MPI_VERSION, 5);
  EXPECT_EQ(MPI_SUBVERSION, 0);
  EXPECT_EQ(MPI_ABI_VERSION, 1);
  EXPECT_EQ(MPI_ABI_SUBVERSION, 0);
}

TEST(AbiHeader, StatusLayout) {
  EXPECT_EQ(sizeof(MPI_Status), 8 * sizeof(int));
  EXPECT_EQ(offsetof(MPI_Status, MPI_SOURCE), 0 * sizeof(int));
  EXPECT_EQ(offsetof(MPI_Status, MPI_TAG), 1 * sizeof(int));
  EXPECT_EQ(offsetof(MPI_Status, MPI_ERROR), 2 * sizeof(int));
  EXPECT_EQ(offsetof(MPI_Status, MPI_internal), 3 * sizeof(int));
  EXPECT_EQ(sizeof(MPI_Status{}.MPI_internal), 5 * sizeof(int));
  EXPECT_EQ(MPI_F_STATUS_SIZE, 8);
  EXPECT_EQ(MPI_F_SOURCE, 0);
  EXPECT_EQ(MPI_F_TAG, 1);
  EXPECT_EQ(MPI_F_ERROR, 2);
}

TEST(AbiHeader, IntegerTypeSizes) {
  EXPECT_EQ(sizeof(MPI_Aint), sizeof(void*));
  EXPECT_EQ(sizeof(MPI_Offset), 8u);
  EXPECT_EQ(sizeof(MPI_Count), 8u);
}

TEST(AbiHeader, OpHandles) {
  EXPECT_EQ(value_of(MPI_OP_NULL), 0x020u);
  EXPECT_EQ(value_of(MPI_SUM), 0x021u);
  EXPECT_EQ(value_of(MPI_MIN), 0x022u);
  EXPECT_EQ(value_of(MPI_MAX), 0x023u);
  EXPECT_EQ(value_of(MPI_PROD), 0x024u);
  EXPECT_EQ(value_of(MPI_BAND), 0x028u);
  EXPECT_EQ(value_of(MPI_BOR), 0x029u);
  EXPECT_EQ(value_of(MPI_BXOR), 0x02au);
  EXPECT_EQ(value_of(MPI_LAND), 0x030u);
  EXPECT_EQ(value_of(MPI_LOR), 0x031u);
  EXPECT_EQ(value_of(MPI_LXOR), 0x032u);
  EXPECT_EQ(value_of(MPI_MINLOC), 0x038u);
  EXPECT_EQ(value_of(MPI_MAXLOC), 0x039u);
  EXPECT_EQ(value_of(MPI_REPLACE), 0x03cu);
  EXPECT_EQ(value_of(MPI_NO_OP), 0x03du);
}

TEST(AbiHeader, ObjectHandles) {
  EXPECT_EQ(value_of(MPI_COMM_NULL), 0x100u);
  EXPECT_EQ(value_of(MPI_COMM_WORLD), 0x101u);
  EXPECT_EQ(value_of(MPI_COMM_SELF), 0x102u);
  EXPECT_EQ(value_of(MPI_GROUP_NULL), 0x108u);
  EXPECT_EQ(value_of(MPI_GROUP_EMPTY), 0x109u);
  EXPECT_EQ(value_of(MPI_WIN_NULL), 0x110u);
  EXPECT_EQ(value_of(MPI_FILE_NULL), 0x118u);
  EXPECT_EQ(value_of(MPI_SESSION_NULL), 0x120u);
  EXPECT_EQ(value_of(MPI_MESSAGE_NULL), 0x128u);
  EXPECT_EQ(value_of(MPI_MESSAGE_NO_PROC), 0x129u);
  EXPECT_EQ(value_of(MPI_INFO_NULL), 0x130u);
  EXPECT_EQ(value_of(MPI_INFO_ENV), 0x131u);
  EXPECT_EQ(value_of(MPI_ERRHANDLER_NULL), 0x140u);
  EXPECT_EQ(value_of(MPI_ERRORS_ARE_FATAL), 0x141u);
  EXPECT_EQ(value_of(MPI_ERRORS_ABORT), 0x142u);
  EXPECT_EQ(value_of(MPI_ERRORS_RETURN), 0x143u);
  EXPECT_EQ(value_of(MPI_REQUEST_NULL), 0x180u);
}

TEST(AbiHeader, DatatypeHandles) {
  EXPECT_EQ(value_of(MPI_DATATYPE_NULL), 0x200u);
  EXPECT_EQ(value_of(MPI_AINT), 0x201u);
  EXPECT_EQ(value_of(MPI_COUNT), 0x202u);
  EXPECT_EQ(value_of(MPI_OFFSET), 0x203u);
  EXPECT_EQ(value_of(MPI_PACKED), 0x207u);
  EXPECT_EQ(value_of(MPI_SHORT), 0x208u);
  EXPECT_EQ(value_of(MPI_INT), 0x209u);
  EXPECT_EQ(value_of(MPI_LONG), 0x20au);
  EXPECT_EQ(value_of(MPI_LONG_LONG), 0x20bu);
  EXPECT_EQ(value_of(MPI_LONG_LONG_INT), 0x20bu);
  EXPECT_EQ(value_of(MPI_UNSIGNED_SHORT), 0x20cu);
  EXPECT_EQ(value_of(MPI_UNSIGNED), 0x20du);
  EXPECT_EQ(value_of(MPI_UNSIGNED_LONG), 0x20eu);
  EXPECT_EQ(value_of(MPI_UNSIGNED_LONG_LONG), 0x20fu);
  EXPECT_EQ(value_of(MPI_FLOAT), 0x210u);
  EXPECT_EQ(value_of(MPI_C_FLOAT_COMPLEX), 0x212u);
  EXPECT_EQ(value_of(MPI_C_COMPLEX), 0x212u);
  EXPECT_EQ(value_of(MPI_CXX_FLOAT_COMPLEX), 0x213u);
  EXPECT_EQ(value_of(MPI_DOUBLE), 0x214u);
  EXPECT_EQ(value_of(MPI_C_DOUBLE_COMPLEX), 0x216u);
  EXPECT_EQ(value_of(MPI_CXX_DOUBLE_COMPLEX), 0x217u);
  EXPECT_EQ(value_of(MPI_LOGICAL), 0x218u);
  EXPECT_EQ(value_of(MPI_INTEGER), 0x219u);
  EXPECT_EQ(value_of(MPI_REAL), 0x21au);
  EXPECT_EQ(value_of(MPI_COMPLEX), 0x21bu);
  EXPECT_EQ(value_of(MPI_DOUBLE_PRECISION), 0x21cu);
  EXPECT_EQ(value_of(MPI_DOUBLE_COMPLEX), 0x21du);
  EXPECT_EQ(value_of(MPI_CHARACTER), 0x21eu);
  EXPECT_EQ(value_of(MPI_LONG_DOUBLE), 0x220u);
  EXPECT_EQ(value_of(MPI_C_LONG_DOUBLE_COMPLEX), 0x224u);
  EXPECT_EQ(value_of(MPI_CXX_LONG_DOUBLE_COMPLEX), 0x225u);
  EXPECT_EQ(value_of(MPI_FLOAT_INT), 0x228u);
  EXPECT_EQ(value_of(MPI_DOUBLE_INT), 0x229u);
  EXPECT_EQ(value_of(MPI_LONG_INT), 0x22au);
  EXPECT_EQ(value_of(MPI_2INT), 0x22bu);
  EXPECT_EQ(value_of(MPI_SHORT_INT), 0x22cu);
  EXPECT_EQ(value_of(MPI_LONG_DOUBLE_INT), 0x22du);
  EXPECT_EQ(value_of(MPI_2REAL), 0x230u);
  EXPECT_EQ(value_of(MPI_2DOUBLE_PRECISION), 0x231u);
  EXPECT_EQ(value_of(MPI_2INTEGER), 0x232u);
  EXPECT_EQ(value_of(MPI_C_BOOL), 0x238u);
  EXPECT_EQ(value_of(MPI_CXX_BOOL), 0x239u);
  EXPECT_EQ(value_of(MPI_WCHAR), 0x23cu);
  EXPECT_EQ(value_of(MPI_INT8_T), 0x240u);
  EXPECT_EQ(value_of(MPI_UINT8_T), 0x241u);
  EXPECT_EQ(value_of(MPI_CHAR), 0x243u);
  EXPECT_EQ(value_of(MPI_SIGNED_CHAR), 0x244u);
  EXPECT_EQ(value_of(MPI_UNSIGNED_CHAR), 0x245u);
  EXPECT_EQ(value_of(MPI_BYTE), 0x247u);
  EXPECT_EQ(value_of(MPI_INT16_T), 0x248u);
  EXPECT_EQ(value_of(MPI_UINT16_T), 0x249u);
  EXPECT_EQ(value_of(MPI_INT32_T), 0x250u);
  EXPECT_EQ(value_of(MPI_UINT32_T), 0x251u);
  EXPECT_EQ(value_of(MPI_INT64_T), 0x258u);
  EXPECT_EQ(value_of(MPI_UINT64_T), 0x259u);
  EXPECT_EQ(value_of(MPI_LOGICAL1), 0x2c0u);
  EXPECT_EQ(value_of(MPI_INTEGER1), 0x2c1u);
  EXPECT_EQ(value_of(MPI_LOGICAL2), 0x2c8u);
  EXPECT_EQ(value_of(MPI_INTEGER2), 0x2c9u);
  EXPECT_EQ(value_of(MPI_REAL2), 0x2cau);
  EXPECT_EQ(value_of(MPI_LOGICAL4), 0x2d0u);
  EXPECT_EQ(value_of(MPI_INTEGER4), 0x2d1u);
  EXPECT_EQ(value_of(MPI_REAL4), 0x2d2u);
  EXPECT_EQ(value_of(MPI_COMPLEX4), 0x2d3u);
  EXPECT_EQ(value_of(MPI_LOGICAL8), 0x2d8u);
  EXPECT_EQ(value_of(MPI_INTEGER8), 0x2d9u);
  EXPECT_EQ(value_of(MPI_REAL8), 0x2dau);
  EXPECT_EQ(value_of(MPI_COMPLEX8), 0x2dbu);
  EXPECT_EQ(value_of(MPI_LOGICAL16), 0x2e0u);
  EXPECT_EQ(value_of(MPI_INTEGER16), 0x2e1u);
  EXPECT_EQ(value_of(MPI_REAL16), 0x2e2u);
  EXPECT_EQ(value_of(MPI_COMPLEX16), 0x2e3u);
  EXPECT_EQ(value_of(MPI_COMPLEX32), 0x2ebu);
}

// What src/abi relies on to tell a predefined handle from a pointer to an object: every
// predefined handle is a distinct nonzero value below 0x400.
TEST(AbiHeader, PredefinedHandlesAreDistinctSmallValues) {
  const std::uintptr_t all[] = {
      value_of(MPI_OP_NULL), value_of(MPI_SUM), value_of(MPI_MIN), value_of(MPI_MAX),
      value_of(MPI_PROD), value_of(MPI_BAND), value_of(MPI_BOR), value_of(MPI_BXOR),
      value_of(MPI_LAND), value_of(MPI_LOR), value_of(MPI_LXOR), value_of(MPI_MINLOC),
      value_of(MPI_MAXLOC), value_of(MPI_REPLACE), value_of(MPI_NO_OP),
      value_of(MPI_COMM_NULL), value_of(MPI_COMM_WORLD), value_of(MPI_COMM_SELF),
      value_of(MPI_GROUP_NULL), value_of(MPI_GROUP_EMPTY), value_of(MPI_WIN_NULL),
      value_of(MPI_FILE_NULL), value_of(MPI_SESSION_NULL), value_of(MPI_MESSAGE_NULL),
      value_of(MPI_MESSAGE_NO_PROC), value_of(MPI_INFO_NULL), value_of(MPI_INFO_ENV),
      value_of(MPI_ERRHANDLER_NULL), value_of(MPI_ERRORS_ARE_FATAL),
      value_of(MPI_ERRORS_ABORT), value_of(MPI_ERRORS_RETURN), value_of(MPI_REQUEST_NULL),
      value_of(MPI_DATATYPE_NULL), value_of(MPI_AINT), value_of(MPI_COUNT),
      value_of(MPI_OFFSET), value_of(MPI_PACKED), value_of(MPI_SHORT), value_of(MPI_INT),
      value_of(MPI_LONG), value_of(MPI_LONG_LONG), value_of(MPI_UNSIGNED_SHORT),
      value_of(MPI_UNSIGNED), value_of(MPI_UNSIGNED_LONG), value_of(MPI_UNSIGNED_LONG_LONG),
      value_of(MPI_FLOAT), value_of(MPI_C_FLOAT_COMPLEX), value_of(MPI_CXX_FLOAT_COMPLEX),
      value_of(MPI_DOUBLE), value_of(MPI_C_DOUBLE_COMPLEX), value_of(MPI_CXX_DOUBLE_COMPLEX),
      value_of(MPI_LOGICAL), value_of(MPI_INTEGER), value_of(MPI_REAL), value_of(MPI_COMPLEX),
      value_of(MPI_DOUBLE_PRECISION), value_of(MPI_DOUBLE_COMPLEX), value_of(MPI_CHARACTER),
      value_of(MPI_LONG_DOUBLE), value_of(MPI_C_LONG_DOUBLE_COMPLEX),
      value_of(MPI_CXX_LONG_DOUBLE_COMPLEX), value_of(MPI_FLOAT_INT), value_of(MPI_DOUBLE_INT),
      value_of(MPI_LONG_INT), value_of(MPI_2INT), value_of(MPI_SHORT_INT),
      value_of(MPI_LONG_DOUBLE_INT), value_of(MPI_2REAL), value_of(MPI_2DOUBLE_PRECISION),
      value_of(MPI_2INTEGER), value_of(MPI_C_BOOL), value_of(MPI_CXX_BOOL),
      value_of(MPI_WCHAR), value_of(MPI_INT8_T), value_of(MPI_UINT8_T), value_of(MPI_CHAR),
      value_of(MPI_SIGNED_CHAR), value_of(MPI_UNSIGNED_CHAR), value_of(MPI_BYTE),
      value_of(MPI_INT16_T), value_of(MPI_UINT16_T), value_of(MPI_INT32_T),
      value_of(MPI_UINT32_T), value_of(MPI_INT64_T), value_of(MPI_UINT64_T),
      value_of(MPI_LOGICAL1), value_of(MPI_INTEGER1), value_of(MPI_LOGICAL2),
      value_of(MPI_INTEGER2), value_of(MPI_REAL2), value_of(MPI_LOGICAL4),
      value_of(MPI_INTEGER4), value_of(MPI_REAL4), value_of(MPI_COMPLEX4),
      value_of(MPI_LOGICAL8), value_of(MPI_INTEGER8), value_of(MPI_REAL8),
      value_of(MPI_COMPLEX8), value_of(MPI_LOGICAL16), value_of(MPI_INTEGER16),
      value_of(MPI_REAL16), value_of(MPI_COMPLEX16), value_of(MPI_COMPLEX32)};
  std::set<std::uintptr_t> seen;
  for (std::uintptr_t v : all) {
    EXPECT_GT(v, 0u);
    EXPECT_LT(v, 0x400u);
    EXPECT_TRUE(seen.insert(v).second) << "duplicate handle value 0x" << std::hex << v;
  }
}

TEST(AbiHeader, ToolInterfaceHandles) {
  EXPECT_EQ(value_of(MPI_T_ENUM_NULL), 0u);
  EXPECT_EQ(value_of(MPI_T_CVAR_HANDLE_NULL), 0u);
  EXPECT_EQ(value_of(MPI_T_PVAR_SESSION_NULL), 0u);
  EXPECT_EQ(value_of(MPI_T_PVAR_HANDLE_NULL), 0u);
  EXPECT_EQ(value_of(MPI_T_PVAR_ALL_HANDLES), 1u);
}

TEST(AbiHeader, ErrorClasses) {
  EXPECT_EQ(MPI_SUCCESS, 0);
  EXPECT_EQ(MPI_ERR_BUFFER, 1);
  EXPECT_EQ(MPI_ERR_COUNT, 2);
  EXPECT_EQ(MPI_ERR_TYPE, 3);
  EXPECT_EQ(MPI_ERR_TAG, 4);
  EXPECT_EQ(MPI_ERR_COMM, 5);
  EXPECT_EQ(MPI_ERR_RANK, 6);
  EXPECT_EQ(MPI_ERR_REQUEST, 7);
  EXPECT_EQ(MPI_ERR_ROOT, 8);
  EXPECT_EQ(MPI_ERR_GROUP, 9);
  EXPECT_EQ(MPI_ERR_OP, 10);
  EXPECT_EQ(MPI_ERR_TOPOLOGY, 11);
  EXPECT_EQ(MPI_ERR_DIMS, 12);
  EXPECT_EQ(MPI_ERR_ARG, 13);
  EXPECT_EQ(MPI_ERR_UNKNOWN, 14);
  EXPECT_EQ(MPI_ERR_TRUNCATE, 15);
  EXPECT_EQ(MPI_ERR_OTHER, 16);
  EXPECT_EQ(MPI_ERR_INTERN, 17);
  EXPECT_EQ(MPI_ERR_PENDING, 18);
  EXPECT_EQ(MPI_ERR_IN_STATUS, 19);
  EXPECT_EQ(MPI_ERR_ACCESS, 20);
  EXPECT_EQ(MPI_ERR_AMODE, 21);
  EXPECT_EQ(MPI_ERR_ASSERT, 22);
  EXPECT_EQ(MPI_ERR_BAD_FILE, 23);
  EXPECT_EQ(MPI_ERR_BASE, 24);
  EXPECT_EQ(MPI_ERR_CONVERSION, 25);
  EXPECT_EQ(MPI_ERR_DISP, 26);
  EXPECT_EQ(MPI_ERR_DUP_DATAREP, 27);
  EXPECT_EQ(MPI_ERR_FILE_EXISTS, 28);
  EXPECT_EQ(MPI_ERR_FILE_IN_USE, 29);
  EXPECT_EQ(MPI_ERR_FILE, 30);
  EXPECT_EQ(MPI_ERR_INFO_KEY, 31);
  EXPECT_EQ(MPI_ERR_INFO_NOKEY, 32);
  EXPECT_EQ(MPI_ERR_INFO_VALUE, 33);
  EXPECT_EQ(MPI_ERR_INFO, 34);
  EXPECT_EQ(MPI_ERR_IO, 35);
  EXPECT_EQ(MPI_ERR_KEYVAL, 36);
  EXPECT_EQ(MPI_ERR_LOCKTYPE, 37);
  EXPECT_EQ(MPI_ERR_NAME, 38);
  EXPECT_EQ(MPI_ERR_NO_MEM, 39);
  EXPECT_EQ(MPI_ERR_NOT_SAME, 40);
  EXPECT_EQ(MPI_ERR_NO_SPACE, 41);
  EXPECT_EQ(MPI_ERR_NO_SUCH_FILE, 42);
  EXPECT_EQ(MPI_ERR_PORT, 43);
  EXPECT_EQ(MPI_ERR_QUOTA, 44);
  EXPECT_EQ(MPI_ERR_READ_ONLY, 45);
  EXPECT_EQ(MPI_ERR_RMA_ATTACH, 46);
  EXPECT_EQ(MPI_ERR_RMA_CONFLICT, 47);
  EXPECT_EQ(MPI_ERR_RMA_RANGE, 48);
  EXPECT_EQ(MPI_ERR_RMA_SHARED, 49);
  EXPECT_EQ(MPI_ERR_RMA_SYNC, 50);
  EXPECT_EQ(MPI_ERR_SERVICE, 51);
  EXPECT_EQ(MPI_ERR_SIZE, 52);
  EXPECT_EQ(MPI_ERR_SPAWN, 53);
  EXPECT_EQ(MPI_ERR_UNSUPPORTED_DATAREP, 54);
  EXPECT_EQ(MPI_ERR_UNSUPPORTED_OPERATION, 55);
  EXPECT_EQ(MPI_ERR_WIN, 56);
  EXPECT_EQ(MPI_ERR_RMA_FLAVOR, 57);
  EXPECT_EQ(MPI_ERR_PROC_ABORTED, 58);
  EXPECT_EQ(MPI_ERR_VALUE_TOO_LARGE, 59);
  EXPECT_EQ(MPI_ERR_SESSION, 60);
  EXPECT_EQ(MPI_ERR_ERRHANDLER, 61);
  EXPECT_EQ(MPI_ERR_ABI, 62);
  EXPECT_EQ(MPI_ERR_LASTCODE, 16383);
}

TEST(AbiHeader, ToolInterfaceErrorClasses) {
  EXPECT_EQ(MPI_T_ERR_CANNOT_INIT, 1001);
  EXPECT_EQ(MPI_T_ERR_NOT_ACCESSIBLE, 1002);
  EXPECT_EQ(MPI_T_ERR_NOT_INITIALIZED, 1003);
  EXPECT_EQ(MPI_T_ERR_NOT_SUPPORTED, 1004);
  EXPECT_EQ(MPI_T_ERR_MEMORY, 1005);
  EXPECT_EQ(MPI_T_ERR_INVALID, 1006);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, 1007);
  EXPECT_EQ(MPI_T_ERR_INVALID_ITEM, 1008);
  EXPECT_EQ(MPI_T_ERR_INVALID_SESSION, 1009);
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, 1010);
  EXPECT_EQ(MPI_T_ERR_INVALID_NAME, 1011);
  EXPECT_EQ(MPI_T_ERR_OUT_OF_HANDLES, 1012);
  EXPECT_EQ(MPI_T_ERR_OUT_OF_SESSIONS, 1013);
  EXPECT_EQ(MPI_T_ERR_CVAR_SET_NOT_NOW, 1014);
  EXPECT_EQ(MPI_T_ERR_CVAR_SET_NEVER, 1015);
  EXPECT_EQ(MPI_T_ERR_PVAR_NO_WRITE, 1016);
  EXPECT_EQ(MPI_T_ERR_PVAR_NO_STARTSTOP, 1017);
  EXPECT_EQ(MPI_T_ERR_PVAR_NO_ATOMIC, 1018);
}

TEST(AbiHeader, SpecialRanksAndTags) {
  EXPECT_EQ(MPI_ANY_SOURCE, -1);
  EXPECT_EQ(MPI_ANY_TAG, -2);
  EXPECT_EQ(MPI_PROC_NULL, -3);
  EXPECT_EQ(MPI_ROOT, -4);
  EXPECT_EQ(MPI_UNDEFINED, -32766);
}

TEST(AbiHeader, SpecialPointers) {
  EXPECT_EQ(value_of(MPI_BOTTOM), 0u);
  EXPECT_EQ(value_of(MPI_IN_PLACE), 1u);
  EXPECT_EQ(value_of(MPI_BUFFER_AUTOMATIC), 2u);
  EXPECT_EQ(value_of(MPI_ARGV_NULL), 0u);
  EXPECT_EQ(value_of(MPI_ARGVS_NULL), 0u);
  EXPECT_EQ(value_of(MPI_ERRCODES_IGNORE), 0u);
  EXPECT_EQ(value_of(MPI_STATUS_IGNORE), 0u);
  EXPECT_EQ(value_of(MPI_STATUSES_IGNORE), 0u);
  EXPECT_EQ(value_of(MPI_UNWEIGHTED), 10u);
  EXPECT_EQ(value_of(MPI_WEIGHTS_EMPTY), 11u);
  EXPECT_EQ(MPI_DISPLACEMENT_CURRENT, MPI_Offset{-1});
}

TEST(AbiHeader, StringLimitsAndBsendOverhead) {
  EXPECT_EQ(MPI_MAX_DATAREP_STRING, 128);
  EXPECT_EQ(MPI_MAX_ERROR_STRING, 512);
  EXPECT_EQ(MPI_MAX_INFO_KEY, 256);
  EXPECT_EQ(MPI_MAX_INFO_VAL, 1024);
  EXPECT_EQ(MPI_MAX_LIBRARY_VERSION_STRING, 8192);
  EXPECT_EQ(MPI_MAX_OBJECT_NAME, 128);
  EXPECT_EQ(MPI_MAX_PORT_NAME, 1024);
  EXPECT_EQ(MPI_MAX_PROCESSOR_NAME, 256);
  EXPECT_EQ(MPI_MAX_STRINGTAG_LEN, 1024);
  EXPECT_EQ(MPI_MAX_PSET_NAME_LEN, 1024);
  EXPECT_EQ(MPI_BSEND_OVERHEAD, 512);
}

TEST(AbiHeader, Modes) {
  EXPECT_EQ(MPI_MODE_APPEND, 1);
  EXPECT_EQ(MPI_MODE_CREATE, 2);
  EXPECT_EQ(MPI_MODE_DELETE_ON_CLOSE, 4);
  EXPECT_EQ(MPI_MODE_EXCL, 8);
  EXPECT_EQ(MPI_MODE_RDONLY, 16);
  EXPECT_EQ(MPI_MODE_RDWR, 32);
  EXPECT_EQ(MPI_MODE_SEQUENTIAL, 64);
  EXPECT_EQ(MPI_MODE_UNIQUE_OPEN, 128);
  EXPECT_EQ(MPI_MODE_WRONLY, 256);
  EXPECT_EQ(MPI_MODE_NOCHECK, 1024);
  EXPECT_EQ(MPI_MODE_NOPRECEDE, 2048);
  EXPECT_EQ(MPI_MODE_NOPUT, 4096);
  EXPECT_EQ(MPI_MODE_NOSTORE, 8192);
  EXPECT_EQ(MPI_MODE_NOSUCCEED, 16384);
}

TEST(AbiHeader, ThreadLevels) {
  EXPECT_EQ(MPI_THREAD_SINGLE, 0);
  EXPECT_EQ(MPI_THREAD_FUNNELED, 1024);
  EXPECT_EQ(MPI_THREAD_SERIALIZED, 2048);
  EXPECT_EQ(MPI_THREAD_MULTIPLE, 4096);
}

TEST(AbiHeader, DatatypeConstructionConstants) {
  EXPECT_EQ(MPI_ORDER_C, 12);
  EXPECT_EQ(MPI_ORDER_FORTRAN, 15);
  EXPECT_EQ(MPI_DISTRIBUTE_NONE, 16);
  EXPECT_EQ(MPI_DISTRIBUTE_BLOCK, 17);
  EXPECT_EQ(MPI_DISTRIBUTE_CYCLIC, 18);
  EXPECT_EQ(MPI_DISTRIBUTE_DFLT_DARG, 19);
  EXPECT_EQ(MPI_COMBINER_NAMED, 101);
  EXPECT_EQ(MPI_COMBINER_DUP, 102);
  EXPECT_EQ(MPI_COMBINER_CONTIGUOUS, 103);
  EXPECT_EQ(MPI_COMBINER_VECTOR, 104);
  EXPECT_EQ(MPI_COMBINER_HVECTOR, 105);
  EXPECT_EQ(MPI_COMBINER_INDEXED, 106);
  EXPECT_EQ(MPI_COMBINER_HINDEXED, 107);
  EXPECT_EQ(MPI_COMBINER_INDEXED_BLOCK, 108);
  EXPECT_EQ(MPI_COMBINER_HINDEXED_BLOCK, 109);
  EXPECT_EQ(MPI_COMBINER_STRUCT, 110);
  EXPECT_EQ(MPI_COMBINER_SUBARRAY, 111);
  EXPECT_EQ(MPI_COMBINER_DARRAY, 112);
  EXPECT_EQ(MPI_COMBINER_F90_REAL, 113);
  EXPECT_EQ(MPI_COMBINER_F90_COMPLEX, 114);
  EXPECT_EQ(MPI_COMBINER_F90_INTEGER, 115);
  EXPECT_EQ(MPI_COMBINER_RESIZED, 116);
  EXPECT_EQ(MPI_COMBINER_VALUE_INDEX, 117);
  EXPECT_EQ(MPIX_TYPECLASS_LOGICAL, 191);
  EXPECT_EQ(MPI_TYPECLASS_INTEGER, 192);
  EXPECT_EQ(MPI_TYPECLASS_REAL, 193);
  EXPECT_EQ(MPI_TYPECLASS_COMPLEX, 194);
}

TEST(AbiHeader, CommunicatorAndWindowConstants) {
  EXPECT_EQ(MPI_IDENT, 201);
  EXPECT_EQ(MPI_CONGRUENT, 202);
  EXPECT_EQ(MPI_SIMILAR, 203);
  EXPECT_EQ(MPI_UNEQUAL, 204);
  EXPECT_EQ(MPI_CART, 211);
  EXPECT_EQ(MPI_GRAPH, 212);
  EXPECT_EQ(MPI_DIST_GRAPH, 213);
  EXPECT_EQ(MPI_COMM_TYPE_SHARED, 221);
  EXPECT_EQ(MPI_COMM_TYPE_HW_UNGUIDED, 222);
  EXPECT_EQ(MPI_COMM_TYPE_HW_GUIDED, 223);
  EXPECT_EQ(MPI_COMM_TYPE_RESOURCE_GUIDED, 224);
  EXPECT_EQ(MPI_LOCK_EXCLUSIVE, 301);
  EXPECT_EQ(MPI_LOCK_SHARED, 302);
  EXPECT_EQ(MPI_WIN_FLAVOR_CREATE, 311);
  EXPECT_EQ(MPI_WIN_FLAVOR_ALLOCATE, 312);
  EXPECT_EQ(MPI_WIN_FLAVOR_DYNAMIC, 313);
  EXPECT_EQ(MPI_WIN_FLAVOR_SHARED, 314);
  EXPECT_EQ(MPI_WIN_UNIFIED, 321);
  EXPECT_EQ(MPI_WIN_SEPARATE, 322);
  EXPECT_EQ(MPI_SEEK_CUR, 401);
  EXPECT_EQ(MPI_SEEK_END, 402);
  EXPECT_EQ(MPI_SEEK_SET, 403);
}

TEST(AbiHeader, AttributeKeys) {
  EXPECT_EQ(MPI_KEYVAL_INVALID, 0);
  EXPECT_EQ(MPI_TAG_UB, 501);
  EXPECT_EQ(MPI_IO, 502);
  EXPECT_EQ(MPI_HOST, 503);
  EXPECT_EQ(MPI_WTIME_IS_GLOBAL, 504);
  EXPECT_EQ(MPI_APPNUM, 505);
  EXPECT_EQ(MPI_LASTUSEDCODE, 506);
  EXPECT_EQ(MPI_UNIVERSE_SIZE, 507);
  EXPECT_EQ(MPI_WIN_BASE, 601);
  EXPECT_EQ(MPI_WIN_DISP_UNIT, 602);
  EXPECT_EQ(MPI_WIN_SIZE, 603);
  EXPECT_EQ(MPI_WIN_CREATE_FLAVOR, 604);
  EXPECT_EQ(MPI_WIN_MODEL, 605);
}

// Baton's own key: fixed at 1001, in the range mpix.h reserves for Baton (1001-1099), clear of
// the standard's keys above.
TEST(AbiHeader, BatonExtensionKeys) {
  EXPECT_EQ(MPIX_ICOLL_MAX_OUTSTANDING, 1001);
}

TEST(AbiHeader, PredefinedCallbacks) {
  EXPECT_EQ(value_of(MPI_NULL_COPY_FN), 0u);
  EXPECT_EQ(value_of(MPI_DUP_FN), 1u);
  EXPECT_EQ(value_of(MPI_NULL_DELETE_FN), 0u);
  EXPECT_EQ(value_of(MPI_COMM_NULL_COPY_FN), 0u);
  EXPECT_EQ(value_of(MPI_COMM_DUP_FN), 1u);
  EXPECT_EQ(value_of(MPI_COMM_NULL_DELETE_FN), 0u);
  EXPECT_EQ(value_of(MPI_TYPE_NULL_COPY_FN), 0u);
  EXPECT_EQ(value_of(MPI_TYPE_DUP_FN), 1u);
  EXPECT_EQ(value_of(MPI_TYPE_NULL_DELETE_FN), 0u);
  EXPECT_EQ(value_of(MPI_WIN_NULL_COPY_FN), 0u);
  EXPECT_EQ(value_of(MPI_WIN_DUP_FN), 1u);
  EXPECT_EQ(value_of(MPI_WIN_NULL_DELETE_FN), 0u);
  EXPECT_EQ(value_of(MPI_CONVERSION_FN_NULL), 0u);
  EXPECT_EQ(value_of(MPI_CONVERSION_FN_NULL_C), 0u);
}

TEST(AbiHeader, ToolInterfaceConstants) {
  EXPECT_EQ(MPI_T_CB_REQUIRE_NONE, 0x00);
  EXPECT_EQ(MPI_T_CB_REQUIRE_MPI_RESTRICTED, 0x03);
  EXPECT_EQ(MPI_T_CB_REQUIRE_THREAD_SAFE, 0x0f);
  EXPECT_EQ(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 0x3f);
  EXPECT_EQ(MPI_T_SOURCE_ORDERED, 1);
  EXPECT_EQ(MPI_T_SOURCE_UNORDERED, 2);
  EXPECT_EQ(MPI_T_VERBOSITY_USER_BASIC, 0x09);
  EXPECT_EQ(MPI_T_VERBOSITY_USER_DETAIL, 0x0a);
  EXPECT_EQ(MPI_T_VERBOSITY_USER_ALL, 0x0c);
  EXPECT_EQ(MPI_T_VERBOSITY_TUNER_BASIC, 0x11);
  EXPECT_EQ(MPI_T_VERBOSITY_TUNER_DETAIL, 0x12);
  EXPECT_EQ(MPI_T_VERBOSITY_TUNER_ALL, 0x14);
  EXPECT_EQ(MPI_T_VERBOSITY_MPIDEV_BASIC, 0x21);
  EXPECT_EQ(MPI_T_VERBOSITY_MPIDEV_DETAIL, 0x22);
  EXPECT_EQ(MPI_T_VERBOSITY_MPIDEV_ALL, 0x24);
  EXPECT_EQ(MPI_T_BIND_NO_OBJECT, 1);
  EXPECT_EQ(MPI_T_BIND_MPI_COMM, 2);
  EXPECT_EQ(MPI_T_BIND_MPI_DATATYPE, 3);
  EXPECT_EQ(MPI_T_BIND_MPI_ERRHANDLER, 4);
  EXPECT_EQ(MPI_T_BIND_MPI_FILE, 5);
  EXPECT_EQ(MPI_T_BIND_MPI_GROUP, 6);
  EXPECT_EQ(MPI_T_BIND_MPI_OP, 7);
  EXPECT_EQ(MPI_T_BIND_MPI_REQUEST, 8);
  EXPECT_EQ(MPI_T_BIND_MPI_WIN, 9);
  EXPECT_EQ(MPI_T_BIND_MPI_MESSAGE, 10);
  EXPECT_EQ(MPI_T_BIND_MPI_INFO, 11);
  EXPECT_EQ(MPI_T_BIND_MPI_SESSION, 12);
  EXPECT_EQ(MPI_T_SCOPE_CONSTANT, 1);
  EXPECT_EQ(MPI_T_SCOPE_READONLY, 2);
  EXPECT_EQ(MPI_T_SCOPE_LOCAL, 3);
  EXPECT_EQ(MPI_T_SCOPE_GROUP, 4);
  EXPECT_EQ(MPI_T_SCOPE_GROUP_EQ, 5);
  EXPECT_EQ(MPI_T_SCOPE_ALL, 6);
  EXPECT_EQ(MPI_T_SCOPE_ALL_EQ, 7);
  EXPECT_EQ(MPI_T_PVAR_CLASS_STATE, 1);
  EXPECT_EQ(MPI_T_PVAR_CLASS_LEVEL, 2);
  EXPECT_EQ(MPI_T_PVAR_CLASS_SIZE, 3);
  EXPECT_EQ(MPI_T_PVAR_CLASS_PERCENTAGE, 4);
  EXPECT_EQ(MPI_T_PVAR_CLASS_HIGHWATERMARK, 5);
  EXPECT_EQ(MPI_T_PVAR_CLASS_LOWWATERMARK, 6);
  EXPECT_EQ(MPI_T_PVAR_CLASS_COUNTER, 7);
  EXPECT_EQ(MPI_T_PVAR_CLASS_AGGREGATE, 8);
  EXPECT_EQ(MPI_T_PVAR_CLASS_TIMER, 9);
  EXPECT_EQ(MPI_T_PVAR_CLASS_GENERIC, 10);
}
