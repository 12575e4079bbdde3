"""tests/e2e/params.crisp: constants, def-parameter, -D and #+/#-."""
from crisptest import *


def run(defines):
    prog = compile("tests/e2e/params.crisp", defines=defines)
    out = np.zeros(16, np.float32)
    prog.run("params", out)
    return out


@case
def defaults():
    out = run({})
    assert_equal(out[:5].tolist(), [10, 11, 12, 13, 0])
    assert_close(out[8:12], np.array([2 * 3.141592654, 6.283185307, 21, 0.5], np.float32))
    assert_equal(out[12:14].tolist(), [1.0, -1.0])
    assert_equal(out[14], 20.0)      # a macro computed (* 2 OFFSET) at compile time


@case
def overrides_from_the_command_line():
    out = run({"MAX_INDEX": 6, "OFFSET": -1, "use_square": 1, "full_ride": "nil", "sleigh_ride": "t"})
    assert_equal(out[:7].tolist(), [0, 1, 4, 9, 16, 25, 0])   # square chosen by #+
    assert_equal(out[12:14].tolist(), [2.0, 1.0])
    assert_equal(out[14], -2.0)      # with the -D value


@case
def bad_override_is_an_error():
    status, _, err = crisp("tests/e2e/params.crisp", "-DMAX_INDEX=lots")
    check("exit 1", status == 1, err)
    check("message", "-DMAX_INDEX=lots" in err, err)


@case
def c_t_assert_sees_the_override():
    status, _, err = crisp("tests/e2e/params.crisp", "-DMAX_INDEX=15")
    check("exit 1", status == 1, err)
    check("message", "MAX_INDEX leaves no room" in err, err)
