"""crisp_runtime_cuda - what Crisp's Python CUDA host code shares (CUDA driver API + numpy).

`crisp --hoist=PyCUDA` writes BASE_hoist_PyCUDA.py, the PTX (BASE.ptx) and
this file beside it; `make install` and `pip install` of the crisp
repository install it too.  It is one self-contained file (the compiler
embeds it) and needs numpy and one of these bindings of NVIDIA's driver
API, tried in this order (CRISP_CUDA_BINDING=pycuda|cuda-python|cupy picks
one):

  * PyCUDA (`import pycuda.driver`),
  * NVIDIA's cuda-python (`from cuda.bindings import driver`, or the older
    `from cuda import cuda`; pip install cuda-python),
  * CuPy (`cupy.cuda.driver` / `cupy.cuda.runtime`).

What the hoists rely on (docs/hoisting-cuda.md)
-----------------------------------------------

The same per-kernel API as the PyOpenCL hoists (crisp_runtime.py), with
CUDA's words: a "queue" is a Stream (CUDA streams run in order), an event
an Event.  A vector argument is a numpy array (copied to the device unless
the kernel only writes it, and back when the kernel may write it; the call
waits), or device memory used in place: a DeviceArray (this file's), or
any object with __cuda_array_interface__ (CuPy, PyCUDA, Numba, PyTorch
arrays).  Runtime.arg() checks dtypes (TypeError) and counts the elements;
the generated method then checks every length against what the kernel
touches (ValueError, see too_short()).

The module is the PTX clang made from the .cl, or a cubin / fat binary
ptxas made from it (--binary-gpu-target=sm_XX): Runtime.load_module()
takes the one built for the device's compute capability, else the PTX,
which the driver compiles for the device (a RuntimeWarning says so when
cubins exist for other GPUs only).

CUDA launches have no global offset, and what OpenCL calls the global size
is grid x block: the local size, when neither the kernel nor the caller
gives one, is chosen per dimension as the largest divisor of the global
size that the kernel's block limit allows, so that the global size is the
one asked for (OpenCL's rule when it chooses).  __local vector arguments
become dynamic shared memory: each gets an address inside the launch's
dynamic shared memory (docs/hoisting-cuda.md).
"""

import ctypes
import math
import os
import re
import warnings

import numpy as np

ABI_VERSION = 2              # what generated modules expect (require_abi)
DEBUG_WORDS = 65536          # default debug channel size (32-bit words)

__all__ = [
    "ABI_VERSION", "DEBUG_WORDS", "CrispError", "binding", "Device", "Stream", "Event",
    "DeviceArray", "Module", "Function", "describe_device", "element", "Element",
    "std140_stride", "std140_dtype", "to_std140", "from_std140", "vector_dtype",
    "scalar", "scalar_type", "Runtime", "LaunchSizes", "launch_sizes", "sizes",
    "too_short", "decode_debug", "preview", "require_abi", "choose_local_size",
]


def require_abi(version):
    """Generated modules call this first: their ABI must be this file's."""
    if version != ABI_VERSION:
        raise ImportError(
            "crisp_runtime_cuda.py speaks ABI %d but the generated module needs %d: "
            "write a matching one with `crisp --hoist=PyCUDA`" % (ABI_VERSION, version))


class CrispError(RuntimeError):
    """A CUDA call failed, or the host passed something the kernel cannot use;
    `.code` is the CUresult when there is one."""

    def __init__(self, message, code=None):
        RuntimeError.__init__(self, message)
        self.code = code


Error = CrispError   # what a generated method's launch catches (as cl.Error)


class LocalMemoryError(CrispError):
    """A block of the kernel needs more shared memory than the device gives
    one (raised before the launch; code: CUDA_ERROR_INVALID_VALUE, what the
    launch would have failed with)."""

    def __init__(self, message):
        CrispError.__init__(self, message, 1)


# ----------------------------------------------------------------------
# The bindings: one small class per Python binding of the driver API, all
# with the same methods (ints for device pointers, the binding's own
# handles for the rest).

