""":constant kernel parameters (tests/e2e/constant_params.crisp) on the
OpenCL devices, and in the PTX (--ir-target=ptx) that the CUDA hoists load:
there a :constant parameter is the device memory the host allocated, so the
PTX reads it, and the def-const-vec passed to the same function, with
ld.global, never ld.const (the constant bank, where no device pointer
points; docs/targets.md)."""
import os
import re
import shutil

from crisptest import *

prog = compile("tests/e2e/constant_params.crisp")
weights = (np.arange(8, dtype=np.int32) + 1) * 100


@case
def emitted_as_crisp_constant():
    src = prog.source
    check("the macro", "#ifdef __NVPTX__\n#define CRISP_CONSTANT __global const\n#else\n#define CRISP_CONSTANT __constant\n#endif"
          in src, src[:600])
    check("the parameter", "__kernel void weigh(CRISP_CONSTANT int *table, ulong table_len," in src)
    check("the table", "CRISP_CONSTANT int weights[8] = {" in src)
    check("the function", "int at_wrapped(CRISP_CONSTANT int *v, ulong v_len, ulong i)" in src)
    check("no bare __constant left", "__constant int" not in src and "__constant float" not in src)


@case
def parameter_and_table_through_one_function():
    table = np.array([3, -1, 4, -1, 5, -9, 2, 6], np.int32)
    out = np.zeros(20, np.int32)
    prog.run("weigh", table, out)
    i = np.arange(20)
    assert_equal(out, table[i & 7] + weights[i & 7])


@case
def parameter_viewed():
    table = np.linspace(-2, 5, 16).astype(np.float32)
    out = np.full(20, 7.0, np.float32)
    prog.run("window", table, 3, out)
    assert_close(out[:13], 2 * table[3:], name="the view")
    assert_close(out[13:], np.full(7, 7.0, np.float32), name="past its end: untouched")


@case
def metadata_says_constant():
    import json
    d = out_dir("constant_params_meta")
    status, _, err = crisp("tests/e2e/constant_params.crisp", "--metadata", "--output-dir=" + d)
    check("compiles", status == 0, err)
    with open(os.path.join(d, "constant_params.metacrisp")) as f:
        meta = json.load(f)
    k = [k for k in meta["kernels"] if k["name"] == "weigh"][0]
    t = [a for a in k["args"] if a["name"] == "table"][0]
    check("the host sees __constant", "__constant" in json.dumps(t) and "CRISP_CONSTANT" not in json.dumps(meta), json.dumps(t))


def ptx_of(src, d):
    status, out, err = crisp(src, "--ir-target=ptx", "--output-dir=" + d)
    if status == 2 and "E1501" in err:      # clang-14 or libclc-14 missing here
        return None, err
    check("crisp --ir-target=ptx " + os.path.basename(src), status == 0, err)
    with open(os.path.join(d, os.path.splitext(os.path.basename(src))[0] + ".ptx")) as f:
        return f.read(), ""


@case
def ptx_reads_global_memory():
    d = out_dir("constant_params_ptx")
    for src in ("tests/e2e/constant_params.crisp", "tests/e2e/vectors.crisp"):
        ptx, why = ptx_of(src, d)
        if ptx is None:
            print("note: no PTX chain here (%s): the PTX is not checked" % why.strip().splitlines()[0])
            return
        check("%s: no ld.const" % src, "ld.const" not in ptx, "\n".join(l for l in ptx.splitlines() if "ld.const" in l))
        check("%s: loads from global memory" % src, re.search(r"ld\.global(\.nc)?\.(u32|b32|f32|s32)", ptx) is not None)
        if src.endswith("constant_params.crisp"):
            check("the table is a .global variable", re.search(r"\.global \.align \d+ \.b8 weights\[32\]", ptx) is not None,
                  "\n".join(l for l in ptx.splitlines() if "weights" in l)[:400])
        ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
        if ptxas:
            import subprocess
            base = os.path.splitext(os.path.basename(src))[0]
            r = subprocess.run([ptxas, "-arch=sm_90", os.path.join(d, base + ".ptx"), "-o", os.path.join(d, base + ".cubin")],
                               capture_output=True, text=True, timeout=300)
            check("ptxas assembles %s" % base, r.returncode == 0, r.stderr)


@case
def const_vec_alone_stays_constant():
    # no kernel takes a :constant vector: the tables stay __constant (the constant bank on CUDA too)
    src = compile("tests/e2e/const_vec.crisp").source
    check("no macro", "CRISP_CONSTANT" not in src)
    check("__constant tables", "__constant uchar image_mask_32[32] = {" in src)

