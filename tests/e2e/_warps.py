"""Shared by tests/e2e/warps.py and tests/e2e/warps_reduce.py: the lowerings
to run (VARIANTS), the workgroup sizes, and the warp layout numpy needs to
compute what each lane should get (docs/warps.md)."""
from crisptest import *  # noqa: F401,F403

WARP = 32

VARIANTS = [("1.2", "", "local")]
if device_ocl_version() >= (2, 0):
    VARIANTS += [
        ("3.0", "", "subgroups"),
        ("3.0", "-DCRISP_WARP_KERNEL=", "subgroups-16-fallback"),
        ("3.0", "-DCRISP_WARP_KERNEL=__attribute__((intel_reqd_sub_group_size(64)))", "subgroups-64"),
        ("3.0", "-DCRISP_WARP_LOCAL=1", "local-3.0"),
    ]
LOCAL_SIZES = (32, 64, 48, 20)
# fewer for the many shuffle and reduction kernels (PoCL compiles a kernel
# anew for each local size): two full warps, a full and a partial one, one
# partial warp
SHUFFLE_SIZES = (64, 20)
REDUCE_SIZES = (64, 48)


def program(variant):
    ver, opts, _ = variant
    return compile("tests/e2e/warps.crisp", flags=["--ocl-version=" + ver], build_options=opts)


def warp_layout(n, ls):
    """For threads 0..n-1 in workgroups of LS: (first thread of the warp,
    lane, threads in the warp)."""
    i = np.arange(n)
    j = i % ls
    base = i - j + j // WARP * WARP
    lane = j % WARP
    lanes = np.minimum(WARP, ls - j // WARP * WARP)
    return base, lane, lanes


def source_lanes(kind, lane, lanes, arg):
    """The lane each thread reads (docs/warps.md): where the computed lane is
    not a lane of the warp, its own."""
    a = arg.astype(np.int64)
    u = a.astype(np.uint64)
    if kind == "shuffle":
        ok = (a >= 0) & (a < lanes)
        src = a
    elif kind == "up":
        ok = (a >= 0) & (a <= lane)
        src = lane - a
    elif kind == "down":
        ok = (a >= 0) & (a < lanes - lane)
        src = lane + a
    else:
        x = lane.astype(np.uint64) ^ u
        ok = x < lanes.astype(np.uint64)
        src = np.where(ok, x, 0).astype(np.int64)
    return np.where(ok, src, lane).astype(np.int64)


def lane_args(n):
    """Lane arguments: mostly in range, some past the warp, negative or huge."""
    a = np.random.randint(-3, 40, n).astype(np.int64)
    specials = [0, 1, 16, 31, 32, 33, -1, 2 ** 32 + 1, -(2 ** 40)]
    a[:len(specials)] = specials
    return a


TYPES = {
    "int": (np.int32, 1), "uint": (np.uint32, 1), "long": (np.int64, 1), "ulong": (np.uint64, 1),
    "float": (np.float32, 1), "double": (np.float64, 1), "char": (np.int8, 1),
    "ushort": (np.uint16, 1), "float4": (np.float32, 4), "int3": (np.int32, 3), "double2": (np.float64, 2),
}


def values(dt, lanes, n):
    if np.dtype(dt).kind == "f":
        v = np.random.uniform(-1e6, 1e6, (n, lanes)).astype(dt)
    else:
        info = np.iinfo(dt)
        v = np.random.randint(info.min, info.max, (n, lanes), dtype=np.int64 if info.bits < 64 else dt).astype(dt)
    return v[:, 0] if lanes == 1 else v


