"""tests/e2e/function_args.crisp: functions as arguments (spec "First Order
Functions"), specialised per function at compile time."""
from crisptest import *

prog = compile("tests/e2e/function_args.crisp")


@case
def predicates_and_transforms():
    a = np.random.default_rng(3).integers(-200, 300, 97).astype(np.int32)
    out = np.zeros(5, np.int64)
    prog.run("function_args", a, out)
    even = int(np.sum(a % 2 == 0))
    big = int(np.sum(a > 100))
    assert_equal(out, np.array([even, big, 81, 7, even + big], np.int64))
    check("no function pointers: one specialisation per function",
          "count_if_is_even_intvec(" in prog.source and "count_if_is_big_intvec(" in prog.source and "(*" not in prog.source)


@case
def function_values():
    a = np.random.default_rng(5).integers(-200, 300, 61).astype(np.int32)
    out = np.zeros(7, np.int64)
    prog.run("function_values", a, out)
    even = int(np.sum(a % 2 == 0))
    big = int(np.sum(a > 100))
    assert_equal(out, np.array([even, 25, 36, big, even + big, 81, -4], np.int64))
    check("function variables leave no function pointers", "(*" not in prog.source)


@case
def function_overloads():
    rng = np.random.default_rng(7)
    a = rng.integers(-5, 10, 53).astype(np.int32)
    f = rng.uniform(-1.0, 2.0, 41).astype(np.float32)
    out = np.zeros(8, np.float32)
    prog.run("function_overloads", a, f, out)
    expect = np.array([np.sum(a > 0), np.sum(f > 0.5), np.sum(a == 7), 16, 1.5,
                       np.sum(f > 0.5), 15, 2.5], np.float32)
    assert_equal(out, expect)
    check("each overload specialised under its own C name",
          "count_if_positive_p_int_intvec(" in prog.source and "count_if_positive_p_float_floatvec(" in prog.source)


@case
def struct_accessors_and_constructors_as_function_values():
    a = np.array([1.5, -2.0, 4.25, 8.0], np.float32)
    out = np.zeros(2, np.float32)
    prog.run("struct_functions", a, out)
    assert_close(out, np.array([a[0] + a[2], a[1] + a[3]], np.float32))


@case
def signature_type_alias():
    a = np.random.default_rng(9).uniform(-50, 50, 40).astype(np.float32)
    out = np.zeros(1, np.float32)
    prog.run("signature_alias", a, out)
    assert_close(out[0], a.max())


@case
def type_signature_of_alias():
    a = np.random.default_rng(10).uniform(-5, 5, 33).astype(np.float32)
    out = np.zeros(1, np.float32)
    prog.run("signature_of_alias", a, out)
    assert_close(out[0], np.float32(a.astype(np.float64).sum()), rtol=1e-4)
