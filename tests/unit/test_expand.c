/* test_expand.c - unit tests of the macro expander (macros/expand.c) and
 * the prelude (macros/prelude.crisp).
 *
 * Each prelude macro's expansion is printed and compared with the expected
 * core forms; the index sequences of every loop macro are checked by
 * running the expansion on a tiny ulong interpreter of the core loop forms
 * (the GPU tests later check the same sequences on hardware).  Also: where
 * the expander does and does not expand, origin/location propagation,
 * definition order, shadowing, top-level progn, the dump format and
 * argument errors of the prelude macros. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../macros/eval.h"
#include "../../macros/expand.h"
#include "../../reader/reader.h"
#include "../../core/syntax.h"

typedef struct T {
    Crisp c;
    CrispOptions o;
    FILE *dout;
    char *dbuf;
    size_t dlen;
    Forms out;
} T;

static T *t_new(int no_prelude) {
    T *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    assert_non_null(t->dout);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->o.no_prelude = no_prelude;
    t->c.opt = &t->o;
    return t;
}

static void t_free(T *t) {
    fclose(t->dout);
    free(t->dbuf);
    arena_free(&t->c.arena);
    free(t);
}

static const char *t_diag(T *t) {
    fflush(t->dout);
    return t->dbuf ? t->dbuf : "";
}

/* Read `src` as the file u.crisp: its top-level forms. */
static Forms t_read(T *t, const char *src) {
    SrcFile *f = arena_alloc(&t->c.arena, sizeof *f);
    assert_non_null(f);
    f->name = "u.crisp";
    f->text = arena_strdup(&t->c.arena, src);
    f->len = (int)strlen(src);
    Reader r;
    reader_init(&r, &t->c);
    Forms in = {0};
    reader_read_file(&r, f, &in);
    return in;
}

/* Read and expand `src`; the output forms are in t->out. */
static void t_run(T *t, const char *src) {
    t->out = expand_program(&t->c, t_read(t, src));
}

static const char *show(T *t, const Node *n) {
    return syn_to_string(&t->c.arena, n, 100000);
}

/* All output forms printed, one per line. */
static const char *t_printed(T *t) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < t->out.n; i++) {
        if (i) sb_putc(&b, '\n');
        syn_print(&b, t->out.v[i]);
    }
    const char *s = arena_strdup(&t->c.arena, sb_cstr(&b));
    sb_free(&b);
    return s;
}

/* Expand FORM inside a function body (with the prelude) and compare the
 * printed expansion. */
#define EXPECT_EXPANSION(form, want)                                                \
    do {                                                                            \
        T *t_ = t_new(0);                                                           \
        t_run(t_, "(def-function f ()\n" form ")");                                 \
        if (t_->c.diag.errors || t_->out.n != 1 || t_->out.v[0]->nkids != 4)        \
            fail_msg("%s\n%s", form, t_diag(t_));                                   \
        const char *got_ = show(t_, t_->out.v[0]->kids[3]);                         \
        if (strcmp(got_, want) != 0)                                                \
            fail_msg("%s\n  got:  %s\n  want: %s", form, got_, want);               \
        t_free(t_);                                                                 \
    } while (0)

/* Expand FORM inside a function body and expect an error containing FRAG. */
#define EXPECT_EXPAND_ERROR(form, frag)                                             \
    do {                                                                            \
        T *t_ = t_new(0);                                                           \
        t_run(t_, "(def-function f ()\n" form ")");                                 \
        if (!t_->c.diag.errors || !strstr(t_diag(t_), frag))                        \
            fail_msg("%s\n  diag: %s\n  want error with: %s", form, t_diag(t_),     \
                     frag);                                                         \
        assert_int_equal(t_->out.n, 0); /* the failed form is dropped */            \
        t_free(t_);                                                                 \
    } while (0)

/* ------------------------------------------------------------------------
 * A tiny interpreter of the core forms the loop macros produce, over ulong
 * values (like the emitted OpenCL), recording (emit X) calls.
 * ---------------------------------------------------------------------- */

typedef struct Run {
    const char *names[16];
    uint64_t vals[16];
    int nvars;
    uint64_t seen[256];
    int nseen;
    long steps;
    const char *err;
} Run;

static uint64_t ev(Run *r, const Node *n);

static void body(Run *r, Node **forms, int n) {
    for (int i = 0; i < n && !r->err; i++)
        if (!syn_is_form(forms[i], "declare")) ev(r, forms[i]);
}

static uint64_t *var(Run *r, const char *key) {
    for (int i = r->nvars - 1; i >= 0; i--)
        if (!strcmp(r->names[i], key)) return &r->vals[i];
    r->err = "unbound variable";
    return &r->vals[0];
}

static uint64_t ev(Run *r, const Node *n) {
    if (r->err) return 0;
    if (++r->steps > 100000) {
        r->err = "loop does not terminate";
        return 0;
    }
    if (n->kind == N_INT) return (uint64_t)n->ival;
    if (n->kind == N_SYMBOL) return *var(r, n->key);
    if (n->kind != N_LIST || n->nkids == 0 || n->kids[0]->kind != N_SYMBOL) {
        r->err = "unexpected form";
        return 0;
    }
    const char *h = n->kids[0]->key;
    uint64_t a = 0, b = 0;
    if (!strcmp(h, "%loop")) {
        const Node *s = n->kids[1];
        int save = r->nvars;
        r->names[r->nvars] = s->kids[0]->key;
        r->vals[r->nvars] = ev(r, s->kids[1]);
        r->nvars++;
        while (!r->err && ev(r, s->kids[2])) {
            body(r, n->kids + 2, n->nkids - 2);
            uint64_t next = ev(r, s->kids[3]);
            r->vals[save] = next;
        }
        r->nvars = save;
        return 0;
    }
    if (!strcmp(h, "let")) {
        int save = r->nvars;
        const Node *bs = n->kids[1];
        for (int i = 0; i < bs->nkids; i++) {
            uint64_t v = ev(r, bs->kids[i]->kids[1]);
            r->names[r->nvars] = bs->kids[i]->kids[0]->key;
            r->vals[r->nvars++] = v;
        }
        body(r, n->kids + 2, n->nkids - 2);
        r->nvars = save;
        return 0;
    }
    if (!strcmp(h, "progn")) {
        body(r, n->kids + 1, n->nkids - 1);
        return 0;
    }
    if (!strcmp(h, "emit")) {
        if (r->nseen < 256) r->seen[r->nseen++] = ev(r, n->kids[1]);
        return 0;
    }
    if (!strcmp(h, "%uniform")) return ev(r, n->kids[2]); /* a mark for the uniformity pass */
    if (!strcmp(h, "and")) {
        for (int i = 1; i < n->nkids; i++)
            if (!ev(r, n->kids[i])) return 0;
        return 1;
    }
    if (!strcmp(h, "select-if")) return ev(r, n->kids[1]) ? ev(r, n->kids[2]) : ev(r, n->kids[3]);
    if (!strcmp(h, "%pow2-below")) {
        a = ev(r, n->kids[1]);
        uint64_t p = 0;
        for (uint64_t k = 1; k && k < a; k <<= 1) p = k;
        return p;
    }
    a = ev(r, n->kids[1]);
    if (n->nkids > 2) b = ev(r, n->kids[2]);
    if (!strcmp(h, "+")) return a + b;
    if (!strcmp(h, "-")) return a - b;
    if (!strcmp(h, "*")) return a * b;
    if (!strcmp(h, "/")) return b ? a / b : (r->err = "division by zero", 0);
    if (!strcmp(h, "min")) return a < b ? a : b;
    if (!strcmp(h, "max")) return a > b ? a : b;
    if (!strcmp(h, "<")) return a < b;
    if (!strcmp(h, ">")) return a > b;
    if (!strcmp(h, "<=")) return a <= b;
    if (!strcmp(h, ">=")) return a >= b;
    r->err = "unknown operator";
    return 0;
}

