#!/usr/bin/env python3
"""abi_complete.py PREFIX UNIMPLEMENTED_LIST: every function the installed mpi.h declares (run
through the C preprocessor, so whatever macro spells the declarations) is defined by the installed
libmpi_abi.so.1, as MPI_Name and PMPI_Name (weak or not: the dynamic linker binds MPI_Name to the
first library that defines it, so a profiling library loaded first interposes either way);
the only exceptions are the functions listed in UNIMPLEMENTED_LIST (tools/api/unimplemented.txt:
parallel I/O and dynamic processes until they land), and a listed function that is defined is an
error too, so the list only ever shrinks."""
import glob
import os
import re
import subprocess
import sys
import tempfile


def main(prefix, listing):
    inc = os.path.join(prefix, 'include')
    libs = glob.glob(os.path.join(prefix, 'lib*', 'libmpi_abi.so.1'))
    if not libs:
        print('FAIL: no libmpi_abi.so.1 under %s' % prefix)
        return 1
    with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
        f.write('#include <mpi.h>\n')
        src = f.name
    try:
        pre = subprocess.run([os.environ.get('CC', 'cc'), '-E', '-I', inc, src], check=True, capture_output=True,
                             text=True).stdout
    finally:
        os.unlink(src)
    declared = set(re.findall(r'visibility\s*\(\s*"default"\s*\)\s*\)\s*\)\s*[\w\s\*]*?\b(P?MPIX?_\w+)\s*\(', pre))
    if not any(n.startswith('PMPI') for n in declared) or len(declared) < 100:
        print('FAIL: could not read the declarations of %s/mpi.h (found %d)' % (inc, len(declared)))
        return 1
    nm = subprocess.run(['nm', '-D', '--defined-only', libs[0]], check=True, capture_output=True, text=True).stdout
    defined = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3:
            defined[parts[2]] = parts[1]
    allowed = set()
    with open(listing) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                allowed.add(line)
                allowed.add('P' + line)
    names = sorted(n for n in declared if not n.startswith('P'))
    fail = 0
    missing = [n for n in sorted(declared) if n not in defined and n not in allowed]
    for n in missing:
        print('FAIL: %s is declared in mpi.h but not defined by %s' % (n, libs[0]))
        fail = 1
    landed = [n for n in sorted(allowed) if n in defined]
    for n in landed:
        print('FAIL: %s is defined now: remove it from %s' % (n, listing))
        fail = 1
    stray = sorted(n for n in defined if re.match(r'^P?MPIX?_', n) and n not in declared)
    for n in stray:
        print('FAIL: the library exports %s, which mpi.h does not declare' % n)
        fail = 1
    print('%d functions declared, %d defined with their PMPI_ twins, %d listed as not yet implemented'
          % (len(names), sum(1 for n in names if n in defined and 'P' + n in defined), len(allowed) // 2))
    if not fail:
        print('PASS')
    return fail


if __name__ == '__main__':
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