class _CudaPython:
    """NVIDIA's cuda-python: cuda.bindings.driver (or cuda.cuda before 12.6)."""
    name = "cuda-python"

    def __init__(self, cu):
        self.cu = cu
        self.ok = cu.CUresult.CUDA_SUCCESS

    def _c(self, what, res):
        err = res[0]
        if err != self.ok:
            e2, name = self.cu.cuGetErrorName(err)
            e3, text = self.cu.cuGetErrorString(err)
            raise CrispError("%s failed: %s (%s)" % (what, name.decode() if e2 == self.ok else int(err),
                                                     text.decode() if e3 == self.ok else ""), int(err))
        return res[1] if len(res) == 2 else res[1:]

    def init(self, index):
        cu = self.cu
        self._c("cuInit", cu.cuInit(0))
        count = self._c("cuDeviceGetCount", cu.cuDeviceGetCount())
        dev = self._c("cuDeviceGet", cu.cuDeviceGet(index)) if index < count else None
        return count, dev

    def device_count(self):
        self._c("cuInit", self.cu.cuInit(0))
        return self._c("cuDeviceGetCount", self.cu.cuDeviceGetCount())

    def device_name(self, index):
        cu = self.cu
        dev = self._c("cuDeviceGet", cu.cuDeviceGet(index))
        return self._c("cuDeviceGetName", cu.cuDeviceGetName(256, dev)).split(b"\0")[0].decode()

    def open(self, index):
        cu = self.cu
        dev = self._c("cuDeviceGet", cu.cuDeviceGet(index))
        ctx = self._c("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(dev))
        self._c("cuCtxSetCurrent", cu.cuCtxSetCurrent(ctx))
        a = cu.CUdevice_attribute
        cc = (self._c("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(
                  a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)),
              self._c("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(
                  a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
        return ctx, cc

    def shared_per_block(self, index):
        cu = self.cu
        dev = self._c("cuDeviceGet", cu.cuDeviceGet(index))
        return self._c("cuDeviceGetAttribute", cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev))

    def current(self, ctx):
        self._c("cuCtxSetCurrent", self.cu.cuCtxSetCurrent(ctx))

    def module_load(self, image):
        return self._c("cuModuleLoadData", self.cu.cuModuleLoadData(image))

    def function(self, module, name):
        return self._c("cuModuleGetFunction(%s)" % name, self.cu.cuModuleGetFunction(module, name.encode()))

    def max_threads(self, func):
        a = self.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        return self._c("cuFuncGetAttribute", self.cu.cuFuncGetAttribute(a, func))

    def static_shared(self, func):
        a = self.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
        return self._c("cuFuncGetAttribute", self.cu.cuFuncGetAttribute(a, func))

    def alloc(self, nbytes):
        return int(self._c("cuMemAlloc(%d bytes)" % nbytes, self.cu.cuMemAlloc(max(int(nbytes), 1))))

    def free(self, ptr):
        self.cu.cuMemFree(ptr)

    def zero(self, ptr, nbytes, stream):
        self._c("cuMemsetD8Async", self.cu.cuMemsetD8Async(ptr, 0, nbytes, stream))

    def htod(self, ptr, host, stream):
        # the address, not the array: cuda-python reads structured dtypes wrongly
        self._c("cuMemcpyHtoD", self.cu.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes))

    def dtoh(self, host, ptr, stream):
        self._c("cuStreamSynchronize", self.cu.cuStreamSynchronize(stream))
        self._c("cuMemcpyDtoH", self.cu.cuMemcpyDtoH(host.ctypes.data, ptr, host.nbytes))

    def launch(self, func, grid, block, shared, stream, params):
        self._c("cuLaunchKernel", self.cu.cuLaunchKernel(func, grid[0], grid[1], grid[2], block[0], block[1],
                                                         block[2], shared, stream, params, 0))

    def stream_create(self):
        return self._c("cuStreamCreate", self.cu.cuStreamCreate(0))

    def stream_sync(self, s):
        self._c("cuStreamSynchronize", self.cu.cuStreamSynchronize(s))

    def event_create(self):
        return self._c("cuEventCreate", self.cu.cuEventCreate(0))

    def event_record(self, e, s):
        self._c("cuEventRecord", self.cu.cuEventRecord(e, s))

    def event_sync(self, e):
        self._c("cuEventSynchronize", self.cu.cuEventSynchronize(e))

    def stream_wait(self, s, e):
        self._c("cuStreamWaitEvent", self.cu.cuStreamWaitEvent(s, e, 0))

    def handle(self, s):
        return int(s)


class _CuPy:
    """CuPy's thin wrappers of the driver and runtime APIs (raise on error)."""
    name = "cupy"

    def __init__(self, cupy):
        import cupy.cuda.driver as drv
        import cupy.cuda.runtime as rtm
        self.cupy, self.drv, self.rt = cupy, drv, rtm

    def _c(self, what, fn, *args):
        try:
            return fn(*args)
        except Exception as e:  # CUDADriverError, CUDARuntimeError
            raise CrispError("%s failed: %s" % (what, e), getattr(e, "status", None)) from None

    def device_count(self):
        return self._c("cudaGetDeviceCount", self.rt.getDeviceCount)

    def device_name(self, index):
        name = self._c("cudaGetDeviceProperties", self.rt.getDeviceProperties, index)["name"]
        return name.decode() if isinstance(name, bytes) else name

    def open(self, index):
        self._c("cudaSetDevice", self.rt.setDevice, index)
        self._c("cudaFree(0)", self.rt.free, 0)      # the primary context, current
        props = self.rt.getDeviceProperties(index)
        return index, (props["major"], props["minor"])

    def shared_per_block(self, index):
        return self._c("cudaGetDeviceProperties", self.rt.getDeviceProperties, index)["sharedMemPerBlock"]

    def current(self, ctx):
        self._c("cudaSetDevice", self.rt.setDevice, ctx)

    def module_load(self, image):
        return self._c("cuModuleLoadData", self.drv.moduleLoadData, image)

    def function(self, module, name):
        return self._c("cuModuleGetFunction(%s)" % name, self.drv.moduleGetFunction, module, name)

    def max_threads(self, func):
        return self._c("cuFuncGetAttribute", self.drv.funcGetAttribute, 0, func)  # MAX_THREADS_PER_BLOCK

    def static_shared(self, func):
        return self._c("cuFuncGetAttribute", self.drv.funcGetAttribute, 1, func)  # SHARED_SIZE_BYTES

    def alloc(self, nbytes):
        return self._c("cudaMalloc(%d bytes)" % nbytes, self.rt.malloc, max(int(nbytes), 1))

    def free(self, ptr):
        self.rt.free(ptr)

    def zero(self, ptr, nbytes, stream):
        self._c("cudaMemsetAsync", self.rt.memsetAsync, ptr, 0, nbytes, stream)

    def htod(self, ptr, host, stream):
        self._c("cudaMemcpyAsync", self.rt.memcpyAsync, ptr, host.ctypes.data, host.nbytes,
                self.rt.memcpyHostToDevice, stream)

    def dtoh(self, host, ptr, stream):
        self._c("cudaMemcpyAsync", self.rt.memcpyAsync, host.ctypes.data, ptr, host.nbytes,
                self.rt.memcpyDeviceToHost, stream)

    def launch(self, func, grid, block, shared, stream, params):
        self._c("cuLaunchKernel", self.drv.launchKernel, func, grid[0], grid[1], grid[2], block[0], block[1],
                block[2], shared, stream, params, 0)

    def stream_create(self):
        return self._c("cudaStreamCreate", self.rt.streamCreate)

    def stream_sync(self, s):
        self._c("cudaStreamSynchronize", self.rt.streamSynchronize, s)

    def event_create(self):
        return self._c("cudaEventCreate", self.rt.eventCreate)

    def event_record(self, e, s):
        self._c("cudaEventRecord", self.rt.eventRecord, e, s)

    def event_sync(self, e):
        self._c("cudaEventSynchronize", self.rt.eventSynchronize, e)

    def stream_wait(self, s, e):
        self._c("cudaStreamWaitEvent", self.rt.streamWaitEvent, s, e)

    def handle(self, s):
        return int(s)


