/* test_consteval.c - unit tests of the constant evaluator (types/consteval.c).
 *
 * Two halves.  The evaluator on checked nodes built by hand: integer
 * arithmetic in each type (signed overflow is an error, unsigned wraps),
 * division by zero, shift counts, C's comparisons across signedness, float
 * rounding, the casts, exact (literal-only) arithmetic, quiet queries and
 * what is not a constant.  Then whole programs compiled in memory: def-const
 * values, constant lengths written as expressions, def-const-vec bodies run
 * by the compiler (views, copy-vec, calls, computed lengths) and their
 * limits - a fill of the longest vector completes with the default step
 * limit, a runaway body stops with a diagnostic that says how to raise it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/driver.h"
#include "../../types/consteval.h"

/* ---- the evaluator on hand-built checked nodes ---- */

typedef struct T {
    Crisp c;
    CrispOptions o;
    Program prog;
    Checker ck;
    FILE *dout;
    char *dbuf;
    size_t dlen;
} T;

static SrcFile t_file = {"t.crisp", "(x)\n", 4};

static T *t_new(void) {
    T *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    assert_non_null(t->dout);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->c.opt = &t->o;
    t->ck.c = &t->c;
    t->ck.a = &t->c.arena;
    t->ck.d = &t->c.diag;
    t->ck.prog = &t->prog;
    return t;
}

static const char *t_diag(T *t) {
    fflush(t->dout);
    return t->dbuf ? t->dbuf : "";
}

static void t_free(T *t) {
    fclose(t->dout);
    free(t->dbuf);
    arena_free(&t->c.arena);
    free(t);
}

static Node *node(T *t, NodeKind k, Type *ty) {
    Node *n = syn_new(&t->c.arena, k, srcloc(&t_file, 1, 1));
    n->ty = ty;
    return n;
}

static Node *lit(T *t, Scalar sc, int64_t v) {
    Node *n = node(t, N_C_INTLIT, ty_num(sc));
    n->ival = v;
    return n;
}

static Node *flt(T *t, Scalar sc, double v) {
    Node *n = node(t, N_C_FLOATLIT, ty_num(sc));
    n->fval = v;
    return n;
}

static Node *op2(T *t, NodeKind k, Type *ty, int op, Node *a, Node *b) {
    Node *n = node(t, k, ty);
    n->op = op;
    n->kids = arena_alloc(&t->c.arena, sizeof(Node *) * 3);
    n->kids[0] = a;
    n->kids[1] = b;
    n->nkids = b ? 2 : 1;
    return n;
}

static Node *bin(T *t, Scalar sc, int op, Node *a, Node *b) {
    return op2(t, N_C_BINARY, ty_num(sc), op, a, b);
}

static Node *cmp(T *t, int op, Node *a, Node *b) {
    return op2(t, N_C_BINARY, &ty_bool, op, a, b);
}

static Node *cast(T *t, int kind, Scalar sc, Node *a) {
    return op2(t, N_C_CAST, ty_num(sc), kind, a, NULL);
}

/* N evaluates to the integer WANT (as its type's bits), nothing reported. */
static void expect_int(Node *n, uint64_t want, int exact, int line) {
    T *t = t_new();
    CeVal v;
    CeResult r = ce_constant(&t->ck, NULL, n, 1, exact, &v);
    if (r != CE_DONE || (v.k != CE_INT && v.k != CE_BOOL) || v.u != want || t->c.diag.errors)
        fail_msg("line %d: want %llu, got result %d kind %d value %llu\n%s", line, (unsigned long long)want, (int)r, (int)v.k,
                 (unsigned long long)v.u, t_diag(t));
    t_free(t);
}

