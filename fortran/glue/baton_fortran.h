/*
 * baton_fortran.h -- what the generated Fortran glue (fortran/README in docs/fortran.md) needs:
 * handle conversion, LOGICAL values, the Fortran sentinels, strings, status and choice buffers.
 *
 * The glue of mpif.h and `use mpi` is a set of C functions with gfortran's external names
 * (mpi_send_, ...): INTEGER handles, INTEGER status arrays, LOGICALs and CHARACTER arguments with
 * their hidden lengths at the end. The glue of `use mpi_f08` is a set of BIND(C) functions
 * (MPI_Send_f08ts, ...): the handle types are BIND(C) wrappers of one INTEGER, so they arrive as
 * int pointers too; choice buffers and strings arrive as CFI descriptors (ISO_Fortran_binding.h).
 * Both call the C functions of libmpi_abi (MPI_Send, ...), so a C-level profiling tool sees
 * Fortran calls as well.
 */
#ifndef BATON_FORTRAN_H
#define BATON_FORTRAN_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <ISO_Fortran_binding.h>

#define BATON_NO_QUEUE_BY_VALUE 1
#include "mpi.h"

#define BATON_F_EXPORT __attribute__((visibility("default")))
#define BATON_F_HIDDEN __attribute__((visibility("hidden")))

/* Handles below this value are predefined and convert to their own value (the ABI's rule): the
 * glue converts them inline, without calling into libmpi_abi. */
#define BATON_F_PREDEFINED_LIMIT 0x1000u

#define BATON_F_HANDLE(Name, Type)                                                                 \
  static inline Type baton_f2c_##Name(int v) {                                                     \
    return (unsigned)v < BATON_F_PREDEFINED_LIMIT ? (Type)(uintptr_t)(unsigned)v : MPI_##Name##_fromint(v); \
  }                                                                                                \
  static inline int baton_c2f_##Name(Type h) {                                                     \
    return (uintptr_t)h < BATON_F_PREDEFINED_LIMIT ? (int)(uintptr_t)h : MPI_##Name##_toint(h);    \
  }
BATON_F_HANDLE(Comm, MPI_Comm)
BATON_F_HANDLE(Type, MPI_Datatype)
BATON_F_HANDLE(Group, MPI_Group)
BATON_F_HANDLE(Request, MPI_Request)
BATON_F_HANDLE(Op, MPI_Op)
BATON_F_HANDLE(Info, MPI_Info)
BATON_F_HANDLE(Errhandler, MPI_Errhandler)
BATON_F_HANDLE(Message, MPI_Message)
BATON_F_HANDLE(Win, MPI_Win)
BATON_F_HANDLE(File, MPI_File)
BATON_F_HANDLE(Session, MPI_Session)
#undef BATON_F_HANDLE

/* The ABI has no integer form of MPI_Queue: the glue keeps its own table (helpers.c). */
BATON_F_HIDDEN MPI_Queue baton_f_queue_from(int v);
BATON_F_HIDDEN int baton_f_queue_to(MPI_Queue q);
static inline MPI_Queue baton_f2c_Queue(int v) {
  return (unsigned)v < BATON_F_PREDEFINED_LIMIT ? (MPI_Queue)(uintptr_t)(unsigned)v : baton_f_queue_from(v);
}
static inline int baton_c2f_Queue(MPI_Queue q) {
  return (uintptr_t)q < BATON_F_PREDEFINED_LIMIT ? (int)(uintptr_t)q : baton_f_queue_to(q);
}

/* gfortran's .TRUE. and .FALSE. for default LOGICAL (read once from Fortran at load time). */
extern BATON_F_HIDDEN int baton_f_true, baton_f_false;
static inline int baton_f_l2c(int v) { return v != baton_f_false; }
static inline int baton_f_c2l(int v) { return v ? baton_f_true : baton_f_false; }

/* The sentinels of mpif.h and `use mpi` (common blocks, defined here so they exist once) and of
 * `use mpi_f08` (BIND(C) module variables of mpi_f08.f90). The glue recognizes them by address. */
