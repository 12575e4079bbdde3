"""tests/e2e/function_args.crisp: functions as arguments (spec "First Order
Functions"), specialised per function at compile time."""
from crisptest import *

prog = compile("tests/e2e/function_args.crisp")


@case
def predicates_and_transforms():
    a = np.random.default_rng(3).integers(-200, 300, 97).astype(np.int32)
    out = np.zeros(5, np.int64)
    prog.run("function_args", a, out)
    even = int(np.sum(a % 2 == 0))
    big = int(np.sum(a > 100))
    assert_equal(out, np.array([even, big, 81, 7, even + big], np.int64))
    check("no function pointers: one specialisation per function",
          "count_if_is_even(" in prog.source and "count_if_is_big(" in prog.source and "(*" not in prog.source)
