"""tests/e2e/overloads.crisp: overload resolution by argument types."""
from crisptest import *

prog = compile("tests/e2e/overloads.crisp")


@case
def dispatch_by_type():
    out = np.zeros(6, np.float32)
    prog.run("overloads", out)
    assert_close(out, np.array([5.0, 5.0, 14.0, 5.0, 15.0, 8.0], np.float32))
    for name in ["distance_point_point", "distance_coordinate_coordinate", "twice_int", "twice_float", "twice_long"]:
        check(name, ("%s(" % name) in prog.source)
