"""The tile and matmul kernels (lib/tile.crisp, lib/matmul.crisp) under
oclgrind --data-races --uninitialized: no data race (the tiles are shared
by the workgroup between two barriers), no uninitialized read (the edge
blocks are zero-filled, never read from outside the matrices), and still
numpy's results, on small sizes that are not multiples of the blocks.
oclgrind exits 0 even when it reports, so its log is read: any report
fails the test."""
import os
import subprocess
import sys

from crisptest import *

D = out_dir("programs")
BASES = ("matmul", "tile")
# only crisp here (no PoCL build: matmul.py and tile.py build these programs)
for base in BASES:
    status, _, err = crisp("--transpile-to=oclc", "--metadata", "--output-dir=" + D, "tests/e2e/%s.crisp" % base)
    if status != 0:
        raise CompileError(err)


@case
def tiles_and_matmul_clean_under_oclgrind():
    log = os.path.join(D, "oclgrind.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, CRISPTEST_PLATFORM="Oclgrind",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "tests"), os.path.join(REPO, "tests", "e2e")]))
    r = subprocess.run(["oclgrind", "--data-races", "--uninitialized", "--log", log, sys.executable,
                        os.path.join(REPO, "tests", "e2e", "_matmul_oclgrind_child.py"), D],
                       capture_output=True, text=True, env=env, timeout=600)
    report = open(log).read() if os.path.exists(log) else ""
    if report.strip():
        raise AssertionError("oclgrind reported problems; first lines of %s:\n%s"
                             % (os.path.relpath(log, REPO), "\n".join(report.strip().splitlines()[:20])))
    if r.returncode != 0 or "done" not in r.stdout or "platform: Oclgrind" not in r.stdout:
        raise AssertionError("the runs under oclgrind failed (status %d):\n%s"
                             % (r.returncode, "\n".join((r.stdout + r.stderr).strip().splitlines()[-20:])))
    for kernel in ("matmul_float", "matmul_double", "matmul_small_blocks", "matmul_threads_float", "matmul_fours",
                   "matmul_naive_float",
                   "tile_copy", "edge_tile", "to_row", "to_col"):
        if "ran " + kernel not in r.stdout:
            raise AssertionError("%s did not run under oclgrind:\n%s" % (kernel, r.stdout))
