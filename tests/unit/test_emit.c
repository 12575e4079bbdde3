/* test_emit.c - unit tests of the emitters' printers (emit-oclc/,
 * emit-hoist/).
 *
 * The OpenCL C printer is given checked trees built by hand - plain data,
 * as an emitter for another target would get them - and must print exactly
 * the C they mean: the parentheses C needs and those clang's -Wparentheses
 * asks for, literal spellings per type, the casts (value casts, convert_T,
 * the rounding modes, as_T), narrow arithmetic kept in its type, and the
 * statements (declarations, if/else-if chains, loops with a compound
 * step).  Then checked programs through each printer: the OpenCL C (its
 * parts in order, support code once, the identifiers as emit-oclc/names.c
 * spelled them), the kernel ABI, the metadata, the host plan and both
 * hoists, printed twice to the same bytes.  Integer literals are compared
 * with printf's spelling.  The shortest spelling of a
 * float constant (emit-oclc/floattext.c) is compared with the snprintf
 * and strtod way it replaced, over a few hundred thousand values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/syntax.h"
#include "../../emit-hoist/hoist.h"
#include "../../emit-hoist/plan.h"
#include "../../emit-oclc/ctext.h"
#include "../../emit-oclc/emit_oclc.h"
#include "../../emit-oclc/floattext.h"
#include "../../emit-oclc/names.h"
#include "../../emit-oclc/sizeprint.h"
#include "../../macros/expand.h"
#include "../../reader/reader.h"

/* ---- hand-built trees ---- */

static Arena A;
static Program P;
static SrcFile t_file = {"t.crisp", "(x)\n", 4};

static int setup(void **state) {
    (void)state;
    arena_init(&A);
    memset(&P, 0, sizeof P);
    P.ocl_version = 120;
    P.source = "t.crisp";
    return 0;
}

static int teardown(void **state) {
    (void)state;
    arena_free(&A);
    return 0;
}

static Node *node(NodeKind k, Type *ty) {
    Node *n = syn_new(&A, k, srcloc(&t_file, 1, 1));
    n->ty = ty;
    return n;
}

static Node *op2(NodeKind k, int op, Type *ty, Node *a, Node *b) {
    Node *n = node(k, ty);
    n->op = op;
    n->kids = arena_alloc(&A, 3 * sizeof(Node *));
    n->kids[0] = a;
    n->kids[1] = b;
    n->nkids = b ? 2 : 1;
    return n;
}

static Node *bin(int op, Node *a, Node *b) {
    return op2(N_C_BINARY, op, a->ty, a, b);
}

static Node *un(int op, Node *a) {
    return op2(N_C_UNARY, op, a->ty, a, NULL);
}

static Node *cast(int mode, Type *to, Node *a) {
    return op2(N_C_CAST, mode, to, a, NULL);
}

static Node *ilit(Scalar sc, int64_t v) {
    Node *n = node(N_C_INTLIT, ty_num(sc));
    n->ival = v;
    return n;
}

static Node *flit(Scalar sc, double v) {
    Node *n = node(N_C_FLOATLIT, ty_num(sc));
    n->fval = v;
    return n;
}

static Sym *sym(const char *cname, Type *ty) {
    Sym *s = arena_alloc(&A, sizeof *s);
    s->kind = SYM_LOCAL;
    s->name = s->key = s->cname = cname;
    s->ty = ty;
    return s;
}

static Node *var(Sym *s) {
    Node *n = node(N_C_VAR, s->ty);
    n->sym = s;
    return n;
}

static Node *block(int n, ...) {
    Node *b = node(N_C_BLOCK, NULL);
    b->kids = arena_alloc(&A, sizeof(Node *) * (size_t)(n + 1));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) b->kids[i] = va_arg(ap, Node *);
    va_end(ap);
    b->nkids = n;
    return b;
}

static void expect_expr(const Node *n, const char *want) {
    StrBuf b;
    sb_init(&b);
    emit_oclc_expr(&b, &P, n, &A);
    assert_string_equal(sb_cstr(&b), want);
    sb_free(&b);
}

static void expect_stmt(const Node *n, const char *want) {
    StrBuf b;
    sb_init(&b);
    emit_oclc_stmt(&b, &P, n, &A);
    assert_string_equal(sb_cstr(&b), want);
    sb_free(&b);
}

