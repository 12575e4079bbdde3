"""Every opt-in static analysis (spec "Static Analysys") over every program
of examples/ and tests/e2e/: no false positive.

Each .crisp file is compiled (checked, no output) with
`(declaim (check-barriers) (check-divergence) (check-coalesce)
(check-bank-conflicts))` put in front of its first line, so the checks run
on every function and kernel of the file and line numbers stay the same.
Every warning must be in EXPECTED below, with the reason it is true; every
expected warning must still be reported (so the list stays honest).  The
correct examples of the spec (sum_vector, vector_add, lighten_image, loops,
structs) get no check-barriers, check-coalesce or check-bank-conflicts
warning; their only warnings are check-divergence's, on branches that do
split warps.  Also: no analysis warning at all without the opt-ins, and
none with --no-static-analysis."""
import glob
import re
import os

from crisptest import *

DECLAIM = "(declaim (check-barriers) (check-divergence) (check-coalesce) (check-bank-conflicts)) "

# file -> {(line, code): why the warning is right}
EXPECTED = {
    "examples/atomics.crisp": {
        (21, "W1103"): "a histogram: counts[data[i]] scatters",
        (46, "W1103"): "order[ticket]: the index comes from an atomic",
        (52, "W1102"): "when-local-linear-id-is 0: one work-item",
        (56, "W1102"): "the branch tests the value read, not only the bound",
        (59, "W1102"): "when-local-linear-id-is 0: one work-item",
    },
    "examples/dot_product.crisp": {
        (12, "W1102"): "dot-prod-grid (lib/): the tree's steps leave work-items idle, work-item 0 publishes",
        (20, "W1103"): "dot-prod-seq of a row per work-item: neighbouring work-items read rows apart",
    },
    "examples/library_forms.crisp": {
        (6, "W1102"): "exclusive-scan (lib/): the raking threads and work-item 0's look-back branch on the local id",
        (10, "W1102"): "reduce-vec-atomic (lib/): the tree's steps leave work-items idle, work-item 0's atomic",
    },
    "examples/sum_vector_to_one.crisp": {
        (20, "W1102"): "reduce-vec-atomic (lib/): the tree's steps leave work-items idle, work-item 0's atomic",
        (26, "W1102"): "reduce-vec-small (lib/): the tree's steps, work-item 0's ticket and store",
    },
    "examples/filter.crisp": {
        (18, "W1102"): "filter (lib/): the raking threads and work-item 0's look-back branch on the local id",
        (19, "W1102"): "when-global-linear-id-is 0: one work-item",
    },
    "examples/word_count.crisp": {
        (64, "W1102"): "exclusive-scan (lib/): each thread's slice, the raking threads and work-item 0's step",
        (68, "W1102"): "when-thread-in-group-is 0: one work-item",
        (75, "W1102"): "only the work-items at a match write",
        (77, "W1102"): "the slot is checked against the result's length: data-dependent",
        (78, "W1103"): "result[slot]: each match writes to the slot the scan gave it",
    },
    "examples/side_channels.crisp": {
        (38, "W1103"): "A[2i] and A[2i+1]: every other element",
    },
    "examples/sum_vector_warp.crisp": {
        (36, "W1102"): "when-thread-in-group-is (0): one work-item",
    },
    "examples/sum_vector.crisp": {
        (32, "W1102"): "the tree reduction's (< local-idx s) leaves work-items idle",
        (36, "W1102"): "when-thread-in-group-is (0): one work-item",
    },
    "tests/e2e/arith.crisp": {
        (16, "W1103"): "Q[4i + k]: four results per work-item (R too)",
        (30, "W1103"): "Q[3i + k]: three results per work-item",
        (39, "W1103"): "Out[4i + k]",
        (49, "W1103"): "Out[8i + k]",
        (64, "W1103"): "ash_negated's Out[4i + k]: four results per work-item",
        (77, "W1103"): "Out[8i + k]",
        (95, "W1103"): "Out[2i + k]",
    },
    "tests/e2e/bit_patterns.crisp": {
        (11, "W1103"): "R[4i + k]: four results per work-item",
        (21, "W1103"): "R[3i + k]: three results per work-item",
    },
    "tests/e2e/spec_blocks_scan.crisp": {
        (51, "W1102"): "the spec's scan block: (>= local-id stride) leaves work-items idle",
        (53, "W1102"): "(= lid 0): one work-item",
    },
    "tests/e2e/const_vec.crisp": {
        (274, "W1102"): "(= i 0): one work-item writes the constants",
    },
    "tests/e2e/control.crisp": {
        (33, "W1103"): "Out[3i + k]",
        (41, "W1102"): "when-thread-is: one work-item",
        (43, "W1102"): "when-thread-is: one work-item",
        (45, "W1102"): "abs-when-thread-is: one work-item",
        (47, "W1102"): "when-thread-in-group-is: one work-item per group",
        (51, "W1102"): "when-global-linear-id-is: one work-item",
        (53, "W1102"): "when-local-linear-id-is: one work-item per group",
        (57, "W1102"): "(= lx 0): one work-item per group",
    },
    "tests/e2e/warps.crisp": {
        (75, "W1102"): "def-native-shuffles: (= l 1000), the literal operands' store by the lanes asked",
        (76, "W1102"): "the same macro for long",
        (77, "W1102"): "the same macro for float4",
        (138, "W1102"): "when-thread-in-warp-is 0: one lane of each warp",
        (161, "W1102"): "(>= lane d): the scan's lower lanes keep their value",
    },
    "tests/e2e/debug.crisp": {
        (12, "W1102"): "when-thread-is 0: one work-item",
    },
    "tests/e2e/enums.crisp": {
        (25, "W1103"): "Out[2i + k]",
    },
    "tests/e2e/functions.crisp": {
        (78, "W1103"): "Out[10i + k]",
    },
    "tests/e2e/grid.crisp": {
        (11, "W1103"): "a naive transpose: Out[y + x * height]",
        (22, "W1102"): "a test on the local id inside one group",
        (45, "W1103"): "Out[6i + k]",
    },
    "tests/e2e/let_zero.crisp": {
        (13, "W1102"): "only the work-items with a positive element count",
    },
    "tests/e2e/maybe.crisp": {
        (38, "W1103"): "Out[3i + k]",
    },
    "tests/e2e/setters.crisp": {
        (29, "W1103"): "Out[3i + k]",
    },
    "tests/e2e/soa.crisp": {
        (18, "W1102"): "when-thread-in-group-is (0): one work-item",
        (51, "W1103"): "each work-item converts a window of 4 structs",
        (55, "W1103"): "each work-item converts a window of 4 structs",
        (93, "W1102"): "when-thread-in-group-is (0): one work-item",
    },
    "tests/e2e/struct_accessors.crisp": {
        (35, "W1103"): "In[3i + k]: three floats per point",
        (40, "W1103"): "Copy[3i + k]",
    },
    "tests/e2e/type_queries.crisp": {
        (44, "W1103"): "Out[5i + k]",
    },
    "tests/e2e/matmul.crisp": {
        (25, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows (row < M) at sizes that are not multiples of the tile",
        (33, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows",
        (41, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows",
        (51, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows",
        (61, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows",
        (72, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows (:pipeline)",
        (80, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows (the pipelined GPU configuration)",
        (88, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows (:pipeline, odd blocks)",
        (96, "W1102"): "matmul (lib/): the edge guards of a work-item's block rows (:pad)",
    },
    "tests/e2e/tile.crisp": {
        (29, "W1102"): "store-tile (lib/): only the work-items inside the destination write (edge guard)",
        (30, "W1102"): "store-tile (lib/): only the work-items inside the destination write (edge guard)",
        (45, "W1102"): "when-thread-is 0: one work-item",
        (55, "W1102"): "convert-layout (lib/): store-tile's edge guard",
        (62, "W1102"): "convert-layout (lib/): store-tile's edge guard",
    },
    "tests/e2e/orchestration.crisp": {
        (69, "W1102"): "reduce-vec-cont (lib/): the tree's steps leave work-items idle, work-item 0 stores",
        (77, "W1102"): "reduce-to-1-cont (lib/): the tree's steps leave work-items idle, work-item 0 stores",
    },
    "tests/e2e/uniform.crisp": {
        (88, "W1102"): "the tree reduction's (< lid s)",
    },
}

# the analyses' warnings (W11xx); the checker's own are other tests' business
WARNING = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): warning\[(?P<code>W11\d\d)\]", re.M)
PROGRAMS = sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp")) +
                  glob.glob(os.path.join(REPO, "tests", "e2e", "*.crisp")))


def analysed(rel, *flags):
    """Compile REL with every check declaimed; (status, warnings, stderr)."""
    src = open(os.path.join(REPO, rel)).read()
    copy = os.path.join(out_dir(), os.path.basename(rel))
    with open(copy, "w") as f:
        f.write(DECLAIM + src)
    status, _, err = crisp(*flags, copy)
    return status, {(int(m["line"]), m["code"]) for m in WARNING.finditer(err)}, err


for path in PROGRAMS:
    rel = os.path.relpath(path, REPO)

    @case("no_false_positive_" + os.path.splitext(os.path.basename(rel))[0] +
          ("_example" if rel.startswith("examples") else ""))
    def _(rel=rel):
        status, got, err = analysed(rel)
        assert_equal(status, 0, name="exit status")
        want = EXPECTED.get(rel, {})
        unexpected = sorted(got - set(want))
        missing = sorted(set(want) - got)
        check("no unexpected warning", not unexpected, "%s: %s\n%s" % (rel, unexpected, err))
        check("every expected warning", not missing, "%s: %s no longer reported" % (rel, missing))


@case
def no_warning_without_opt_in():
    for path in PROGRAMS:
        status, _, err = crisp(path)
        check(os.path.relpath(path, REPO), status == 0 and "warning[W11" not in err, err)


@case
def no_static_analysis_flag():
    status, got, err = analysed("examples/sum_vector.crisp", "--no-static-analysis")
    assert_equal(status, 0)
    check("no warning", not got, err)
    check("no note", "check-" not in err, err)
    status, got, err = analysed("examples/sum_vector.crisp")
    check("the checks ran without the flag", got and "check-coalesce" in err, err)


@case
def spec_examples_pass_check_barriers():
    # the spec's correct examples: a barrier in a uniform loop (sum_vector),
    # none elsewhere - check-barriers finds nothing to say
    for rel in ("examples/sum_vector.crisp", "examples/vector_add.crisp", "examples/lighten_image.crisp",
                "examples/loops.crisp", "tests/e2e/uniform.crisp"):
        _, got, err = analysed(rel)
        check(rel, not any(code in ("W1101", "W1104") for _, code in got), err)
