"""cuda_hoists.py - the CUDA hoists (--hoist=CUDA, --hoist=PyCUDA) on an NVIDIA GPU.

Every example and end-to-end program that has a PyOpenCL hoist is run
through the CUDA hoists and compared with the OpenCL hoists' results.  Two
steps, because the GPU machine has no clang and no PoCL (docs/targets.md):

  here (crisp, clang-14, libclc-14, ptxas; PoCL, a C compiler, the ICD loader):
      /usr/bin/python3 tests/gpu/cuda_hoists.py build [DIR]     (DIR: tests/out/cuda_hoists)
  writes, per program, DIR/BASE/ with the OpenCL, PyOpenCL, CUDA and PyCUDA
  hoists (crisp --hoist=... --binary-gpu-target=sm_90), then runs on PoCL
  the PyOpenCL module's demo, recording every array each kernel call leaves
  (DIR/BASE/pocl.npz), and the C hoist's demo (its output: DIR/BASE/pocl_c.txt);

  on the GPU machine (nvcc and libcuda; python3 with numpy, and for the
  Python hoist PyCUDA, cuda-python or CuPy):
      python3 tests/gpu/cuda_hoists.py run [DIR]
  for every program: imports BASE_hoist_PyCUDA.py, runs its demo (the same
  calls, the same data) recording the same arrays and compares them with
  PoCL's; builds BASE_hoist_CUDA.cpp and its demo with nvcc, runs it and
  compares its output with the C hoist's on PoCL, number by number.  Floats
  compare within a relative 1e-4 (the GPU's math library is not PoCL's);
  arrays whose elements are the same but in another order (atomics handing
  out tickets) pass as "order".  Prints one line per program and hoist and
  ends with `cuda_hoists: N passed, N failed, N skipped`.  When no Python
  binding of the driver API is importable the PyCUDA half is skipped with a
  message and the C++ hoist is still tested.  CRISP_CUDA_BINDING picks one
  binding (pycuda, cuda-python, cupy).

  and, on the same machine, the OpenCL hoists (C and PyOpenCL) on its
  OpenCL platform (CRISP_PLATFORM=NVIDIA), against the same records:
      python3 tests/gpu/cuda_hoists.py run-opencl [DIR]
  CUDA_HOISTS_ONLY=vectors,const_vec (program names) runs some programs only,
  CUDA_HOISTS_HOIST=PyCUDA (or CUDA, OpenCL, PyOpenCL) one hoist only;
  CUDA_HOISTS_JOBS=N runs N programs' demos at once (default: 8, fewer
  with fewer CPUs; each in its own process, printed in order).

With the device tool, DIR is an ignored path, so carry it:
  run(command="python3 tests/gpu/cuda_hoists.py run tests/out/cuda_hoists",
      carry=["tests/out/cuda_hoists"])
CUDA_HOISTS_SM=sm_80 (or another) builds for another GPU (the PTX serves any).
"""
import concurrent.futures
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SM = os.environ.get("CUDA_HOISTS_SM", "sm_90")
DEFAULT_DIR = os.path.join(REPO, "tests", "out", "cuda_hoists")
TIMEOUT = int(os.environ.get("CUDA_HOISTS_TIMEOUT", "30"))  # seconds per demo
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)")


def programs():
    return sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp"))) + \
        sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "*.crisp")))


