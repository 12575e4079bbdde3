"""tests/e2e/templates.crisp: templates, instantiation, constraints."""
from crisptest import *

prog = compile("tests/e2e/templates.crisp")


@case
def generated_kernels():
    names = [k["name"] for k in prog.meta["kernels"]]
    check("only gen- instances of the templated kernel", "happy_stance" not in names
          and "happy_stance_f" in names and "happy_stance_i" in names, str(names))
    f = np.arange(5, dtype=np.float32)
    prog.run("happy_stance_f", f)
    assert_equal(f, np.arange(5, dtype=np.float32) * 2)
    i = np.arange(5, dtype=np.int32)
    prog.run("happy_stance_i", i)
    assert_equal(i, np.arange(5, dtype=np.int32) * 2)


@case
def implicit_instantiation_and_type_constructors():
    p = np.zeros(1, struct_dtype(prog.meta, "point_float"))
    p["x"] = 1.0
    ints = np.zeros(7, np.int32)
    out = np.zeros(5, np.float64)
    prog.run("use_templates", p, ints, out)
    assert_equal(p["x"][0], 2.5)
    assert_equal(out.tolist(), [5.0, 2.25, 1.5, -1.0, 7.0])
    for name in ["addTwo_float", "addTwo_int", "addTwo_double", "halve_float", "div_safe_int"]:
        check(name, name + "(" in prog.source)


@case
def optional_key_and_incomplete_templates():
    f = np.array([1.5, 0, 0], np.float32)
    i = np.array([4, 0, 0, 0, 0, 0, 0], np.int32)
    p = np.zeros(1, struct_dtype(prog.meta, "tagged_int_float"))
    p["tag"] = 3
    p["val"] = 0.75
    out = np.zeros(5, np.float32)
    prog.run("use_optional", f, i, p, out)
    assert_equal(out.tolist(), [3.5, 5.0, 0.75, 3.0, 7.0])
    src = prog.source
    # defaults filled in give the same instance as written in full: one each
    for name in ["first_plus_float_float_global(", "first_plus_int_float_global("]:
        check(name + " defined once", src.count("float " + name) == 1, str(src.count("float " + name)))
    check("one tagged struct", src.count("} tagged_int_float;") == 1)
    check("count-any per element type", "count_any_float(" in src and "count_any_int(" in src)


@case
def incomplete_struct_parameters():
    p = np.zeros(2, struct_dtype(prog.meta, "pair_float_int"))
    p["second"] = [10, 20]
    q = np.zeros(1, struct_dtype(prog.meta, "pair_double_int"))
    q["second"] = 5
    out = np.zeros(2, np.int32)
    prog.run("use_incomplete", p, q, out)
    assert_equal(out.tolist(), [30, 15])
    src = prog.source
    check("one instance per argument types",
          "sum_seconds(pair_float_int a, pair_float_int b)" in src
          and "(pair_double_int a, pair_float_int b)" in src, "")
    check("no struct for the incomplete type", "pair_nil_int" not in src)
