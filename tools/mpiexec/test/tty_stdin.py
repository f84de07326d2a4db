"""tty_stdin.py MPIEXEC PROBE: runs mpiexec on a pseudo-terminal and checks that what is
typed reaches rank 0 (forwarded through a pipe) and that end-of-file (^D) reaches it too."""
import os
import pty
import select
import sys
import time

mpiexec, probe = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(mpiexec, [mpiexec, "-n", "2", probe, "init", "stdin", "finalize"])
time.sleep(0.3)
os.write(fd, b"typed line\n")
time.sleep(0.2)
os.write(fd, b"\x04")
out = b""
deadline = time.time() + 20
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.5)
    if ready:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
_, status = os.waitpid(pid, 0)
text = out.decode(errors="replace").replace("\r", "")
print(text)
lines = text.split("\n")
ok = (os.waitstatus_to_exitcode(status) == 0 and "stdin: typed line" in lines
      and "stdin-eof rank 0" in lines and "stdin-eof rank 1" in lines)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