def kernel_names(meta_path):
    with open(meta_path) as f:
        meta = json.load(f)
    return [k["name"] for k in meta.get("kernels", [])]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def capture(mod, names, calls):
    """Wrap every kernel method of MOD.Kernels: after each call (waited for),
    CALLS gets (kernel, [copies of the numpy arrays it was given, then the
    results it returned])."""
    K = mod.Kernels
    depth = [0]
    for name in names:
        attr = name if hasattr(K, name) else name + "_"
        f = getattr(K, attr)

        def wrapped(self, *args, _f=f, _name=name, **kw):
            depth[0] += 1
            try:
                r = _f(self, *args, **kw)
            finally:
                depth[0] -= 1
            if depth[0]:        # a kernel an orchestration or a sort launched: theirs are OpenCL-only
                return r
            self.queue.finish()
            arrays = [np.array(a, copy=True) for a in args if isinstance(a, np.ndarray)]
            arrays += [np.array(v, copy=True) for v in kw.values() if isinstance(v, np.ndarray)]
            rs = r if isinstance(r, tuple) else (r,)
            for x in rs:
                if isinstance(x, np.ndarray):
                    arrays.append(np.array(x, copy=True))
                elif hasattr(x, "get") and hasattr(x, "dtype"):   # device results
                    arrays.append(np.array(x.get(), copy=True))
            calls.append((_name, arrays))
            return r
        setattr(K, attr, wrapped)


def upload_all(mod):
    """Upload every numpy vector, write-only ones too: the demo's zeros.  The
    elements a kernel does not write are undefined (docs/hoisting-python.md);
    uploaded zeros make them zeros on both sides, so that whole arrays compare."""
    rt = mod.crisp_runtime.Runtime
    arg = rt.arg

    def arg_uploading(self, queue, kernel, name, value, elem, access, *rest):
        if access == "write_only" and isinstance(value, np.ndarray):
            access = "read_write"
        return arg(self, queue, kernel, name, value, elem, access, *rest)
    rt.arg = arg_uploading


def run_demo(module_path, meta_path, out_npz=None, origin=None):
    """Run the demo of one hoist module with its calls captured; returns the
    calls.  ORIGIN (a list) gets what the OpenCL hoist built ("PTX", ...)."""
    names = kernel_names(meta_path)
    mod = load_module(module_path, os.path.splitext(os.path.basename(module_path))[0])
    calls = []
    upload_all(mod)
    capture(mod, names, calls)
    loaded, load = [], mod.load

    def load_kept(*a, **kw):
        k = load(*a, **kw)
        loaded.append(k)
        return k
    mod.load = load_kept
    import io
    import contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = mod.demo()
    if status:
        raise RuntimeError("demo returned %r" % status)
    if origin is not None:
        origin.append(getattr(loaded[0].runtime, "program_origin", None) if loaded else None)
    if out_npz:
        flat = {}
        for i, (name, arrays) in enumerate(calls):
            for j, a in enumerate(arrays):
                flat["c%d_%d" % (i, j)] = a
        np.savez(out_npz, **flat)
        with open(out_npz + ".json", "w") as f:
            json.dump([[name, len(arrays)] for name, arrays in calls], f)
    return calls


# ---------------------------------------------------------------------------
# build (here)