class _PyCuda:
    """PyCUDA (pycuda.driver).  Arguments go through the packed-buffer form
    of cuLaunchKernel (PyCUDA has no void** form)."""
    name = "pycuda"
    packed = True

    def __init__(self, drv):
        self.drv = drv

    def _c(self, what, fn, *args):
        try:
            return fn(*args)
        except self.drv.Error as e:
            raise CrispError("%s failed: %s" % (what, e)) from None

    def device_count(self):
        self.drv.init()
        return self.drv.Device.count()

    def device_name(self, index):
        self.drv.init()
        return self.drv.Device(index).name()

    def open(self, index):
        self.drv.init()
        dev = self.drv.Device(index)
        ctx = self._c("cuDevicePrimaryCtxRetain", dev.retain_primary_context)
        ctx.push()
        # PyCUDA aborts the interpreter when a context is still pushed at exit
        # (seen on an H200): free what is left and pop it first, as
        # pycuda.autoprimaryctx does
        import atexit
        atexit.register(self._finish, ctx)
        return ctx, dev.compute_capability()

    def shared_per_block(self, index):
        return self.drv.Device(index).get_attribute(self.drv.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK)

    def _finish(self, ctx):
        live = getattr(self, "_live", {})
        for a in list(live.values()):
            try:
                a.free()
            except self.drv.Error:
                pass
        live.clear()
        try:
            ctx.pop()
        except self.drv.Error:
            pass

    def current(self, ctx):
        pass

    def module_load(self, image):
        return self._c("cuModuleLoadData", self.drv.module_from_buffer, image)

    def function(self, module, name):
        return self._c("cuModuleGetFunction(%s)" % name, module.get_function, name)

    def max_threads(self, func):
        return func.get_attribute(self.drv.function_attribute.MAX_THREADS_PER_BLOCK)

    def static_shared(self, func):
        return func.get_attribute(self.drv.function_attribute.SHARED_SIZE_BYTES)

    def alloc(self, nbytes):
        a = self._c("cuMemAlloc(%d bytes)" % nbytes, self.drv.mem_alloc, max(int(nbytes), 1))
        self._live = getattr(self, "_live", {})
        self._live[int(a)] = a
        return int(a)

    def free(self, ptr):
        a = self._live.pop(ptr, None)
        if a is not None:
            a.free()

    def zero(self, ptr, nbytes, stream):
        self._c("cuMemsetD8Async", self.drv.memset_d8_async, ptr, 0, nbytes, stream)

    def htod(self, ptr, host, stream):
        self._c("cuMemcpyHtoD", self.drv.memcpy_htod, ptr, host.view(np.uint8).reshape(-1))

    def dtoh(self, host, ptr, stream):
        self.stream_sync(stream)
        self._c("cuMemcpyDtoH", self.drv.memcpy_dtoh, host.view(np.uint8).reshape(-1), ptr)

    def launch(self, func, grid, block, shared, stream, packed):
        self._c("cuLaunchKernel", func._launch_kernel, tuple(grid), tuple(block), packed, shared, stream)

    def stream_create(self):
        return self.drv.Stream()

    def stream_sync(self, s):
        self._c("cuStreamSynchronize", s.synchronize)

    def event_create(self):
        return self.drv.Event()

    def event_record(self, e, s):
        e.record(s)

    def event_sync(self, e):
        self._c("cuEventSynchronize", e.synchronize)

    def stream_wait(self, s, e):
        s.wait_for_event(e)

    def handle(self, s):
        return s.handle


