"""tests/e2e/derived_vectors.crisp: types derived from vector, vector-view
and soa types; as-derived / as-original."""
from crisptest import *

prog = compile("tests/e2e/derived_vectors.crisp")


@case
def derived_vector_and_view_types():
    a = np.array([1.5, -2.0, 4.0, 0.25, 7.0, 3.0, -1.0, 2.5], np.float32)
    out = np.zeros(12, np.float32)
    prog.run("derived_vectors", a, out)
    s = a.sum()
    k = s + 273.0 * len(a)
    expect = np.array([s, k, s, k, a[0], 3 * (0 + 1 + 2 + 3), a[4] - a[2], a[6] - a[5], 3, 1, 0, a[6] - a[5]], np.float32)
    assert_close(out, expect)
    check("the derived overload has its own C name", "float total_celsius_vec(" in prog.source)
    check("make-window binds a view named after the variable", "ulong w_off = 2UL;" in prog.source)


@case
def kernel_parameter_of_derived_type():
    a = np.array([2.0, -1.0, 0.5], np.float32)
    out = np.zeros(2, np.float32)
    prog.run("derived_param", a, out)
    assert_close(out, np.array([a.sum() + 273.0 * 3, a[0]], np.float32))


@case
def as_original_by_alias_name():
    a = np.array([2.0, -1.0, 0.5, 4.0], np.float32)
    out = np.zeros(2, np.float32)
    prog.run("derived_alias", a, out)
    assert_close(out, np.array([-a.sum(), a.sum()], np.float32))


@case
def derived_from_a_type_constructor():
    a = np.array([5, -7, 9], np.int32)
    r = np.zeros(1, np.int32)
    prog.run("derived_template_alias", a, r)
    assert_equal(r, np.array([-7], np.int32))


@case
def derived_soa_type():
    a = np.array([1.0, -3.5, 2.25, 0.0], np.float32)
    out = np.zeros(4, np.float32)
    prog.run("derived_soa", a, out)
    assert_close(out, np.abs(a) + np.abs(-2.0 * a))


@case
def derived_soa_view_type():
    a = np.array([1.0, -3.5, 2.25, 0.5, 4.0, -1.0], np.float32)
    out = np.zeros(3, np.float32)
    prog.run("derived_soa_view", a, out)
    assert_close(out, np.array([a[2:5].sum(), -1.0, a.sum()], np.float32))


@case
def make_derived_tensor_view():
    a = np.linspace(0.0, 1.0, 12, dtype=np.float32)
    r = np.zeros(2, np.int32)
    prog.run("derived_tensor", a, r)
    assert_equal(r, np.array([int(np.round(a[6] * 100.0)), int(np.float32(10.0) * a[6])], np.int32))


@case
def as_derived_and_as_original_on_structs():
    out = np.zeros(4, np.float32)
    prog.run("derived_structs", out)
    assert_close(out, np.array([25.0, 7.0, 25.0, 7.0], np.float32))
