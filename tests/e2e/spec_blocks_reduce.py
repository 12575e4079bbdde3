"""The spec's "Possible Implementation" blocks of the reduction forms,
pasted into user files under other names (tests/e2e/spec_blocks_reduce/):
the blocks that compile run on PoCL against numpy; the blocks that do not
compile yet fail with the diagnostic recorded here, and why (a missing
compiler feature or an error in the spec's block; docs/library.md lists
them).  When a compiler change makes one of them compile, its case fails:
move it to RUNS with a check of its results.

`NAME_given.crisp` calls the block with its optional scratch vectors
given, so that the rest of the block is exercised even where the default
(a staged `(funcall (gen-make-reduction-...-scratch-vec ...))`) does not
work yet."""
import os

from crisptest import *

D = "tests/e2e/spec_blocks_reduce/"
rng = np.random.default_rng(21)

# file -> (error substring, why)
FAILS = {
    "reduce_to_1_small": (
        "unknown compile-time function `get-make-reduction-global-scratch-vec`",
        "spec typo: get-make-... for gen-make-...; then ,local-scratch-vec for ,localScratchVec, "
        "(~ v (get-group-id) x) with a misplaced parenthesis, a `)` too many in each let* "
        "(reduce_to_1_small_fixed.crisp runs)"),
    "reduce_to_1_small_given": (
        "unbound compile-time variable `local-scratch-vec`",
        "spec typo: ,local-scratch-vec for ,localScratchVec (reduce_to_1_small_fixed.crisp's "
        "block_given runs)"),
    "reduce_vec_small": (
        "`shuffle` outside `in-warp`",
        "spec bug: the block returns (shuffle sum 0) outside in-warp; a warp shuffle broadcasts "
        "lane 0's value within each warp only, so the work-items of other warps would not get the "
        "total (the library's reduce-vec-small broadcasts through local memory)"),
    "reduce_vec_small_given": (
        "`shuffle` outside `in-warp`",
        "spec bug: the block returns (shuffle sum 0) outside in-warp (see reduce_vec_small)"),
    "histogram_pass": (
        "unclosed `(`",
        "spec typo: the `)` closing the parameter list is missing (histogram_pass_fixed.crisp)"),
    "dot_prod": (
        "unclosed `(`",
        "spec typo: two missing `)` at the end of dot-prod-grid (dot_prod_fixed.crisp runs)"),
}

for name, (msg, why) in sorted(FAILS.items()):
    @case("fails_" + name)
    def _(name=name, msg=msg, why=why):
        status, out, err = crisp(D + name + ".crisp")
        if status == 0:
            raise AssertionError("%s.crisp compiles now (%s): move it to the blocks that run" % (name, why))
        check("exit status 1", status == 1)
        if msg not in err:
            raise AssertionError("expected `%s` (%s), got:\n%s" % (msg, why, err[:600]))


@case
def warns_reduce_to_workgroup():
    """The spec's block compiles as written (its default scratch vector made
    once per call, `(when ,return-vec ...)` true for a given vector) but
    puts a barrier where only some work-items reach it: check-barriers
    says so (reduce_to_workgroup_fixed.crisp moves it)."""
    src = open(D + "reduce_to_workgroup.crisp").read()
    path = os.path.join(out_dir("spec_blocks_reduce"), "spec_reduce_to_workgroup_checked.crisp")
    with open(path, "w") as f:
        f.write("(declaim (check-barriers))\n" + src)
    status, out, err = crisp(path)
    check("compiles", status == 0)
    check("W1101 at the call (line 49)", "spec_reduce_to_workgroup_checked.crisp:49:5: warning[W1101]" in err)
    check("names local-id", "depends on `local-id`" in err)


