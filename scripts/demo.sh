#!/bin/sh
# demo.sh - `make demo`: transpile examples/vector_add.crisp, run it on PoCL
# through tests/crisptest.py on 16 elements, and show the result and the
# generated OpenCL C.
cd "$(dirname "$0")/.." || exit 2
if [ -z "${PY:-}" ]; then  # the active virtual environment's Python, else Debian's
    if [ -n "${VIRTUAL_ENV:-}" ]; then PY=$VIRTUAL_ENV/bin/python3; else PY=/usr/bin/python3; fi
fi
src=examples/vector_add.crisp
if [ ! -f "$src" ]; then
    echo "demo: $src does not exist yet" >&2
    exit 1
fi
PYTHONPATH=tests exec "$PY" - "$src" <<'PYEOF'
import os, sys
from crisptest import compile, np, CompileError, REPO, parse_type

src = sys.argv[1]
out = os.path.join(REPO, "tests", "out", "demo")
print("$ ./crisp --transpile-to=oclc --metadata --output-dir=tests/out/demo %s" % src)
try:
    prog = compile(src, out)
except CompileError as e:
    sys.exit("demo: %s" % e)

name = "vector_add" if "vector_add" in prog.kernels else sorted(prog.kernels)[0]
params = prog.params(name)
n = 16
args, inputs, outputs = [], [], []
for i, p in enumerate(params):
    if p["role"] == "scalar":
        args.append(1)
        continue
    base, lanes, _ = parse_type(p["element"])
    shape = (n,) if lanes == 1 else (n, lanes)
    if p["access"] == "read_only":
        a = (np.arange(n * lanes).reshape(shape) * (i + 1)).astype(base)
        inputs.append((p["name"], a))
    else:
        a = np.zeros(shape, base)
        outputs.append((p["name"], a))
    args.append(a)

prog.run(name, *args)
np.set_printoptions(linewidth=100)
print("\nkernel %s on %d elements (PoCL):" % (name, n))
for label, arr in inputs:
    print("  %-3s = %s" % (label, arr))
for label, arr in outputs:
    print("  %-3s = %s   <- result" % (label, arr))
if len(inputs) == 2 and len(outputs) == 1:
    ok = np.allclose(outputs[0][1], inputs[0][1] + inputs[1][1])
    print("  %s == %s + %s on the host: %s" % (outputs[0][0], inputs[0][0], inputs[1][0],
                                               "yes" if ok else "NO"))
    if not ok:
        sys.exit(1)

cl_path = os.path.join(out, os.path.splitext(os.path.basename(src))[0] + ".cl")
print("\nfirst lines of %s:" % os.path.relpath(cl_path, REPO))
with open(cl_path) as f:
    for line in f.read().splitlines()[:25]:
        print("  " + line)
PYEOF