/* C's precedence, and the parentheses -Wparentheses wants besides. */
static void test_parentheses(void **state) {
    (void)state;
    Type *i = ty_num(SC_INT);
    Node *a = var(sym("a", i)), *b = var(sym("b", i)), *c = var(sym("c", i));
    expect_expr(bin(OP_MUL, bin(OP_ADD, a, b), c), "(a + b) * c");
    expect_expr(bin(OP_ADD, a, bin(OP_MUL, b, c)), "a + b * c");
    expect_expr(bin(OP_SUB, bin(OP_SUB, a, b), c), "a - b - c");
    expect_expr(bin(OP_SUB, a, bin(OP_SUB, b, c)), "a - (b - c)");
    expect_expr(bin(OP_BOR, bin(OP_BAND, a, b), c), "(a & b) | c");
    expect_expr(bin(OP_SHL, a, bin(OP_ADD, b, c)), "a << (b + c)");
    Node *t = bin(OP_LT, a, b), *u = bin(OP_GT, b, c);
    t->ty = u->ty = &ty_bool;
    expect_expr(bin(OP_OR, bin(OP_AND, t, u), t), "(a < b && b > c) || a < b");
    expect_expr(un(OP_NEG, un(OP_NEG, a)), "-(-a)");
    expect_expr(un(OP_NEG, ilit(SC_INT, -3)), "-(-3)");
    Node *sel = op2(N_C_SELECT, 0, i, t, a);
    sel->kids[2] = bin(OP_ADD, b, c);
    sel->nkids = 3;
    expect_expr(sel, "a < b ? a : b + c");
    expect_expr(bin(OP_MUL, sel, c), "(a < b ? a : b + c) * c");
}

/* Literals say their type: suffixes, the most negative values, floats
 * with the fewest digits that read back the same. */
static void test_literals(void **state) {
    (void)state;
    expect_expr(ilit(SC_INT, 7), "7");
    expect_expr(ilit(SC_UINT, 7), "7u");
    expect_expr(ilit(SC_LONG, -7), "-7L");
    expect_expr(ilit(SC_ULONG, 7), "7UL");
    expect_expr(ilit(SC_INT, INT32_MIN), "(-2147483647 - 1)");
    expect_expr(ilit(SC_LONG, INT64_MIN), "(-9223372036854775807L - 1)");
    expect_expr(ilit(SC_SHORT, 3), "(short)3");
    expect_expr(flit(SC_FLOAT, 2.0), "2.0f");
    expect_expr(flit(SC_FLOAT, 0.1), "0.1f");
    expect_expr(flit(SC_DOUBLE, 0.1), "0.1");
    expect_expr(flit(SC_DOUBLE, 1e300), "1e+300");
    expect_expr(flit(SC_FLOAT, 1.0 / 0.0), "INFINITY");
    Node *b = node(N_C_BOOLLIT, &ty_bool);
    b->ival = 1;
    expect_expr(b, "true");
}

/* An integer literal of each type printed into `b` (appended: with room
 * when `b` has grown, else through the buffer's growth), as printf's
 * %d/%u/%lld/%llu with the type's suffix. */
static void expect_int_literal(StrBuf *b, Scalar sc, int64_t v) {
    char want[48];
    switch (sc) {
    case SC_INT: snprintf(want, sizeof want, "%d", (int)v); break;
    case SC_UINT: snprintf(want, sizeof want, "%uu", (unsigned)v); break;
    case SC_LONG: snprintf(want, sizeof want, "%lldL", (long long)v); break;
    default: snprintf(want, sizeof want, "%lluUL", (unsigned long long)v); break;
    }
    size_t at = b->len;
    emit_oclc_expr(b, &P, ilit(sc, v), &A);
    if (strcmp(sb_cstr(b) + at, want)) print_error("%lld: %s, printf's %s\n", (long long)v, sb_cstr(b) + at, want);
    assert_string_equal(sb_cstr(b) + at, want);
}

/* Integers are written two digits a step in place (core/strbuf.c
 * sb_putull): every digit count, both signs, the limits, random values,
 * into a buffer with room and into fresh ones. */
