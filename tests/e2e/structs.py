"""examples/structs.crisp: std140 layout on the device, structs in buffers."""
from crisptest import *
import pyopencl as cl

prog = compile("examples/structs.crisp")


@case
def device_layout_matches_metadata():
    # offsetof / sizeof measured by the OpenCL compiler on the device
    probes, expected = [], []
    for st in prog.meta["structs"]:
        probes.append("sizeof(%s)" % st["cname"])
        expected.append(st["size"])
        for f in st["fields"]:
            probes.append("__builtin_offsetof(%s, %s)" % (st["cname"], f["cname"]))
            expected.append(f["offset"])
    src = prog.source + "\n__kernel void crisp_layout_probe(__global ulong *out)\n{\n" + "".join(
        "    out[%d] = %s;\n" % (i, p) for i, p in enumerate(probes)) + "}\n"
    from crisptest import _context
    ctx, queue = _context()
    k = cl.Program(ctx, src).build(options="-cl-std=CL1.2").crisp_layout_probe
    out = np.zeros(len(probes), np.uint64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    k(queue, (1,), None, buf)
    cl.enqueue_copy(queue, out, buf).wait()
    assert_equal(out.tolist(), expected)
    particle = [s for s in prog.meta["structs"] if s["name"] == "particle"][0]
    assert_equal([f["offset"] for f in particle["fields"]], [0, 16, 28, 32, 40, 48, 64, 80])
    assert_equal(particle["size"], 96)


@case
def struct_fields_read_and_written():
    dt = struct_dtype(prog.meta, "particle")
    p = np.zeros(5, dt)
    p["mass"] = np.arange(1, 6)
    p["pos"] = np.arange(15).reshape(5, 3)
    p["vel"] = [[1, 2]] * 5
    p["charge"] = -3
    p["tag"] = 10
    p["ids"] = [[10, 20, 30, 40]] * 5
    p["flags"] = 6
    prog.run("move", p, 0.5)
    assert_close(p["pos"], np.arange(15).reshape(5, 3) + np.array([0.5, 1.0, 0.0]))
    assert_close(p["energy"], 0.5 * np.arange(1, 6) * 5.0)
    assert_equal(p["charge"], np.full(5, -3, np.float32))   # the float packed after pos is untouched
    assert_equal(p["tag"], np.full(5, 11, np.int8))
    assert_equal(p["ids"], np.array([[11, 22, 33, 44]] * 5, np.int32))
    assert_equal(p["flags"], np.full(5, 7, np.int16))


@case
def make_and_accessors():
    out = np.zeros(8, struct_dtype(prog.meta, "point"))
    prog.run("make_points", out)
    assert_equal(out["x"], np.arange(8, dtype=np.float32))
    assert_equal(out["y"], np.arange(8, dtype=np.float32) * 3)


@case
def nested_structs():
    out = np.zeros(4, struct_dtype(prog.meta, "cell"))
    prog.run("fill_cells", out)
    assert_equal(out["count"], np.arange(4, dtype=np.uint8))
    assert_equal(out["p"]["mass"], np.full(4, 1.5, np.float32))
    assert_equal(out["p"]["ids"][:, 0], np.arange(4, dtype=np.int32))
    assert_equal(out["p"]["ids"][:, 1], np.ones(4, np.int32))
    assert_equal(out["centre"], np.array([[1, 2, i] for i in range(4)], np.float32))
