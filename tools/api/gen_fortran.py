#!/usr/bin/env python3
"""Generates Baton's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) from the API description.

  gen_fortran.py OUTDIR      writes into OUTDIR:
      mpif.h                  the include file (fixed and free source form)
      mpif_constants.inc      the constants of mpif.h, also included by module mpi
      mpi_interfaces.inc      the explicit interfaces of module mpi
      mpif_sentinels.inc      the sentinels of mpif.h (common blocks), also included by module mpi
      mpi_f08_types.inc       the handle types of module mpi_f08 and TYPE(MPI_Status)
      mpi_f08_operators.inc   the == and /= of the handle types (module procedures)
      mpi_f08_constants.inc   the constants of module mpi_f08 (typed handles)
      mpi_f08_interfaces.inc  the generic interfaces of module mpi_f08
      mpif_glue.c             the C functions behind mpif.h and module mpi (mpi_send_, ...)
      f08_glue.c              the C functions behind module mpi_f08 (MPI_Send_f08ts, ...)
  gen_fortran.py list        the Fortran procedures, one per line (binding, name, symbol)

The functions come from tools/api/mpi_api.txt (gen_api.load: every function that is not c_only);
the constants from include/mpi.h and include/mpix.h. Python 3 standard library only.
docs/fortran.md describes the bindings and what the generated code does with each kind of
parameter.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_api  # noqa: E402

ROOT = gen_api.ROOT

# C handle type -> (conversion suffix of baton_f2c_/baton_c2f_, null handle, Fortran 2008 type)
HANDLES = {
    'MPI_Comm': ('Comm', 'MPI_COMM_NULL'), 'MPI_Datatype': ('Type', 'MPI_DATATYPE_NULL'),
    'MPI_Group': ('Group', 'MPI_GROUP_NULL'), 'MPI_Request': ('Request', 'MPI_REQUEST_NULL'),
    'MPI_Op': ('Op', 'MPI_OP_NULL'), 'MPI_Info': ('Info', 'MPI_INFO_NULL'),
    'MPI_Errhandler': ('Errhandler', 'MPI_ERRHANDLER_NULL'), 'MPI_Message': ('Message', 'MPI_MESSAGE_NULL'),
    'MPI_Win': ('Win', 'MPI_WIN_NULL'), 'MPI_File': ('File', 'MPI_FILE_NULL'),
    'MPI_Session': ('Session', 'MPI_SESSION_NULL'), 'MPI_Queue': ('Queue', 'MPI_QUEUE_NULL'),
}
NUMERIC = {'int': ('int', 'INTEGER'), 'MPI_Aint': ('MPI_Aint', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
           'MPI_Offset': ('MPI_Offset', 'INTEGER(KIND=MPI_OFFSET_KIND)'),
           'MPI_Count': ('MPI_Count', 'INTEGER(KIND=MPI_COUNT_KIND)')}
# Integer arrays that may be a sentinel (MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY).
SENTINEL_ARRAYS = ('array_of_errcodes', 'weights', 'sourceweights', 'destweights')

# Functions whose Fortran form differs from the C one beyond the parameter kinds: the C
# parameters the Fortran binding leaves out, and the call the glue makes instead (a format string
# over the C argument expressions of the other parameters).
SPECIAL = {
    'MPI_Init': ((), 'MPI_Init(NULL, NULL)'),
    'MPI_Init_thread': ((), 'MPI_Init_thread(NULL, NULL, {required}, {provided})'),
    'MPI_Info_create_env': (('argc', 'argv'), 'MPI_Info_create_env(0, NULL, {info})'),
    'MPI_Pcontrol': ((), 'MPI_Pcontrol({level})'),
    'MPI_Op_create': ((), 'baton_f_op_create({user_fn}, {commute}, {op}, 0)'),
    'MPI_Op_create_c': ((), 'baton_f_op_create({user_fn}, {commute}, {op}, 1)'),
    'MPI_Comm_create_errhandler': ((), 'baton_f_errhandler_create(BATON_F_EH_COMM, {comm_errhandler_fn}, {errhandler})'),
    'MPI_Win_create_errhandler': ((), 'baton_f_errhandler_create(BATON_F_EH_WIN, {win_errhandler_fn}, {errhandler})'),
    'MPI_File_create_errhandler': ((), 'baton_f_errhandler_create(BATON_F_EH_FILE, {file_errhandler_fn}, {errhandler})'),
    'MPI_Session_create_errhandler': ((), 'baton_f_errhandler_create(BATON_F_EH_SESSION, {session_errhandler_fn}, {errhandler})'),
    'MPI_Comm_create_keyval': ((), 'baton_f_keyval_create(BATON_F_ATTR_COMM, {comm_copy_attr_fn}, {comm_delete_attr_fn}, {comm_keyval}, {extra_state}, 0)'),
    'MPI_Type_create_keyval': ((), 'baton_f_keyval_create(BATON_F_ATTR_TYPE, {type_copy_attr_fn}, {type_delete_attr_fn}, {type_keyval}, {extra_state}, 0)'),
    'MPI_Win_create_keyval': ((), 'baton_f_keyval_create(BATON_F_ATTR_WIN, {win_copy_attr_fn}, {win_delete_attr_fn}, {win_keyval}, {extra_state}, 0)'),
    'MPI_Keyval_create': ((), 'baton_f_keyval_create(BATON_F_ATTR_COMM, {copy_fn}, {delete_fn}, {keyval}, {extra_state}, 1)'),
    'MPI_Grequest_start': ((), 'baton_f_grequest_start({query_fn}, {free_fn}, {cancel_fn}, extra_state, {request})'),
    'MPI_Register_datarep': ((), 'baton_f_register_datarep({datarep}, {read_conversion_fn}, {write_conversion_fn}, {dtype_file_extent_fn}, {extra_state}, 0)'),
    'MPI_Register_datarep_c': ((), 'baton_f_register_datarep({datarep}, {read_conversion_fn}, {write_conversion_fn}, {dtype_file_extent_fn}, {extra_state}, 1)'),
}
# Code run before / after the call of a function (the glue's own bookkeeping).
HOOKS = {
    'MPI_Op_free': ('MPI_Op op_before = op_c;', 'if (rc == MPI_SUCCESS) baton_f_op_forget(op_before);'),
}
# Which attribute table an attribute_val belongs to (baton_f_attr_value).
ATTR_KIND = {'MPI_Comm_get_attr': 'BATON_F_ATTR_COMM', 'MPI_Attr_get': 'BATON_F_ATTR_COMM',
             'MPI_Type_get_attr': 'BATON_F_ATTR_TYPE', 'MPI_Win_get_attr': 'BATON_F_ATTR_WIN'}
# The outputs that are array positions: (index, None) or (array of indices, how many).
INDICES = {'MPI_Waitany': ('indx', None), 'MPI_Testany': ('indx', None),
           'MPI_Waitsome': ('array_of_indices', 'outcount'), 'MPI_Testsome': ('array_of_indices', 'outcount')}
# Procedures without an error argument in Fortran.
NO_IERROR = ('MPI_Pcontrol',)


class FortranError(Exception):
    pass


def fortran_functions(functions):
    """The functions with Fortran bindings, in description order; MPI_IMatch / MPI_IMatchall are
    the same Fortran names as MPI_Imatch / MPI_Imatchall (Fortran ignores case) and are left out."""
    seen, out = set(), []
    for f in functions.values():
        if f.c_only or f.name.startswith('MPIX_'):
            continue
        if f.name.lower() in seen:
            continue
        seen.add(f.name.lower())
        out.append(f)
    return out


def is_large(f):
    return f.derived or f.large_of is not None


def classic_functions(functions):
    return [f for f in fortran_functions(functions) if not is_large(f)]


def f08_functions(functions):
    # The MPI-1 attribute functions deprecated since MPI-2.0 have no mpi_f08 binding.
    return [f for f in fortran_functions(functions) if f.deprecated != 'MPI-2.0']


# ---------------------------------------------------------------------------------------------
# Parameters: what each becomes in Fortran and in the C glue

class P:
    """One parameter of a Fortran procedure: its role decides the Fortran declaration and the C
    glue's declaration, argument expression and the code around the call."""

    def __init__(self, p, f):
        self.p, self.f, self.name = p, f, p.name
        self.role = self.find_role()

    def find_role(self):
        p = self.p
        if p.is_callback():
            return 'callback'
        if p.has('choice'):
            return 'choice'
        if p.has('ptr'):
            if p.name == 'attribute_val':
                return 'attr_in' if p.intent == 'in' else 'attr_out'
            if p.name == 'extra_state':
                return 'extra'
            if p.intent == 'out' and p.name in ('baseptr', 'buffer_addr'):
                return 'cptr_out'
            return 'addr'
        if p.has('statuses'):
            return 'statuses'
        if p.has('status'):
            return 'status'
        if p.has('strings'):
            return 'strings'
        if p.has('string'):
            return 'str_out' if p.intent == 'out' else 'str_in'
        if p.base in HANDLES:
            if not p.pointer:
                return 'handle_in'
            return 'handles' if (p.has('handles') or '[' in p.ctype) else 'handle_ptr'
        if p.has('bool'):
            if p.pointer:
                return 'bool_array' if p.has('array') else 'bool_out'
            return 'bool_in'
        if p.base in NUMERIC:
            return 'num_ptr' if p.pointer else 'num_in'
        raise FortranError('%s: parameter %s (%s): no Fortran form' % (self.f.name, p.name, p.decl))

    # ---- Fortran ----

    def ftype(self, f08):
        p, r = self.p, self.role
        if r in ('num_in', 'num_ptr'):
            return NUMERIC[p.base][1]
        if r in ('handle_in', 'handle_ptr', 'handles'):
            return 'TYPE(%s)' % p.base if f08 else 'INTEGER'
        if r.startswith('bool'):
            return 'LOGICAL'
        if r in ('status', 'statuses'):
            return 'TYPE(MPI_Status)' if f08 else 'INTEGER'
        if r in ('str_in', 'str_out', 'strings'):
            return 'CHARACTER(LEN=*)'
        if r in ('choice', 'addr'):
            return 'TYPE(*)'
        if r == 'cptr_out':
            return 'TYPE(C_PTR)' if f08 else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        if r in ('attr_in', 'attr_out', 'extra'):
            return 'INTEGER' if self.f.name in ('MPI_Attr_put', 'MPI_Attr_get', 'MPI_Keyval_create') \
                else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        if r == 'callback':
            return 'PROCEDURE(%s)' % p.base if f08 else 'EXTERNAL'
        raise FortranError(r)

    def fdecl(self, f08):
        """The declaration lines of the dummy argument in an interface body."""
        p, r = self.p, self.role
        t = self.ftype(f08)
        if r == 'callback':
            return ['%s :: %s' % (t, p.name)]
        attrs = []
        dims = ''
        if r in ('choice', 'addr'):
            attrs.append('DIMENSION(..)' if f08 else 'DIMENSION(*)')
            if p.const or r == 'addr' and p.intent == 'in':
                attrs.append('INTENT(IN)')
            if p.has('async') or self.f.name in ('MPI_Free_mem',):
                attrs.append('ASYNCHRONOUS')
        elif r in ('status',):
            if not f08:
                dims = '(MPI_STATUS_SIZE)'
            if p.intent != 'out':
                attrs.append('INTENT(%s)' % p.intent.upper())
        elif r == 'statuses':
            dims = '(*)' if f08 else '(MPI_STATUS_SIZE,*)'
        elif r == 'strings':
            attrs.append('INTENT(IN)')
            dims = '(count,*)' if p.name == 'array_of_argv' else '(*)'
        else:
            attrs.append('INTENT(%s)' % ('OUT' if r in ('cptr_out', 'attr_out', 'str_out') else p.intent.upper()))
            if r in ('handles', 'bool_array') or (r == 'num_ptr' and '[' in p.ctype):
                dims = '(3,*)' if '[3]' in p.ctype else '(*)'
        lines = []
        if r in ('choice', 'addr') and not f08:
            lines.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
        lines.append('%s%s :: %s%s' % (t, ''.join(', ' + a for a in attrs), p.name, dims))
        return lines

    # ---- C glue ----

    def cdecl(self, v):
        """The C declaration of the glue's parameter (v: 'f' classic, 'g' mpi_f08 BIND(C),
        'gx' mpi_f08 without BIND(C): strings with hidden lengths)."""
        p, r, n = self.p, self.role, self.name
        if r in ('num_in', 'num_ptr'):
            return '%s *%s' % (NUMERIC[p.base][0], n)
        if r in ('handle_in', 'handle_ptr', 'handles', 'bool_in', 'bool_out', 'bool_array'):
            return 'int *%s' % n
        if r in ('status', 'statuses'):
            return ('int *%s' if v == 'f' else 'MPI_Status *%s') % n
        if r in ('str_in', 'str_out'):
            return ('CFI_cdesc_t *%s' if v == 'g' else 'char *%s') % n
        if r == 'strings':
            return 'char *%s' % n
        if r == 'choice':
            return ('CFI_cdesc_t *%s' if v != 'f' else 'void *%s') % n
        if r == 'addr':
            return ('CFI_cdesc_t *%s' if v != 'f' else 'void *%s') % n
        if r == 'cptr_out':
            return 'void *%s' % n
        if r in ('attr_in', 'attr_out', 'extra'):
            return ('int *%s' if self.ftype(False) == 'INTEGER' else 'MPI_Aint *%s') % n
        if r == 'callback':
            return 'baton_f_fn *%s' % n
        raise FortranError(r)

    def hidden(self, v):
        """Hidden CHARACTER length arguments (gfortran: size_t, after every other argument)."""
        if self.role in ('str_in', 'str_out', 'strings') and v != 'g':
            return ['size_t %s_len' % self.name]
        return []