/* N fails with a diagnostic containing FRAG; quietly it is just not a constant. */
static void expect_error(Node *n, const char *frag, int exact, int line) {
    T *t = t_new();
    CeVal v;
    CeResult r = ce_constant(&t->ck, NULL, n, 1, exact, &v);
    if (r != CE_FAILED || !strstr(t_diag(t), frag))
        fail_msg("line %d: want an error with: %s\n  got result %d:\n%s", line, frag, (int)r, t_diag(t));
    t_free(t);
    t = t_new();
    r = ce_constant(&t->ck, NULL, n, 0, exact, &v);
    if (r != CE_NOT_CONSTANT || t->c.diag.errors) fail_msg("line %d: quietly, want \"not a constant\", got %d:\n%s", line, (int)r, t_diag(t));
    t_free(t);
}

/* The nodes are built in one arena and evaluated in another: fine, the
 * evaluator only reads them. */
static T *B;
#define INT(n, want) expect_int(n, (uint64_t)(want), 0, __LINE__)
#define EXACT(n, want) expect_int(n, (uint64_t)(want), 1, __LINE__)
#define ERR(n, frag) expect_error(n, frag, 0, __LINE__)
#define EXACT_ERR(n, frag) expect_error(n, frag, 1, __LINE__)

static int setup(void **state) {
    (void)state;
    B = t_new();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    t_free(B);
    return 0;
}

static void test_signed_overflow_is_an_error(void **state) {
    (void)state;
    INT(bin(B, SC_INT, OP_ADD, lit(B, SC_INT, 2147483646), lit(B, SC_INT, 1)), 2147483647);
    ERR(bin(B, SC_INT, OP_ADD, lit(B, SC_INT, 2147483647), lit(B, SC_INT, 1)),
        "t.crisp:1:1: error[E0321]: integer overflow: `2147483647 + 1` does not fit in `int`");
    ERR(bin(B, SC_CHAR, OP_ADD, lit(B, SC_CHAR, 127), lit(B, SC_CHAR, 1)), "`127 + 1` does not fit in `char`");
    ERR(bin(B, SC_LONG, OP_MUL, lit(B, SC_LONG, INT64_MAX), lit(B, SC_LONG, 2)),
        "`9223372036854775807 * 2` does not fit in `long`");
    ERR(bin(B, SC_INT, OP_SUB, lit(B, SC_INT, INT32_MIN), lit(B, SC_INT, 1)), "`-2147483648 - 1` does not fit in `int`");
    ERR(op2(B, N_C_UNARY, ty_num(SC_LONG), OP_NEG, lit(B, SC_LONG, INT64_MIN), NULL), "`-(-9223372036854775808)` does not fit");
    ERR(bin(B, SC_INT, OP_DIV, lit(B, SC_INT, INT32_MIN), lit(B, SC_INT, -1)), "`-2147483648 / -1` does not fit in `int`");
    ERR(bin(B, SC_LONG, OP_MOD, lit(B, SC_LONG, INT64_MIN), lit(B, SC_LONG, -1)), "does not fit in `long`");
    INT(bin(B, SC_INT, OP_DIV, lit(B, SC_INT, -7), lit(B, SC_INT, 2)), (uint64_t)-3);
    INT(bin(B, SC_INT, OP_MOD, lit(B, SC_INT, -7), lit(B, SC_INT, 2)), (uint64_t)-1);
}

static void test_unsigned_wraps(void **state) {
    (void)state;
    INT(bin(B, SC_UINT, OP_ADD, lit(B, SC_UINT, 4294967295), lit(B, SC_UINT, 1)), 0);
    INT(bin(B, SC_UCHAR, OP_ADD, lit(B, SC_UCHAR, 255), lit(B, SC_UCHAR, 2)), 1);
    INT(bin(B, SC_ULONG, OP_SUB, lit(B, SC_ULONG, 0), lit(B, SC_ULONG, 1)), UINT64_MAX);
    INT(bin(B, SC_UINT, OP_MUL, lit(B, SC_UINT, 2166136261), lit(B, SC_UINT, 16777619)), (2166136261ULL * 16777619ULL) & 0xffffffffULL);
    INT(op2(B, N_C_UNARY, ty_num(SC_USHORT), OP_NEG, lit(B, SC_USHORT, 1), NULL), 65535);
    INT(op2(B, N_C_UNARY, ty_num(SC_UINT), OP_BNOT, lit(B, SC_UINT, 0), NULL), 4294967295u);
}

