/* test_analysis.c - unit tests of the analysis pass (analysis/): the
 * uniformity lattice and its rules, function summaries, the `*` captures it
 * drops, the index analysis behind check-coalesce and check-bank-conflicts,
 * the opt-ins, and each kernel's local memory (W0704).
 *
 * Each case compiles a small program in memory (crisp_run, no files)
 * with --dump=analysis, and looks for lines of the dump (the level of a
 * variable, a branch, a summary) or for diagnostics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/driver.h"

typedef struct Run {
    int status;
    char *diag, *dump;
    size_t dlen, plen;
} Run;

static Run compile(const char *src, int no_static_analysis) {
    Run r = {0};
    FILE *d = open_memstream(&r.diag, &r.dlen);
    FILE *p = open_memstream(&r.dump, &r.plen);
    assert_non_null(d);
    assert_non_null(p);
    const char *inputs[1] = {"t.crisp"};
    CrispOptions o;
    memset(&o, 0, sizeof o);
    o.inputs = inputs;
    o.ninputs = 1;
    o.input_text = src;
    o.input_len = (int)strlen(src);
    o.dump = DUMP_ANALYSIS;
    o.dump_out = p;
    o.no_static_analysis = no_static_analysis;
    r.status = crisp_run(&o, d);
    fclose(d);
    fclose(p);
    return r;
}

static void run_free(Run *r) {
    free(r->diag);
    free(r->dump);
}

#define DEFS                                                  \
    "(def-type fvec (vector-type float :global :read_write))\n" \
    "(def-type rvec (vector-type float :global :read-only))\n"  \
    "(def-type lvec (vector-type long :global :read_write))\n"

/* Compile DEFS + SRC; every fragment of WANT (NULL-terminated) must be in
 * the dump (or, prefixed with "!", in the diagnostics; "-" absent from
 * both). */
static void expect(const char *src, int status, const char **want) {
    char buf[8192];
    snprintf(buf, sizeof buf, "%s%s", DEFS, src);
    Run r = compile(buf, 0);
    for (int i = 0; want[i]; i++) {
        const char *w = want[i];
        int in_diag = w[0] == '!', absent = w[0] == '-';
        const char *frag = in_diag || absent ? w + 1 : w;
        int found = in_diag ? strstr(r.diag, frag) != NULL : absent ? strstr(r.diag, frag) || strstr(r.dump, frag)
                                                                     : strstr(r.dump, frag) != NULL;
        if (found == absent)
            fail_msg("%s `%s`\n--- program\n%s\n--- dump\n%s--- diagnostics\n%s", absent ? "unexpected" : "missing", frag, src,
                     r.dump, r.diag);
    }
    if (r.status != status) fail_msg("status %d, want %d\n%s", r.status, status, r.diag);
    run_free(&r);
}

#define EXPECT(status, src, ...)                        \
    do {                                                \
        const char *want_[] = {__VA_ARGS__, NULL};      \
        expect(src, status, want_);                     \
    } while (0)

/* Sources of uniformity and of variation. */
static void test_sources(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec r:rvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let* ((a (+ n 1)) (b (get-local-id 0)) (c (get-workgroup-id 0)) (d (length~ v))\n"
           "        (e (~ r n)) (f (~ v n)) (g (~ r b)) (h (atomic-inc! (~ v 0))) (j (get-local-size 0)))\n"
           "    (set! (~ v 0) (+ e f g))))\n",
           "var a 6:11: uniform", "var b 6:23: varying", "var c 6:44: uniform", "var d 6:69: uniform",
           "var e 7:10: uniform", "var f 7:22: varying", "var g 7:34: varying", "var h 7:46: varying",
           "var j 7:72: uniform");
}

/* Private arrays are as uniform as what is stored in them. */
static void test_private_arrays(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let ((p (make-vector ulong :private 4)) (q (make-vector ulong :private 4)))\n"
           "    (set! (~ p 0) n)\n"
           "    (set! (~ q 1) (get-local-id 0))\n"
           "    (let ((x (~ p 0)) (y (~ q 0)))\n"
           "      (set! (~ v 0) (to-float (+ x y))))))\n",
           "var x 9:12: uniform", "var y 9:24: varying");
}

/* A variable assigned under a divergent branch, declared outside it,
 * varies; one declared inside does not; a uniform branch changes nothing. */
static void test_assignments_under_branches(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let ((a n) (b n))\n"
           "    (when (< (get-local-id 0) 3) (set! a 1) (let ((c 2)) (set! (~ v c) 1.0)))\n"
           "    (when (> n 3) (set! b 7))\n"
           "    (let ((x a) (y b)) (set! (~ v 0) (to-float (+ x y))))))\n",
           "var c 7:52: uniform", "var x 9:12: varying", "var y 9:18: uniform", "if 7:5: varying", "if 8:5: uniform");
}

/* Loop-carried values reach their fixpoint; a loop over a uniform bound
 * has a uniform index. */