def conv(base):
    return HANDLES[base][0]


def str_ptr(x, v):
    return ('(char *)%s->base_addr' % x, '%s->elem_len' % x) if v == 'g' else (x, '%s_len' % x)


class Glue:
    """The C body of one Fortran procedure of one binding."""

    def __init__(self, f, v, symbol, params):
        self.f, self.v, self.symbol, self.params = f, v, symbol, params
        self.decls, self.pre, self.post, self.cleanup = [], [], [], []
        # mpi_f08 choice buffers: the fast path (every buffer contiguous) calls with fast_args;
        # the other path declares, prepares and releases the sections (s*)
        self.sections, self.fast_args = [], None
        self.sdecls, self.spre, self.scleanup = [], [], []
        self.args = {}
        self.byname = {x.name: x for x in params}

    def lenexpr(self, x):
        """C expression for the length of array parameter x (the description's len=)."""
        e = x.p.opts.get('len')
        if e is None:
            raise FortranError('%s: %s needs len=' % (self.f.name, x.name))
        m = re.match(r'^(size|degree|ndims)\((\w+)\)$', e)
        if m:
            c = 'baton_f2c_Comm(*%s)' % m.group(2)
            if m.group(1) == 'size':
                return 'baton_f_comm_size(%s)' % c
            if m.group(1) == 'ndims':
                return 'baton_f_ndims(%s)' % c
            return 'baton_f_degree(%s, %d)' % (c, 1 if x.name.startswith('s') else 0)
        if e in self.byname:
            return '(int)*%s' % e
        raise FortranError('%s: %s: cannot evaluate len=%s' % (self.f.name, x.name, e))

    def error_comm(self):
        for x in self.params:
            if x.role == 'handle_in' and x.p.base == 'MPI_Comm':
                return 'baton_f2c_Comm(*%s)' % x.name
        return 'MPI_COMM_WORLD'

    def fail(self, cond, errclass, message):
        self.pre.append('if (rc == MPI_SUCCESS && (%s)) rc = baton_f_raise(%s, %s, "%s: %s");'
                        % (cond, self.error_comm(), errclass, self.f.name, message))

    def build(self):
        v = self.v
        for x in self.params:
            getattr(self, 'p_' + x.role)(x)
        # choice buffers of mpi_f08: a datatype over a non-contiguous section replaces the call's
        # (count, datatype) when those describe that buffer alone
        if v != 'f':
            self.f08_choices()
        # Fortran counts array positions from 1 (MPI-4.1 19.1.13): the completion calls' indices.
        index, count = INDICES.get(self.f.name, (None, None))
        if count is None and index:
            self.post.append('if (*%s >= 0) *%s += 1;' % (index, index))
        elif index:
            self.post.append('if (*%s != MPI_UNDEFINED) for (int i = 0; i < *%s; i++) %s[i] += 1;'
                             % (count, count, index))

    # ---- one method per role: fills args[name] and the code around the call ----

    def p_num_in(self, x):
        self.args[x.name] = '*%s' % x.name

    def p_num_ptr(self, x):
        if x.name in SENTINEL_ARRAYS:
            self.args[x.name] = '%s(%s)' % ('baton_f_ints' if self.v == 'f' else 'baton_f08_ints', x.name)
        elif '[3]' in x.p.ctype:
            self.args[x.name] = '(int (*)[3])%s' % x.name
        else:
            self.args[x.name] = x.name

    def p_handle_in(self, x):
        self.args[x.name] = 'baton_f2c_%s(*%s)' % (conv(x.p.base), x.name)

    def p_handle_ptr(self, x):
        c, null = HANDLES[x.p.base]
        init = 'baton_f2c_%s(*%s)' % (c, x.name) if x.p.intent == 'inout' else null
        self.decls.append('%s %s_c = %s;' % (x.p.base, x.name, init))
        self.args[x.name] = '&%s_c' % x.name
        self.post.append('*%s = baton_c2f_%s(%s_c);' % (x.name, c, x.name))

    def p_handles(self, x):
        c = conv(x.p.base)
        n = x.name
        self.decls.append('int %s_n = 0;' % n)
        self.decls.append('%s %s_s[BATON_F_SMALL], *%s_c = NULL;' % (x.p.base, n, n))
        self.pre.append('if (rc == MPI_SUCCESS) {')
        self.pre.append('  %s_n = %s;' % (n, self.lenexpr(x)))
        self.pre.append('  if (%s_n < 0) %s_n = 0;' % (n, n))
        self.pre.append('  %s_c = (%s *)baton_f_alloc((size_t)%s_n * sizeof *%s_c, %s_s, sizeof %s_s);'
                        % (n, x.p.base, n, n, n, n))
        self.pre.append('  if (!%s_c) rc = baton_f_raise(%s, MPI_ERR_NO_MEM, "%s: no memory for %%d handles", %s_n);'
                        % (n, self.error_comm(), self.f.name, n))
        if x.p.intent != 'out':
            self.pre.append('  else for (int i = 0; i < %s_n; i++) %s_c[i] = baton_f2c_%s(%s[i]);' % (n, n, c, n))
        self.pre.append('}')
        self.args[x.name] = '%s_c' % n
        if x.p.intent != 'in':
            self.post.append('if (%s_c) for (int i = 0; i < %s_n; i++) %s[i] = baton_c2f_%s(%s_c[i]);' % (n, n, n, c, n))
        self.cleanup.append('baton_f_release(%s_c, %s_s);' % (n, n))

    def p_bool_in(self, x):
        self.args[x.name] = 'baton_f_l2c(*%s)' % x.name

    def p_bool_out(self, x):
        self.decls.append('int %s_c = 0;' % x.name)
        self.args[x.name] = '&%s_c' % x.name
        self.post.append('*%s = baton_f_c2l(%s_c);' % (x.name, x.name))

    def p_bool_array(self, x):
        n = x.name
        self.decls.append('int %s_n = 0;' % n)
        self.decls.append('int %s_s[BATON_F_SMALL], *%s_c = NULL;' % (n, n))
        self.pre.append('if (rc == MPI_SUCCESS) {')
        self.pre.append('  %s_n = %s;' % (n, self.lenexpr(x)))
        self.pre.append('  if (%s_n < 0) %s_n = 0;' % (n, n))
        self.pre.append('  %s_c = (int *)baton_f_alloc((size_t)%s_n * sizeof(int), %s_s, sizeof %s_s);' % (n, n, n, n))
        self.pre.append('  if (!%s_c) rc = baton_f_raise(%s, MPI_ERR_NO_MEM, "%s: no memory for %%d flags", %s_n);'
                        % (n, self.error_comm(), self.f.name, n))
        if x.p.intent != 'out':
            self.pre.append('  else for (int i = 0; i < %s_n; i++) %s_c[i] = baton_f_l2c(%s[i]);' % (n, n, n))
        self.pre.append('}')
        self.args[n] = '%s_c' % n
        if x.p.intent != 'in':
            self.post.append('if (%s_c) for (int i = 0; i < %s_n; i++) %s[i] = baton_f_c2l(%s_c[i]);' % (n, n, n, n))
        self.cleanup.append('baton_f_release(%s_c, %s_s);' % (n, n))

    def p_status(self, x):
        if x.p.intent == 'out':
            self.args[x.name] = '%s(%s)' % ('baton_f_status' if self.v == 'f' else 'baton_f08_status', x.name)
        else:
            self.args[x.name] = '(MPI_Status *)(void *)%s' % x.name

    def p_statuses(self, x):
        self.args[x.name] = '%s(%s)' % ('baton_f_statuses' if self.v == 'f' else 'baton_f08_statuses', x.name)

    def p_str_in(self, x):
        ptr, ln = str_ptr(x.name, self.v)
        n = x.name
        self.decls.append('char %s_s[256], *%s_c = NULL;' % (n, n))
        conv = 'baton_f_info_str_in' if self.f.name.startswith('MPI_Info_') else 'baton_f_str_in'
        self.pre.append('if (rc == MPI_SUCCESS && !(%s_c = %s(%s, %s, %s_s, sizeof %s_s)))'
                        % (n, conv, ptr, ln, n, n))
        self.pre.append('  rc = baton_f_raise(%s, MPI_ERR_NO_MEM, "%s: no memory for a string");'
                        % (self.error_comm(), self.f.name))
        self.args[n] = '%s_c' % n
        self.cleanup.append('baton_f_release(%s_c, %s_s);' % (n, n))

    def p_str_out(self, x):
        ptr, ln = str_ptr(x.name, self.v)
        n = x.name
        e = x.p.opts.get('len')
        atleast = '0'
        if e in self.byname and self.byname[e].p.intent in ('in', 'inout'):
            atleast = '(long long)*%s' % e
        self.decls.append('char *%s_c = NULL;' % n)
        self.pre.append('if (rc == MPI_SUCCESS && !(%s_c = baton_f_str_buf(%s, %s)))' % (n, ln, atleast))
        self.pre.append('  rc = baton_f_raise(%s, MPI_ERR_NO_MEM, "%s: no memory for a string");'
                        % (self.error_comm(), self.f.name))
        self.args[n] = '%s_c' % n
        # The variable is written only when the call gave a value: not after an error, not when a
        # flag says the key (attribute, name) is not there, not when buflen is 0 on input.
        conds = ['rc == MPI_SUCCESS']
        flag = self.byname.get('flag')
        if flag is not None and flag.role == 'bool_out':
            conds.append('flag_c')
        if e in self.byname and self.byname[e].p.intent == 'inout':
            # Fortran counts characters (MPI-4.1 10.2, MPI_Info_get_string; MPI_Session_get_nth_pset):
            # in, how many to return; out, the length of the value. C counts the NUL too.
            self.decls.append('int %s_in = *%s, %s_c = *%s > 0 ? *%s + 1 : 0;' % (e, e, e, e, e))
            self.args[e] = '&%s_c' % e
            self.post.append('if (rc == MPI_SUCCESS%s) *%s = %s_c > 0 ? %s_c - 1 : 0;'
                             % (' && flag_c' if 'flag_c' in conds else '', e, e, e))
            conds.append('%s_in > 0' % e)
        self.cleanup.append('if (%s_c) {' % n)
        self.cleanup.append('  if (%s) baton_f_str_out(%s, %s, %s_c);' % (' && '.join(conds), ptr, ln, n))
        self.cleanup.append('  else free(%s_c);' % n)
        self.cleanup.append('}')

    def p_strings(self, x):
        n = x.name
        ptr, ln = n, '%s_len' % n
        null = 'mpi_fortran_argv' if self.v == 'f' else 'baton_f08_argv'
        if n == 'array_of_argv':
            self.decls.append('char ***%s_c = NULL;' % n)
            self.pre.append('if (rc == MPI_SUCCESS && %s != %ss_null%s'
                            % (n, null, '_' if self.v == 'f' else ''))
            self.pre.append('    && !(%s_c = baton_f_argvs(%s, %s, *count, *count)))' % (n, ptr, ln))
            self.cleanup.append('if (%s_c) baton_f_argvs_free(%s_c, *count);' % (n, n))
        elif n == 'argv':
            self.decls.append('char **%s_c = NULL;' % n)
            self.pre.append('if (rc == MPI_SUCCESS && %s != %s_null%s && !(%s_c = baton_f_argv(%s, %s)))'
                            % (n, null, '_' if self.v == 'f' else '', n, ptr, ln))
            self.cleanup.append('if (%s_c) baton_f_argv_free(%s_c);' % (n, n))
        else:
            self.decls.append('char **%s_c = NULL;' % n)
            self.pre.append('if (rc == MPI_SUCCESS && !(%s_c = baton_f_strings(%s, %s, %s)))'
                            % (n, ptr, ln, self.lenexpr(x)))
            self.cleanup.append('if (%s_c) baton_f_argv_free(%s_c);' % (n, n))
        self.pre.append('  rc = baton_f_raise(%s, MPI_ERR_NO_MEM, "%s: no memory for the argument strings");'
                        % (self.error_comm(), self.f.name))
        self.args[n] = '%s_c' % n

    def p_choice(self, x):
        if self.v == 'f':
            self.args[x.name] = 'baton_f_buf(%s)' % x.name
        # mpi_f08: f08_choices(), once every parameter has its argument

    def p_addr(self, x):
        if self.v == 'f':
            self.args[x.name] = 'baton_f_buf(%s)' % x.name
        else:
            self.args[x.name] = 'baton_f08_buf(%s->base_addr)' % x.name

    def p_cptr_out(self, x):
        self.args[x.name] = x.name

    def p_attr_in(self, x):
        self.args[x.name] = '(void *)(intptr_t)*%s' % x.name

    def p_attr_out(self, x):
        n = x.name
        self.decls.append('void *%s_c = NULL;' % n)
        self.args[n] = '&%s_c' % n
        keyval = [k for k in self.byname if 'keyval' in k][0]
        cast = '(int)' if x.ftype(False) == 'INTEGER' else ''
        self.post.append('if (rc == MPI_SUCCESS && flag_c) *%s = %sbaton_f_attr_value(%s, *%s, %s_c);'
                         % (n, cast, ATTR_KIND[self.f.name], keyval, n))

    def p_extra(self, x):
        self.args[x.name] = '(MPI_Aint)*%s' % x.name

    def p_callback(self, x):
        self.args[x.name] = x.name

    def f08_choices(self):
        choices = [x for x in self.params if x.role == 'choice']
        if choices:
            self.fast_args = dict(self.args)
        for x in choices:
            p, n = x.p, x.name
            count = p.opts.get('count', 'count' if 'count' in self.byname else None)
            dtype = p.opts.get('type', 'datatype' if 'datatype' in self.byname else None)
            shared = dtype and any(y is not x and y.p.opts.get('type', 'datatype' if 'datatype' in self.byname else None) == dtype
                                   for y in choices)
            typed = (count in self.byname and self.byname[count].role == 'num_in' and dtype in self.byname
                     and self.byname[dtype].role == 'handle_in' and not shared)
            flags = []
            if typed:
                flags.append('BATON_F08_TYPED')
            if not p.has('async'):
                flags.append('BATON_F08_BLOCKING')
            if not p.const:
                flags.append('BATON_F08_WRITES')
            self.sections.append(n)
            self.fast_args[n] = 'baton_f08_buf(%s->base_addr)' % n
            self.sdecls.append('baton_f08_section %s_s = {0};' % n)
            self.sdecls.append('void *%s_a = NULL;' % n)
            cexpr = '(MPI_Count)*%s' % count if typed else '0'
            texpr = 'baton_f2c_Type(*%s)' % dtype if typed else 'MPI_DATATYPE_NULL'
            self.spre.append('if (baton_f08_contiguous(%s)) %s_a = baton_f08_buf(%s->base_addr);' % (n, n, n))
            self.spre.append('else if (rc == MPI_SUCCESS) {')
            self.spre.append('  rc = baton_f08_section_begin(&%s_s, %s, %s, %s, %s, "%s");'
                             % (n, n, cexpr, texpr, ' | '.join(flags) or '0', self.f.name))
            self.spre.append('  %s_a = %s_s.addr;' % (n, n))
            self.spre.append('}')
            self.args[n] = '%s_a' % n
            if typed:
                self.args[count] = '(%s_s.type ? 1 : %s)' % (n, self.args[count])
                self.args[dtype] = '(%s_s.type ? %s_s.type : %s)' % (n, n, self.args[dtype])
            self.scleanup.append('baton_f08_section_end(&%s_s);' % n)


