"""crisptest - the end-to-end test harness for Crisp (run with /usr/bin/python3).

A test file in tests/e2e/ looks like

    from crisptest import *
    prog = compile("examples/vector_add.crisp")

    @case
    def vector_add_1024():
        a = np.random.rand(1024).astype(np.float32)
        b = np.random.rand(1024).astype(np.float32)
        c = np.zeros(1024, np.float32)
        prog.run("vector_add", a, b, c)
        assert_close(c, a + b)

Running it (`PYTHONPATH=tests /usr/bin/python3 tests/e2e/FILE.py [NAME...]`) runs
every case when the file finishes, printing `ok NAME` or `FAIL NAME: reason`
and a last line `FILE: N passed, N failed`; the exit status is 1 when
anything failed.

compile() runs ./crisp (or $CRISP) with --transpile-to=oclc --metadata,
validates the .cl with clang, loads the .metacrisp and builds the program on
PoCL (or the platform whose name contains $CRISPTEST_PLATFORM).
Program.run() passes arguments by the kernel ABI described in the metadata.
"""

import atexit
import json
import math
import os
import re
import subprocess
import sys
import traceback
import zlib

import numpy as np

try:
    import pyopencl as cl
    import pyopencl.cltypes as cltypes
except ImportError:  # pragma: no cover - explained to the user
    sys.stderr.write("crisptest: pyopencl is missing from %s; use /usr/bin/python3 with "
                     "python3-pyopencl installed (make deps), or `pip install pyopencl numpy` "
                     "in your virtual environment\n" % sys.executable)
    raise

__all__ = [
    "struct_dtype",
    "np", "cl", "cltypes", "REPO", "compile", "load_program", "crisp",
    "Program", "CompileError", "case", "check", "assert_close",
    "assert_equal", "assert_raises", "main", "dtype_of", "out_dir",
    "device_ocl_version", "device_name", "run_under_oclgrind",
    "LocalMemoryError", "device_local_mem_size",
]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLANG = os.environ.get("CLANG", "clang")
CLANG_CL_FLAGS = ["-x", "cl", "-Xclang", "-finclude-default-header", "-Wall", "-Werror", "-fsyntax-only"]
# A .cl is built with the -cl-std= its metadata names (--ocl-version).
BUILD_OPTIONS = "-cl-std=CL1.2 -Werror"
# The sub-group lowering of the warp forms (docs/warps.md) is validated as
# well, on a target where clang has the sub-group extensions.
CLANG_SUBGROUPS = ["-target", "spir64", "-DCRISP_WARP_SUBGROUPS=1", "-Xclang", "-cl-ext=+cl_khr_subgroups,"
                   "+__opencl_c_subgroups,+cl_khr_subgroup_shuffle,+cl_intel_required_subgroup_size"]
OUT_ROOT = os.environ.get("CRISPTEST_OUT") or os.path.join(REPO, "tests", "out")


def _crisp_path():
    p = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    return p if os.path.isabs(p) else os.path.join(REPO, p)


class LocalMemoryError(RuntimeError):
    """A kernel needs more __local memory per workgroup than the device has
    (raised before the launch, instead of CL_OUT_OF_RESOURCES)."""


class CompileError(Exception):
    """crisp, clang or the OpenCL build rejected a program."""


# ----------------------------------------------------------------------
# OpenCL types <-> numpy

_SCALARS = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16,
    "ushort": np.uint16, "int": np.int32, "uint": np.uint32,
    "long": np.int64, "ulong": np.uint64, "half": np.float16,
    "float": np.float32, "double": np.float64,
    "bool": np.int8, "size_t": np.uint64,
}
_TYPE_RE = re.compile(r"^(char|uchar|short|ushort|int|uint|long|ulong|half|"
                      r"float|double|bool|size_t)(2|3|4|8|16)?$")


def _clean_type(t):
    """'__global const float4 *' -> 'float4' (the bare element type)."""
    t = t.replace("*", " ")
    words = [w for w in t.split() if w not in (
        "const", "volatile", "restrict", "__global", "global", "__constant",
        "constant", "__local", "local", "__private", "private",
        "unsigned", "signed")]
    if "unsigned" in t.split() and words:
        words[-1] = "u" + words[-1]
    return words[-1] if words else t.strip()


def parse_type(t):
    """OpenCL type name -> (numpy base dtype, lanes, lanes in memory)."""
    m = _TYPE_RE.match(_clean_type(t))
    if not m:
        raise TypeError("crisptest: unsupported OpenCL type %r" % t)
    base = np.dtype(_SCALARS[m.group(1)])
    lanes = int(m.group(2) or 1)
    return base, lanes, (4 if lanes == 3 else lanes)


def dtype_of(t):
    """numpy dtype for an OpenCL type: float -> float32, float4 -> cltypes.float4."""
    base, lanes, _ = parse_type(t)
    if lanes == 1:
        return base
    return getattr(cltypes, _clean_type(t))


def _describe(t):
    base, lanes, _ = parse_type(t)
    if lanes == 1:
        return "%s (numpy %s)" % (t, base.name)
    return "%s (numpy %s with trailing dimension %d, or cltypes.%s)" % (
        t, base.name, lanes, _clean_type(t))


