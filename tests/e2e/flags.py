"""The compilation flags of spec "Other Flags" / "Fast Compilation"
(docs/api.md "Flags"): --tree-shaking, --single-pass, --no-inference,
--skip-c-t-checks, --re-output-crisp.  Each changes what crisp accepts or
emits, and every program still runs on PoCL with the results numpy gives.
"""
import glob
import os
import shutil

from crisptest import *

ORDER = os.path.join(REPO, "tests", "e2e", "order.crisp")
SHAKE = os.path.join(REPO, "tests", "e2e", "shake.crisp")


def fresh(name):
    d = out_dir(name)
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return d


def run_scale(prog):
    a = np.random.rand(64).astype(np.float32)
    ref = 3.0 * (2.0 * a + 0.5)
    prog.run("scale_all", a, 3.0)
    assert_close(a, ref)


@case
def tree_shaking_keeps_what_kernels_use():
    prog = compile(SHAKE, flags=["--tree-shaking"])
    check("unused function left out", "never_called" not in prog.source)
    check("unused const-vec left out", "unused_table" not in prog.source)
    a = np.random.rand(50).astype(np.float32)
    ref = a + 1.0 + (np.arange(50) & 3).astype(np.float32)
    prog.run("shift_all", a)
    assert_close(a, ref)
    full = compile(SHAKE)
    check("without the flag everything is emitted", "never_called" in full.source)


@case
def single_pass_wants_definitions_first():
    status, out, err = crisp("--single-pass", ORDER)
    assert_equal(status, 1)
    check("twice", "order.crisp:12:16: error[E1510]: --single-pass: `twice` is used before its definition" in err, err)
    check("+bias+", "error[E1510]: --single-pass: `+bias+` is used before its definition" in err, err)
    check("where defined", "order.crisp:16:1: note: `twice` is defined here" in err, err)
    # multi-pass (the default) takes any order
    run_scale(compile(ORDER))


@case
def no_inference_wants_declared_types():
    status, out, err = crisp("--no-inference", ORDER)
    assert_equal(status, 1)
    for name in ("v", "w", "two", "n"):
        check(name, "error[E1511]: `%s` has no declared type, and --no-inference is on" % name in err, err)
    check("a macro's own variables are not the user's to type", "`i` has no declared type" not in err, err)


@case
def re_output_is_single_pass_and_typed():
    d = fresh("re")
    status, out, err = crisp("--re-output-crisp=" + d, "--output-dir", fresh("re-cl"), "--transpile-to=oclc", ORDER)
    check("re-output", status == 0, err)
    text = open(os.path.join(d, "order.crisp")).read()
    check("types written out", "(v:float (~ A i))" in text and "(w:float (twice v))" in text
          and "(two:float 2.0)" in text and "(n:int 3)" in text, text)
    check("opt-ins removed", "declaim" not in text and "check-coalesce" not in text, text)
    check("comments kept", ";; a helper, defined after its first use" in text, text)
    check("definitions first", text.index("(def-function twice") < text.index("(def-kernel scale_all")
          and text.index("(def-const +bias+") < text.index("(def-kernel scale_all"), text)
    # the rewritten file passes both strict flags and computes the same
    run_scale(compile(os.path.join(d, "order.crisp"), flags=["--single-pass", "--no-inference"]))
    status, out, err = crisp("--re-output-crisp=" + os.path.dirname(ORDER), ORDER)
    check("never over the input", status == 2 and "would overwrite the input" in err, err)


@case
def re_output_every_example():
    """Every example, rewritten, still compiles to the same OpenCL C."""
    d = fresh("re-examples")
    for ex in sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp"))):
        base = os.path.splitext(os.path.basename(ex))[0]
        a, b = fresh("re-a/" + base), fresh("re-b/" + base)
        status, out, err = crisp("--re-output-crisp=" + d, "--transpile-to=oclc", "--output-dir", a, ex)
        check("%s re-output" % base, status == 0, err)
        status, out, err = crisp("--single-pass", "--transpile-to=oclc", "--output-dir", b, os.path.join(d, base + ".crisp"))
        check("%s rewritten compiles --single-pass" % base, status == 0, err)
        strip = lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("/*"))  # noqa: E731
        first = strip(open(os.path.join(a, base + ".cl")).read())
        again = strip(open(os.path.join(b, base + ".cl")).read())
        check("%s same OpenCL C" % base, sorted(first.splitlines()) == sorted(again.splitlines()))


@case
def skip_c_t_checks():
    src = os.path.join(REPO, "tests", "e2e", "unsafe", "unsafe.crisp")  # not in tests/e2e/*.crisp: it is invalid without the flag
    status, out, err = crisp(src)
    check("checked by default", status == 1 and "E0210" in err and "E0410" in err and "E0503" in err, err)
    prog = compile(src, flags=["--skip-c-t-checks"])
    a = np.arange(16, dtype=np.float32)
    out_ = np.zeros(16, np.float32)
    prog.run("unsafe", a, out_)
    assert_close(out_, 2.0 * a + 1.0)
