"""crisp_runtime - what Crisp's Python host code shares (PyOpenCL + numpy).

`crisp --hoist=PyOpenCL` writes BASE_hoist_PyOpenCL.py and this file beside
it; `make install` and `pip install` of the crisp repository install it too.
It is one self-contained file (the compiler embeds it) and needs only
PyOpenCL and numpy, from Debian (python3-pyopencl, python3-numpy) or pip.

Two ways to use it
------------------

1. Through a generated hoist module (the usual way):

       import vector_add_hoist_PyOpenCL as hoist
       k = hoist.load()                 # or hoist.load(context, queue)
       k.vector_add(a, b, c)            # numpy: c holds a + b afterwards
       ev = k.vector_add(da, db, dc)    # pyopencl.array.Array: returns at once

2. Directly, from the kernel metadata (BASE.metacrisp), as in the spec's
   "psuedo demonstration" of bitonic sort:

       import crisp_runtime
       stage_one = crisp_runtime.load_kernel("stage_one_kernel")
       buffer = crisp_runtime.create_buffer(host_data)
       stage_one.set_arg("data", buffer)
       queue = crisp_runtime.default_queue()
       stage_one.launch(queue, host_data.size, 256)
       stage_two.launch(queue, buffer, j, k)     # arguments in Crisp order
       buffer.read()                             # host_data holds the result

What the hoists rely on (docs/hoisting-python.md)
-------------------------------------------------

* A vector argument is a numpy array (copied to the device unless the
  kernel only writes it, and back when the kernel may write it), a
  pyopencl.array.Array, a cl.Buffer or an SVM pointer (cl.SVM,
  cl.SVMAllocation), used in place.  Runtime.arg() checks dtypes (TypeError),
  contexts (ValueError) and counts the elements; the generated method then
  checks every length against what the kernel touches (ValueError, see
  too_short()).
* A call with host memory waits (copy back); a call with device memory only
  enqueues and returns the kernel's cl.Event.  A pyopencl array of another
  queue (or of an out-of-order one) has its events waited for, and the
  kernel's event is added to it when the kernel writes it, as PyOpenCL's
  own array operations do; on the kernel's own in-order queue the queue
  orders them.

How the spec's pseudo-code is read (choices)
--------------------------------------------

* `load_kernel(name)` finds the kernel by name in the `*.metacrisp` files
  of $CRISP_KERNEL_PATH (directories separated by os.pathsep), the current
  directory and the running script's directory, or of `path=` (a
  directory, a .cl or a .metacrisp file); the program is BASE.cl beside
  BASE.metacrisp (compile with `crisp --metadata`).  Programs are built
  once per context.
* The example's bare `queue` is any PyOpenCL queue on the kernel's context;
  `default_queue()` is the one `load_kernel` uses when given none.
* `create_buffer(host_data)` keeps the numpy array.  The device copy is
  made when the buffer is first bound to a kernel parameter, in that
  parameter's layout: std140 padding is added there and removed by
  `buffer.read()` ("the runtime handles marshalling to std140").  A buffer
  bound to parameters of different layouts is repacked (through the host).
* `launch` waits for the kernel.  It does not copy buffers back: call
  `buffer.read()` when the host needs the data (so the merge loop of the
  example runs without copies).  Arrays passed directly to `set_arg` or
  `launch` (not through create_buffer) are copied back after every launch.
* `launch(queue, global_size, local_size)` and `launch(queue, data, j, k)`
  both appear in the example.  The values after the queue are kernel
  arguments (in Crisp parameter order) when the first one is a buffer or a
  numpy array, and the global and local size otherwise.  The keywords
  `global_size=` / `local_size=` are always sizes; sizes left out come from
  the kernel's declarations as in the generated hoists.
* Side channels (result, implicit, scratch and debug vectors) are
  allocated by the kernel object from the compiler's size expressions;
  `launch` returns the result vectors (one: the array, several: a tuple),
  `kernel.results` maps their names to the last ones.  Vector lengths are
  checked against the metadata's "touches" like the hoists do.

API summary
-----------

Errors: CrispError (readable message; `.code` holds the OpenCL status when
there is one), BuildError (`.log`).  `error_name(code)`.
Devices: select_device(), create_context(), default_context(),
default_queue(), describe_device(); CRISP_PLATFORM / CRISP_DEVICE pick a
platform / device by case-insensitive substring of its name (the same rule
as crisp_runtime.h).  Without them the first GPU found is used, else the
first device of the first platform that has one.
Programs: build_program(context, source, options, name), load_program(path).
Layout: element(name, stride), std140_stride(), std140_dtype(), to_std140(),
from_std140(), scalar(), scalar_type().
What generated code calls: Runtime(context, queue, unified_memory) with
.arg(), .local(), .result(), .scratch(), .debug(), .launch(), .copy_back(),
.queue_for(); sizes(), too_short(); LaunchSizes, launch_sizes().
Debug channel: decode_debug(words, sites) -> list of text lines.
Metadata-driven kernels: load_kernel(), create_buffer(), Buffer, Kernel.
"""

import glob
import json
import math
import os
import re
import sys
import warnings

import numpy as np

try:
    import pyopencl as cl
    import pyopencl.array as cl_array
except ImportError as _missing:  # pragma: no cover - explained to the user
    raise ImportError(
        "crisp_runtime needs PyOpenCL (%s).  Install it (Debian: apt-get install "
        "python3-pyopencl; or pip install pyopencl) and run with that Python "
        "(Debian's is /usr/bin/python3)." % _missing) from None

ABI_VERSION = 2              # what generated modules expect (require_abi)
BUILD_OPTIONS = "-cl-std=CL1.2"
DEBUG_WORDS = 65536          # default debug channel size (32-bit words)

__all__ = [
    "ABI_VERSION", "BUILD_OPTIONS", "DEBUG_WORDS", "CrispError", "BuildError",
    "error_name", "select_device", "create_context", "default_context",
    "default_queue", "describe_device", "build_program", "load_program",
    "element", "Element", "std140_stride", "std140_dtype", "to_std140", "from_std140",
    "scalar", "scalar_type", "Runtime", "DeviceVector", "LaunchSizes", "launch_sizes",
    "sizes", "too_short", "decode_debug", "preview", "load_kernel", "create_buffer",
    "Buffer", "Kernel", "require_abi", "cl", "cl_array",
]


def require_abi(version):
    """Generated modules call this first: their ABI must be this file's."""
    if version != ABI_VERSION:
        raise ImportError(
            "crisp_runtime.py speaks ABI %d but the generated module needs %d: "
            "write a matching crisp_runtime.py with `crisp --emit-runtime=DIR`"
            % (ABI_VERSION, version))


# ----------------------------------------------------------------------
# Errors

class CrispError(RuntimeError):
    """An OpenCL call failed, or the host passed something the kernel cannot use."""

    def __init__(self, message, code=None):
        RuntimeError.__init__(self, message)
        self.code = code


class LocalMemoryError(CrispError):
    """A workgroup of the kernel needs more local memory than the device has
    (raised before the launch; code: CL_OUT_OF_RESOURCES, what the launch
    would have failed with)."""

    def __init__(self, message):
        CrispError.__init__(self, message, code=-5)


class BuildError(CrispError):
    """The OpenCL compiler rejected a program; `.log` is its build log."""

    def __init__(self, message, log=""):
        CrispError.__init__(self, message, code=-11)
        self.log = log


_ERRORS = {
    0: ("CL_SUCCESS", ""),
    -1: ("CL_DEVICE_NOT_FOUND", "no OpenCL device matches"),
    -2: ("CL_DEVICE_NOT_AVAILABLE", "the device is busy or disabled"),
    -3: ("CL_COMPILER_NOT_AVAILABLE", "this OpenCL implementation cannot compile source"),
    -4: ("CL_MEM_OBJECT_ALLOCATION_FAILURE", "the device ran out of memory for a buffer"),
    -5: ("CL_OUT_OF_RESOURCES", "the device ran out of resources (often: an out-of-bounds access in the kernel)"),
    -6: ("CL_OUT_OF_HOST_MEMORY", "the host ran out of memory"),
    -11: ("CL_BUILD_PROGRAM_FAILURE", "the program did not compile; see the build log"),
    -30: ("CL_INVALID_VALUE", "an argument value is invalid"),
    -33: ("CL_INVALID_DEVICE", "the device does not belong to the context"),
    -34: ("CL_INVALID_CONTEXT", "objects from different contexts were mixed"),
    -36: ("CL_INVALID_COMMAND_QUEUE", "the queue is invalid"),
    -38: ("CL_INVALID_MEM_OBJECT", "a buffer argument is not a valid buffer"),
    -44: ("CL_INVALID_PROGRAM", "the program is invalid"),
    -45: ("CL_INVALID_PROGRAM_EXECUTABLE", "the program was not built for this device"),
    -46: ("CL_INVALID_KERNEL_NAME", "the program has no kernel of that name"),
    -48: ("CL_INVALID_KERNEL", "the kernel object is invalid"),
    -49: ("CL_INVALID_ARG_INDEX", "the kernel has fewer arguments (is the .cl older than the hoist?)"),
    -50: ("CL_INVALID_ARG_VALUE", "an argument value is invalid for its type"),
    -51: ("CL_INVALID_ARG_SIZE", "an argument has the wrong size for its type (is the .cl older than the hoist?)"),
    -52: ("CL_INVALID_KERNEL_ARGS", "some kernel argument was not set"),
    -53: ("CL_INVALID_WORK_DIMENSION", "work_dim must be 1, 2 or 3"),
    -54: ("CL_INVALID_WORK_GROUP_SIZE", "the local size does not divide the global size, or is too large for the kernel"),
    -55: ("CL_INVALID_WORK_ITEM_SIZE", "a local size dimension exceeds the device's limit"),
    -56: ("CL_INVALID_GLOBAL_OFFSET", "the global offset is invalid"),
    -59: ("CL_INVALID_OPERATION", "the operation is not valid here"),
    -61: ("CL_INVALID_BUFFER_SIZE", "a buffer of size 0 or beyond the device limit"),
    -63: ("CL_INVALID_GLOBAL_WORK_SIZE", "the global size is 0 or too large"),
}


