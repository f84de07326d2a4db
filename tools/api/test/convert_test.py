#!/usr/bin/env python3
"""Converts old_style.cpp with tools/api/convert_binding.py (on copies of the description) and
checks the result: converted.cpp, the functions gone from unimplemented.txt, `selfcheck` added."""
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
api = os.path.dirname(here)
with tempfile.TemporaryDirectory() as tmp:
    for f in ('mpi_api.txt', 'unimplemented.txt'):
        shutil.copy(os.path.join(api, f), tmp)
    # The test's functions must be in the copy's list of unimplemented functions, whatever the
    # real list holds by now.
    with open(os.path.join(tmp, 'unimplemented.txt'), 'a') as f:
        f.write('\nMPI_File_get_amode\nMPI_File_sync\n')
    src = os.path.join(tmp, 'abi_file.cpp')
    shutil.copy(os.path.join(here, 'old_style.cpp'), src)
    r = subprocess.run([sys.executable, os.path.join(api, 'convert_binding.py'), '--api', tmp, src],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr)
    fail = r.returncode != 0
    with open(src) as f:
        got = f.read()
    with open(os.path.join(here, 'converted.cpp')) as f:
        want = f.read()
    if got != want:
        import difflib
        print(''.join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), 'expected', 'converted')))
        fail = True
    with open(os.path.join(tmp, 'unimplemented.txt')) as f:
        left = {l.split('#')[0].strip() for l in f}
    for n in ('MPI_File_get_amode', 'MPI_File_sync'):
        if n in left:
            print('FAIL: %s is still listed as unimplemented' % n)
            fail = True
    with open(os.path.join(tmp, 'mpi_api.txt')) as f:
        entries = [l for l in f if ' MPI_File_get_amode(' in l or ' MPI_File_sync(' in l or ' MPI_File_fromint(' in l]
    if len(entries) != 3 or not all(l.rstrip().endswith('| selfcheck') for l in entries):
        print('FAIL: the converted functions\' entries are not marked selfcheck:\n' + ''.join(entries))
        fail = True
    print('FAIL' if fail else 'PASS')
    sys.exit(1 if fail else 0)