static void test_integer_literals_as_printf(void **state) {
    (void)state;
    StrBuf b;
    sb_init(&b);
    int64_t vals[200];
    int n = 0;
    for (uint64_t p = 1; n < 60; p *= 10) { /* 10^k - 1, 10^k, 10^k + 1 and their negatives */
        vals[n++] = (int64_t)(p - 1);
        vals[n++] = (int64_t)p;
        vals[n++] = (int64_t)(p + 1);
        if (p > UINT64_MAX / 10) break;
    }
    for (int i = n, m = n; i < 2 * m; i++) vals[n++] = -vals[i - m];
    vals[n++] = INT64_MAX;
    vals[n++] = INT64_MIN + 1;
    vals[n++] = INT32_MAX;
    vals[n++] = INT32_MIN + 1;
    vals[n++] = UINT32_MAX;
    uint64_t st = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 20000 + n; i++) {
        int64_t v;
        if (i < n) v = vals[i];
        else {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            v = (int64_t)(st >> (i % 64));
            if (i % 3 == 0 && v != INT64_MIN) v = -v;
        }
        if (v != INT64_MIN) expect_int_literal(&b, SC_LONG, v);
        expect_int_literal(&b, SC_ULONG, v);
        expect_int_literal(&b, SC_UINT, (int64_t)(uint32_t)v);
        if ((int32_t)v != INT32_MIN) expect_int_literal(&b, SC_INT, (int32_t)v);
        if (i % 97 == 0) { /* a fresh buffer: no room */
            StrBuf f;
            sb_init(&f);
            expect_int_literal(&f, SC_LONG, v == INT64_MIN ? 0 : v);
            sb_free(&f);
        }
    }
    sb_free(&b);
}

static void expect_float_digits(double v, int is_double) {
    char fast[32], slow[32];
    int nf = oclc_float_digits(fast, v, is_double), ns = oclc_float_digits_slow(slow, v, is_double);
    if (strcmp(fast, slow)) print_error("%.17g (%s): %s, snprintf's way %s\n", v, is_double ? "double" : "float", fast, slow);
    assert_string_equal(fast, slow);
    assert_int_equal(nf, ns);
}

/* The shortest %g spelling made in integers (floattext.c) is the one
 * snprintf/strtod precision after precision finds: decimal literals of 1
 * to 9 digits at every scale, float arithmetic on them, random bit
 * patterns, powers of two and ten and their neighbours, halves (ties), the
 * edges of the exact range. */
static void test_float_spellings(void **state) {
    (void)state;
    uint64_t st = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        uint64_t m = st % 1000000000ull, scale = 1;
        for (int k = (int)(st >> 40) % 9; k >= 0; k--) scale *= 10;
        char lit[48];
        snprintf(lit, sizeof lit, "%llue%d", (unsigned long long)(m % scale), (int)(st >> 50) % 31 - 12);
        double d = strtod(lit, NULL);
        float f = strtof(lit, NULL), g = (float)(st % 1000) / 1000.0f;
        expect_float_digits(d, 0), expect_float_digits(d, 1), expect_float_digits(-d, 0), expect_float_digits(f, 0);
        expect_float_digits(1.0f - g, 0), expect_float_digits(g * 3.7f, 0), expect_float_digits(1.0 - g, 1);
        double bits;
        memcpy(&bits, &st, sizeof bits);
        if (isfinite(bits)) expect_float_digits(bits, 1), expect_float_digits(bits, 0);
    }
    for (int e = -40; e <= 60; e++) {
        double t = ldexp(1.0, e), p = pow(10.0, e / 2);
        for (int is_double = 0; is_double < 2; is_double++) {
            expect_float_digits(t, is_double), expect_float_digits(nextafter(t, 0), is_double);
            expect_float_digits(p, is_double), expect_float_digits(nextafter(p, 0), is_double);
            expect_float_digits(nextafter(p, INFINITY), is_double), expect_float_digits((float)p, is_double);
        }
    }
    for (int i = 0; i < 4000; i++)
        for (int is_double = 0; is_double < 2; is_double++)
            expect_float_digits(i / 8.0, is_double), expect_float_digits(i + 0.5, is_double), expect_float_digits(i * 1e13, is_double);
    const double edge[] = {0.0, -0.0, 1e-9, 1e-10, 1e17, 9.9999999999999e16, 0.1, 0.593, 16777217.0, 3.4e38, 1e39, 5e-324};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) expect_float_digits(edge[i], 0), expect_float_digits(edge[i], 1);
}

/* The casts: a value cast, OpenCL's convert_T with its rounding modes, as_T
 * for the same bits; arithmetic on narrow integers kept in its type. */