def crisp(*args, cwd=REPO):
    r = subprocess.run([os.path.join(REPO, "crisp")] + list(args), cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


# The C demos' vectors all uploaded (the demo's zeros for write-only ones),
# as upload_all() does for the Python ones: -include this before the hoist.
UPLOAD_ALL_H = """/* cuda_hoists.py: upload write-only vectors too (zeros), so that the
 * elements the kernels do not write compare equal. */
#include "%s"
static inline cl_int crisp_upload_all(CrispContext *cx, CrispMem *m, cl_mem_flags flags, const void *host,
        size_t count, size_t elem_bytes, size_t stride, int upload, int use_svm, const char *what)
{
    (void)upload;
    return crisp_upload(cx, m, flags, host, count, elem_bytes, stride, host != NULL, use_svm, what);
}
#define crisp_upload crisp_upload_all
"""


def build_one(src, d):
    base = os.path.splitext(os.path.basename(src))[0]
    out = os.path.join(d, base)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    status, text = crisp("--hoist=PyOpenCL", "--hoist=OpenCL", "--hoist=CUDA", "--hoist=PyCUDA", "--metadata",
                         "--binary-gpu-target=" + SM, "--output-dir=" + out, os.path.relpath(src, REPO))
    if status:
        shutil.rmtree(out, ignore_errors=True)
        return base, "no hoist (crisp failed: %s)" % text.strip().splitlines()[-1][:120] if text.strip() else "no hoist"
    env = dict(os.environ, CRISP_PLATFORM=os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
    notes = []
    # the PyOpenCL demo on PoCL, recorded
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "record", out, base], capture_output=True, text=True,
                       env=env, timeout=600)
    if r.returncode:
        notes.append("PyOpenCL demo failed on PoCL: " + (r.stdout + r.stderr).strip()[-300:])
    # the C hoist's demo on PoCL
    exe = os.path.join(out, "opencl_demo")
    with open(os.path.join(out, "upload_all.h"), "w") as f:
        f.write(UPLOAD_ALL_H % "crisp_runtime.h")
    with open(os.path.join(out, "upload_all_cuda.h"), "w") as f:
        f.write(UPLOAD_ALL_H % "crisp_runtime_cuda.h")
    cc = subprocess.run(["cc", "-std=c99", "-O1", "-I" + out, "-include", "upload_all.h",
                         os.path.join(out, base + "_hoist_OpenCL.c"),
                         os.path.join(out, base + "_hoist_OpenCL_demo.c"), "-lOpenCL", "-lm", "-o", exe],
                        capture_output=True, text=True)
    if cc.returncode:
        notes.append("the C hoist does not build: " + cc.stderr[-300:])
    else:
        r = subprocess.run([exe, os.path.join(out, base + ".cl")], capture_output=True, text=True, env=env, timeout=600)
        if r.returncode:
            notes.append("the C demo failed on PoCL: " + (r.stdout + r.stderr)[-300:])
        else:
            with open(os.path.join(out, "pocl_c.txt"), "w") as f:
                f.write(r.stdout)
        os.remove(exe)
    return base, "; ".join(notes) or "ok"


def build(d):
    os.makedirs(d, exist_ok=True)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        for base, note in ex.map(lambda s: build_one(s, d),
                                 [p for p in programs() if selected([os.path.splitext(os.path.basename(p))[0]])]):
            results[base] = note
            print("%-28s %s" % (base, note))
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    print("cuda_hoists build: %d programs in %s (%d with both demos recorded)"
          % (len(results), d, sum(1 for v in results.values() if v == "ok")))


def record(out, base):
    run_demo(os.path.join(out, base + "_hoist_PyOpenCL.py"), os.path.join(out, base + ".metacrisp"),
             os.path.join(out, "pocl.npz"))


# ---------------------------------------------------------------------------
# run (on the GPU)