def _binding_candidates(want):
    tried = []
    order = [want] if want else ["pycuda", "cuda-python", "cupy"]
    for name in order:
        try:
            if name == "pycuda":
                import pycuda.driver as drv
                return _PyCuda(drv), tried
            if name == "cuda-python":
                try:
                    from cuda.bindings import driver as cu
                except ImportError:
                    from cuda import cuda as cu
                return _CudaPython(cu), tried
            if name == "cupy":
                import cupy
                return _CuPy(cupy), tried
            tried.append("%s (unknown: use pycuda, cuda-python or cupy)" % name)
        except ImportError as e:
            tried.append("%s (%s)" % (name, e))
    return None, tried


_binding = None


def binding():
    """The driver binding in use (imported on first use): PyCUDA, else
    cuda-python, else CuPy; CRISP_CUDA_BINDING names one."""
    global _binding
    if _binding is None:
        b, tried = _binding_candidates(os.environ.get("CRISP_CUDA_BINDING"))
        if b is None:
            raise ImportError("crisp_runtime_cuda needs a Python binding of the CUDA driver API; tried "
                              + "; ".join(tried) + ".  Install one: pip install cuda-python (or pycuda, "
                              "or cupy-cuda12x), and an NVIDIA driver.")
        _binding = b
    return _binding


def _set_binding(b):
    """Use B (an object with the methods above) as the binding: tests."""
    global _binding
    _binding = b


# ----------------------------------------------------------------------
# Devices, streams, events

class Device:
    """A CUDA device and its primary context (current in this thread)."""

    def __init__(self, index):
        b = binding()
        self.index = index
        self.name = b.device_name(index)
        self.context, self.compute_capability = b.open(index)
        self.sm = "sm_%d%d" % tuple(self.compute_capability)
        try:    # a block's shared memory without the opt-in to more (0: not known)
            self.local_mem_size = int(b.shared_per_block(index))
        except Exception:  # noqa: BLE001 - a binding that cannot say: no check
            self.local_mem_size = 0

    def __repr__(self):
        return "<crisp_runtime_cuda.Device %d: %s (%s)>" % (self.index, self.name, self.sm)


def _matches(want, name):
    return want.lower() in name.lower()


_devices = {}


def select_device(device=None):
    """The Device of index DEVICE, or whose name contains DEVICE (a string),
    or CRISP_DEVICE's (an index or a substring), or device 0."""
    b = binding()
    want = device if device is not None else os.environ.get("CRISP_DEVICE")
    count = b.device_count()
    if count == 0:
        raise CrispError("no CUDA device (is the NVIDIA driver loaded?)")
    index = 0
    if isinstance(want, int) or (isinstance(want, str) and want.isdigit()):
        index = int(want)
        if not 0 <= index < count:
            raise CrispError("no CUDA device %d (there are %d)" % (index, count))
    elif want:
        names = [b.device_name(i) for i in range(count)]
        hits = [i for i, n in enumerate(names) if _matches(want, n)]
        if not hits:
            raise CrispError("no CUDA device matches %r (have: %s)" % (want, ", ".join(names)))
        index = hits[0]
    if index not in _devices:
        _devices[index] = Device(index)
    return _devices[index]


def describe_device(device):
    """'NVIDIA H200 (sm_90, CUDA through cuda-python)'"""
    return "%s (%s, CUDA through %s)" % (device.name, device.sm, binding().name)


class Event:
    """A point in a stream (cuEventRecord): wait() blocks until it is reached."""

    def __init__(self, stream):
        b = binding()
        self.stream = stream
        self.handle = b.event_create()
        b.event_record(self.handle, stream.handle)

    def wait(self):
        binding().event_sync(self.handle)


class Stream:
    """A CUDA stream on a device: what the hoists call a queue (CUDA streams
    run in order).  finish() waits for everything enqueued on it."""

    def __init__(self, device=None, handle=None):
        self.device = device if isinstance(device, Device) else select_device(device)
        self.handle = handle if handle is not None else binding().stream_create()

    def finish(self):
        binding().stream_sync(self.handle)

    synchronize = finish


class _Flags:
    c_contiguous = True


class DeviceArray:
    """Device memory with a dtype and shape: what results come back as when
    a call was given device memory, and what callers may pass in place.
    get() copies it to a new numpy array, set(array) copies one in."""
    flags = _Flags()
    offset = 0

    def __init__(self, queue, shape, dtype, ptr=None):
        self.queue = queue
        self.shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.ndim = len(self.shape)
        self.nbytes = self.size * self.dtype.itemsize
        self._owned = ptr is None
        self.base_data = binding().alloc(self.nbytes) if ptr is None else int(ptr)
        self.events = []

    def __del__(self):
        if getattr(self, "_owned", False) and _binding is not None:
            try:
                _binding.free(self.base_data)
            except Exception:  # pragma: no cover - interpreter shutdown
                pass

    @classmethod
    def zeros(cls, queue, shape, dtype):
        a = cls(queue, shape, dtype)
        binding().zero(a.base_data, max(a.nbytes, 1), queue.handle)
        return a

    @classmethod
    def to_device(cls, queue, array):
        host = np.ascontiguousarray(array)
        a = cls(queue, host.shape, host.dtype)
        if host.nbytes:
            binding().htod(a.base_data, host, queue.handle)
            queue.finish()
        return a

    def set(self, array):
        host = np.ascontiguousarray(array, dtype=self.dtype)
        if host.nbytes != self.nbytes:
            raise ValueError("DeviceArray.set: %d bytes given, the array holds %d" % (host.nbytes, self.nbytes))
        for e in self.events:
            e.wait()
        binding().htod(self.base_data, host, self.queue.handle)
        self.queue.finish()

    def get(self):
        host = np.empty(self.shape, self.dtype)
        for e in self.events:
            e.wait()
        if self.nbytes:
            binding().dtoh(host, self.base_data, self.queue.handle)
        self.queue.finish()
        return host

    def add_event(self, ev):
        self.events = [ev]


