"""hoist_c_api.py - the C hoist's options, outputs and library API.

The variants (--hoist-unified-memory with its fallback on oclgrind,
--hoist-dynamic, --debug-output), the demo's device selection and error
messages, how outputs are written (the shim beside every hoist, identical
files left alone, all or nothing), and the library tests:
tests/hoist/tcc_driver.c compiles a generated hoist plus a small caller
(tests/hoist/*_caller.c) in memory with libtcc and runs it on real data -
the caller's own context and queue, KERNEL_enqueue on its buffers, chained
kernels, KERNEL_run on host arrays, and the errors a caller gets instead of
an out-of-bounds kernel; and the complete example of docs/hoisting-c.md.

    PYTHONPATH=tests /usr/bin/python3 tests/e2e/hoist_c_api.py [CASE...]

Files go to tests/out/e2e/hoist_c_api/.
"""
import os
import shutil

from crisptest import *
from _hoist_c_common import *

@case
def identical_outputs_are_left_alone():
    d, c_file = hoist(program("vector_add"), "identical")
    names = sorted(os.listdir(d))
    old = 1_000_000_000
    for f in names:
        os.utime(os.path.join(d, f), (old, old))
    with open(os.path.join(d, "vector_add.cl"), "a") as f:
        f.write("/* changed */\n")
    status, out, err = crisp("--hoist=OpenCL", "--output-dir=" + d, os.path.relpath(program("vector_add"), REPO))
    check("crisp ran", status == 0, err)
    kept = [f for f in names if os.path.getmtime(os.path.join(d, f)) == old]
    check("identical files not rewritten", sorted(kept) == sorted(f for f in names if f != "vector_add.cl"), str(kept))
    check("the changed one rewritten", "changed" not in open(os.path.join(d, "vector_add.cl")).read())
    check("no temporaries left", sorted(os.listdir(d)) == names, str(os.listdir(d)))


@case
def outputs_are_all_or_nothing():
    d = out_dir("all-or-nothing")
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    os.mkdir(os.path.join(d, "crisp_runtime.h"))           # cannot be replaced by a file
    status, out, err = crisp("--hoist=OpenCL", "--output-dir=" + d, program("vector_add"))
    check("exit 2", status == 2, "exit %d" % status)
    check("says which file", "cannot write" in err and "crisp_runtime.h" in err, err)
    check("nothing else written", os.listdir(d) == ["crisp_runtime.h"], str(os.listdir(d)))


# ----------------------------------------------------------------------
# Variants

@case
def unified_memory_uses_svm_on_pocl():
    d, c_file = hoist(program("side_channels"), "unified", "--hoist-unified-memory")
    text = open(c_file).read()
    check("CrispMem fields", "CrispMem A;" in open(c_file[:-2] + ".h").read())
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    out, _ = run_demo(os.path.join(d, "demo-gcc"), d)
    check("SVM on PoCL", "memory: shared virtual memory" in out, out.splitlines()[1])
    out, _ = run_demo(os.path.join(d, "demo-tcc"), d)
    check("SVM with tcc", "memory: shared virtual memory" in out, out.splitlines()[1])


@case
def unified_memory_falls_back_without_svm():
    # oclgrind is an OpenCL 1.2 device: no SVM
    d, c_file = hoist(program("vector_add"), "unified-fallback", "--hoist-unified-memory")
    compile_c("gcc", c_file, os.path.join(d, "demo"))
    out = oclgrind(os.path.join(d, "demo"), d)
    check("fallback message", "has no shared virtual memory" in out and "falling back to buffers" in out, out)


@case
def dynamic_all_kernels_needs_no_cl_file():
    src = program("vector_add")
    d, c_file = hoist(src, "dynamic-all", "--hoist-dynamic=vector_add", "--hoist-dynamic=vector_add_stride",
                      "--hoist-dynamic=vector_add_vstride")
    text = open(c_file).read()
    one = text[text.index("static const char vector_add_source[]"):text.index("static const char vector_add_stride_source[]")]
    check("only its own kernel embedded", "__kernel void vector_add(" in one and "vector_add_stride(" not in one)
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    empty = out_dir("dynamic-all", "elsewhere")
    out, _ = run_demo(os.path.join(d, "demo-gcc"), empty)
    check("all ran", kernels_ran(out) == 3)


