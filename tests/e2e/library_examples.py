"""The GPU library's examples against numpy: examples/word_count.crisp (the
spec's "Word Count With Exclusive Scan") and examples/filter.crisp (the
spec's `filter`)."""
import re
from crisptest import *

words = compile("examples/word_count.crisp")
filt = compile("examples/filter.crisp")
rng = np.random.default_rng(5)

TEXT = ("the cat sat on the mat. The theme of the day: the other cat, then the dog; "
        "bathe the cat! the") * 40


def word_positions(text, word):
    return [m.start() for m in re.finditer(r"(?<![A-Za-z])%s(?![A-Za-z])" % re.escape(word), text)]


def count_words(text, word, local_size, result_len=None):
    corpus = np.frombuffer(text.encode(), np.uint8).copy()
    w = np.frombuffer(word.encode(), np.uint8).copy()
    want = word_positions(text, word)
    result = np.zeros(result_len if result_len is not None else max(len(want), 1), np.uint64)
    sides = words.run("word_count", corpus, w, result, local_size=local_size)
    return int(sides["count"][0]), result, want


@case
def word_count_the():
    for ls in (64, 256, 100):
        n, result, want = count_words(TEXT, "the", ls)
        assert_equal(n, len(want), "count, local size %d" % ls)
        assert_equal(sorted(result.tolist()), want, "positions, local size %d" % ls)


@case
def word_count_within_a_workgroup_positions_ascend():
    n, result, want = count_words(TEXT, "cat", 64)
    assert_equal(n, len(want))
    got = result.tolist()
    # each workgroup's matches are consecutive and ascending in the result
    for g in set(p // 64 for p in got):
        mine = [p for p in got if p // 64 == g]
        start = got.index(mine[0])
        assert_equal(got[start:start + len(mine)], sorted(mine))


@case
def word_count_no_match_and_small_result():
    n, result, want = count_words(TEXT, "zebra", 64)
    assert_equal(n, 0)
    n, result, want = count_words(TEXT, "the", 64, result_len=5)
    assert_equal(n, len(want))              # counted, not all written
    check("written positions are matches", set(result.tolist()) <= set(want))


@case
def filter_keep_large():
    for n in (1, 255, 1000, 100003):
        a = rng.random(n).astype(np.float32)
        kept = np.zeros(n, np.float32)
        nk = np.zeros(1, np.uint64)
        filt.run("keep_large", a, kept, nk, local_size=128)
        want = a[a > 0.5]
        assert_equal(int(nk[0]), want.size)
        assert_equal(kept[:want.size], want)


@case
def filter_spec_example():
    out = np.zeros(9, np.int32)
    nout = np.zeros(1, np.uint64)
    filt.run("spec_example", out, nout)
    assert_equal(int(nout[0]), 4)
    assert_equal(out.tolist(), [2, 4, 6, 8, 0, 0, 0, 0, 0])
