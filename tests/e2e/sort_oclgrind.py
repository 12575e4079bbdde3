"""The sort kernels (lib/sort.crisp: workgroup sorts, global and local
merge passes, the soa sorts, the radix count/scan/scatter passes) under
oclgrind --data-races --uninitialized: no data race, no uninitialized
read, and the right results.  oclgrind exits 0 even when it reports, so
its log is read: any report fails the test, but the one oclgrind 21.10
makes at every 4-at-a-time store of the grid-level scan (the radix sort's
scan of its counts): "Uninitialized value written" for an int4 built lane
by lane, a false report (tests/e2e/scan_oclgrind.py, docs/library.md);
the child checks every result against numpy."""
import os
import re

from crisptest import *

D = out_dir("sort_oclgrind")
status, _, err = crisp("--transpile-to=oclc", "--metadata", "--output-dir=" + D, "tests/e2e/lib/sort.crisp")
if status != 0:
    raise CompileError(err)


@case
def sorts_clean_under_oclgrind():
    src = open(os.path.join(D, "sort.cl")).read().splitlines()

    def known(block):
        """oclgrind's false report at the scan's 4-at-a-time store (see above)"""
        line = re.search(r"At line (\d+)", block)
        return (block.startswith("Uninitialized value written to global memory") and line is not None
                and int(line.group(1)) <= len(src) and "out_as_vectors[" in src[int(line.group(1)) - 1])
    out = run_under_oclgrind("_sort_oclgrind_child.py", D, timeout=900, known=known)
    for k in ("wg_int_100", "merge_pass", "soa_sort", "premade_soa_merge", "rx_scatter_uint"):
        check("ran " + k, k in out)


if __name__ == "__main__":
    main()
