#!/usr/bin/env python3
"""Generates Baton's C binding from the API description (tools/api/mpi_api.txt).

  gen_api.py header [--check]      rewrite (or compare) the prototypes in include/mpi.h, mpix.h
  gen_api.py bindings OUTDIR       write OUTDIR/abi/api_impl.hpp and OUTDIR/abi/api_<group>.cpp
  gen_api.py json                  the parsed description as JSON (for other generators)
  gen_api.py functions [--all]     the C functions the library defines (--all: every one declared)

Python 3 standard library only. tools/api/README.md describes the description's format.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DESCRIPTION = os.path.join(HERE, 'mpi_api.txt')
UNIMPLEMENTED = os.path.join(HERE, 'unimplemented.txt')

INTENTS = ('in', 'out', 'inout')
KINDS = ('choice', 'count', 'disp', 'bytes', 'rank', 'root', 'tag', 'bool', 'status', 'statuses', 'string',
         'strings', 'handle', 'handles', 'array', 'callback', 'ptr', 'large', 'null', 'async')
# Large-count kinds: the C type of the int form -> the type of the _c form.
LARGE_TYPES = {'count': ('int', 'MPI_Count'), 'disp': ('int', 'MPI_Aint'), 'bytes': ('MPI_Aint', 'MPI_Count')}
CHECKS = ('init', 'comm', 'type', 'group', 'win', 'info', 'op', 'request', 'session', 'queue', 'message', 'file',
          'errhandler', 'count', 'rank', 'root', 'tag', 'buffer', 'null')
HANDLE_TYPES = {'MPI_Comm': 'comm', 'MPI_Datatype': 'type', 'MPI_Group': 'group', 'MPI_Win': 'win', 'MPI_File': 'file',
                'MPI_Session': 'session', 'MPI_Message': 'message', 'MPI_Op': 'op', 'MPI_Info': 'info',
                'MPI_Errhandler': 'errhandler', 'MPI_Request': 'request', 'MPI_Queue': 'queue'}
# Handles whose object has an error handler that an argument error of the call goes to.
ERROR_TARGETS = ('MPI_Comm', 'MPI_Win', 'MPI_Session')


class ApiError(Exception):
    pass


class Param:
    def __init__(self, decl, words, where):
        self.decl = decl  # the C declaration, e.g. "const int sendcounts[]"
        self.varargs = decl == '...'
        if self.varargs:
            self.name, self.ctype = '...', '...'
        else:
            m = re.search(r'\(\*(\w+)\)', decl)
            if m:
                self.name = m.group(1)
                self.ctype = decl.replace('(*%s)' % self.name, '(*)')
            else:
                m = re.match(r'^(.*?)(\w+)((?:\[\w*\])*)$', decl)
                if not m:
                    raise ApiError('%s: cannot read parameter "%s"' % (where, decl))
                self.name = m.group(2)
                self.ctype = (m.group(1) + m.group(3)).strip()
        self.words = list(words)
        self.intent = None
        self.kinds = []
        self.opts = {}
        for w in words:
            if w in INTENTS:
                self.intent = w
            elif '=' in w:
                k, v = w.split('=', 1)
                if k not in ('len', 'count', 'type'):
                    raise ApiError('%s: parameter %s: unknown option %s' % (where, self.name, k))
                self.opts[k] = v
            elif w in KINDS:
                self.kinds.append(w)
            else:
                raise ApiError('%s: parameter %s: unknown word "%s"' % (where, self.name, w))
        self.pointer = '*' in self.ctype or '[' in self.ctype
        self.const = self.ctype.startswith('const ')
        if self.intent is None:
            if self.pointer and not self.const and not self.is_callback() and not self.varargs:
                raise ApiError('%s: pointer parameter %s needs an intent (in, out or inout)' % (where, self.name))
            self.intent = 'in'
        self.base = re.sub(r'\bconst\b|\*|\[\w*\]', '', self.ctype).strip()
        if not self.pointer and self.base in HANDLE_TYPES and 'handle' not in self.kinds:
            self.kinds.append('handle')

    def is_callback(self):
        return 'callback' in self.kinds or '(*)' in self.ctype

    def has(self, kind):
        return kind in self.kinds

    def large_decl(self):
        """The declaration in the _c form."""
        if self.has('callback') and self.has('large'):
            return re.sub(r'\b(%s)\b' % re.escape(self.base), self.base + '_c', self.decl, count=1)
        for k, (small, big) in LARGE_TYPES.items():
            if self.has(k):
                if self.base != small:
                    raise ApiError('parameter %s: kind %s needs type %s, not %s' % (self.name, k, small, self.base))
                return re.sub(r'\b%s\b' % small, big, self.decl, count=1)
        return self.decl

    def to_json(self):
        return {'name': self.name, 'decl': self.decl, 'ctype': self.ctype, 'base': self.base, 'intent': self.intent,
                'kinds': self.kinds, 'options': self.opts, 'handle': HANDLE_TYPES.get(self.base)}


class Function:
    def __init__(self, ret, name, params, attrs, group, where):
        self.ret, self.name, self.params, self.group = ret, name, params, group
        self.large = False
        self.large_of = None
        self.deprecated = None
        self.c_only = False
        self.selfcheck = False
        self.shared = False
        self.checks = []
        self.twin = None  # the derived _c Function (large)
        self.derived = False
        for a in attrs:
            if a == 'large':
                self.large = True
            elif a == 'large=shared':
                self.large = self.shared = True
            elif a.startswith('large_of='):
                self.large_of = a.split('=', 1)[1]
            elif a.startswith('deprecated='):
                self.deprecated = a.split('=', 1)[1]
            elif a == 'c_only':
                self.c_only = True
            elif a == 'selfcheck':
                self.selfcheck = True
            elif a.startswith('checks='):
                self.checks = [c for c in a.split('=', 1)[1].split(',') if c]
                for c in self.checks:
                    if c not in CHECKS:
                        raise ApiError('%s: unknown check "%s"' % (where, c))
            else:
                raise ApiError('%s: unknown attribute "%s"' % (where, a))

    def proto(self):
        return ', '.join(p.decl for p in self.params) or 'void'

    def make_twin(self):
        t = Function(self.ret, self.name + '_c', [], [], self.group, self.name)
        t.params = []
        for p in self.params:
            t.params.append(Param(p.large_decl(), p.words, self.name + '_c'))
        if all(a.decl == b.decl for a, b in zip(self.params, t.params)):
            raise ApiError('%s: "large" but no parameter has a large-count kind' % self.name)
        t.deprecated, t.c_only, t.selfcheck, t.checks = self.deprecated, self.c_only, self.selfcheck, self.checks
        t.shared, t.derived, t.large_of = self.shared, True, self.name
        if self.shared:
            for a, b in zip(self.params, t.params):
                if a.decl != b.decl and a.pointer:
                    raise ApiError('%s: large=shared needs every large-count parameter by value (%s)' % (self.name, a.name))
        self.twin = t
        return t

    def to_json(self):
        return {'name': self.name, 'return': self.ret, 'group': self.group, 'params': [p.to_json() for p in self.params],
                'large': self.twin.name if self.twin else None, 'large_of': self.large_of,
                'deprecated': self.deprecated, 'c_only': self.c_only, 'checks': self.checks,
                'selfcheck': self.selfcheck, 'shared_implementation': self.shared}


def split_top(s, sep):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '({':
            depth += 1
        elif ch in ')}':
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


LINE = re.compile(r'^(\w[\w ]*?\**)\s*\b(P?MPIX?_\w+)\((.*)\)((?:\s*\|\s*[^|]+)*)\s*$')


def load(path=DESCRIPTION):
    """Returns (groups, functions): groups = [(id, title, [Function])], functions = {name: Function}
    with every C function, the derived _c twins included."""
    groups, functions = [], {}
    cur = None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            where = '%s:%d' % (os.path.relpath(path, ROOT), no)
            line = line.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            if line.startswith('== '):
                gid, _, title = line[3:].partition('|')
                cur = (gid.strip(), title.strip(), [])
                groups.append(cur)
                continue
            m = LINE.match(line)
            if not m or cur is None:
                raise ApiError('%s: not a function entry (or no group yet): %s' % (where, line[:80]))
            ret, name, plist, attrs = m.group(1).strip(), m.group(2), m.group(3), m.group(4)
            params = []
            for p in split_top(plist, ','):
                if p == 'void':
                    continue
                words = []
                mm = re.match(r'^(.*?)\s*\{([^}]*)\}$', p)
                if mm:
                    p, words = mm.group(1).strip(), mm.group(2).split()
                params.append(Param(p, words, '%s %s' % (where, name)))
            fn = Function(ret, name, params, [a.strip() for a in attrs.split('|') if a.strip()], cur[0], where)
            for x in [fn] + ([fn.make_twin()] if fn.large else []):
                if x.name in functions:
                    raise ApiError('%s: %s described twice' % (where, x.name))
                functions[x.name] = x
                cur[2].append(x)
    for fn in functions.values():
        if fn.large_of and not fn.derived and fn.large_of not in functions:
            raise ApiError('%s: large_of names unknown %s' % (fn.name, fn.large_of))
    return groups, functions


def unimplemented():
    names = []
    with open(UNIMPLEMENTED) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                names.append(line)
    return names


# ---------------------------------------------------------------------------------------------
# mpi.h / mpix.h

HEADERS = [os.path.join(ROOT, 'include', 'mpi.h'), os.path.join(ROOT, 'include', 'mpix.h')]
BEGIN = re.compile(r'^/\* @api begin: ([\w ]+?) \(.*\*/$')
END = '/* @api end */'


def header_lines(groups, ids, titles):
    out = []
    for gid in ids:
        g = [x for x in groups if x[0] == gid]
        if not g:
            raise ApiError('header names unknown group %s' % gid)
        gid, title, fns = g[0]
        if titles:
            if out:
                out.append('')
            out.append('/* ---- %s ---- */' % title)
        for fn in fns:
            line = 'BATON_MPI_DECL(%s, %s, (%s));' % (fn.ret, fn.name, fn.proto())
            if fn.deprecated:
                line += ' /* deprecated since %s */' % fn.deprecated
            out.append(line)
    return out


def render_header(path, groups):
    with open(path) as f:
        lines = f.read().split('\n')
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        ids = m.group(1).split()
        while i < len(lines) and lines[i] != END:
            i += 1
        if i == len(lines):
            raise ApiError('%s: "%s" without "%s"' % (path, m.group(0), END))
        out.extend(header_lines(groups, ids, titles=len(ids) > 1))
    return '\n'.join(out)


def cmd_header(check):
    groups, _ = load()
    stale = []
    for path in HEADERS:
        new = render_header(path, groups)
        with open(path) as f:
            old = f.read()
        if new != old:
            stale.append(path)
            if not check:
                with open(path, 'w') as f:
                    f.write(new)
    if check and stale:
        import difflib
        for path in stale:
            with open(path) as f:
                old = f.read().split('\n')
            new = render_header(path, groups).split('\n')
            sys.stdout.writelines(l + '\n' for l in difflib.unified_diff(old, new, path, path + ' (from mpi_api.txt)',
                                                                         lineterm=''))
        print('stale: %s; run python3 tools/api/gen_api.py header' % ', '.join(os.path.relpath(p, ROOT) for p in stale))
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# bindings

def impl_proto(fn):
    if fn.shared:
        base = fn if not fn.derived else None
        if base is None:
            return None  # the int form's declaration covers both
        params = ['const char* fn'] + [p.decl for p in fn.twin.params]
        return '%s %s(%s)' % (fn.ret, fn.name, ', '.join(params))
    return '%s %s(%s)' % (fn.ret, fn.name, fn.proto())


def error_target(fn):
    for p in fn.params:
        if not p.pointer and p.base in ERROR_TARGETS:
            return p.name
    return None


def null_checked(fn):
    """The pointer parameters the generated code refuses when NULL."""
    out = []
    if 'null' not in fn.checks or fn.selfcheck:
        return out
    for p in fn.params:
        if p.varargs or not p.pointer or p.const or '[' in p.ctype or p.intent == 'in' or p.has('null'):
            continue
        if p.base in ('void', 'char', 'MPI_Status') or p.is_callback() or p.ctype.count('*') != 1:
            continue
        out.append(p)
    return out


def binding(fn):
    args = ', '.join(p.name for p in fn.params if not p.varargs)
    body = []
    fname = '"%s"' % fn.name
    target = error_target(fn)
    if fn.ret != 'int' and (fn.checks and not fn.selfcheck):
        raise ApiError('%s returns %s, not an error code: it can have no checks' % (fn.name, fn.ret))
    if 'init' in fn.checks and not fn.selfcheck:
        body.append('  if (core::errc e = abi::check_init(%s); e != core::errc::success) [[unlikely]]' % fname)
        body.append('    return abi::raise(%s, nullptr, e);' % fname)
    for p in null_checked(fn):
        body.append('  if (!%s) [[unlikely]]' % p.name)
        body.append('    return abi::raise_null(%s, %s"%s");' % (fname, (target + ', ') if target else '', p.name))
    if fn.shared:
        call = 'impl::%s(%s%s)' % (fn.large_of if fn.derived else fn.name, fname, (', ' + args) if args else '')
    else:
        call = 'impl::%s(%s)' % (fn.name, args)
    body.append('  return %s;' % call)
    return ['%s P%s(%s) {' % (fn.ret, fn.name, fn.proto())] + body + ['}', 'BATON_ALIAS(%s);' % fn.name]


GEN_NOTE = 'Generated by tools/api/gen_api.py from tools/api/mpi_api.txt: do not edit.'


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, 'w') as f:
        f.write(text)


def cmd_bindings(outdir):
    groups, functions = load()
    missing = set(unimplemented())
    for n in missing:
        if n not in functions:
            raise ApiError('%s lists %s, which mpi_api.txt does not describe' % (UNIMPLEMENTED, n))
    d = os.path.join(outdir, 'abi')
    os.makedirs(d, exist_ok=True)
    hpp = ['// ' + GEN_NOTE,
           '// The hand-written implementations (src/abi/*.cpp) of the MPI functions: each generated PMPI_',
           '// definition runs the checks the description asks for, then calls its implementation here.',
           '// "large=shared" families have one implementation for both forms, with the _c types and',
           '// the calling function\'s name.',
           '#pragma once', '', '#include <mpi.h>', '', 'namespace baton::impl {', '']
    for gid, title, fns in groups:
        decls = [impl_proto(fn) for fn in fns if fn.name not in missing]
        decls = [x for x in decls if x]
        if decls:
            hpp.append('// %s' % title)
            hpp.extend(x + ';' for x in decls)
            hpp.append('')
    hpp.append('}  // namespace baton::impl')
    write_if_changed(os.path.join(d, 'api_impl.hpp'), '\n'.join(hpp) + '\n')
    for gid, title, fns in groups:
        cpp = ['// ' + GEN_NOTE, '// %s: the PMPI_ entry points and their MPI_ weak aliases.' % title,
               '// (mpi.h\'s by-value queue overloads would make decltype(PMPI_...) ambiguous in BATON_ALIAS.)',
               '#define BATON_NO_QUEUE_BY_VALUE', '#include "abi/abi.hpp"', '', 'using namespace baton;', '',
               'extern "C" {', '']
        for fn in fns:
            if fn.name in missing:
                continue
            cpp.extend(binding(fn))
            cpp.append('')
        cpp.append('}  // extern "C"')
        write_if_changed(os.path.join(d, 'api_%s.cpp' % gid), '\n'.join(cpp) + '\n')
    return 0


def main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        print(__doc__)
        return 0 if argv else 2
    try:
        if argv[0] == 'header':
            return cmd_header('--check' in argv[1:])
        if argv[0] == 'bindings' and len(argv) == 2:
            return cmd_bindings(argv[1])
        if argv[0] == 'json':
            groups, functions = load()
            json.dump({'groups': [{'id': g, 'title': t, 'functions': [f.name for f in fs]} for g, t, fs in groups],
                       'functions': [f.to_json() for g in groups for f in g[2]],
                       'unimplemented': unimplemented()}, sys.stdout, indent=1)
            print()
            return 0
        if argv[0] == 'functions':
            groups, functions = load()
            missing = set() if '--all' in argv[1:] else set(unimplemented())
            for g in groups:
                for f in g[2]:
                    if f.name not in missing:
                        print(f.name)
            return 0
        if argv[0] == 'groups':
            groups, _ = load()
            print(';'.join(g[0] for g in groups))
            return 0
    except ApiError as e:
        print('gen_api.py: %s' % e, file=sys.stderr)
        return 1
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