/* Expand LOOP (whose body is (emit i)) and run it; the emitted values as
 * "v1 v2 ...". */
static const char *sequence(const char *loop) {
    static char buf[4096];
    T *t = t_new(0);
    char *src = arena_printf(&t->c.arena, "(def-function f () %s)", loop);
    t_run(t, src);
    if (t->c.diag.errors || t->out.n != 1) fail_msg("%s\n%s", loop, t_diag(t));
    Run r;
    memset(&r, 0, sizeof r);
    ev(&r, t->out.v[0]->kids[3]);
    if (r.err) fail_msg("%s: %s in %s", loop, r.err, show(t, t->out.v[0]->kids[3]));
    buf[0] = 0;
    for (int i = 0; i < r.nseen; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%llu", i ? " " : "", (unsigned long long)r.seen[i]);
    }
    t_free(t);
    return buf;
}

#define EXPECT_SEQ(loop, want) assert_string_equal(sequence(loop), want)

/* ---- prelude: conditionals ---- */

static void test_prelude_conditionals(void **state) {
    (void)state;
    EXPECT_EXPANSION("(when (> a 0) (foo) (bar))", "(if (> a 0) (progn (foo) (bar)))");
    EXPECT_EXPANSION("(unless x (foo))", "(if (not x) (progn (foo)))");
    EXPECT_EXPANSION("(cond ((< a 0) -1) ((> a 0) 1) (t 0))", "(if (< a 0) -1 (if (> a 0) 1 0))");
    EXPECT_EXPANSION("(cond (a) (b 1 2))", "(if a it (if b (progn 1 2)))");
    EXPECT_EXPANSION("(cond (a 1) (t 2) (b 3))", "(if a 1 2)");
    EXPECT_EXPANSION("(cond (x (when y z)))", "(if x (if y (progn z)))");
    EXPECT_EXPAND_ERROR("(cond 5)", "u.crisp:2:7: error[E0204]: cond: each clause must be a "
                                    "non-empty list (TEST BODY...), got 5");
}

/* A cond with many clauses is one expansion, not a nest of them. */
static void test_prelude_long_cond(void **state) {
    (void)state;
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "(def-function f () (cond");
    for (int i = 0; i < 500; i++) sb_printf(&b, " ((= x %d) %d)", i, i);
    sb_puts(&b, "))");
    T *t = t_new(0);
    t_run(t, sb_cstr(&b));
    sb_free(&b);
    assert_int_equal(t->c.diag.errors, 0);
    const Node *n = t->out.v[0]->kids[3];
    for (int i = 0; i < 500; i++) {
        assert_true(syn_is_form(n, "if"));
        assert_ptr_equal(n->origin, t->out.v[0]->kids[3]->origin);
        n = i < 499 ? n->kids[3] : n;
    }
    t_free(t);
}

/* ---- prelude: loops ---- */

static void test_prelude_dotimes(void **state) {
    (void)state;
    EXPECT_EXPANSION("(dotimes (i 10) (foo i))", "(%loop (i 0 (< i 10) (+ i 1)) (foo i))");
    EXPECT_EXPANSION("(dotimes (i:int n 4) (foo i))", "(%loop (i:int 0 (< i n) (+ i 4)) (foo i))");
    EXPECT_EXPANSION("(dotimes (i n 1))", "(%loop (i 0 (< i n) (+ i 1)))");
    EXPECT_EXPANSION("(dotimes (i n s) (foo i))", "(%loop (i 0 (< i n) (+ i (max s 1))) (foo i))");
    EXPECT_EXPAND_ERROR("(dotimes (i 10 0) (foo))",
                        "u.crisp:2:16: error[E0204]: dotimes: the stride must be a positive "
                        "integer, got 0");
    EXPECT_EXPAND_ERROR("(dotimes (i 10 -3) (foo))", "the stride must be a positive integer");
    EXPECT_EXPAND_ERROR("(dotimes i (foo))",
                        "u.crisp:2:10: error[E0202]: macro `dotimes`: expected a list matching "
                        "(i n &optional (stride 1 stride-p)), got `i`");
    EXPECT_EXPAND_ERROR("(dotimes ((a) 3))", "dotimes: the loop variable must be a symbol");
    EXPECT_EXPAND_ERROR("(dotimes (i) 3)", "expected at least 2 arguments");
    EXPECT_SEQ("(dotimes (i 5) (emit i))", "0 1 2 3 4");
    EXPECT_SEQ("(dotimes (i 10 3) (emit i))", "0 3 6 9");
    EXPECT_SEQ("(dotimes (i 0) (emit i))", "");
    EXPECT_SEQ("(let ((s 0)) (dotimes (i 3 s) (emit i)))", "0 1 2"); /* zero stride: step 1 */
}

static void test_prelude_dec_times(void **state) {
    (void)state;
    EXPECT_EXPANSION("(dec-times (i 10) (foo i))",
                     "(%loop (%g1 10 (> %g1 0) (- %g1 1)) (let ((i (- %g1 1))) "
                     "(declare (%immutable i)) (foo i)))");
    EXPECT_EXPANSION("(dec-times (i:int 10 3) (foo i))",
                     "(%loop (%g1 10 (> %g1 0) (- %g1 (min %g1 3))) (let ((i:int (- %g1 1))) "
                     "(declare (%immutable i)) (foo i)))");
    EXPECT_EXPANSION("(dec-times (i n s))",
                     "(%loop (%g1 n (> %g1 0) (- %g1 (min %g1 (max s 1)))) (let ((i (- %g1 1))) "
                     "(declare (%immutable i))))");
    EXPECT_EXPAND_ERROR("(dec-times (i 10 0) (foo))", "dec-times: the stride must be a positive");
    EXPECT_SEQ("(dec-times (i 5) (emit i))", "4 3 2 1 0");
    EXPECT_SEQ("(dec-times (i 10 3) (emit i))", "9 6 3 0");
    EXPECT_SEQ("(dec-times (i 9 3) (emit i))", "8 5 2");
    EXPECT_SEQ("(dec-times (i 0) (emit i))", "");
    EXPECT_SEQ("(let ((s 0)) (dec-times (i 3 s) (emit i)))", "2 1 0");
}

static void test_prelude_dec_times_by(void **state) {
    (void)state;
    EXPECT_EXPANSION("(dec-times-by-half (i 64) (foo i))", "(%loop (i 64 (>= i 1) (/ i 2)) (foo i))");
    EXPECT_EXPANSION("(dec-times-by-factor (i 64 4) (foo i))",
                     "(%loop (i 64 (>= i 1) (/ i 4)) (foo i))");
    EXPECT_EXPANSION("(dec-times-by-factor (i:uint n f) (foo i))",
                     "(%loop (i:uint n (and (> f 1) (>= i 1)) (/ i f)) (foo i))");
    EXPECT_EXPAND_ERROR("(dec-times-by-factor (i 10 1) (foo))",
                        "u.crisp:2:28: error[E0204]: dec-times-by-factor: the factor must be "
                        "greater than 1, got 1");
    EXPECT_SEQ("(dec-times-by-half (i 64) (emit i))", "64 32 16 8 4 2 1");
    EXPECT_SEQ("(dec-times-by-half (i 100) (emit i))", "100 50 25 12 6 3 1");
    EXPECT_SEQ("(dec-times-by-half (i 0) (emit i))", "");
    EXPECT_SEQ("(dec-times-by-factor (i 64 4) (emit i))", "64 16 4 1");
    EXPECT_SEQ("(dec-times-by-factor (i 24 5) (emit i))", "24 4");
    EXPECT_SEQ("(dec-times-by-factor (i 64 2) (emit i))", "64 32 16 8 4 2 1");
    EXPECT_SEQ("(let ((f 1)) (dec-times-by-factor (i 64 f) (emit i)))", "");
    EXPECT_SEQ("(let ((f 0)) (dec-times-by-factor (i 64 f) (emit i)))", "");
    EXPECT_SEQ("(let ((f 3)) (dec-times-by-factor (i 27 f) (emit i)))", "27 9 3 1");
}

