"""The GPU library's defaults fit the 32 KiB of local memory OpenCL
guarantees a workgroup (issue 8; docs/analysis.md "Local memory per
workgroup", docs/library.md "Radix sort"): each library form that takes
local memory, called with no tuning, compiled for every scalar element
type (and, for the radix sorts, every key and value type), must draw no
W0704 and have a "local_mem" of at most 32,768 bytes in the metadata at
the local size its kernel declares or crisp chooses.  The tunings past
32 KiB (tests/e2e/lib/filter.crisp, scan_grid.crisp) warn on purpose and
are not here.  Compiled only (the forms run in their own tests: scan_grid,
filter, reduce, sort, sort_hoists, matmul)."""
import json
import os

from crisptest import *

TYPES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"]
LIMIT = 32768


def vec(t, access):
    return "(vector-type %s :global %s)" % (t, access)


def scans(t):
    return """
(def-kernel xscan_{t} (In:{r} &out Out:{w})
  (exclusive-scan In Out))
(def-kernel iscan_{t} (In:{r} &out Out:{w})
  (inclusive-scan In Out))
(def-kernel xscan_in_place_{t} (V:{rw})
  (exclusive-scan V))
(def-function keep_{t}? (x:{t})
  (declare (return-type bool))
  (> x 1))
(def-kernel filter_{t} (In:{r} &out Out:{w} Counts:(vector-type ulong :global :write-only))
  (let ((count (filter In #'keep_{t}? Out)))
    (when (= (get-global-linear-id) 0)
      (set! (~ Counts 0) count))))
""".format(t=t, r=vec(t, ":read-only"), w=vec(t, ":write-only"), rw=vec(t, ":read-write"))


def reductions(t):
    return """
(def-kernel reduce_small_{t} (A:{r} &out R:{w})
  (reduce-vec-small #'+ A 0 :return-vec R))
(def-kernel dot_{t} (A:{r} B:{r} &out R:{w})
  (dot-prod-grid A B R))
(def-kernel histogram_{t} (A:{r} H:(vector-type uint :global :read-write) off:uint)
  (histogram-pass A H off))
""".format(t=t, r=vec(t, ":read-only"), w=vec(t, ":write-only"))


def bitonic(t):
    s = "(gen-bitonic-sort-vector %s)\n(gen-bitonic-sort-vector! %s)\n" % (t, t)
    # soa data: a struct of the widest fields, sorted by a field of T
    s += "(def-struct wide_%s (key:%s) (a:double) (b:ulong) (c:double))\n" % (t, t)
    s += "(gen-bitonic-sort-soa-vector wide_%s key)\n(gen-bitonic-sort-soa-vector! wide_%s key)\n" % (t, t)
    return s


def radix_sorts(t):
    return "(gen-radix-sort-vector %s)\n" % t + "".join("(gen-radix-sort-vector %s :values %s)\n" % (t, v) for v in TYPES)


def radix_passes(t):
    c = vec("uint", ":read-write")
    s = """
(def-kernel count_{t} (K:{r} C:{c} shift:uint)
  (radix-count-pass K C shift))
(def-kernel scatter_{t} (K:{r} O:{w} C:{c} shift:uint)
  (radix-scatter-pass K O C shift))
""".format(t=t, r=vec(t, ":read-only"), w=vec(t, ":write-only"), c=c)
    for v in TYPES:
        s += """(def-kernel scatter_{t}_{v} (K:{r} O:{w} C:{c} shift:uint V:{rv} VO:{wv})
  (radix-scatter-pass K O C shift V VO))
""".format(t=t, v=v, r=vec(t, ":read-only"), w=vec(t, ":write-only"), c=c, rv=vec(v, ":read-only"),
           wv=vec(v, ":write-only"))
    return s


def matmul(t):
    return """
(def-kernel matmul_{t} (A:{r} B:{r} m:ulong k:ulong n:ulong &out C:{w})
  (declare (global-size :dims 2))
  (let ((sa (make-vector ulong 2)) (sb (make-vector ulong 2)) (sc (make-vector ulong 2)))
    (set! (~ sa 0) k (~ sa 1) 1 (~ sb 0) n (~ sb 1) 1 (~ sc 0) n (~ sc 1) 1)
    (let ((ma (make-matrix A sa m k)) (mb (make-matrix B sb k n)) (mc (make-matrix C sc m n)))
      (matmul ma mb mc))))
""".format(t=t, r=vec(t, ":read-only"), w=vec(t, ":write-only"))


