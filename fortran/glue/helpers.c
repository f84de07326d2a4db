/*
 * The C side of Baton's Fortran bindings that the generator does not write: the sentinels of
 * mpif.h / module mpi, gfortran's LOGICAL values, strings, temporaries, the lengths of arrays that
 * depend on a communicator, errors found in the glue, non-contiguous mpi_f08 buffers, the integer
 * form of MPI_Queue, and the Fortran-only procedures (MPI_F_sync_reg, MPI_Status_f2f08/_f082f).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "baton_fortran.h"

/* ---- sentinels: the common blocks of mpif.h and module mpi (one definition, here) ---- */
#define BATON_F_COMMON BATON_F_EXPORT __attribute__((aligned(16)))
BATON_F_COMMON int mpi_fortran_bottom_ = 0;
BATON_F_COMMON int mpi_fortran_in_place_ = 0;
BATON_F_COMMON int mpi_fortran_buffer_automatic_ = 0;
BATON_F_COMMON int mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] = {0};
BATON_F_COMMON int mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] = {0};
BATON_F_COMMON int mpi_fortran_errcodes_ignore_[1] = {0};
BATON_F_COMMON char mpi_fortran_argv_null_[1] = {' '};
BATON_F_COMMON char mpi_fortran_argvs_null_[1] = {' '};
BATON_F_COMMON int mpi_fortran_unweighted_[1] = {0};
BATON_F_COMMON int mpi_fortran_weights_empty_[1] = {0};

/* ---- LOGICAL ---- */
int baton_f_true = 1, baton_f_false = 0;

/* fortran/logical.f90: gfortran's .TRUE. and .FALSE. as default INTEGERs. */
void baton_f_logical_values(int *true_value, int *false_value);

/* At load time: read the compiler's values and give them to the library (MPI-5.0: the Fortran
 * bindings tell the ABI library the LOGICAL values, which the LAND/LOR/LXOR reductions of
 * MPI_LOGICAL need). */
__attribute__((constructor)) static void baton_f_init(void) {
  int t = 1, f = 0, set = 0, lt = 0, lf = 0;
  baton_f_logical_values(&t, &f);
  baton_f_true = t;
  baton_f_false = f;
  if (MPI_Abi_get_fortran_booleans((int)sizeof(int), &lt, &lf, &set) != MPI_SUCCESS) return;
  if (set && (lt != t || lf != f))
    fprintf(stderr, "libmpifort_abi: the library's Fortran LOGICAL values (.TRUE. = %d, .FALSE. = %d) differ from "
                    "gfortran's (%d, %d): LAND/LOR/LXOR on MPI_LOGICAL will give wrong results\n", lt, lf, t, f);
  else if (!set && MPI_Abi_set_fortran_booleans((int)sizeof(int), &t, &f) != MPI_SUCCESS)
    fprintf(stderr, "libmpifort_abi: MPI_Abi_set_fortran_booleans refused gfortran's LOGICAL values\n");
}

/* ---- temporaries ---- */
void *baton_f_alloc(size_t n, void *stack, size_t stack_bytes) {
  if (n <= stack_bytes) return stack;
  return malloc(n);
}

/* ---- strings ---- */
static size_t trimmed(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') len--;
  return len;
}