def fparams(f):
    """The parameters of f's Fortran binding (P objects)."""
    drop = SPECIAL.get(f.name, ((), None))[0]
    out = []
    for p in f.params:
        if p.varargs or p.name in drop:
            continue
        if f.name in ('MPI_Init', 'MPI_Init_thread') and p.name in ('argc', 'argv'):
            continue
        out.append(P(p, f))
    return out


def has_ierror(f):
    return f.ret == 'int' and f.name not in NO_IERROR


def uses_bindc(f, params):
    """mpi_f08 procedures are BIND(C) (choice buffers and strings as CFI descriptors) unless they
    take a procedure argument or an array of strings: those use gfortran's own convention (hidden
    string lengths), as mpif.h does."""
    return not any(x.role in ('callback', 'strings') for x in params)


def f08_symbol(f, params, prof=False):
    pre = 'P' if prof else ''
    if not uses_bindc(f, params):
        return (pre + f.name + '_f08').lower() + '_'
    ts = 'ts' if any(x.role in ('choice', 'addr') for x in params) else ''
    return pre + f.name + '_f08' + ts


def glue_function(f, v, unimpl):
    """C source of the glue of f for binding v ('f' classic, 'g' mpi_f08)."""
    params = fparams(f)
    if v == 'g' and not uses_bindc(f, params):
        v = 'gx'
    g = Glue(f, v, None, params)
    g.build()
    ret = f.ret
    if v == 'f':
        sym = f.name.lower() + '_'
        psym = 'p' + sym
    else:
        sym = f08_symbol(f, params)
        psym = f08_symbol(f, params, True)
    cparams = [x.cdecl(v) for x in params]
    if has_ierror(f):
        cparams.append('int *ierror')
    for x in params:
        cparams += x.hidden(v)
    special = SPECIAL.get(f.name, (None, None))[1]

    def call_with(args):
        if special:
            return special.format(**args)
        return '%s(%s)' % (f.name, ', '.join(args[p.name] for p in f.params if not p.varargs))
    call = call_with(g.args)
    ctype = {'int': 'void', 'double': 'double', 'MPI_Aint': 'MPI_Aint'}[ret]
    out = ['BATON_F_EXPORT %s %s(%s)' % (ctype, sym, ', '.join(cparams) or 'void'), '{']
    if ret != 'int':
        out.append('  return %s;' % call)
        out.append('}')
    else:
        out.append('  int rc = MPI_SUCCESS;')
        out += ['  ' + d for d in g.decls]
        hook = HOOKS.get(f.name)
        body = list(g.pre)
        if hook:
            body.append(hook[0])
        if f.name in unimpl:
            body.append('if (rc == MPI_SUCCESS && !&%s)' % f.name)
            body.append('  rc = baton_f_raise(%s, MPI_ERR_UNSUPPORTED_OPERATION, "%s: not in this libmpi_abi (not implemented yet)");'
                        % (g.error_comm(), f.name))
        def run(c, indent):
            out = ['if (rc == MPI_SUCCESS) {', '  rc = %s;' % c] + ['  ' + s for s in g.post]
            if hook:
                out.append('  ' + hook[1])
            return [indent + s for s in out + ['}']]
        if g.sections:
            # the common case, every buffer contiguous, without the sections' bookkeeping
            body.append('if (%s) {' % ' && '.join('baton_f08_contiguous(%s)' % n for n in g.sections))
            body += run(call_with(g.fast_args), '  ')
            body.append('} else {')
            body += ['  ' + s for s in g.sdecls + g.spre]
            body += run(call, '  ')
            body += ['  ' + s for s in g.scleanup]
            body.append('}')
        else:
            body += run(call, '')
        body += g.cleanup
        if has_ierror(f):
            body.append('if (ierror) *ierror = rc;' if v != 'f' else '*ierror = rc;')
        else:
            body.append('(void)rc;')
        out += ['  ' + s for s in body]
        out.append('}')
    out.append('BATON_F_ALIAS(%s, %s)' % (psym, sym))
    return '\n'.join(out) + '\n'


