"""tests/e2e/exact.crisp: def-kernel-exact with voidp and marshalling."""
from crisptest import *

prog = compile("tests/e2e/exact.crisp")


@case
def exact_abi():
    k = [k for k in prog.meta["kernels"] if k["name"] == "vector_add_k"][0]
    assert_equal([(a["name"], a["role"], a["type"]) for a in k["args"]], [
        ("APtr", "buffer", "__global void*"), ("ASz", "scalar", "ulong"),
        ("BPtr", "buffer", "__global void*"), ("BSz", "scalar", "ulong"),
        ("CPtr", "buffer", "__global void*"), ("CSz", "scalar", "ulong")])
    check("exact flag", k.get("exact") is True)


@case
def spec_vector_add_k():
    a = np.arange(100, dtype=np.float32)
    b = np.ones(100, np.float32)
    c = np.zeros(100, np.float32)
    prog.run("vector_add_k", a.view(np.uint8), a.nbytes, b.view(np.uint8), b.nbytes, c.view(np.uint8), c.nbytes,
             global_size=32)
    assert_equal(c, a + 1)


@case
def marshalled_result_vector():
    out = np.zeros(20, np.uint64)
    prog.run("squares_k", 20, out.view(np.uint8), out.nbytes, global_size=32)
    assert_equal(out, np.arange(20, dtype=np.uint64) ** 2)
