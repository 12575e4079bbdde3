"""tests/e2e/const_vec.crisp: def-const-vec (spec "def-const-vec")."""
from crisptest import *

prog = compile("tests/e2e/const_vec.crisp")

mask32 = np.arange(32, dtype=np.uint32)
every4th = mask32[::4] * 2
# the spec's second example: 4 steps copy 2 elements from big-view (offset
# 0, 8, 16, 24 in mask32) into small-view (offset 0, 2, 4, 6)
mask8 = np.concatenate([mask32[o:o + 2] for o in (0, 8, 16, 24)])
assert list(mask8) == [0, 1, 8, 9, 16, 17, 24, 25]
# +view-of-view+: v = 1.5 * i, v[2] = -1, v[0:4] = v[2:6], result v[2:10]
vv = np.arange(10, dtype=np.float32) * np.float32(1.5)
vv[2] = -1
vv[0:4] = vv[2:6].copy()
view_of_view = vv[2:10]
converted = np.array([20, 21, 22, 11.5], np.float32)
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
    assert_equal(out[32:40], every4th, name="every-4th via function")
    assert_equal(out[40:44], wrapped, name="wrapped")
    assert_close(floats[:12], squares_halves, name="squares and halves")


@case
def kernel_combines_const_vecs():
    out = np.zeros(32, np.uint32)
    prog.run("combine", out, global_size=32)
    assert_equal(out, mask32 + 100 * every4th[np.arange(32) // 4])


@case
def views_and_copy_vec():
    src = prog.source
    check("spec example emitted", "__constant uchar image_mask_8[8] = {\n    0, 1, 8, 9, 16, 17, 24, 25\n};" in src,
          src[src.find("image_mask_8"):][:200])
    check("a view's length", "__constant float view_of_view[8] = {" in src)
    out = np.zeros(8, np.uint32)
    floats = np.zeros(12, np.float32)
    prog.run("views", out, floats, global_size=8)
    assert_equal(out, mask8, name="image-mask-8 (spec's second example)")
    assert_close(floats[:8], view_of_view, name="view of a view")
    assert_close(floats[8:12], converted, name="copy-vec converts uchar to float")


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


@case
def reinterpret_view_and_parent():
    out = np.zeros(10, np.uint32)
    ints = np.zeros(6, np.int32)
    prog.run("reinterpreted", out, ints, global_size=6)
    float_bits = np.array([1.0, -2.5, 0.15625, 3.0e-3], np.float32).view(np.uint32)
    from_bytes = (1 + 3 * np.arange(16)).astype(np.uint8).view(np.uint32)
    u = (4097 + 257 * np.arange(8)).astype(np.uint16)
    u[5] += 1
    shorts_as_uints = u.view(np.uint8)[6:14].view(np.uint32)
    parents = np.array([7, 2, 6, 1, 10, 1], np.int32)
    assert_equal(out[:4], float_bits, name="float bits through reinterpret-view")
    assert_equal(out[4:8], from_bytes, name="uints written byte by byte")
    assert_equal(out[8:10], shorts_as_uints, name=":offset, :length, views of views")
    assert_equal(ints, parents, name="parent~ read and set")


@case
def function_calls_in_body():
    floats = np.zeros(8, np.float32)
    ints = np.zeros(8, np.int32)
    prog.run("called", floats, ints, global_size=8)
    x = np.arange(8) / 7.0
    assert_close(floats, (x * x * (3.0 - 2.0 * x)).astype(np.float32), name="smooth")
    clamped = np.clip(3 * np.arange(5) - 4, 0, 6)
    assert_equal(ints, np.array(list(clamped) + [4, 42, 5], np.int32), name="clamp, early return, overloads")


@case
def constant_evaluator():
    u = np.zeros(16, np.uint32)
    ii = np.zeros(48, np.int32)
    sq = np.zeros(12, np.int64)
    f = np.zeros(2, np.float32)
    prog.run("computed", u, ii, sq, f, global_size=48)

    def fnv(x):
        h = 2166136261
        for b in range(4):
            h = ((h ^ ((x >> (8 * b)) & 255)) * 16777619) & 0xffffffff
        return h

    assert_equal(u, np.array([fnv(i) for i in range(16)], np.uint32), name="unsigned wrap (FNV-1a)")
    a = np.arange(16) - 8
    assert_equal(ii, np.concatenate([a // 3, -((-a) // 3), np.round(a / 4)]).astype(np.int32),
                 name="floor, ceil, round divisions")
    want = np.full(12, -1, np.int64)
    want[:10] = np.arange(10, dtype=np.int64) ** 2 * 10 ** 9
    assert_equal(sq, want, name="computed length, :initial-element, long")
    assert_close(f, np.array([np.sqrt(2), 2 ** 29], np.float32), name="def-const values")
    check("no support code for what the compiler computed", "crisp_floor_div" not in prog.source, prog.source[:300])


@case
def no_read_past_the_arrays_at_the_demo_size():
    # issue 14: the kernels have no (global-size ...) declaration, so the
    # generated demo launches CRISP_DEMO_LENGTH (1024) threads; every
    # const-vec read is guarded (W0703 otherwise), and oclgrind, which
    # reports a read past a __constant array, finds nothing
    import os
    import shutil
    import subprocess
    d = out_dir("demo")
    status, _, err = crisp("tests/e2e/const_vec.crisp", "--hoist=OpenCL", "--output-dir=" + d)
    check("compiles without a warning", status == 0 and "warning" not in err, err)
    if not shutil.which("oclgrind") or not shutil.which(os.environ.get("CC", "cc")):
        print("  (oclgrind or cc missing: the demo is not run under oclgrind)")
        return
    exe = os.path.join(d, "demo")
    r = subprocess.run([os.environ.get("CC", "cc"), "-std=c99", "-I" + d, os.path.join(d, "const_vec_hoist_OpenCL.c"),
                        os.path.join(d, "const_vec_hoist_OpenCL_demo.c"), "-lOpenCL", "-o", exe],
                       capture_output=True, text=True)
    check("the demo builds", r.returncode == 0, r.stderr)
    log = os.path.join(d, "oclgrind.log")
    if os.path.exists(log):
        os.remove(log)
    r = subprocess.run(["oclgrind", "--log", log, exe, os.path.join(d, "const_vec.cl")], capture_output=True, text=True,
                       env=dict(os.environ, CRISP_PLATFORM="Oclgrind"), timeout=300)
    check("the demo ran on oclgrind", r.returncode == 0 and "Oclgrind" in r.stdout and "6 of 6 kernels ran" in r.stdout,
          (r.stdout + r.stderr)[-2000:])
    report = open(log).read() if os.path.exists(log) else ""
    check("oclgrind reports nothing", not report.strip(), report[:2000])
