"""bench_pairs.py - `make bench`: issue 8's PoCL targets measured side by
side, in pairs.  On a machine whose cores other jobs share, a median of
ten runs of one kernel followed by ten of another (scripts/bench_scan.py's
main table) can swing by 30% between two runs a minute apart: the load
moves while the first kernel runs and not the second.  Here the
implementations of one form run in ROUNDS rounds, one run of each per
round in an order that rotates from round to round, and each round gives
a ratio per baseline (the baseline's time / crisp's: above 1, crisp is
faster) taken from two runs a few milliseconds apart.  Printed per pair:
both medians, the median of the per-round ratios, its quartiles and its
extremes, and how many rounds met the target (issue 8, section 4: crisp
>= 1.0x PyOpenCL and >= 0.95x the hand-written kernel on PoCL).

The kernels and their launches are those of scripts/bench_scan.py (crisp's
grid-level exclusive-scan, inclusive-scan and filter from
scripts/bench_scan.crisp; the hand-written CUB-style scripts/bench_scan_fast.cl
and blocked+raking scripts/bench_scan_ref.cl; pyopencl's
ExclusiveScanKernel, GenericScanKernel, copy_if) and of
scripts/bench_reduce.py (reduce-vec-atomic and reduce-vec-small of
scripts/bench_reduce.crisp; its hand-written float4 reduction;
pyopencl's ReductionKernel).  Every implementation's result is checked
against numpy before it is timed (WRONG RESULT and exit 1 otherwise).
Times are wall clock from enqueue to finish(), alike for every column.

Environment:
  CRISP_PLATFORM    the OpenCL platform (default: PoCL)
  BENCH_PAIRS_ROUNDS  rounds per form (default 31)
  BENCH_PAIRS_FORMS   forms to run (default "excl incl filter reduce")
  BENCH_SCAN_N, BENCH_SCAN_WG, BENCH_SCAN_GROUPS, BENCH_SCAN_CRISP_FLAGS:
                    as in bench_scan.py (size, launch, crisp's tuning keys)
  BENCH_REDUCE_N, BENCH_GROUPS, BENCH_REDUCE_TYPES, BENCH_REDUCE_OPS:
                    as in bench_reduce.py
  BENCH_PAIRS_VARIANTS  crisp variants timed in the same rounds, entries
                    separated by ';', each "NAME FLAGS..." with FLAGS crisp
                    options (e.g. "early -D+early-ticket+=1") or CRISP=PATH,
                    another build of the compiler (e.g. the commit before a
                    change): each gets a block of its own ratios against
                    the baselines
  BENCH_PAIRS_ONLY  FORM:IMPL - time that one implementation alone for
                    ROUNDS runs and print its median (for timing two
                    processes against each other from outside)
"""
import os
import statistics
import sys
import time

os.environ.setdefault("CRISP_PLATFORM", "Portable Computing Language")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np            # noqa: E402
import pyopencl as cl         # noqa: E402
import bench_scan as bs       # noqa: E402  (its context, kernels and launches)

ROUNDS = int(os.environ.get("BENCH_PAIRS_ROUNDS", "31"))
FORMS = os.environ.get("BENCH_PAIRS_FORMS", "excl incl filter reduce").split()
ONLY = os.environ.get("BENCH_PAIRS_ONLY", "")


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 4:
        return xs[0], xs[-1]
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def rounds(impls, n=ROUNDS, warm=2):
    """impls: [(name, setup, run)]: n rounds, one timed run (setup untimed
    before it) of each per round, the order rotating; the times by name"""
    ts = {name: [] for name, _, _ in impls}
    for r in range(warm + n):
        k = r % len(impls)
        order = impls[k:] + impls[:k]
        if r % 2:
            order = order[::-1]
        for name, setup, run in order:
            setup()
            bs.queue.finish()
            t0 = time.perf_counter()
            run()
            bs.queue.finish()
            if r >= warm:
                ts[name].append(time.perf_counter() - t0)
    return ts


def bound(first, kernel, gsize, lsize):
    """a launch whose arguments FIRST sets on its first run: later runs
    enqueue the kernel alone, so that no timed run includes the host's
    argument setting (bench_scan.py's CrispKernel evaluated the metadata's
    size expressions in Python on every launch, 0.43 ms on this 2-core
    host, more than the whole kernel at 100,003 ints; its launchers now
    set them once too).  KERNEL() gives the kernel object."""
    done = []

    def run():
        if not done:
            done.append(1)
            return first()
        return cl.enqueue_nd_range_kernel(bs.queue, kernel(), (gsize,), (lsize,))
    return run


