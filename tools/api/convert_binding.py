#!/usr/bin/env python3
"""Converts binding files written in the old style into implementations the generated code calls.

  convert_binding.py [--dry-run] [--api DIR] src/abi/abi_file.cpp ...

(--api DIR: the mpi_api.txt and unimplemented.txt to read and update, instead of tools/api's;
--keep-checks: leave the entries' attributes alone, for a file converted again after a merge whose
functions already have their entries as they should be.)

Old style (before tools/api): each MPI function defined as `int PMPI_Name(...) {...}` inside
`extern "C" { ... }  // extern "C"`, followed by `BATON_ALIAS(MPI_Name);`. After conversion:

  - `extern "C" {` / `}  // extern "C"` become `namespace baton::impl {` / `}  // namespace baton::impl`;
  - each definition `<ret> PMPI_Name(` becomes `<ret> MPI_Name(` (baton::impl::MPI_Name, the
    implementation that the generated PMPI_Name calls); in macros `P##Name(` becomes `Name(` and
    `PMPI_##X` becomes `MPI_##X`;
  - `BATON_ALIAS(...)` lines are deleted (the generated code defines the aliases);
  - the converted functions leave tools/api/unimplemented.txt, and their entries in
    tools/api/mpi_api.txt get the `selfcheck` attribute (the implementation checks its arguments
    itself, so the generated code adds only the NULL-pointer checks).

Calls to PMPI_ functions inside the bodies are left alone: they go through the generated entry
points as before. Lookup inside `namespace baton::impl` finds the same names as at global scope
(nothing else is declared directly in namespace baton). Python 3 standard library only.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_api  # noqa: E402

OPEN = 'extern "C" {'
CLOSE = re.compile(r'^}\s*//\s*extern "C"\s*$')
DEF = re.compile(r'^(\s*)((?:const\s+)?[A-Za-z_][\w:]*(?:\s*\*)?\s+\**)P(MPIX?_\w+)\s*\(')
MACRO_DEF = re.compile(r'\bP##(\w+(?:##\w+)*)\s*\(')
MACRO_PMPI = re.compile(r'\bPMPI(X?)_##')
ALIAS = re.compile(r'^\s*BATON_ALIAS\((MPIX?_\w+|MPIX?_##[\w#]+|\w+)\);\s*(\\)?\s*$')


def is_def(line):
    m = DEF.match(line)
    return m if m and m.group(2).split()[0] not in ('return', 'else', 'case') else None


MACRO = re.compile(r'^\s*#\s*define\s+(\w+)\(([^)]*)\)')


def convert(text, path):
    """Returns the converted text and the names the file's BATON_ALIAS lines export."""
    out, aliases, opened, closed = [], [], 0, 0
    macro, params, in_macro = None, [], False
    for line in text.split('\n'):
        m = MACRO.match(line)
        if m:
            macro, params = m.group(1), [p.strip() for p in m.group(2).split(',')]
        elif not in_macro:
            macro, params = None, []
        in_macro = line.rstrip().endswith('\\') and (macro is not None)
        if line.strip() == OPEN:
            out.append('namespace baton::impl {')
            opened += 1
            continue
        if CLOSE.match(line):
            out.append('}  // namespace baton::impl')
            closed += 1
            continue
        m = ALIAS.match(line)
        if m:
            aliases.append((m.group(1), macro, params))
            if not m.group(2) and out and out[-1].rstrip().endswith('\\'):
                out[-1] = out[-1].rstrip()[:-1].rstrip()  # the macro now ends on the line before
            continue
        m = is_def(line)
        if m:
            line = '%s%s%s(' % (m.group(1), m.group(2), m.group(3)) + line[m.end():]
        line = MACRO_DEF.sub(lambda mm: mm.group(1) + '(', line)
        line = MACRO_PMPI.sub(lambda mm: 'MPI%s_##' % mm.group(1), line)
        out.append(line)
    if opened != closed:
        raise SystemExit('%s: %d `extern "C" {` but %d `}  // extern "C"`: convert by hand' % (path, opened, closed))
    if any(is_def(l) for l in out):
        raise SystemExit('%s: a PMPI_ definition was left' % path)
    return '\n'.join(out), expand(aliases, text, path)


def expand(aliases, text, path):
    """The function names of the BATON_ALIAS lines; one inside a macro stands for every use of
    the macro, with the macro's parameters replaced by that use's arguments."""
    names = []
    for expr, macro, params in aliases:
        if macro is None:
            names.append(expr)
            continue
        uses = re.findall(r'^\s*%s\((.*)\)\s*;?\s*$' % re.escape(macro), text, re.M)
        if not uses:
            raise SystemExit('%s: BATON_ALIAS(%s) in macro %s, which is never used' % (path, expr, macro))
        for use in uses:
            args = gen_api.split_top(use, ',')
            parts = []
            for tok in expr.split('##'):
                tok = tok.strip()
                parts.append(args[params.index(tok)] if tok in params else tok)
            names.append(''.join(parts))
    return names


def update_description(names, mark=True):
    path = gen_api.DESCRIPTION
    with open(path) as f:
        lines = f.read().split('\n')
    want = set(names)
    for i, line in enumerate(lines if mark else []):
        m = gen_api.LINE.match(line)
        if m and (m.group(2) in want or m.group(2) + '_c' in want) and 'selfcheck' not in \
                [a.strip() for a in m.group(4).split('|')]:
            lines[i] = line + ' | selfcheck'
    with open(path, 'w') as f:
        f.write('\n'.join(lines))
    path = gen_api.UNIMPLEMENTED
    with open(path) as f:
        lines = f.read().split('\n')
    with open(path, 'w') as f:
        f.write('\n'.join(l for l in lines if l.split('#', 1)[0].strip() not in want))


def main(argv):
    dry = '--dry-run' in argv
    keep = '--keep-checks' in argv
    argv = [a for a in argv if a not in ('--dry-run', '--keep-checks')]
    if len(argv) >= 2 and argv[0] == '--api':
        gen_api.DESCRIPTION = os.path.join(argv[1], 'mpi_api.txt')
        gen_api.UNIMPLEMENTED = os.path.join(argv[1], 'unimplemented.txt')
        argv = argv[2:]
    files = argv
    if not files:
        print(__doc__)
        return 2
    _, functions = gen_api.load(gen_api.DESCRIPTION)
    all_names = []
    for path in files:
        with open(path) as f:
            text = f.read()
        new, names = convert(text, path)
        unknown = [n for n in names if n not in functions]
        if unknown:
            raise SystemExit('%s: not in tools/api/mpi_api.txt: %s (add their entries first)' % (path, ' '.join(unknown)))
        print('%s: %d functions' % (path, len(names)))
        all_names.extend(names)
        if not dry:
            with open(path, 'w') as f:
                f.write(new)
    if not dry:
        update_description(all_names, mark=not keep)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
