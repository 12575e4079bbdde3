"""The spec's "Possible Implementation" blocks of "Filtering / Prefix-Sum
Scan", pasted unchanged: what they do today.

* `exclusive-scan` (tests/e2e/spec_blocks_scan.crisp) compiles and runs,
  but computes wrong results: its up-sweep is a Hillis-Steele step done in
  place with no barrier between a thread's read of (~ v (- id stride)) and
  that element's update by its owner in the same step (a data race), and
  its down-sweep is Blelloch's on a tree the up-sweep did not build.  On
  PoCL #(0 1 0 1 1 0) gives #(3 4 1 9 4 22) instead of #(0 0 1 1 2 3).  A
  spec bug, not a compiler gap; the library's exclusive-scan is right.
* "Word Count With Exclusive Scan" (spec_blocks_gaps/scan_word_count.crisp)
  does not compile: `look-for-word-at` is defined nowhere, `word-match` is
  a typo for `is-a-match`, and the declarations `(global-mem X
  :return-value)` and `(local X)` are specified nowhere (listed only in the
  spec's index): they are ignored (W0302), so `global-counter` stays a
  private int that atomic-add! rejects and `wg-offset` an int added to a
  uint.  The fixed version is examples/word_count.crisp.
* "possible implementation of filter" (spec_blocks_gaps/scan_filter.crisp) does
  not compile: a missing `)` after `(funcall predicateF ...)` puts the rest
  of the body inside `set!`, `predicateF` lacks its `,`, and `(return
  global-counter)` ends up in the kernel; the same `global-mem` / `local`
  declarations; and `(set! is-a-match (when ...))` needs `when` to have the
  value false when its test fails.  Its algorithm also orders the workgroups'
  matches by their atomic-add!, not by position.

When a gap closes, the matching case here fails with "now compiles":
update this file and docs/library.md then.
"""
from crisptest import *
import _scanref as ref

prog = compile("tests/e2e/spec_blocks_scan.crisp")
rng = np.random.default_rng(3)


@case
def exclusive_scan_block_compiles_and_runs():
    a = np.array([0, 1, 0, 1, 1, 0], np.int32)
    out = np.zeros(6, np.int32)
    tot = np.zeros(1, np.int32)
    prog.run("spec_scan", a, out, tot, global_size=6, local_size=6)
    check("the spec's block computes something", out.shape == (6,))


@case
def exclusive_scan_block_is_wrong_known_spec_bug():
    a = rng.integers(0, 10, 64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    tot = np.zeros(1, np.int32)
    prog.run("spec_scan", a, out, tot, global_size=64, local_size=64)
    right = np.array_equal(out, ref.exclusive(a, "add")) and tot[0] == a.sum()
    check("the spec's exclusive-scan block is still wrong (if it is now right, update the docs)", not right)


def known_failure(path, expected):
    status, _, err = crisp(path)
    if status == 0:
        raise AssertionError("%s now compiles: run it against numpy and update "
                             "tests/e2e/spec_blocks_scan.py and docs/library.md" % path)
    for frag in expected:
        if frag not in err:
            raise AssertionError("%s: expected a diagnostic containing %r, got:\n%s" % (path, frag, err))


@case
def word_count_block_known_gaps():
    known_failure("tests/e2e/spec_blocks_gaps/scan_word_count.crisp", [
        "unknown declaration `(global-mem global-counter :return-va",
        "unknown declaration `(local wg-offset)`",
        "unknown function or macro `look-for-word-at`",
        "unknown variable `word-match`",
        "`global-counter` is private to one thread",
    ])


@case
def filter_block_known_gaps():
    known_failure("tests/e2e/spec_blocks_gaps/scan_filter.crisp", [
        "unknown declaration `(global-mem global-counter)`",
        "`set!` takes place/value pairs, found 7 arguments",
        "a kernel returns nothing, but this return has 1 value",
    ])
