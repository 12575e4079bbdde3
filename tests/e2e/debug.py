"""tests/e2e/debug.crisp: the --debug-output channel, decoded on the host."""
from crisptest import *

plain = compile("tests/e2e/debug.crisp")
debug = compile("tests/e2e/debug.crisp", flags=["--debug-output"])


def decode(meta, words):
    """Decode records per docs/abi.md (the shim does the same for users)."""
    sites = meta["debug_sites"]
    out, at, end = [], 2, min(int(words[0]), len(words))
    while at < end:
        n, site, thread = int(words[at]), int(words[at + 1]), int(words[at + 2])
        vals = words[at + 3:at + n]
        s, parts, k = sites[site], [], 0
        for p in s["parts"]:
            if "text" in p:
                parts.append(p["text"])
                continue
            lo, hi = int(vals[2 * k]), int(vals[2 * k + 1])
            k += 1
            bits = lo | (hi << 32)
            if p["type"] == "float":
                parts.append(repr(float(np.array([lo], np.uint32).view(np.float32)[0])))
            elif p["type"] in ("int", "long", "short", "char"):
                parts.append(str(bits - (1 << 64) if bits >> 63 else bits))
            else:
                parts.append(str(bits))
        out.append((s["kind"], s["line"], thread, " ".join(parts)))
        at += n
    return out, int(words[1])


A = np.array([10, -4, 9, 8, 7, 6, 5, 4], np.int32)
B = np.array([2, 2, 0, 4, 1, 1, 0, 2], np.int32)


@case
def without_the_flag_logging_costs_nothing():
    check("no debug argument", all(a["role"] != "debug" for k in plain.meta["kernels"] for a in k["args"]))
    check("no log helper", "crisp_log" not in plain.source)
    q = np.zeros(8, np.int32)
    plain.run("logging", A, B, q)
    assert_equal(q, np.array([5, -2, 0, 2, 7, 6, 0, 2], np.int32))


@case
def records_decode():
    q = np.zeros(8, np.int32)
    sides = debug.run("logging", A, B, q)
    assert_equal(q, np.array([5, -2, 0, 2, 7, 6, 0, 2], np.int32))
    recs, dropped = decode(debug.meta, sides["debug"])
    assert_equal(dropped, 0)
    texts = sorted(r[3] for r in recs)
    assert_equal(texts, sorted([
        "reached the kernel with 8 elements and a float 2.5",
        "assertion failed: (> (length~ A) 100) expected more than 100 elements, got 8",
        "a negative value in group 0",
        "assertion failed: (/= b 0) division by zero, a = 9",
        "assertion failed: (/= b 0) division by zero, a = 5",
    ]))
    lines = {r[3].split(" ")[0]: r[1] for r in recs}
    check("source lines", lines["reached"] == 13, str(recs))


@case
def full_buffer_drops_records():
    words = np.zeros(2 + 5 * 10, np.uint32)   # 5-word records: room for exactly 10
    words[0] = 2
    debug.run("flood", 100, debug=words, global_size=128, local_size=32)
    recs, dropped = decode(debug.meta, words)
    assert_equal(len(recs), 10)
    assert_equal(dropped, 90)