static void test_division_and_shifts(void **state) {
    (void)state;
    ERR(bin(B, SC_INT, OP_DIV, lit(B, SC_INT, 7), lit(B, SC_INT, 0)), "error[E0319]: division by zero: `7 / 0`");
    ERR(bin(B, SC_UINT, OP_MOD, lit(B, SC_UINT, 7), lit(B, SC_UINT, 0)), "division by zero: `(rem 7 0)`");
    INT(bin(B, SC_UINT, OP_SHL, lit(B, SC_UINT, 1), lit(B, SC_INT, 31)), 2147483648u);
    INT(bin(B, SC_UINT, OP_SHL, lit(B, SC_UINT, 3), lit(B, SC_INT, 31)), 2147483648u); /* wraps */
    ERR(bin(B, SC_INT, OP_SHL, lit(B, SC_INT, 1), lit(B, SC_INT, 31)), "`(ash 1 31)` does not fit in `int`");
    INT(bin(B, SC_INT, OP_SHL, lit(B, SC_INT, -1), lit(B, SC_INT, 31)), (uint64_t)(int64_t)INT32_MIN);
    ERR(bin(B, SC_INT, OP_SHL, lit(B, SC_INT, 1), lit(B, SC_INT, 32)),
        "error[E0316]: shift count 32 is out of range for `int` (0 to 31)");
    ERR(bin(B, SC_LONG, OP_SHR, lit(B, SC_LONG, 1), lit(B, SC_INT, -1)), "shift count -1 is out of range for `long` (0 to 63)");
    INT(bin(B, SC_INT, OP_SHR, lit(B, SC_INT, -8), lit(B, SC_INT, 1)), (uint64_t)-4);           /* arithmetic */
    INT(bin(B, SC_UINT, OP_SHR, lit(B, SC_UINT, 2147483648u), lit(B, SC_INT, 31)), 1);
}

static void test_comparisons_follow_c(void **state) {
    (void)state;
    /* -1 < 1u is false in C: -1 becomes 4294967295u */
    INT(cmp(B, OP_LT, lit(B, SC_INT, -1), lit(B, SC_UINT, 1)), 0);
    /* ... but -1L < 1u is true: long holds every uint */
    INT(cmp(B, OP_LT, lit(B, SC_LONG, -1), lit(B, SC_UINT, 1)), 1);
    /* char and uchar promote to int first */
    INT(cmp(B, OP_LT, lit(B, SC_CHAR, -1), lit(B, SC_UCHAR, 1)), 1);
    INT(cmp(B, OP_NE, flt(B, SC_FLOAT, 0.5), flt(B, SC_DOUBLE, 0.5)), 0);
    /* && and || evaluate their second operand only when needed */
    INT(cmp(B, OP_AND, cmp(B, OP_EQ, lit(B, SC_INT, 1), lit(B, SC_INT, 2)),
            cmp(B, OP_NE, bin(B, SC_INT, OP_DIV, lit(B, SC_INT, 7), lit(B, SC_INT, 0)), lit(B, SC_INT, 0))),
        0);
    Node *sel = node(B, N_C_SELECT, ty_num(SC_INT));
    sel->kids = arena_alloc(&B->c.arena, sizeof(Node *) * 3);
    sel->kids[0] = cmp(B, OP_LT, lit(B, SC_INT, 1), lit(B, SC_INT, 2));
    sel->kids[1] = lit(B, SC_INT, 5);
    sel->kids[2] = bin(B, SC_INT, OP_DIV, lit(B, SC_INT, 7), lit(B, SC_INT, 0));
    sel->nkids = 3;
    INT(sel, 5);
}

