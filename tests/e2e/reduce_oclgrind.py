"""The GPU library's forms (tests/e2e/lib/reduce_oclgrind.crisp: the vector
reductions, reduce-to-*, dot-prod-grid, histogram-pass, map-stride,
loop-tile-stride) under oclgrind --data-races --uninitialized: no data race,
no uninitialized value, and the right results, on inputs small enough for
oclgrind's speed.  The kernels run in a child process
(_reduce_oclgrind_child.py) on oclgrind's platform; oclgrind exits 0 even
when it reports, so its log is read: any report fails the test.  (The
workgroups' partial results cross workgroups through atomics, which is what
keeps the last-workgroup step free of data races.)"""
import os
import subprocess
import sys

from crisptest import *

D = out_dir("programs")
prog = compile("tests/e2e/lib/reduce_oclgrind.crisp", out_dir=D)


@case
def library_forms_clean_under_oclgrind():
    log = os.path.join(D, "oclgrind.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, CRISPTEST_PLATFORM="Oclgrind",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "tests"), os.path.join(REPO, "tests", "e2e")]))
    r = subprocess.run(["oclgrind", "--data-races", "--uninitialized", "--log", log, sys.executable,
                        os.path.join(REPO, "tests", "e2e", "_reduce_oclgrind_child.py"), D],
                       capture_output=True, text=True, env=env, timeout=600)
    report = open(log).read() if os.path.exists(log) else ""
    if report.strip():
        raise AssertionError("oclgrind reported problems; first lines of %s:\n%s"
                             % (os.path.relpath(log, REPO), "\n".join(report.strip().splitlines()[:20])))
    ran = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("ran ")]
    if r.returncode != 0 or "done" not in r.stdout or "platform: Oclgrind" not in r.stdout:
        raise AssertionError("the runs under oclgrind failed (status %d):\n%s"
                             % (r.returncode, "\n".join((r.stdout + r.stderr).strip().splitlines()[-20:])))
    check("every kernel ran", sorted(ran) == sorted(prog.kernels))
