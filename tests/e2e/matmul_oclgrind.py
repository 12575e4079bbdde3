"""The tile and matmul kernels (lib/tile.crisp, lib/matmul.crisp) under
oclgrind --data-races --uninitialized: no data race (the tiles are shared
by the workgroup between two barriers), no uninitialized read (the edge
blocks are zero-filled, never read from outside the matrices), and still
numpy's results, on small sizes that are not multiples of the blocks.
oclgrind exits 0 even when it reports, so its log is read: any report
fails the test."""

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
    out = run_under_oclgrind("_matmul_oclgrind_child.py", D)
    for kernel in ("matmul_float", "matmul_double", "matmul_small_blocks", "matmul_threads_float", "matmul_fours",
                   "matmul_pipelined_float", "matmul_pipelined_double", "matmul_padded",
                   "matmul_naive_float",
                   "tile_copy", "edge_tile", "to_row", "to_col"):
        if "ran " + kernel not in out:
            raise AssertionError("%s did not run under oclgrind:\n%s" % (kernel, out))