GLUE_HEAD = '''/* Generated by tools/api/gen_fortran.py from tools/api/mpi_api.txt: do not edit. */
#include "baton_fortran.h"
#define BATON_F_ALIAS(other, name) __typeof__(name) other __attribute__((alias(#name), visibility("default")));
'''


def write_glue(path, fns, v, unimpl):
    out = [GLUE_HEAD]
    weak = sorted(set(f.name for f in fns if f.name in unimpl))
    for w in weak:
        out.append('#pragma weak %s' % w)
    out.append('')
    for f in fns:
        out.append(glue_function(f, v, unimpl))
    write(path, '\n'.join(out))


# ---------------------------------------------------------------------------------------------
# Fortran interfaces

def wrap(line, indent):
    """Free-form continuation lines of at most 100 columns."""
    out = []
    cur = indent + line
    while len(cur) > 100:
        cut = cur.rfind(', ', 0, 96)
        if cut <= len(indent) + 10:
            cut = cur.rfind(' ', 0, 96)
        out.append(cur[:cut + 1].rstrip() + ' &')
        cur = indent + '    ' + cur[cut + 1:].lstrip()
    out.append(cur)
    return out


def interface_body(f, f08, name, bindc_name=None, cptr=False):
    """One interface body; cptr: the address outputs are TYPE(C_PTR) (module mpi's overload)."""
    params = fparams(f)
    args = [x.name for x in params] + (['ierror'] if has_ierror(f) else [])
    out = []
    bind = ' BIND(C, NAME="%s")' % bindc_name if bindc_name else ''
    if f.ret == 'int':
        head = 'SUBROUTINE %s(%s)%s' % (name, ', '.join(args), bind)
        end = 'END SUBROUTINE'
    else:
        head = 'FUNCTION %s(%s)%s RESULT(res)' % (name, ', '.join(args), bind)
        end = 'END FUNCTION'
    out += wrap(head, '  ')
    out.append('    IMPORT')
    out.append('    IMPLICIT NONE')
    for x in params:
        for d in x.fdecl(f08):
            if cptr and x.role == 'cptr_out':
                d = d.replace('INTEGER(KIND=MPI_ADDRESS_KIND)', 'TYPE(C_PTR)')
            out += wrap(d, '    ')
    if has_ierror(f):
        out.append('    INTEGER, %sINTENT(OUT) :: ierror' % ('OPTIONAL, ' if f08 else ''))
    if f.ret == 'double':
        out.append('    DOUBLE PRECISION :: res')
    elif f.ret == 'MPI_Aint':
        out.append('    INTEGER(KIND=MPI_ADDRESS_KIND) :: res')
    out.append('  ' + end)
    return out