def error_name(code):
    """'CL_INVALID_WORK_GROUP_SIZE' for -54; 'OpenCL error N' when unknown."""
    return _ERRORS.get(code, ("OpenCL error %s" % code, ""))[0]


def _cl_error(what, e):
    """A CrispError for a failed PyOpenCL call (its code named and explained)."""
    code = getattr(e, "code", None)
    if callable(code):
        code = code()
    name, hint = _ERRORS.get(code, ("OpenCL error %s" % code, ""))
    detail = getattr(e, "what", None)
    detail = detail() if callable(detail) else str(e)
    msg = "%s failed: %s" % (what, name)
    if hint:
        msg += " (%s)" % hint
    if detail and name not in detail:
        msg += "\n  PyOpenCL: %s" % detail.strip()
    return CrispError(msg, code)


def _call(what, fn, *args, **kwargs):
    """fn(*args, **kwargs), turning PyOpenCL errors into readable CrispErrors."""
    try:
        return fn(*args, **kwargs)
    except cl.Error as e:
        raise _cl_error(what, e) from None


# ----------------------------------------------------------------------
# Platform and device selection

def _matches(want, name):
    return want.lower() in name.lower()


def select_device(platform=None, device=None):
    """The (platform, device) to use, chosen as crisp_runtime.h does.

    PLATFORM (default: $CRISP_PLATFORM): the first platform whose name
    contains it (case-insensitive).  DEVICE (default: $CRISP_DEVICE): the
    first device whose name contains it or, when it is a number, the device
    with that index among the devices of the chosen platform(s).  Neither:
    the first GPU of any platform, else the first device."""
    want_p = platform if platform is not None else os.environ.get("CRISP_PLATFORM") or None
    want_d = device if device is not None else os.environ.get("CRISP_DEVICE") or None
    want_d = None if want_d is None else str(want_d)
    index = int(want_d) if want_d is not None and want_d.isdigit() else None
    try:
        platforms = cl.get_platforms()
    except cl.Error as e:
        platforms = []
        why = str(e)
    else:
        why = "none installed"
    if not platforms:
        raise CrispError("no OpenCL platform found (%s): install an OpenCL driver (ICD), "
                         "e.g. pocl-opencl-icd" % why)
    for gpu_pass in ((False,) if want_d else (True, False)):
        seen = 0
        for p in platforms:
            if want_p and not _matches(want_p, p.name):
                continue
            try:
                devs = p.get_devices(cl.device_type.GPU if gpu_pass else cl.device_type.ALL)
            except cl.Error:
                continue
            for d in devs:
                ok = seen == index if index is not None else (not want_d or _matches(want_d, d.name))
                seen += 1
                if ok:
                    return p, d
    installed = []
    for p in platforms:
        try:
            names = ", ".join(d.name.strip() for d in p.get_devices())
        except cl.Error:
            names = ""
        installed.append("%s: %s" % (p.name.strip(), names or "no devices"))
    raise CrispError("no OpenCL device matches CRISP_PLATFORM=%s CRISP_DEVICE=%s; installed:\n  %s"
                     % (want_p or "(any)", want_d or "(any)", "\n  ".join(installed)))


def describe_device(device):
    """'pthread-... (Portable Computing Language, OpenCL 3.0 PoCL ...)'"""
    return "%s (%s, %s)" % (device.name.strip(), device.platform.name.strip(),
                            device.version.strip())


def create_context(platform=None, device=None):
    """A new (context, queue) on select_device(platform, device)."""
    _, dev = select_device(platform, device)
    ctx = _call("clCreateContext on %s" % dev.name.strip(), cl.Context, [dev])
    queue = _call("clCreateCommandQueue", cl.CommandQueue, ctx)
    return ctx, queue


_default = {}


def default_context():
    """The context shared by everything that was given none (created once)."""
    if "ctx" not in _default:
        _default["ctx"], _default["queue"] = create_context()
    return _default["ctx"]


def default_queue():
    """The queue on default_context()."""
    default_context()
    return _default["queue"]


def _context_and_queue(context, queue):
    if context is None and queue is None:
        return default_context(), default_queue()
    if context is None:
        return queue.context, queue
    if queue is None:
        if context == _default.get("ctx"):
            return context, _default["queue"]
        return context, _call("clCreateCommandQueue", cl.CommandQueue, context)
    if queue.context != context:
        raise CrispError("the queue belongs to another context than the one given")
    return context, queue


# ----------------------------------------------------------------------
# Programs

def build_program(context, source, options=BUILD_OPTIONS, name="<program>"):
    """Build OpenCL C SOURCE; a failure raises BuildError with the build log."""
    prog = cl.Program(context, source)
    try:
        return prog.build(options=options)
    except cl.Error as e:
        log = str(e)
        where = ", ".join(d.name.strip() for d in context.devices)
        raise BuildError("OpenCL build of %s failed on %s (options %r):\n%s"
                         % (name, where, options, log.strip()), log) from None


def load_program(path, context=None, options=BUILD_OPTIONS):
    """Read and build an OpenCL C file (default context when none given)."""
    try:
        with open(path) as f:
            source = f.read()
    except OSError as e:
        raise CrispError("cannot read %s: %s (compile the Crisp source with "
                         "--transpile-to=oclc or --hoist=...)" % (path, e.strerror)) from None
    return build_program(context or default_context(), source, options, name=path)


def spirv_support(device):
    """'' when DEVICE builds SPIR-V programs (clCreateProgramWithIL: OpenCL 2.1's
    CL_DEVICE_IL_VERSION, or cl_khr_il_program), else why not."""
    try:
        il = device.il_version or ""
    except (cl.Error, AttributeError):
        il = ""
    if "SPIR-V" in il or "cl_khr_il_program" in (device.extensions or ""):
        return ""
    return "%s takes no SPIR-V (no CL_DEVICE_IL_VERSION, no cl_khr_il_program)" % device.name.strip()


def ptx_support(device):
    """'' when DEVICE takes PTX as its program binary (NVIDIA's OpenCL, whose
    program binaries are PTX text), else why not."""
    name = device.platform.name.strip()
    if "NVIDIA" in name:
        return ""
    return "%s is not NVIDIA's OpenCL, whose program binaries are PTX" % name


def _il_options(options):
    """Build options for a SPIR-V program: -cl-std= is the source's business."""
    return " ".join(o for o in (options or "").split() if not o.startswith("-cl-std="))


def create_kernel(program, name):
    """cl.Kernel(program, name) with a readable error."""
    return _call("clCreateKernel(%s)" % name, cl.Kernel, program, name)


# ----------------------------------------------------------------------
# Element types and layouts

# @shim-part scalar_names: runtime-shim/parts/scalar_names.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
_SCALARS = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64,
    "bool": np.uint8, "size_t": np.uint64,
}
_TYPE_RE = re.compile(r"^(char|uchar|short|ushort|int|uint|long|ulong|half|float|"
                      r"double|bool|size_t)(2|3|4|8|16)?$")
_QUALIFIERS = {"const", "volatile", "restrict", "__global", "global", "__constant",
               "constant", "__local", "local", "__private", "private"}


def _bare(name):
    """'__global const float4 *' -> 'float4'"""
    words = [w for w in name.replace("*", " ").split() if w not in _QUALIFIERS]
    return words[-1] if words else name.strip()


def _dtype_text(dt):
    """A dtype for messages: structured ones by their fields, not their repr."""
    if dt.names and not all(re.match(r"(s\d+|padding\d*)$", n) for n in dt.names):
        return "a structured dtype with fields %s, %d bytes" % (", ".join(dt.names), dt.itemsize)
    return str(dt)