static void test_floats_and_casts(void **state) {
    (void)state;
    T *t = t_new();
    CeVal v;
    /* float arithmetic is rounded to float after each operation */
    assert_int_equal(ce_constant(&t->ck, NULL, bin(B, SC_FLOAT, OP_ADD, flt(B, SC_FLOAT, 0.1f), flt(B, SC_FLOAT, 0.2f)), 1, 0, &v), CE_DONE);
    assert_true(v.k == CE_FLOAT && v.f == (double)(0.1f + 0.2f));
    assert_int_equal(ce_constant(&t->ck, NULL, bin(B, SC_DOUBLE, OP_DIV, flt(B, SC_DOUBLE, 1), flt(B, SC_DOUBLE, 3)), 1, 0, &v), CE_DONE);
    assert_true(v.f == 1.0 / 3.0);
    /* a float divided by zero is an infinity, as on the device */
    assert_int_equal(ce_constant(&t->ck, NULL, bin(B, SC_FLOAT, OP_DIV, flt(B, SC_FLOAT, 1), flt(B, SC_FLOAT, 0)), 1, 0, &v), CE_DONE);
    assert_true(v.f > 1e300);
    t_free(t);
    INT(cast(B, CAST_VALUE, SC_UCHAR, lit(B, SC_INT, 300)), 44);
    INT(cast(B, CAST_VALUE, SC_CHAR, lit(B, SC_INT, 200)), (uint64_t)-56);
    INT(cast(B, CAST_VALUE, SC_UINT, lit(B, SC_INT, -1)), 4294967295u);
    INT(cast(B, CAST_RTE, SC_INT, flt(B, SC_FLOAT, 2.5)), 2);
    INT(cast(B, CAST_RTE, SC_INT, flt(B, SC_FLOAT, 3.5)), 4);
    INT(cast(B, CAST_RTN, SC_INT, flt(B, SC_FLOAT, -1.5)), (uint64_t)-2);
    INT(cast(B, CAST_RTP, SC_INT, flt(B, SC_FLOAT, -1.5)), (uint64_t)-1);
    INT(cast(B, CAST_RTZ, SC_INT, flt(B, SC_FLOAT, -1.5)), (uint64_t)-1);
    INT(cast(B, CAST_BITS, SC_UINT, flt(B, SC_FLOAT, 1.0)), 1065353216u);
    ERR(cast(B, CAST_RTZ, SC_INT, flt(B, SC_FLOAT, 3e9)), "error[E0186]: 3e+09 does not fit in `int` after rounding");
}

static void test_exact_literal_arithmetic(void **state) {
    (void)state;
    /* literal-only arithmetic is exact in 64 bits, whatever the literals' types */
    EXACT(bin(B, SC_INT, OP_MUL, lit(B, SC_INT, 100000), lit(B, SC_INT, 100000)), 10000000000ULL);
    EXACT(bin(B, SC_INT, OP_SUB, lit(B, SC_INT, 0), lit(B, SC_INT, 1)), (uint64_t)-1);
    EXACT_ERR(bin(B, SC_LONG, OP_MUL, lit(B, SC_LONG, INT64_MAX), lit(B, SC_LONG, 2)),
              "integer overflow: `9223372036854775807 * 2` does not fit in `long`");
    /* with an unsigned literal: exact in ulong */
    EXACT(bin(B, SC_ULONG, OP_SUB, lit(B, SC_ULONG, -1), lit(B, SC_ULONG, 1)), UINT64_MAX - 1);
    EXACT_ERR(bin(B, SC_ULONG, OP_ADD, lit(B, SC_ULONG, -1), lit(B, SC_ULONG, 1)),
              "`18446744073709551615 + 1` does not fit in `ulong`");
}