def classic_interfaces(fns):
    """Module mpi: an explicit interface for every procedure and its PMPI_ twin (MPI-4.1 15.2.5).
    A procedure that returns an address (baseptr of MPI_Alloc_mem, MPI_Win_allocate, ...) is a
    generic that also takes TYPE(C_PTR) there (MPI-4.1 19.1.7): the same glue serves both, the
    C_PTR specific binding to it by name."""
    out = ['! Generated by tools/api/gen_fortran.py from tools/api/mpi_api.txt: do not edit.',
           '! The explicit interfaces of module mpi (the procedures are the C glue of mpif.h).']
    plain, generic = [], []
    for f in fns:
        (generic if any(x.role == 'cptr_out' for x in fparams(f)) else plain).append(f)
    for pre in ('', 'P'):
        out.append('INTERFACE')
        for f in plain:
            out += interface_body(f, False, pre + f.name)
        out.append('END INTERFACE')
        for f in generic:
            out.append('INTERFACE %s%s' % (pre, f.name))
            out += interface_body(f, False, pre + f.name)
            out += interface_body(f, False, pre + f.name + '_cptr', (pre + f.name).lower() + '_', cptr=True)
            out.append('END INTERFACE %s%s' % (pre, f.name))
    return '\n'.join(out) + '\n'


