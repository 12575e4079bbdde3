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
