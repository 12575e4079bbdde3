"""tests/e2e/derived.crisp: derived types and closest-overload dispatch."""
from crisptest import *

prog = compile("tests/e2e/derived.crisp")


@case
def closest_overload_and_substitution():
    out = np.zeros(5, np.float32)
    prog.run("derived", out)
    assert_close(out, np.array([5.0, 7.0, 7.0, 5.0, np.hypot(4, 6)], np.float32))
    check("a typedef of the original", "typedef point coordinate;" in prog.source)


@case
def set_derived_reinterprets_and_substitutes():
    a = np.array([3.5, -2.25], np.float32)
    out = np.zeros(3, np.float32)
    prog.run("set_derived", a, out)
    assert_close(out, np.array([3.5, -2.25, 3.5], np.float32))
    check("a field of the reinterpreted struct is parenthesised", "(*(polar *)&c).r" in prog.source)