@case
def dynamic_some_kernels():
    d, c_file = hoist(program("atomics"), "dynamic-some", "--hoist-dynamic=float_sum",
                      "--hoist-dynamic=saturating_count")
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    out, _ = run_demo(os.path.join(d, "demo-tcc"), d)
    check("8 kernels", kernels_ran(out) == 8)
    # the embedded program must build by itself: its support functions came along
    check("bump() embedded with saturating_count",
          "int bump(int x)" in open(c_file).read().split("saturating_count_source[]")[1].split(";\n")[0])


@case
def debug_output_decoded_by_the_demo():
    d, c_file = hoist(program("debug"), "debug-output", "--debug-output")
    text = open(c_file).read()
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    out, _ = run_demo(os.path.join(d, "demo-gcc"), d)
    check("site table", "const CrispDebugSite debug_debug_sites[]" in text and "/* site 4 */" in text)
    check("decoded record", "tests/e2e/debug.crisp:13: [thread 0] reached the kernel with 1024 elements "
                            "and a float 2.5" in out, out)
    # flood logs from every thread it runs (no declaration: the demo launches CRISP_DEMO_LENGTH)
    check("flood record", "tests/e2e/debug.crisp:23: [thread 0] thread 0" in out, out)


@case
def side_channels_with_debug_output():
    d, c_file = hoist(program("side_channels"), "side-debug", "--debug-output", "--hoist-unified-memory")
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    out, _ = run_demo(os.path.join(d, "demo-gcc"), d)
    check("scratch comment printed", "half of size of A parameter" in out, out)
    check("result comment printed", "Gamma Squad needs this result" in out, out)
    check("debug log read back", out.count("debug log:") == 3, out)


# ----------------------------------------------------------------------
# The demo's device selection and error messages

@case
def device_chosen_by_environment():
    d, exe, _ = built("vector_add")
    out, _ = run_demo(exe, d, env={"CRISP_PLATFORM": "portable computing", "CRISP_DEVICE": "0"})
    check("platform by case-insensitive substring, device by index", "Portable Computing Language" in out)
    status, out, err = sh([exe], cwd=d, env={"CRISP_PLATFORM": "", "CRISP_DEVICE": "no-such-device"})
    check("exit 1", status == 1, "exit %d" % status)
    check("says what is installed", "no OpenCL device matches" in err and "Portable Computing Language" in err, err)


@case
def missing_cl_file_is_explained():
    d, exe, _ = built("vector_add")
    empty = out_dir("no-cl-here")
    shutil.copy(exe, os.path.join(empty, "demo"))
    status, out, err = sh([os.path.join(empty, "demo")], cwd=empty)
    check("exit 1", status == 1, "exit %d" % status)
    check("message", "cannot find vector_add.cl" in err and "first argument" in err, err)


@case
def build_failure_prints_the_build_log():
    d, exe, _ = built("vector_add")
    bad = os.path.join(out_dir("bad-cl"), "broken.cl")
    with open(os.path.join(d, "vector_add.cl")) as f, open(bad, "w") as g:
        g.write(f.read() + "\n__kernel void broken(void) { undefined_thing = 1; }\n")
    status, out, err = sh([exe, bad], cwd=d)
    check("exit 1", status == 1, "exit %d" % status)
    check("build log", "build log of" in err and "undefined_thing" in err, err)
    check("one message, from the demo", err.count("crisp:") == 1, err)
    check("status name", "CL_BUILD_PROGRAM_FAILURE" in err, err)


# ----------------------------------------------------------------------
# Host glue: libtcc compiles a hoist plus a caller in memory and runs it

def tcc_driver():
    exe = os.path.join(out_dir("driver"), "tcc_driver")
    src = os.path.join(HOIST_TESTS, "tcc_driver.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        status, out, err = sh(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", src, "-ltcc", "-ldl", "-o", exe])
        if status != 0:
            raise AssertionError("building tcc_driver failed:\n" + err)
    return exe