# ----------------------------------------------------------------------
# OpenCL context

_ctx = None
_queue = None


def _context():
    global _ctx, _queue
    if _ctx is None:
        want = os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language")
        plats = cl.get_platforms()
        chosen = [p for p in plats if want.lower() in p.name.lower()]
        if not chosen:
            raise RuntimeError("crisptest: no OpenCL platform matching %r (have: %s)"
                               % (want, ", ".join(p.name for p in plats) or "none"))
        devs = chosen[0].get_devices()
        if not devs:
            raise RuntimeError("crisptest: platform %r has no devices" % chosen[0].name)
        _ctx = cl.Context(devs[:1])
        _queue = cl.CommandQueue(
            _ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    return _ctx, _queue


def device_name():
    """'PLATFORM / DEVICE' of the device the tests run on."""
    ctx, _ = _context()
    d = ctx.devices[0]
    return "%s / %s" % (d.platform.name.strip(), d.name.strip())


def device_local_mem_size():
    """CL_DEVICE_LOCAL_MEM_SIZE of the device the tests run on (bytes);
    CRISPTEST_LOCAL_MEM_SIZE lowers it (49152 rehearses NVIDIA's 48 KiB on
    a CPU device)."""
    ctx, _ = _context()
    have = ctx.devices[0].local_mem_size
    cap = os.environ.get("CRISPTEST_LOCAL_MEM_SIZE")
    return min(have, int(cap)) if cap else have


def device_ocl_version():
    """The OpenCL C version the device reports (CL_DEVICE_OPENCL_C_VERSION),
    as (major, minor).  (PoCL 3.1 and NVIDIA's drivers also list 3.0 among
    CL_DEVICE_OPENCL_C_ALL_VERSIONS while saying 1.2 here; the tests take
    what they say here.)"""
    ctx, _ = _context()
    m = re.search(r"OpenCL C (\d+)\.(\d+)", ctx.devices[0].opencl_c_version)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 2)


# ----------------------------------------------------------------------
# Running crisp and clang

