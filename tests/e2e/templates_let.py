"""tests/e2e/templates_let.crisp: let-bound generators around templated definitions."""
from crisptest import *

prog = compile("tests/e2e/templates_let.crisp")


@case
def let_around_templated_definitions():
    a = np.arange(256, dtype=np.float32) * 0.5
    r = np.zeros(256, np.float32)
    prog.run("firsts", a, r)
    assert_equal(r, np.repeat(a[::64], 64))


@case
def optional_parameter_defaults_in_templates():
    a = np.arange(128, dtype=np.float32) * 0.5
    r = np.zeros(128, np.float32)
    prog.run("lasts", a, r)
    expect = np.repeat(a.reshape(2, 64)[:, 63], 64) + 1.0
    assert_close(r, expect)
