"""examples/loops.crisp: every looping construct yields the spec's sequence."""
from crisptest import *
from _sequences import sequences

prog = compile("examples/loops.crisp")


@case
def spec_sequences():
    out = np.zeros(256, np.uint64)
    prog.run("loop_sequences", out)
    got = sequences(out)
    expected = [
        [0, 1, 2, 3, 4],                 # dotimes (i 5)
        [0, 3, 6, 9],                    # dotimes (i 10 3)
        [4, 3, 2, 1, 0],                 # dec-times (i 5)
        [9, 6, 3, 0],                    # dec-times (i 10 3)
        [64, 32, 16, 8, 4, 2, 1],        # dec-times-by-half 64
        [100, 50, 25, 12, 6, 3, 1],      # dec-times-by-half 100
        [1, 2, 4, 8, 16, 32, 64],        # do-times-by-doubling 1 64
        [1, 2, 4, 8, 16, 32, 64],        # do-times-by-doubling 1 100
        [1, 4, 16, 64],                  # do-times-by-multiply 1 64 4
        [64, 16, 4, 1],                  # dec-times-by-factor 64 4
        [24, 4],                         # dec-times-by-factor 24 5
        [1, 2, 4, 8, 16, 32, 64],        # do-power-step 100
        [128, 64, 32, 16, 8, 4, 2, 1],   # dec-power-step 230
        [0, 1, 2],                       # dotimes+ 3
        [8, 4, 2, 1],                    # dec-times-by-half+ 8
    ]
    assert_equal(got[:len(expected)], expected)


def py_runtime(n, stride, factor):
    s = max(stride, 1)
    seqs = [list(range(0, n, s)), list(range(n - 1, -1, -s))]
    seq, i = [], n
    while factor > 1 and i >= 1:
        seq.append(i)
        i //= factor
    seqs.append(seq)
    seq, i = [], 1
    while factor > 1 and 0 < i <= n:
        seq.append(i)
        i = 0 if i > n // factor else i * factor
    seqs.append(seq)
    p = 1
    while p * 2 < n:
        p *= 2
    seqs.append([] if n <= 1 else [p >> k for k in range(p.bit_length())])
    return seqs


@case
def runtime_bounds():
    for n, stride, factor in [(10, 3, 2), (7, 1, 3), (0, 2, 2), (1, 0, 1), (33, 5, 10), (256, 64, 4)]:
        out = np.zeros(512, np.uint64)
        prog.run("loop_runtime", n, stride, factor, out)
        assert_equal(sequences(out)[:5], py_runtime(n, stride, factor), name=f"n={n} stride={stride} factor={factor}")
