/*
 * Procedures written in Fortran that the library calls: user reduction operations, error
 * handlers, attribute copy/delete functions, generalized requests and data representation
 * conversions. The C library calls C functions with C handles; these trampolines convert the
 * arguments (handles to INTEGERs, C int flags to LOGICAL, attribute values to
 * INTEGER(KIND=MPI_ADDRESS_KIND)) and call the Fortran procedure.
 *
 * Where the C callback has an extra_state argument (keyvals, generalized requests, data
 * representations) the trampoline finds the Fortran procedure through it. User operations and
 * error handlers have none: each Fortran procedure gets one trampoline of a fixed pool (256
 * operations of each count size, 64 error handlers of each kind), the only way to tell them apart
 * without an extension of the ABI. An operation's trampoline goes back to the pool when
 * MPI_Op_free succeeds (and is reused last, after every other free one); an error handler's stays
 * taken (the handler lives on in the objects it was set on after MPI_Errhandler_free).
 */
#include <pthread.h>
#include <stdio.h>

#include "baton_fortran.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 16 / 64 / 256 names from two hex digits: X(00) ... X(ff). */
#define D16(X, h) X(h##0) X(h##1) X(h##2) X(h##3) X(h##4) X(h##5) X(h##6) X(h##7) \
                  X(h##8) X(h##9) X(h##a) X(h##b) X(h##c) X(h##d) X(h##e) X(h##f)
#define D64(X) D16(X, 0) D16(X, 1) D16(X, 2) D16(X, 3)
#define D256(X) D64(X) D16(X, 4) D16(X, 5) D16(X, 6) D16(X, 7) D16(X, 8) D16(X, 9) D16(X, a) \
                D16(X, b) D16(X, c) D16(X, d) D16(X, e) D16(X, f)

/* ---- user reduction operations ---- */
enum { op_pool = 256 };
typedef void f_user(void *in, void *inout, int *len, int *datatype);
typedef void f_user_c(void *in, void *inout, MPI_Count *len, int *datatype);

static struct {
  baton_f_fn *fn[op_pool];
  MPI_Op op[op_pool];
  int free_list[op_pool]; /* slots to hand out, oldest release first */
  int head, n;
  int ready;
} ops[2];

static void op_call(int large, int i, void *in, void *inout, void *len, MPI_Datatype *type) {
  int t = baton_c2f_Type(*type);
  if (large) ((f_user_c *)ops[1].fn[i])(in, inout, len, &t);
  else ((f_user *)ops[0].fn[i])(in, inout, len, &t);
}

#define OP_TRAMP(n)                                                                              \
  static void op_##n(void *a, void *b, int *len, MPI_Datatype *t) { op_call(0, 0x##n, a, b, len, t); } \
  static void op_c_##n(void *a, void *b, MPI_Count *len, MPI_Datatype *t) { op_call(1, 0x##n, a, b, len, t); }
D256(OP_TRAMP)
#define OP_ENTRY(n) op_##n,
#define OP_C_ENTRY(n) op_c_##n,
static MPI_User_function *const op_tramps[op_pool] = {D256(OP_ENTRY)};
static MPI_User_function_c *const op_c_tramps[op_pool] = {D256(OP_C_ENTRY)};

static int op_take(int large) {
  if (!ops[large].ready) {
    for (int i = 0; i < op_pool; i++) ops[large].free_list[i] = i;
    ops[large].n = op_pool;
    ops[large].ready = 1;
  }
  if (ops[large].n == 0) return -1;
  int i = ops[large].free_list[ops[large].head];
  ops[large].head = (ops[large].head + 1) % op_pool;
  ops[large].n--;
  return i;
}

static void op_give(int large, int i) {
  ops[large].free_list[(ops[large].head + ops[large].n) % op_pool] = i;
  ops[large].n++;
  ops[large].op[i] = MPI_OP_NULL;
}

int baton_f_op_create(baton_f_fn *fn, int commute, MPI_Op *op, int large) {
  pthread_mutex_lock(&lock);
  int i = op_take(large);
  if (i >= 0) ops[large].fn[i] = fn;
  pthread_mutex_unlock(&lock);
  if (i < 0)
    return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_INTERN,
                         "MPI_Op_create: %d operations written in Fortran exist already (the most the Fortran "
                         "bindings can tell apart); free one with MPI_Op_free first", op_pool);
  int rc = large ? MPI_Op_create_c(op_c_tramps[i], commute, op) : MPI_Op_create(op_tramps[i], commute, op);
  pthread_mutex_lock(&lock);
  if (rc == MPI_SUCCESS) ops[large].op[i] = *op;
  else op_give(large, i);
  pthread_mutex_unlock(&lock);
  return rc;
}

