"""The command line (src/main.c, src/options.c): options as users of GNU
tools expect them.  `--opt=VALUE` and `--opt VALUE`, unique prefixes,
`-D NAME=V` and `-DNAME=V`, `-o FILE` (its extension picks the output),
`-` for standard input, `--` before an input that starts with `-`, the
spec's spellings `--IR-target` / `--binary-GPU-target`, "did you mean" for
unknown options, the help generated from the option table.  Each output is
then built and run on PoCL where it is OpenCL C.
"""
import os
import shutil
import subprocess

from crisptest import *

CRISP = os.path.join(REPO, "crisp")
VADD = os.path.join(REPO, "examples", "vector_add.crisp")


def fresh(name):
    d = out_dir(name)
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return d


def run(args, stdin=None, cwd=None):
    r = subprocess.run([CRISP] + list(args), input=stdin, cwd=cwd or REPO, capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def runs_vector_add(cl_path, meta_path):
    prog = load_program(cl_path, meta_path)
    a, b = np.random.rand(100).astype(np.float32), np.random.rand(100).astype(np.float32)
    c = np.zeros(100, np.float32)
    prog.run("vector_add", a, b, c)
    assert_close(c, a + b)


@case
def value_after_a_space():
    d = fresh("space")
    status, out, err = run(["--transpile-to", "oclc", "--metadata", "--output-dir", d, "--output-base", "va", VADD])
    assert_equal((status, err), (0, ""))
    runs_vector_add(os.path.join(d, "va.cl"), os.path.join(d, "va.metacrisp"))


@case
def unique_prefixes_and_spec_spellings():
    d = fresh("prefix")
    status, out, err = run(["--transpile=oclc", "--meta", "--output-d=" + d, "--IR-Target=spv", VADD])
    assert_equal((status, err), (0, ""))
    assert_equal(sorted(os.listdir(d)), ["vector_add.cl", "vector_add.metacrisp", "vector_add.spv"])


@case
def dash_o_picks_directory_base_and_output():
    d = fresh("dash-o")
    for name, produced in (("k.cl", ["k.cl"]), ("m.metacrisp", ["m.metacrisp"]), ("s.spv", ["s.spv"]),
                           ("p.ptx", ["p.ptx"]), ("plain", ["plain.cl"])):
        sub = fresh("dash-o/" + name)
        status, out, err = run(["-o", os.path.join(sub, name), VADD])
        check("-o %s status" % name, status == 0, err)
        assert_equal(sorted(os.listdir(sub)), produced)
    # with an output option, -o only names the files
    sub = fresh("dash-o/both")
    status, out, err = run(["--metadata", "--transpile-to=oclc", "-o", os.path.join(sub, "both.cl"), VADD])
    assert_equal(sorted(os.listdir(sub)), ["both.cl", "both.metacrisp"])
    runs_vector_add(os.path.join(sub, "both.cl"), os.path.join(sub, "both.metacrisp"))
    status, out, err = run(["-o", os.path.join(d, "x.cl"), "--output-dir", d, VADD])
    check("-o with --output-dir", status == 2 and "cannot be combined with --output-dir" in err, err)
    status, out, err = run(["-o", os.path.join(d, "x.cubin"), VADD])
    check("-o .cubin", status == 2 and "name the GPU with --binary-gpu-target" in err, err)


@case
def standard_input_and_double_dash():
    d = fresh("stdin")
    src = open(VADD).read()
    status, out, err = run(["--transpile-to=oclc", "--metadata", "--output-dir", d, "-"], stdin=src)
    assert_equal((status, err), (0, ""))
    assert_equal(sorted(os.listdir(d)), ["stdin.cl", "stdin.metacrisp"])
    runs_vector_add(os.path.join(d, "stdin.cl"), os.path.join(d, "stdin.metacrisp"))
    status, out, err = run(["-"], stdin="(def-kernel k (a:int)\n  (+ a 1.0))\n")
    check("stdin diagnostics are named <stdin>", status == 1 and err.startswith("<stdin>:2:8: error"), err)
    # an input whose name starts with '-'
    shutil.copy(VADD, os.path.join(d, "-odd.crisp"))
    status, out, err = run(["--transpile-to=oclc", "--output-dir=.", "--", "-odd.crisp"], cwd=d)
    assert_equal((status, err), (0, ""))
    check("-odd.cl written", os.path.exists(os.path.join(d, "-odd.cl")))
    status, out, err = run(["--transpile-to=oclc", "-odd.crisp"], cwd=d)
    check("without --: an option", status == 2 and "unknown option `-o`" not in err and "error" in err, err)


@case
def defines_both_ways():
    d = fresh("defines")
    src = os.path.join(REPO, "tests", "e2e", "params.crisp")
    for args in (["-D", "MAX_INDEX=7"], ["-DMAX_INDEX=7"]):
        status, out, err = run(["--transpile-to=oclc", "--output-dir", d] + args + [src])
        check("%s" % args, status == 0, err)
        check("%s applied" % args, "7UL" in open(os.path.join(d, "params.cl")).read())


@case
def did_you_mean():
    for bad, hint in (("--metdata", "did you mean `--metadata`?"),
                      ("--output-dirr=x", "did you mean `--output-dir=...`?"),
                      ("--no-infer", None),  # a unique prefix: accepted
                      ("--hoist-dinamic=k", "did you mean `--hoist-dynamic=...`?"),
                      ("--xyzzy", None)):
        status, out, err = run([bad, VADD])
        if bad == "--no-infer":
            check("prefix accepted", status == 0, err)
            continue
        check("%s rejected" % bad, status == 2 and "crisp: error: unknown option `%s`" % bad in err, err)
        if hint:
            check("%s hint" % bad, hint in err, err)
        else:
            check("%s: no far-fetched hint" % bad, "did you mean" not in err, err)
    status, out, err = run(["--output", "x", VADD])
    check("ambiguous", status == 2 and "ambiguous option `--output` (`--output-dir` or `--output-base`?)" in err, err)
    status, out, err = run(["--hoist"])
    check("missing value", status == 2 and "option `--hoist` needs a value (--hoist=ID)" in err, err)
    status, out, err = run(["--metadata=yes", VADD])
    check("value not taken", status == 2 and "--metadata" in err, err)


@case
def help_lists_every_option():
    status, out, err = run(["--help"])
    assert_equal(status, 0)
    for opt in ("--transpile-to=oclc", "--ir-target=ID", "--binary-gpu-target=ID", "--fat-binary", "--metadata",
                "--output-dir=DIR", "--output-base=NAME", "-o FILE", "--hoist=ID", "--hoist-unified-memory",
                "--hoist-dynamic=KERNEL", "--emit-runtime=DIR", "-DNAME=VALUE", "--debug-output",
                "--tree-shaking", "--tree-shake-dir=DIR", "--skip-c-t-checks", "--single-pass", "--no-inference",
                "--re-output-crisp=DIR", "--dump=STAGE", "--macroexpand", "--version", "-h, --help",
                "--diagnostics-format=text|json", "-Werror", "-w", "-fmax-errors=N", "--explain=CODE"):
        check("help has %s" % opt, opt in out, out)
    check("help fits 80 columns", max(len(line) for line in out.splitlines()) <= 80)
    status, out, err = run(["--version"])
    check("version", status == 0 and out.startswith("crisp "), out)