extern BATON_F_EXPORT int mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern BATON_F_EXPORT int mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern BATON_F_EXPORT int mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern BATON_F_EXPORT int mpi_fortran_errcodes_ignore_[1];
extern BATON_F_EXPORT char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];
extern BATON_F_EXPORT int mpi_fortran_unweighted_[1], mpi_fortran_weights_empty_[1];
extern int baton_f08_bottom, baton_f08_in_place, baton_f08_buffer_automatic;
extern MPI_Status baton_f08_status_ignore, baton_f08_statuses_ignore[1];
extern int baton_f08_errcodes_ignore[1], baton_f08_unweighted[1], baton_f08_weights_empty[1];
extern char baton_f08_argv_null[1], baton_f08_argvs_null[1];

static inline void *baton_f_buf(void *p) {
  if (p == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
  if (p == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (p == (void *)&mpi_fortran_buffer_automatic_) return MPI_BUFFER_AUTOMATIC;
  return p;
}
static inline void *baton_f08_buf(void *p) {
  if (p == (void *)&baton_f08_bottom) return MPI_BOTTOM;
  if (p == (void *)&baton_f08_in_place) return MPI_IN_PLACE;
  if (p == (void *)&baton_f08_buffer_automatic) return MPI_BUFFER_AUTOMATIC;
  return p;
}
static inline MPI_Status *baton_f_status(int *s) {
  return s == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)s;
}
static inline MPI_Status *baton_f_statuses(int *s) {
  return s == mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)s;
}
static inline MPI_Status *baton_f08_status(MPI_Status *s) {
  return s == &baton_f08_status_ignore ? MPI_STATUS_IGNORE : s;
}
static inline MPI_Status *baton_f08_statuses(MPI_Status *s) {
  return s == baton_f08_statuses_ignore ? MPI_STATUSES_IGNORE : s;
}
/* Integer arrays with sentinels (MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY). */
static inline int *baton_f_ints(int *p) {
  if (p == mpi_fortran_errcodes_ignore_) return MPI_ERRCODES_IGNORE;
  if (p == mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (p == mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return p;
}
static inline int *baton_f08_ints(int *p) {
  if (p == baton_f08_errcodes_ignore) return MPI_ERRCODES_IGNORE;
  if (p == baton_f08_unweighted) return MPI_UNWEIGHTED;
  if (p == baton_f08_weights_empty) return MPI_WEIGHTS_EMPTY;
  return p;
}

/* ---- temporaries: a small array on the stack, a larger one from malloc ---- */
#define BATON_F_SMALL 16
BATON_F_HIDDEN void *baton_f_alloc(size_t n, void *stack, size_t stack_bytes);
static inline void baton_f_release(void *p, void *stack) {
  if (p && p != stack) free(p);
}

/* ---- strings: CHARACTER(LEN=n) <-> NUL-terminated ---- */
/* A NUL-terminated copy without trailing blanks (NULL on allocation failure). */
BATON_F_HIDDEN char *baton_f_str_in(const char *s, size_t len, char *stack, size_t stack_bytes);
/* Info keys and values: leading blanks go too (MPI-4.1 10.1: "leading and trailing spaces are
 * stripped" from Fortran keys and values). */
static inline char *baton_f_info_str_in(const char *s, size_t len, char *stack, size_t stack_bytes) {
  while (len > 0 && *s == ' ') s++, len--;
  return baton_f_str_in(s, len, stack, stack_bytes);
}
/* A buffer for an output string of a Fortran variable of `len` characters (at least `atleast` + 1
 * bytes: the C function may write up to its own maximum). */
BATON_F_HIDDEN char *baton_f_str_buf(size_t len, long long atleast);
/* Copies the C result into the Fortran variable, blank-padded; frees the buffer. */
BATON_F_HIDDEN void baton_f_str_out(char *f, size_t len, char *c);
/* argv of MPI_Comm_spawn: a CHARACTER array whose first blank element ends the list. */
BATON_F_HIDDEN char **baton_f_argv(const char *a, size_t len);
BATON_F_HIDDEN char ***baton_f_argvs(const char *a, size_t len, int count, int ld);
BATON_F_HIDDEN char **baton_f_strings(const char *a, size_t len, int count);
BATON_F_HIDDEN void baton_f_argv_free(char **argv);
BATON_F_HIDDEN void baton_f_argvs_free(char ***argvs, int count);

/* ---- array lengths the description gives as size(comm) / degree(comm) / ndims(comm) ---- */
BATON_F_HIDDEN int baton_f_comm_size(MPI_Comm comm);       /* remote size for an intercommunicator */
BATON_F_HIDDEN int baton_f_degree(MPI_Comm comm, int out); /* out-degree (1) or in-degree (0) */
BATON_F_HIDDEN int baton_f_ndims(MPI_Comm comm);

/* ---- errors found in the glue: raised like the library's own errors ---- */
BATON_F_HIDDEN int baton_f_raise(MPI_Comm comm, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- mpi_f08 choice buffers (CFI descriptors) ---- */
/* Contiguous (or scalar, or empty): the common case, decided inline. */
static inline int baton_f08_contiguous(const CFI_cdesc_t *d) {
  if (d->rank == 0) return 1;
  CFI_index_t want = (CFI_index_t)d->elem_len;
  for (int i = 0; i < d->rank; i++) {
    if (d->dim[i].extent == 0) return 1;
    if (d->dim[i].extent != 1 && d->dim[i].sm != want) return 0;
    want *= d->dim[i].extent;
  }
  return 1;
}
/* A non-contiguous section: what the call gets instead of (base, count, type). */
typedef struct {
  void *addr;
  MPI_Datatype type;   /* a datatype built over the section (freed by _end), or none */
  void *copy;          /* a contiguous copy of the section (written back by _end), or none */
  const CFI_cdesc_t *desc;
  int write_back;
} baton_f08_section;
enum { BATON_F08_TYPED = 1, BATON_F08_BLOCKING = 2, BATON_F08_WRITES = 4 };
/* flags: TYPED when the call's (count, type) describe only this buffer (a datatype over the
 * section can replace them), BLOCKING when the buffer is not used after the call returns (a
 * contiguous copy may stand in), WRITES when the call may write the buffer. */
BATON_F_HIDDEN int baton_f08_section_begin(baton_f08_section *s, const CFI_cdesc_t *d, MPI_Count count,
                                           MPI_Datatype type, int flags, const char *fn);
BATON_F_HIDDEN void baton_f08_section_finish(baton_f08_section *s);
static inline void baton_f08_section_end(baton_f08_section *s) {
  if (s->type || s->copy) baton_f08_section_finish(s);
}

/* ---- callbacks (callbacks.c) ---- */
typedef void baton_f_fn(void);
BATON_F_HIDDEN int baton_f_op_create(baton_f_fn *fn, int commute, MPI_Op *op, int large);
BATON_F_HIDDEN void baton_f_op_forget(MPI_Op op);
BATON_F_HIDDEN int baton_f_errhandler_create(int kind, baton_f_fn *fn, MPI_Errhandler *eh);
enum { BATON_F_EH_COMM, BATON_F_EH_WIN, BATON_F_EH_FILE, BATON_F_EH_SESSION, BATON_F_EH_KINDS };
BATON_F_HIDDEN int baton_f_keyval_create(int kind, baton_f_fn *copy, baton_f_fn *del, int *keyval,
                                         MPI_Aint extra, int old_style);
enum { BATON_F_ATTR_COMM, BATON_F_ATTR_TYPE, BATON_F_ATTR_WIN };
BATON_F_HIDDEN MPI_Aint baton_f_attr_value(int kind, int keyval, void *value);
BATON_F_HIDDEN int baton_f_grequest_start(baton_f_fn *query, baton_f_fn *free_fn, baton_f_fn *cancel,
                                          MPI_Aint *extra, MPI_Request *request);
BATON_F_HIDDEN int baton_f_register_datarep(const char *name, baton_f_fn *read, baton_f_fn *write,
                                            baton_f_fn *extent, MPI_Aint extra, int large);

#endif /* BATON_FORTRAN_H */