def _round_up(n, m):
    return -(-int(n) // int(m)) * int(m)
# @shim-part end scalar_names


class Element:
    """A vector element as the kernel stores it.

    name     OpenCL type ("float", "float4", "void") or a struct's name
    base     numpy dtype of one lane (float32), or the struct's dtype
    lanes    lanes the host gives (3 for float3), mem_lanes as stored (4)
    size     bytes of one element in compact form
    stride   bytes between elements in the kernel's layout (16 for std140 float)

    Host arrays: a scalar element takes arrays of `base` (any shape, C
    order); an N-lane element takes `base` arrays whose last dimension is N
    (3-lane ones also 4) or the matching pyopencl.cltypes dtype; a struct
    takes arrays of its numpy structured dtype; "void" (def-kernel-exact's
    voidp) takes any array as raw bytes."""

    def __init__(self, name, stride=None, dtype=None):
        self.name = name if dtype is None else (name or str(dtype))
        self.vector_dtype = None
        if dtype is not None:                       # a struct
            self.base = np.dtype(dtype)
            self.lanes = self.mem_lanes = 1
            self.kind = "struct"
        elif name == "void":
            self.base = np.dtype(np.uint8)
            self.lanes = self.mem_lanes = 1
            self.kind = "void"
        else:
            m = _TYPE_RE.match(_bare(name))
            if not m:
                raise TypeError("crisp_runtime: unsupported element type %r" % name)
            self.name = _bare(name)
            self.base = np.dtype(_SCALARS[m.group(1)])
            self.lanes = int(m.group(2) or 1)
            self.mem_lanes = 4 if self.lanes == 3 else self.lanes
            self.kind = "scalar" if self.lanes == 1 else "vector"
            if self.lanes > 1:
                try:
                    import pyopencl.cltypes as cltypes
                    self.vector_dtype = getattr(cltypes, self.name, None)
                except ImportError:  # pragma: no cover
                    pass
        self.size = self.base.itemsize * self.mem_lanes
        self.stride = int(stride) if stride else self.size
        if self.stride < self.size:
            raise TypeError("crisp_runtime: stride %d is smaller than %s (%d bytes)"
                            % (self.stride, self.name, self.size))
        # what device arrays (pyopencl.array.Array) of this element hold: the
        # layout itself, padding included (std140: a structured dtype)
        if self.stride != self.size:
            fmt = self.base if self.lanes == 1 else (self.base, self.mem_lanes)
            self.device_dtype = np.dtype({"names": ["v"], "formats": [fmt], "itemsize": self.stride})
        elif self.kind == "vector":
            self.device_dtype = self.vector_dtype if self.vector_dtype is not None else self.base
        else:
            self.device_dtype = self.base
        # numpy arrays that are already in the kernel's layout: used as they are
        self._direct = self.stride == self.size and self.kind in ("scalar", "struct")

    def describe(self):
        """How the host passes it, for messages."""
        if self.kind == "void":
            return "void (any numpy array, as bytes)"
        if self.kind == "struct":
            return "struct %s (%s)" % (self.name, _dtype_text(self.base))
        if self.lanes == 1:
            return "%s (numpy %s)" % (self.name, self.base.name)
        shapes = "(..., %d)" % self.lanes + (" or (..., 4)" if self.lanes == 3 else "")
        return "%s (numpy %s with shape %s, or pyopencl.cltypes.%s)" % (
            self.name, self.base.name, shapes, self.name)

    # -- what the hoists call on every launch (kept short: per-call cost) --
    def host(self, array, kernel, name):
        """(n, staged) for numpy ARRAY passed for parameter NAME of KERNEL:
        staged is C-contiguous in this element's layout - ARRAY itself when
        it already is, so results land in place.  TypeError when its dtype
        or shape does not fit."""
        if self._direct and array.dtype == self.base and array.flags.c_contiguous:
            return array.size, array
        if (self.kind == "vector" and self.stride == self.size and array.flags.c_contiguous
                and ((array.dtype == self.base and array.ndim and array.shape[-1] == self.mem_lanes)
                     or (self.vector_dtype is not None and array.dtype == self.vector_dtype))):
            return array.size // (self.mem_lanes if array.dtype == self.base else 1), array
        return self.pack(array, "kernel %s: argument %s" % (kernel, name))

    def device_count(self, value, kernel, name):
        """Elements in VALUE, a pyopencl.array.Array given for NAME: its dtype
        must be this layout (device_dtype; for N-lane elements also `base`
        with a last dimension of mem_lanes).  TypeError otherwise."""
        dt = value.dtype
        if not value.flags.c_contiguous:
            raise TypeError("kernel %s: argument %s must be a contiguous pyopencl.array.Array"
                            % (kernel, name))
        if dt == self.device_dtype:
            return value.size
        if self.kind == "void":
            return value.nbytes
        if (self.kind == "vector" and self.stride == self.size and dt == self.base and value.ndim
                and value.shape[-1] == self.mem_lanes):
            return value.size // self.mem_lanes
        raise TypeError("kernel %s: argument %s expects a pyopencl.array.Array of %s, got dtype %s "
                        "shape %s" % (kernel, name, self.describe_device(), _dtype_text(dt), value.shape))

    def describe_device(self):
        """What device arrays of this element look like, for messages."""
        if self.stride != self.size:
            return "%s in std140 layout (dtype crisp_runtime.std140_dtype(%r), %d bytes)" % (
                self.name, self.name, self.stride)
        if self.kind == "vector":
            return "%s (pyopencl.cltypes.%s, or %s with shape (..., %d))" % (
                self.name, self.name, self.base.name, self.mem_lanes)
        return self.describe()

    def new_device(self, queue, n):
        """A zero-filled pyopencl.array.Array for N elements in this layout."""
        if self.kind == "vector" and self.stride == self.size:
            return cl_array.zeros(queue, (n, self.mem_lanes), self.base)
        return cl_array.zeros(queue, (n,), self.device_dtype)

    def new_array(self, n):
        """A zero-filled host array for N elements (results are returned so)."""
        if self.lanes == 1:
            return np.zeros(n, self.base)
        return np.zeros((n, self.lanes), self.base)

# @shim-part element_layout: runtime-shim/parts/element_layout.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
    def compact(self, array, where="argument"):
        """Check ARRAY; return (n, mem): mem is C-contiguous and its bytes are
        the n elements in compact form (the array itself when possible)."""
        if not isinstance(array, np.ndarray):
            raise TypeError("%s must be a numpy array of %s, got %s"
                            % (where, self.describe(), type(array).__name__))
        dt = array.dtype
        if self.kind == "void":
            mem = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
            return mem.size, mem
        bad = TypeError("%s expects an array of %s, got dtype %s shape %s"
                        % (where, self.describe(), _dtype_text(dt), array.shape))
        if self.kind == "struct" or (dt.fields is not None and self.lanes > 1):
            if dt != (self.base if self.kind == "struct" else self.vector_dtype):
                raise bad
            mem = np.ascontiguousarray(array).reshape(-1)
            return mem.size, mem
        if dt != self.base:
            raise bad
        if self.lanes == 1:
            mem = np.ascontiguousarray(array).reshape(-1)
            return mem.size, mem
        if array.ndim < 1 or array.shape[-1] not in (self.lanes, self.mem_lanes):
            raise bad
        rows = array.reshape(-1, array.shape[-1])
        if rows.shape[1] == self.mem_lanes:
            return rows.shape[0], np.ascontiguousarray(rows)
        mem = np.zeros((rows.shape[0], self.mem_lanes), self.base)
        mem[:, :rows.shape[1]] = rows
        return rows.shape[0], mem

    def pack(self, array, where="argument"):
        """(n, staged): the elements laid out with this stride (std140
        padding added); staged is ARRAY itself when no conversion is needed."""
        n, mem = self.compact(array, where)
        if self.stride == self.size:
            return n, mem
        staged = np.zeros((n, self.stride), np.uint8)
        staged[:, :self.size] = mem.view(np.uint8).reshape(n, self.size)
        return n, staged

    def unpack(self, staged, n, out):
        """Write N elements laid out with this stride (STAGED, any dtype) into
        OUT, an array this element accepts (padding removed); returns OUT."""
        raw = np.asarray(staged).reshape(-1).view(np.uint8)[:n * self.stride]
        raw = np.ascontiguousarray(raw.reshape(n, self.stride)[:, :self.size])
        if self.kind == "void":
            out[...] = raw.reshape(-1)[:out.nbytes].view(out.dtype).reshape(out.shape)
        elif out.dtype.fields is not None or self.lanes == 1:
            out[...] = raw.view(out.dtype).reshape(out.shape)
        else:
            vals = raw.view(self.base).reshape(n, self.mem_lanes)
            out[...] = vals[:, :out.shape[-1]].reshape(out.shape)
        return out


_elements = {}


def element(name, stride=None, dtype=None):
    """The (cached) Element for an OpenCL type name and stride; pass DTYPE
    (a numpy structured dtype) for a struct element."""
    key = (name, stride, None if dtype is None else np.dtype(dtype))
    if key not in _elements:
        _elements[key] = Element(name, stride, dtype)
    return _elements[key]


def std140_stride(elem):
    """Bytes between std140 array elements: the size rounded up to 16."""
    e = elem if isinstance(elem, Element) else element(elem)
    return max(16, _round_up(e.size, 16))
# @shim-part end element_layout


def std140_dtype(elem):
    """The numpy dtype of ELEM (e.g. "float") in a std140 vector: the value
    and its padding, for pyopencl.array.Array arguments and results."""
    e = elem if isinstance(elem, Element) else element(elem)
    return element(e.name, std140_stride(e), e.base if e.kind == "struct" else None).device_dtype


# @shim-part std140: runtime-shim/parts/std140.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
def to_std140(array, elem):
    """ARRAY (compact, of element type ELEM, e.g. "float") as std140 bytes:
    a uint8 array of len(array) * std140_stride(ELEM) bytes."""
    e = elem if isinstance(elem, Element) else element(elem)
    e = element(e.name, std140_stride(e), e.base if e.kind == "struct" else None)
    n, staged = e.pack(array, "to_std140")
    return staged.reshape(-1).view(np.uint8) if staged.dtype != np.uint8 else staged.reshape(-1)


def from_std140(data, elem, count=None):
    """The inverse of to_std140: a compact numpy array of COUNT elements
    (default: as many as DATA holds)."""
    e = elem if isinstance(elem, Element) else element(elem)
    e = element(e.name, std140_stride(e), e.base if e.kind == "struct" else None)
    raw = np.asarray(data).reshape(-1).view(np.uint8)
    n = raw.size // e.stride if count is None else int(count)
    if n * e.stride > raw.size:
        raise ValueError("from_std140: %d %s elements need %d bytes, got %d"
                         % (n, e.name, n * e.stride, raw.size))
    return e.unpack(raw, n, e.new_array(n) if e.kind != "struct" else np.zeros(n, e.base))
# @shim-part end std140


def _vector_dtype_of(type_name):
    """The numpy dtype of vector type TYPE_NAME (float4): pyopencl.cltypes'."""
    import pyopencl.cltypes as cltypes
    return getattr(cltypes, _bare(type_name))


# @shim-part scalar: runtime-shim/parts/scalar.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
def scalar(where, type_name, value, dtype=None):
    """VALUE as the numpy scalar a kernel argument of TYPE_NAME needs:
    range-checked integers, floats, tuples for vector types (float4), and
    for a struct (DTYPE given) a value of that dtype or a tuple of its
    fields.  Raises TypeError / OverflowError naming WHERE."""
    if dtype is not None:
        dtype = np.dtype(dtype)
        if isinstance(value, (np.ndarray, np.void)) and value.dtype == dtype and np.size(value) == 1:
            return np.asarray(value).reshape(())
        if isinstance(value, tuple):
            try:
                return np.array(value, dtype=dtype).reshape(())
            except (TypeError, ValueError) as e:
                raise TypeError("%s (struct %s): %s" % (where, type_name, e)) from None
        raise TypeError("%s is a struct %s: pass a value of its numpy dtype or a tuple of its "
                        "fields, got %r" % (where, type_name, value))
    m = _TYPE_RE.match(_bare(type_name))
    if not m:
        raise TypeError("%s: unsupported scalar type %r" % (where, type_name))
    base = np.dtype(_SCALARS[m.group(1)])
    lanes = int(m.group(2) or 1)
    if lanes == 1:
        if isinstance(value, np.ndarray) and value.ndim > 0:
            raise TypeError("%s is a %s scalar, got an array" % (where, type_name))
        return _number(where, type_name, base, value)
    dt = _vector_dtype_of(type_name)
    arr = np.asarray(value)
    if arr.dtype.fields is not None:
        comps = [arr[()][f] for f in arr.dtype.names][:lanes] if arr.ndim == 0 else []
    else:
        comps = list(arr.reshape(-1))
    if len(comps) != lanes:
        raise TypeError("%s (%s) needs %d components, got %d"
                        % (where, type_name, lanes, len(comps)))
    vals = [_number(where, type_name, base, c) for c in comps]
    vals += [base.type(0)] * (len(dt.names) - len(vals))
    return np.array(tuple(vals), dtype=dt)[()]
# @shim-part end scalar


# @shim-part values: runtime-shim/parts/values.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
def _number(where, type_name, base, v):
    if base.kind in "iu":
        if isinstance(v, (float, np.floating)) or not isinstance(
                v, (int, np.integer, bool, np.bool_)):
            raise TypeError("%s (%s) needs an integer, got %r" % (where, type_name, v))
        info = np.iinfo(base)
        if not info.min <= int(v) <= info.max:
            raise OverflowError("%s (%s): %d is out of range [%d, %d]"
                                % (where, type_name, int(v), info.min, info.max))
        return base.type(int(v))
    if not isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)):
        raise TypeError("%s (%s) needs a number, got %r" % (where, type_name, v))
    return base.type(v)


