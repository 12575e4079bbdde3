"""Reference scans in numpy for the scan and filter tests (a helper: files
starting with `_` are not run)."""
import numpy as np

BIG = {np.dtype(t): np.iinfo(t) for t in (np.int8, np.uint8, np.int16, np.uint16,
                                         np.int32, np.uint32, np.int64, np.uint64)}


def identity(op, dt):
    dt = np.dtype(dt)
    if op in ("add", "or", "xor", "user_sat", "user_right"):
        return dt.type(0)
    if op == "mul":
        return dt.type(1)
    if op == "and":
        return dt.type(~dt.type(0))
    if op == "min":
        return dt.type(np.inf) if dt.kind == "f" else dt.type(BIG[dt].max)
    if op == "max":
        return dt.type(-np.inf) if dt.kind == "f" else dt.type(BIG[dt].min)
    raise ValueError(op)


def _sequential(a, f):
    out = np.empty_like(a)
    acc = None
    for i, x in enumerate(a):
        acc = x if acc is None else f(acc, x)
        out[i] = acc
    return out


def inclusive(a, op):
    """Inclusive scan of a 1-D array with the named binop, in a's dtype
    (integers wrap as on the device)."""
    a = np.asarray(a)
    dt = a.dtype
    with np.errstate(over="ignore"):
        if op == "add":
            return np.cumsum(a, dtype=dt)
        if op == "mul":
            return np.cumprod(a, dtype=dt)
        if op == "min":
            return np.minimum.accumulate(a)
        if op == "max":
            return np.maximum.accumulate(a)
        if op == "or":
            return np.bitwise_or.accumulate(a)
        if op == "xor":
            return np.bitwise_xor.accumulate(a)
        if op == "and":
            return np.bitwise_and.accumulate(a)
        if op == "user_sat":      # saturating-add: min(a + b, 1000)
            return _sequential(a, lambda x, y: dt.type(min(int(x) + int(y), 1000)))
        if op == "user_right":    # pick-right: the last non-zero value
            return _sequential(a, lambda x, y: y if y != 0 else x)
    raise ValueError(op)


def exclusive(a, op):
    """Exclusive scan: the identity, then the inclusive scan shifted by one."""
    a = np.asarray(a)
    out = np.empty_like(a)
    if a.size:
        out[0] = identity(op, a.dtype)
        out[1:] = inclusive(a, op)[:-1]
    return out


def total(a, op):
    a = np.asarray(a)
    return inclusive(a, op)[-1] if a.size else identity(op, a.dtype)


def data(rng, dt, n, op):
    """Test data for op: small values where products or sums could overflow
    or lose exactness, bit patterns for the bit operations."""
    dt = np.dtype(dt)
    if op == "mul":
        if dt.kind == "f":
            return rng.choice(np.array([0.5, 1.0, 2.0, 1.0, 1.0], dt), n)
        return rng.choice(np.array([1, 1, 1, 2, 3, -1] if dt.kind == "i" else [1, 1, 2, 3], dt), n)
    if op in ("or", "xor", "and"):
        return rng.integers(0, np.iinfo(dt).max, n, dtype=dt, endpoint=True) if op != "and" else \
            (~(np.uint64(1) << rng.integers(0, dt.itemsize * 8, n).astype(np.uint64))).astype(dt)
    if op == "user_sat":
        return rng.integers(0, 20, n, dtype=dt)
    if op == "user_right":
        v = rng.integers(-50, 50, n, dtype=dt)
        v[rng.random(n) < 0.6] = 0
        return v
    if dt.kind == "f":
        return (rng.random(n) * 100 - 20).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, min(1000, np.iinfo(dt).max), n, dtype=dt)
    return rng.integers(max(-1000, np.iinfo(dt).min), min(1000, np.iinfo(dt).max), n, dtype=dt)


def check_scan(got, a, op, kind, what="scan", chain=0):
    """Compare a device scan with numpy: integers exactly; floating sums
    within the rounding error of summing in another order (computed in
    long double here, bounded by (8 * log2(n) + CHAIN) * eps * the running
    sum of |a|).  CHAIN counts additions made one after another beyond a
    tree's depth: a grid-level scan folds the tiles' aggregates in turn,
    so its callers pass the number of tiles."""
    a = np.asarray(a)
    want = (inclusive if kind == "inclusive" else exclusive)(a, op)
    if a.dtype.kind != "f" or op in ("min", "max"):
        bad = np.flatnonzero(want != got) if a.dtype.kind != "f" else \
            np.flatnonzero(~((want == got) | (np.isnan(want) & np.isnan(got))))
        if bad.size:
            i = bad[0]
            raise AssertionError("%s: %d of %d elements differ, first at %d: got %r, want %r"
                                 % (what, bad.size, a.size, i, got[i], want[i]))
        return
    if op == "mul":
        exact = (inclusive if kind == "inclusive" else exclusive)(a.astype(np.float64), op)
        bound = np.abs(exact) * (8 * np.log2(a.size + 2) + chain) * np.finfo(a.dtype).eps + 1e-30
    else:
        # float64 is not exact for double elements: numpy's sequential
        # cumsum drifts by more than the bound from any other order over
        # 2^20 elements; the x86 long double (64-bit mantissa) is
        exact = (inclusive if kind == "inclusive" else exclusive)(a.astype(np.longdouble), "add")
        mag = np.cumsum(np.abs(a.astype(np.float64)))
        bound = mag * (8 * np.log2(a.size + 2) + chain) * np.finfo(a.dtype).eps + 1e-30
    err = np.abs(got.astype(np.longdouble) - exact).astype(np.float64)
    bad = np.flatnonzero(err > bound)
    if bad.size:
        i = bad[0]
        raise AssertionError("%s: %d of %d elements off by more than the rounding bound, first at %d: "
                             "got %r, want %r (bound %g)" % (what, bad.size, a.size, i, got[i], exact[i], bound[i]))


def check_total(got, a, op, what="total", chain=0):
    a = np.asarray(a)
    if a.dtype.kind != "f" or op in ("min", "max"):
        want = total(a, op)
        if not (got == want or (a.dtype.kind == "f" and np.isnan(got) and np.isnan(want))):
            raise AssertionError("%s: got %r, want %r" % (what, got, want))
        return
    exact = total(a.astype(np.longdouble), op)
    bound = (np.abs(a.astype(np.float64)).sum() if op == "add" else abs(float(exact))) * \
        (8 * np.log2(a.size + 2) + chain) * np.finfo(a.dtype).eps + 1e-30
    if abs(float(np.longdouble(got) - exact)) > bound:
        raise AssertionError("%s: got %r, want %r (bound %g)" % (what, got, exact, bound))
