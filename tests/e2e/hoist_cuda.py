"""hoist_cuda.py - the CUDA hoists (--hoist=CUDA, --hoist=PyCUDA) without a GPU.

Here there is no NVIDIA GPU (tests/gpu/cuda_hoists.py runs every program
through both hoists on one and compares with PoCL).  What can be checked
here is:

* every example and tests/e2e/*.crisp program: crisp writes BASE.ptx (and
  the sm_90 cubin), BASE_hoist_CUDA.h/.cpp/_demo.cpp, crisp_runtime_cuda.h,
  BASE_hoist_PyCUDA.py and crisp_runtime_cuda.py; the C++ compiles with
  g++ -Wall -Wextra -Werror against CUDA's cuda.h and links against the
  toolkit's stub libcuda, the runtime header also as C99 with
  -Wmissing-prototypes; the Python compiles;
* the generated files of examples/vector_add.crisp and
  examples/side_channels.crisp against the goldens in tests/hoist/cuda/
  (UPDATE_GOLDEN=1 rewrites them);
* the Python hoist's logic with a fake driver binding (numpy memory, launches
  recorded, not run): uploads, lengths, copies back, result vectors, dtype and
  length errors, the block a launch gets, __local arguments placed in dynamic
  shared memory, and which image load() picks.

    PYTHONPATH=tests /usr/bin/python3 tests/e2e/hoist_cuda.py [CASE...]

CUDA_HOME (default /usr/local/cuda) locates cuda.h; without it the C++
checks fail saying so.
"""
import concurrent.futures
import glob
import importlib.util
import os
import shutil
import subprocess
import sys

from crisptest import *

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
GOLDEN = os.path.join(REPO, "tests", "hoist", "cuda")
PROGRAMS = sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp"))) + \
    sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "*.crisp")))
sys.path.insert(0, os.path.join(REPO, "runtime-shim"))


def sh(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def hoist(src, name, *flags):
    d = out_dir("hoist_cuda", name)
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    status, out, err = crisp("--hoist=CUDA", "--hoist=PyCUDA", "--binary-gpu-target=sm_90", "--output-dir=" + d,
                             *(list(flags) + [src]), timeout=300)
    if status:
        raise CompileError("crisp --hoist=CUDA %s failed (%d):\n%s" % (src, status, err))
    return d, os.path.splitext(os.path.basename(src))[0]


def build(src):
    """Hoist SRC and compile what was written; (problems, files)."""
    d, base = hoist(src, os.path.splitext(os.path.basename(src))[0])
    problems = []
    inc = ["-I", d, "-I", os.path.join(CUDA, "include")]
    exe = os.path.join(d, "demo")
    status, out, err = sh(["g++", "-Wall", "-Wextra", "-Werror", "-Wshadow"] + inc +
                          [os.path.join(d, base + "_hoist_CUDA.cpp"), os.path.join(d, base + "_hoist_CUDA_demo.cpp"),
                           "-L", os.path.join(CUDA, "lib64", "stubs"), "-lcuda", "-o", exe])
    if status or err.strip():
        problems.append("g++: " + err[-800:])
    status, out, err = sh([sys.executable, "-m", "py_compile", os.path.join(d, base + "_hoist_PyCUDA.py"),
                           os.path.join(d, "crisp_runtime_cuda.py")])
    if status:
        problems.append("python: " + err[-800:])
    return problems, sorted(os.listdir(d))


if not os.path.exists(os.path.join(CUDA, "include", "cuda.h")):
    check("CUDA's cuda.h", False, "no %s/include/cuda.h: set CUDA_HOME" % CUDA)
else:
    pool = concurrent.futures.ThreadPoolExecutor(2)
    builds = {src: pool.submit(build, src) for src in PROGRAMS}
    for src in PROGRAMS:
        name = os.path.splitext(os.path.basename(src))[0]

        @case("builds_%s_%s" % ("examples" if "/examples/" in src else "e2e", name))
        def _(src=src, name=name):
            problems, files = builds[src].result()
            check("compiles", not problems, "\n".join(problems))
            want = {name + ".cl", name + ".ptx", name + "_sm_90.cubin", name + "_hoist_CUDA.h", name + "_hoist_CUDA.cpp",
                    name + "_hoist_CUDA_demo.cpp", "crisp_runtime_cuda.h", name + "_hoist_PyCUDA.py",
                    "crisp_runtime_cuda.py"}
            check("what crisp wrote", want <= set(files), str(sorted(want - set(files))))


@case
def runtime_header_is_c99_too():
    d = out_dir("hoist_cuda", "c99")
    c = os.path.join(d, "t.c")
    with open(c, "w") as f:
        f.write('#include "crisp_runtime_cuda.h"\nint main(void)\n{\n    CrispContext cx;\n'
                '    if (crisp_open(&cx, 0) != CL_SUCCESS) return 1;\n    crisp_close(&cx);\n    return 0;\n}\n')
    status, out, err = sh(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes", "-Wshadow",
                           "-I", os.path.join(REPO, "runtime-shim"), "-I", os.path.join(CUDA, "include"), "-c", c,
                           "-o", c + ".o"])
    check("gcc -std=c99", status == 0 and not err.strip(), err)