INT8 = ('INTEGER(KIND=MPI_ADDRESS_KIND)', 'INTEGER(KIND=MPI_OFFSET_KIND)', 'INTEGER(KIND=MPI_COUNT_KIND)')


def signature(f):
    """(type, rank) of the non-optional dummies, for telling a generic's specifics apart."""
    sig = []
    for x in fparams(f):
        t = x.ftype(True)
        if x.role == 'callback':
            t = 'PROCEDURE'  # a procedure argument does not tell specifics apart (F2018 15.4.3.4.5)
        if t in INT8:
            t = 'INTEGER8'
        d = x.fdecl(True)[-1]
        rank = 'any' if 'DIMENSION(..)' in d else ('2' if '(count,*)' in d or '(3,*)' in d else
                                                   ('1' if d.endswith('(*)') else '0'))
        sig.append((t, rank))
    return sig


def distinguishable(a, b):
    sa, sb = signature(a), signature(b)
    if len(sa) != len(sb):
        return True
    for (ta, ra), (tb, rb) in zip(sa, sb):
        if ta == 'TYPE(*)' or tb == 'TYPE(*)':
            continue
        if ta != tb or ra != rb:
            return True
    return False


def f08_specific(f, prof):
    """(Fortran name, BIND(C) name or None) of f's mpi_f08 specific procedure: MPI_Send_f08ts for
    a procedure with choice buffers, MPI_Comm_rank_f08 otherwise (MPI-4.1 19.1.5, Table 19.1);
    PMPI_ for the profiling twin."""
    params = fparams(f)
    if uses_bindc(f, params):
        sym = f08_symbol(f, params, prof)
        return sym, sym
    return ('P' if prof else '') + f.name + '_f08', None