static void test_what_is_not_a_constant(void **state) {
    (void)state;
    T *t = t_new();
    CeVal v;
    Sym s = {.kind = SYM_LOCAL, .name = "x", .cname = "x", .ty = ty_num(SC_INT)};
    Node *var = node(B, N_C_VAR, ty_num(SC_INT));
    var->sym = &s;
    /* a variable of the code around: not a constant, nothing reported */
    assert_int_equal(ce_constant(&t->ck, NULL, bin(B, SC_INT, OP_ADD, var, lit(B, SC_INT, 1)), 1, 0, &v), CE_NOT_CONSTANT);
    /* a device builtin or a user function call: not constants either */
    Node *id = node(B, N_C_CALL, ty_num(SC_ULONG));
    id->op = BI_LOCAL_ID;
    assert_int_equal(ce_constant(&t->ck, NULL, id, 1, 0, &v), CE_NOT_CONSTANT);
    Node *f = node(B, N_C_CALL, ty_num(SC_INT));
    f->op = BI_CALL;
    f->text = "square";
    assert_int_equal(ce_constant(&t->ck, NULL, f, 1, 0, &v), CE_NOT_CONSTANT);
    assert_int_equal(t->c.diag.errors, 0);
    /* but a temporary declared by the scratch block the checker filled is */
    Node *blk = node(B, N_C_BLOCK, &ty_void);
    Node *d = node(B, N_C_DECL, ty_num(SC_INT));
    d->sym = &s;
    d->kids = arena_alloc(&B->c.arena, sizeof(Node *));
    d->kids[0] = lit(B, SC_INT, 41);
    d->nkids = 1;
    blk->kids = arena_alloc(&B->c.arena, sizeof(Node *));
    blk->kids[0] = d;
    blk->nkids = 1;
    assert_int_equal(ce_constant(&t->ck, blk, bin(B, SC_INT, OP_ADD, var, lit(B, SC_INT, 1)), 1, 0, &v), CE_DONE);
    assert_int_equal(v.u, 42);
    t_free(t);
}

/* ---- whole programs, compiled in memory ---- */

typedef struct Run {
    int status;
    char *diag;
    size_t dlen;
    StrBuf cl;
} Run;

/* Compile SRC (t.crisp); with CL, to OpenCL C captured in r.cl; STEPS
 * the library option max_consteval_steps (0: default). */
static Run compile_steps(const char *src, int cl, long steps) {
    Run r = {0};
    sb_init(&r.cl);
    FILE *d = open_memstream(&r.diag, &r.dlen);
    assert_non_null(d);
    const char *inputs[1] = {"t.crisp"};
    CrispOptions o;
    memset(&o, 0, sizeof o);
    o.inputs = inputs;
    o.ninputs = 1;
    o.input_text = src;
    o.input_len = (int)strlen(src);
    if (cl) {
        o.transpile_oclc = 1;
        o.capture_cl = &r.cl;
    }
    o.max_consteval_steps = steps;
    r.status = crisp_run(&o, d);
    fclose(d);
    return r;
}

static Run compile(const char *src, int cl) {
    return compile_steps(src, cl, 0);
}

static void run_free(Run *r) {
    free(r->diag);
    sb_free(&r->cl);
}

/* SRC compiles, and its OpenCL C contains every fragment of WANT (a
 * NULL-terminated list). */
static void expect_cl(const char *src, const char **want, int line) {
    Run r = compile(src, 1);
    if (r.status != 0) fail_msg("line %d: status %d\n%s", line, r.status, r.diag);
    for (int i = 0; want[i]; i++)
        if (!strstr(sb_cstr(&r.cl), want[i])) fail_msg("line %d: missing `%s` in\n%s", line, want[i], sb_cstr(&r.cl));
    run_free(&r);
}

/* SRC fails with a diagnostic containing FRAG. */
static void expect_fail(const char *src, const char *frag, int line) {
    Run r = compile(src, 0);
    if (r.status != 1 || !strstr(r.diag, frag))
        fail_msg("line %d: want an error with: %s\n  got status %d:\n%s", line, frag, r.status, r.diag);
    run_free(&r);
}

#define EXPECT_CL(src, ...) expect_cl(src, (const char *[]){__VA_ARGS__, NULL}, __LINE__)
#define EXPECT_FAIL(src, frag) expect_fail(src, frag, __LINE__)

/* A kernel reading const-vec +t+, so it is emitted. */
#define READ_T "(def-kernel k (&out o:(vector-type int :global :write-only)) (declare (use +t+)) (set! (~ o 0) (to-int (~ +t+ 0))))\n"