FAMILIES = {
    "scans_and_filter": (scans, TYPES),
    "reductions": (reductions, TYPES),
    "bitonic_sorts": (bitonic, TYPES),
    "radix_sorts": (radix_sorts, TYPES),
    "radix_passes": (radix_passes, TYPES),
    "matmul": (matmul, ["float", "double", "int"]),
}


def compile_family(name):
    make, types = FAMILIES[name]
    d = out_dir(name)
    src = os.path.join(d, name + ".crisp")
    with open(src, "w") as f:
        f.write(";; %s: every element type at the defaults (tests/e2e/library_local_memory.py)\n" % name)
        for t in types:
            f.write(make(t))
    status, out, err = crisp("--transpile-to=oclc", "--metadata", "--output-dir=" + d, src, timeout=300)
    check("%s compiles" % name, status == 0, err[-3000:])
    warned = [line for line in err.splitlines() if "W0704" in line]
    check("%s: no W0704" % name, not warned, "\n".join(warned[:10]))
    m = json.load(open(os.path.join(d, name + ".metacrisp")))
    sizes = {k["name"]: k["local_mem"] for k in m["kernels"] if k.get("local_mem")}
    check("%s: kernels with local memory" % name, sizes, sorted(k["name"] for k in m["kernels"]))
    over = ["%s: %s bytes at %s work-items" % (k, lm.get("bytes"), lm.get("at_local_size"))
            for k, lm in sorted(sizes.items()) if lm.get("bytes") is None or lm["bytes"] > LIMIT]
    check("%s: every kernel's local memory <= 32 KiB at its local size" % name, not over, "\n".join(over[:10]))
    return m


for _name in FAMILIES:
    @case("defaults_fit_32k_" + _name)
    def _(name=_name):
        compile_family(name)


@case
def radix_tiles_follow_the_types():
    """gen-radix-sort-vector's tile from the bytes of a key and its value
    (docs/library.md "Radix sort"), and the radix passes' local size
    (crisp's choice: 128 for keys of 1 or 2 bytes, 64 for 4 and 8)"""
    m = compile_family("radix_sorts")
    shape = {s["name"]: (s["local_size"], s["keys_per_thread"]) for s in m["sorts"]}
    check("4-byte keys keep 128 x 24", shape["radix_sort_vector_uint"] == (128, 24) and
          shape["radix_sort_vector_float"] == (128, 24), shape)
    check("8 bytes a pair: 128 x 16", shape["radix_sort_vector_float_int"] == (128, 16) and
          shape["radix_sort_vector_uint_uint"] == (128, 16), shape)
    check("8-byte keys alone: 96 x 32", shape["radix_sort_vector_double"] == (96, 32) and
          shape["radix_sort_vector_long"] == (96, 32), shape)
    check("12 and 16 bytes a pair: 96 x 16", shape["radix_sort_vector_long_ulong"] == (96, 16) and
          shape["radix_sort_vector_int_double"] == (96, 16), shape)
    check("a short key with a char value: 128 x 24", shape["radix_sort_vector_short_char"] == (128, 24), shape)
    m = compile_family("radix_passes")
    ls = {k["name"]: k["local_size"]["set_to"][0] for k in m["kernels"] if k.get("local_size")}
    check("the passes of a kernel agree: 64 for 4-byte keys", ls["count_uint"] == 64 and ls["scatter_uint"] == 64
          and ls["scatter_uint_double"] == 64, ls)
    check("128 for 2-byte keys", ls["count_short"] == 128 and ls["scatter_short_double"] == 128, ls)
    check("64 for 8-byte keys", ls["count_double"] == 64 and ls["scatter_long_ulong"] == 64, ls)


