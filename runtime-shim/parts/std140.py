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
