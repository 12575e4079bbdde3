"""The in-memory compilation API (include/crisp.h, src/api.c) from C and
from Python (python/crisp, docs/api.md).

C: a program that includes only the installed header builds against
build/libcrisp.so and build/libcrisp.a and prints the same OpenCL C as the
command line; both libraries export the API and nothing else (nm).
Python: crisp.compile's OpenCL C and metadata run on PoCL against numpy;
errors raise crisp.CompileError with file, line, column and code; Context
covers flags, overriding strings, status codes, the tree-shake cache and
the IR targets; `pip install` of the repository gives a working module.
"""
import os
import re
import shutil
import subprocess
import sys

from crisptest import *

sys.path.insert(0, os.path.join(REPO, "python"))
import crisp as crisp_api  # noqa: E402  (the package under test, over build/libcrisp.so)

BUILD = os.path.join(REPO, "build")
HEADER = os.path.join(REPO, "include", "crisp.h")
VADD = os.path.join(REPO, "examples", "vector_add.crisp")
CC = os.environ.get("CC", "cc")


def api_names():
    """Every function include/crisp.h declares."""
    text = open(HEADER).read()
    return sorted(set(re.findall(r"CRISP_API\s+[^;(]*?\b(crisp_\w+)\s*\(", text)))


def sh(*args, **kw):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    return r.returncode, r.stdout, r.stderr


@case
def header_declares_the_spec_api():
    names = api_names()
    for n in ("new_context", "set_tree_shake_directory", "add_input_file", "add_input_string", "set_flags",
              "get_flags", "compile", "compile_string", "get_binary", "get_compilation_error_code", "get_messages",
              "get_metadata", "destroy_context"):
        check("crisp_" + n, "crisp_" + n in names, names)
    # self-contained: compiles alone, as C and as C++
    d = out_dir("header")
    for lang, compiler in (("c", CC), ("c++", "g++")):
        status, out, err = sh(compiler, "-x", lang, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-include", HEADER,
                              "/dev/null")
        check("header alone as %s" % lang, status == 0, err)
    check("no internal types", "CrispOptions" not in open(HEADER).read())


def exported(lib, dynamic):
    args = ["nm", "-g", "--defined-only"] + (["-D"] if dynamic else []) + [lib]
    status, out, err = sh(*args)
    assert status == 0, err
    return sorted({line.split()[-1] for line in out.splitlines() if re.match(r"^[0-9a-f]+ [A-Z] ", line)})


@case
def libraries_export_only_the_api():
    names = api_names()
    assert_equal(exported(os.path.join(BUILD, "libcrisp.so"), True), names)
    assert_equal(exported(os.path.join(BUILD, "libcrisp.a"), False), names)


@case
def c_program_against_both_libraries():
    d = out_dir("c")
    status, expect_out, err = crisp("--transpile-to=oclc", "--output-dir", d, VADD)
    expect = open(os.path.join(d, "vector_add.cl")).read()
    src = os.path.join(REPO, "tests", "api", "api_demo.c")
    builds = {
        "shared": [CC, "-std=c99", "-Wall", "-Werror", "-I" + os.path.join(REPO, "include"), src, "-L" + BUILD, "-lcrisp",
                   "-Wl,-rpath," + BUILD, "-o", os.path.join(d, "demo_shared")],
        "static": [CC, "-std=c99", "-Wall", "-Werror", "-I" + os.path.join(REPO, "include"), src,
                   os.path.join(BUILD, "libcrisp.a"), "-lm", "-lpthread", "-o", os.path.join(d, "demo_static")],
    }
    for kind, cmd in builds.items():
        status, out, err = sh(*cmd)
        check("%s build" % kind, status == 0, err)
        status, out, err = sh(os.path.join(d, "demo_" + kind), VADD, cwd=REPO)
        check("%s run" % kind, status == 0, err)
        check("%s: the command line's OpenCL C" % kind, out == expect)
        check("%s: compatible" % kind, "bytes of OpenCL C, compatible" in err, err)
        bad = os.path.join(d, "bad.crisp")
        with open(bad, "w") as f:
            f.write("(def-kernel k (a:int)\n  (let ((x (+ a 1.0))) x))\n")
        status, out, err = sh(os.path.join(d, "demo_" + kind), bad)
        check("%s: errors" % kind, status == 1 and "bad.crisp:2:17: error[E0304]" in err and "error code 304" in err, err)