def crisp(*args, cwd=None, timeout=60):
    """Run the compiler with raw arguments; returns (status, stdout, stderr)."""
    r = subprocess.run([_crisp_path()] + [str(a) for a in args], cwd=cwd or REPO,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def clang_check(cl_path, cl_std="CL1.2"):
    """Validate OpenCL C with clang; raises CompileError with its output.
    A file with the sub-group warp lowering is checked with it too."""
    if CLANG in ("", "none"):
        return  # CLANG=none: a machine without clang (the GPU machines)
    runs = [[CLANG] + CLANG_CL_FLAGS + ["-cl-std=" + cl_std, cl_path]]
    with open(cl_path) as f:
        if "#ifdef CRISP_WARP_SUBGROUPS" in f.read():
            runs.append(runs[0][:1] + CLANG_SUBGROUPS + runs[0][1:])
    for cmd in runs:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise CompileError("clang rejected %s:\n%s\n(%s)" % (_rel(cl_path), r.stderr.rstrip(), " ".join(cmd[1:])))


def _rel(p):
    p = os.path.abspath(p)
    return os.path.relpath(p, REPO) if p.startswith(REPO + os.sep) else p


def _resolve(path):
    if os.path.isabs(path):
        return path
    in_repo = os.path.join(REPO, path)
    return in_repo if os.path.exists(in_repo) or not os.path.exists(path) \
        else os.path.abspath(path)


def out_dir(*parts):
    """tests/out/e2e/<test file>/<parts> (created): where a test may write files."""
    script = os.path.splitext(os.path.basename(sys.argv[0] or "interactive"))[0]
    d = os.path.join(OUT_ROOT, "e2e", script or "interactive", *parts)
    os.makedirs(d, exist_ok=True)
    return d


_compiled = {}


def compile(crisp_file, out_dir_=None, defines=None, output_base=None, flags=(), build_options="", **kw):
    """Transpile CRISP_FILE (a path, or a list of paths) and build it.

    defines: {"NAME": value} passed as -DNAME=VALUE; flags: extra options
    (e.g. ["--debug-output", "--ocl-version=3.0"]); build_options: more
    OpenCL build options (e.g. "-DCRISP_WARP_LOCAL=1").  The output goes to
    out_dir_ (default tests/out/e2e/<test file>/<base>[-<hash>]).
    Raises CompileError with the compiler's (clang's, PoCL's) messages."""
    out_dir_ = kw.pop("out_dir", out_dir_)
    if kw:
        raise TypeError("compile(): unexpected arguments %s" % ", ".join(kw))
    files = [crisp_file] if isinstance(crisp_file, (str, os.PathLike)) else list(crisp_file)
    files = [_resolve(os.fspath(f)) for f in files]
    defines = dict(defines or {})
    base = output_base or os.path.splitext(os.path.basename(files[-1]))[0]
    key = (tuple(files), tuple(sorted((k, str(v)) for k, v in defines.items())) + tuple(flags), base, out_dir_,
           build_options)
    if key in _compiled:
        return _compiled[key]
    if out_dir_ is None:
        sub = base
        if defines or flags:
            sub += "-%08x" % zlib.crc32(repr(key[1]).encode())
        out_dir_ = out_dir(sub)
    os.makedirs(out_dir_, exist_ok=True)
    args = ["--transpile-to=oclc", "--metadata", "--output-dir=" + out_dir_]
    if output_base:
        args.append("--output-base=" + output_base)
    args += ["-D%s=%s" % (k, _define_text(v)) for k, v in defines.items()]
    args += list(flags)
    cl_path = os.path.join(out_dir_, base + ".cl")
    meta_path = os.path.join(out_dir_, base + ".metacrisp")
    for p in (cl_path, meta_path):
        if os.path.exists(p):
            os.remove(p)
    status, out, err = crisp(*(args + files))
    if status != 0:
        raise CompileError("crisp %s exited with status %d:\n%s" % (
            " ".join(_rel(f) for f in files), status, (err + out).rstrip()))
    for p in (cl_path, meta_path):
        if not os.path.exists(p):
            raise CompileError("crisp exited 0 but did not write %s" % _rel(p))
    prog = load_program(cl_path, meta_path, build_options=build_options)
    _compiled[key] = prog
    return prog


def _define_text(v):
    if isinstance(v, bool):
        return "t" if v else "nil"
    return str(v)


def load_program(cl_path, meta, validate=True, build_options=""):
    """Build a Program from an OpenCL C file and its metadata (a path or a dict).
    Also the entry point for hand-written kernels (tests of the harness, bench)."""
    if not isinstance(meta, dict):
        with open(meta) as f:
            text = f.read()
        try:
            meta = json.loads(text)
        except ValueError as e:
            raise CompileError("%s is not valid JSON: %s" % (_rel(meta), e))
    std = meta.get("build_options", "-cl-std=CL1.2")
    if validate:
        clang_check(cl_path, std.replace("-cl-std=", ""))
    with open(cl_path) as f:
        source = f.read()
    return Program(source, meta, name=_rel(cl_path), build_options=build_options)


# ----------------------------------------------------------------------
# Programs and kernel calls

class Program:
    def __init__(self, source, meta, name="<program>", build_options=""):
        self.name = name
        self.source = source
        self.meta = meta
        self.kernels = {}
        for k in meta.get("kernels", []):
            args = sorted(k.get("args", []), key=lambda a: a["index"])
            if [a["index"] for a in args] != list(range(len(args))):
                raise CompileError("%s: kernel %s: arg indices are not 0..%d"
                                   % (name, k.get("name"), len(args) - 1))
            self.kernels[k["name"]] = dict(k, args=args)
        ctx, _ = _context()
        try:
            opts = "%s -Werror %s" % (meta.get("build_options", "-cl-std=CL1.2"), build_options)
            self.cl = cl.Program(ctx, source).build(options=opts.strip())
        except cl.RuntimeError as e:
            raise CompileError("OpenCL build of %s failed:\n%s" % (name, e))
        names = set(self.cl.get_info(cl.program_info.KERNEL_NAMES).split(";")) - {""}
        if names != set(self.kernels):
            raise CompileError("%s: kernels in metadata %s != kernels in the program %s"
                               % (name, sorted(self.kernels), sorted(names)))
        for kname, k in self.kernels.items():
            n = cl.Kernel(self.cl, kname).get_info(cl.kernel_info.NUM_ARGS)
            if n != len(k["args"]):
                raise CompileError("%s: kernel %s takes %d arguments but the metadata lists %d"
                                   % (name, kname, n, len(k["args"])))
        self.last_kernel_seconds = None

    def params(self, kernel_name):
        """The Crisp parameters (metadata args with role scalar/buffer), in order."""
        return [a for a in self._kernel(kernel_name)["args"]
                if a["role"] in ("scalar", "buffer")]

    def _kernel(self, kernel_name):
        try:
            return self.kernels[kernel_name]
        except KeyError:
            raise KeyError("%s has no kernel %r (kernels: %s)"
                           % (self.name, kernel_name, ", ".join(sorted(self.kernels))))

    def run(self, kernel_name, *args, global_size=None, local_size=None, global_offset=None, **named):
        """Run a kernel.  ARGS are the Crisp parameters in order (numpy arrays
        for vectors, numbers for scalars; an int element count or
        cl.LocalMemory for a __local vector); parameters may also be given by
        name.  Length arguments are set from the arrays.  Arrays that the
        kernel may write are copied back in place."""
        k = self._kernel(kernel_name)
        ctx, queue = _context()
        params = self.params(kernel_name)
        if len(args) > len(params):
            raise TypeError("kernel %s takes %d arguments (%s), got %d" % (
                kernel_name, len(params), ", ".join(a["name"] for a in params), len(args)))
        values = {}
        for a, v in zip(params, args):
            values[a["name"]] = v
        others = {a["name"] for a in k["args"] if a["role"] not in ("length",)}
        for name, v in named.items():
            if name not in others:
                raise TypeError("kernel %s has no parameter %r" % (kernel_name, name))
            if name in values:
                raise TypeError("parameter %r given twice" % name)
            values[name] = v
        SIDE = ("result", "implicit", "scratch", "debug", "local")
        missing = [a["name"] for a in k["args"]
                   if a["role"] not in ("length",) + SIDE and a["name"] not in values]
        if missing:
            raise TypeError("kernel %s: missing argument(s) %s (roles: %s)" % (
                kernel_name, ", ".join(missing), ", ".join(
                    a["role"] for a in k["args"] if a["name"] in missing)))

        kernel = cl.Kernel(self.cl, kernel_name)
        lengths = {}      # buffer name -> element count
        scalars = {}      # scalar name -> python value
        copy_back = []    # (host array, staged array, cl buffer, lanes)
        cl_args = [None] * len(k["args"])
        for a in k["args"]:
            if a["role"] == "length" or (a["role"] in SIDE and a["name"] not in values):
                continue
            v = values[a["name"]]
            if a.get("address_space") == "local" or isinstance(v, cl.LocalMemory):
                cl_args[a["index"]], lengths[a["name"]] = self._local_arg(kernel_name, a, v)
            elif "element" in a or a["role"] == "buffer":
                buf, n, back = self._buffer_arg(ctx, queue, kernel_name, a, v)
                cl_args[a["index"]], lengths[a["name"]] = buf, n
                if back:
                    copy_back.append(back)
            else:
                cl_args[a["index"]] = _scalar_value(kernel_name, a, v)
                scalars[a["name"]] = v
        gsize, lsize = self._sizes(k, lengths, scalars, global_size, local_size)
        if lsize is None and not k.get("single_task") and any(a["role"] == "local" for a in k["args"]):
            # __local memory sized by the workgroup (the warp memory of
            # docs/warps.md): the host must know the local size, so it picks
            # one - the largest that divides the global size, up to 256
            cap = min(256, kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.devices[0]))
            l0 = max(d for d in range(1, max(1, cap) + 1) if gsize[0] % d == 0) if gsize[0] else 1
            lsize = (l0,) + (1,) * (len(gsize) - 1)
        # side channels the caller did not pass: sized from the metadata
        sides = {}
        env = {"math": math}
        for d in range(3):
            env["global_size%d" % d] = gsize[d] if d < len(gsize) else 1
            env["local_size%d" % d] = (lsize[d] if lsize and d < len(lsize) else 1)
            env["num_groups%d" % d] = -(-env["global_size%d" % d] // env["local_size%d" % d])
        env["global_linear_size"] = env["global_size0"] * env["global_size1"] * env["global_size2"]
        env["local_linear_size"] = env["local_size0"] * env["local_size1"] * env["local_size2"]
        for name, n in lengths.items():
            env[_mangle(name) + "_len"] = n
        for name, v in scalars.items():
            env[_mangle(name)] = v
        for d in range(3):  # bounds for what the kernel touches (docs/abi.md)
            env["max_local_size%d" % d] = env["local_size%d" % d] if lsize else env["global_size%d" % d]
            env["max_num_groups%d" % d] = env["num_groups%d" % d] if lsize else env["global_size%d" % d]
        for a in k["args"]:
            if "touches" in a and a["name"] in lengths and all(g > 0 for g in gsize):
                need = int(eval(a["touches"]["python"], env))
                if lengths[a["name"]] < need:
                    raise ValueError("kernel %s: argument %s has %d elements; the kernel touches %d (%s)"
                                     % (kernel_name, a["name"], lengths[a["name"]], need, a["touches"]["python"]))
        for a in k["args"]:
            if a["role"] not in SIDE or a["name"] in values:
                continue
            if a["role"] == "local":
                # workgroup scratch: only a size (at least one element)
                n = int(eval(a["size"]["python"], env))
                cl_args[a["index"]] = cl.LocalMemory(max(n, 1) * a["stride"])
                lengths[a["name"]] = n
                continue
            if a["role"] == "debug":
                arr = np.zeros(65536, np.uint32)
                arr[0] = 2
            else:
                spec = a["bytes"] if a["role"] == "scratch" else a["size"]
                n = int(eval(spec["python"], env))
                dt = np.uint8 if a["role"] == "scratch" else dtype_of(a["element"])
                arr = np.zeros(max(n, 0), dt)
            values[a["name"]] = sides[a["name"]] = arr
            buf, n, back = self._buffer_arg(ctx, queue, kernel_name, a, arr)
            cl_args[a["index"]], lengths[a["name"]] = buf, n
            if back:
                copy_back.append(back)
        for a in k["args"]:
            if a["role"] == "length":
                p = a.get("param")
                if p not in lengths:
                    raise TypeError("kernel %s: length arg %d measures unknown buffer %r"
                                    % (kernel_name, a["index"], p))
                cl_args[a["index"]] = _scalar_value(kernel_name, a, lengths[p])

        self._check_local_mem(k, cl_args, lsize)
        for i, v in enumerate(cl_args):
            kernel.set_arg(i, v)
        self.last_kernel_seconds = None
        if all(g > 0 for g in gsize):
            offset = None
            if global_offset is not None:
                offset = tuple(global_offset) if isinstance(global_offset, (tuple, list)) else (global_offset,)
                offset = offset + (0,) * (len(gsize) - len(offset))
            ev = cl.enqueue_nd_range_kernel(queue, kernel, gsize, lsize, global_work_offset=offset)
            ev.wait()
            self.last_kernel_seconds = (ev.profile.end - ev.profile.start) * 1e-9
        for host, staged, buf, lanes in copy_back:
            cl.enqueue_copy(queue, staged, buf).wait()
            if staged is not host:
                _unstage(host, staged, lanes)
        queue.finish()
        self.last_sides = sides
        return sides

    def local_mem_bytes(self, kernel_name, local_linear_size):
        """The __local bytes per workgroup the metadata gives for a launch
        with LOCAL_LINEAR_SIZE work-items a group ("local_mem", docs/abi.md),
        or None when it depends on more than the local size."""
        lm = self._kernel(kernel_name).get("local_mem")
        if not lm:
            return 0
        if set(lm["size"]["inputs"]) - {"local_linear_size"}:
            return None
        return int(eval(lm["size"]["python"], {"local_linear_size": local_linear_size}))

    def _check_local_mem(self, k, cl_args, lsize):
        # what the hoists do before a launch: the fixed __local vectors plus
        # every __local argument, against CL_DEVICE_LOCAL_MEM_SIZE
        if not lsize:
            return
        need = (k.get("local_mem") or {}).get("static_bytes", 0)
        need += sum(v.size for v in cl_args if isinstance(v, cl.LocalMemory))
        have = device_local_mem_size()
        if need > have:
            raise LocalMemoryError(
                "kernel %s needs %d bytes of local memory per workgroup at a local size of %s, "
                "but the device has %d (CL_DEVICE_LOCAL_MEM_SIZE); launch it with fewer work-items "
                "a workgroup or fewer items per thread" % (
                    k["name"], need, "x".join(str(x) for x in lsize), have))

    # -- arguments ------------------------------------------------------
    def _buffer_arg(self, ctx, queue, kname, a, v):
        elem = a.get("element") or a["type"]
        structs = {st["cname"]: st for st in self.meta.get("structs", [])}
        if elem in structs:
            # a buffer of def-structs: a numpy structured array with the
            # struct's std140 itemsize (see struct_dtype)
            st = structs[elem]
            if not isinstance(v, np.ndarray) or v.dtype.itemsize != st["size"] or not v.flags.c_contiguous:
                raise TypeError("kernel %s: argument %r takes a contiguous numpy array of struct %s "
                                "(itemsize %d; see crisptest.struct_dtype)" % (kname, a["name"], st["name"], st["size"]))
            read_only = a.get("access", "read_write") == "read_only"
            flags = cl.mem_flags.COPY_HOST_PTR | (cl.mem_flags.READ_ONLY if read_only else cl.mem_flags.READ_WRITE)
            buf = cl.Buffer(ctx, flags, hostbuf=v if v.size else np.zeros(st["size"], np.uint8))
            return buf, v.size, None if read_only else (v, v, buf, None)
        if elem == "void":
            # def-kernel-exact voidp: any contiguous array, passed as bytes
            if not isinstance(v, np.ndarray) or not v.flags.c_contiguous:
                raise TypeError("kernel %s: voidp argument %r takes a contiguous numpy array"
                                % (kname, a["name"]))
            buf = cl.Buffer(ctx, cl.mem_flags.COPY_HOST_PTR | cl.mem_flags.READ_WRITE,
                            hostbuf=v if v.nbytes else np.zeros(1, np.uint8))
            return buf, v.nbytes, (v, v, buf, None) if v.nbytes else None
        base, lanes, mem_lanes = parse_type(elem)
        stride = int(a.get("stride") or base.itemsize * mem_lanes)
        if not isinstance(v, np.ndarray):
            raise TypeError("kernel %s: argument %r must be a numpy array of %s, got %s"
                            % (kname, a["name"], _describe(elem), type(v).__name__))
        flat = _lanes_view(kname, a, v, elem, base, lanes)   # (n, user_lanes), no copy when possible
        n = flat.shape[0]
        slots = stride // base.itemsize
        if stride % base.itemsize or slots < flat.shape[1]:
            raise TypeError("kernel %s: argument %r: stride %d does not fit %s"
                            % (kname, a["name"], stride, elem))
        if slots == flat.shape[1] and v.flags.c_contiguous and v.dtype.fields is None \
                and n > 0:
            staged = v          # upload / download in place
        else:
            staged = np.zeros((max(n, 1), slots), base)
            staged[:n, :flat.shape[1]] = flat
        read_only = a.get("access", "read_write") == "read_only"
        flags = cl.mem_flags.COPY_HOST_PTR | (
            cl.mem_flags.READ_ONLY if read_only else cl.mem_flags.READ_WRITE)
        buf = cl.Buffer(ctx, flags, hostbuf=staged)
        back = None if read_only else (v, staged, buf, flat.shape[1])
        return buf, n, back

    def _local_arg(self, kname, a, v):
        elem = a.get("element") or a["type"]
        base, _, mem_lanes = parse_type(elem)
        stride = int(a.get("stride") or base.itemsize * mem_lanes)
        if isinstance(v, cl.LocalMemory):
            return v, v.size // stride
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0:
            return cl.LocalMemory(max(int(v), 1) * stride), int(v)
        raise TypeError("kernel %s: __local argument %r takes an element count (int) "
                        "or cl.LocalMemory, got %s" % (kname, a["name"], type(v).__name__))

    def _sizes(self, k, lengths, scalars, global_size, local_size):
        def from_meta(spec, what):
            if not spec:
                return None
            if spec.get("set_to") is not None:
                return tuple(int(x) for x in spec["set_to"])
            if spec.get("derive_from") is not None:
                out = []
                for name in spec["derive_from"]:
                    if name in lengths:
                        out.append(lengths[name])
                    elif name in scalars:
                        out.append(int(scalars[name]))
                    else:
                        raise TypeError("kernel %s: %s derives from unknown parameter %r"
                                        % (k["name"], what, name))
                return tuple(out)
            return None

        if k.get("single_task"):
            return (1,), None
        g = _tuple(global_size) or from_meta(k.get("global_size"), "global_size")
        if g is None:
            bufs = [a["name"] for a in k["args"] if a["name"] in lengths]
            if not bufs:
                raise TypeError("kernel %s: cannot infer the global size (no vector "
                                "parameter, no global-size declaration); pass global_size="
                                % k["name"])
            g = (lengths[bufs[0]],)
        lsz = _tuple(local_size) or from_meta(k.get("local_size"), "local_size")
        if lsz is not None:
            if len(lsz) != len(g):
                raise TypeError("kernel %s: local size %r and global size %r differ in "
                                "dimensions" % (k["name"], lsz, g))
            g = tuple(-(-gi // li) * li for gi, li in zip(g, lsz))
        return tuple(int(x) for x in g), lsz


def struct_dtype(meta, name):
    """The numpy dtype of a def-struct, from the metadata's std140 layout."""
    structs = {st["name"]: st for st in meta.get("structs", [])}
    by_c = {st["cname"]: st for st in meta.get("structs", [])}
    st = structs.get(name) or by_c[name]
    names, formats, offsets = [], [], []
    for f in st["fields"]:
        t = f["type"]
        if t in by_c:
            fmt = struct_dtype(meta, t)
        else:
            base, lanes, _ = parse_type(t)
            fmt = (base, (lanes,)) if lanes > 1 else base
        names.append(f["name"])
        formats.append(fmt)
        offsets.append(f["offset"])
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": st["size"]})


def _mangle(name):
    """Crisp name -> the identifier size expressions use (docs/abi.md)."""
    out = []
    for ch in name:
        out.append(ch if ch.isalnum() or ch == "_" else "_" if ch == "-" else "_")
    return "".join(out).lstrip("_") or "v"


def _tuple(x):
    if x is None:
        return None
    if isinstance(x, (int, np.integer)):
        return (int(x),)
    return tuple(int(v) for v in x)


def _lanes_view(kname, a, v, elem, base, lanes):
    """View a caller's array as (n, lanes) of the base type, checking its dtype."""
    bad = TypeError("kernel %s: argument %r expects an array of %s, got dtype %s shape %s"
                    % (kname, a["name"], _describe(elem), v.dtype, v.shape))
    if v.dtype.fields is not None:          # cltypes.float4 etc.
        if lanes == 1 or v.dtype != dtype_of(elem):
            raise bad
        mem = 4 if lanes == 3 else lanes
        return np.ascontiguousarray(v).view(base).reshape(-1, mem)[:, :lanes]
    if v.dtype != base:
        raise bad
    if lanes == 1:
        return v.reshape(-1, 1)
    if v.ndim < 1 or v.shape[-1] not in ((lanes, 4) if lanes == 3 else (lanes,)):
        raise bad
    return v.reshape(-1, v.shape[-1])


def _unstage(host, staged, lanes):
    """Copy the first LANES of each staged element back into the caller's array."""
    if host.dtype.fields is not None:       # cltypes vectors
        n = host.size
        tmp = np.zeros((n, len(host.dtype.names)), staged.dtype)
        tmp[:, :lanes] = staged[:n, :lanes]
        host[...] = tmp.view(host.dtype).reshape(host.shape)
    else:
        n = host.size // lanes
        host[...] = staged[:n, :lanes].reshape(host.shape)


def _scalar_value(kname, a, v):
    t = a["type"]
    base, lanes, _ = parse_type(t)
    where = "kernel %s: argument %r (%s)" % (kname, a["name"], t)
    if isinstance(v, np.ndarray) and lanes == 1 and v.ndim > 0:
        raise TypeError("%s is a scalar, got an array" % where)
    if lanes > 1:
        arr = np.asarray(v)
        if arr.dtype.fields is not None:    # cltypes.make_float4(...) and the like
            comps = [arr[()][f] for f in arr.dtype.names][:lanes] if arr.ndim == 0 else []
        else:
            comps = list(arr.reshape(-1))
        if len(comps) != lanes:
            raise TypeError("%s needs %d components, got %d" % (where, lanes, len(comps)))
        dt = dtype_of(t)
        vals = [_number(where, base, c) for c in comps]
        vals += [base.type(0)] * (len(dt.names) - len(vals))
        return np.array(tuple(vals), dtype=dt)[()]
    return _number(where, base, v)


def _number(where, base, v):
    if base.kind in "iu":
        if isinstance(v, (float, np.floating)) or not isinstance(
                v, (int, np.integer, bool, np.bool_)):
            raise TypeError("%s needs an integer, got %r" % (where, v))
        info = np.iinfo(base)
        if not info.min <= int(v) <= info.max:
            raise OverflowError("%s: %d is out of range [%d, %d]"
                                % (where, int(v), info.min, info.max))
        return base.type(int(v))
    if not isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)):
        raise TypeError("%s needs a number, got %r" % (where, v))
    return base.type(v)


# ----------------------------------------------------------------------
# Assertions

def _default_tol(dt):
    dt = np.dtype(dt)
    if dt.kind not in "fc":
        return 0.0, 0.0
    return {2: (1e-3, 1e-3), 4: (1e-5, 1e-6), 8: (1e-12, 1e-14)}.get(dt.itemsize, (1e-5, 1e-6))


def _as_plain(x):
    x = np.asarray(x)
    if x.dtype.fields is not None:      # cltypes vectors -> trailing dimension
        names = [n for n in x.dtype.names if not n.startswith("padding")]
        x = np.stack([x[n] for n in names], axis=-1)
    return x


def assert_close(actual, expected, rtol=None, atol=None, name=None):
    """Elementwise |actual - expected| <= atol + rtol*|expected| (NaN == NaN).
    Default tolerances follow actual's dtype (exact for integers)."""
    actual, expected = _as_plain(actual), _as_plain(expected)
    drt, dat = _default_tol(actual.dtype)
    rtol = drt if rtol is None else rtol
    atol = dat if atol is None else atol
    what = (name + ": ") if name else ""
    if expected.shape != actual.shape:
        if expected.ndim == 0:
            expected = np.broadcast_to(expected, actual.shape)
        else:
            raise AssertionError("%sshape %s != expected shape %s"
                                 % (what, actual.shape, expected.shape))
    a = actual.astype(np.float64) if actual.dtype.kind in "fc" or expected.dtype.kind in "fc" \
        else actual.astype(object)
    e = expected.astype(a.dtype)
    if a.dtype == object:
        ok = a == e
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    ok = np.asarray(ok, bool)
    if ok.all():
        return
    bad = np.argwhere(~ok)
    lines = ["%s%d of %d elements differ (rtol=%g, atol=%g)"
             % (what, len(bad), ok.size, rtol, atol)]
    for idx in bad[:8]:
        idx = tuple(int(i) for i in idx)
        lines.append("  at %s: got %r, expected %r" % (
            list(idx) if len(idx) != 1 else idx[0], actual[idx].item(), expected[idx].item()))
    if a.dtype != object:
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(a - e)
            fin = np.isfinite(diff)
            if fin.any():
                lines.append("  max abs error %g" % diff[fin].max())
    raise AssertionError("\n".join(lines))


def assert_equal(actual, expected, name=None):
    """Exact equality (arrays elementwise, with the same reporting as assert_close)."""
    if isinstance(actual, np.ndarray) or isinstance(expected, np.ndarray):
        return assert_close(actual, expected, rtol=0, atol=0, name=name)
    if actual != expected:
        raise AssertionError("%sgot %r, expected %r" % ((name + ": ") if name else "",
                                                     actual, expected))


def assert_raises(exc_type, fn, *args, match=None, **kwargs):
    """fn(*args, **kwargs) must raise exc_type (whose message contains match)."""
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        if match is not None and match not in str(e):
            raise AssertionError("%s raised, but %r is not in its message:\n%s"
                                 % (exc_type.__name__, match, e))
        return e
    raise AssertionError("%s was not raised" % exc_type.__name__)


# ----------------------------------------------------------------------
# Test registry

_cases = []
_results = {"passed": 0, "failed": 0}
_state = {"current": None, "done": False, "crashed": False}


def case(fn_or_name=None):
    """Register a test case: `@case`, or `@case("name")` / `case("name")(fn)`."""
    def register(fn, name=None):
        _cases.append((name or fn.__name__, fn))
        return fn
    if callable(fn_or_name):
        return register(fn_or_name)
    return lambda fn: register(fn, fn_or_name)


def _report(name, ok, reason="", detail=""):
    if ok:
        _results["passed"] += 1
        print("ok %s" % name)
    else:
        _results["failed"] += 1
        first, _, rest = str(reason).partition("\n")
        print("FAIL %s: %s" % (name, first))
        more = (rest + "\n" + detail).strip("\n")
        if more:
            print("\n".join("    " + line for line in more.splitlines()))
    sys.stdout.flush()


def check(name, cond, reason=""):
    """Inside a case: fail the case unless cond.  Outside: a one-line test."""
    if _state["current"] is not None:
        if not cond:
            raise AssertionError("check failed: %s%s" % (name, (": " + reason) if reason else ""))
        return
    _report(name, bool(cond), reason or "check failed")


def _run_cases(selected):
    for name, fn in _cases:
        if selected and not any(s in name for s in selected):
            continue
        np.random.seed(zlib.crc32(name.encode()) & 0xffffffff)
        _state["current"] = name
        try:
            fn()
        except AssertionError as e:
            _report(name, False, e or "assertion failed", _short_tb(e))
        except CompileError as e:
            _report(name, False, e)
        except Exception as e:  # noqa: BLE001 - report any error as a failure
            _report(name, False, "%s: %s" % (type(e).__name__, e), _short_tb(e))
        else:
            _report(name, True)
        finally:
            _state["current"] = None


def _short_tb(e):
    tb = traceback.extract_tb(e.__traceback__)
    here = os.path.abspath(__file__)
    frames = [f for f in tb if os.path.abspath(f.filename) != here] or tb[-1:]
    return "".join(traceback.format_list(frames[-4:])).rstrip()


def main(argv=None):
    """Run the registered cases, print the summary and exit.  Called
    automatically when a test file ends; call it yourself to pass argv."""
    if _state["done"]:
        return
    _state["done"] = True
    selected = sys.argv[1:] if argv is None else argv
    selected += os.environ.get("CRISPTEST_FILTER", "").split()
    if not _state["crashed"]:
        _run_cases(selected)
    script = os.path.basename(sys.argv[0] or "crisptest")
    print("%s: %d passed, %d failed" % (script, _results["passed"], _results["failed"]))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1 if _results["failed"] or _state["crashed"] else 0)


