"""tests/e2e/device.crisp: target-has at compile time, device-has answered by
the device (its extension list) when the driver builds the source."""
import crisptest
from crisptest import *

prog = compile("tests/e2e/device.crisp")


@case
def device_has_matches_the_device_extensions():
    out = np.full(5, -1, np.int32)
    prog.run("device_has", out)
    ctx, _ = crisptest._context()
    exts = ctx.devices[0].extensions.split()
    assert_equal(out, np.array([int("cl_khr_fp64" in exts), 1, 0, 0, 1], np.int32))
    check("device-has :fp64 is a build-time query", "#ifdef cl_khr_fp64" in prog.source)
    check("device-has :images is folded", "true ? 1 : 0" in prog.source)