@case
def python_compile_runs_on_pocl():
    source = open(VADD).read()
    r = crisp_api.compile(source, name="vector_add.crisp")
    check("OpenCL C", "__kernel void vector_add(" in r.opencl_c)
    assert_equal([k["name"] for k in r.metadata["kernels"]], ["vector_add", "vector_add_stride", "vector_add_vstride"])
    assert_equal(r.diagnostics, [])
    prog = Program(r.opencl_c, r.metadata, name="crisp.compile")
    a, b = np.random.rand(300).astype(np.float32), np.random.rand(300).astype(np.float32)
    c = np.zeros(300, np.float32)
    prog.run("vector_add_stride", a, b, c, global_size=64)
    assert_close(c, a + b)
    code, meta, diags = r  # unpacks
    check("unpack", code == r.opencl_c and meta is r.metadata and diags == [])
    # flags: -D and --debug-output reach the kernel
    params = open(os.path.join(REPO, "tests", "e2e", "params.crisp")).read()
    r7 = crisp_api.compile(params, flags="-DMAX_INDEX=7")
    check("-D applied", "7UL" in r7.opencl_c)
    r8 = crisp_api.compile(params, flags=["-DMAX_INDEX=8", "--debug-output"])
    check("list of flags", "8UL" in r8.opencl_c and r8.metadata["debug_output"] is True)


@case
def python_errors_carry_their_place():
    try:
        crisp_api.compile("(def-kernel k (a:int)\n  (let ((x (+ a 1.0))) x))\n", name="bad.crisp")
    except crisp_api.CompileError as e:
        assert_equal((e.file, e.line, e.column, e.code), ("bad.crisp", 2, 17, "E0304"))
        check("message", "float literal" in e.message, e.message)
        assert_equal(e.error_code, 304)
        check("excerpt in the text", "    2 |   (let ((x (+ a 1.0))) x))" in e.messages, e.messages)
    else:
        raise AssertionError("no CompileError")
    try:
        crisp_api.compile("(def-kernel k () 1)", flags="--bogus")
    except crisp_api.CompileError as e:
        check("bad flag", e.file is None and e.error_code == 2 and "unknown option `--bogus`" in e.message, str(e))
    else:
        raise AssertionError("no CompileError for a bad flag")
    # warnings and notes are parsed too
    d = crisp_api.parse_messages("a.crisp:3:4: warning[W0302]: unknown declaration\n    3 | (x)\n      | ^\n"
                                 "a.crisp:1:1: note: in expansion of macro `m`\ncrisp: error[E1501]: no tool\n")
    assert_equal([(x.file, x.line, x.column, x.severity, x.code) for x in d],
                 [("a.crisp", 3, 4, "warning", "W0302"), (None, None, None, "error", "E1501")])
    assert_equal(len(d[0].notes), 1)
    try:
        crisp_api.Context("gfx90a")
    except ValueError:
        pass
    else:
        raise AssertionError("unknown target accepted")


@case
def python_context_status_and_overrides():
    with crisp_api.Context() as ctx:
        ctx.add_input_file(os.path.join(REPO, "tests", "e2e", "shake.crisp"))
        ctx.set_flags("--tree-shaking")
        assert_equal(ctx.get_flags(), "--tree-shaking")
        first = ctx.compile()
        assert_equal(first.status, crisp_api.SUCCESS_COMPATIBLE)
        check("shaken", "never_called" not in first.opencl_c)
        # a string overriding add-one: same kernel arguments, compatible
        again = ctx.compile("(def-function add-one (x:float) (declare (return-type float)) (+ x 2.0))")
        assert_equal(again.status, crisp_api.SUCCESS_COMPATIBLE)
        prog = Program(again.opencl_c, again.metadata)
        a = np.random.rand(40).astype(np.float32)
        ref = a + 2.0 + (np.arange(40) & 3).astype(np.float32)
        prog.run("shift_all", a)
        assert_close(a, ref)
        # a new argument: breaking
        brk = ctx.compile("(def-kernel shift_all (A:(vector-type float :global :read-write) s:float)\n"
                          "  (declare (global-size :derive-from A) (use +offsets+))\n"
                          "  (in-each-thread (i) (set! (~ A i) (* s (shifted (~ A i) i)))))")
        assert_equal(brk.status, crisp_api.SUCCESS_BREAKING_CHANGE)
        check("breaking_change", brk.breaking_change)


@case
def python_tree_shake_directory():
    d = out_dir("cache")
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    status, out, err = crisp("--tree-shaking", "-DUNUSED=3", "--ir-target=spv", "--output-dir", d,
                             os.path.join(REPO, "tests", "e2e", "shake.crisp"))
    check("cache written", status == 0, err)
    with crisp_api.Context("spv") as ctx:
        ctx.set_tree_shake_directory(d)
        assert_equal(ctx.get_flags(), "-DUNUSED=3 --tree-shaking")
        ctx.add_input_file(os.path.join(REPO, "tests", "e2e", "shake.crisp"))
        r = ctx.compile()
        assert_equal(r.status, crisp_api.SUCCESS_COMPATIBLE)
        assert_equal(r.binary, open(os.path.join(d, "shake.spv"), "rb").read())
        # the kernel changes its arguments: breaking against the record
        brk = ctx.compile("(def-kernel shift_all (A:(vector-type float :global :read-write) &out B:(vector-type float :global :write-only))\n"
                          "  (declare (global-size :derive-from A) (use +offsets+))\n"
                          "  (in-each-thread (i) (set! (~ B i) (shifted (~ A i) i))))")
        assert_equal(brk.status, crisp_api.SUCCESS_BREAKING_CHANGE)
    with crisp_api.Context() as ctx:
        try:
            ctx.set_tree_shake_directory(out_dir("not-a-cache"))
        except crisp_api.CompileError as e:
            check("no record", "holds no record" in e.message, e.message)
        else:
            raise AssertionError("an empty directory accepted")