void baton_f_op_forget(MPI_Op op) {
  pthread_mutex_lock(&lock);
  for (int large = 0; large < 2; large++)
    for (int i = 0; i < op_pool; i++)
      if (ops[large].ready && ops[large].op[i] == op && op != MPI_OP_NULL) op_give(large, i);
  pthread_mutex_unlock(&lock);
}

/* ---- error handlers ---- */
enum { eh_pool = 64 };
typedef void f_errhandler(int *handle, int *error_code);
static baton_f_fn *eh_fn[BATON_F_EH_KINDS][eh_pool];
static int eh_used[BATON_F_EH_KINDS];

#define EH_TRAMP(n)                                                                                  \
  static void eh_comm_##n(MPI_Comm *h, int *e, ...) {                                                \
    int f = baton_c2f_Comm(*h);                                                                      \
    ((f_errhandler *)eh_fn[BATON_F_EH_COMM][0x##n])(&f, e);                                         \
  }                                                                                                  \
  static void eh_win_##n(MPI_Win *h, int *e, ...) {                                                  \
    int f = baton_c2f_Win(*h);                                                                       \
    ((f_errhandler *)eh_fn[BATON_F_EH_WIN][0x##n])(&f, e);                                          \
  }                                                                                                  \
  static void eh_file_##n(MPI_File *h, int *e, ...) {                                                \
    int f = baton_c2f_File(*h);                                                                      \
    ((f_errhandler *)eh_fn[BATON_F_EH_FILE][0x##n])(&f, e);                                         \
  }                                                                                                  \
  static void eh_session_##n(MPI_Session *h, int *e, ...) {                                          \
    int f = baton_c2f_Session(*h);                                                                   \
    ((f_errhandler *)eh_fn[BATON_F_EH_SESSION][0x##n])(&f, e);                                      \
  }
D64(EH_TRAMP)
#define EH_COMM(n) eh_comm_##n,
#define EH_WIN(n) eh_win_##n,
#define EH_FILE(n) eh_file_##n,
#define EH_SESSION(n) eh_session_##n,
static MPI_Comm_errhandler_function *const eh_comm[eh_pool] = {D64(EH_COMM)};
static MPI_Win_errhandler_function *const eh_win[eh_pool] = {D64(EH_WIN)};
static MPI_File_errhandler_function *const eh_file[eh_pool] = {D64(EH_FILE)};
static MPI_Session_errhandler_function *const eh_session[eh_pool] = {D64(EH_SESSION)};

int baton_f_errhandler_create(int kind, baton_f_fn *fn, MPI_Errhandler *eh) {
  static const char *const names[] = {"MPI_Comm_create_errhandler", "MPI_Win_create_errhandler",
                                      "MPI_File_create_errhandler", "MPI_Session_create_errhandler"};
  pthread_mutex_lock(&lock);
  int i = eh_used[kind] < eh_pool ? eh_used[kind]++ : -1;
  if (i >= 0) eh_fn[kind][i] = fn;
  pthread_mutex_unlock(&lock);
  if (i < 0)
    return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_INTERN,
                         "%s: %d error handlers of this kind written in Fortran exist already (the most the "
                         "Fortran bindings can tell apart)", names[kind], eh_pool);
  switch (kind) {
    case BATON_F_EH_COMM: return MPI_Comm_create_errhandler(eh_comm[i], eh);
    case BATON_F_EH_WIN: return MPI_Win_create_errhandler(eh_win[i], eh);
    case BATON_F_EH_FILE: return MPI_File_create_errhandler(eh_file[i], eh);
    default: return MPI_Session_create_errhandler(eh_session[i], eh);
  }
}

/* ---- attribute keyvals ----
 * The keyval's extra_state is a record of the Fortran procedures and the program's extra_state;
 * records stay on a list for the life of the process (attributes outlive MPI_*_free_keyval). */
typedef void f_copy(int *h, int *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out, int *flag, int *ierr);
typedef void f_copy_old(int *h, int *keyval, int *extra, int *in, int *out, int *flag, int *ierr);
typedef void f_delete(int *h, int *keyval, MPI_Aint *value, MPI_Aint *extra, int *ierr);
typedef void f_delete_old(int *h, int *keyval, int *value, int *extra, int *ierr);

struct f_keyval {
  baton_f_fn *copy, *del;
  MPI_Aint extra;
  int old; /* MPI_Keyval_create: INTEGER values instead of INTEGER(KIND=MPI_ADDRESS_KIND) */
  struct f_keyval *next;
};
static struct f_keyval *keyvals;

/* The predefined procedures (mpif.h, modules mpi and mpi_f08 declare them); passed to
 * MPI_*_create_keyval they become the C library's own predefined callbacks. */
BATON_F_EXPORT void mpi_comm_null_copy_fn_(int *h, int *kv, MPI_Aint *ex, MPI_Aint *in, MPI_Aint *out, int *flag,
                                           int *ierr) {
  (void)h, (void)kv, (void)ex, (void)in, (void)out;
  *flag = baton_f_false;
  *ierr = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_comm_dup_fn_(int *h, int *kv, MPI_Aint *ex, MPI_Aint *in, MPI_Aint *out, int *flag, int *ierr) {
  (void)h, (void)kv, (void)ex;
  *out = *in;
  *flag = baton_f_true;
  *ierr = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_comm_null_delete_fn_(int *h, int *kv, MPI_Aint *v, MPI_Aint *ex, int *ierr) {
  (void)h, (void)kv, (void)v, (void)ex;
  *ierr = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_null_copy_fn_(int *h, int *kv, int *ex, int *in, int *out, int *flag, int *ierr) {
  (void)h, (void)kv, (void)ex, (void)in, (void)out;
  *flag = baton_f_false;
  *ierr = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_dup_fn_(int *h, int *kv, int *ex, int *in, int *out, int *flag, int *ierr) {
  (void)h, (void)kv, (void)ex;
  *out = *in;
  *flag = baton_f_true;
  *ierr = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_null_delete_fn_(int *h, int *kv, int *v, int *ex, int *ierr) {
  (void)h, (void)kv, (void)v, (void)ex;
  *ierr = MPI_SUCCESS;
}
#define BATON_F_SAME(other, name) \
  __typeof__(name) other __attribute__((alias(#name), visibility("default")));
BATON_F_SAME(mpi_type_null_copy_fn_, mpi_comm_null_copy_fn_)
BATON_F_SAME(mpi_win_null_copy_fn_, mpi_comm_null_copy_fn_)
BATON_F_SAME(mpi_type_dup_fn_, mpi_comm_dup_fn_)
BATON_F_SAME(mpi_win_dup_fn_, mpi_comm_dup_fn_)
BATON_F_SAME(mpi_type_null_delete_fn_, mpi_comm_null_delete_fn_)
BATON_F_SAME(mpi_win_null_delete_fn_, mpi_comm_null_delete_fn_)

static int is_null_copy(baton_f_fn *f) {
  return f == (baton_f_fn *)mpi_comm_null_copy_fn_ || f == (baton_f_fn *)mpi_null_copy_fn_;
}
static int is_dup(baton_f_fn *f) { return f == (baton_f_fn *)mpi_comm_dup_fn_ || f == (baton_f_fn *)mpi_dup_fn_; }
static int is_null_delete(baton_f_fn *f) {
  return f == (baton_f_fn *)mpi_comm_null_delete_fn_ || f == (baton_f_fn *)mpi_null_delete_fn_;
}

static int copy_call(int h, int keyval, void *extra, void *in, void *out, int *flag) {
  struct f_keyval *k = extra;
  int kv = keyval, ierr = MPI_SUCCESS, fflag = baton_f_false;
  if (k->old) {
    int e = (int)k->extra, vin = (int)(intptr_t)in, vout = 0;
    ((f_copy_old *)k->copy)(&h, &kv, &e, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)(intptr_t)vout;
  } else {
    MPI_Aint e = k->extra, vin = (MPI_Aint)in, vout = 0;
    ((f_copy *)k->copy)(&h, &kv, &e, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)vout;
  }
  *flag = baton_f_l2c(fflag);
  return ierr;
}

static int delete_call(int h, int keyval, void *value, void *extra) {
  struct f_keyval *k = extra;
  int kv = keyval, ierr = MPI_SUCCESS;
  if (k->old) {
    int e = (int)k->extra, v = (int)(intptr_t)value;
    ((f_delete_old *)k->del)(&h, &kv, &v, &e, &ierr);
  } else {
    MPI_Aint e = k->extra, v = (MPI_Aint)value;
    ((f_delete *)k->del)(&h, &kv, &v, &e, &ierr);
  }
  return ierr;
}

static int comm_copy(MPI_Comm c, int kv, void *x, void *in, void *out, int *flag) {
  return copy_call(baton_c2f_Comm(c), kv, x, in, out, flag);
}
static int comm_delete(MPI_Comm c, int kv, void *v, void *x) { return delete_call(baton_c2f_Comm(c), kv, v, x); }
static int type_copy(MPI_Datatype t, int kv, void *x, void *in, void *out, int *flag) {
  return copy_call(baton_c2f_Type(t), kv, x, in, out, flag);
}
static int type_delete(MPI_Datatype t, int kv, void *v, void *x) { return delete_call(baton_c2f_Type(t), kv, v, x); }
static int win_copy(MPI_Win w, int kv, void *x, void *in, void *out, int *flag) {
  return copy_call(baton_c2f_Win(w), kv, x, in, out, flag);
}
static int win_delete(MPI_Win w, int kv, void *v, void *x) { return delete_call(baton_c2f_Win(w), kv, v, x); }

int baton_f_keyval_create(int kind, baton_f_fn *copy, baton_f_fn *del, int *keyval, MPI_Aint extra, int old) {
  struct f_keyval *k = calloc(1, sizeof *k);
  if (!k) return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Comm_create_keyval: no memory");
  k->copy = copy;
  k->del = del;
  k->extra = extra;
  k->old = old;
  pthread_mutex_lock(&lock);
  k->next = keyvals;
  keyvals = k;
  pthread_mutex_unlock(&lock);
  /* 0: the NULL_COPY / NULL_DELETE sentinels, 1: the DUP sentinel (mpi.h) */
  const int c = is_null_copy(copy) ? 0 : is_dup(copy) ? 1 : 2, d = is_null_delete(del) ? 0 : 2;
  switch (kind) {
    case BATON_F_ATTR_COMM:
      return MPI_Comm_create_keyval(c == 0 ? MPI_COMM_NULL_COPY_FN : c == 1 ? MPI_COMM_DUP_FN : comm_copy,
                                    d == 0 ? MPI_COMM_NULL_DELETE_FN : comm_delete, keyval, k);
    case BATON_F_ATTR_TYPE:
      return MPI_Type_create_keyval(c == 0 ? MPI_TYPE_NULL_COPY_FN : c == 1 ? MPI_TYPE_DUP_FN : type_copy,
                                    d == 0 ? MPI_TYPE_NULL_DELETE_FN : type_delete, keyval, k);
    default:
      return MPI_Win_create_keyval(c == 0 ? MPI_WIN_NULL_COPY_FN : c == 1 ? MPI_WIN_DUP_FN : win_copy,
                                   d == 0 ? MPI_WIN_NULL_DELETE_FN : win_delete, keyval, k);
  }
}

/* An attribute as Fortran sees it: values set from Fortran are integers kept in the pointer;
 * the predefined attributes are pointers to the library's values (MPI-4.1 19.3.7). */
MPI_Aint baton_f_attr_value(int kind, int keyval, void *value) {
  if (kind == BATON_F_ATTR_COMM) {
    switch (keyval) {
      case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL: case MPI_APPNUM:
      case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE: case MPIX_ICOLL_MAX_OUTSTANDING:
        return value ? *(int *)value : 0;
      default: break;
    }
  } else if (kind == BATON_F_ATTR_WIN) {
    switch (keyval) {
      case MPI_WIN_BASE: return (MPI_Aint)value;
      case MPI_WIN_SIZE: return value ? *(MPI_Aint *)value : 0;
      case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL: return value ? *(int *)value : 0;
      default: break;
    }
  }
  return (MPI_Aint)value;
}

/* ---- generalized requests ----
 * The callbacks get the program's own extra_state variable by reference, as MPICH's bindings give
 * it (its test/mpi/f77 and f08 greq tests count on a free_fn that updates it): the variable must
 * live until the request is freed. */
typedef void f_query(MPI_Aint *extra, int *status, int *ierr);
typedef void f_free(MPI_Aint *extra, int *ierr);
typedef void f_cancel(MPI_Aint *extra, int *complete, int *ierr);
struct f_greq {
  baton_f_fn *query, *free_fn, *cancel;
  MPI_Aint *extra;
};

static int greq_query(void *x, MPI_Status *status) {
  struct f_greq *g = x;
  int ierr = MPI_SUCCESS;
  ((f_query *)g->query)(g->extra, (int *)(void *)status, &ierr);
  return ierr;
}
static int greq_free(void *x) {
  struct f_greq *g = x;
  int ierr = MPI_SUCCESS;
  ((f_free *)g->free_fn)(g->extra, &ierr);
  free(g);
  return ierr;
}
static int greq_cancel(void *x, int complete) {
  struct f_greq *g = x;
  int ierr = MPI_SUCCESS, c = baton_f_c2l(complete);
  ((f_cancel *)g->cancel)(g->extra, &c, &ierr);
  return ierr;
}

int baton_f_grequest_start(baton_f_fn *query, baton_f_fn *free_fn, baton_f_fn *cancel, MPI_Aint *extra,
                           MPI_Request *request) {
  struct f_greq *g = malloc(sizeof *g);
  if (!g) return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Grequest_start: no memory");
  g->query = query;
  g->free_fn = free_fn;
  g->cancel = cancel;
  g->extra = extra;
  int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, request);
  if (rc != MPI_SUCCESS) free(g);
  return rc;
}

/* ---- data representations (MPI_Register_datarep) ---- */
typedef void f_conversion(void *userbuf, int *type, int *count, void *filebuf, MPI_Offset *pos, MPI_Aint *extra,
                          int *ierr);
typedef void f_conversion_c(void *userbuf, int *type, MPI_Count *count, void *filebuf, MPI_Offset *pos,
                            MPI_Aint *extra, int *ierr);
typedef void f_extent(int *type, MPI_Aint *extent, MPI_Aint *extra, int *ierr);
struct f_datarep {
  baton_f_fn *read, *write, *extent;
  MPI_Aint extra;
  struct f_datarep *next;
};
static struct f_datarep *datareps;

BATON_F_EXPORT void mpi_conversion_fn_null_(void *userbuf, int *type, int *count, void *filebuf, MPI_Offset *pos,
                                            MPI_Aint *extra, int *ierr) {
  (void)userbuf, (void)type, (void)count, (void)filebuf, (void)pos, (void)extra;
  *ierr = MPI_SUCCESS;
}
BATON_F_SAME(mpi_conversion_fn_null_c_, mpi_conversion_fn_null_)

static int convert(baton_f_fn *fn, int large, void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                   MPI_Offset pos, struct f_datarep *d) {
  int t = baton_c2f_Type(type), ierr = MPI_SUCCESS;
  MPI_Aint e = d->extra;
  if (large) {
    ((f_conversion_c *)fn)(userbuf, &t, &count, filebuf, &pos, &e, &ierr);
  } else {
    int n = (int)count;
    ((f_conversion *)fn)(userbuf, &t, &n, filebuf, &pos, &e, &ierr);
  }
  return ierr;
}
static int dr_read(void *u, MPI_Datatype t, int n, void *f, MPI_Offset p, void *x) {
  return convert(((struct f_datarep *)x)->read, 0, u, t, n, f, p, x);
}
static int dr_write(void *u, MPI_Datatype t, int n, void *f, MPI_Offset p, void *x) {
  return convert(((struct f_datarep *)x)->write, 0, u, t, n, f, p, x);
}
static int dr_read_c(void *u, MPI_Datatype t, MPI_Count n, void *f, MPI_Offset p, void *x) {
  return convert(((struct f_datarep *)x)->read, 1, u, t, n, f, p, x);
}
static int dr_write_c(void *u, MPI_Datatype t, MPI_Count n, void *f, MPI_Offset p, void *x) {
  return convert(((struct f_datarep *)x)->write, 1, u, t, n, f, p, x);
}
static int dr_extent(MPI_Datatype type, MPI_Aint *extent, void *x) {
  struct f_datarep *d = x;
  int t = baton_c2f_Type(type), ierr = MPI_SUCCESS;
  MPI_Aint e = d->extra;
  ((f_extent *)d->extent)(&t, extent, &e, &ierr);
  return ierr;
}

int baton_f_register_datarep(const char *name, baton_f_fn *read, baton_f_fn *write, baton_f_fn *extent,
                             MPI_Aint extra, int large) {
  struct f_datarep *d = calloc(1, sizeof *d);
  if (!d) return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Register_datarep: no memory");
  d->read = read;
  d->write = write;
  d->extent = extent;
  d->extra = extra;
  pthread_mutex_lock(&lock);
  d->next = datareps;
  datareps = d;
  pthread_mutex_unlock(&lock);
  const int rnull = read == (baton_f_fn *)mpi_conversion_fn_null_, wnull = write == (baton_f_fn *)mpi_conversion_fn_null_;
  if (large)
    return MPI_Register_datarep_c(name, rnull ? MPI_CONVERSION_FN_NULL_C : dr_read_c,
                                  wnull ? MPI_CONVERSION_FN_NULL_C : dr_write_c, dr_extent, d);
  return MPI_Register_datarep(name, rnull ? MPI_CONVERSION_FN_NULL : dr_read, wnull ? MPI_CONVERSION_FN_NULL : dr_write,
                              dr_extent, d);
}