static void test_casts_and_narrow_arithmetic(void **state) {
    (void)state;
    Node *x = var(sym("x", ty_num(SC_FLOAT))), *n = var(sym("n", ty_num(SC_INT)));
    Node *v = var(sym("v", ty_hwvec(SC_INT, 4)));
    expect_expr(cast(CAST_VALUE, ty_num(SC_FLOAT), n), "(float)n");
    expect_expr(cast(CAST_VALUE, ty_num(SC_FLOAT), bin(OP_ADD, n, n)), "(float)(n + n)");
    expect_expr(cast(CAST_CONVERT, ty_hwvec(SC_FLOAT, 4), v), "convert_float4(v)");
    expect_expr(cast(CAST_RTZ, ty_num(SC_INT), x), "convert_int_rtz(x)");
    expect_expr(cast(CAST_RTE, ty_num(SC_INT), x), "convert_int_rte(x)");
    expect_expr(cast(CAST_BITS, ty_num(SC_UINT), x), "as_uint(x)");
    expect_expr(bin(OP_MUL, cast(CAST_VALUE, ty_num(SC_FLOAT), n), x), "(float)n * x");
    Node *s = var(sym("s", ty_num(SC_SHORT))), *t = var(sym("t", ty_num(SC_SHORT)));
    expect_expr(bin(OP_ADD, s, t), "(short)(s + t)");
    expect_expr(bin(OP_MUL, bin(OP_ADD, s, t), s), "(short)((short)(s + t) * s)");
}

/* Places: elements, members, swizzles, lengths, assignments, calls. */
static void test_places_and_calls(void **state) {
    (void)state;
    Type *vt = ty_vector(&A, ty_num(SC_FLOAT), AS_GLOBAL, ACC_READ_WRITE, AL_COMPACT, -1);
    Sym *vs = sym("v", vt);
    vs->len_cname = "v_len";
    Node *i = var(sym("i", ty_num(SC_ULONG)));
    Node *el = op2(N_C_INDEX, 0, ty_num(SC_FLOAT), var(vs), bin(OP_ADD, i, ilit(SC_ULONG, 1)));
    expect_expr(el, "v[i + 1UL]");
    Node *len = node(N_C_LENGTH, ty_num(SC_ULONG));
    len->sym = vs;
    expect_expr(len, "v_len");
    Node *set = op2(N_C_ASSIGN, OP_SET, ty_num(SC_FLOAT), el, flit(SC_FLOAT, 0.5));
    expect_expr(set, "v[i + 1UL] = 0.5f");
    Node *inc = op2(N_C_ASSIGN, OP_ADD, ty_num(SC_FLOAT), el, flit(SC_FLOAT, 1));
    expect_expr(inc, "v[i + 1UL] += 1.0f");
    Node *sw = op2(N_C_SWIZZLE, 0, ty_hwvec(SC_FLOAT, 2), var(sym("q", ty_hwvec(SC_FLOAT, 4))), NULL);
    sw->text = "xy";
    expect_expr(sw, "q.xy");
    Node *call = op2(N_C_CALL, BI_CALL, ty_num(SC_FLOAT), el, bin(OP_ADD, i, i));
    call->text = "scale_float";
    expect_expr(call, "scale_float(v[i + 1UL], i + i)");
}

/* Statements: declarations, if / else if / else, a loop whose step is a
 * compound assignment, return. */
