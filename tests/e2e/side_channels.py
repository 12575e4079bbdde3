"""examples/side_channels.crisp: result, scratch and implicit vectors."""
from crisptest import *

prog = compile("examples/side_channels.crisp")
rng = np.random.default_rng(10)


def arg(kernel, name):
    return [a for a in prog.meta["kernels"] if a["name"] == kernel][0]["args"][
        [a["name"] for a in [k for k in prog.meta["kernels"] if k["name"] == kernel][0]["args"]].index(name)]


@case
def results_made_in_a_function():
    a = rng.random(64, dtype=np.float32)
    sides = prog.run("final_result", a, 5, 3)
    assert_equal(sorted(sides), ["haversine", "result0", "result1"])
    assert_close(sides["result0"], 2 * a)
    assert_equal(sides["result1"], np.arange(15, dtype=np.float32))
    assert_equal(sides["haversine"], np.arange(25, dtype=np.uint64) ** 2)
    check("comment kept", arg("final_result", "result0")["comment"] == "Gamma Squad needs this result")
    check("size in host terms", arg("final_result", "result1")["size"]["python"] == "(x * y)")


@case
def scratch_pool_shared_by_two_vectors():
    a = rng.random(40, dtype=np.float32)
    res = np.zeros(40, np.float32)
    sides = prog.run("calc_something", a, res, local_size=8)
    pool = sides["scratch"]
    # 20 std140 floats (320 bytes) then ceil(40 * 1.5) = 60 std140 ulongs (960 bytes)
    assert_equal(len(pool), 320 + 960)
    half = a[0::2] + a[1::2]
    expected = np.arange(40, dtype=np.float32) * 3
    expected[:20] += half
    assert_close(res, expected)
    parts = [k for k in prog.meta["kernels"] if k["name"] == "calc_something"][0]["scratch"]
    assert_equal([p["comment"] for p in parts],
                 ["half of size of A parameter", "we need half again as many launched threads"])


@case
def implicit_vector_from_the_host():
    out = np.zeros(12, np.int32)
    prog.run("use_table", out, table2=np.array([1, 2, 3, 4], np.int32))
    assert_equal(out, 10 * np.tile(np.array([1, 2, 3, 4], np.int32), 3))