def f08_interfaces(fns, functions):
    out = ['! Generated by tools/api/gen_fortran.py from tools/api/mpi_api.txt: do not edit.',
           '! The generic interfaces of module mpi_f08: one specific per C function; the large-count',
           '! form (_c) joins the generic when its arguments tell it apart, and is also MPI_<name>_c.',
           '! The same again for the PMPI_ names.']
    names = {f.name for f in fns}
    for prof in (False, True):
        pre = 'P' if prof else ''
        for f in fns:
            if is_large(f):
                continue
            twin = f.twin.name if f.twin else None
            if twin is None:
                twin = next((g.name for g in fns if g.large_of == f.name and not g.derived), None)
            specifics = [f]
            if twin and twin in names and distinguishable(f, functions[twin]):
                specifics.append(functions[twin])
            out.append('INTERFACE %s%s' % (pre, f.name))
            for sp in specifics:
                out += interface_body(sp, True, *f08_specific(sp, prof))
            out.append('END INTERFACE %s%s' % (pre, f.name))
            if twin and twin in names:
                t = functions[twin]
                out.append('INTERFACE %s%s' % (pre, t.name))
                if len(specifics) == 2:
                    out.append('  PROCEDURE :: %s' % f08_specific(t, prof)[0])
                else:
                    out += interface_body(t, True, *f08_specific(t, prof))
                out.append('END INTERFACE %s%s' % (pre, t.name))
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------------------------------------
# Constants (from include/mpi.h and include/mpix.h)

SKIP_CONSTANTS = re.compile(r'^(MPI_T_|MPI_F_|MPI_ABI_VERSION$|MPI_ABI_SUBVERSION$|BATON_)')


def header_constants():
    """[(name, kind, value)]: kind is 'int', a handle type, 'offset' or 'alias' (value: a name)."""
    out, seen = [], set()
    for h in ('mpi.h', 'mpix.h'):
        text = open(os.path.join(ROOT, 'include', h)).read()
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        for m in re.finditer(r'^#define\s+(MPIX?_\w+)\s+(.+?)\s*$', text, re.M):
            name, val = m.group(1), m.group(2)
            if name in seen or SKIP_CONSTANTS.match(name) or '(' in name:
                continue
            mm = re.match(r'^\(\((MPI_\w+)\)\s*(0x[0-9a-fA-F]+|-?\d+)\)$', val)
            if mm and mm.group(1) in HANDLES:
                out.append((name, mm.group(1), int(mm.group(2), 0)))
            elif mm and mm.group(1) == 'MPI_Offset':
                out.append((name, 'offset', int(mm.group(2), 0)))
            elif re.match(r'^-?\d+$', val):
                out.append((name, 'int', int(val)))
            elif re.match(r'^MPIX?_\w+$', val) and val in seen:
                out.append((name, 'alias', val))
            else:
                continue
            seen.add(name)
        for body in re.findall(r'\benum\s*(?:\w+\s*)?\{(.*?)\}', text, re.S):
            for m in re.finditer(r'(MPIX?_\w+)\s*=\s*(0x[0-9a-fA-F]+|-?\d+)', body):
                name = m.group(1)
                if name in seen or SKIP_CONSTANTS.match(name):
                    continue
                seen.add(name)
                out.append((name, 'int', int(m.group(2), 0)))
    return out


# Constants only Fortran has (MPI-4.1 19.1, 19.3).
def fortran_only(f08):
    return [
        ('MPI_STATUS_SIZE', 'int', 8), ('MPI_SOURCE', 'int', 1), ('MPI_TAG', 'int', 2), ('MPI_ERROR', 'int', 3),
        ('MPI_ADDRESS_KIND', 'int', 8), ('MPI_OFFSET_KIND', 'int', 8), ('MPI_COUNT_KIND', 'int', 8),
        ('MPI_INTEGER_KIND', 'int', 4),
        ('MPI_SUBARRAYS_SUPPORTED', 'logical', f08),
        # gfortran's ASYNCHRONOUS does not keep the optimizer from moving accesses over a wait:
        # programs call MPI_F_sync_reg (MPI-4.1 19.1.17), in every binding.
        ('MPI_ASYNC_PROTECTS_NONBLOCKING', 'logical', False),
    ]


def fixed_lines(decl, name, value):
    """A declaration and a PARAMETER statement that read the same in fixed and free source form
    (columns 7-72, no continuation)."""
    out = ['      %s %s' % (decl, name), '      PARAMETER (%s=%s)' % (name, value)]
    for line in out:
        if len(line) > 72:
            raise FortranError('constant %s: line too long for fixed form' % name)
    return out


def classic_constants():
    consts = fortran_only(False) + header_constants()
    out = ['! Generated by tools/api/gen_fortran.py from include/mpi.h: do not edit.',
           '! The constants of mpif.h and module mpi (fixed and free source form).']
    # kinds first: declarations below use them
    for name, kind, val in consts:
        if kind in ('int',) or kind in HANDLES:
            out += fixed_lines('INTEGER', name, val)
        elif kind == 'logical':
            out += fixed_lines('LOGICAL', name, '.TRUE.' if val else '.FALSE.')
        elif kind == 'offset':
            out += fixed_lines('INTEGER(KIND=MPI_OFFSET_KIND)', name, '%d_MPI_OFFSET_KIND' % val if val >= 0 else
                               '(%d_MPI_OFFSET_KIND)' % val)
        elif kind == 'alias':
            out += fixed_lines('INTEGER', name, val)
    return '\n'.join(out) + '\n'


def f08_constants():
    consts = fortran_only(True) + header_constants()
    types = {n: k for n, k, v in consts}
    out = ['! Generated by tools/api/gen_fortran.py from include/mpi.h: do not edit.',
           '! The constants of module mpi_f08: handles as their TYPE(MPI_...) values.']
    for name, kind, val in consts:
        if kind == 'int':
            out.append('INTEGER, PARAMETER :: %s = %d' % (name, val))
        elif kind == 'logical':
            out.append('LOGICAL, PARAMETER :: %s = %s' % (name, '.TRUE.' if val else '.FALSE.'))
        elif kind in HANDLES:
            out.append('TYPE(%s), PARAMETER :: %s = %s(%d)' % (kind, name, kind, val))
        elif kind == 'offset':
            out.append('INTEGER(KIND=MPI_OFFSET_KIND), PARAMETER :: %s = %d' % (name, val))
        elif kind == 'alias':
            t = types.get(val)
            decl = 'TYPE(%s)' % t if t in HANDLES else 'INTEGER'
            out.append('%s, PARAMETER :: %s = %s' % (decl, name, val))
    return '\n'.join(out) + '\n'