static void test_statements(void **state) {
    (void)state;
    Type *i = ty_num(SC_INT);
    Sym *xs = sym("x", i), *ks = sym("k", i);
    Node *decl = op2(N_C_DECL, 0, i, bin(OP_ADD, var(sym("a", i)), ilit(SC_INT, 1)), NULL);
    decl->sym = xs;
    expect_stmt(decl, "int x = a + 1;\n");
    Node *c1 = bin(OP_LT, var(xs), ilit(SC_INT, 0)), *c2 = bin(OP_EQ, var(xs), ilit(SC_INT, 0));
    c1->ty = c2->ty = &ty_bool;
    Node *set1 = node(N_C_EXPR, NULL), *set2 = node(N_C_EXPR, NULL), *set3 = node(N_C_EXPR, NULL);
    set1->kids = arena_alloc(&A, sizeof(Node *));
    set2->kids = arena_alloc(&A, sizeof(Node *));
    set3->kids = arena_alloc(&A, sizeof(Node *));
    set1->kids[0] = op2(N_C_ASSIGN, OP_SET, i, var(xs), ilit(SC_INT, -1));
    set2->kids[0] = op2(N_C_ASSIGN, OP_SET, i, var(xs), ilit(SC_INT, 1));
    set3->kids[0] = op2(N_C_ASSIGN, OP_MUL, i, var(xs), ilit(SC_INT, 2));
    set1->nkids = set2->nkids = set3->nkids = 1;
    Node *inner = node(N_C_IF, NULL);
    inner->kids = arena_alloc(&A, 3 * sizeof(Node *));
    inner->kids[0] = c2;
    inner->kids[1] = block(1, set2);
    inner->kids[2] = block(1, set3);
    inner->nkids = 3;
    Node *outer = node(N_C_IF, NULL);
    outer->kids = arena_alloc(&A, 3 * sizeof(Node *));
    outer->kids[0] = c1;
    outer->kids[1] = block(1, set1);
    outer->kids[2] = block(1, inner);
    outer->nkids = 3;
    expect_stmt(outer,
                "if (x < 0) {\n"
                "    x = -1;\n"
                "} else if (x == 0) {\n"
                "    x = 1;\n"
                "} else {\n"
                "    x *= 2;\n"
                "}\n");
    Node *loop = node(N_C_FOR, NULL);
    loop->sym = ks;
    loop->kids = arena_alloc(&A, 4 * sizeof(Node *));
    loop->kids[0] = ilit(SC_INT, 0);
    Node *cond = bin(OP_LT, var(ks), ilit(SC_INT, 8));
    cond->ty = &ty_bool;
    loop->kids[1] = cond;
    loop->kids[2] = bin(OP_ADD, var(ks), ilit(SC_INT, 2));
    loop->kids[3] = block(1, set3);
    loop->nkids = 4;
    expect_stmt(loop,
                "for (int k = 0; k < 8; k += 2) {\n"
                "    x *= 2;\n"
                "}\n");
    Node *ret = op2(N_C_RETURN, 0, i, var(xs), NULL);
    expect_stmt(ret, "return x;\n");
    expect_stmt(node(N_C_BREAK, NULL), "break;\n");
}

/* ---- one checked program through every printer ---- */

typedef struct Checked {
    Crisp c;
    CrispOptions o;
    SrcFile file;
    Program *p;
} Checked;

static Checked *check_src(const char *src) {
    Checked *t = calloc(1, sizeof *t);
    assert_non_null(t);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, stderr);
    t->c.opt = &t->o;
    t->file = (SrcFile){"prog.crisp", src, (int)strlen(src)};
    SrcFile **files = arena_alloc(&t->c.arena, sizeof *files);
    files[0] = &t->file;
    t->c.files = files;
    t->c.nfiles = 1;
    Reader r;
    reader_init(&r, &t->c);
    Forms read = {0};
    reader_read_file(&r, &t->file, &read);
    t->p = check_program(&t->c, expander_new(&t->c), read, &oclc_names);
    assert_non_null(t->p);
    assert_int_equal(t->c.diag.errors, 0);
    oclc_name_program(t->p, &t->c.arena); /* as the driver does */
    t->p->source = "prog.crisp";
    return t;
}

static void checked_free(Checked *t) {
    arena_free(&t->c.arena);
    free(t);
}

#define PROG                                                                     \
    "(def-type fvec (vector-type float :global :read-write))\n"                 \
    "(def-function twice (x:float) (declare (return-type float)) (* x 2.0))\n"  \
    "(def-kernel scale_by (v:fvec width:int)\n"                                 \
    "  (declare (global-size :derive-from v))\n"                                \
    "  (set! (~ v (get-global-id 0)) (twice (to-float width))))\n"

static char *print_oclc(const Program *p) {
    Arena a;
    arena_init(&a);
    StrBuf b;
    sb_init(&b);
    emit_oclc(&b, p, &a);
    char *s = strdup(sb_cstr(&b));
    sb_free(&b);
    arena_free(&a);
    return s;
}

static void test_program_as_opencl_c(void **state) {
    (void)state;
    Checked *t = check_src(PROG);
    char *one = print_oclc(t->p), *two = print_oclc(t->p);
    assert_string_equal(one, two); /* deterministic */
    const char *want[] = {
        "/* Generated by crisp " CRISP_VERSION " from prog.crisp - edit the Crisp source, not this file. */\n/* OpenCL C 1.2 */\n",
        "/* def-function twice  (prog.crisp:2) */\nfloat twice(float x)\n{\n    return x * 2.0f;\n}\n",
        "/* def-kernel scale_by  (prog.crisp:3) */\n__kernel void scale_by(__global float *v, ulong v_len, int width)\n{\n"
        "    v[crisp_global_id(0u)] = twice((float)width);\n}\n",
        "ulong crisp_global_id(uint dim)\n",
        NULL};
    for (int i = 0; want[i]; i++)
        if (!strstr(one, want[i])) fail_msg("missing:\n%s\n--- in\n%s", want[i], one);
    assert_true(strstr(one, "float twice(") < strstr(one, "__kernel void scale_by(")); /* callees first */
    free(one);
    free(two);
    checked_free(t);
}

