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