char *baton_f_str_in(const char *s, size_t len, char *stack, size_t stack_bytes) {
  len = trimmed(s, len);
  char *c = baton_f_alloc(len + 1, stack, stack_bytes);
  if (!c) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

/* The largest string a C function of the library writes without being told a length is
 * MPI_MAX_LIBRARY_VERSION_STRING. */
char *baton_f_str_buf(size_t len, long long atleast) {
  size_t n = len;
  if (n < MPI_MAX_LIBRARY_VERSION_STRING) n = MPI_MAX_LIBRARY_VERSION_STRING;
  if (atleast > 0 && (size_t)atleast > n) n = (size_t)atleast;
  return calloc(n + 2, 1);
}

void baton_f_str_out(char *f, size_t len, char *c) {
  size_t n = strlen(c);
  if (n > len) n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
  free(c);
}

static char *dup_trimmed(const char *s, size_t len) {
  len = trimmed(s, len);
  char *c = malloc(len + 1);
  if (c) {
    memcpy(c, s, len);
    c[len] = '\0';
  }
  return c;
}

/* Elements a[0], a[stride], ... up to the first blank one (or `count` of them when count >= 0). */
static char **string_list(const char *a, size_t len, size_t stride, int count) {
  int n = 0;
  if (count >= 0) n = count;
  else
    while (trimmed(a + (size_t)n * stride * len, len) > 0) n++;
  char **v = calloc((size_t)n + 1, sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < n; i++) {
    if (!(v[i] = dup_trimmed(a + (size_t)i * stride * len, len))) {
      baton_f_argv_free(v);
      return NULL;
    }
  }
  return v;
}

char **baton_f_argv(const char *a, size_t len) { return string_list(a, len, 1, -1); }
char **baton_f_strings(const char *a, size_t len, int count) { return string_list(a, len, 1, count < 0 ? 0 : count); }

void baton_f_argv_free(char **argv) {
  if (!argv) return;
  for (char **p = argv; *p; p++) free(*p);
  free(argv);
}

/* array_of_argv(count, *): row i holds the arguments of command i, ended by a blank element. */
char ***baton_f_argvs(const char *a, size_t len, int count, int ld) {
  if (count < 0) count = 0;
  char ***v = calloc((size_t)count + 1, sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < count; i++) {
    if (!(v[i] = string_list(a + (size_t)i * len, len, (size_t)ld, -1))) {
      baton_f_argvs_free(v, i);
      return NULL;
    }
  }
  return v;
}

void baton_f_argvs_free(char ***argvs, int count) {
  if (!argvs) return;
  for (int i = 0; i < count; i++) baton_f_argv_free(argvs[i]);
  free(argvs);
}

/* ---- array lengths ---- */
int baton_f_comm_size(MPI_Comm comm) {
  int inter = 0, n = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
  if ((inter ? MPI_Comm_remote_size(comm, &n) : MPI_Comm_size(comm, &n)) != MPI_SUCCESS) return 0;
  return n;
}

int baton_f_degree(MPI_Comm comm, int out) {
  int kind = MPI_UNDEFINED, n = 0, rank = 0, in = 0, outd = 0, weighted = 0;
  if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
  switch (kind) {
    case MPI_CART:
      if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
      return 2 * n;
    case MPI_GRAPH:
      if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
        return 0;
      return n;
    case MPI_DIST_GRAPH:
      if (MPI_Dist_graph_neighbors_count(comm, &in, &outd, &weighted) != MPI_SUCCESS) return 0;
      return out ? outd : in;
    default:
      return 0;
  }
}

int baton_f_ndims(MPI_Comm comm) {
  int n = 0;
  return MPI_Cartdim_get(comm, &n) == MPI_SUCCESS ? n : 0;
}

/* ---- errors found in the glue ----
 * An error code of the right class carrying the message (MPI_Add_error_code / _string: the error
 * handler and MPI_Error_string show it), raised on the call's communicator. Codes are kept per
 * message, so a program that makes the same mistake in a loop does not use up codes. */
static pthread_mutex_t raise_lock = PTHREAD_MUTEX_INITIALIZER;
enum { raise_cache = 32 };
static struct {
  int errclass, code;
  char msg[MPI_MAX_ERROR_STRING];
} raised[raise_cache];
static int raised_n;

int baton_f_raise(MPI_Comm comm, int errclass, const char *fmt, ...) {
  char msg[MPI_MAX_ERROR_STRING];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int code = errclass, flag = 0;
  if (MPI_Initialized(&flag) == MPI_SUCCESS && flag) {
    pthread_mutex_lock(&raise_lock);
    int found = 0;
    for (int i = 0; i < raised_n && !found; i++)
      if (raised[i].errclass == errclass && strcmp(raised[i].msg, msg) == 0) code = raised[i].code, found = 1;
    if (!found && MPI_Add_error_code(errclass, &code) == MPI_SUCCESS) {
      if (MPI_Add_error_string(code, msg) != MPI_SUCCESS) code = errclass;
      else if (raised_n < raise_cache) {
        raised[raised_n].errclass = errclass;
        raised[raised_n].code = code;
        snprintf(raised[raised_n].msg, sizeof raised[raised_n].msg, "%s", msg);
        raised_n++;
      }
    }
    pthread_mutex_unlock(&raise_lock);
    int rc = MPI_Comm_call_errhandler(comm, code);
    (void)rc; /* the handler ran (or the comm is invalid: the code still goes back to the caller) */
  } else {
    fprintf(stderr, "%s\n", msg);
  }
  return code;
}

/* ---- non-contiguous mpi_f08 buffers ---- */
static MPI_Count section_elements(const CFI_cdesc_t *d) {
  MPI_Count n = 1;
  for (int i = 0; i < d->rank; i++) n *= d->dim[i].extent;
  return n;
}

/* Byte offset of element j (in array element order) of the section from its base address. */
static MPI_Aint section_offset(const CFI_cdesc_t *d, MPI_Count j) {
  MPI_Aint off = 0;
  for (int i = 0; i < d->rank; i++) {
    MPI_Count e = d->dim[i].extent;
    off += (MPI_Aint)(j % e) * (MPI_Aint)d->dim[i].sm;
    j /= e;
  }
  return off;
}

/* A datatype over the first m elements of the section, each element `k` consecutive copies of
 * `type` (a datatype without gaps), or 0 when it cannot be built. */
static MPI_Datatype section_type(const CFI_cdesc_t *d, MPI_Count m, MPI_Count k, MPI_Datatype type) {
  MPI_Datatype elem = type, t = 0, next = 0;
  int own = 0;
  if (k != 1) {
    if (MPI_Type_contiguous_c(k, type, &elem) != MPI_SUCCESS) return 0;
    own = 1;
  }
  if (m == section_elements(d)) {
    t = elem;
    for (int i = 0; i < d->rank; i++) {
      if (MPI_Type_create_hvector_c(d->dim[i].extent, 1, d->dim[i].sm, t, &next) != MPI_SUCCESS) next = 0;
      if (t != elem) MPI_Type_free(&t);
      if (!next) break;
      t = next;
    }
    if (!next) t = 0;
  } else {
    MPI_Count *displs = malloc((size_t)(m > 0 ? m : 1) * sizeof *displs);
    if (displs) {
      for (MPI_Count j = 0; j < m; j++) displs[j] = section_offset(d, j);
      if (MPI_Type_create_hindexed_block_c(m, 1, displs, elem, &t) != MPI_SUCCESS) t = 0;
      free(displs);
    }
  }
  if (own) MPI_Type_free(&elem);
  if (t && MPI_Type_commit(&t) != MPI_SUCCESS) {
    MPI_Type_free(&t);
    t = 0;
  }
  return t;
}

/* How many copies of `type` fill one element of the section (0: none, the datatype has gaps or
 * does not divide the element). */
static MPI_Count copies_per_element(const CFI_cdesc_t *d, MPI_Datatype type) {
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
  if (MPI_Type_size_c(type, &size) != MPI_SUCCESS || MPI_Type_get_extent_c(type, &lb, &extent) != MPI_SUCCESS ||
      MPI_Type_get_true_extent_c(type, &tlb, &textent) != MPI_SUCCESS)
    return 0;
  if (size <= 0 || lb != 0 || tlb != 0 || extent != size || textent != size) return 0;
  if ((MPI_Count)d->elem_len % size != 0) return 0;
  return (MPI_Count)d->elem_len / size;
}

static void section_copy(const CFI_cdesc_t *d, char *flat, int to_flat) {
  MPI_Count n = section_elements(d);
  char *base = d->base_addr;
  for (MPI_Count j = 0; j < n; j++) {
    char *elem = base + section_offset(d, j);
    if (to_flat) memcpy(flat + (size_t)j * d->elem_len, elem, d->elem_len);
    else memcpy(elem, flat + (size_t)j * d->elem_len, d->elem_len);
  }
}

int baton_f08_section_begin(baton_f08_section *s, const CFI_cdesc_t *d, MPI_Count count, MPI_Datatype type,
                            int flags, const char *fn) {
  s->desc = d;
  s->write_back = (flags & BATON_F08_WRITES) != 0;
  MPI_Count n = section_elements(d);
  if (flags & BATON_F08_TYPED) {
    MPI_Count k = copies_per_element(d, type);
    if (k > 0 && count >= 0 && count % k == 0 && count / k <= n) {
      s->type = section_type(d, count / k, k, type);
      if (s->type) {
        s->addr = d->base_addr;
        return MPI_SUCCESS;
      }
    }
  }
  if (flags & BATON_F08_BLOCKING) {
    s->copy = malloc((size_t)n * d->elem_len);
    if (!s->copy)
      return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "%s: no memory for a copy of a non-contiguous buffer (%lld bytes)",
                           fn, (long long)n * (long long)d->elem_len);
    section_copy(d, s->copy, 1);
    s->addr = s->copy;
    return MPI_SUCCESS;
  }
  return baton_f_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER,
                       "%s: a non-contiguous array section is a buffer of this call only when the call's datatype has "
                       "no gaps and fills whole array elements (here it does not); pass a contiguous array",
                       fn);
}