/* The identifiers the target spelled (emit-oclc/names.c through the
 * checker's TargetNames seam) are the ones printed: a Lisp name mangled, a
 * shadowing local made unique, an overload named after its parameter type,
 * a vector's length after the vector, the warp memory of the support code. */
static void test_identifiers_as_the_target_spells_them(void **state) {
    (void)state;
    Checked *t = check_src("(def-type fvec (vector-type float :global :read-write))\n"
                           "(def-function twice (x:int) (declare (return-type int)) (* 2 x))\n"
                           "(def-function twice (x:float) (declare (return-type float)) (* 2.0 x))\n"
                           "(def-kernel spell_k (v:fvec)\n"
                           "  (declare (global-size :derive-from v))\n"
                           "  (in-each-thread (i)\n"
                           "    (let ((image-data (~ v i)))\n"
                           "      (let ((image-data (twice image-data)))\n"
                           "        (in-warp (lane) (set! (~ v i) (shuffle-xor image-data 1)))))))\n");
    char *cl = print_oclc(t->p);
    const char *want[] = {
        "float twice_float(float x)\n",
        "void spell_k(__global float *v, ulong v_len, __local uint *crisp_warp_mem, ulong crisp_warp_mem_len)\n",
        "    float image_data = v[i];\n",
        "    float image_data_2 = twice_float(image_data);\n",
        "crisp_shuffle_float(image_data_2, crisp_lane_xor(1UL), crisp_warp_mem, crisp_warp_mem_len)",
        NULL};
    for (int i = 0; want[i]; i++)
        if (!strstr(cl, want[i])) fail_msg("missing:\n%s\n--- in\n%s", want[i], cl);
    free(cl);
    checked_free(t);
    /* overloads named after an enumeration or a struct parameter: their
       type parts while checking are the names the naming pass gives */
    t = check_src("(def-enumeration life-phylum :arthropoda :chordata)\n"
                  "(def-struct pt (x float) (y float))\n"
                  "(def-function legs (p:life-phylum) (declare (return-type int)) (if (= p :chordata) 4 6))\n"
                  "(def-function legs (p:int) (declare (return-type int)) p)\n"
                  "(def-function legs (p:pt) (declare (return-type int)) (truncate (x~ p)))\n"
                  "(def-kernel legs_k (v:(vector-type int :global :read-write))\n"
                  "  (declare (global-size :derive-from v))\n"
                  "  (in-each-thread (i)\n"
                  "    (set! (~ v i) (+ (legs life-phylum:chordata) (legs 3) (legs (make-pt :x 1.0 :y 2.0))))))\n");
    cl = print_oclc(t->p);
    const char *want2[] = {"int legs_life_phylum(life_phylum p)\n", "int legs_pt(pt p)\n",
                           "legs_life_phylum(life_phylum_chordata) + legs_int(3) + legs_pt(", NULL};
    for (int i = 0; want2[i]; i++)
        if (!strstr(cl, want2[i])) fail_msg("missing:\n%s\n--- in\n%s", want2[i], cl);
    free(cl);
    checked_free(t);
}

/* The checker names types and operators in Crisp only (ty_name,
 * check_op_name); the C text is emit-oclc/ctext.c's: every operator has
 * one, and a struct's type is the identifier the target gave it. */