GOLDEN_FILES = ["_hoist_CUDA.h", "_hoist_CUDA.cpp", "_hoist_CUDA_demo.cpp", "_hoist_PyCUDA.py"]


def golden(name):
    d, base = hoist(os.path.join(REPO, "examples", name + ".crisp"), "golden_" + name)
    for suffix in GOLDEN_FILES:
        got = open(os.path.join(d, base + suffix)).read()
        path = os.path.join(GOLDEN, base + suffix + ".expected")
        if os.environ.get("UPDATE_GOLDEN"):
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w") as f:
                f.write(got)
            continue
        check("golden " + os.path.basename(path), os.path.exists(path), "missing (UPDATE_GOLDEN=1 writes it)")
        want = open(path).read()
        if got != want:
            import difflib
            diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), path, "generated"))[:40])
            check("golden " + os.path.basename(path), False, diff)


@case
def golden_vector_add():
    golden("vector_add")


@case
def golden_side_channels():
    golden("side_channels")


@case
def hoist_cuda_implies_the_ptx():
    d = out_dir("hoist_cuda", "implies")
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    status, out, err = crisp("--hoist=PyCUDA", "--output-dir=" + d, os.path.join(REPO, "examples", "loops.crisp"))
    check("exit 0", status == 0, err)
    files = sorted(os.listdir(d))
    check("the PTX, the module, the shim", files == ["crisp_runtime_cuda.py", "loops.cl", "loops.ptx",
                                                     "loops_hoist_PyCUDA.py"], str(files))
    text = open(os.path.join(d, "loops_hoist_PyCUDA.py")).read()
    check("no cubin named", '("ptx", os.path.join(HERE, "loops.ptx"))' in text and "cubin" not in text.split("IMAGES")[1][:200])


# ----------------------------------------------------------------------
# The Python hoist with a fake driver binding

class FakeBinding:
    """The binding interface of crisp_runtime_cuda, on host memory: device
    pointers index numpy byte arrays; launches are recorded, and the shared
    memory probe answers 1024."""
    name = "fake"

    def __init__(self, cc=(9, 0)):
        self.mem, self.next, self.launches, self.loaded, self.cc = {}, 0x10000, [], [], cc
        self.nparams = 0          # how many 8-byte parameters launches record
        self.freed = []
        self.shared = 49152       # CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK

    def device_count(self):
        return 1

    def device_name(self, index):
        return "Fake GPU"

    def open(self, index):
        return "ctx", self.cc

    def current(self, ctx):
        pass

    def module_load(self, image):
        self.loaded.append(image)
        return "module"

    def function(self, module, name):
        return name

    def max_threads(self, func):
        return 1024

    def static_shared(self, func):
        return 0

    def shared_per_block(self, index):
        return self.shared

    def alloc(self, nbytes):
        p = self.next
        self.next += (nbytes + 255) // 256 * 256 + 256
        self.mem[p] = np.zeros(nbytes, np.uint8)
        return p

    def free(self, ptr):
        self.freed.append(ptr)    # kept, for the checks

    def _at(self, ptr):
        for base, a in self.mem.items():
            if base <= ptr < base + max(a.size, 1):
                return a, ptr - base
        raise AssertionError("no fake memory at 0x%x" % ptr)

    def zero(self, ptr, nbytes, stream):
        a, o = self._at(ptr)
        a[o:o + nbytes] = 0

    def htod(self, ptr, host, stream):
        a, o = self._at(ptr)
        a[o:o + host.nbytes] = np.ascontiguousarray(host).reshape(-1).view(np.uint8)

    def dtoh(self, host, ptr, stream):
        a, o = self._at(ptr)
        host.reshape(-1).view(np.uint8)[:] = a[o:o + host.nbytes]

    def launch(self, func, grid, block, shared, stream, params):
        import ctypes
        n = 8 if func == "crisp_probe" else None
        # the parameters are read now: the runtime frees them after the launch
        ptrs = (ctypes.c_void_p * self.nparams).from_address(params) if self.nparams else []
        values = [bytes((ctypes.c_char * 8).from_address(p)) for p in ptrs] if func != "crisp_probe" else []
        self.launches.append((func, tuple(grid), tuple(block), shared, values))
        if func == "crisp_probe":
            ptrs = (ctypes.c_void_p * 1).from_address(params)
            out = ctypes.c_uint64.from_address(ptrs[0]).value
            a, o = self._at(out)
            a[o:o + n] = np.frombuffer(np.uint64(1024).tobytes(), np.uint8)

    def stream_create(self):
        return "stream"

    def stream_sync(self, s):
        pass

    def event_create(self):
        return "event"

    def event_record(self, e, s):
        pass

    def event_sync(self, e):
        pass

    def stream_wait(self, s, e):
        pass

    def handle(self, s):
        return 0


