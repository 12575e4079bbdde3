"""jit_example.py - the README's Python sample: compile Crisp in memory with
the crisp package, build the OpenCL C with PyOpenCL and run it (tests/e2e/api.py
runs this file with PYTHONPATH=python)."""
import sys

import numpy as np
import pyopencl as cl

import crisp

source = open(sys.argv[1]).read()                  # examples/vector_add.crisp
r = crisp.compile(source, flags="--ocl-version=1.2") # r.opencl_c, r.metadata (a dict), r.diagnostics
try:
    crisp.compile("(def-kernel k (a:int) (+ a 1.0))")
except crisp.CompileError as e:                    # .file .line .column .code .message
    print("%s:%d:%d: %s" % (e.file, e.line, e.column, e.code))

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
prg = cl.Program(ctx, r.opencl_c).build()
a = np.arange(8, dtype=np.float32)
b = np.ones(8, dtype=np.float32)
mf = cl.mem_flags
da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
dc = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
n = np.uint64(len(a))
prg.vector_add(queue, (len(a),), None, da, n, db, n, dc, n)   # each vector: pointer, length
c = np.empty_like(a)
cl.enqueue_copy(queue, c, dc)
print(r.metadata["kernels"][0]["name"], c)