@case
def python_ir_targets():
    src = open(VADD).read()
    spv = crisp_api.compile(src, target="spv")
    check("SPIR-V magic", spv.binary[:4] == b"\x03\x02\x23\x07" and spv.opencl_c is None)
    ptx = crisp_api.compile(src, target="ptx")
    check("PTX", b".entry vector_add(" in ptx.binary)
    if shutil.which("ptxas") or os.environ.get("CUDA_HOME"):
        cubin = crisp_api.compile(src, target="sm_90")
        check("cubin", cubin.binary[:4] == b"\x7fELF")


@case
def pip_install():
    """pip install of the repository into a fresh virtual environment."""
    d = os.path.abspath(out_dir("venv"))
    shutil.rmtree(d)
    py = os.environ.get("PY", "/usr/bin/python3")
    status, out, err = sh(py, "-m", "venv", "--system-site-packages", d)
    check("venv", status == 0, err)
    vpy = os.path.join(d, "bin", "python")
    status, out, err = sh(vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index", "-q", REPO)
    check("pip install", status == 0, out + err)
    shutil.rmtree(os.path.join(REPO, "python", "crisp.egg-info"), ignore_errors=True)
    shutil.rmtree(os.path.join(REPO, "build", "lib"), ignore_errors=True)
    shutil.rmtree(os.path.join(REPO, "build", "bdist.linux-x86_64"), ignore_errors=True)
    status, out, err = sh(vpy, "-c", "import crisp, os; r = crisp.compile(open(%r).read()); "
                          "print(os.path.dirname(crisp.__file__)); print(len(r.metadata['kernels']))" % VADD,
                          cwd="/")
    check("import from the venv", status == 0, err)
    where, nk = out.split()
    check("installed copy with its library", where.startswith(d) and os.path.exists(os.path.join(where, "libcrisp.so")), where)
    assert_equal(nk, "3")


@case
def hoist_dynamic_compiles_through_the_api():
    """--hoist-dynamic: the Python hoist compiles the kernel's Crisp in memory
    (crisp.compile) when the package is importable, else uses the OpenCL C
    it embeds."""
    d = out_dir("hoist-dynamic")
    status, out, err = crisp("--hoist=PyOpenCL", "--hoist-dynamic=vector_add", "-DUNUSED=2", "--emit-runtime=" + d,
                             "--output-dir=" + d, VADD)
    check("hoist written", status == 0, err)
    mod = open(os.path.join(d, "vector_add_hoist_PyOpenCL.py")).read()
    check("flags embedded", 'CRISP_FLAGS = "-DUNUSED=2"' in mod, mod[:2000])
    script = ("import numpy as np, vector_add_hoist_PyOpenCL as h\n"
              "k = h.load()\n"
              "a = np.random.rand(77).astype(np.float32); b = np.random.rand(77).astype(np.float32)\n"
              "c = np.zeros(77, np.float32)\n"
              "k.vector_add(a, b, c)\n"
              "print(h.DYNAMIC_ORIGIN, bool(np.allclose(c, a + b)))\n")
    env = dict(os.environ)
    env.setdefault("CRISP_PLATFORM", os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
    py = os.environ.get("PY", "/usr/bin/python3")
    for path, origin in ((d + os.pathsep + os.path.join(REPO, "python"), "crisp.compile"), (d, "CL_SOURCE")):
        env["PYTHONPATH"] = path
        status, out, err = sh(py, "-c", script, env=env, cwd=d)
        check("%s run" % origin, status == 0, err)
        assert_equal(out.strip(), "%s True" % origin)


@case
def readme_python_sample():
    """tests/api/jit_example.py, which the README quotes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    env.setdefault("PYOPENCL_CTX", os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
    py = os.environ.get("PY", "/usr/bin/python3")
    status, out, err = sh(py, os.path.join(REPO, "tests", "api", "jit_example.py"), VADD, env=env)
    check("runs", status == 0, err)
    assert_equal(out.splitlines(), ["<string>:1:28: E0304", "vector_add [1. 2. 3. 4. 5. 6. 7. 8.]"])