def same(a, b):
    """'' when arrays A and B agree, 'order' when only their order differs, else why not."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return "shape/dtype %s %s vs %s %s" % (a.shape, a.dtype, b.shape, b.dtype)
    if a.dtype.fields is not None:
        # field by field: the padding between fields is whatever the device
        # left there (PoCL copies private structs whole), not a result
        for name in a.dtype.names:
            why = same(np.ascontiguousarray(a[name]), np.ascontiguousarray(b[name]))
            if why and why != "order":
                return "field %s: %s" % (name, why)
            if why:
                return why
        return ""
    if a.dtype.kind == "f":
        ok = np.isclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
        if ok.all():
            return ""
        bad = np.argwhere(~ok.reshape(-1))[:3].reshape(-1)
        fa, fb = a.reshape(-1), b.reshape(-1)
        if np.allclose(np.sort(fa), np.sort(fb), rtol=1e-4, atol=1e-5, equal_nan=True):
            return "order"
        return "%d of %d differ, e.g. [%s]: %s vs %s" % ((~ok).sum(), ok.size, ", ".join(map(str, bad)),
                                                         fa[bad].tolist(), fb[bad].tolist())
    if np.array_equal(a, b):
        return ""
    fa, fb = a.reshape(-1), b.reshape(-1)
    if np.array_equal(np.sort(fa), np.sort(fb)):
        return "order"
    bad = np.argwhere(fa != fb)[:3].reshape(-1)
    return "%d of %d differ, e.g. [%s]: %s vs %s" % ((fa != fb).sum(), fa.size, ", ".join(map(str, bad)),
                                                     fa[bad].tolist(), fb[bad].tolist())


def check_python(out, base, hoist="PyCUDA"):
    ref_npz = os.path.join(out, "pocl.npz")
    if not os.path.exists(ref_npz):
        return "skip", "no PoCL record"
    with open(ref_npz + ".json") as f:
        ref_calls = json.load(f)
    ref = np.load(ref_npz)
    origin = []
    calls = run_demo(os.path.join(out, base + "_hoist_%s.py" % hoist), os.path.join(out, base + ".metacrisp"), origin=origin)
    if len(calls) < len(ref_calls) and [c[0] for c in calls] == [c[0] for c in ref_calls[:len(calls)]]:
        ref_calls = ref_calls[:len(calls)]      # the PyOpenCL demo's orchestrations come last
    if [c[0] for c in calls] != [c[0] for c in ref_calls]:
        return "fail", "other calls: %s vs %s" % ([c[0] for c in calls], [c[0] for c in ref_calls])
    notes = []
    for i, (name, arrays) in enumerate(calls):
        if len(arrays) != ref_calls[i][1]:
            return "fail", "%s: %d arrays vs %d" % (name, len(arrays), ref_calls[i][1])
        for j, a in enumerate(arrays):
            why = same(a, ref["c%d_%d" % (i, j)])
            if why == "order":
                notes.append("%s[%d] order" % (name, j))
            elif why:
                return "fail", "%s, array %d: %s" % (name, j, why)
    return "pass", "%d calls%s%s" % (len(calls), (" (" + ", ".join(notes) + ")") if notes else "",
                                     "; program: %s" % origin[0] if origin and origin[0] else "")


def numbers(text):
    """The numbers of a demo's output, without the lines naming the device."""
    lines = [l for l in text.splitlines() if not l.startswith(("device:", "module:", "program:"))]
    return lines, [NUMBER.findall(l) for l in lines]


def check_cpp(out, base):
    ref_path = os.path.join(out, "pocl_c.txt")
    if not os.path.exists(ref_path):
        return "skip", "no PoCL record of the C demo"
    exe = os.path.join(out, "cuda_demo")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cc = subprocess.run([nvcc, "-I" + out, "-include", "upload_all_cuda.h", os.path.join(out, base + "_hoist_CUDA.cpp"),
                         os.path.join(out, base + "_hoist_CUDA_demo.cpp"), "-lcuda", "-o", exe],
                        capture_output=True, text=True, timeout=300)
    if cc.returncode:
        return "fail", "nvcc: " + (cc.stdout + cc.stderr)[-400:]
    return run_and_compare(exe, os.path.join(out, base + ".ptx"), ref_path, "module:")


