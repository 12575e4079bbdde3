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
