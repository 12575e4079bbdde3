"""tests/e2e/enums.crisp: enumerations as run-time values."""
from crisptest import *

prog = compile("tests/e2e/enums.crisp")


@case
def enumeration_values():
    kinds = np.array([0, 1, 2, 1, 0], np.int32)
    out = np.zeros(10, np.int32)
    prog.run("classify", kinds, out)
    out = out.reshape(-1, 2)
    assert_equal(out[:, 0].tolist(), [6, 4, 0, 4, 6])
    assert_equal(out[:, 1].tolist(), [100, 11, 10, 11, 100])
    e = {x["name"]: x["values"] for x in prog.meta["enums"]}
    assert_equal(e["level"], {"low": 10, "mid": 11, "high": 100})


@case
def qualified_enumeration_keys_in_types():
    a = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    prog.run("qualified_keys", a, out)
    assert_close(out, 3 * a)
    check("read-only global", "__global const float *In" in prog.source)
