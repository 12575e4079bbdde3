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
    "reduce_to_workgroup": (
        "unknown compile-time function `gen-make-reduction-local-scratch-vec`",
        "the &key default is staged code, (funcall (gen-...)) evaluated at expansion (lead: staging); "
        "the body also needs reduce-to-warp, when-thread-in-warp-is, get-warp-id (branch warps)"),
    "reduce_to_1_small": (
        "unbound compile-time variable `message`",
        "spec error: the &optional defaults use `message`, a &key parameter bound after them"),
    "reduce_to_1_small_given": (
        "unbound compile-time variable `local-scratch-vec`",
        "spec typo: ,local-scratch-vec for ,localScratchVec; then cond+ (issue 10), get-lane-id, "
        "reduce-to-warp (branch warps), (~ v (get-group-id) x) misplaced parenthesis"),
    "reduce_to_1_atomic": (
        "unbound compile-time variable `message`",
        "spec error: the &optional default uses `message`, a &key parameter bound after it"),
    "reduce_to_1_atomic_given": (
        "unknown function or macro `get-atomic-equivalent`",
        "the spec never defines get-atomic-equivalent, and an atomic builtin as a function value "
        "(funcall atomic-op place v) is not supported by the checker"),
    "reduce_to_1_cas": (
        "unbound compile-time variable `message`",
        "spec error: the &optional default uses `message`, a &key parameter bound after it"),
    "reduce_vec_small": (
        "unbound compile-time variable `message`",
        "spec error: the &optional defaults use `message`, a &key parameter bound after them"),
    "reduce_vec_small_given": (
        "a kernel returns nothing, but this return has 1 value",
        "spec error: (return (shuffle sum 0)) in a macro's expansion returns from the enclosing "
        "kernel; the form's value should be its last expression; shuffle needs branch warps"),
    "reduce_vec_atomic": (
        "unbound compile-time variable `message`",
        "spec error: the &optional default uses `message`, a &key parameter bound after it"),
    "reduce_vec_cas": (
        "unbound compile-time variable `message`",
        "spec error: the &optional default uses `message`, a &key parameter bound after it"),
    "scratch_generators": (
        "unknown function or macro `gen-spec-make-reduction-local-scratch-vec`",
        "a function returning a side channel (lead: functions that return a scratch vector); "
        "the block also needs get-warp-size (branch warps) and has a misplaced parenthesis in "
        "the global generator's let"),
    "histogram_pass": (
        "unsupported feature expression `(is-floating-point? T)` after #+",
        "#+ inside a template (lead: deferred feature expressions); spec typos: a missing `)` "
        "closing the parameter list, as-bits / is-negative? undefined"),
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


def ints(n):
    return rng.integers(-1000, 1000, n, dtype=np.int32)


@case
def runs_reduce_to_1_cas_given():
    prog = compile(D + "reduce_to_1_cas_given.crisp")
    a = ints(256)
    r = np.array([-2**31], np.int32)
    prog.run("block_given", a, r, global_size=256)
    assert_equal(r[0], a.max())


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
                                   "reduce_vec_cas_given", "dot_prod_fixed"])
    assert_equal(files, listed)
