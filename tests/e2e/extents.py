"""What a kernel touches (analysis/extent.c) where guards compare sums:
tests/golden/emit/extents_relational.crisp run at every small length, so a
bound that is too loose (a valid call refused: crisptest checks every call
against "touches") or a wrong result shows up; and a variable the loop
assigns stays unchecked."""
from crisptest import *

prog = compile("tests/golden/emit/extents_relational.crisp")


@case
def tiles_of_four_every_length():
    for n in range(0, 14):
        a = np.arange(n, dtype=np.float32) + 1
        want = a.copy()
        whole = n // 4 * 4
        want[:whole] *= 2
        want[whole:] = 0
        prog.run("tiles_of_four", a)
        assert_equal(a, want, "tiles_of_four n=%d" % n)


@case
def word_at_every_fit():
    text = np.frombuffer(b"the cat theAthe the", dtype=np.uint8).copy()
    for m in range(1, 5):
        word = text[:m].copy()
        for hits in (len(text), len(text) - m + 1, 1):
            hit = np.full(hits, -1, np.int32)
            prog.run("word_at", text, word, hit)
            for i in range(hits):
                fits = i + m <= len(text)
                want = -1 if not fits else int(bytes(text[i:i + m]) == bytes(word) and
                                                 (i + m == len(text) or text[i + m] != 65))
                assert_equal(int(hit[i]), want, "word_at m=%d i=%d" % (m, i))


@case
def reinterpret_view_every_length():
    for n in range(0, 14):
        a = np.arange(n, dtype=np.float32)
        want = a.copy()
        want[:n // 4 * 4] *= 2
        prog.run("seen_as_float4", a)
        assert_equal(a, want, "seen_as_float4 n=%d" % n)


@case
def common_length_either_shorter():
    for na, nb in [(10, 3), (3, 10), (0, 5), (7, 7)]:
        a = np.arange(na, dtype=np.float32)
        b = np.zeros(nb, np.float32)
        prog.run("common_length", a, b)
        k = min(na, nb)
        assert_equal(b[:k], a[:k], "common_length %d %d" % (na, nb))


@case
def assigned_in_a_loop_is_unchecked():
    args = {a["name"]: a for a in prog.kernels["reassigned"]["args"] if a["role"] == "buffer"}
    check("A of reassigned is unchecked", "unchecked" in args["A"] and "touches" not in args["A"],
          repr(args["A"]))