void baton_f08_section_finish(baton_f08_section *s) {
  if (s->type) MPI_Type_free(&s->type);
  if (s->copy) {
    if (s->write_back) section_copy(s->desc, s->copy, 0);
    free(s->copy);
    s->copy = NULL;
  }
}

/* ---- MPI_Queue as an integer: the ABI gives queues no _toint / _fromint ---- */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Queue *queues;
static int queues_n, queues_cap;

int baton_f_queue_to(MPI_Queue q) {
  pthread_mutex_lock(&queue_lock);
  int i = 0;
  while (i < queues_n && queues[i] != q) i++;
  if (i == queues_n) {
    if (queues_n == queues_cap) {
      int cap = queues_cap ? 2 * queues_cap : 16;
      MPI_Queue *grown = realloc(queues, (size_t)cap * sizeof *grown);
      if (!grown) {
        pthread_mutex_unlock(&queue_lock);
        return (int)(uintptr_t)MPI_QUEUE_NULL;
      }
      queues = grown;
      queues_cap = cap;
    }
    queues[queues_n++] = q;
  }
  pthread_mutex_unlock(&queue_lock);
  return (int)BATON_F_PREDEFINED_LIMIT + i;
}

MPI_Queue baton_f_queue_from(int v) {
  MPI_Queue q = MPI_QUEUE_NULL;
  pthread_mutex_lock(&queue_lock);
  int i = v - (int)BATON_F_PREDEFINED_LIMIT;
  if (i >= 0 && i < queues_n) q = queues[i];
  pthread_mutex_unlock(&queue_lock);
  return q;
}

