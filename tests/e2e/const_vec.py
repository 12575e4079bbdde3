"""tests/e2e/const_vec.crisp: def-const-vec (spec "def-const-vec")."""
from crisptest import *

prog = compile("tests/e2e/const_vec.crisp")

mask32 = np.arange(32, dtype=np.uint32)
mask8 = mask32[::4] * 2
squares_halves = np.zeros(12, np.float32)
squares_halves[0::2] = np.arange(6) ** 2
squares_halves[1::2] = np.arange(6) * 0.5
wrapped = np.array([300 % 256, 255, 7, 255], np.uint32)


@case
def emitted_as_constant_arrays():
    src = prog.source
    check("__constant arrays", "__constant uchar image_mask_32[32] = {" in src, src[:400])
    check("mask-8 emitted", "__constant uchar image_mask_8[8] = {" in src)
    check("float table emitted", "__constant float squares_halves[12] = {" in src)
    check("source comment", "/* def-const-vec +image-mask-32+  (const_vec.crisp:8) */" in src)


@case
def kernel_reads_const_vecs():
    out = np.zeros(44, np.uint32)
    floats = np.zeros(32, np.float32)
    prog.run("const_vec", out, floats, global_size=32)
    assert_equal(out[:32], mask32, name="mask32")
    assert_equal(out[32:40], mask8, name="mask8 via function")
    assert_equal(out[40:44], wrapped, name="wrapped")
    assert_close(floats[:12], squares_halves, name="squares and halves")


@case
def kernel_combines_const_vecs():
    out = np.zeros(32, np.uint32)
    prog.run("combine", out, global_size=32)
    assert_equal(out, mask32 + 100 * mask8[np.arange(32) // 4])


@case
def metadata_and_hoists_ignore_const_vecs():
    import json
    import os
    d = out_dir("hoist")
    status, _, err = crisp("tests/e2e/const_vec.crisp", "--metadata", "--hoist=OpenCL", "--hoist=PyOpenCL",
                           "--output-dir=" + d)
    check("compiles with --metadata and hoists", status == 0, err)
    with open(os.path.join(d, "const_vec.metacrisp")) as f:
        meta = json.load(f)
    k = [k for k in meta["kernels"] if k["name"] == "const_vec"][0]
    names = sorted({a["name"] for a in k["args"]})
    check("const-vecs are not kernel arguments", names == ["Floats", "Out"], str(names))
    with open(os.path.join(d, "const_vec.cl")) as f:
        check("hoisted source has the arrays", "__constant float squares_halves[12]" in f.read())