static void test_c_text_of_types_and_operators(void **state) {
    (void)state;
    for (int op = 0; op < OP__COUNT; op++) {
        assert_string_not_equal(oclc_op_text(op), "?");
        assert_non_null(check_op_name(op));
    }
    assert_string_equal(oclc_op_text(OP_MOD), "%");
    assert_string_equal(check_op_name(OP_MOD), "rem");
    assert_string_equal(oclc_op_text(OP_NE), "!=");
    assert_string_equal(check_op_name(OP_NE), "/=");
    assert_string_equal(oclc_op_text(OP_AND), "&&");
    assert_string_equal(oclc_op_text(OP_SHL), "<<");
    assert_string_equal(oclc_op_text(OP_SET), "=");
    assert_string_equal(check_op_name(OP_SET), "set!");
    assert_string_equal(oclc_op_text(OP__COUNT), "?");
    assert_string_equal(oclc_type_name(ty_num(SC_ULONG)), "ulong");
    assert_string_equal(oclc_type_name(ty_hwvec(SC_FLOAT, 4)), "float4");
    assert_string_equal(oclc_type_name(&ty_bool), "bool");
    assert_string_equal(oclc_type_name(&ty_void), "void");
    assert_string_equal(ty_name(&A, &ty_void), "nil"); /* Crisp's name differs */
    Checked *t = check_src("(def-struct image-px (r float) (g float))\n"
                           "(def-kernel px_k (v:(vector-type image-px :global :read-write))\n"
                           "  (set! (r~ (~ v 0)) 1.0))\n");
    StructDef *sd = NULL;
    for (int i = 0; i < t->p->nstructs && !sd; i++)
        if (!strcmp(t->p->structs[i]->name, "image-px")) sd = t->p->structs[i];
    assert_non_null(sd);
    Type st = {.kind = TY_STRUCT, .sd = sd};
    assert_string_equal(oclc_type_name(&st), "image_px");
    assert_string_equal(ty_name(&A, &st), "image-px");
    checked_free(t);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The file's order: enumerations, structs, const-vecs, support code (each
 * once, however often used), then functions, callees before callers. */
static void test_program_parts_in_order(void **state) {
    (void)state;
    Checked *t = check_src("(def-type ivec (vector-type int :global :read-write))\n"
                           "(def-struct point (x float) (y float))\n"
                           "(def-enumeration color :red :green :blue)\n"
                           "(def-const-vec +sq+\n"
                           "  (let ((r (make-vector int :private 4)))\n"
                           "    (dotimes (i 4) (set! (~ r i) (* i i)))\n"
                           "    r))\n"
                           "(def-function norm1 (p:point) (declare (return-type float)) (+ (x~ p) (y~ p)))\n"
                           "(def-kernel k2 (v:ivec c:color)\n"
                           "  (declare (global-size :derive-from v) (use +sq+))\n"
                           "  (let ((p (make-point :x 1.0 :y 2.0)))\n"
                           "    (set! (~ v (get-global-id 0))\n"
                           "          (+ (~ +sq+ 2) (truncate (norm1 p)) (to-int (get-global-id 0))))))\n");
    char *cl = print_oclc(t->p);
    const char *parts[] = {
        "typedef enum {\n    color_red = 0,\n    color_green = 1,\n    color_blue = 2\n} color;\n",
        "typedef struct __attribute__((aligned(16))) {\n    float x; /* offset 0 */\n    float y; /* offset 4 */\n"
        "    uchar pad0[8];\n} point;\n",
        "__constant int sq[4] = {\n    0, 1, 4, 9\n};\n",
        "ulong crisp_global_id(uint dim)\n",
        "point make_point(float x, float y)\n",
        "float norm1(point p)\n",
        "__kernel void k2(__global int *v, ulong v_len, int c)\n{\n    point p = make_point(1.0f, 2.0f);\n"
        "    v[crisp_global_id(0u)] = sq[2UL] + convert_int_rtz(norm1(p)) + (int)crisp_global_id(0u);\n}\n",
        NULL};
    const char *at = cl;
    for (int i = 0; parts[i]; i++) {
        const char *p = strstr(at, parts[i]);
        if (!p) fail_msg("missing, or out of order:\n%s\n--- in\n%s", parts[i], cl);
        at = p + strlen(parts[i]);
    }
    assert_int_equal(count(cl, "ulong crisp_global_id("), 1);
    free(cl);
    checked_free(t);
}