MPIF_TAIL = '''!
! The sentinels: variables the library recognizes by their address (common blocks shared with
! module mpi; the C glue defines them).
      INTEGER MPI_BOTTOM
      COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM
      INTEGER MPI_IN_PLACE
      COMMON /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE
      INTEGER MPI_BUFFER_AUTOMATIC
      COMMON /MPI_FORTRAN_BUFFER_AUTOMATIC/ MPI_BUFFER_AUTOMATIC
      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
      COMMON /MPI_FORTRAN_STATUS_IGNORE/ MPI_STATUS_IGNORE
      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)
      COMMON /MPI_FORTRAN_STATUSES_IGNORE/ MPI_STATUSES_IGNORE
      INTEGER MPI_ERRCODES_IGNORE(1)
      COMMON /MPI_FORTRAN_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE
      CHARACTER*1 MPI_ARGV_NULL(1)
      COMMON /MPI_FORTRAN_ARGV_NULL/ MPI_ARGV_NULL
      CHARACTER*1 MPI_ARGVS_NULL(1,1)
      COMMON /MPI_FORTRAN_ARGVS_NULL/ MPI_ARGVS_NULL
      INTEGER MPI_UNWEIGHTED(1)
      COMMON /MPI_FORTRAN_UNWEIGHTED/ MPI_UNWEIGHTED
      INTEGER MPI_WEIGHTS_EMPTY(1)
      COMMON /MPI_FORTRAN_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY
      SAVE /MPI_FORTRAN_BOTTOM/, /MPI_FORTRAN_IN_PLACE/
      SAVE /MPI_FORTRAN_BUFFER_AUTOMATIC/
      SAVE /MPI_FORTRAN_STATUS_IGNORE/, /MPI_FORTRAN_STATUSES_IGNORE/
      SAVE /MPI_FORTRAN_ERRCODES_IGNORE/, /MPI_FORTRAN_ARGV_NULL/
      SAVE /MPI_FORTRAN_ARGVS_NULL/, /MPI_FORTRAN_UNWEIGHTED/
      SAVE /MPI_FORTRAN_WEIGHTS_EMPTY/
'''

MPIF_EXTERNALS = '''!
! Functions and predefined callbacks.
      DOUBLE PRECISION MPI_WTIME, MPI_WTICK
      EXTERNAL MPI_WTIME, MPI_WTICK
      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK
      EXTERNAL PMPI_WTIME, PMPI_WTICK
      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF
      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF
      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF
      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF
      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN
      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN
      EXTERNAL MPI_COMM_DUP_FN
      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN
      EXTERNAL MPI_TYPE_DUP_FN
      EXTERNAL MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN
      EXTERNAL MPI_WIN_DUP_FN
      EXTERNAL MPI_CONVERSION_FN_NULL
'''


def mpif_h():
    head = ['! mpif.h -- Baton\'s Fortran include file (MPI-5.0 standard ABI; gfortran).',
            '! Generated by tools/api/gen_fortran.py from include/mpi.h: do not edit.',
            '! Fixed and free source form. New code should use the mpi_f08 module.']
    return '\n'.join(head) + '\n' + classic_constants() + MPIF_TAIL + MPIF_EXTERNALS


def f08_types():
    """The handle types of mpi_f08 (BIND(C) wrappers of one INTEGER, MPI-4.1 19.3.5) and
    TYPE(MPI_Status), laid out as the C MPI_Status of the ABI."""
    out = ['! Generated by tools/api/gen_fortran.py: do not edit.',
           '! The handle types of module mpi_f08 (one INTEGER: the ABI\'s integer form of the handle).']
    for t in sorted(HANDLES):
        out += ['TYPE, BIND(C) :: %s' % t, '  INTEGER :: MPI_VAL', 'END TYPE %s' % t]
    out += ['TYPE, BIND(C) :: MPI_Status', '  INTEGER :: MPI_SOURCE', '  INTEGER :: MPI_TAG',
            '  INTEGER :: MPI_ERROR', '  INTEGER :: MPI_internal(5)', 'END TYPE MPI_Status',
            'INTERFACE OPERATOR(==)']
    out += ['  MODULE PROCEDURE baton_eq_%s' % t[4:].lower() for t in sorted(HANDLES)]
    out += ['END INTERFACE', 'INTERFACE OPERATOR(/=)']
    out += ['  MODULE PROCEDURE baton_ne_%s' % t[4:].lower() for t in sorted(HANDLES)]
    out += ['END INTERFACE']
    out += ['PRIVATE :: baton_eq_%s, baton_ne_%s' % (t[4:].lower(), t[4:].lower()) for t in sorted(HANDLES)]
    return '\n'.join(out) + '\n'


def f08_operators():
    out = ['! Generated by tools/api/gen_fortran.py: do not edit.',
           '! The comparisons of the mpi_f08 handle types (MPI-4.1 19.3.5).']
    for t in sorted(HANDLES):
        n = t[4:].lower()
        for op, rel in (('eq', '=='), ('ne', '/=')):
            out += ['ELEMENTAL LOGICAL FUNCTION baton_%s_%s(a, b)' % (op, n),
                    '  TYPE(%s), INTENT(IN) :: a, b' % t,
                    '  baton_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, n, rel),
                    'END FUNCTION baton_%s_%s' % (op, n)]
    return '\n'.join(out) + '\n'


def write(path, text):
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old != text:
        with open(path, 'w') as f:
            f.write(text)


def main(argv):
    groups, functions = gen_api.load()
    unimpl = set(gen_api.unimplemented())
    classic = classic_functions(functions)
    f08 = f08_functions(functions)
    if argv and argv[0] == 'list':
        for f in classic:
            print('mpif.h/mpi', f.name, f.name.lower() + '_')
        for f in f08:
            print('mpi_f08', f.name, f08_symbol(f, fparams(f)))
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    try:
        write(os.path.join(out, 'mpif.h'), mpif_h())
        write(os.path.join(out, 'mpif_constants.inc'), classic_constants())
        write(os.path.join(out, 'mpif_sentinels.inc'), MPIF_TAIL)
        write(os.path.join(out, 'mpi_f08_types.inc'), f08_types())
        write(os.path.join(out, 'mpi_f08_operators.inc'), f08_operators())
        write(os.path.join(out, 'mpi_f08_constants.inc'), f08_constants())
        write(os.path.join(out, 'mpi_interfaces.inc'), classic_interfaces(classic))
        write(os.path.join(out, 'mpi_f08_interfaces.inc'), f08_interfaces(f08, functions))
        write_glue(os.path.join(out, 'mpif_glue.c'), classic, 'f', unimpl)
        write_glue(os.path.join(out, 'f08_glue.c'), f08, 'g', unimpl)
    except (FortranError, gen_api.ApiError) as e:
        print('gen_fortran.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