def libtcc_run(caller, include_dir, *args):
    status, out, err = sh([tcc_driver(), "-I", include_dir, os.path.join(HOIST_TESTS, caller), "--"] + list(args))
    fails = [l for l in out.splitlines() if not l.startswith("ok")]
    if status != 0 or fails or not out.strip():
        raise AssertionError("%s exited %d:\n%s" % (caller, status, (out + err).strip()))
    return out


@case
def libtcc_vector_add_api():
    d, _, _ = built("vector_add")
    out = libtcc_run("vector_add_caller.c", d, os.path.join(d, "vector_add.cl"))
    for what in ("the caller's context and queue", "chained", "a B shorter than A is an error",
                 "a buffer of another context is an error", "vector_add_run on host arrays",
                 "vector_add_run on an out-of-order queue"):
        check(what, what in out, out)


@case
def libtcc_side_channel_api():
    d, _, _ = built("side_channels")
    out = libtcc_run("side_channels_caller.c", d, os.path.join(d, "side_channels.cl"))
    check("scratch checked", "ok scratch pool of 1280 bytes" in out, out)
    check("results through KERNEL_run", "ok result vectors malloc'ed for the caller" in out, out)


@case
def libtcc_struct_layout():
    d, _, _ = built("structs")
    libtcc_run("structs_caller.c", d, os.path.join(d, "structs.cl"))


@case
def libtcc_unified_memory_api():
    d, _ = hoist(program("vector_add"), "unified-api", "--hoist-unified-memory")
    out = libtcc_run("unified_caller.c", d, os.path.join(d, "vector_add.cl"))
    check("both paths", "with buffers" in out and "shared virtual memory" in out, out)


@case
def libtcc_runtime_shim():
    out = libtcc_run("runtime_caller.c", os.path.join(REPO, "runtime-shim"))
    check("decoder checked", "ok records read as in docs/abi.md" in out, out)


DOC_MAIN = r"""
int main(void)
{
    CrispContext own;
    float ha[100], hb[100], hc[100], c2[100];
    cl_int err;
    cl_mem a, b, c, t;
    int i, status;
    for (i = 0; i < 100; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(3 * i);
    }
    if (crisp_open(&own, 0) != CL_SUCCESS) return 2;
    a = clCreateBuffer(own.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ha, ha, &err);
    b = clCreateBuffer(own.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hb, hb, &err);
    c = clCreateBuffer(own.context, CL_MEM_READ_WRITE, sizeof hb, NULL, &err);
    t = clCreateBuffer(own.context, CL_MEM_READ_WRITE, sizeof hb, NULL, &err);
    status = add_twice(own.context, own.queue, a, b, c, t, 100, ha, hb, hc);
    clEnqueueReadBuffer(own.queue, c, CL_TRUE, 0, sizeof c2, c2, 0, NULL, NULL);
    for (i = 0; i < 100; i++)
        if (hc[i] != ha[i] + hb[i] || c2[i] != 2 * (ha[i] + hb[i])) status = 1;
    puts(status ? "wrong" : "right");
    return status;
}
"""


@case
def the_example_of_the_docs_runs():
    # docs/hoisting-c.md "Using it from your own program", as written
    import re
    text = open(os.path.join(REPO, "docs", "hoisting-c.md")).read()
    code = re.search(r'```c\n(#include "vector_add_hoist_OpenCL.h".*?)```', text, re.S)
    check("the example is in the docs", code is not None)
    d, _, _ = built("vector_add")
    c_file = os.path.join(d, "vector_add_hoist_OpenCL.c")
    src = os.path.join(d, "doc_example.c")
    with open(src, "w") as f:
        f.write(code.group(1) + DOC_MAIN)
    exe = os.path.join(d, "doc_example")
    status, out, err = sh(COMPILERS["gcc"] + ["-Wno-missing-prototypes", "-I", d, src, c_file, "-lOpenCL", "-o", exe])
    check("compiles", status == 0 and not err.strip(), err)
    status, out, err = sh([exe], cwd=d)
    check("runs: the caller's context, chained kernels, host arrays", status == 0 and out.strip() == "right", out + err)