class ScalarType:
    """A scalar parameter type, converting values on every call: plain Python
    ints in range and floats pass straight through (the kernel packs them
    with its scalar dtypes); anything else goes through scalar()."""

    def __init__(self, type_name, dtype=None):
        self.type_name = type_name
        self.dtype = dtype
        m = _TYPE_RE.match(_bare(type_name)) if dtype is None else None
        base = np.dtype(_SCALARS[m.group(1)]) if m and not m.group(2) else None
        self.arg_dtype = base                   # for Kernel.set_scalar_arg_dtypes
        self._int = base is not None and base.kind in "iu"
        self._float = base is not None and base.kind == "f"
        if self._int:
            info = np.iinfo(base)
            self._lo, self._hi = int(info.min), int(info.max)

    def __call__(self, value, kernel, name):
        t = type(value)
        if self._int and t is int and self._lo <= value <= self._hi:
            return value
        if self._float and (t is float or t is int):
            return value
        return scalar("kernel %s: argument %s" % (kernel, name), self.type_name, value, self.dtype)


def scalar_type(type_name, dtype=None):
    """The ScalarType of an OpenCL type name (a struct: its numpy DTYPE)."""
    return ScalarType(type_name, dtype)


# ----------------------------------------------------------------------
# Launch sizes

class LaunchSizes:
    """The global and local size of one launch, and the values the size
    expressions of docs/abi.md use: global_size0..2, local_size0..2 (1 when
    not set), num_groups0..2, global_linear_size, local_linear_size, and
    the bounds max_local_size0..2 / max_num_groups0..2 (the global size
    when OpenCL chooses the local size)."""

    def __init__(self, global_size, local_size):
        self.global_size = tuple(int(g) for g in global_size)
        self.local_size = None if local_size is None else tuple(int(x) for x in local_size)
        self.dims = len(self.global_size)
        g = self.global_size + (1,) * (3 - self.dims)
        l = (self.local_size or ()) + (1,) * (3 - len(self.local_size or ()))
        for i in range(3):
            setattr(self, "global_size%d" % i, g[i])
            setattr(self, "local_size%d" % i, l[i])
            setattr(self, "num_groups%d" % i, -(-g[i] // l[i]))
            # bounds on what a kernel sees (docs/abi.md): OpenCL may choose the local size
            setattr(self, "max_local_size%d" % i, l[i] if self.local_size else g[i])
            setattr(self, "max_num_groups%d" % i, -(-g[i] // l[i]) if self.local_size else g[i])
        self.global_linear_size = g[0] * g[1] * g[2]
        self.local_linear_size = l[0] * l[1] * l[2]

    def __repr__(self):
        return "LaunchSizes(global_size=%r, local_size=%r)" % (self.global_size, self.local_size)

    def __str__(self):
        return "global size %s, local size %s" % (self.global_size, self.local_size)


def _size_tuple(where, what, x):
    if x is None:
        return None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        x = (x,)
    try:
        t = tuple(int(v) for v in x)
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be an int or a tuple of 1-3 ints, got %r"
                        % (where, what, x)) from None
    if not 1 <= len(t) <= 3 or any(v < 0 for v in t):
        raise ValueError("%s: %s must have 1-3 non-negative dimensions, got %r"
                         % (where, what, x))
    return t


def launch_sizes(where, global_size, local_size=None, dims=None):
    """LaunchSizes from what the caller or the declarations gave: ints or
    tuples; the global size is rounded up to a multiple of the local size
    (kernels guard the extra threads with check-thread-bounds)."""
    g = _size_tuple(where, "global_size", global_size)
    if g is None:
        raise TypeError("%s: no global size (pass global_size=)" % where)
    lsz = _size_tuple(where, "local_size", local_size)
    if lsz is not None:
        if any(v == 0 for v in lsz):
            raise ValueError("%s: local_size %r has a zero dimension" % (where, lsz))
        if len(lsz) != len(g):
            raise ValueError("%s: local_size %r and global_size %r differ in dimensions"
                             % (where, lsz, g))
        g = tuple(_round_up(gi, li) for gi, li in zip(g, lsz))
    if dims is not None and len(g) != dims:
        raise ValueError("%s: the kernel declares %d dimension(s), got global_size %r"
                         % (where, dims, g))
    return LaunchSizes(g, lsz)


def sizes(kernel, global_size, local_size, dims=None):
    """(global, local) tuples of one launch, what generated methods call:
    ints or tuples from the caller or the declarations, checked; the global
    size rounded up to a multiple of the local size (kernels guard the
    extra threads with check-thread-bounds).  local is None when OpenCL
    chooses it."""
    if type(global_size) is tuple and local_size is None and (dims is None or len(global_size) == dims) \
            and all(type(v) is int and v >= 0 for v in global_size) and 1 <= len(global_size) <= 3:
        return global_size, None
    s = launch_sizes("kernel " + kernel, global_size, local_size, dims)
    return s.global_size, s.local_size


def local_mem_message(kernel, global_size, local_size, need, have, what):
    """The message for a launch of KERNEL whose workgroup needs NEED bytes of
    local memory where the device has HAVE (WHAT: the device's figure).
    GLOBAL_SIZE None: the kernel's fixed __local vectors, checked at load."""
    if global_size is None:
        launch = "any launch"
    else:
        launch = "global %s, local %s" % (" x ".join(map(str, global_size)),
                                          " x ".join(map(str, local_size)) if local_size else "not set")
    return ("kernel %s (%s) needs %d bytes of local memory per workgroup, but the device has %d (%s): "
            "launch it with fewer work-items a workgroup, or fewer items per thread"
            % (kernel, launch, need, have, what))


def too_short(kernel, name, have, need, what):
    """Raise the ValueError for vector NAME of KERNEL holding HAVE elements
    where the kernel may touch NEED (WHAT: the size expression)."""
    raise ValueError("kernel %s: argument %s has %d element%s; it needs at least %d, what the kernel "
                     "may touch (%s)" % (kernel, name, have, "" if have == 1 else "s", need, what))
# @shim-part end values


# ----------------------------------------------------------------------
# Device memory

def svm_support(device):
    """'' when DEVICE can take coarse-grain SVM buffers from PyOpenCL, else why
    not.  CRISP_NO_SVM=1 in the environment turns SVM off (to test the
    fallback, or for a driver whose SVM misbehaves)."""
    if os.environ.get("CRISP_NO_SVM", "") not in ("", "0"):
        return "CRISP_NO_SVM is set"
    if not hasattr(cl, "SVM") or not hasattr(cl, "svm_empty"):
        return "this PyOpenCL has no SVM support"
    try:
        major = int(device.platform.version.split()[1].split(".")[0])
    except (IndexError, ValueError):
        major = 1
    if major < 2:
        return "the platform is OpenCL %s (SVM needs 2.0)" % device.platform.version.split()[1]
    try:
        caps = device.svm_capabilities
    except (cl.Error, AttributeError):
        caps = 0
    if not caps & cl.device_svm_capabilities.COARSE_GRAIN_BUFFER:
        return "the device reports no coarse-grain buffer SVM"
    return ""


_svm_warned = set()


class DeviceVector:
    """One vector's device memory during a call.

    host     the host array (the caller's, or a new one for results)
    length   element count (bytes for "void" and the scratch pool)
    arg      what set_arg takes (cl.Buffer, cl.SVM or cl.LocalMemory)
    Call read_back() after the kernel: it copies the device data into host
    (padding removed) and returns host."""

    def __init__(self, runtime, host, elem, length, staged, writeable, arg):
        self.runtime = runtime
        self.host = host
        self.element = elem
        self.length = length
        self._staged = staged
        self.writeable = writeable
        self.arg = arg
        # staged is (a view of) host itself: the device data lands in place
        self._in_place = staged is not None and host is not None and (
            staged is host or (elem.stride == elem.size and staged.base is not None
                               and np.may_share_memory(staged, host)))

    def read_back(self):
        rt = self.runtime
        if self._staged is None:
            return self.host
        if isinstance(self.arg, cl.Buffer):
            _call("clEnqueueReadBuffer", cl.enqueue_copy, rt.queue, self._staged, self.arg)
            if self._in_place:
                return self.host
            staged = self._staged
        else:                               # coarse-grain SVM: map to read
            with self.arg.map_ro(rt.queue) as mapped:
                staged = np.array(mapped, copy=True)
        self.element.unpack(staged, self.length, self.host)
        return self.host


class Runtime:
    """A context and queue, and the buffer helpers generated code calls.

    unified_memory=True (crisp --hoist-unified-memory) allocates OpenCL 2.0
    shared virtual memory where the device has it; elsewhere it says once on
    stderr why not and uses ordinary buffers."""

    def __init__(self, context=None, queue=None, unified_memory=False):
        self.context, self.queue = _context_and_queue(context, queue)
        self.device = self.queue.device
        # a workgroup's local memory, for the generated methods' check
        self.local_mem_size = self.device.local_mem_size
        # ordered: the queue when it orders what runs on it (no events needed
        # between calls on it), None when it is out of order
        props = self.queue.properties
        self.ordered = None if props & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE else self.queue
        self.unified_memory = False
        if unified_memory:
            why = svm_support(self.device)
            if why:
                key = self.device.int_ptr if hasattr(self.device, "int_ptr") else id(self.device)
                if key not in _svm_warned:       # a warning Python's filters control, once per device
                    _svm_warned.add(key)
                    warnings.warn("crisp_runtime: unified memory requested, but %s: %s; using device "
                                  "buffers and copies instead" % (self.device.name.strip(), why),
                                  RuntimeWarning, stacklevel=2)
            else:
                self.unified_memory = True

    # -- programs ------------------------------------------------------
    def build_file(self, path, options=BUILD_OPTIONS):
        return load_program(path, self.context, options)

    def build_spirv_or_file(self, spv_path, cl_path, options=BUILD_OPTIONS):
        """The SPIR-V at SPV_PATH (crisp --ir-target=spv) built with
        clCreateProgramWithIL where the device takes SPIR-V; else the OpenCL
        C at CL_PATH, with a RuntimeWarning saying why.  self.program_origin
        says which ("SPIR-V" or "OpenCL C")."""
        why = spirv_support(self.device)
        if not why and not os.path.isfile(spv_path):
            why = "%s does not exist" % spv_path
        if not why:
            with open(spv_path, "rb") as f:
                il = f.read()
            try:
                prog = cl.Program(self.context, il).build(options=_il_options(options))
            except cl.Error as e:
                why = "building %s failed (%s)" % (os.path.basename(spv_path), str(e).strip().splitlines()[0])
            else:
                self.program_origin = "SPIR-V"
                return prog
        warnings.warn("crisp_runtime: not loading the SPIR-V, %s: building %s instead"
                      % (why, os.path.basename(cl_path)), RuntimeWarning, stacklevel=2)
        self.program_origin = "OpenCL C"
        return self.build_file(cl_path, options)

    def build_built(self, cl_path, options=BUILD_OPTIONS, spv_path=None, ptx_path=None):
        """What crisp built beside the OpenCL C at CL_PATH, for this device:
        the PTX at PTX_PATH (crisp's BASE_nvcl.ptx, --ir-target=ptx with
        this hoist: the nvptx64-nvidia-nvcl PTX) as the program binary on
        NVIDIA's OpenCL (clCreateProgramWithBinary: a program binary there is
        PTX text); else the SPIR-V at SPV_PATH where the device takes SPIR-V
        (build_spirv_or_file); else the .cl, with a RuntimeWarning saying why
        not the PTX.  self.program_origin says which ("PTX", "SPIR-V",
        "OpenCL C")."""
        why = ""
        if ptx_path:
            why = ptx_support(self.device)
            if not why and not os.path.isfile(ptx_path):
                why = "%s does not exist" % ptx_path
            if not why:
                with open(ptx_path, "rb") as f:
                    ptx = f.read() + b"\0"      # PTX text, NUL-terminated as NVIDIA's own binaries are
                try:
                    prog = cl.Program(self.context, [self.device], [ptx]).build()
                except cl.Error as e:
                    why = "building %s failed (%s)" % (os.path.basename(ptx_path), str(e).strip().splitlines()[0])
                else:
                    self.program_origin = "PTX"
                    return prog
        if spv_path:
            prog = self.build_spirv_or_file(spv_path, cl_path, options)
            if self.program_origin == "SPIR-V" or not why:
                return prog
        if why:
            warnings.warn("crisp_runtime: not loading the PTX, %s: building %s instead"
                          % (why, os.path.basename(cl_path)), RuntimeWarning, stacklevel=2)
        if spv_path:
            return prog
        self.program_origin = "OpenCL C"
        return self.build_file(cl_path, options)

    def build_source(self, source, options=BUILD_OPTIONS, name="<embedded source>"):
        return build_program(self.context, source, options, name)

    # -- memory --------------------------------------------------------
    def _device_memory(self, what, staged, writeable, upload=True):
        """Device memory holding STAGED (a C-contiguous array)."""
        nbytes = max(staged.nbytes, 1)
        if self.unified_memory:
            ary = _call("clSVMAlloc for " + what, cl.svm_empty, self.context,
                        cl.svm_mem_flags.READ_WRITE, nbytes, np.uint8)
            svm = cl.SVM(ary)
            if upload:
                with svm.map_rw(self.queue) as mapped:
                    mapped[:staged.nbytes] = staged.reshape(-1).view(np.uint8)
            return svm
        mf = cl.mem_flags
        flags = mf.READ_WRITE if writeable else mf.READ_ONLY
        if upload and staged.nbytes:
            return _call("clCreateBuffer for " + what, cl.Buffer, self.context,
                         flags | mf.COPY_HOST_PTR, hostbuf=staged)
        buf = _call("clCreateBuffer for " + what, cl.Buffer, self.context, flags, nbytes)
        return buf

    def vector(self, kernel, name, array, elem, stride=None, access="read_write",
               address_space="global", min_length=None, dtype=None):
        """The device copy of a vector argument.  Checks the array's dtype
        (TypeError), adds std140 padding, uploads; read_back() brings the
        kernel's writes back into ARRAY (for writeable access).  ELEM is an
        Element or an OpenCL type name (a struct's name with its DTYPE)."""
        e = elem if isinstance(elem, Element) else element(elem, stride, dtype)
        where = "kernel %s: argument %s" % (kernel, name)
        n, staged = e.pack(array, where)
        if min_length is not None and n < min_length:
            raise ValueError("%s has %d elements; the kernel needs at least %d"
                             % (where, n, min_length))
        writeable = access != "read_only"
        if address_space == "constant":
            limit = self.device.max_constant_buffer_size
            if staged.nbytes > limit:
                raise ValueError("%s: %d bytes exceed the device's __constant limit of %d"
                                 % (where, staged.nbytes, limit))
        arg = self._device_memory(where, staged, writeable)
        length = staged.nbytes if e.kind == "void" else n
        return DeviceVector(self, array, e, length, staged if writeable else None,
                            writeable, arg)

    def allocate(self, kernel, name, count, elem, stride=None, dtype=None):
        """A zero-filled vector of COUNT elements the kernel fills (result,
        implicit and scratch vectors); read_back() returns it as a new
        host array."""
        e = elem if isinstance(elem, Element) else element(elem, stride, dtype)
        count = int(math.ceil(count)) if isinstance(count, float) else int(count)
        if count < 0:
            raise ValueError("kernel %s: %s: negative size %d" % (kernel, name, count))
        host = e.new_array(count)
        staged = np.zeros(count * e.stride, np.uint8)
        arg = self._device_memory("kernel %s: %s" % (kernel, name), staged, True)
        return DeviceVector(self, host, e, count, staged, True, arg)

    def local_vector(self, kernel, name, count, elem, stride=None, dtype=None):
        """A __local vector parameter: the host gives its element count."""
        e = elem if isinstance(elem, Element) else element(elem, stride, dtype)
        if isinstance(count, cl.LocalMemory):
            return DeviceVector(self, None, e, count.size // e.stride, None, False, count)
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise TypeError("kernel %s: __local argument %s takes an element count (int), got %r"
                            % (kernel, name, count))
        mem = cl.LocalMemory(max(int(count), 1) * e.stride)
        return DeviceVector(self, None, e, int(count), None, False, mem)

    def debug_channel(self, words=DEBUG_WORDS):
        """The --debug-output buffer: WORDS 32-bit words, words[0] = 2 (the
        write cursor), words[1] = 0 (dropped records)."""
        host = np.zeros(int(words), np.uint32)
        host[0] = 2
        e = element("uint")
        arg = self._device_memory("the debug channel", host, True)
        return DeviceVector(self, host, e, int(words), host, True, arg)

    # -- arguments and launches ----------------------------------------
    def set_arg(self, kernel, index, name, value):
        """kernel.set_arg(index, value), naming the argument on failure."""
        try:
            kernel.set_arg(index, value)
        except cl.Error as e:
            raise _cl_error("clSetKernelArg(%s, %d: %s)" % (kernel.function_name, index, name),
                            e) from None

    def launch_and_wait(self, kernel, sizes):
        """Enqueue KERNEL over SIZES (a LaunchSizes) and wait for it.  A
        global size with a zero dimension launches nothing."""
        if any(g == 0 for g in sizes.global_size):
            return
        what = "clEnqueueNDRangeKernel(%s, global %r, local %r)" % (
            kernel.function_name, sizes.global_size, sizes.local_size)
        ev = _call(what, cl.enqueue_nd_range_kernel, self.queue, kernel,
                   sizes.global_size, sizes.local_size)
        _call(what, ev.wait)


    # -- what generated methods call on every launch ---------------------
    # (one call per argument; errors name the kernel and the argument; the
    # common cases come first because this is per-call overhead)

    def queue_for(self, queue):
        """QUEUE when it is a command queue on this context (ValueError otherwise)."""
        if queue is self.queue:
            return queue
        if not isinstance(queue, cl.CommandQueue):
            raise TypeError("queue= takes a pyopencl.CommandQueue, got %s" % type(queue).__name__)
        if queue.context != self.context:
            raise ValueError("queue= is on another context than the one the kernels were built on")
        return queue

    def arg(self, queue, kernel, name, value, elem, access, copies, events, written):
        """(argument, elements) for vector parameter NAME of KERNEL, launched
        on QUEUE.

        VALUE is a numpy array (copied to the device unless ACCESS is
        "write_only"; when the kernel may write it, COPIES gets what
        copy_back() needs), a pyopencl.array.Array, a cl.Buffer or an SVM
        pointer (used as they are).  An array of another queue than QUEUE
        (or of an out-of-order queue) has its events waited for (EVENTS) and
        gets the kernel's event when the kernel may write it (WRITTEN); on
        QUEUE itself, in order, the queue orders them.  TypeError for a
        wrong dtype or kind, ValueError for memory of another context."""
        t = type(value)
        if t is _CL_ARRAY and value.queue is queue is self.ordered and not value.offset \
                and value.dtype == elem.device_dtype and value.flags.c_contiguous:
            return value.base_data, value.size   # the common device case, kept short
        if t is np.ndarray:
            n, staged = elem.host(value, kernel, name)
            try:
                if self.unified_memory:
                    mem = self._svm(staged, access != "write_only")
                elif access == "write_only" or not staged.nbytes:
                    mem = cl.Buffer(self.context, _MF_WRITE if access == "write_only" else _MF_READ_WRITE,
                                    staged.nbytes or 1)
                else:
                    mem = cl.Buffer(self.context, _MF_UPLOAD_RO if access == "read_only" else _MF_UPLOAD_RW,
                                    hostbuf=staged)
            except cl.Error as e:
                raise _cl_error("kernel %s: the device copy of %s (%d bytes)" % (kernel, name, staged.nbytes),
                                e) from None
            if access != "read_only":
                copies.append((value, staged, mem, elem, n))
            return mem, n
        if isinstance(value, cl_array.Array):
            if value.queue is not queue and value.context != self.context:
                raise ValueError("kernel %s: argument %s is a pyopencl.array.Array on another context "
                                 "than the kernel's" % (kernel, name))
            n = elem.device_count(value, kernel, name)
            if value.queue is not queue or queue is not self.ordered:
                if value.events:
                    events.extend(value.events)
                if access != "read_only":
                    written.append(value)
            if value.offset:
                try:
                    return value.base_data.get_sub_region(value.offset, max(value.nbytes, 1)), n
                except cl.Error as e:
                    raise _cl_error("kernel %s: argument %s starts %d bytes into its buffer, which the "
                                    "device cannot address (copy it)" % (kernel, name, value.offset), e) from None
            return value.base_data, n
        if isinstance(value, cl.MemoryObjectHolder):
            if value.context != self.context:
                raise ValueError("kernel %s: argument %s is a cl.Buffer on another context than the "
                                 "kernel's" % (kernel, name))
            return value, value.size // elem.stride
        if isinstance(value, cl.SVMPointer):
            mem = getattr(value, "mem", None)
            if isinstance(mem, np.ndarray) and elem.kind != "void" and mem.dtype != elem.device_dtype \
                    and mem.dtype != elem.base:
                raise TypeError("kernel %s: argument %s expects SVM memory of %s, got dtype %s"
                                % (kernel, name, elem.describe_device(), _dtype_text(mem.dtype)))
            return value, value.size // elem.stride
        raise TypeError("kernel %s: argument %s takes a numpy array, a pyopencl.array.Array, a cl.Buffer "
                        "or an SVM pointer of %s, got %s" % (kernel, name, elem.describe(), type(value).__name__))

    def local(self, kernel, name, count, elem):
        """(cl.LocalMemory, elements) for a __local parameter: an element count."""
        if isinstance(count, cl.LocalMemory):
            return count, count.size // elem.stride
        if type(count) is not int and (isinstance(count, bool) or not isinstance(count, (int, np.integer))) \
                or count < 0:
            raise TypeError("kernel %s: __local argument %s takes an element count (int), got %r"
                            % (kernel, name, count))
        return cl.LocalMemory(max(int(count), 1) * elem.stride), int(count)

    def result(self, queue, kernel, name, count, elem, on_device, copies, results, written):
        """The device memory of a result (or an implicit vector nobody gave):
        COUNT zero-filled elements.  RESULTS gets what the caller receives: a
        pyopencl.array.Array (ON_DEVICE; WRITTEN gets it too, for the
        kernel's event) or a numpy array, which COPIES will fill."""
        n = _count(kernel, name, count)
        if on_device:
            ary = elem.new_device(queue, n)
            results.append(ary)
            written.append(ary)
            return ary.base_data
        host = elem.new_array(n)
        staged = host if elem.stride == elem.size and elem.lanes == elem.mem_lanes else \
            np.zeros(n * elem.stride, np.uint8)
        mem = self._zeros(queue, kernel, name, max(staged.nbytes, 1))
        copies.append((host, staged, mem, elem, n))
        results.append(host)
        return mem

    def scratch(self, queue, kernel, nbytes):
        """The scratch pool: NBYTES zero-filled bytes on the device."""
        return self._zeros(queue, kernel, "the scratch pool", max(_count(kernel, "scratch", nbytes), 1))

    def debug(self, words):
        """The --debug-output channel: WORDS 32-bit words, words[0] = 2 (the
        write cursor), words[1] = 0 (dropped records).  Read it with
        read_debug() after the kernel."""
        host = np.zeros(int(words), np.uint32)
        host[0] = 2
        return cl.Buffer(self.context, _MF_UPLOAD_RW, hostbuf=host), int(words)

    def read_debug(self, queue, mem, words, sites):
        """The decoded records of a debug channel (waits for the kernel)."""
        host = np.empty(words, np.uint32)
        queue.finish()                      # the kernel, on an out-of-order queue too
        cl.enqueue_copy(queue, host, mem)
        return decode_debug(host, sites)

    def launch(self, kernel, queue, global_size, local_size, args, events, written=None):
        """Enqueue KERNEL with ARGS (all of them, in order) after EVENTS and
        return its cl.Event (a marker when a global size is 0: nothing runs).
        WRITTEN pyopencl arrays get the event, as PyOpenCL's own operations
        do.  Does not wait.  (Generated methods do the same inline, with
        marker(), launch_error() and add_event().)"""
        try:
            if 0 in global_size:
                ev = self.marker(queue, events)
            else:
                ev = kernel(queue, global_size, local_size, *args, wait_for=events or None)
        except cl.Error as e:
            raise self.launch_error(kernel, global_size, local_size, e) from None
        if written:
            self.add_event(written, ev)
        return ev

    @staticmethod
    def marker(queue, events):
        """The event of a launch with a zero global size (nothing runs)."""
        return cl.enqueue_marker(queue, wait_for=events or None)

    def local_mem_error(self, kernel, need, global_size, local_size):
        """The LocalMemoryError of a launch of KERNEL whose workgroup needs
        NEED bytes of local memory, more than the device has."""
        return LocalMemoryError(local_mem_message(kernel, global_size, local_size, need, self.local_mem_size,
                                                  "CL_DEVICE_LOCAL_MEM_SIZE"))

    @staticmethod
    def launch_error(kernel, global_size, local_size, error):
        """The exception to raise for cl.Error ERROR from enqueueing KERNEL."""
        return _cl_error("clEnqueueNDRangeKernel(%s, global %r, local %r)"
                         % (kernel.function_name, global_size, local_size), error)

    @staticmethod
    def add_event(written, ev):
        """Give EV to every pyopencl array of WRITTEN (as PyOpenCL's own
        operations do)."""
        for a in written:
            a.add_event(ev)

    def copy_back(self, queue, copies, after=None):
        """Copy every (host, staged, mem, elem, n) of COPIES back into its
        numpy array (padding removed) once AFTER (the kernel's event) is
        done, and wait: the end of a call that was given host memory (on an
        out-of-order queue too)."""
        if queue is self.ordered and not self.unified_memory:
            # an in-order queue runs the copies after the kernel and in order:
            # no wait lists, and the last copy blocks, as hand-written code
            # does (docs/hoisting-python.md: the numpy path was 32 us a call
            # slower than that on the H200 with non-blocking copies and a wait)
            last = len(copies) - 1
            try:
                for i, (host, staged, mem, elem, n) in enumerate(copies):
                    cl.enqueue_copy(queue, staged, mem, is_blocking=i == last)
            except cl.Error as e:
                raise _cl_error("copying a result back", e) from None
            for host, staged, mem, elem, n in copies:
                if staged is not host:
                    elem.unpack(staged, n, host)
            return
        waits = [after] if after is not None else None
        done = []
        for host, staged, mem, elem, n in copies:
            if isinstance(mem, cl.SVM):
                if after is not None:
                    after.wait()
                with mem.map_ro(queue) as mapped:
                    staged.reshape(-1).view(np.uint8)[:] = mapped.reshape(-1).view(np.uint8)[:staged.nbytes]
            else:
                try:
                    done.append(cl.enqueue_copy(queue, staged, mem, is_blocking=False, wait_for=waits))
                except cl.Error as e:
                    raise _cl_error("copying a result back", e) from None
        if done:
            try:
                cl.wait_for_events(done)
            except cl.Error as e:
                raise _cl_error("copying a result back", e) from None
        for host, staged, mem, elem, n in copies:
            if staged is not host:
                elem.unpack(staged, n, host)

    def _zeros(self, queue, kernel, what, nbytes):
        try:
            if nbytes <= _ZEROS.nbytes:  # small: copied (one call; oclgrind sees it)
                mem = cl.Buffer(self.context, _MF_UPLOAD_RW, nbytes, hostbuf=_ZEROS[:nbytes])
            else:
                mem = cl.Buffer(self.context, _MF_READ_WRITE, nbytes)
                cl.enqueue_fill_buffer(queue, mem, np.uint8(0), 0, nbytes).wait()  # any queue
        except cl.Error as e:
            raise _cl_error("kernel %s: allocating %s (%d bytes)" % (kernel, what, nbytes), e) from None
        return mem

    def _svm(self, staged, upload):
        """Coarse-grain SVM holding STAGED (--hoist-unified-memory)."""
        ary = _call("clSVMAlloc", cl.svm_empty, self.context, cl.svm_mem_flags.READ_WRITE,
                    max(staged.nbytes, 1), np.uint8)
        svm = cl.SVM(ary)
        if upload and staged.nbytes:
            with svm.map_rw(self.queue) as mapped:
                mapped[:staged.nbytes] = staged.reshape(-1).view(np.uint8)
        return svm


_CL_ARRAY = cl_array.Array
_MF_READ_WRITE = cl.mem_flags.READ_WRITE
_MF_WRITE = cl.mem_flags.WRITE_ONLY
_MF_UPLOAD_RO = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
_MF_UPLOAD_RW = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
_ZEROS = np.zeros(65536, np.uint8)   # small zero-filled buffers are copied from this
_ZEROS.flags.writeable = False


# @shim-part counts_debug: runtime-shim/parts/counts_debug.py, in both crisp_runtime.py and crisp_runtime_cuda.py (edit it there)
def _count(kernel, name, count):
    """A size expression's value as an element count (floats rounded up)."""
    n = int(math.ceil(count)) if isinstance(count, float) else int(count)
    if n < 0:
        raise ValueError("kernel %s: %s would have a negative size (%d)" % (kernel, name, n))
    return n


def preview(array, count=6, width=72):
    """A one-line look at an array's first elements, for demos and logs."""
    flat = np.asarray(array).reshape(-1)
    text = ", ".join(str(x).replace("\n", " ") for x in flat[:count])
    if len(text) > width:
        text = text[:width - 4].rstrip(", ") + " ..."
    elif flat.size > count:
        text += ", ..."
    return "[%s] (%d values)" % (text, flat.size)


# ----------------------------------------------------------------------
# Debug channel

def _debug_value(ty, lo, hi):
    """One logged value (two words, low first) as text, as crisp_runtime.h prints it."""
    bits = (int(hi) << 32) | int(lo)
    t = _bare(ty) if ty else ""
    if t == "float":
        return "%.9g" % np.array([lo], np.uint32).view(np.float32)[0]
    if t == "double":
        return "%.17g" % np.array([bits], np.uint64).view(np.float64)[0]
    if t == "half":
        return "%g" % np.array([int(lo) & 0xffff], np.uint16).view(np.float16)[0]
    if t in ("char", "short", "int", "long"):
        return str(bits - (1 << 64) if bits >> 63 else bits)
    if t in ("uchar", "ushort", "uint", "ulong", "size_t", "bool"):
        return str(bits)
    return "0x%x" % bits


def decode_debug(words, sites):
    """Decode a debug channel (docs/abi.md) into text lines, one per record,
    exactly as crisp_runtime.h's crisp_debug_decode prints them:

        kernels.crisp:12: [thread 5] reached midpoint 42

    WORDS: the buffer read back after the kernel (uint32).  SITES: the site
    table (the metadata's "debug_sites", or DEBUG_SITES of a generated
    module): dicts with file, line, kind ("output" / "assert"), parts
    ({"text": ...} or {"type": ..., "expr": ...}) and, optionally, test."""
    words = np.asarray(words, dtype=np.uint32).reshape(-1)
    lines = []
    nwords = words.size
    if nwords < 2:
        return lines
    end = min(int(words[0]), nwords)
    at = 2
    while at + 3 <= end:
        n, site_id, thread = int(words[at]), int(words[at + 1]), int(words[at + 2])
        site = sites[site_id] if site_id < len(sites) else None
        if n == 0:
            break               # reserved by a thread that was dropped past the end
        if n < 3 or (n - 3) % 2 or at + n > end or site is None:
            lines.append("crisp: debug record at word %d is damaged (length %d, site %d); "
                         "%d words not decoded" % (at, n, site_id, end - at))
            break
        text = ""
        sep = ""
        parts = site.get("parts", [])
        if site.get("kind") == "assert":
            first = parts[0].get("text", "") if parts else ""
            if not first.startswith("assertion failed"):
                text = "assertion failed"
                if site.get("test"):
                    text += ": " + site["test"]
                sep = ": " if parts else ""
        v = 0
        for part in parts:
            text += sep
            if part.get("text") is not None:
                t = part["text"]
                text += t
                sep = "" if t and t[-1] in " \t\n" else " "
            else:
                if 3 + 2 * v + 1 < n:
                    text += _debug_value(part.get("type"), words[at + 3 + 2 * v], words[at + 4 + 2 * v])
                else:
                    text += "?"
                v += 1
                sep = " "
        lines.append("%s:%s: [thread %d] %s" % (site.get("file", "?"), site.get("line", "?"), thread, text))
        at += n
    if words[1]:
        lines.append("crisp: %d debug records were dropped: the debug buffer (%d words) was full"
                     % (int(words[1]), nwords))
    return lines
# @shim-part end counts_debug


# ----------------------------------------------------------------------
# Metadata-driven kernels: load_kernel, create_buffer, set_arg, launch

class Buffer:
    """Host data and its device copy (create_buffer).  The device copy is
    made in the layout of the parameter it is first bound to; read() brings
    the device data back into `host` and returns it."""

    def __init__(self, host, context=None, queue=None):
        if not isinstance(host, np.ndarray):
            raise TypeError("create_buffer takes a numpy array, got %s" % type(host).__name__)
        self.host = host
        self.context, self.queue = _context_and_queue(context, queue)
        self._runtime = Runtime(self.context, self.queue)
        self._dev = None            # DeviceVector in the current layout
        self._device_newer = False

    @property
    def size(self):
        return self.host.size

    def _bind(self, kernel, name, elem, access, min_length=None):
        """The DeviceVector for a parameter with element type ELEM."""
        d = self._dev
        if d is not None and d.element.name == elem.name and d.element.stride == elem.stride:
            if min_length is not None and d.length < min_length:
                raise ValueError("kernel %s: argument %s has %d elements; the kernel needs "
                                 "at least %d" % (kernel, name, d.length, min_length))
            return d
        if d is not None and self._device_newer:
            self.read()
        self._dev = self._runtime.vector(kernel, name, self.host, elem, access="read_write",
                                         min_length=min_length)
        self._device_newer = False
        return self._dev

    def read(self):
        """Copy the device data into the host array (unpacked) and return it."""
        if self._dev is not None:
            d = self._dev
            if d._staged is None:
                d._staged = np.empty(0)  # pragma: no cover - buffers are read_write
            d.read_back()
            self._device_newer = False
        return self.host

    def write(self):
        """Upload the host array again (after the host changed it)."""
        d = self._dev
        if d is not None:
            self._dev = None
            self._bind("<write>", "buffer", d.element, "read_write")


def create_buffer(host_data, context=None, queue=None):
    """A Buffer for HOST_DATA (a numpy array) on the default context (or the
    one given).  std140 marshalling happens when it is bound to a kernel."""
    return Buffer(host_data, context, queue)


def _kernel_search_dirs():
    dirs = [d for d in os.environ.get("CRISP_KERNEL_PATH", "").split(os.pathsep) if d]
    dirs.append(os.getcwd())
    if sys.argv and sys.argv[0]:
        dirs.append(os.path.dirname(os.path.abspath(sys.argv[0])))
    out = []
    for d in dirs:
        if d not in out:
            out.append(d)
    return out


def _find_metadata(name, path):
    """(metacrisp path, metadata dict) of the program that has kernel NAME."""
    if path is None:
        candidates = []
        dirs = _kernel_search_dirs()
        for d in dirs:
            candidates += sorted(glob.glob(os.path.join(d, "*.metacrisp")))
        where = "in " + ", ".join(dirs)
    elif os.path.isdir(path):
        candidates = sorted(glob.glob(os.path.join(path, "*.metacrisp")))
        where = "in " + path
    else:
        candidates = [os.path.splitext(path)[0] + ".metacrisp"]
        where = "in " + candidates[0]
    have = []
    for mp in candidates:
        try:
            with open(mp) as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            if path is not None and not os.path.isdir(path):
                raise CrispError("cannot read the kernel metadata %s: %s (compile with "
                                 "crisp --metadata)" % (mp, e)) from None
            continue
        names = [k.get("name") for k in meta.get("kernels", [])]
        if name in names:
            return mp, meta
        have += ["%s (%s)" % (n, os.path.basename(mp)) for n in names]
    raise CrispError("no kernel named %r %s%s.  Compile the Crisp source with "
                     "--transpile-to=oclc --metadata, and set CRISP_KERNEL_PATH or "
                     "pass path=." % (name, where, "; kernels found: " + ", ".join(have)
                                      if have else " (no .metacrisp files there)"))


_programs = {}


def load_kernel(name, path=None, context=None, queue=None, options=None):
    """The Kernel called NAME, found through the *.metacrisp files (see the
    module docstring) and built on CONTEXT (default: default_context()) with
    OPTIONS (default: the metadata's "build_options", its OpenCL C)."""
    mp, meta = _find_metadata(name, path)
    if options is None:
        options = meta.get("build_options") or BUILD_OPTIONS
    cl_path = os.path.splitext(mp)[0] + ".cl"
    runtime = Runtime(context, queue)
    key = (os.path.abspath(cl_path), runtime.context.int_ptr, options)
    if key not in _programs:
        _programs[key] = load_program(cl_path, runtime.context, options)
    kmeta = [k for k in meta["kernels"] if k["name"] == name][0]
    return Kernel(_programs[key], kmeta, runtime, meta)


_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _eval_size(expr, inputs, where):
    """Evaluate a size expression of the metadata ("python") over INPUTS."""
    def sub(m):
        if m.group(0) not in inputs:
            return m.group(0)
        v = inputs[m.group(0)]
        return repr(int(v)) if float(v) == int(v) else repr(float(v))
    text = _IDENT_RE.sub(sub, expr.get("python") or "0")
    try:
        v = eval(text, {"__builtins__": {}, "math": math, "max": max, "min": min, "int": int})
    except Exception as e:  # noqa: BLE001 - reported with the expression
        raise CrispError("%s: cannot evaluate size %s (%s): %s"
                         % (where, expr.get("crisp"), text, e)) from None
    return int(math.ceil(v))


def _mangle(name):
    """The identifier docs/abi.md uses for a parameter (image-data -> image_data)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name.replace("-", "_")).lstrip("_") or "v"
    return "v" + s if s[0].isdigit() else s


class Kernel:
    """A kernel driven by its metadata: set_arg by parameter name, launch.

    params       the Crisp parameters (metadata args), in order
    results      {name: array} of the result vectors of the last launch
    debug_log()  the decoded debug records of the launches so far (cleared)"""

    def __init__(self, program, meta, runtime, program_meta=None):
        self.name = meta["name"]
        self.meta = meta
        self.runtime = runtime
        self.program = program
        self.kernel = create_kernel(program, self.name)
        self.params = [a for a in meta["args"] if a["role"] in ("scalar", "buffer")]
        self._values = {}
        self.results = {}
        self._debug_lines = []
        self._sites = (program_meta or {}).get("debug_sites", [])

    def __repr__(self):
        return "<crisp_runtime.Kernel %s(%s)>" % (
            self.name, " ".join(a["name"] for a in self.params))

    def _param(self, name):
        for a in self.meta["args"]:
            if a["name"] == name and a["role"] in ("scalar", "buffer", "implicit"):
                return a
        raise KeyError("kernel %s has no parameter %r (parameters: %s)"
                       % (self.name, name, ", ".join(a["name"] for a in self.params)))

    def set_arg(self, name, value):
        """Set the Crisp parameter NAME: a Buffer or numpy array for a
        vector, a number for a scalar, an element count for a __local
        vector.  Implicit vectors may be given too (else zero-filled)."""
        a = self._param(name)
        if a["role"] != "scalar" and a.get("address_space") != "local" \
                and not isinstance(value, (Buffer, np.ndarray)):
            raise TypeError("kernel %s: argument %s is a vector: pass a Buffer or a numpy "
                            "array, got %s" % (self.name, name, type(value).__name__))
        self._values[name] = value

    def set_args(self, *values, **by_name):
        """Set the Crisp parameters in order, and/or by name."""
        if len(values) > len(self.params):
            raise TypeError("kernel %s takes %d arguments (%s), got %d" % (
                self.name, len(self.params), " ".join(a["name"] for a in self.params),
                len(values)))
        for a, v in zip(self.params, values):
            self.set_arg(a["name"], v)
        for n, v in by_name.items():
            self.set_arg(n, v)

    def debug_log(self):
        lines, self._debug_lines = self._debug_lines, []
        return lines

    def _declared(self, spec, lengths, scalars, what):
        if not spec:
            return None
        if spec.get("set_to"):
            return tuple(int(x) for x in spec["set_to"])
        if spec.get("derive_from"):
            out = []
            for n in spec["derive_from"]:
                if n in lengths:
                    out.append(lengths[n])
                elif n in scalars:
                    out.append(int(scalars[n]))
                else:
                    raise CrispError("kernel %s: %s derives from unknown parameter %r"
                                     % (self.name, what, n))
            return tuple(out)
        return None

    def launch(self, queue=None, *args, global_size=None, local_size=None):
        """Run the kernel and wait.  See the module docstring for how the
        positional values after QUEUE are read.  Returns the result vectors
        (None, one array, or a tuple in source order)."""
        if args and isinstance(args[0], (Buffer, np.ndarray)):
            self.set_args(*args)
        elif args:
            if len(args) > 2:
                raise TypeError("kernel %s: launch(queue, global_size, local_size) takes two "
                                "sizes; pass kernel arguments first as buffers" % self.name)
            if global_size is None:
                global_size = args[0]
            if len(args) > 1 and local_size is None:
                local_size = args[1]
        rt = self.runtime
        if queue is not None and queue is not rt.queue:
            rt = Runtime(queue.context, queue)
            if queue.context != self.runtime.context:
                raise CrispError("kernel %s: the queue is on another context than the kernel"
                                 % self.name)
        k = self.meta
        where = "kernel %s" % self.name
        missing = [a["name"] for a in self.params if a["name"] not in self._values]
        if missing:
            raise TypeError("%s: argument(s) not set: %s" % (where, ", ".join(missing)))

        devs = {}           # arg index -> DeviceVector
        copy_back = []
        lengths, scalars, inputs = {}, {}, {}
        cl_args = [None] * len(k["args"])
        for a in k["args"]:
            if a["role"] not in ("scalar", "buffer"):
                continue
            v = self._values[a["name"]]
            if a["role"] == "scalar":
                cl_args[a["index"]] = scalar("%s: argument %s" % (where, a["name"]), a["type"], v)
                scalars[a["name"]] = v
                inputs[_mangle(a["name"])] = v
                continue
            elem = element(a.get("element", "void"), a.get("stride"))
            if a.get("address_space") == "local":
                d = rt.local_vector(self.name, a["name"], v, elem)
            elif isinstance(v, Buffer):
                d = v._bind(self.name, a["name"], elem, a.get("access"))
                if a.get("access") != "read_only":
                    v._device_newer = True
            else:
                d = rt.vector(self.name, a["name"], v, elem, access=a.get("access", "read_write"),
                              address_space=a.get("address_space", "global"))
                if d.writeable:
                    copy_back.append(d)
            devs[a["index"]] = d
            cl_args[a["index"]] = d.arg
            lengths[a["name"]] = d.length
            inputs[_mangle(a["name"]) + "_len"] = d.length

        if k.get("single_task"):
            sizes = launch_sizes(where, (1,), None)
        else:
            g = global_size if global_size is not None else \
                self._declared(k.get("global_size"), lengths, scalars, "global_size")
            if g is None:
                vecs = [a["name"] for a in self.params if a["name"] in lengths]
                if not vecs:
                    raise TypeError("%s: no global-size declaration and no vector argument; "
                                    "pass global_size=" % where)
                dims = (k.get("global_size") or {}).get("dims") or 1
                g = (lengths[vecs[0]],) + (1,) * (dims - 1)
            lsz = local_size if local_size is not None else \
                self._declared(k.get("local_size"), lengths, scalars, "local_size")
            sizes = launch_sizes(where, g, lsz)
        for n in ("global_size", "local_size", "num_groups"):
            for i in range(3):
                inputs["%s%d" % (n, i)] = getattr(sizes, "%s%d" % (n, i))
        inputs["global_linear_size"] = sizes.global_linear_size
        inputs["local_linear_size"] = sizes.local_linear_size
        for i in range(3):
            inputs["max_local_size%d" % i] = getattr(sizes, "max_local_size%d" % i)
            inputs["max_num_groups%d" % i] = getattr(sizes, "max_num_groups%d" % i)
        # every vector must hold what the kernel may touch (docs/abi.md)
        if all(sizes.global_size):
            for a in k["args"]:
                if a.get("touches") and a["name"] in lengths:
                    need = _eval_size(a["touches"], inputs, where)
                    if lengths[a["name"]] < need:
                        too_short(self.name, a["name"], lengths[a["name"]], need, a["touches"].get("python"))

        results = []
        debug = None
        for a in k["args"]:
            role = a["role"]
            if role in ("result", "implicit"):
                count = _eval_size(a.get("size") or {}, inputs, where)
                elem = element(a.get("element"), a.get("stride"))
                given = self._values.get(a["name"]) if role == "implicit" else None
                if given is not None:
                    d = rt.vector(self.name, a["name"], given, elem, min_length=count)
                    copy_back.append(d)
                else:
                    d = rt.allocate(self.name, a["name"], count, elem)
                if role == "result":
                    results.append((a["name"], d))
            elif role == "scratch":
                d = rt.allocate(self.name, "scratch", _eval_size(a.get("bytes") or {}, inputs, where),
                                element("uchar"))
            elif role == "debug":
                d = debug = rt.debug_channel()
            elif role == "local":       # workgroup scratch (make-scratch-vector :local): sized here
                d = rt.local_vector(self.name, a["name"], int(_eval_size(a.get("size") or {}, inputs, where)),
                                    element(a.get("element"), a.get("stride")))
            else:
                continue
            devs[a["index"]] = d
            cl_args[a["index"]] = d.arg
        for a in k["args"]:
            if a["role"] == "length":     # follows the pointer it measures
                cl_args[a["index"]] = np.uint64(devs[a["index"] - 1].length)
        for i, v in enumerate(cl_args):
            rt.set_arg(self.kernel, i, k["args"][i]["name"], v)
        rt.launch_and_wait(self.kernel, sizes)
        for d in copy_back:
            d.read_back()
        if debug is not None:
            self._debug_lines += decode_debug(debug.read_back(), self._sites)
        self.results = {n: d.read_back() for n, d in results}
        if not results:
            return None
        if len(results) == 1:
            return results[0][1].host
        return tuple(d.host for _, d in results)