/* ---- Fortran-only procedures ---- */

/* MPI_F_SYNC_REG (MPI-4.1 19.1.17): a call the compiler cannot see through, so it neither keeps
 * the buffer in registers across it nor moves accesses of the buffer over it. */
BATON_F_EXPORT __attribute__((noinline)) void mpi_f_sync_reg_(void *buf) { __asm__ volatile("" : : "r"(buf) : "memory"); }
BATON_F_EXPORT __attribute__((noinline)) void MPI_F_sync_reg_f08ts(CFI_cdesc_t *buf) {
  __asm__ volatile("" : : "r"(buf) : "memory");
}
__typeof__(mpi_f_sync_reg_) pmpi_f_sync_reg_ __attribute__((alias("mpi_f_sync_reg_"), visibility("default")));
__typeof__(MPI_F_sync_reg_f08ts) PMPI_F_sync_reg_f08ts
    __attribute__((alias("MPI_F_sync_reg_f08ts"), visibility("default")));

/* MPI_Status_f2f08 / _f082f: INTEGER status(MPI_STATUS_SIZE) and TYPE(MPI_Status) have the same
 * layout as the C MPI_Status (MPI_SOURCE, MPI_TAG, MPI_ERROR, then the library's five words). */
BATON_F_EXPORT void mpi_status_f2f08_(const int *f_status, int *f08_status, int *ierror) {
  memcpy(f08_status, f_status, sizeof(MPI_Status));
  if (ierror) *ierror = MPI_SUCCESS;
}
BATON_F_EXPORT void mpi_status_f082f_(const int *f08_status, int *f_status, int *ierror) {
  memcpy(f_status, f08_status, sizeof(MPI_Status));
  if (ierror) *ierror = MPI_SUCCESS;
}
__typeof__(mpi_status_f2f08_) pmpi_status_f2f08_ __attribute__((alias("mpi_status_f2f08_"), visibility("default")));
__typeof__(mpi_status_f082f_) pmpi_status_f082f_ __attribute__((alias("mpi_status_f082f_"), visibility("default")));

/* MPI_Sizeof (MPI-4.1 19.1.9), modules mpi and mpi_f08: the size in bytes of one element of the
 * argument, which the assumed-rank descriptor carries (mpif.h has no way to declare it). */
BATON_F_EXPORT void baton_f_sizeof(CFI_cdesc_t *x, int *size, int *ierror) {
  *size = (int)x->elem_len;
  if (ierror) *ierror = MPI_SUCCESS;
}
