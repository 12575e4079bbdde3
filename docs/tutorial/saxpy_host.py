"""saxpy_host.py - run the tutorial's saxpy kernel from Python (docs/tutorial.md).

    crisp --hoist=PyOpenCL --output-dir=out docs/tutorial/saxpy.crisp
    python3 docs/tutorial/saxpy_host.py out

The hoist, out/saxpy_hoist_PyOpenCL.py, loads out/saxpy.cl and has one
method per kernel, taking numpy arrays, pyopencl arrays and numbers.
"""
import sys

import numpy as np
import pyopencl.array as cla

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "out")
import saxpy_hoist_PyOpenCL as hoist  # noqa: E402

k = hoist.load()                           # the first OpenCL device, or CRISP_PLATFORM's
x = np.arange(1000, dtype=np.float32)
y = np.ones(1000, dtype=np.float32)
z = np.empty_like(x)
k.saxpy(2.0, x, y, z)                      # Z = 2 X + Y, one thread per element
assert np.allclose(z, 2.0 * x + y)
print("saxpy on %d elements: z[:4] = %s" % (len(z), z[:4]))

dx, dy = cla.to_device(k.queue, x), cla.to_device(k.queue, y)
dz = cla.empty_like(dx)
ev = k.saxpy(2.0, dx, dy, dz)              # device arrays: used in place, no wait
k.saxpy(-1.0, dz, dy, dx, wait_for=[ev])   # X = -Z + Y, after the first call
assert np.allclose(dx.get(), -(2.0 * x + y) + y)
try:
    k.saxpy(2.0, x, y, z[:999])            # Z one short: refused, nothing runs
except ValueError as e:
    print("Z one short:", e)