static void test_loops(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let ((a n) (b n) (c n))\n"
           "    (dotimes (k 3) (set! a b) (set! b c) (set! c (get-local-id 0)))\n"
           "    (let ((x a)) (set! (~ v 0) (to-float x)))))\n",
           "var x 8:12: varying", "loop k 7:5: index uniform, trip count uniform");
}

/* Function summaries: results and requirements in terms of parameters. */
static void test_function_summaries(void **state) {
    (void)state;
    EXPECT(0,
           "(def-function twice (x:ulong) (declare (return-type ulong)) (* 2 x))\n"
           "(def-function fill (v:fvec n:ulong) (dotimes+ (i n) (set! (~ v i) 0.0)))\n"
           "(def-function sync (k:ulong) (when (> k 1) (local-barrier)))\n"
           "(def-kernel k (v:fvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let ((a (twice n)) (b (twice (get-local-id 0))))\n"
           "    (fill v a) (sync n) (set! (~ v 0) (to-float b))))\n",
           "returns uniform if x uniform", "needs n uniform (a + form)", "needs k uniform (a barrier)", "reaches a barrier",
           "var a 9:10: uniform", "var b 9:24: varying");
}

/* `*` captures are dropped when the value is uniform already. */
static void test_captures(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec n:ulong)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (dotimes* (i (+ n 1)) (set! (~ v i) 0.0))\n"
           "  (dotimes* (i (get-local-id 0)) (set! (~ v i) 0.0))\n"
           "  (when* (> n 2) (set! (~ v 0) 1.0)))\n",
           "capture 6:3: dropped: the value is uniform already",
           "capture 7:3: work-item 0 shares it, barriers reached uniformly",
           "capture 8:3: dropped: the value is uniform already", "2 captures dropped");
}

/* Compile-time conditions: the other branch is not even checked. */
static void test_compile_time_conditions(void **state) {
    (void)state;
    EXPECT(0,
           "(def-const +mode+ 2)\n"
           "(def-kernel k (v:fvec)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (if+ (= +mode+ 2) (set! (~ v 0) 1.0) (no-such-function))\n"
           "  (when* (eq :a :b) (no-such-function))\n"
           "  (cond+ ((> +mode+ 5) (no-such-function)) (t (set! (~ v 1) 2.0))))\n",
           "-error");
}

/* Proofs of divergence: equality with an id, a dimension that exists. */
static void test_proofs(void **state) {
    (void)state;
    EXPECT(1,
           "(def-kernel k (v:fvec)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (let ((lid (+ (get-local-id 0) 1)))\n"
           "    (unless (/= lid 1) (local-barrier))))\n",
           "!7:24: error[E1112]");
    /* local size 1 in x: no split; dimension 1 of a 1-D kernel: none */
    EXPECT(0,
           "(def-kernel k (v:fvec)\n"
           "  (declare (global-size :derive-from v) (local-size :set-to 1))\n"
           "  (when (= (get-local-id 0) 0) (local-barrier)))\n"
           "(def-kernel k2 (v:fvec)\n"
           "  (declare (global-size :derive-from v))\n"
           "  (when (= (get-local-id 1) 0) (local-barrier)))\n",
           "-E1112");
}

/* check-coalesce verdicts. */
static void test_coalescing(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec r:rvec w:ulong)\n"
           "  (declare (global-size :derive-from v) (check-coalesce))\n"
           "  (in-each-thread (i)\n"
           "    (set! (~ v i) (+ (~ r 0) (~ r (+ i 3)) (~ r (- (* 4 i) (* 3 i)))))\n"
           "    (set! (~ v (* i 2)) (~ r (ash i 3)))\n"
           "    (set! (~ v (* w i)) 0.0)))\n",
           "!8:11: warning[W1103]: neighbouring work-items access `v` 2 elements",
           "!8:25: warning[W1103]: neighbouring work-items access `r` 8 elements",
           "!9:11: warning[W1103]: neighbouring work-items access `v` `w` elements", "-7:");
}

/* check-bank-conflicts: the degree of 32 four-byte banks. */
static void test_bank_conflicts(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:lvec)\n"
           "  (declare (global-size :derive-from v) (local-size :set-to 64) (check-bank-conflicts))\n"
           "  (let ((s (make-vector long :local :read_write 4096)) (f (make-vector float :local :read_write 4096))\n"
           "        (i (get-local-id 0)))\n"
           "    (set! (~ s i) 1 (~ f (* i 33)) 1.0 (~ f (* i 2)) 2.0 (~ f (* i 32)) 3.0 (~ s (* i 16)) 4)))\n",
           "!8:40: warning[W1104]: 2-way bank conflict",
           "!8:58: warning[W1104]: 32-way bank conflict",
           "!8:77: warning[W1104]: 16-way bank conflict", "-8:11", "-8:21");
}