def report(form, ts, targets, status_ok, me="crisp"):
    """one line per baseline: medians, the per-round ratio's median,
    quartiles, extremes and the rounds meeting the target"""
    mine = ts[me]
    print("  %-36s median %8.3f ms  (min %8.3f, max %8.3f)" % (
        form + " " + me, statistics.median(mine) * 1e3, min(mine) * 1e3, max(mine) * 1e3))
    for name, target in targets:
        base = ts[name]
        r = [b / c for b, c in zip(base, mine)]
        q1, q3 = quartiles(r)
        met = sum(x >= target for x in r)
        print("  %-36s median %8.3f ms  ratio %5.2f  [q1 %5.2f q3 %5.2f | %5.2f..%5.2f]"
              "  %2d/%d rounds >= %.2f" % (
                  "  vs " + name, statistics.median(base) * 1e3, statistics.median(r), q1, q3,
                  min(r), max(r), met, len(r), target))
    if not status_ok:
        print("  %s: WRONG RESULT" % form)
    sys.stdout.flush()


def scans(forms):
    import pyopencl.algorithm as palg
    import pyopencl.array as cla
    import pyopencl.scan as pscan
    n, wg, groups = bs.N, bs.WG, bs.GROUPS
    a, excl, incl, evens = bs.scan_data(n)
    ctx, queue, MF = bs.ctx, bs.queue, bs.MF
    a_buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=a)
    o_buf = cl.Buffer(ctx, MF.READ_WRITE, 4 * n)
    c_buf = cl.Buffer(ctx, MF.READ_WRITE, 8)

    def back(buf, count=n):
        h = np.empty(count, np.int32)
        cl.enqueue_copy(queue, h, buf)
        return h

    def count():
        c = np.zeros(1, np.uint64)
        cl.enqueue_copy(queue, c, c_buf)
        return int(c[0])

    prog, meta = bs.crisp_program(os.path.join(bs.REPO, "scripts", "bench_scan.crisp"), "bench_pairs")
    variants = []
    for v, entry in enumerate(e.split() for e in os.environ.get("BENCH_PAIRS_VARIANTS", "").split(";") if e.strip()):
        saved = os.environ.get("CRISP")
        for w in entry[1:]:          # CRISP=PATH: this variant's compiler (another build)
            if w.startswith("CRISP="):
                os.environ["CRISP"] = w[len("CRISP="):]
        try:
            variants.append(("crisp[%s]" % entry[0],) + bs.crisp_program(
                os.path.join(bs.REPO, "scripts", "bench_scan.crisp"), "bench_pairs_v%d" % v,
                [w for w in entry[1:] if not w.startswith("CRISP=")]))
        finally:
            if saved is None:
                os.environ.pop("CRISP", None)
            else:
                os.environ["CRISP"] = saved
    fast = bs.FastScan(os.environ.get("BENCH_SCAN_FAST", ""), n)
    ref = cl.Program(ctx, open(os.path.join(bs.REPO, "scripts", "bench_scan_ref.cl")).read()).build(
        options="-cl-std=CL1.2")
    a_dev = cla.to_device(queue, a)
    o_dev = cla.empty_like(a_dev)
    nop = lambda: None     # noqa: E731
    bad = 0
    print("== scans and filter: %d ints, %d work-groups of %d, %d rounds; load %s"
          % (n, groups, wg, ROUNDS, load()))
    for form in forms:
        if form in ("excl", "incl"):
            kname = "exclusive_scan_ints" if form == "excl" else "inclusive_scan_ints"
            want = excl if form == "excl" else incl
            k = bs.CrispKernel(prog, meta, kname)
            scan = lambda k: bound(lambda: k.enqueue(groups * wg, wg, In=(a_buf, n), Out=(o_buf, n)),  # noqa: E731
                                   lambda: k.k, groups * wg, wg)
            impls = [("crisp", nop, scan(k)),
                     *[(vname, nop, scan(bs.CrispKernel(vp, vm, kname))) for vname, vp, vm in variants],
                     ("hand-written CUB-style", nop, bound(lambda f=form: fast.enqueue(f, a_buf, o_buf),
                                                           lambda f=form: fast.kernels[bs.FAST_KERNELS[f]],
                                                           fast.groups * fast.wg, fast.wg))]
            checks = {"crisp": lambda: np.array_equal(back(o_buf), want),
                      **{vname: (lambda: np.array_equal(back(o_buf), want)) for vname, _, _ in variants},
                      "hand-written CUB-style": lambda f=form: bs.fast_check(fast, f, o_buf, back, excl, incl, evens)}
            if form == "excl":
                hk = bs.RefKernel(ref, "exclusive_scan_ref", n, wg)
                impls.append(("hand-written blocked+raking", nop, bound(lambda: hk.enqueue(a_buf, o_buf, groups),
                                                                        lambda: hk.k, groups * wg, wg)))
                checks["hand-written blocked+raking"] = lambda: np.array_equal(back(o_buf), want)
                pk = pscan.ExclusiveScanKernel(ctx, np.int32, "a+b", "0")
                impls.append(("pyopencl ExclusiveScanKernel", nop, lambda: pk(a_dev, o_dev, queue=queue)))
            else:
                pk = pscan.GenericScanKernel(ctx, np.int32, arguments="__global const int *ary, __global int *out",
                                             input_expr="ary[i]", scan_expr="a+b", neutral="0",
                                             output_statement="out[i] = item;")
                impls.append(("pyopencl GenericScanKernel", nop, lambda: pk(a_dev, o_dev, queue=queue)))
            checks[impls[-1][0]] = lambda: np.array_equal(o_dev.get(), want)
        elif form == "filter":
            k = bs.CrispKernel(prog, meta, "filter_even_ints")
            hk = bs.RefKernel(ref, "filter_even_ref", n, wg)
            res = {}

            def copy_if():
                res["r"] = palg.copy_if(a_dev, "ary[i] % 2 == 0", queue=queue)

            def copy_if_ok():
                out, cnt, _ = res["r"]
                c = int(cnt.get())
                return c == evens.size and np.array_equal(out.get()[:c], evens)
            filt = lambda k: bound(lambda: k.enqueue(groups * wg, wg, In=(a_buf, n), Out=(o_buf, n),  # noqa: E731
                                                     Count=(c_buf, 1)), lambda: k.k, groups * wg, wg)
            impls = [("crisp", nop, filt(k)),
                     ("hand-written CUB-style", nop, bound(lambda: fast.enqueue("filter", a_buf, o_buf),
                                                           lambda: fast.kernels[bs.FAST_KERNELS["filter"]],
                                                           fast.groups * fast.wg, fast.wg)),
                     ("hand-written blocked+raking", nop, bound(lambda: hk.enqueue(a_buf, o_buf, groups),
                                                                lambda: hk.k, groups * wg, wg)),
                     ("pyopencl copy_if", nop, copy_if)]
            checks = {"crisp": lambda: count() == evens.size and np.array_equal(back(o_buf)[:evens.size], evens),
                      "hand-written CUB-style": lambda: bs.fast_check(fast, "filter", o_buf, back, excl, incl, evens),
                      "hand-written blocked+raking": lambda: hk.last_prefix() == evens.size and np.array_equal(
                          back(o_buf)[:evens.size], evens),
                      "pyopencl copy_if": copy_if_ok}
            for vname, vp, vm in variants:
                impls.insert(1, (vname, nop, filt(bs.CrispKernel(vp, vm, "filter_even_ints"))))
                checks[vname] = checks["crisp"]
        else:
            continue
        if ONLY:
            f, _, which = ONLY.partition(":")
            if f != form:
                continue
            impls = [i for i in impls if i[0] == which]
        ok = True
        for name, setup, run in impls:    # each checked (twice: the state resets itself)
            for _ in range(2):
                setup()
                run()
                queue.finish()
                good = checks[name]()
                if not good:
                    print("  %s %s: WRONG RESULT" % (form, name))
                    ok = False
        bad += not ok
        label = {"excl": "exclusive-scan", "incl": "inclusive-scan", "filter": "filter"}[form]
        if ONLY:
            ts = rounds(impls)
            print("%s %s: median %.3f ms over %d runs" % (label, which, statistics.median(ts[which]) * 1e3,
                                                          len(ts[which])))
            continue
        ts = rounds(impls)
        mine = ["crisp"] + [v[0] for v in variants]
        targets = [(name, 1.0 if name.startswith("pyopencl") else 0.95) for name, _, _ in impls
                   if name not in mine]
        for me in mine:
            report(label, ts, targets + [(m, 0.95) for m in mine if m != me and me == "crisp"], ok, me)
    return bad