static void test_prelude_do_times_by(void **state) {
    (void)state;
    EXPECT_EXPANSION("(do-times-by-doubling (i 1 100) (foo i))",
                     "(%loop (i 1 (and (> i 0) (<= i 100)) (select-if (> i (/ 100 2)) 0 (* i 2))) "
                     "(foo i))");
    EXPECT_EXPANSION("(do-times-by-multiply (i 1 64 4) (foo i))",
                     "(%loop (i 1 (and (> i 0) (<= i 64)) (select-if (> i (/ 64 4)) 0 (* i 4))) "
                     "(foo i))");
    EXPECT_EXPANSION("(do-times-by-multiply (i 1 n f))",
                     "(%loop (i 1 (and (> f 1) (> i 0) (<= i n)) (select-if (> i (/ n f)) 0 "
                     "(* i f))))");
    EXPECT_EXPAND_ERROR("(do-times-by-multiply (i 1 10 0) (foo))",
                        "do-times-by-multiply: the factor must be greater than 1, got 0");
    EXPECT_SEQ("(do-times-by-doubling (i 1 64) (emit i))", "1 2 4 8 16 32 64");
    EXPECT_SEQ("(do-times-by-doubling (i 1 100) (emit i))", "1 2 4 8 16 32 64");
    EXPECT_SEQ("(do-times-by-doubling (i 3 20) (emit i))", "3 6 12");
    EXPECT_SEQ("(do-times-by-doubling (i 0 100) (emit i))", "");
    EXPECT_SEQ("(do-times-by-doubling (i 1 18446744073709551615) (emit 0))",
               "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
               "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
    EXPECT_SEQ("(do-times-by-multiply (i 1 64 4) (emit i))", "1 4 16 64");
    EXPECT_SEQ("(do-times-by-multiply (i 1 100 3) (emit i))", "1 3 9 27 81");
    EXPECT_SEQ("(let ((f 1)) (do-times-by-multiply (i 1 64 f) (emit i)))", "");
    EXPECT_SEQ("(let ((f 4)) (do-times-by-multiply (i 1 64 f) (emit i)))", "1 4 16 64");
}

static void test_prelude_power_steps(void **state) {
    (void)state;
    EXPECT_EXPANSION("(do-power-step (i 100) (foo i))",
                     "(%loop (i 1 (and (> i 0) (< i 100)) (* i 2)) (foo i))");
    EXPECT_EXPANSION("(dec-power-step (i 230) (foo i))",
                     "(%loop (i (%pow2-below 230) (>= i 1) (/ i 2)) (foo i))");
    EXPECT_SEQ("(do-power-step (i 100) (emit i))", "1 2 4 8 16 32 64");
    EXPECT_SEQ("(do-power-step (i 128) (emit i))", "1 2 4 8 16 32 64");
    EXPECT_SEQ("(do-power-step (i 1) (emit i))", "");
    EXPECT_SEQ("(dec-power-step (i 230) (emit i))", "128 64 32 16 8 4 2 1");
    EXPECT_SEQ("(dec-power-step (i 256) (emit i))", "128 64 32 16 8 4 2 1");
    EXPECT_SEQ("(dec-power-step (i 1) (emit i))", "");
}

static void test_prelude_plus_variants(void **state) {
    (void)state;
    EXPECT_EXPANSION("(dotimes+ (i 10) (foo i))",
                     "(%uniform \"dotimes+\" (%loop (i 0 (< i 10) (+ i 1)) (foo i)))");
    EXPECT_EXPANSION("(dec-times+ (i n 2))",
                     "(%uniform \"dec-times+\" "
                     "(%loop (%g1 n (> %g1 0) (- %g1 (min %g1 2))) (let ((i (- %g1 1))) "
                     "(declare (%immutable i)))))");
    EXPECT_EXPANSION("(dec-times-by-half+ (s 32) (foo s))",
                     "(%uniform \"dec-times-by-half+\" (%loop (s 32 (>= s 1) (/ s 2)) (foo s)))");
    EXPECT_EXPANSION("(dec-times-by-factor+ (i n 4) (foo i))",
                     "(%uniform \"dec-times-by-factor+\" (%loop (i n (>= i 1) (/ i 4)) (foo i)))");
    EXPECT_SEQ("(dotimes+ (i 3) (emit i))", "0 1 2");
    EXPECT_SEQ("(dec-times-by-half+ (i 8) (emit i))", "8 4 2 1");
    EXPECT_EXPAND_ERROR("(dotimes+ (i 10 0) (foo))", "dotimes: the stride must be a positive");
    EXPECT_EXPANSION("(if+ (> n 0) (foo) (bar))", "(%uniform \"if+\" (if (> n 0) (foo) (bar)))");
    EXPECT_EXPANSION("(when+ c (foo) (bar))", "(%uniform \"when+\" (if c (progn (foo) (bar))))");
    EXPECT_EXPANSION("(unless+ c (foo))", "(%uniform \"unless+\" (if (not c) (progn (foo))))");
    EXPECT_EXPANSION("(cond+ (a 1) (b 2) (t 3))",
                     "(%uniform \"cond+\" (if a 1 (%uniform \"cond+\" (if b 2 3))))");
    EXPECT_EXPAND_ERROR("(cond+ 5)", "cond+: each clause must be a non-empty list");
}

/* The `*` variants capture what is not a literal as a uniform value. */
static void test_prelude_star_variants(void **state) {
    (void)state;
    EXPECT_EXPANSION("(dotimes* (i 10) (foo i))",
                     "(%uniform \"dotimes*\" (%loop (i 0 (< i 10) (+ i 1)) (foo i)))");
    EXPECT_EXPANSION("(dotimes* (i (+ a b)) (foo i))",
                     "(let ((%count1 (+ a b))) (declare (%capture-uniform %count1)) "
                     "(%uniform \"dotimes*\" (%loop (i 0 (< i %count1) (+ i 1)) (foo i))))");
    EXPECT_EXPANSION("(dotimes* (i n s))",
                     "(let ((%count1 n) (%stride2 s)) (declare (%capture-uniform %count1 %stride2)) "
                     "(%uniform \"dotimes*\" (%loop (i 0 (< i %count1) (+ i (max %stride2 1))))))");
    EXPECT_EXPANSION("(dec-times-by-factor* (i n 4) (foo i))",
                     "(let ((%count1 n)) (declare (%capture-uniform %count1)) "
                     "(%uniform \"dec-times-by-factor*\" (%loop (i %count1 (>= i 1) (/ i 4)) (foo i))))");
    EXPECT_EXPANSION("(if* (> n 0) (foo))", "(%uniform* \"if*\" (if (> n 0) (foo)))");
    EXPECT_EXPANSION("(when* c (foo))", "(%uniform* \"when*\" (if c (progn (foo))))");
    EXPECT_EXPANSION("(unless* c (foo))", "(%uniform* \"unless*\" (if (not c) (progn (foo))))");
    EXPECT_EXPANSION("(cond* (a 1) (t 2))", "(%uniform* \"cond*\" (if a 1 2))");
    EXPECT_SEQ("(dotimes* (i 4) (emit i))", "0 1 2 3");
    EXPECT_SEQ("(dec-times* (i 4) (emit i))", "3 2 1 0");
    EXPECT_SEQ("(dec-times-by-half* (i 12) (emit i))", "12 6 3 1");
    EXPECT_SEQ("(dec-times-by-factor* (i 64 4) (emit i))", "64 16 4 1");
}

/* ---- prelude: thread indices, grid strides ---- */

static void test_prelude_in_each_thread(void **state) {
    (void)state;
    EXPECT_EXPANSION("(in-each-thread (x) (foo x))",
                     "(let ((x (get-global-id 0))) (declare (%immutable x)) (foo x))");
    EXPECT_EXPANSION("(in-each-thread (x y:int z) (foo x))",
                     "(let ((x (get-global-id 0)) (y:int (get-global-id 1)) (z (get-global-id 2))) "
                     "(declare (%immutable x y z)) (foo x))");
    EXPECT_EXPANSION("(in-each-thread-in-group (lx ly) (foo))",
                     "(let ((lx (get-local-id 0)) (ly (get-local-id 1))) "
                     "(declare (%immutable lx ly)) (foo))");
    EXPECT_EXPAND_ERROR("(in-each-thread (1) (foo))",
                        "u.crisp:2:17: error[E0204]: in-each-thread: expected a list of 1 to 3 "
                        "index variables, got (1)");
    EXPECT_EXPAND_ERROR("(in-each-thread (a b c d) (foo))", "expected a list of 1 to 3");
    EXPECT_EXPAND_ERROR("(in-each-thread-in-group x (foo))", "in-each-thread-in-group: expected");
}

static void test_prelude_grid_stride(void **state) {
    (void)state;
    EXPECT_EXPANSION("(loop-grid-stride (i) (declare (grid-stride-target A)) (set! (~ C i) (~ A i)))",
                     "(progn (declare (grid-level)) (%require-global-size 1 \"loop-grid-stride\") "
                     "(let ((%g1 (%extent A))) (%loop (i (get-global-id 0) (< i %g1) "
                     "(+ i (get-global-work-size 0))) (%grid-body \"loop-grid-stride\" (set! (~ C i) (~ A i))))))");
    EXPECT_EXPANSION("(loop-grid-stride (x y:uint) (declare (type q int) (grid-stride-target W 64)) "
                     "(foo x y))",
                     "(progn (declare (grid-level)) (%require-global-size 2 \"loop-grid-stride\") "
                     "(let ((%g1 (%extent W)) (%g2 (%extent 64))) "
                     "(%loop (x (get-global-id 0) (< x %g1) (+ x (get-global-work-size 0))) "
                     "(%loop (y:uint (get-global-id 1) (< y %g2) (+ y (get-global-work-size 1))) "
                     "(declare (type q int)) (%grid-body \"loop-grid-stride\" (foo x y))))))");
    EXPECT_EXPANSION("(loop-grid-stride (x y z) (declare (grid-stride-target A B C)))",
                     "(progn (declare (grid-level)) (%require-global-size 3 \"loop-grid-stride\") "
                     "(let ((%g1 (%extent A)) (%g2 (%extent B)) (%g3 (%extent C))) "
                     "(%loop (x (get-global-id 0) (< x %g1) (+ x (get-global-work-size 0))) "
                     "(%loop (y (get-global-id 1) (< y %g2) (+ y (get-global-work-size 1))) "
                     "(%loop (z (get-global-id 2) (< z %g3) (+ z (get-global-work-size 2))) (%grid-body \"loop-grid-stride\"))))))");
    EXPECT_EXPANSION("(loop-grid-stride-linear (x) (declare (grid-stride-target A)) (foo x))",
                     "(progn (declare (grid-level)) (let ((%g1 (%extent A))) "
                     "(%loop (x (get-global-linear-id) (< x %g1) (+ x (get-global-linear-size))) "
                     "(%grid-body \"loop-grid-stride-linear\" (foo x)))))");
    EXPECT_EXPANSION("(loop-vector-stride A (i) (foo i))",
                     "(progn (declare (grid-level)) (let ((%g1 (length~ A))) "
                     "(%loop (i (get-global-linear-id) (< i %g1) (+ i (get-global-linear-size))) "
                     "(%grid-body \"loop-vector-stride\" (foo i)))))");
    EXPECT_EXPAND_ERROR("(loop-grid-stride (i) (foo i))",
                        "u.crisp:2:1: error[E0204]: loop-grid-stride: the body must start with "
                        "(declare (grid-stride-target X)) giving one target per index variable");
    EXPECT_EXPAND_ERROR("(loop-grid-stride (i j) (declare (grid-stride-target A)) (foo i))",
                        "(declare (grid-stride-target X Y))");
    EXPECT_EXPAND_ERROR("(loop-grid-stride () (declare (grid-stride-target)))",
                        "loop-grid-stride: expected a list of 1 to 3 index variables, got ()");
    EXPECT_EXPAND_ERROR("(loop-grid-stride-linear (i j) (declare (grid-stride-target A B)))",
                        "loop-grid-stride-linear: expected a list of 1 index variable");
    EXPECT_EXPAND_ERROR("(loop-grid-stride-linear (i) (foo))",
                        "loop-grid-stride-linear: the body must start with (declare "
                        "(grid-stride-target E))");
    EXPECT_EXPAND_ERROR("(loop-vector-stride A i (foo))", "loop-vector-stride: expected a list of 1");
}

static void test_prelude_when_thread_is(void **state) {
    (void)state;
    EXPECT_EXPANSION("(when-thread-is 0 (foo))", "(if (= (get-global-id 0) 0) (progn (foo)))");
    EXPECT_EXPANSION("(when-thread-is (0) (foo) (bar))",
                     "(if (= (get-global-id 0) 0) (progn (foo) (bar)))");
    EXPECT_EXPANSION("(when-thread-is (0 k) (foo))",
                     "(if (and (= (get-global-id 0) 0) (= (get-global-id 1) k)) (progn (foo)))");
    EXPECT_EXPANSION("(when-thread-is x y z (foo))",
                     "(if (and (= (get-global-id 0) x) (= (get-global-id 1) y) "
                     "(= (get-global-id 2) z)) (progn (foo)))");
    /* only the last form is body: a lone atom body is allowed */
    EXPECT_EXPANSION("(when-thread-is 1 2 x)",
                     "(if (and (= (get-global-id 0) 1) (= (get-global-id 1) 2)) (progn x))");
    /* at most 3 leading ids; the rest is body */
    EXPECT_EXPANSION("(when-thread-is 1 2 3 4 (foo))",
                     "(if (and (= (get-global-id 0) 1) (= (get-global-id 1) 2) "
                     "(= (get-global-id 2) 3)) (progn 4 (foo)))");
    EXPECT_EXPANSION("(abs-when-thread-is 0 (foo))",
                     "(if (= (get-global-id-abs 0) 0) (progn (foo)))");
    EXPECT_EXPANSION("(when-thread-in-group-is (0) (foo))",
                     "(if (= (get-local-id 0) 0) (%no-barrier \"when-thread-in-group-is\" (foo)))");
    EXPECT_EXPANSION("(when-thread-in-group-is 1 2 (foo))",
                     "(if (and (= (get-local-id 0) 1) (= (get-local-id 1) 2)) "
                     "(%no-barrier \"when-thread-in-group-is\" (foo)))");
    EXPECT_EXPANSION("(when-group-is 2 (foo))", "(if (= (get-workgroup-id 0) 2) (progn (foo)))");
    EXPECT_EXPANSION("(when-global-linear-id-is 0 (foo) (bar))",
                     "(if (= (get-global-linear-id) 0) (progn (foo) (bar)))");
    EXPECT_EXPANSION("(when-local-linear-id-is n (foo))",
                     "(if (= (get-local-linear-id) n) (%no-barrier \"when-local-linear-id-is\" (foo)))");
    EXPECT_EXPAND_ERROR("(when-thread-is 0)",
                        "when-thread-is: expected (when-thread-is ID [ID [ID]] BODY...) with at "
                        "least one body form");
    EXPECT_EXPAND_ERROR("(when-thread-is (0) )", "at least one body form");
    EXPECT_EXPAND_ERROR("(when-thread-is (0 1 2 3) (foo))",
                        "u.crisp:2:17: error[E0204]: when-thread-is: expected 1 to 3 thread ids");
    EXPECT_EXPAND_ERROR("(when-group-is ((+ a 1)) (foo))", "when-group-is: expected 1 to 3 thread");
    EXPECT_EXPAND_ERROR("(when-local-linear-id-is 0)",
                        "macro `when-local-linear-id-is`: expected at least 2 arguments");
}

/* Every prelude macro is defined, and the prelude reads without errors. */
static void test_prelude_complete(void **state) {
    (void)state;
    static const char *const names[] = {
        "when", "unless", "cond", "dotimes", "dec-times", "dec-times-by-half",
        "dec-times-by-factor", "do-times-by-doubling", "do-times-by-multiply",
        "do-power-step", "dec-power-step", "dotimes+", "dec-times+", "dec-times-by-half+",
        "dec-times-by-factor+", "in-each-thread", "in-each-thread-in-group",
        "loop-grid-stride", "loop-grid-stride-linear", "loop-vector-stride",
        "when-thread-is", "abs-when-thread-is", "when-thread-in-group-is", "when-group-is",
        "when-global-linear-id-is", "when-local-linear-id-is",
    };
    T *t = t_new(0);
    StrBuf b;
    sb_init(&b);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        sb_printf(&b, "(def-function f%d () (%s))\n", (int)i, names[i]);
    t_run(t, sb_cstr(&b));
    sb_free(&b);
    /* every call is a macro call: each fails on its missing arguments,
       except (cond), which is nil; nothing in the prelude itself is broken */
    assert_int_equal(t->c.diag.errors, (int)(sizeof names / sizeof names[0]) - 1);
    assert_int_equal(t->out.n, 1);
    assert_string_equal(show(t, t->out.v[0]), "(def-function f2 () nil)");
    assert_null(strstr(t_diag(t), "<prelude>"));
    t_free(t);
}

/* ---- where the expander expands ---- */

#define M "(defmacro m () 'expanded)\n"

static void test_expand_positions(void **state) {
    (void)state;
    T *t = t_new(1);
    t_run(t, M
          "(quote (m))\n"
          "(declare (m))\n"
          "(def-function f ((m) x:(m)) \"doc (m)\" (declare (m) (type x (m))) (m) (g (m)))\n"
          "(def-kernel k (a) (m))\n"
          "(def-grid-function gf (a) (m))\n"
          "(def-type ty (m))\n"
          "(def-const c (m))\n"
          "(def-parameter p (m))\n"
          "(let ((x (m)) (m) ((m) 1)) (declare (m)) (m))\n"
          "(let* ((x (m))) (m))\n"
          "(multiple-value-bind (a (m)) (m) (m))\n"
          "(%loop (i (m) (m) (m)) (m))\n"
          "(function m)\n"
          "(g #'m '(m) #((m)) ##((m) 1))\n"
          "((m) (m))\n"
          "(progn (declare (m)) (m))\n"
          "(if (m) (m) (m))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t),
                        "'(m)\n"
                        "(declare (m))\n"
                        "(def-function f ((m) x:(m)) \"doc (m)\" (declare (m) (type x (m))) "
                        "expanded (g expanded))\n"
                        "(def-kernel k (a) expanded)\n"
                        "(def-grid-function gf (a) expanded)\n"
                        "(def-type ty (m))\n"
                        "(def-const c expanded)\n"
                        "(def-parameter p expanded)\n"
                        "(let ((x expanded) (m) ((m) 1)) (declare (m)) expanded)\n"
                        "(let* ((x expanded)) expanded)\n"
                        "(multiple-value-bind (a (m)) expanded expanded)\n"
                        "(%loop (i expanded expanded expanded) expanded)\n"
                        "#'m\n"
                        "(g #'m '(m) #((m)) ##(expanded 1))\n"
                        "((m) expanded)\n"
                        "(progn (declare (m)) expanded)\n"
                        "(if expanded expanded expanded)");
    t_free(t);
}

static void test_expand_order_and_shadowing(void **state) {
    (void)state;
    /* a macro applies from the form after its definition on */
    T *t = t_new(1);
    t_run(t, "(def-function f () (m))\n(defmacro m () 1)\n(def-function g () (m))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t), "(def-function f () (m))\n(def-function g () 1)");
    t_free(t);

    /* a user macro replaces a prelude macro of the same name */
    t = t_new(0);
    t_run(t, "(def-function f () (when a b))\n"
             "(defmacro when (c &body b) `(my-when ,c ,@b))\n"
             "(def-function g () (when a b) (unless a b))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t), "(def-function f () (if a (progn b)))\n"
                                      "(def-function g () (my-when a b) (if (not a) (progn b)))");
    t_free(t);

    /* without the prelude nothing is predefined */
    t = t_new(1);
    t_run(t, "(def-function f () (when a b))");
    assert_string_equal(t_printed(t), "(def-function f () (when a b))");
    t_free(t);

    /* results are re-expanded; arguments are expanded too */
    t = t_new(1);
    t_run(t, "(defmacro a (x) `(b ,x))\n(defmacro b (x) `(c ,x))\n(def-function f () (a (a 1)))");
    assert_string_equal(t_printed(t), "(def-function f () (c (c 1)))");
    t_free(t);
}

static void test_expand_toplevel(void **state) {
    (void)state;
    /* a macro may produce several top-level forms, defmacros included */
    T *t = t_new(1);
    t_run(t, "(defmacro two () '(progn (def-const a 1) (defmacro z () 5) (progn (def-const b 2))))\n"
             "(two)\n"
             "(def-function f () (z))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t),
                        "(def-const a 1)\n(def-const b 2)\n(def-function f () 5)");
    t_free(t);

    /* a progn that starts with declare is a body and is kept whole */
    t = t_new(1);
    t_run(t, "(progn (declare (grid-level)) (f))");
    assert_string_equal(t_printed(t), "(progn (declare (grid-level)) (f))");
    t_free(t);

    /* defmacro elsewhere is an error; only that form is dropped */
    t = t_new(1);
    t_run(t, "(def-function f () (defmacro q () 1))\n(def-function g () 2)");
    assert_int_equal(t->c.diag.errors, 1);
    assert_non_null(strstr(t_diag(t), "u.crisp:1:20: error[E0209]: `defmacro` is only allowed "
                                      "at top level"));
    assert_string_equal(t_printed(t), "(def-function g () 2)");
    t_free(t);

    /* a failing expansion drops its form, the others are kept */
    t = t_new(0);
    t_run(t, "(def-function f () (dotimes (i 10 0)))\n(def-function g () (when a b))");
    assert_int_equal(t->c.diag.errors, 1);
    assert_string_equal(t_printed(t), "(def-function g () (if a (progn b)))");
    t_free(t);
}

/* ---- origins and locations ---- */

static void test_origin_and_loc(void **state) {
    (void)state;
    T *t = t_new(0);
    t_run(t, "(def-function f ()\n"
             "  (when (ok)\n"
             "    (foo)))");
    assert_int_equal(t->c.diag.errors, 0);
    const Node *ifn = t->out.v[0]->kids[3];
    assert_true(syn_is_form(ifn, "if"));
    /* produced by the macro: the call's location, origin `when` */
    assert_int_equal(ifn->loc.line, 2);
    assert_int_equal(ifn->loc.col, 3);
    assert_non_null(ifn->origin);
    assert_string_equal(ifn->origin->macro, "when");
    assert_int_equal(ifn->origin->call.line, 2);
    assert_int_equal(ifn->origin->call.col, 3);
    assert_null(ifn->origin->parent);
    assert_ptr_equal(ifn->kids[0]->origin, ifn->origin);          /* the `if` symbol */
    const Node *progn = ifn->kids[2];
    assert_ptr_equal(progn->origin, ifn->origin);
    assert_int_equal(progn->loc.line, 2);
    /* from the arguments: own location, no origin */
    const Node *test = ifn->kids[1], *foo = progn->kids[1];
    assert_null(test->origin);
    assert_int_equal(test->loc.line, 2);
    assert_int_equal(test->loc.col, 9);
    assert_null(foo->origin);
    assert_int_equal(foo->loc.line, 3);
    assert_int_equal(foo->loc.col, 5);
    t_free(t);

    /* nested expansions chain their origins */
    t = t_new(0);
    t_run(t, "(def-function f ()\n  (dotimes+ (i 3) (foo)))");
    assert_int_equal(t->c.diag.errors, 0);
    const Node *pg = t->out.v[0]->kids[3];
    const Node *rc = pg->kids[1], *loop = pg->kids[2];
    assert_string_equal(rc->origin->macro, "dotimes+");
    assert_string_equal(loop->origin->macro, "dotimes");
    assert_ptr_equal(loop->origin->parent, rc->origin);
    assert_int_equal(loop->loc.line, 2);
    assert_int_equal(loop->loc.col, 3);
    assert_int_equal(loop->origin->call.line, 2);
    /* the index symbol comes from the user: own location */
    const Node *ivar = loop->kids[1]->kids[0];
    assert_null(ivar->origin);
    assert_int_equal(ivar->loc.col, 14);
    assert_null(loop->kids[2]->origin); /* (foo) */
    t_free(t);

    /* diagnostics on macro-made code say where it came from */
    t = t_new(0);
    t_run(t, "(defmacro my-loop (n) `(loop-grid-stride (i) (g ,n)))\n"
             "(def-function f ()\n  (my-loop 5))");
    const char *d = t_diag(t);
    assert_non_null(strstr(d, "u.crisp:3:3: error[E0204]: loop-grid-stride: the body must start"));
    assert_non_null(strstr(d, "u.crisp:3:3: note: in expansion of macro `my-loop`\n"));
    t_free(t);

    /* a macro call passed in as an argument keeps its own location */
    t = t_new(0);
    t_run(t, "(def-function f ()\n  (dotimes+ (i 10 n)\n    (when-thread-is 0)))");
    d = t_diag(t);
    assert_non_null(strstr(d, "u.crisp:3:5: error[E0204]: when-thread-is:"));
    assert_null(strstr(d, "note:"));
    t_free(t);

    /* helpers shared by prelude macros are compile-time functions: only the
       public macro appears in origins */
    t = t_new(0);
    t_run(t, "(def-function f () (loop-grid-stride (i) (declare (grid-stride-target A)) (g i)))");
    const Node *pn = t->out.v[0]->kids[3];
    assert_string_equal(pn->origin->macro, "loop-grid-stride");
    assert_null(pn->origin->parent);
    t_free(t);

    /* a macro argument's nodes are not copied */
    t = t_new(1);
    t_run(t, "(defmacro id (x) x)\n(def-function f () (id (g 1)))");
    const Node *g = t->out.v[0]->kids[3];
    assert_true(syn_is_form(g, "g"));
    assert_null(g->origin);
    assert_int_equal(g->loc.col, 24);
    t_free(t);
}

/* Macro-made nodes are fresh copies: the defmacro's own template is never
 * modified, so two expansions do not share or alter each other. */
static void test_templates_not_shared(void **state) {
    (void)state;
    T *t = t_new(1);
    t_run(t, "(defmacro k () '(const 1))\n(def-function f () (k) (k))");
    const Node *a = t->out.v[0]->kids[3], *b = t->out.v[0]->kids[4];
    assert_ptr_not_equal(a, b);
    assert_int_equal(a->loc.col, 20);
    assert_int_equal(b->loc.col, 24);
    assert_ptr_not_equal(a->origin, b->origin);
    t_free(t);
}

/* The nodes a call's evaluation makes are given the call's location in
 * place, not copied (issue 14); a node the macro puts in two places is
 * still two nodes in the expansion, and a quoted constant of the macro is
 * copied, so the macro's own body keeps its location. */
static void test_fresh_nodes_marked_once(void **state) {
    (void)state;
    T *t = t_new(1);
    t_run(t, "(defmacro twice () (let ((x (list 'g 1))) `(progn ,x ,x '(h))))\n"
             "(def-function f () (twice))");
    assert_int_equal(t->c.diag.errors, 0);
    const Node *pg = t->out.v[0]->kids[3];
    assert_true(syn_is_form(pg, "progn"));
    const Node *a = pg->kids[1], *b = pg->kids[2];
    assert_true(syn_is_form(a, "g") && syn_is_form(b, "g"));
    assert_ptr_not_equal(a, b);
    assert_ptr_not_equal(a->kids[0], b->kids[0]);
    for (int i = 1; i < 4; i++) {
        const Node *k = pg->kids[i];
        assert_int_equal(k->loc.line, 2);
        assert_int_equal(k->loc.col, 20);
        assert_ptr_equal(k->origin, pg->origin);
    }
    const Node *q = pg->kids[3]->kids[1]; /* (h), a constant of the macro */
    assert_int_equal(q->loc.line, 2);
    t_run(t, "(defmacro twice () (let ((x (list 'g 1))) `(progn ,x ,x '(h))))\n"
             "(def-function f2 ()\n  (twice))");
    const Node *q2 = t->out.v[0]->kids[3]->kids[3]->kids[1];
    assert_ptr_not_equal(q, q2);
    assert_int_equal(q2->loc.line, 3);
    assert_int_equal(q->loc.line, 2); /* the first expansion is untouched */
    t_free(t);
}

/* ---- template macros (issue 14: built without a run) ---- */

/* Read `src` (top-level forms) into `out` with the expander `x`. */
static void tx_top(T *t, Expander *x, const char *src, Forms *out) {
    Forms in = t_read(t, src);
    for (int i = 0; i < in.n; i++) expander_toplevel(x, in.v[i], out);
}

/* Expand the call, element n + 1 of the one form (calls CALL...) of
 * `forms`, as the checker does (one step at a time: macro calls at top
 * level would be expanded at once); the evaluator's steps in *steps. */
static Node *tx_expand(Expander *x, Forms *forms, int n, long *steps) {
    Eval *ev = expander_eval(x);
    long before = ev->steps_used;
    Node *r = expander_expand(x, forms->v[0]->kids[n + 1]);
    *steps = ev->steps_used - before;
    return r;
}

/* A macro whose body is one quasiquote template of ,PARAM and ,@REST is
 * expanded from its second call on without running (eval.c
 * eval_template_begin): the same expansion (fresh nodes at the call with
 * the new origin, arguments passed through), the same steps counted, and
 * the run whenever it could differ (a limit, an argument error). */
static void test_template_macros(void **state) {
    (void)state;
    T *t = t_new(1);
    Expander *x = expander_new(&t->c);
    assert_non_null(x);
    Forms f = {0};
    tx_top(t, x,
           "(defmacro w (test &body body) `(if ,test (progn ,@body) (k (1 2))))\n"
           "(defmacro w2 (test &body body) `(if ,test (progn ,@body) (k (1 2))))\n"
           "(defmacro opt (a &optional b) `(g ,a ,b))\n"
           "(defmacro comp (a) `(g ,(car a)))\n",
           &f);
    Forms calls = {0};
    tx_top(t, x,
           "(calls\n"
           "(w (a) (b))\n"           /* 0: the first run of w */
           "(w (c) (d))\n"           /* 1: a template expansion */
           "(w2 (c) (d) (e) (f))\n"  /* 2: w2's first run, 3 forms */
           "(w (c) (d) (e) (f))\n"   /* 3: w's template, 3 forms */
           "(opt 1)\n(opt 2)\n"      /* 4, 5: &optional: runs */
           "(comp (1))\n(comp (2))\n" /* 6, 7: a computed unquote: runs */
           "(w))\n",                 /* 8: too few arguments: the run reports */
           &calls);
    assert_int_equal(calls.n, 1);
    assert_int_equal(calls.v[0]->nkids, 10);
    assert_int_equal(t->c.diag.errors, 0);
    long s0, s1, s2, s3, s;
    Node *e0 = tx_expand(x, &calls, 0, &s0);
    Node *e1 = tx_expand(x, &calls, 1, &s1);
    Node *e2 = tx_expand(x, &calls, 2, &s2);
    Node *e3 = tx_expand(x, &calls, 3, &s3);
    assert_non_null(e0);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_non_null(e3);
    Eval *ev = expander_eval(x);
    assert_int_equal(eval_find_macro(ev, "w")->tpl_state, 1);
    assert_string_equal(show(t, e0), "(if (a) (progn (b)) (k (1 2)))");
    assert_string_equal(show(t, e1), "(if (c) (progn (d)) (k (1 2)))");
    assert_string_equal(show(t, e3), "(if (c) (progn (d) (e) (f)) (k (1 2)))");
    assert_string_equal(show(t, e2), show(t, e3));
    assert_int_equal(s1, s0);
    assert_int_equal(s3, s2);
    assert_true(s3 > s1); /* ,@body charges its length */
    assert_int_equal(ev->steps, s3);
    /* fresh nodes at the call, the arguments as they are */
    const Node *call = calls.v[0]->kids[4];
    assert_ptr_equal(e3->kids[1], call->kids[1]);
    for (int i = 1; i <= 3; i++) assert_ptr_equal(e3->kids[2]->kids[i], call->kids[1 + i]);
    const Node *fresh[] = {e3, e3->kids[0], e3->kids[2], e3->kids[2]->kids[0], e3->kids[3],
                           e3->kids[3]->kids[1], e3->kids[3]->kids[1]->kids[1]};
    for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
        assert_int_equal(fresh[i]->loc.line, call->loc.line);
        assert_int_equal(fresh[i]->loc.col, call->loc.col);
        assert_ptr_equal(fresh[i]->origin, e3->origin);
        assert_true(fresh[i]->marked);
    }
    assert_string_equal(e3->origin->macro, "w");
    /* not shared with the template or another expansion */
    assert_ptr_not_equal(e1->kids[3], e3->kids[3]);
    assert_ptr_not_equal(e1->kids[0], e3->kids[0]);
    assert_int_equal(e1->kids[3]->loc.line, calls.v[0]->kids[2]->loc.line);
    /* not templates: run each time */
    assert_string_equal(show(t, tx_expand(x, &calls, 4, &s)), "(g 1 nil)");
    assert_string_equal(show(t, tx_expand(x, &calls, 5, &s)), "(g 2 nil)");
    assert_string_equal(show(t, tx_expand(x, &calls, 6, &s)), "(g 1)");
    assert_string_equal(show(t, tx_expand(x, &calls, 7, &s)), "(g 2)");
    assert_int_equal(eval_find_macro(ev, "opt")->tpl_state, -1);
    assert_int_equal(eval_find_macro(ev, "comp")->tpl_state, -1);
    assert_int_equal(t->c.diag.errors, 0);
    /* an argument error is the run's */
    assert_null(tx_expand(x, &calls, 8, &s));
    assert_non_null(strstr(t_diag(t), "error[E0202]"));
    t_free(t);

    /* an argument twice, a vector literal and an annotated symbol in the
       template: the same as a run */
    t = t_new(1);
    x = expander_new(&t->c);
    Forms h = {0}, c3 = {0};
    tx_top(t, x, "(defmacro rep (a) `(g ,a ,a #(1 2) y:int (k)))\n", &h);
    tx_top(t, x, "(calls (rep (p))\n  (rep (q)))\n", &c3);
    Node *r0 = tx_expand(x, &c3, 0, &s0), *r1 = tx_expand(x, &c3, 1, &s1);
    assert_non_null(r0);
    assert_non_null(r1);
    assert_int_equal(eval_find_macro(expander_eval(x), "rep")->tpl_state, 1);
    assert_string_equal(show(t, r0), "(g (p) (p) #(1 2) y:int (k))");
    assert_string_equal(show(t, r1), "(g (q) (q) #(1 2) y:int (k))");
    assert_int_equal(s1, s0);
    assert_ptr_equal(r1->kids[1], c3.v[0]->kids[2]->kids[1]);
    assert_ptr_equal(r1->kids[2], c3.v[0]->kids[2]->kids[1]);
    const Node *ann = r1->kids[4]->ann;
    assert_non_null(ann);
    assert_ptr_not_equal(ann, r0->kids[4]->ann);
    assert_int_equal(ann->loc.line, 2);
    assert_ptr_equal(ann->origin, r1->origin);
    assert_int_equal(r1->kids[3]->kids[1]->loc.line, 2);
    assert_int_equal(t->c.diag.errors, 0);
    t_free(t);

    /* a step limit the template would pass: the run reports it */
    t = t_new(1);
    x = expander_new(&t->c);
    Forms g = {0}, c2 = {0};
    tx_top(t, x, "(defmacro w (test &body body) `(if ,test (progn ,@body)))\n", &g);
    tx_top(t, x, "(calls (w (a) (b))\n(w (c) (d))\n(w (e) (f)))\n", &c2);
    assert_non_null(tx_expand(x, &c2, 0, &s0));
    assert_non_null(tx_expand(x, &c2, 1, &s1));
    assert_int_equal(s1, s0);
    ev = expander_eval(x);
    ev->total_steps = ev->steps_used + s0 - 1;
    assert_null(tx_expand(x, &c2, 2, &s));
    assert_non_null(strstr(t_diag(t), "u.crisp:3:1: error[E0205]: "));
    t_free(t);
}

/* ---- compile-time directives, (line), (file) in program code ---- */

/* Where c-t-output / c-t-assert / (line) / (file) are run: in evaluated
 * positions only, like macro calls; quoted, declared and parameter-list
 * occurrences are left alone. */
static void test_directive_positions(void **state) {
    (void)state;
    T *t = t_new(1);
    t_run(t, "(c-t-output \"top\")\n"
             "(def-function f (a:int)\n"
             "  (declare (c-t-output \"not run\"))\n"
             "  (let ((x (line)) (y 1))\n"
             "    (c-t-output \"let body\" (line))\n"
             "    (if (line) (c-t-output \"then\") (c-t-assert t)))\n"
             "  (%loop (i (line) (< i 10) (+ i 1)) (c-t-output \"loop\"))\n"
             "  (g '(line) '(c-t-output \"quoted\") #((file)) ##((line) 2) (line 2)))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t),
                        "(def-function f (a:int) (declare (c-t-output \"not run\")) "
                        "(let ((x 4) (y 1)) (progn) (if 6 (progn) (progn))) "
                        "(%loop (i 7 (< i 10) (+ i 1)) (progn)) "
                        "(g '(line) '(c-t-output \"quoted\") #((file)) ##(8 2) (line 2)))");
    assert_string_equal(t_diag(t), "u.crisp:1:1: note: c-t-output: top\n"
                                   "u.crisp:5:5: note: c-t-output: let body 5\n"
                                   "u.crisp:6:16: note: c-t-output: then\n"
                                   "u.crisp:7:38: note: c-t-output: loop\n");
    t_free(t);
}

/* (line)/(file) through user macros and the prelude: the outermost call
 * site the user wrote.  The literal keeps the origin of the (line) form. */
static void test_line_file_through_macros(void **state) {
    (void)state;
    T *t = t_new(0);
    t_run(t, "(defmacro here () `(list (file) (line)))\n"
             "(defmacro twice-here () `(progn (here) (here)))\n"
             "(def-function f ()\n"
             "  (here)\n"
             "  (when (ok)\n"
             "    (twice-here))\n"
             "  (dotimes (i 2)\n"
             "    (g (line))))");
    assert_int_equal(t->c.diag.errors, 0);
    assert_string_equal(t_printed(t),
                        "(def-function f () (list \"u.crisp\" 4) "
                        "(if (ok) (progn (progn (list \"u.crisp\" 6) (list \"u.crisp\" 6)))) "
                        "(%loop (i 0 (< i 2) (+ i 1)) (g 8)))");
    const Node *l4 = t->out.v[0]->kids[3]->kids[2];
    assert_int_equal(l4->kind, N_INT);
    assert_non_null(l4->origin);
    assert_string_equal(l4->origin->macro, "here");
    t_free(t);

    /* generated top-level forms: a macro producing a whole function */
    t = t_new(1);
    t_run(t, "(defmacro def-where (name)\n"
             "  `(def-function ,name () (declare (return-type int)) (line)))\n"
             "\n"
             "(def-where w1)\n"
             "(def-where w2)");
    assert_string_equal(t_printed(t),
                        "(def-function w1 () (declare (return-type int)) 4)\n"
                        "(def-function w2 () (declare (return-type int)) 5)");
    t_free(t);
}

/* c-t-assert in code a prelude macro wraps: the failure drops the
 * top-level form; c-t-output notes do not count as errors or warnings. */
static void test_directives_with_prelude(void **state) {
    (void)state;
    T *t = t_new(0);
    t_run(t, "(def-const +wg+ 64)\n"
             "(defmacro need-pow2 (n)\n"
             "  `(c-t-assert (= (logand ,n (- ,n 1)) 0) ',n \"must be a power of two, got\" ,n))\n"
             "(def-kernel k (v:(vector-type float :global :read_write))\n"
             "  (declare single-task)\n"
             "  (need-pow2 +wg+)\n"
             "  (dotimes (i 4)\n"
             "    (c-t-output \"unrolled?\" i +wg+)\n"
             "    (need-pow2 48)))\n"
             "(def-function g () (need-pow2 8) 1)");
    const char *d = t_diag(t);
    assert_int_equal(t->c.diag.errors, 1);
    assert_int_equal(t->c.diag.warnings, 0);
    assert_non_null(strstr(d, "u.crisp:8:5: note: c-t-output: unrolled? <not known at compile time: i> 64\n"));
    assert_non_null(strstr(d, "u.crisp:9:5: error[E0210]: c-t-assert failed: `(= (logand 48 (- 48 1)) 0)`: "
                              "48 must be a power of two, got 48\n"));
    assert_non_null(strstr(d, "u.crisp:9:5: note: in expansion of macro `need-pow2`\n"));
    assert_string_equal(t_printed(t), "(def-const +wg+ 64)\n(def-function g () (progn) 1)");
    t_free(t);

    /* c-t-output with macroexpand-1 shows what a prelude macro makes */
    t = t_new(0);
    t_run(t, "(c-t-output (macroexpand-1 '(dotimes (i 10 2) (foo i))))");
    assert_string_equal(t_diag(t), "u.crisp:1:1: note: c-t-output: (%loop (i 0 (< i 10) (+ i 2)) (foo i))\n");
    assert_int_equal(t->out.n, 0);
    t_free(t);
}

/* ---- dump ---- */

static void test_dump(void **state) {
    (void)state;
    for (int run = 0; run < 2; run++) {
        T *t = t_new(0);
        t_run(t, "(def-function f () (dec-times (i 3) (foo i)))\n(def-const c 1)");
        StrBuf b;
        sb_init(&b);
        expand_dump(&b, t->out);
        /* gensyms restart at 1 in every compilation */
        assert_string_equal(sb_cstr(&b),
                            "(def-function f\n"
                            "  ()\n"
                            "  (%loop (%g1 3 (> %g1 0) (- %g1 1))\n"
                            "    (let ((i (- %g1 1))) (declare (%immutable i)) (foo i))))\n"
                            "\n"
                            "(def-const c 1)\n");
        sb_free(&b);
        t_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prelude_conditionals),
        cmocka_unit_test(test_prelude_long_cond),
        cmocka_unit_test(test_prelude_dotimes),
        cmocka_unit_test(test_prelude_dec_times),
        cmocka_unit_test(test_prelude_dec_times_by),
        cmocka_unit_test(test_prelude_do_times_by),
        cmocka_unit_test(test_prelude_power_steps),
        cmocka_unit_test(test_prelude_plus_variants),
        cmocka_unit_test(test_prelude_star_variants),
        cmocka_unit_test(test_prelude_in_each_thread),
        cmocka_unit_test(test_prelude_grid_stride),
        cmocka_unit_test(test_prelude_when_thread_is),
        cmocka_unit_test(test_prelude_complete),
        cmocka_unit_test(test_expand_positions),
        cmocka_unit_test(test_expand_order_and_shadowing),
        cmocka_unit_test(test_expand_toplevel),
        cmocka_unit_test(test_origin_and_loc),
        cmocka_unit_test(test_templates_not_shared),
        cmocka_unit_test(test_fresh_nodes_marked_once),
        cmocka_unit_test(test_template_macros),
        cmocka_unit_test(test_directive_positions),
        cmocka_unit_test(test_line_file_through_macros),
        cmocka_unit_test(test_directives_with_prelude),
        cmocka_unit_test(test_dump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