static void test_def_const_values(void **state) {
    (void)state;
    /* the case: no silent wrap to -2 */
    EXPECT_FAIL("(def-const +a+ (* 9223372036854775807 2))",
                "t.crisp:1:16: error[E0321]: integer overflow: `9223372036854775807 * 2` does not fit in `long`");
    EXPECT_FAIL("(def-const +b+ (/ -9223372036854775808 -1))", "integer overflow: `-9223372036854775808 / -1`");
    EXPECT_FAIL("(def-const +n+:int 2147483647)\n(def-const +m+:int (+ +n+ 1))", "t.crisp:2:20: error[E0321]: integer overflow: `2147483647 + 1` does not fit in `int`");
    /* the math builtins, rounding divisions and conversions are constants;
       the support code they needed is not emitted */
    EXPECT_CL("(def-const +r2+ (sqrt 2.0))\n(def-const +h+ (floor -7 2))\n(def-const +u+:uint (* 65536 65535))\n"
              "(def-const +n+:int 300)\n(def-const +w+ (to-uchar +n+))\n"
              "(def-kernel k (&out o:(vector-type float :global :write-only) &out p:(vector-type uint :global :write-only)\n"
              "               &out q:(vector-type int :global :write-only))\n"
              "  (set! (~ o 0) +r2+ (~ q 0) +h+ (~ p 1) +u+ (~ p 2) +w+))",
              "o[0UL] = 1.4142135f;", "q[0UL] = -4;", "p[1UL] = 4294901760u;", "p[2UL] = (uchar)44;");
    Run r = compile("(def-const +h+ (floor -7 2))\n(def-kernel k (&out o:(vector-type int :global :write-only)) (set! (~ o 0) +h+))", 1);
    assert_int_equal(r.status, 0);
    assert_null(strstr(sb_cstr(&r.cl), "crisp_floor_div"));
    run_free(&r);
}

static void test_constant_lengths(void **state) {
    (void)state;
    /* lengths, sizes and shift counts written as expressions over constants */
    EXPECT_CL("(def-const +k+ 4)\n"
              "(def-kernel k (&out o:(vector-type int :global :write-only))\n"
              "  (let ((a (make-vector int (* 2 (ash +k+ 1))))\n"
              "        (b (make-vector int (max 3 (floor 9 2))))\n"
              "        (c (make-vector int (if (> +k+ 2) 8 4)))\n"
              "        (d (make-vector int (to-int (truncate 6.5)))))\n"
              "    (set! (~ a 0) 1 (~ b 0) 2 (~ c 0) 3 (~ d 0) 4)\n"
              "    (set! (~ o 0) (+ (~ a 0) (~ b 0) (~ c 0) (~ d 0)))))",
              "int a[16];", "int b[4];", "int c[8];", "int d[6];");
    /* the support code of (floor 9 2) was for the compiler only, and so
       was the name of its remainder: the kernel's own `rem` keeps its name */
    Run r = compile("(def-kernel k (&out o:(vector-type int :global :write-only))\n"
                    "  (let ((b (make-vector int (floor 9 2))))\n"
                    "    (let ((rem 2)) (set! (~ b 0) rem) (set! (~ o 0) (~ b 0)))))", 1);
    assert_int_equal(r.status, 0);
    assert_null(strstr(sb_cstr(&r.cl), "crisp_floor_div"));
    assert_non_null(strstr(sb_cstr(&r.cl), "int rem = 2;"));
    run_free(&r);
    r = compile("(def-kernel k (x:int &out o:(vector-type int :global :write-only))\n"
                "  (let ((p 1) (q 2))\n"
                "    (let ((b (ash x (floor 9 2))))\n"
                "      (let ((rem 2)) (set! (~ o 0) (+ p q rem b))))))", 1);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(sb_cstr(&r.cl), "int b = x << 4;"));
    assert_non_null(strstr(sb_cstr(&r.cl), "int rem = 2;"));
    run_free(&r);
    /* a length that is not a constant is still said to be one */
    EXPECT_FAIL("(def-kernel k (n:int &out o:(vector-type int :global :write-only))\n"
                "  (let ((a (make-vector int n))) (set! (~ a 0) 1)))",
                "error[E0910]: vector length must be a compile-time constant, found `n`");
}

