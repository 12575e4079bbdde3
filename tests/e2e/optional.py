"""tests/e2e/optional.crisp: &optional and &key parameters with defaults."""
from crisptest import *

prog = compile("tests/e2e/optional.crisp")


@case
def defaults_filled_at_the_call():
    out = np.zeros(7, np.float32)
    prog.run("optional_args", out)
    assert_equal(out.tolist(), [13.0, 5.0, 35.0, 11.0, 12.0, 60.0, 31.0])
