"""tests/e2e/templates2.crisp: computed struct fields, dependent defaults,
make-NAME by template name."""
from crisptest import *

prog = compile("tests/e2e/templates2.crisp")


def fields(name):
    return list(struct_dtype(prog.meta, name).names)


@case
def optional_struct_fields():
    check("Point without C has x y", [f for f in fields("Point_float_nil") if not f.startswith("_")] == ["x", "y"],
          str(fields("Point_float_nil")))
    check("Point with C has x y color",
          [f for f in fields("Point_float_int") if not f.startswith("_")] == ["x", "y", "color"],
          str(fields("Point_float_int")))
    check("sample<int>", [f for f in fields("sample_int_nil_none") if not f.startswith("_")] == ["v", "nw"],
          str(fields("sample_int_nil_none")))
    check("sample<float short :pair>",
          [f for f in fields("sample_float_short_pair") if not f.startswith("_")] == ["v", "w", "w2", "n1", "n2", "scale"],
          str(fields("sample_float_short_pair")))
    p = np.zeros(1, struct_dtype(prog.meta, "Point_float_nil"))
    p["x"], p["y"] = 1.5, 2.0
    q = np.zeros(1, struct_dtype(prog.meta, "Point_float_int"))
    q["x"], q["y"], q["color"] = 0.5, 0.25, 7
    s = np.zeros(1, struct_dtype(prog.meta, "sample_int_nil_none"))
    s["v"], s["nw"] = 10, 32
    u = np.zeros(1, struct_dtype(prog.meta, "sample_float_short_pair"))
    u["v"], u["w"], u["w2"], u["n1"], u["n2"], u["scale"] = 1.0, 2, 3, 0.5, 0.25, 4.0
    out = np.zeros(4, np.float32)
    prog.run("use_optional_fields", p, q, s, u, out)
    expected = np.array([1.5 + 2.0, 0.5 + 0.25 + 7, 10 + 32, 1.0 + 2 + 3 + 0.5 + 0.25 + 4.0], np.float32)
    assert_close(out, expected)
    assert_equal(int(q["color"][0]), 14)


@case
def defaults_referring_to_earlier_parameters():
    def types_of(name):
        dt = struct_dtype(prog.meta, name)
        return [dt.fields[f][0].base.name for f in ["a", "b", "c"]]
    assert_equal(types_of("trio_int_int_int"), ["int32", "int32", "int32"], "trio<int>")
    assert_equal(types_of("trio_int_double_double"), ["int32", "float64", "float64"], "trio<int double>")
    assert_equal(types_of("trio_int_float_short"), ["int32", "float32", "int16"], "trio<int float :V short>")
    r = np.zeros(1, struct_dtype(prog.meta, "trio_int_int_int"))
    r["a"], r["b"], r["c"] = 1, 2, 3
    s = np.zeros(1, struct_dtype(prog.meta, "trio_int_double_double"))
    s["a"], s["b"], s["c"] = 4, 0.5, 0.25
    t = np.zeros(1, struct_dtype(prog.meta, "trio_int_float_short"))
    t["a"], t["b"], t["c"] = 5, 1.5, -2
    out = np.zeros(5, np.float32)
    prog.run("use_dependent_defaults", r, s, t, out)
    assert_close(out, np.array([6, 4.75, 4.5, (1.5 + 2.0) * 2, (3 + 0.25) * 2], np.float32))
    src = prog.source
    check("scaled-sum<float> with U = T", "float scaled_sum_float_float(" in src)
    check("scaled-sum<int, float> from gen-", "float scaled_sum_int_float(" in src)


@case
def make_by_template_name():
    n = 8
    a = np.arange(n, dtype=np.int32) + 1
    b = np.linspace(0.5, 4.0, n).astype(np.float32)
    di = np.zeros(n, struct_dtype(prog.meta, "duo_int"))
    df = np.zeros(n, struct_dtype(prog.meta, "duo_float"))
    out = np.zeros(n, np.float32)
    prog.run("use_make_by_template", a, b, di, df, out)
    assert_equal(di["x"], a)
    assert_equal(di["y"], a * 3)
    assert_equal(df["x"], b)
    assert_equal(df["y"], np.full(n, 0.5, np.float32))
    assert_close(out, (a + 7).astype(np.float32) + b + 5 + 1.0)
    src = prog.source
    for name in ["make_duo_int(", "make_duo_float(", "make_Point_float_int(", "make_Point_float_nil("]:
        check(name, name in src)


@case
def gen_as_function_argument():
    vi = np.array([3, 1, 4, 1, 5], np.int32)
    vf = np.array([0.25, 1.5, 2.0], np.float32)
    out = np.zeros(3, np.float32)
    prog.run("use_gen_as_function", vi, vf, out)
    assert_close(out, np.array([vi.sum(), np.prod(vi), 0.5 + vf.sum()], np.float32))
    src = prog.source
    for name in ["int addTwo_int(", "int mulTwo_int(", "float addTwo_float("]:
        check(name, name in src)


@case
def gen_as_atomic_function():
    a = (np.arange(64, dtype=np.float32) % 7) * 0.5
    res = np.zeros(1, np.float32)
    prog.run("atomic_gen_sum", a, res, global_size=64)
    assert_close(res[0], a.sum())


@case
def user_def_constraint_in_type_is():
    a = np.array([1.5, 2.25, -3.0, 0.5], np.float32)
    out = np.zeros(2, np.float32)
    prog.run("user_constraint", a, out)
    assert_close(out, np.array([a[0] + a[1], a[2] + a[3]], np.float32))
