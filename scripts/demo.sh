#!/bin/sh
# demo.sh - `make demo`: what a user does with crisp, shown step by step.
# Compiles examples/vector_add.crisp with both hoists into build/demo/, builds
# the generated C host program with cc and runs it, runs the generated
# Python host program, and shows the OpenCL C of one kernel.  The host code
# is the generated code itself, not the test harness.  CRISP_PLATFORM (a
# part of an OpenCL platform's name) picks the device, as for any hoist.
# Last, a GPU library form: examples/sum_vector_to_one.crisp
# ((reduce-vec-atomic #'+ A 0 Res)) through its generated Python host code
# on a million elements, its result printed next to numpy's.
cd "$(dirname "$0")/.." || exit 2
if [ -z "${PY:-}" ]; then  # the active virtual environment's Python, else Debian's
    if [ -n "${VIRTUAL_ENV:-}" ]; then PY=$VIRTUAL_ENV/bin/python3; else PY=/usr/bin/python3; fi
fi
CC=${CC:-cc}
src=examples/vector_add.crisp
out=build/demo
set -e

step() {
    echo
    echo "\$ $*"
    "$@"
}

rm -rf "$out"
step ./crisp --hoist=OpenCL --hoist=PyOpenCL --output-dir=$out $src
echo "(wrote: $(cd $out && ls | tr '\n' ' '))"
step "$CC" -std=c99 -I$out $out/vector_add_hoist_OpenCL.c $out/vector_add_hoist_OpenCL_demo.c -lOpenCL -o $out/vector_add
step ./$out/vector_add $out/vector_add.cl
step "$PY" $out/vector_add_hoist_PyOpenCL.py
echo
echo "The kernel vector_add_vstride of $out/vector_add.cl:"
sed -n '/^\/\* def-kernel vector_add_vstride/,/^}/p' $out/vector_add.cl | sed 's/^/    /'
echo
echo "A library reduction, (reduce-vec-atomic #'+ A 0 Res) in examples/sum_vector_to_one.crisp:"
step ./crisp --hoist=PyOpenCL --emit-runtime=$out --output-dir=$out examples/sum_vector_to_one.crisp
step "$PY" - $out <<'PYEOF'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import sum_vector_to_one_hoist_PyOpenCL as hoist
k = hoist.load()
a = np.random.default_rng(1).integers(-1000, 1000, (1 << 20) + 3, dtype=np.int64)
res = np.zeros(1, np.int64)
k.sum_vector_to_one(a, res)
print("sum_vector_to_one on %d longs: Res[0] = %d, numpy a.sum() = %d: %s"
      % (a.size, res[0], a.sum(), "same" if res[0] == a.sum() else "DIFFERENT"))
sys.exit(0 if res[0] == a.sum() else 1)
PYEOF
echo
echo "Next: docs/tutorial.md (a first kernel, the hoists as libraries, diagnostics)."