def run_and_compare(exe, arg, ref_path, what):
    """Run the C demo EXE on ARG and compare its output with the PoCL one."""
    try:
        r = subprocess.run([exe, arg], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return "fail", "the demo did not finish in %d s: %s" % (TIMEOUT, (e.stdout or b"")[-300:])
    if r.returncode:
        return "fail", "the demo failed: " + (r.stdout + r.stderr)[-400:]
    return compare_output(r.stdout, ref_path, what)


def compare_output(stdout, ref_path, what):
    """Compare a C demo's STDOUT with the PoCL one at REF_PATH, number by
    number; the note ends with the demo's line starting with WHAT."""
    with open(ref_path) as f:
        ref_lines, ref_nums = numbers(f.read())
    lines, nums = numbers(stdout)
    if len(lines) != len(ref_lines):
        return "fail", "%d output lines vs %d" % (len(lines), len(ref_lines))
    order = []
    for i, (a, b) in enumerate(zip(nums, ref_nums)):
        if a == b:
            continue
        fa, fb = np.array([float(x) for x in a]), np.array([float(x) for x in b])
        if fa.shape == fb.shape and np.allclose(fa, fb, rtol=1e-4, atol=1e-5, equal_nan=True):
            continue
        if fa.shape == fb.shape and np.allclose(np.sort(fa), np.sort(fb), rtol=1e-4, atol=1e-5, equal_nan=True):
            order.append(i + 1)
            continue
        return "fail", "line %d: %r vs %r" % (i + 1, lines[i][:160], ref_lines[i][:160])
    module = [l for l in stdout.splitlines() if l.startswith(what)]
    return "pass", "%d lines%s; %s" % (len(lines), " (order: lines %s)" % order if order else "",
                                      module[0] if module else "")


def check_c_opencl(out, base):
    """The OpenCL C hoist's demo on this machine's OpenCL platform, compared
    with its output on PoCL."""
    ref_path = os.path.join(out, "pocl_c.txt")
    if not os.path.exists(ref_path):
        return "skip", "no PoCL record of the C demo"
    exe = os.path.join(out, "opencl_demo_here")
    inc = [f for f in ("/usr/local/cuda/include",) if os.path.isdir(f)]
    lib = [f for f in ("/usr/local/cuda/lib64",) if os.path.isdir(f)]
    cc = subprocess.run(["cc", "-std=c99", "-O1", "-I" + out] + ["-I" + f for f in inc] +
                        ["-include", "upload_all.h", os.path.join(out, base + "_hoist_OpenCL.c"),
                         os.path.join(out, base + "_hoist_OpenCL_demo.c")] + ["-L" + f for f in lib] +
                        ["-lOpenCL", "-lm", "-o", exe], capture_output=True, text=True, timeout=300)
    if cc.returncode:
        return "fail", "cc: " + (cc.stdout + cc.stderr)[-400:]
    return run_and_compare(exe, os.path.join(out, base + ".cl"), ref_path, "program:")


def jobs():
    """How many demos run at once (CUDA_HOISTS_JOBS)."""
    return max(1, int(os.environ.get("CUDA_HOISTS_JOBS", "0")) or min(8, os.cpu_count() or 4))


def hoists(which):
    """CUDA_HOISTS_HOIST=CUDA (or PyCUDA, OpenCL, PyOpenCL): only that hoist."""
    only = os.environ.get("CUDA_HOISTS_HOIST", "")
    return [h for h in which if not only or h == only]


def selected(names):
    """CUDA_HOISTS_ONLY=a,b,c: only those programs."""
    only = [x for x in os.environ.get("CUDA_HOISTS_ONLY", "").split(",") if x]
    return [n for n in names if not only or n in only]


def run_opencl(d):
    """The OpenCL hoists on this machine's OpenCL platform (CRISP_PLATFORM)
    against their PoCL records; each line says what the hoist loaded."""
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    progs = [b for b in selected(sorted(manifest)) if os.path.isdir(os.path.join(d, b))]
    tasks = [(b, h, (lambda b=b: check_c_opencl(os.path.join(d, b), b)) if h == "OpenCL" else
              (lambda b=b: check_in_child("check-opencl", os.path.join(d, b), b)))
             for b in progs for h in hoists(["OpenCL", "PyOpenCL"])]
    counts, loaded = run_tasks(tasks, 8)
    # which file the passing hoists built: BASE_nvcl.ptx (clCreateProgramWithBinary) or the .cl
    print("cuda_hoists run-opencl: of the passed, %d loaded the PTX (BASE_nvcl.ptx), %d the SPIR-V, %d the .cl, %d unknown"
          % (loaded["PTX"], loaded["SPIR-V"], loaded["OpenCL C"], loaded["?"]))
    print("cuda_hoists run-opencl: %d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


def run_tasks(tasks, width):
    """Run TASKS ((program, hoist, function returning (verdict, note))) on
    jobs() threads, printing each line as it finishes (a run cut short
    still shows what it did); returns the counts of the verdicts and of
    what the passing OpenCL hoists loaded."""
    counts = {"pass": 0, "fail": 0, "skip": 0}
    loaded = {"PTX": 0, "SPIR-V": 0, "OpenCL C": 0, "?": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs()) as ex:
        futures = {ex.submit(f): (base, hoist) for base, hoist, f in tasks}
        for fut in concurrent.futures.as_completed(futures):
            base, hoist = futures[fut]
            try:
                verdict, note = fut.result()
            except Exception as e:  # noqa: BLE001 - one program's failure must not stop the others
                verdict, note = "fail", "%s: %s" % (type(e).__name__, str(e)[:300])
            counts[verdict] += 1
            if verdict == "pass":
                loaded[program_origin(note)] += 1
            print("%-28s %-*s %-4s %s" % (base, width, hoist, verdict, note))
            sys.stdout.flush()
    return counts, loaded


def program_origin(note):
    """What a passing OpenCL hoist built, from its note: the C demo's line
    `program: BASE_nvcl.ptx (PTX, ...)` / `program: BASE.cl (OpenCL C; not
    the PTX: ...)`, the Python one's `program: PTX` (program_origin)."""
    m = re.search(r"program: (\S+)(?: \((PTX|SPIR-V|OpenCL C))?", note)
    if not m:
        return "?"
    if m.group(2):
        return m.group(2)
    return m.group(1) if m.group(1) in ("PTX", "SPIR-V") else "OpenCL C" if m.group(1) == "OpenCL" else "?"


def check_in_child(command, out, base):
    """(verdict, note) of `cuda_hoists.py COMMAND OUT BASE` run in a child
    process: a failing or hanging program must not stop the others."""
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), command, out, base],
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "fail", "the demo did not finish in %d s" % TIMEOUT
    last = (r.stdout.strip().splitlines() or [""])[-1]
    if r.returncode == 0 and "\t" in last:
        return tuple(last.split("\t", 1))
    return "fail", (r.stdout + r.stderr).strip()[-400:]