@case
def scan_tiles_follow_the_local_size():
    """The grid scans' and filter's default tile shape (docs/library.md
    "Scans", lib/scan-grid.crisp %scan-tile-items): a kernel that declares
    no local size gets crisp's 128 and 32 elements per thread for 4-byte
    types; a declared local size L gives the largest of 32, 16, 8 ... with
    L x items x bytes <= 16 KiB; in a def-grid-function, 256 is assumed;
    :items-per-thread wins.  Read from the metadata: the local size and the
    status words' comment ("per tile of N elements per thread")."""
    import re
    d = out_dir("scan_shapes")
    src = os.path.join(d, "scan_shapes.crisp")
    cases = {}   # kernel -> (local size, items)
    text = ";; the grid scans' default tile shapes (tests/e2e/library_local_memory.py)\n"
    for t, b in (("int", 4), ("float", 4), ("double", 8), ("long", 8), ("uchar", 1), ("short", 2)):
        for ls in (None, 64, 128, 256, 512, 1024):
            name = "x_%s_%s" % (t, ls or "auto")
            decl = "\n  (declare (local-size :set-to %d))" % ls if ls else ""
            text += "(def-kernel %s (In:%s &out Out:%s)%s\n  (exclusive-scan In Out))\n" % (
                name, vec(t, ":read-only"), vec(t, ":write-only"), decl)
            l = ls or 128
            items = next(i for i in (32, 16, 8, 4, 2, 1) if l * i * b <= 16384 or i == 1)
            cases[name] = (l, items)
        name = "f_%s_auto" % t
        text += """(def-function keep_{t}? (x:{t})
  (declare (return-type bool))
  (> x 1))
(def-kernel {n} (In:{r} &out Out:{w} Counts:(vector-type ulong :global :write-only))
  (let ((count (filter In #'keep_{t}? Out)))
    (when (= (get-global-linear-id) 0)
      (set! (~ Counts 0) count))))
""".format(t=t, n=name, r=vec(t, ":read-only"), w=vec(t, ":write-only"))
        cases[name] = (128, 32 if b <= 4 else 16)
    text += """(def-grid-function prefix-sums (A B)
  (declare #({r} {w} => nil))
  (inclusive-scan A B))
(def-kernel in_function_128 (In:{r} &out Out:{w})
  (declare (local-size :set-to 128))
  (prefix-sums In Out))
(def-kernel tuned_auto (In:{r} &out Out:{w})
  (inclusive-scan In Out :items-per-thread 8))
(def-kernel two_dims (In:{r} &out Out:{w})
  (declare (global-size :dims 2))
  (inclusive-scan In Out))
""".format(r=vec("int", ":read-only"), w=vec("int", ":write-only"))
    cases["in_function_128"] = (128, 16)
    cases["tuned_auto"] = (128, 8)
    cases["two_dims"] = (256, 16)
    with open(src, "w") as f:
        f.write(text)
    status, out, err = crisp("--transpile-to=oclc", "--metadata", "--output-dir=" + d, src, timeout=300)
    check("scan_shapes compiles", status == 0, err[-3000:])
    warned = [line for line in err.splitlines() if "W0704" in line]
    check("scan_shapes: no W0704", not warned, "\n".join(warned[:10]))
    m = json.load(open(os.path.join(d, "scan_shapes.metacrisp")))
    got = {}
    for k in m["kernels"]:
        ls = k.get("local_size") or {}
        l = 1
        for x in ls.get("set_to") or [0]:
            l *= x
        items = [int(mm.group(1)) for s in k.get("scratch", []) + k.get("args", [])
                 for mm in [re.search(r"per tile of (\d+) elements per thread", s.get("comment") or "")] if mm]
        got[k["name"]] = (l, items[0] if items else None)
        lm = k.get("local_mem") or {}
        check("%s: local memory <= 32 KiB" % k["name"], lm.get("bytes") is not None and lm["bytes"] <= LIMIT, lm)
    bad = ["%s: want %s x %s, got %s x %s" % (n, w[0], w[1], got.get(n, (None, None))[0], got.get(n, (None, None))[1])
           for n, w in sorted(cases.items()) if got.get(n) != w]
    check("tile shapes follow the local size", not bad, "\n".join(bad))


if __name__ == "__main__":
    main()