static void test_const_vec_bodies(void **state) {
    (void)state;
    /* copy-vec of overlapping windows copies as memmove does, both ways */
    EXPECT_CL("(def-const-vec +t+\n"
              "  (let ((v (make-vector int 8)) (w (make-vector int 8)))\n"
              "    (dotimes (i 8) (set! (~ v i) i (~ w i) i))\n"
              "    (copy-vec (make-vector-view v 6 0) (make-vector-view v 6 2))\n"
              "    (copy-vec (make-vector-view w 6 2) (make-vector-view w 6 0))\n"
              "    (copy-vec w (make-vector-view v 2 6))\n"
              "    v))\n" READ_T,
              "__constant int t[8] = {\n    0, 1, 0, 1, 2, 3, 2, 3\n};");
    /* a computed length, :initial-element, C's conversions of stored values */
    EXPECT_CL("(def-const-vec +t+\n"
              "  (let* ((n (+ 2 (* 2 2)))\n"
              "         (v (make-vector uchar n :initial-element 7)))\n"
              "    (set! (~ v 0) 300 (~ v 1) -1 (~ v 2) (- (* 16 16) 1) (~ v 3) (/ (* 16 16) 2) (~ v 4) (truncate (* 1.5 (length~ v))))\n"
              "    v))\n" READ_T,
              "__constant uchar t[6] = {\n    44, 255, 255, 128, 9, 7\n};");
    /* calls: several values, a vector parameter written through a view */
    EXPECT_CL("(def-function divmod (a:int b:int) (declare (return-type int int)) (floor a b))\n"
              "(def-function fill (v:(vector-type int) x:int) (dotimes (i (length~ v)) (set! (~ v i) (+ x (to-int i)))))\n"
              "(def-const-vec +t+\n"
              "  (let ((v (make-vector int 6)))\n"
              "    (multiple-value-bind (q r) (divmod -7 2) (set! (~ v 0) q (~ v 1) r))\n"
              "    (fill (make-vector-view v 4 2) 10)\n"
              "    v))\n" READ_T,
              "__constant int t[6] = {\n    -4, 1, 10, 11, 12, 13\n};");
    /* unsigned arithmetic wraps (an FNV-1a hash) */
    EXPECT_CL("(def-const-vec +t+\n"
              "  (let ((v (make-vector uint 3)) (h:uint 2166136261))\n"
              "    (dotimes (i 3) (set! h (* (bit-xor h (to-uint i)) 16777619)) (set! (~ v i) h))\n"
              "    v))\n" READ_T,
              "84696351u, 276207162u, 581859880u");
    /* functions the body alone calls are not emitted */
    Run r = compile("(def-function fill (v:(vector-type int) x:int) (dotimes (i (length~ v)) (set! (~ v i) x)))\n"
                    "(def-const-vec +t+ (let ((v (make-vector int 4))) (fill v 3) v))\n" READ_T, 1);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(sb_cstr(&r.cl), "3, 3, 3, 3"));
    assert_null(strstr(sb_cstr(&r.cl), "fill"));
    run_free(&r);
}