def run(d):
    sys.path.insert(0, os.path.join(REPO, "runtime-shim"))
    binding = None
    try:
        import crisp_runtime_cuda
        binding = crisp_runtime_cuda.binding().name
        print("cuda_hoists: the Python hoist runs through %s" % binding)
    except ImportError as e:
        print("cuda_hoists: SKIPPING the PyCUDA hoist: %s" % e)
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    progs = [b for b in selected(sorted(manifest)) if os.path.isdir(os.path.join(d, b))]
    for base in selected(sorted(manifest)):
        if base not in progs:
            print("%-28s %-6s %s" % (base, "-", manifest[base]))
    tasks = []
    for b in progs:
        for h in hoists(["CUDA", "PyCUDA"]):
            if h == "CUDA":
                tasks.append((b, h, lambda b=b: check_cpp(os.path.join(d, b), b)))
            elif binding is None:
                tasks.append((b, h, lambda: ("skip", "no Python binding of the CUDA driver API")))
            else:
                tasks.append((b, h, lambda b=b: check_in_child("check", os.path.join(d, b), b)))
    counts, _ = run_tasks(tasks, 6)
    print("cuda_hoists: %d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("build", "run", "run-opencl", "record", "check", "check-opencl"):
        print(__doc__)
        return 2
    if sys.argv[1] in ("check", "check-opencl"):
        sys.path.insert(0, os.path.join(REPO, "runtime-shim"))
        try:
            verdict, note = check_python(sys.argv[2], sys.argv[3], "PyCUDA" if sys.argv[1] == "check" else "PyOpenCL")
        except Exception as e:
            verdict, note = "fail", "%s: %s" % (type(e).__name__, str(e)[:300])
        print("%s\t%s" % (verdict, note))
        return 0
    if sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
        return 0
    d = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_DIR
    if sys.argv[1] == "build":
        build(d)
        return 0
    return run_opencl(d) if sys.argv[1] == "run-opencl" else run(d)


if __name__ == "__main__":
    sys.exit(main())