_prev_hook = sys.excepthook


def _excepthook(tp, value, tb):
    """An exception at the top level of a test file (say, compile() failed):
    report it as a failure of the file instead of a bare traceback."""
    _state["crashed"] = True
    if isinstance(value, CompileError):
        _report(os.path.basename(sys.argv[0] or "test"), False, value)
    else:
        _report(os.path.basename(sys.argv[0] or "test"), False,
                "%s: %s" % (tp.__name__, value),
                "".join(traceback.format_tb(tb)[-4:]).rstrip())


def _smoke(paths):
    """`crisptest.py --smoke FILE.crisp...`: compile, validate and build each."""
    for p in paths:
        name = "build " + _rel(_resolve(p))
        stem = os.path.splitext(os.path.basename(p))[0]
        try:
            compile(p, out_dir_=os.path.join(OUT_ROOT, "examples", stem))
        except Exception as e:  # noqa: BLE001
            _report(name, False, e if isinstance(e, CompileError)
                    else "%s: %s" % (type(e).__name__, e))
        else:
            _report(name, True)
    print("smoke: %d passed, %d failed" % (_results["passed"], _results["failed"]))
    sys.stdout.flush()
    os._exit(1 if _results["failed"] else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--smoke"]:
        _smoke(sys.argv[2:])
    print(__doc__)
    sys.exit(0)
else:
    # Imported by a test script: run its cases when it ends.  (Not when
    # imported from `python3 -` or an interactive session.)
    if sys.argv and sys.argv[0].endswith(".py") and os.path.isfile(sys.argv[0]):
        sys.excepthook = _excepthook
        atexit.register(main)


def run_under_oclgrind(child, d, timeout=600, known=None):
    """Run tests/e2e/CHILD (a script that builds and runs programs found in
    D on the platform CRISPTEST_PLATFORM names, printing `platform: ...`
    and `done`) under `oclgrind --data-races --uninitialized`, and read
    oclgrind's log (oclgrind exits 0 even when it reports).  A report block
    for which known(block) is true is oclgrind's own false positive and is
    dropped.  Raises AssertionError on a report or a failed run; returns
    the child's standard output."""
    log = os.path.join(d, "oclgrind.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, CRISPTEST_PLATFORM="Oclgrind",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "tests"), os.path.join(REPO, "tests", "e2e")]))
    # (--max-errors: past oclgrind's default 1000 it stops reporting, and a
    # known false report repeated per store would hide what follows)
    r = subprocess.run(["oclgrind", "--data-races", "--uninitialized", "--max-errors", "1000000",
                        "--log", log, sys.executable,
                        os.path.join(REPO, "tests", "e2e", child), d],
                       capture_output=True, text=True, env=env, timeout=timeout)
    report = open(log).read() if os.path.exists(log) else ""
    blocks = [b.strip() for b in report.strip().split("\n\n") if b.strip()]
    report = "\n\n".join(b for b in blocks if not (known and known(b)))
    if report:
        raise AssertionError("oclgrind reported problems; first lines of %s:\n%s"
                             % (os.path.relpath(log, REPO), "\n".join(report.splitlines()[:20])))
    if r.returncode != 0 or "done" not in r.stdout or "platform: Oclgrind" not in r.stdout:
        raise AssertionError("the runs under oclgrind failed (status %d):\n%s"
                             % (r.returncode, "\n".join((r.stdout + r.stderr).strip().splitlines()[-20:])))
    return r.stdout