def fake_module(name, cc=(9, 0), src=None):
    d, base = hoist(src or os.path.join(REPO, "examples", name + ".crisp"), "fake_" + name)
    for m in list(sys.modules):
        if m.startswith("crisp_runtime_cuda") or m.endswith("_hoist_PyCUDA"):
            del sys.modules[m]
    spec = importlib.util.spec_from_file_location(base + "_hoist_PyCUDA", os.path.join(d, base + "_hoist_PyCUDA.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fake = FakeBinding(cc)
    mod.crisp_runtime._set_binding(fake)
    mod.crisp_runtime._devices.clear()
    return mod, fake, d


@case
def fake_vector_add_uploads_launches_copies_back():
    mod, fake, d = fake_module("vector_add")
    fake.nparams = 6
    k = mod.load()
    check("the cubin for sm_90", fake.loaded and fake.loaded[0] == open(os.path.join(d, "vector_add_sm_90.cubin"), "rb").read())
    a = np.arange(1000, dtype=np.float32)
    b = np.ones(1000, np.float32)
    c = np.zeros(1000, np.float32)
    k.vector_add(a, b, c)
    func, grid, block, shared, params = fake.launches[-1]
    check("kernel", func == "vector_add")
    check("grid x block is the global size", grid[0] * block[0] == 1000 and block[0] == 250, "%r %r" % (grid, block))
    vals = params
    pa, la = np.frombuffer(vals[0], np.uint64)[0], np.frombuffer(vals[1], np.uint64)[0]
    check("A's length", la == 1000, str(la))
    mem, off = fake._at(int(pa))
    check("A uploaded", np.array_equal(mem[off:off + 4000].view(np.float32), a))
    # the kernel did not run: C comes back as the device memory holds it (zeros, never uploaded)
    check("C copied back", np.array_equal(c, np.zeros(1000, np.float32)))
    assert_raises(TypeError, k.vector_add, a.astype(np.float64), b, c)
    assert_raises(ValueError, k.vector_add, a, b[:10], c)


@case
def fake_ptx_when_no_binary_for_the_device():
    mod, fake, d = fake_module("vector_add", cc=(8, 0))
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod.load()
    check("the PTX", fake.loaded[0].rstrip(b"\0") == open(os.path.join(d, "vector_add.ptx"), "rb").read())
    check("a warning naming both", any("sm_80" in str(x.message) and "sm_90" in str(x.message) for x in w),
          str([str(x.message) for x in w]))


@case
def fake_results_and_local_memory():
    mod, fake, d = fake_module("sum_vector")
    k = mod.load()
    import inspect
    names = [n for n in dir(k) if not n.startswith("_") and callable(getattr(k, n)) and n != "debug_log"]
    check("kernels", names, str(names))
    rt = k.runtime
    # __local arguments: after the probe's base, 16-byte aligned, in launch order
    f = mod.crisp_runtime.Function.__new__(mod.crisp_runtime.Function)
    f.function_name, f.handle, f.max_threads, f.static_shared, f.arg_dtypes = "t", "t", 1024, 20, None
    values, shared = rt._values(f, [mod.crisp_runtime.LocalMemory(40), np.uint64(7), mod.crisp_runtime.LocalMemory(8)])
    check("first at base + static", int(values[0]) == 1024 + 32, str(values))
    check("second after the first, aligned", int(values[2]) == 1024 + 32 + 48, str(values))
    check("dynamic bytes", shared == 48 + 16, str(shared))
    cl = mod.crisp_runtime.choose_local_size
    check("divisor blocks", cl((1000, 1, 1), 1024) == (250, 1, 1) and cl((97, 1, 1), 1024) == (97, 1, 1)
          and cl((512, 512, 1), 1024) == (256, 4, 1), str(cl((512, 512, 1), 1024)))


@case
def fake_local_memory_checked_before_launch():
    # a block's shared memory (the device's MAX_SHARED_MEMORY_PER_BLOCK,
    # asked once) against what the kernel's __local memory needs at the
    # launch: refused before cuLaunchKernel, naming both figures
    mod, fake, d = fake_module("filter", src=os.path.join(REPO, "tests", "e2e", "lib", "filter.crisp"))
    k = mod.load()
    assert_equal(k.runtime.local_mem_size, 49152)
    a, out, count = np.zeros(5000), np.zeros(5000), np.zeros(1, np.uint64)
    n = len(fake.launches)
    # (at 256 work-items: 34,880 bytes at the 128 crisp chose would fit)
    e = assert_raises(mod.crisp_runtime.LocalMemoryError, k.filter_small_double_tuned, a, out, count, local_size=256,
                      match="kernel filter_small_double_tuned (global 5120, local 256) needs 69456 bytes of local "
                            "memory per workgroup, but the device has 49152 "
                            "(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)")
    assert_equal(e.code, 1)
    check("nothing launched", not [x for x in fake.launches[n:] if x[0] != "crisp_probe"], str(fake.launches[n:]))
    k.filter_small_double_tuned(a, out, count, local_size=64)
    ran = [x for x in fake.launches[n:] if x[0] != "crisp_probe"]      # (the shared memory probe runs once)
    check("launched in blocks of 64", len(ran) == 1 and ran[0][0] == "filter_small_double_tuned" and ran[0][2][0] == 64,
          str(fake.launches[n:]))
    # fixed :local vectors only: checked once, by load()
    mod, fake, d = fake_module("local_fixed", src=os.path.join(REPO, "tests", "hoist_py", "local_fixed.crisp"))
    fake.shared = 4096
    assert_raises(mod.crisp_runtime.LocalMemoryError, mod.load,
                  match="kernel reverse_fixed (any launch) needs 8192 bytes of local memory per workgroup, "
                        "but the device has 4096")


@case
def fake_side_channels_results():
    mod, fake, d = fake_module("side_channels")
    k = mod.load()
    text = open(os.path.join(d, "side_channels_hoist_PyCUDA.py")).read()
    check("results documented", "crisp_runtime_cuda.DeviceArrays" in text or "Returns the kernel's Event" in text)


# ----------------------------------------------------------------------
# Orchestrations through the CUDA hoists (docs/orchestration.md)

@case
def cuda_cpp_orchestrations():
    d, base = hoist(os.path.join(REPO, "tests", "e2e", "orchestration.crisp"), "orch_cpp")
    with open(os.path.join(d, base + "_hoist_CUDA.h")) as f:
        header = f.read()
    with open(os.path.join(d, base + "_hoist_CUDA.cpp")) as f:
        source = f.read()
    with open(os.path.join(d, base + "_hoist_CUDA_demo.cpp")) as f:
        demo = f.read()
    for fn in ("orchestration_add_then_scale", "orchestration_saxpy_interleaved", "orchestration_two_then_one",
               "orchestration_mix_passes", "orchestration_table_interleaved"):
        check("declared: " + fn, "cl_int %s_run(" % fn in header, fn)
        check("defined: " + fn, ("cl_int %s_run(" % fn) in source)
    check("the steps on events", "cuEventDestroy(ev[i])" in source and "cuStreamWaitEvent" not in source)
    check("interleaved: pinned memory, two streams", "cuMemHostAlloc((void **)&staged[0]" in source and
          "cuStreamCreate(&qs[1], CU_STREAM_NON_BLOCKING)" in source and "cuMemcpyHtoDAsync(mem[" in source and
          "cuMemFreeHost(staged[c])" in source)
    check("no OpenCL call left", not [w for w in ("clEnqueue", "clCreate", "clFinish", "clRelease", "cl_mem ", "cl_event")
                                      if w in source or w in header], source[:200])
    check("the demo runs them", "orchs += orchestration_add_then_scale(&prog);" in demo and "orchestrations ran" in demo)
    problems, _ = build(os.path.join(REPO, "tests", "e2e", "orchestration.crisp"))
    check("g++ -Wall -Wextra -Werror builds it against cuda.h", not problems, "\n".join(problems))


def fake_orchestration():
    mod, fake, d = fake_module("orchestration", src=os.path.join(REPO, "tests", "e2e", "orchestration.crisp"))
    fake.nparams = 0
    return mod, fake, mod.load()


def launched(fake):
    return [l[0] for l in fake.launches if l[0] != "crisp_probe"]


@case
def fake_orchestration_sequential():
    mod, fake, k = fake_orchestration()
    n = 300
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, np.float32) * 2
    r = np.full(n, 5.0, np.float32)
    before = len(fake.mem)
    out = k.add_then_scale(a, b, None, 3.0, r)
    check("the kernels in order", launched(fake) == ["vector_add", "vector_scale"], str(launched(fake)))
    check("what the steps write, by KERNEL::NAME", sorted(out) == ["vector_add::C", "vector_scale::R"], str(sorted(out)))
    # the fake runs no kernel: R comes back as the device left it (zeros: only written, not uploaded)
    check("R filled in place", out["vector_scale::R"] is r and not r.any(), str(r[:4]))
    check("the intermediate on the device", out["vector_add::C"].shape == (n,), str(out["vector_add::C"].shape))
    uploaded = [m for p, m in list(fake.mem.items())[before:] if m.size == a.nbytes and (m.view(np.float32) == a).all()]
    check("A uploaded once", len(uploaded) == 1, str(len(uploaded)))
    fake.launches.clear()
    k.two_then_one(a, b, np.zeros(n, np.float32), b, a, np.zeros(n, np.float32), np.zeros(n, np.float32))
    check("launch-parallel then sequential", launched(fake) == ["left_add", "right_add", "vector_add"], str(launched(fake)))


@case
def fake_orchestration_loops():
    mod, fake, k = fake_orchestration()
    v = np.arange(8, dtype=np.uint64)
    k.mix_passes(v)
    # s = 1, 2, 4, 8 (<= 8): tt = s/2 .. 1 (none for s = 1), then one more pass each
    check("the passes the host loops make", launched(fake) == ["mix_pass"] * 11, str(launched(fake)))


@case
def fake_orchestration_interleaved():
    mod, fake, k = fake_orchestration()
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    z = np.full(n, 9.0, np.float32)
    out = k.saxpy_interleaved(0, 0, 2.0, x, y, z, chunk=300)
    grids = [l for l in fake.launches if l[0] == "saxpy_chunked"]
    check("one launch per chunk", len(grids) == 4, str(len(grids)))
    threads = [g[1][0] * g[2][0] for g in grids]
    check("chunk sizes", threads == [300, 300, 300, 100], str(threads))
    check("Z by name", sorted(out) == ["saxpy_chunked::Z"], str(sorted(out)))
    # the kernel does not run here: Z's chunks come back as the device holds them (never written: zeros)
    check("Z copied back chunk by chunk", not z.any(), str(z[:4]))
    xs = [m for m in fake.mem.values() if m.size == x.nbytes and (m.view(np.float32) == x).all()]
    check("X copied in, chunk by chunk", len(xs) == 1, str(len(xs)))


# ----------------------------------------------------------------------
# The shims' shared parts (runtime-shim/parts/, scripts/shim_parts.sh)

@case
def shims_share_their_parts():
    import difflib
    shims = [os.path.join(REPO, "runtime-shim", f) for f in
             ("crisp_runtime.h", "crisp_runtime_cuda.h", "crisp_runtime.py", "crisp_runtime_cuda.py")]
    r = subprocess.run(["sh", os.path.join(REPO, "scripts", "shim_parts.sh"), "--check"] + shims,
                       capture_output=True, text=True)
    check("the shims hold the parts as written in runtime-shim/parts/", r.returncode == 0, r.stderr)
    parts = sorted(f for f in os.listdir(os.path.join(REPO, "runtime-shim", "parts")) if f.endswith((".h", ".py")))
    check("parts", len(parts) >= 8, str(parts))

    def outside(path):
        out, skip, used = [], False, []
        for line in open(path).read().split("\n"):
            if "@shim-part end " in line:
                skip = False
            elif skip:
                pass
            elif "@shim-part " in line:
                skip = True
                used.append(line.split("@shim-part ")[1].split(":")[0])
            else:
                out.append(line)
        return out, used
    for a, b, ext in ((shims[0], shims[1], ".h"), (shims[2], shims[3], ".py")):
        (ta, ua), (tb, ub) = outside(a), outside(b)
        mine = sorted(p[:-len(ext)] for p in parts if p.endswith(ext))
        check("every %s part in both shims" % ext, sorted(ua) == mine and sorted(ub) == mine, "%s %s %s" % (ua, ub, mine))
        sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
        long_ = [(m.size, ta[m.a][:60]) for m in sm.get_matching_blocks() if m.size >= 30]
        check("no 30 lines repeated outside the parts (%s)" % ext, not long_, str(long_))
    # a part edited is rewritten into both shims
    d = out_dir("hoist_cuda", "parts")
    import shutil as sh_
    for f in os.listdir(d):
        sh_.rmtree(os.path.join(d, f)) if os.path.isdir(os.path.join(d, f)) else os.remove(os.path.join(d, f))
    for f in shims[:2]:
        sh_.copy(f, d)
    os.makedirs(os.path.join(d, "scripts"), exist_ok=True)
    os.makedirs(os.path.join(d, "runtime-shim", "parts"), exist_ok=True)
    sh_.copy(os.path.join(REPO, "scripts", "shim_parts.sh"), os.path.join(d, "scripts"))
    for p in parts:
        sh_.copy(os.path.join(REPO, "runtime-shim", "parts", p), os.path.join(d, "runtime-shim", "parts"))
    with open(os.path.join(d, "runtime-shim", "parts", "checks.h"), "a") as f:
        f.write("/* one more line */\n")
    copies = [os.path.join(d, "crisp_runtime.h"), os.path.join(d, "crisp_runtime_cuda.h")]
    r = subprocess.run(["sh", os.path.join(d, "scripts", "shim_parts.sh"), "--check"] + copies, capture_output=True, text=True)
    check("--check names a stale shim", r.returncode == 1 and "crisp_runtime_cuda.h" in r.stderr, r.stderr)
    r = subprocess.run(["sh", os.path.join(d, "scripts", "shim_parts.sh")] + copies, capture_output=True, text=True)
    check("rewritten", r.returncode == 0, r.stderr)
    check("into both", all("/* one more line */\n/* @shim-part end checks */" in open(c).read() for c in copies))


@case
def pycuda_binding_pops_its_context_at_exit():
    # PyCUDA aborts the interpreter when a context is still pushed at exit
    # (an H200 run, 2026-11-28): the binding frees what is left and pops it
    import crisp_runtime_cuda as rc
    import atexit
    log = []

    class Err(Exception):
        pass

    class Ctx:
        def push(self):
            log.append("push")

        def pop(self):
            log.append("pop")

    class Dev:
        def __init__(self, i):
            pass

        def retain_primary_context(self):
            return Ctx()

        def compute_capability(self):
            return (9, 0)

    class Alloc:
        def __init__(self, n):
            self.n = n

        def __int__(self):
            return 4096

        def free(self):
            log.append("free")

    class Drv:
        Error = Err
        Device = Dev

        @staticmethod
        def init():
            pass

        @staticmethod
        def mem_alloc(n):
            return Alloc(n)

    registered = []
    real = atexit.register
    atexit.register = lambda f, *a: registered.append((f, a))
    try:
        b = rc._PyCuda(Drv)
        ctx, cc = b.open(0)
    finally:
        atexit.register = real
    check("pushed, and a handler at exit", log == ["push"] and len(registered) == 1, str((log, registered)))
    b._live = {4096: Alloc(8)}
    f, a = registered[0]
    f(*a)
    check("frees, then pops", log == ["push", "free", "pop"], str(log))
