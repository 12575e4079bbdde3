"""tests/e2e/soa.crisp: soa-vectors (spec "soa-vector and soa-view")."""
from crisptest import *

prog = compile("tests/e2e/soa.crisp")


@case
def local_soa_vector_fields_views_and_get_struct():
    a = np.random.default_rng(11).integers(-1000, 1000, 16).astype(np.int64)
    out = np.zeros(7, np.int64)
    prog.run("soa", a, out)
    assert_equal(out, np.array([a.sum(), a[3], 10 * a[3], 4, 10 * a[13], 512, 128], np.int64))
    check("one array per field", "sv_x[16]" in prog.source and "sv_y[16]" in prog.source)


@case
def private_soa_of_hardware_vectors():
    out = np.zeros(3, np.float32)
    prog.run("particles", out)
    assert_close(out, np.array([5.0, 2.5, 3.0], np.float32))


@case
def aos_to_soa_and_back():
    dt = struct_dtype(prog.meta, "point")
    pts = np.zeros(16, dt)
    pts["x"] = np.arange(16)
    pts["y"] = 100 * np.arange(16)
    out = np.zeros(16, dt)
    prog.run("transpose_points", pts, out)
    assert_equal(out["x"], pts["x"] + pts["y"])
    assert_equal(out["y"], pts["y"])


@case
def soa_function_parameters_and_accessor_overloads():
    a = np.random.default_rng(5).uniform(-4, 4, 8).astype(np.float32)
    out = np.zeros(4, np.float32)
    prog.run("soa_params", a, out)
    y = np.arange(8, dtype=np.float32)
    y[4:] *= 10
    assert_close(out, np.array([(a * y).sum(), (a[4:] * y[4:]).sum(), -a[2], a[5]], np.float32))
    check("one pointer per field, one length", "sv_x, __private float *sv_y" not in prog.source and "ulong sv_len" in prog.source)


@case
def spec_convert_soa_to_aos_template_with_loop_soa_stride():
    a = np.random.default_rng(6).uniform(-4, 4, 8).astype(np.float32)
    dt = struct_dtype(prog.meta, "npoint")
    out = np.zeros(8, dt)
    prog.run("soa_template", a, out)
    assert_close(out["x"], a)
    assert_close(out["y"], 2 * a)
    check("instantiated for npoint", "soa_to_aos_npoint" in prog.source)


@case
def make_vector_and_make_soa_vector_from_types():
    out = np.zeros(2, np.float32)
    prog.run("made_from_types", out)
    assert_close(out, np.array([2 + 4 + 6, 2 * 4 * 16], np.float32))
