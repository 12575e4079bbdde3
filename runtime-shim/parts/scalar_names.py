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
