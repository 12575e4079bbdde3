"""tests/e2e/struct_views.crisp: struct fields holding vector-views."""
from crisptest import *

prog = compile("tests/e2e/struct_views.crisp")


@case
def views_in_struct_fields():
    a = np.array([1.5, -2.0, 4.0, 0.25, 7.0, 3.0], np.float32)
    w = np.full(6, -1.0, np.float32)
    out = np.zeros(6, np.float32)
    prog.run("struct_views", a, w, out)
    expect_w = np.array([-1.0, 5.0, 5.5, 6.0, 6.5, -1.0], np.float32)  # 0.5 * (10 + i) at W[1..4]
    assert_close(w, expect_w)
    assert_close(out, np.array([3 + len(a), a[2], a[2:5].sum(), 2.5 * a.sum(), 4, expect_w[4]], np.float32))
    check("the struct holds a pointer and a length",
          "__global const float *second; ulong second_len;" in prog.source)
    check("a nested view field is read through the struct", "h.s.data" in prog.source)


@case
def vectors_in_struct_fields_are_unchecked():
    # the extent analysis does not follow a vector through a struct field:
    # the metadata says so instead of claiming the kernel touches nothing
    args = {a["name"]: a for a in prog.kernels["struct_views"]["args"] if a["role"] == "buffer"}
    for name in ("In", "W"):
        check(name + " is unchecked", "struct's vector-view field" in args[name].get("unchecked", ""), repr(args[name]))