def _scalar_lanes(base, lanes):
    mem = 4 if lanes == 3 else lanes
    return np.dtype({"names": ["s%d" % i for i in range(lanes)], "formats": [base] * lanes,
                     "offsets": [i * np.dtype(base).itemsize for i in range(lanes)],
                     "itemsize": mem * np.dtype(base).itemsize})


def vector_dtype(name):
    """The numpy dtype of an OpenCL vector type ("float4"): fields s0..sN-1,
    3-lane types padded to 4 (the layout of pyopencl.cltypes)."""
    m = _TYPE_RE.match(name)
    if not m or not m.group(2):
        return None
    return _scalar_lanes(_SCALARS[m.group(1)], int(m.group(2)))


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
    (3-lane ones also 4) or the matching vector_dtype(); a struct
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
                self.vector_dtype = vector_dtype(self.name)
        self.size = self.base.itemsize * self.mem_lanes
        self.stride = int(stride) if stride else self.size
        if self.stride < self.size:
            raise TypeError("crisp_runtime: stride %d is smaller than %s (%d bytes)"
                            % (self.stride, self.name, self.size))
        # what device arrays (DeviceArray, CuPy arrays) of this element hold: the
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
        return "%s (numpy %s with shape %s, or crisp_runtime_cuda.vector_dtype(%r))" % (
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
        """Elements in VALUE, a device array given for NAME: its dtype
        must be this layout (device_dtype; for N-lane elements also `base`
        with a last dimension of mem_lanes).  TypeError otherwise."""
        dt = value.dtype
        if not value.flags.c_contiguous:
            raise TypeError("kernel %s: argument %s must be a contiguous device array"
                            % (kernel, name))
        if dt == self.device_dtype:
            return value.size
        if self.kind == "void":
            return value.nbytes
        if (self.kind == "vector" and self.stride == self.size and dt == self.base and value.ndim
                and value.shape[-1] == self.mem_lanes):
            return value.size // self.mem_lanes
        raise TypeError("kernel %s: argument %s expects a device array of %s, got dtype %s "
                        "shape %s" % (kernel, name, self.describe_device(), _dtype_text(dt), value.shape))

    def describe_device(self):
        """What device arrays of this element look like, for messages."""
        if self.stride != self.size:
            return "%s in std140 layout (dtype crisp_runtime.std140_dtype(%r), %d bytes)" % (
                self.name, self.name, self.stride)
        if self.kind == "vector":
            return "%s (crisp_runtime_cuda.vector_dtype(%r), or %s with shape (..., %d))" % (
                self.name, self.name, self.base.name, self.mem_lanes)
        return self.describe()

    def new_device(self, queue, n):
        """A zero-filled DeviceArray for N elements in this layout (on QUEUE, a Stream)."""
        if self.kind == "vector" and self.stride == self.size:
            return DeviceArray.zeros(queue, (n, self.mem_lanes), self.base)
        return DeviceArray.zeros(queue, (n,), self.device_dtype)

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
    and its padding, for device array arguments and results."""
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
    """The numpy dtype of vector type TYPE_NAME (float4): vector_dtype's."""
    return vector_dtype(_bare(type_name))


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


# ----------------------------------------------------------------------
# Modules, functions, launches

class Module:
    """A loaded PTX / cubin / fat binary (cuModuleLoadData); `.image` names the file."""

    def __init__(self, data, image):
        self.image = image
        self.handle = binding().module_load(data)


class LocalMemory:
    """A __local vector argument: SIZE bytes of the launch's dynamic shared memory."""

    def __init__(self, size):
        self.size = int(size)


class Function:
    """One kernel of a Module (cuModuleGetFunction), with the dtypes its
    scalar arguments are packed with (set_scalar_arg_dtypes, as PyOpenCL's
    Kernel: None for pointers and values passed as they are)."""

    def __init__(self, module, name):
        b = binding()
        self.module = module
        self.function_name = name
        self.handle = b.function(module.handle, name)
        self.max_threads = int(b.max_threads(self.handle))
        self.static_shared = int(b.static_shared(self.handle))
        self.arg_dtypes = None

    def set_scalar_arg_dtypes(self, dtypes):
        self.arg_dtypes = [None if d is None else np.dtype(d) for d in dtypes]

    def __call__(self, queue, global_size, local_size, *args, wait_for=None):
        """Launch with ARGS on QUEUE after WAIT_FOR (as a pyopencl.Kernel is
        called); returns an Event recorded after the kernel."""
        return self.module.runtime.launch(self, queue, global_size, local_size, args, wait_for or [])


def create_kernel(module, name):
    """The Function NAME of MODULE, with a readable error."""
    return Function(module, name)


def choose_local_size(global_size, max_threads):
    """The block shape for GLOBAL_SIZE (3 dims) when nobody gave one: per
    dimension the largest divisor of the global size within the kernel's
    limit (x up to 256, y and z what is left, z at most 64), so that grid x
    block is exactly the global size."""
    limits = [min(256, max_threads), 1024, 64]
    left = max_threads
    local = []
    for d, g in enumerate(global_size):
        cap = max(1, min(limits[d], left))
        best = 1
        for c in range(min(cap, g), 0, -1):
            if g % c == 0:
                best = c
                break
        local.append(best)
        left //= best
    return tuple(local)


_MAX_GRID = (2 ** 31 - 1, 65535, 65535)
_DYN_PROBE = r"""
.version 6.0
.target sm_60
.address_size 64
.extern .shared .align 16 .b8 crisp_dynamic[];
.visible .entry crisp_probe(.param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u64 %rd3, crisp_dynamic;
    st.global.u64 [%rd2], %rd3;
    ret;
}
"""


class _Mem:
    """Device memory the runtime allocated for one call (freed with it)."""
    __slots__ = ("ptr", "nbytes", "__weakref__")

    def __init__(self, nbytes):
        self.nbytes = int(nbytes)
        self.ptr = binding().alloc(max(self.nbytes, 1))

    def __del__(self):
        if _binding is not None:
            try:
                _binding.free(self.ptr)
            except Exception:  # pragma: no cover - interpreter shutdown
                pass

    def __int__(self):
        return self.ptr


class _Iface:
    """An object with __cuda_array_interface__ (CuPy, PyCUDA, Numba, torch) seen
    as what Element.device_count() reads."""

    def __init__(self, value):
        cai = value.__cuda_array_interface__
        self.shape = tuple(cai["shape"])
        self.dtype = np.dtype(cai["descr"]) if cai.get("descr") and len(cai["descr"]) > 1 else np.dtype(cai["typestr"])
        if getattr(value, "dtype", None) is not None and np.dtype(value.dtype).itemsize == self.dtype.itemsize:
            self.dtype = np.dtype(value.dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.ndim = len(self.shape)
        self.nbytes = self.size * self.dtype.itemsize
        strides = cai.get("strides")
        c = True
        if strides is not None:
            expect = self.dtype.itemsize
            for n, s in zip(reversed(self.shape), reversed(strides)):
                if n > 1 and s != expect:
                    c = False
                expect *= n
        self.flags = _Flags() if c else type("F", (), {"c_contiguous": False})()
        self.ptr = int(cai["data"][0])


class Runtime:
    """A device, its primary context and a stream, and the helpers generated
    code calls.  CONTEXT: a Device, a device index or a name substring (None:
    CRISP_DEVICE, else device 0); QUEUE: a Stream (None: a new one)."""

    def __init__(self, context=None, queue=None, unified_memory=False):
        if queue is not None:
            if not isinstance(queue, Stream):
                raise TypeError("queue takes a crisp_runtime_cuda.Stream, got %s" % type(queue).__name__)
            self.device = queue.device
        else:
            self.device = context if isinstance(context, Device) else select_device(context)
        self.context = self.device.context
        binding().current(self.context)
        self.queue = queue if queue is not None else Stream(self.device)
        self.ordered = self.queue           # CUDA streams run in order
        # a block's shared memory, for the generated methods' check (none when not known)
        self.local_mem_size = self.device.local_mem_size or (1 << 62)
        self._dynamic_base = None
        if unified_memory:
            warnings.warn("crisp_runtime_cuda: unified memory requested, but the CUDA hoists use device "
                          "memory and copies", RuntimeWarning, stacklevel=2)

    # -- modules -------------------------------------------------------
    def load_module(self, images):
        """Load the image for this device from IMAGES, a list of (target,
        path): ("sm_90", "x_sm_90.cubin"), ("sm_90", "x_sm_90.fatbin"),
        ("ptx", "x.ptx").  The device's own sm_ first; else the PTX (which
        the driver compiles), with a RuntimeWarning when cubins were built
        for other GPUs only."""
        mine = [p for t, p in images if t == self.device.sm]
        ptx = [p for t, p in images if t == "ptx"]
        others = sorted(set(t for t, p in images if t not in ("ptx", self.device.sm)))
        for path in mine + ptx:
            if not os.path.isfile(path):
                continue
            if path in ptx and others:
                warnings.warn("crisp_runtime_cuda: no binary for %s (built for %s): compiling %s for it"
                              % (self.device.sm, ", ".join(others), os.path.basename(path)), RuntimeWarning,
                              stacklevel=2)
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".ptx"):
                data += b"\0"
            module = Module(data, path)
            module.runtime = self
            return module
        raise CrispError("none of %s exists (compile the Crisp source with --hoist=PyCUDA)"
                         % ", ".join(p for t, p in images))

    def dynamic_base(self):
        """Where dynamic shared memory starts in the shared window of a kernel
        without static shared memory (a probe kernel reads it once)."""
        if self._dynamic_base is None:
            b = binding()
            f = Function(Module(_DYN_PROBE.encode() + b"\0", "<probe>"), "crisp_probe")
            out = _Mem(8)
            self._launch(f, (1, 1, 1), (1, 1, 1), 16, self.queue, [np.uint64(out.ptr)])
            host = np.zeros(1, np.uint64)
            b.dtoh(host, out.ptr, self.queue.handle)
            self.queue.finish()
            self._dynamic_base = int(host[0])
        return self._dynamic_base

    # -- what generated methods call on every launch ---------------------
    def queue_for(self, queue):
        """QUEUE when it is a Stream on this device (ValueError otherwise)."""
        if queue is self.queue:
            return queue
        if not isinstance(queue, Stream):
            raise TypeError("queue= takes a crisp_runtime_cuda.Stream, got %s" % type(queue).__name__)
        if queue.device is not self.device:
            raise ValueError("queue= is a stream of another device than the one the kernels were loaded on")
        return queue

    def arg(self, queue, kernel, name, value, elem, access, copies, events, written):
        """(device pointer, elements) for vector parameter NAME of KERNEL on
        QUEUE.  VALUE is a numpy array (copied to the device unless ACCESS is
        "write_only"; when the kernel may write it, COPIES gets what
        copy_back() needs), a DeviceArray or an object with
        __cuda_array_interface__ (used in place).  A DeviceArray of another
        stream has its events waited for (EVENTS) and gets the kernel's
        event when the kernel may write it (WRITTEN).  TypeError for a wrong
        dtype or kind."""
        t = type(value)
        if t is DeviceArray and value.queue is queue and value.dtype == elem.device_dtype:
            return value.base_data, value.size
        if t is np.ndarray:
            n, staged = elem.host(value, kernel, name)
            mem = _Mem(staged.nbytes)
            if access != "write_only" and staged.nbytes:
                binding().htod(mem.ptr, staged, queue.handle)
            if access != "read_only":
                copies.append((value, staged, mem, elem, n))
            return mem, n
        if isinstance(value, DeviceArray):
            n = elem.device_count(value, kernel, name)
            if value.queue is not queue:
                events.extend(value.events)
                if access != "read_only":
                    written.append(value)
            return value.base_data, n
        if hasattr(value, "__cuda_array_interface__"):
            view = _Iface(value)
            n = elem.device_count(view, kernel, name)
            return view.ptr, n
        raise TypeError("kernel %s: argument %s takes a numpy array, a crisp_runtime_cuda.DeviceArray or an "
                        "array with __cuda_array_interface__ (CuPy, PyCUDA, ...) of %s, got %s"
                        % (kernel, name, elem.describe(), type(value).__name__))

    def local(self, kernel, name, count, elem):
        """(LocalMemory, elements) for a __local parameter: an element count."""
        if isinstance(count, LocalMemory):
            return count, count.size // elem.stride
        if type(count) is not int and (isinstance(count, bool) or not isinstance(count, (int, np.integer))) \
                or count < 0:
            raise TypeError("kernel %s: __local argument %s takes an element count (int), got %r"
                            % (kernel, name, count))
        return LocalMemory(max(int(count), 1) * elem.stride), int(count)

    def result(self, queue, kernel, name, count, elem, on_device, copies, results, written):
        """The device memory of a result (or an implicit vector nobody gave):
        COUNT zero-filled elements.  RESULTS gets what the caller receives: a
        DeviceArray (ON_DEVICE) or a numpy array, which COPIES will fill."""
        n = _count(kernel, name, count)
        if on_device:
            ary = elem.new_device(queue, n)
            results.append(ary)
            written.append(ary)
            return ary.base_data
        host = elem.new_array(n)
        staged = host if elem.stride == elem.size and elem.lanes == elem.mem_lanes else \
            np.zeros(n * elem.stride, np.uint8)
        mem = self._zeros(queue, max(staged.nbytes, 1))
        copies.append((host, staged, mem, elem, n))
        results.append(host)
        return mem

    def scratch(self, queue, kernel, nbytes):
        """The scratch pool: NBYTES zero-filled bytes on the device."""
        return self._zeros(queue, max(_count(kernel, "scratch", nbytes), 1))

    def debug(self, words):
        """The --debug-output channel: WORDS 32-bit words, words[0] = 2 (the
        write cursor), words[1] = 0 (dropped records)."""
        host = np.zeros(int(words), np.uint32)
        host[0] = 2
        mem = _Mem(host.nbytes)
        binding().htod(mem.ptr, host, self.queue.handle)
        self.queue.finish()
        return mem, int(words)

    def read_debug(self, queue, mem, words, sites):
        """The decoded records of a debug channel (waits for the kernel)."""
        host = np.empty(words, np.uint32)
        binding().dtoh(host, int(mem), queue.handle)
        queue.finish()
        return decode_debug(host, sites)

    def _zeros(self, queue, nbytes):
        mem = _Mem(nbytes)
        binding().zero(mem.ptr, mem.nbytes, queue.handle)
        return mem

    def marker(self, queue, events):
        """The event of a launch with a zero global size (nothing runs)."""
        b = binding()
        for e in events or ():
            if e.stream is not queue:
                b.stream_wait(queue.handle, e.handle)
        return Event(queue)

    def local_mem_error(self, kernel, need, global_size, local_size):
        """The LocalMemoryError of a launch of KERNEL whose block needs NEED
        bytes of shared memory, more than the device gives one."""
        return LocalMemoryError(local_mem_message(kernel, global_size, local_size, need, self.local_mem_size,
                                                  "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"))

    @staticmethod
    def launch_error(kernel, global_size, local_size, error):
        """The exception to raise for ERROR from launching KERNEL."""
        return CrispError("kernel %s (global %r, local %r): %s" % (kernel.function_name, global_size, local_size,
                                                                   error), getattr(error, "code", None))

    @staticmethod
    def add_event(written, ev):
        """Give EV to every DeviceArray of WRITTEN."""
        for a in written:
            a.add_event(ev)

    def launch(self, kernel, queue, global_size, local_size, args, events, written=None):
        """Launch KERNEL (a Function) with ARGS (all of them, in order) on
        QUEUE after EVENTS and return an Event recorded after it (nothing
        runs when a global size is 0).  GLOBAL_SIZE is grid x block; without
        LOCAL_SIZE the block is choose_local_size()'s.  Does not wait."""
        b = binding()
        for e in events:
            if e.stream is not queue:
                b.stream_wait(queue.handle, e.handle)
        if 0 not in global_size:
            dims = len(global_size)
            g = tuple(int(x) for x in global_size) + (1,) * (3 - dims)
            if local_size is None:
                l = choose_local_size(g, kernel.max_threads)
            else:
                l = tuple(int(x) for x in local_size) + (1,) * (3 - len(local_size))
            where = "kernel %s (global %r, local %r)" % (kernel.function_name, tuple(global_size),
                                                         None if local_size is None else tuple(local_size))
            if l[0] * l[1] * l[2] > kernel.max_threads:
                raise CrispError("%s: a block of %d threads exceeds the kernel's limit of %d"
                                 % (where, l[0] * l[1] * l[2], kernel.max_threads))
            if any(gi % li for gi, li in zip(g, l)):
                raise CrispError("%s: the local size does not divide the global size" % where)
            grid = tuple(gi // li for gi, li in zip(g, l))
            if any(x > m for x, m in zip(grid, _MAX_GRID)):
                raise CrispError("%s: a grid of %r blocks is beyond CUDA's limits %r (give local_size=)"
                                 % (where, grid, _MAX_GRID))
            values, shared = self._values(kernel, args)
            self._launch(kernel, grid, l, shared, queue, values)
        ev = Event(queue)
        if written:
            for a in written:
                a.add_event(ev)
        return ev

    def _values(self, kernel, args):
        """The kernel's parameter values (numpy scalars) and its dynamic shared memory."""
        dts = kernel.arg_dtypes or [None] * len(args)
        values, shared = [], 0
        for dt, v in zip(dts, args):
            if dt is not None:
                values.append(dt.type(v) if not isinstance(v, np.generic) or v.dtype != dt else v)
            elif isinstance(v, LocalMemory):
                if not shared:
                    shared = -(-kernel.static_shared // 16) * 16
                values.append(np.uint64(self.dynamic_base() + shared))
                shared = -(-(shared + v.size) // 16) * 16
            elif isinstance(v, (int, np.integer, _Mem)):
                values.append(np.uint64(int(v)))
            elif isinstance(v, DeviceArray):
                values.append(np.uint64(v.base_data))
            else:
                values.append(np.asarray(v))
        if shared:
            shared -= -(-kernel.static_shared // 16) * 16
        return values, shared

    def _launch(self, kernel, grid, block, shared, queue, values):
        b = binding()
        if getattr(b, "packed", False):
            buf, at = bytearray(), 0
            for v in values:
                raw = np.asarray(v)
                al = _alignment(raw.dtype)
                at = -(-at // al) * al
                buf += b"\0" * (at - len(buf)) + raw.tobytes()
                at = len(buf)
            b.launch(kernel.handle, grid, block, shared, queue.handle, bytes(buf))
            return
        keep = [ctypes.create_string_buffer(np.asarray(v).tobytes(), max(np.asarray(v).nbytes, 1)) for v in values]
        ptrs = (ctypes.c_void_p * max(len(keep), 1))(*[ctypes.addressof(k) for k in keep])
        b.launch(kernel.handle, grid, block, shared, b.handle(queue.handle) if b.name == "cupy" else queue.handle,
                 ctypes.addressof(ptrs))

    def copy_back(self, queue, copies, after=None):
        """Copy every (host, staged, mem, elem, n) of COPIES back into its
        numpy array (padding removed) after the kernel, and wait: the end of
        a call that was given host memory."""
        b = binding()
        for host, staged, mem, elem, n in copies:
            if staged.nbytes:
                b.dtoh(staged, int(mem), queue.handle)
        queue.finish()
        for host, staged, mem, elem, n in copies:
            if staged is not host:
                elem.unpack(staged, n, host)


def _alignment(dt):
    """The alignment of a kernel parameter of dtype DT (packed launches)."""
    if dt.fields:
        return max(_alignment(f[0]) for f in dt.fields.values())
    if dt.subdtype:
        return _alignment(dt.subdtype[0])
    return dt.itemsize


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