@case
def runs_reduce_to_workgroup_fixed():
    prog = compile(D + "reduce_to_workgroup_fixed.crisp")
    n = 1024
    a = rng.integers(-1000, 1000, n, dtype=np.int32)
    w = np.zeros(n // 64, np.int32)
    prog.run("block", a, w, global_size=n)
    assert_equal(w, a.reshape(-1, 64).sum(axis=1))


def ints(n):
    return rng.integers(-1000, 1000, n, dtype=np.int32)


@case
def runs_reduce_to_1_cas_given():
    prog = compile(D + "reduce_to_1_cas_given.crisp")
    a = ints(256)
    r = np.array([-2**31], np.int32)
    prog.run("block_given", a, r, global_size=256)
    assert_equal(r[0], a.max())


# reduce_to_1_atomic: get-atomic-equivalent (lib/reduce.crisp) and an
# atomic builtin held in a let variable
for name in ("reduce_to_1_atomic", "reduce_to_1_atomic_given"):
    @case("runs_" + name)
    def _(name=name):
        prog = compile(D + name + ".crisp")
        a = ints(256)
        r = np.zeros(1, np.int32)
        prog.run("block_given" if name.endswith("_given") else "block", a, r, global_size=256)
        assert_equal(r[0], a.sum())


@case
def runs_reduce_vec_atomic_given():
    prog = compile(D + "reduce_vec_atomic_given.crisp")
    a = ints(5000)
    r = np.zeros(1, np.int32)
    prog.run("block_given", a, r)
    assert_equal(r[0], a.sum())


@case
def runs_reduce_vec_cas_given():
    prog = compile(D + "reduce_vec_cas_given.crisp")
    a = ints(5000)
    r = np.array([-2**31], np.int32)
    prog.run("block_given", a, r)
    assert_equal(r[0], a.max())


# reduce_vec_atomic, reduce_vec_cas, reduce_to_1_cas: without :message the
# staged default passes nil for the generator's &optional message, which
# means its default (docs/templates.md)
for name, k in (("reduce_vec_atomic_message", "add"), ("reduce_vec_cas_message", "max"),
                ("reduce_to_1_cas_message", "max"), ("reduce_vec_atomic", "add"),
                ("reduce_vec_cas", "max"), ("reduce_to_1_cas", "max")):
    @case("runs_" + name)
    def _(name=name, k=k):
        prog = compile(D + name + ".crisp")
        a = ints(256 if "to_1" in name else 5000)
        r = np.array([0 if k == "add" else -2**31], np.int32)
        prog.run("block_message" if name.endswith("_message") else "block", a, r, global_size=256 if "to_1" in name else None)
        assert_equal(r[0], a.sum() if k == "add" else a.max())


@case
def runs_scratch_generators():
    """The spec's use binds (gen-spec-make-reduction-local-scratch-vec float
    "...") to a let variable and calls it: the instance's scratch vector
    (ceil local-work-size (get-warp-size)) floats, shorter than the
    workgroup, which reduce-to-workgroup accepts."""
    prog = compile(D + "scratch_generators.crisp")
    a = rng.uniform(0.9, 1.1, 1024).astype(np.float32)
    w = np.zeros(1024 // 64, np.float32)
    prog.run("block", a, w, global_size=1024)
    assert_close(w, np.prod(a.astype(np.float64).reshape(-1, 64), axis=1), rtol=1e-4)


@case
def runs_histogram_pass_fixed():
    """The spec's histogram-pass (its `)` and the &optional scratch of its
    signature fixed): A deduced from the argument's alignment, is-alignment?
    and (local-work-size :set-to 256) in the function."""
    prog = compile(D + "histogram_pass_fixed.crisp")
    a = rng.integers(0, 2**32, 10000, dtype=np.uint64).astype(np.uint32)
    for off in (0, 8, 24):
        h = np.zeros(256, np.uint32)
        prog.run("block", a, h, np.uint32(off), global_size=256 * 8)
        assert_equal(h, np.bincount((a >> off) & 0xFF, minlength=256).astype(np.uint32))
    # floats: the block's key is the bits, every bit flipped below zero
    # (as-bits and is-negative?, lib/prelude.crisp)
    f = rng.uniform(-1000, 1000, 10000).astype(np.float32)
    f[:4] = [0.0, -0.0, np.inf, -np.inf]
    bits = f.view(np.uint32)
    key = np.where(f < 0, ~bits, bits)
    for off in (0, 16, 24):
        h = np.zeros(256, np.uint32)
        prog.run("block_float", f, h, np.uint32(off), global_size=256 * 8)
        assert_equal(h, np.bincount((key >> off) & 0xFF, minlength=256).astype(np.uint32))


@case
def runs_histogram_pass_fixed_int():
    """int elements: `(logxor base-val #x80000000)` with an int base-val
    flips the sign bit (a #x literal in a bit operation is a bit pattern,
    docs/language.md), so negative keys count below positive ones."""
    prog = compile(D + "histogram_pass_fixed.crisp")
    a = rng.integers(-(1 << 31), 1 << 31, 10007, dtype=np.int64).astype(np.int32)
    a[:4] = [-(1 << 31), (1 << 31) - 1, 0, -1]
    key = a.view(np.uint32) ^ np.uint32(0x80000000)
    for off in (0, 8, 16, 24):
        h = np.zeros(256, np.uint32)
        prog.run("block_int", a, h, np.uint32(off), global_size=256 * 8)
        assert_equal(h, np.bincount((key >> np.uint32(off)) & 0xFF, minlength=256).astype(np.uint32))
    # the top digit of the key orders the sign: every negative below every positive
    h = np.zeros(256, np.uint32)
    prog.run("block_int", a, h, np.uint32(24), global_size=256 * 8)
    check("negatives in bins 0-127", int(h[:128].sum()) == int((a < 0).sum()))


@case
def runs_histogram_pass_fixed_long():
    """long elements: the block as written flips bit 31 (#x80000000 fits a
    long, so it is that long, as in C), not the sign bit 63: a radix sort of
    longs needs #x8000000000000000 there (lib/histogram.crisp's radix-key
    has it; docs/library.md).  The digits are those of the block's key."""
    prog = compile(D + "histogram_pass_fixed.crisp")
    a = rng.integers(-(1 << 63), (1 << 63) - 1, 10007, dtype=np.int64)
    a[:4] = [-(1 << 63), (1 << 63) - 1, 0, -1]
    key = a ^ np.int64(0x80000000)
    for off in (0, 24, 32, 56):
        h = np.zeros(256, np.uint32)
        prog.run("block_long", a, h, np.uint32(off), global_size=256 * 8)
        assert_equal(h, np.bincount((key >> np.int64(off)) & 0xFF, minlength=256).astype(np.uint32))


# reduce_to_1_small_fixed: the total is in the workgroup that arrives last;
# every workgroup stores its v: the others hold their own workgroup's total.
# 20 workgroups take the block's warp branch (N < +warp-size+), 50 its
# workgroup branch (N < local-work-size).
for kernel in ("block", "block_given"):
    @case("runs_reduce_to_1_small_fixed_" + kernel)
    def _(kernel=kernel):
        prog = compile(D + "reduce_to_1_small_fixed.crisp")
        for groups in (20, 50, 1, 64):
            a = ints(64 * groups)
            r = np.zeros(groups, np.int32)
            prog.run(kernel, a, r, global_size=64 * groups)
            partial = a.reshape(groups, 64).sum(axis=1)
            total = a.sum()
            check("%d groups: one workgroup holds the total" % groups, np.count_nonzero(r == total) >= 1)
            check("%d groups: the others hold their own total" % groups, bool(np.all((r == partial) | (r == total))))


@case
def runs_dot_prod_fixed():
    prog = compile(D + "dot_prod_fixed.crisp")
    a = rng.uniform(-1, 1, 3000).astype(np.float32)
    b = rng.uniform(-1, 1, 3000).astype(np.float32)
    r = np.zeros(1, np.float32)       # reduce-vec-atomic adds into it
    prog.run("block", a, b, r)
    assert_close(r[0], np.dot(a.astype(np.float64), b), rtol=1e-5)
    s = np.zeros(1, np.float32)
    prog.run("block_seq", a, b, s)
    assert_close(s[0], np.dot(a.astype(np.float64), b), rtol=1e-4)


@case
def every_block_file_is_listed():
    files = sorted(f[:-6] for f in os.listdir(os.path.join(REPO, D)) if f.endswith(".crisp"))
    listed = sorted(list(FAILS) + ["reduce_to_1_cas_given", "reduce_vec_atomic_given",
                                   "reduce_vec_cas_given", "dot_prod_fixed", "reduce_vec_atomic_message",
                                   "reduce_vec_cas_message", "reduce_to_1_cas_message",
                                   "reduce_vec_atomic", "reduce_vec_cas", "reduce_to_1_cas",
                                   "reduce_to_1_atomic", "reduce_to_1_atomic_given",
                                   "reduce_to_workgroup", "reduce_to_workgroup_fixed",
                                   "reduce_to_1_small_fixed", "scratch_generators",
                                   "histogram_pass_fixed"])
    assert_equal(files, listed)
