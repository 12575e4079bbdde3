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
