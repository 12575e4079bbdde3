"""tests/e2e/maybe.crisp: maybe, result, let-maybe and or-else."""
from crisptest import *

plain = compile("tests/e2e/maybe.crisp")
debug = compile("tests/e2e/maybe.crisp", flags=["--debug-output"])

A = np.array([2, 0, 5, 3, -2], np.int64)
B = np.array([4, 5, 0, 0, 10], np.int64)


def expected():
    out = []
    for a, b in zip(A.tolist(), B.tolist()):
        def div(x, y):
            return None if y == 0 else int(x / y)
        m1, m2 = div(10, a), div(20, b)
        out.append(0 if m1 is None or m2 is None else m1 + m2)
        out.append(-1 if m1 is None or m2 is None else m1 + m2)
        q = div(a, b)
        out.append((1 if q is None else q) * (a + b))
    return out


@case
def maybe_values():
    out = np.zeros(15, np.int64)
    plain.run("maybes", A, B, out)
    assert_equal(out.tolist(), expected())
    check("no logging without the flag", "crisp_log" not in plain.source)


@case
def err_messages_go_to_the_debug_channel():
    out = np.zeros(15, np.int64)
    sides = debug.run("maybes", A, B, out)
    assert_equal(out.tolist(), expected())
    words = sides["debug"]
    sites = debug.meta["debug_sites"]
    texts, at = [], 2
    while at < min(int(words[0]), len(words)):
        n, site = int(words[at]), int(words[at + 1])
        texts.append(" ".join(p.get("text", "?") for p in sites[site]["parts"]))
        at += n
    check("errors logged", len(texts) > 0 and all(t == ":Err division by zero" for t in texts), str(texts))