static void test_const_vec_errors(void **state) {
    (void)state;
    EXPECT_FAIL("(def-const-vec +t+ (let ((v (make-vector int 4)) (x:int 2147483647)) (set! (~ v 0) (+ x 1)) v))",
                "error[E0321]: integer overflow: `2147483647 + 1` does not fit in `int`");
    EXPECT_FAIL("(def-const-vec +t+ (let ((v (make-vector int 4))) (dotimes (i 4) (set! (~ v i) (/ 12 (- 2 (to-int i))))) v))",
                "error[E0319]: division by zero: `12 / 0`");
    EXPECT_FAIL("(def-const-vec +t+ (let ((v (make-vector int 4)) (k 33)) (set! (~ v 0) (ash 1 k)) v))",
                "error[E0316]: shift count 33 is out of range for `int` (0 to 31)");
    EXPECT_FAIL("(def-function f (x:int) (declare (return-type int)) (* x 1000000))\n"
                "(def-const-vec +t+ (let ((v (make-vector int 4))) (set! (~ v 0) (f 5000)) v))",
                "t.crisp:2:65: note: in `f`, called from this def-const-vec body");
    EXPECT_FAIL("(with-template-type (T) (def-function twice (x:T) (declare (return-type T)) (* 2 x)))\n"
                "(def-const-vec +t+ (let ((v (make-vector int 4))) (set! (~ v 0) (twice 2)) v))",
                "error[E0180]: `twice` is not supported in a def-const-vec body (functions taking functions and templated");
    EXPECT_FAIL("(def-const-vec +t+ (let ((v (make-vector int 4))) (set! (~ v 0) (get-local-id 0)) v))",
                "error[E0180]: `get-local-id` is not supported in a def-const-vec body");
}

static void test_const_vec_limits(void **state) {
    (void)state;
    /* a fill of the longest vector completes within the default limit */
    Run r = compile("(def-const-vec +t+\n"
                    "  (let ((v (make-vector uint 1048576)) (h:uint 2166136261))\n"
                    "    (dotimes (i (length~ v))\n"
                    "      (set! h (* (bit-xor h (to-uint i)) 16777619))\n"
                    "      (set! (~ v i) (+ h (to-uint (* 3 i)))))\n"
                    "    v))\n",
                    0);
    if (r.status != 0) fail_msg("%s", r.diag);
    run_free(&r);
    /* one element more is E0184, and cannot be raised */
    EXPECT_FAIL("(def-const-vec +t+ (make-vector int 1048577))",
                "error[E0184]: a def-const-vec vector needs 1 to 1048576 elements, found 1048577 (the limit cannot be raised");
    EXPECT_FAIL("(def-const-vec +t+ (let ((v (make-vector int 4))) (dotimes (i 5) (make-vector int 1048576)) v))",
                "error[E0184]: def-const-vec `+t+` allocates more than 4194304 elements in all");
    /* a runaway loop stops at the limit, which (declare (max-steps N)) moves */
    EXPECT_FAIL("(def-const-vec +t+ (declare (max-steps 1000)) (let ((v (make-vector int 4)) (s 0)) (dotimes (i 100000) (inc! s)) v))",
                "error[E0183]: def-const-vec `+t+` ran for more than 1000 steps (a runaway loop?); if it needs more, raise its "
                "limit with (declare (max-steps N)), N up to 1000000000");
    EXPECT_CL("(def-const-vec +t+ (declare (max-steps 100000000))\n"
              "  (let ((v (make-vector int 2)) (s 0)) (dotimes (i 3000000) (inc! s)) (set! (~ v 0) s) v))\n" READ_T,
              "3000000, 0");
    EXPECT_FAIL("(def-const-vec +t+ (declare (max-steps 0)) (make-vector int 4))",
                "error[E0180]: expected (max-steps N) with N a number of steps from 1 to 1000000000");
    /* an embedding program (the fuzzer) sets the default and the cap */
    r = compile_steps("(def-const-vec +t+ (declare (max-steps 100000000))\n"
                      "  (let ((v (make-vector int 2)) (s 0)) (dotimes (i 3000000) (inc! s)) v))",
                      0, 5000);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.diag, "ran for more than 5000 steps"));
    run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signed_overflow_is_an_error),
        cmocka_unit_test(test_unsigned_wraps),
        cmocka_unit_test(test_division_and_shifts),
        cmocka_unit_test(test_comparisons_follow_c),
        cmocka_unit_test(test_floats_and_casts),
        cmocka_unit_test(test_exact_literal_arithmetic),
        cmocka_unit_test(test_what_is_not_a_constant),
        cmocka_unit_test(test_def_const_values),
        cmocka_unit_test(test_constant_lengths),
        cmocka_unit_test(test_const_vec_bodies),
        cmocka_unit_test(test_const_vec_errors),
        cmocka_unit_test(test_const_vec_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
