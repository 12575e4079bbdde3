"""Run by tests/e2e/reduce_oclgrind.py under `oclgrind --data-races
--uninitialized` (platform Oclgrind): each kernel of reduce_oclgrind.crisp
on small inputs, from the .cl and .metacrisp the parent compiled (clang
cannot run inside oclgrind), checked against numpy.  Prints `ran NAME` per
kernel and `done`."""
import sys
from crisptest import *
from crisptest import _context

d = sys.argv[1]
prog = load_program("%s/reduce_oclgrind.cl" % d, "%s/reduce_oclgrind.metacrisp" % d, validate=False)
print("platform:", _context()[0].devices[0].platform.name, flush=True)
rng = np.random.default_rng(5)


def ran(name):
    print("ran", name, flush=True)


a = rng.uniform(-1, 1, 301).astype(np.float32)
r = np.zeros(1, np.float32)
prog.run("og_small", a, r, global_size=96)
assert_close(r[0], a.astype(np.float64).sum(), rtol=1e-5)
ran("og_small")

c = rng.integers(-128, 127, 77, dtype=np.int8)
rc = np.zeros(1, np.int8)
prog.run("og_small_char", c, rc, global_size=48)
assert_equal(rc[0], c.max())
ran("og_small_char")

i = rng.integers(-1000, 1000, 130, dtype=np.int32)
ri = np.array([2147483647], np.int32)
prog.run("og_atomic", i, ri, global_size=64)
assert_equal(ri[0], i.min())
ran("og_atomic")

dd = np.where(rng.random(50) < 0.2, 2.0, 1.0)
rd = np.array([1.0])
prog.run("og_cas", dd, rd, global_size=32)
assert_equal(rd[0], dd.prod())
ran("og_cas")

l = rng.integers(0, 1000, 70, dtype=np.int64)
w = np.zeros(3, np.int64)
s = np.zeros(1, np.int64)
t = np.zeros(1, np.int64)
prog.run("og_to_forms", l, w, s, t, global_size=96)
p = np.zeros(96, np.int64)
p[:70] = l
assert_equal(w, p.reshape(3, 32).sum(axis=1))
assert_equal(s[0], l.max())
assert_equal(t[0], l.sum())
ran("og_to_forms")

b = rng.uniform(-1, 1, 301).astype(np.float32)
rr = np.zeros(1, np.float32)
prog.run("og_dot", a, b, rr, global_size=64)
assert_close(rr[0], np.dot(a.astype(np.float64), b), rtol=1e-5)
ran("og_dot")

h = np.zeros(256, np.uint32)
prog.run("og_hist", a, h, 24, global_size=128)
check("histogram counts every element", h.sum() == a.size)
ran("og_hist")

o = np.zeros(301, np.float32)
prog.run("og_map", a, b, o, global_size=64)
assert_equal(o, np.maximum(a, b))
ran("og_map")

m = rng.uniform(-1, 1, 9 * 7).astype(np.float32)
om = np.zeros(9 * 7, np.float32)
prog.run("og_tiles", 9, 7, m, om, global_size=(8, 8))
assert_equal(om, 2 * m)
ran("og_tiles")
print("done", flush=True)
