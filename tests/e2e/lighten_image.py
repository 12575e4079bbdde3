"""examples/lighten_image.crisp: 2D launch with check-thread-bounds."""
from crisptest import *

prog = compile("examples/lighten_image.crisp")
rng = np.random.default_rng(3)


@case
def lighten_saturates():
    w, h = 37, 23  # not multiples of any workgroup size
    img = rng.integers(0, 256, w * h, dtype=np.uint8)
    expected = np.minimum(img.astype(np.int32) + 30, 255).astype(np.uint8)
    prog.run("lighten_image", img, w, h, local_size=(8, 8))
    assert_equal(img, expected)


@case
def exact_size_launch():
    w, h = 64, 16
    img = np.full(w * h, 250, np.uint8)
    prog.run("lighten_image", img, w, h)
    assert_equal(img, np.full(w * h, 255, np.uint8))