def reductions():
    import bench_reduce as br
    import pyopencl.array as cla
    from pyopencl.reduction import ReductionKernel
    queue = br.queue
    prog, metas = br.crisp_program()
    hand = cl.Program(br.ctx, br.HAND).build(options=br.CL_OPTIONS)
    rng = np.random.default_rng(1)
    pools = {}
    bad = 0
    n = br.N
    print("== reductions: %d elements, %d work-groups of %d, %d rounds; load %s"
          % (n, br.GROUPS, br.L, ROUNDS, load()))
    for ty in br.TYPE_ROWS:
        data = (rng.integers(-1000, 1000, n, dtype=np.int32) if ty == "int"
                else rng.uniform(-1, 1, n).astype(np.float32))
        a_buf = cl.Buffer(br.ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
        xd = cla.to_device(queue, data)
        exact = {"add": data.astype(np.float64).sum() if ty == "float" else data.sum(dtype=np.int64),
                 "min": data.min(), "max": data.max()}
        for op in br.OP_ROWS:
            idv = br.ident(op, ty)
            r_bufs = {v: cl.Buffer(br.ctx, cl.mem_flags.READ_WRITE, 4) for v in ("hand", "atomic", "small")}
            hk = getattr(hand, "hand_%s_%s" % (op, ty))
            rk = ReductionKernel(br.ctx, br.TYPES[ty], neutral=("INFINITY" if idv == np.inf else "-INFINITY"
                                                                if idv == -np.inf else str(idv)),
                                 reduce_expr=br.OPS[op][0], map_expr="x[i]",
                                 arguments="__global const %s *x" % ty)
            launches = {v: br.crisp_launch(prog, metas["%s_%s_%s" % (v, op, ty)], a_buf, n, r_bufs[v], idv, pools)
                        for v in ("atomic", "small")}
            box = {}

            def reset(v):
                return lambda: cl.enqueue_copy(queue, r_bufs[v], np.array([idv], br.TYPES[ty]))

            def result(v):
                res = np.zeros(1, br.TYPES[ty])
                cl.enqueue_copy(queue, res, r_bufs[v])
                queue.finish()
                return res[0]
            # (its arguments set once, as crisp_launch sets crisp's)
            hk.set_args(a_buf, np.uint64(n), r_bufs["hand"], idv, cl.LocalMemory(br.L * 4))
            hand_run = lambda hk=hk: cl.enqueue_nd_range_kernel(queue, hk, (br.GROUPS * br.L,), (br.L,))  # noqa: E731
            py_run = lambda: box.__setitem__("r", rk(xd, queue=queue))                          # noqa: E731
            for variant in ("atomic", "small"):
                impls = [("crisp", reset(variant), launches[variant]),
                         ("hand-written", reset("hand"), hand_run),
                         ("pyopencl ReductionKernel", lambda: None, py_run)]
                ok = True
                for name, setup, run in impls:
                    setup()
                    run()
                    queue.finish()
                    got = (result(variant) if name == "crisp" else result("hand") if name == "hand-written"
                           else box["r"].get())
                    if not br.ok(got, exact[op], ty, data):
                        print("  %s %s %s %s: WRONG RESULT" % (variant, op, ty, name))
                        ok = False
                bad += not ok
                ts = rounds_on(queue, impls)
                report("reduce-vec-%s %s %s" % (variant, op, ty), ts,
                       [("hand-written", 0.95), ("pyopencl ReductionKernel", 1.0)], ok)
    return bad


def rounds_on(queue, impls):
    """rounds() on another module's queue (bench_reduce.py's context)"""
    saved = bs.queue
    bs.queue = queue
    try:
        return rounds(impls)
    finally:
        bs.queue = saved


def main():
    print("bench_pairs: %s / %s; ratios are the baseline's time / crisp's (above 1: crisp faster)"
          % (bs.dev.platform.name.strip(), bs.dev.name.strip()))
    bad = scans([f for f in FORMS if f in ("excl", "incl", "filter")])
    if "reduce" in FORMS and not ONLY:
        bad += reductions()
    print("load at the end: %s" % load())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