static void test_program_abi_metadata_and_host_plan(void **state) {
    (void)state;
    Checked *t = check_src(PROG);
    Abi *abi = abi_build(&t->c.arena, t->p);
    assert_non_null(abi);
    assert_int_equal(abi->nkernels, 1);
    const AbiKernel *k = &abi->kernels[0];
    assert_string_equal(k->name, "scale_by");
    assert_int_equal(k->nargs, 3);
    assert_int_equal(k->args[0].role, ROLE_BUFFER);
    assert_int_equal(k->args[1].role, ROLE_LENGTH);
    assert_int_equal(k->args[2].role, ROLE_SCALAR);
    assert_string_equal(abi_role_name(k->args[1].role), "length");

    StrBuf m1, m2;
    sb_init(&m1);
    sb_init(&m2);
    emit_metadata(&m1, t->p, &t->c.arena);
    emit_metadata(&m2, t->p, &t->c.arena);
    assert_string_equal(sb_cstr(&m1), sb_cstr(&m2));
    assert_non_null(strstr(sb_cstr(&m1), "\"scale_by\""));
    assert_non_null(strstr(sb_cstr(&m1), "{\"index\": 1, \"name\": \"v\", \"role\": \"length\", \"type\": \"ulong\", \"param\": \"v\"}"));
    assert_non_null(strstr(sb_cstr(&m1), "\"global_size\": {\"dims\": 1, \"derive_from\": [\"v\"]}"));
    assert_null(strstr(sb_cstr(&m1), "\"binaries\""));
    /* the IR and binary files (docs/targets.md): the same text, then "binaries" before the end */
    MetaBinary bins[2] = {{"prog.ptx", "ptx", "cuModuleLoadData"}, {"prog_nvcl.ptx", "nvcl", "clCreateProgramWithBinary \"x\""}};
    sb_free(&m2);
    sb_init(&m2);
    emit_metadata_binaries(&m2, t->p, &t->c.arena, bins, 2);
    assert_memory_equal(sb_cstr(&m1), sb_cstr(&m2), m1.len - 3); /* all but "\n}\n" */
    assert_string_equal(sb_cstr(&m2) + m1.len - 3,
                        ",\n  \"binaries\": [\n"
                        "    {\"file\": \"prog.ptx\", \"target\": \"ptx\", \"loader\": \"cuModuleLoadData\"},\n"
                        "    {\"file\": \"prog_nvcl.ptx\", \"target\": \"nvcl\", \"loader\": \"clCreateProgramWithBinary \\\"x\\\"\"}\n"
                        "  ]\n}\n");
    sb_free(&m1);
    sb_free(&m2);

    HostKernel *hk = host_plan(&t->c.arena, abi);
    assert_non_null(hk);
    assert_int_equal(hk[0].nparams, 2);
    assert_int_equal(hk[0].params[0].kind, HP_VECTOR);
    assert_true(hk[0].params[0].uploads && hk[0].params[0].downloads);
    assert_int_equal(hk[0].params[1].kind, HP_SCALAR);
    assert_int_equal(hk[0].launch.dims, 1);
    assert_non_null(hk[0].launch.global[0]);
    /* the derived global size, printed by each host language's printer */
    assert_string_equal(size_c(&t->c.arena, hk[0].launch.global[0], abi_input_name, (void *)k), "v_len");
    assert_string_equal(size_py(&t->c.arena, hk[0].launch.global[0], abi_input_name, (void *)k), "v_len");

    HoistOptions ho = {.base = "prog", .cl_source = "/* cl */"};
    StrBuf py1, py2;
    sb_init(&py1);
    sb_init(&py2);
    emit_hoist_pyopencl(&py1, abi, &ho, &t->c.arena);
    emit_hoist_pyopencl(&py2, abi, &ho, &t->c.arena);
    assert_string_equal(sb_cstr(&py1), sb_cstr(&py2));
    assert_non_null(strstr(sb_cstr(&py1), "def scale_by(self, v, width, *"));
    sb_free(&py1);
    sb_free(&py2);
    StrBuf h, c, d;
    sb_init(&h);
    sb_init(&c);
    sb_init(&d);
    emit_hoist_opencl(&h, &c, &d, abi, &ho, &t->c.arena);
    assert_non_null(strstr(sb_cstr(&h), "scale_by"));
    assert_non_null(strstr(sb_cstr(&c), "scale_by"));
    sb_free(&h);
    sb_free(&c);
    sb_free(&d);
    checked_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parentheses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integer_literals_as_printf, setup, teardown),
        cmocka_unit_test(test_float_spellings),
        cmocka_unit_test_setup_teardown(test_casts_and_narrow_arithmetic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_places_and_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statements, setup, teardown),
        cmocka_unit_test(test_program_as_opencl_c),
        cmocka_unit_test(test_identifiers_as_the_target_spells_them),
        cmocka_unit_test_setup_teardown(test_c_text_of_types_and_operators, setup, teardown),
        cmocka_unit_test(test_program_parts_in_order),
        cmocka_unit_test(test_program_abi_metadata_and_host_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
