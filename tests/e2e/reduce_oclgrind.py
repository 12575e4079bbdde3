"""The GPU library's forms (tests/e2e/lib/reduce_oclgrind.crisp: the vector
reductions, reduce-to-*, dot-prod-grid, histogram-pass, map-stride,
loop-tile-stride) under oclgrind --data-races --uninitialized: no data race,
no uninitialized value, and the right results, on inputs small enough for
oclgrind's speed.  The kernels run in a child process
(_reduce_oclgrind_child.py) on oclgrind's platform; oclgrind exits 0 even
when it reports, so its log is read: any report fails the test.  (The
workgroups' partial results cross workgroups through atomics, which is what
keeps the last-workgroup step free of data races.)"""

from crisptest import *

D = out_dir("programs")
prog = compile("tests/e2e/lib/reduce_oclgrind.crisp", out_dir=D)


@case
def library_forms_clean_under_oclgrind():
    out = run_under_oclgrind("_reduce_oclgrind_child.py", D)
    ran = [l.split()[1] for l in out.splitlines() if l.startswith("ran ")]
    check("every kernel ran", sorted(ran) == sorted(prog.kernels))