/* --no-static-analysis skips the opt-ins, not the language's rules. */
static void test_no_static_analysis(void **state) {
    (void)state;
    const char *src = DEFS "(declaim (check-barriers) (check-coalesce))\n"
                           "(def-kernel k (v:fvec)\n"
                           "  (declare (global-size :derive-from v))\n"
                           "  (when (< (get-local-id 0) 5) (local-barrier))\n"
                           "  (set! (~ v (* 2 (get-global-id 0))) 1.0))\n";
    Run r = compile(src, 1);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.diag, "warning"));
    assert_null(strstr(r.diag, "note"));
    run_free(&r);
    r = compile(src, 0);
    assert_non_null(strstr(r.diag, "W1101"));
    assert_non_null(strstr(r.diag, "W1103"));
    run_free(&r);
    const char *plus = DEFS "(def-kernel k (v:fvec)\n"
                            "  (declare (global-size :derive-from v))\n"
                            "  (dotimes+ (i (get-local-id 0)) (set! (~ v i) 0.0)))\n";
    r = compile(plus, 1);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.diag, "E1110"));
    run_free(&r);
}

/* Local memory per workgroup (analysis/localmem.c): fixed :local vectors,
 * scratch sized by the local size at the declared one, W0704 only above
 * 32 KiB, and a size that depends on the data known only at launch. */
static void test_local_memory(void **state) {
    (void)state;
    EXPECT(0,
           "(def-kernel k (v:fvec)\n"
           "  (declare (local-size :set-to 64) (global-size :set-to 64))\n"
           "  (let ((a (make-vector float 1024 :local))\n"
           "        (s (make-scratch-vector float :local (* (get-local-linear-size) 8))))\n"
           "    (set! (~ a (get-local-id 0)) 1.0)\n"
           "    (set! (~ s (get-local-id 0)) 2.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (+ (~ a 0) (~ s 0)))))\n",
           "local memory 6144 bytes at 64 work-items (4096 fixed)", "-W0704");
    /* exactly 32 KiB: fine; one element more: W0704, with the part's note */
    EXPECT(0,
           "(def-kernel k (v:fvec)\n"
           "  (declare (local-size :set-to 64) (global-size :set-to 64))\n"
           "  (let ((a (make-vector float 8192 :local)))\n"
           "    (set! (~ a (get-local-id 0)) 1.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (~ a 0))))\n",
           "local memory 32768 bytes at 64 work-items (32768 fixed)", "-W0704");
    EXPECT(0,
           "(def-kernel k (v:fvec)\n"
           "  (declare (local-size :set-to 64) (global-size :set-to 64))\n"
           "  (let ((a (make-vector float 8193 :local)))\n"
           "    (set! (~ a (get-local-id 0)) 1.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (~ a 0))))\n",
           "!warning[W0704]: kernel `k` needs 32,772 bytes of local memory per workgroup at its local size of 64 work-items",
           "!note: :local vector `a`: 8193 x float (4 bytes each) = 32,772 bytes",
           "!note: to shrink it: shorter :local vectors");
    /* the scratch grows with the local size: at 1024 work-items 36 KiB */
    EXPECT(0,
           "(def-kernel k (v:fvec)\n"
           "  (declare (local-size :set-to 1024) (global-size :set-to 1024))\n"
           "  (let ((s (make-scratch-vector float :local (* (get-local-linear-size) 9))))\n"
           "    (set! (~ s (get-local-id 0)) 2.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (~ s 0))))\n",
           "local memory 36864 bytes at 1024 work-items (0 fixed)", "!W0704", "!:items-per-thread");
    /* sized by a parameter: known at launch only, no warning */
    EXPECT(0,
           "(def-kernel k (v:fvec m:ulong)\n"
           "  (declare (local-size :set-to 64) (global-size :set-to 64))\n"
           "  (let ((s (make-scratch-vector float :local m)))\n"
           "    (set! (~ s 0) 2.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (~ s 0))))\n",
           "local memory sized at launch (0 fixed)", "-W0704");
    /* a :local parameter: as long as the caller says, with the fixed part */
    EXPECT(0,
           "(def-kernel k (v:fvec w:(vector-type float :local :read-write))\n"
           "  (declare (local-size :set-to 64) (global-size :set-to 64))\n"
           "  (let ((a (make-vector float 16 :local)))\n"
           "    (set! (~ a 0) 1.0)\n"
           "    (set! (~ w 0) 2.0)\n"
           "    (local-barrier)\n"
           "    (set! (~ v (get-local-id 0)) (+ (~ a 0) (~ w 0)))))\n",
           "local memory sized at launch (64 fixed)", "-W0704");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources),
        cmocka_unit_test(test_private_arrays),
        cmocka_unit_test(test_assignments_under_branches),
        cmocka_unit_test(test_loops),
        cmocka_unit_test(test_function_summaries),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_compile_time_conditions),
        cmocka_unit_test(test_proofs),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_bank_conflicts),
        cmocka_unit_test(test_no_static_analysis),
        cmocka_unit_test(test_local_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
