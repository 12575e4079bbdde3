/* test_reader.c - unit tests of the reader (reader/reader.c).
 *
 * Every lexical form, the printed form (syn_print round trip), annotations,
 * #+/#- with def-parameter and -D, each reader error (message, line and
 * column, captured from a memory stream), deep nesting, huge input, memory
 * exhaustion and random bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reader/reader.h"
#include "../../core/syntax.h"

/* The lead implements these in src/compile.c; until that file is in the
 * library, weak stand-ins keep this test linkable (a strong definition in
 * the library wins when it is there). */
__attribute__((weak)) void forms_push(Arena *a, Forms *f, Node *n) {
    if (f->n == f->cap) {
        int cap = f->cap ? f->cap * 2 : 16;
        Node **v = arena_alloc(a, sizeof *v * (size_t)cap);
        if (!v) return;
        if (f->n) memcpy(v, f->v, sizeof *v * (size_t)f->n);
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = n;
}

__attribute__((weak)) const char *crisp_define(const CrispOptions *opt, const char *name) {
    for (int i = 0; i < opt->ndefines; i++)
        if (strcmp(opt->defines[i].name, name) == 0) return opt->defines[i].value;
    return NULL;
}

/* One reading of one text. */
typedef struct Run {
    Crisp c;
    CrispOptions o;
    Reader r;
    Forms forms;
    SrcFile f;
    char *text;
    char *dbuf;
    size_t dlen;
    FILE *dout;
    int nerr;
    CrispDefine defs[4];
} Run;

static Run *run_new(void) {
    Run *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    assert_non_null(t->dout);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->c.opt = &t->o;
    reader_init(&t->r, &t->c);
    return t;
}

static void run_define(Run *t, const char *name, const char *value) {
    t->defs[t->o.ndefines].name = name;
    t->defs[t->o.ndefines].value = value;
    t->o.ndefines++;
    t->o.defines = t->defs;
}

static void run_text(Run *t, const char *text, size_t len) {
    t->text = malloc(len + 1);
    assert_non_null(t->text);
    memcpy(t->text, text, len);
    t->text[len] = 0;
    t->f.name = "t.crisp";
    t->f.text = t->text;
    t->f.len = (int)len;
    t->nerr = reader_read_file(&t->r, &t->f, &t->forms);
    fflush(t->dout);
}

static Run *rd_n(const char *text, size_t len) {
    Run *t = run_new();
    run_text(t, text, len);
    return t;
}

static Run *rd(const char *text) {
    return rd_n(text, strlen(text));
}

static void run_free(Run *t) {
    fclose(t->dout);
    free(t->dbuf);
    free(t->text);
    arena_free(&t->c.arena);
    free(t);
}

/* All forms printed with syn_print, separated by one space. */
static const char *printed(Run *t) {
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < t->forms.n; i++) {
        if (i) sb_putc(&b, ' ');
        syn_print(&b, t->forms.v[i]);
    }
    char *s = arena_strdup(&t->c.arena, sb_cstr(&b));
    sb_free(&b);
    return s;
}

/* Reads `text` without errors and checks its printed form. */
static void check_print(const char *text, const char *want) {
    Run *t = rd(text);
    if (t->nerr) fprintf(stderr, "unexpected diagnostics for %s:\n%s", text, t->dbuf);
    assert_int_equal(t->nerr, 0);
    assert_string_equal(printed(t), want);
    run_free(t);
}

/* Reads `text` and expects exactly `nerr` errors, the first being
 * `t.crisp:LINE:COL: error[CODE]: MSG...` (MSG is a prefix). */
static void check_error(const char *text, size_t len, int nerr, int line, int col,
                        const char *code, const char *msg) {
    Run *t = rd_n(text, len);
    char head[512];
    snprintf(head, sizeof head, "t.crisp:%d:%d: error[%s]: %s", line, col, code, msg);
    if (t->nerr != nerr || strncmp(t->dbuf, head, strlen(head)) != 0)
        fprintf(stderr, "input: %.80s\nwant %d error(s), first: %s\ngot %d:\n%s\n", text, nerr,
                head, t->nerr, t->dbuf);
    assert_int_equal(t->nerr, nerr);
    assert_true(strncmp(t->dbuf, head, strlen(head)) == 0);
    run_free(t);
}

static void check_err(const char *text, int line, int col, const char *code, const char *msg) {
    check_error(text, strlen(text), 1, line, col, code, msg);
}

/* ---- lexical forms ---- */

static void test_comments(void **state) {
    (void)state;
    check_print("; only a comment", "");
    check_print("a ; x\n b", "a b");
    check_print("a #| block |# b", "a b");
    check_print("a #| outer #| inner |# still |# b", "a b");
    check_print("#|\n multi\n line (\n|# (x)", "(x)");
    check_print("a#|x|#b", "a#|x|#b");  /* `#` inside a token is a constituent */
    check_print("(a;c\n b)", "(a b)");
    check_print("#||# x", "x");
    check_print("; comment with bytes \xc3\xa9 \x01\nx #| \xff |# y", "x y");
}

static void test_strings(void **state) {
    (void)state;
    Run *t = rd("\"a\\nb\\tc\\rd\\0e\\\\f\\\"g\\x41\\x7a\"");
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 1);
    Node *s = t->forms.v[0];
    assert_int_equal(s->kind, N_STRING);
    assert_int_equal(s->slen, 15);
    assert_memory_equal(s->name, "a\nb\tc\rd\0e\\f\"gAz", 15);
    assert_int_equal(s->name[15], 0);
    run_free(t);
    check_print("\"\"", "\"\"");
    check_print("\"multi\nline\"", "\"multi\\nline\"");
    check_print("\"caf\xc3\xa9\"", "\"caf\xc3\xa9\"");
    check_print("(f \"a b\" \"(\")", "(f \"a b\" \"(\")");
}

static void check_int(const char *text, int64_t v, int is_unsigned) {
    Run *t = rd(text);
    if (t->nerr) fprintf(stderr, "%s: %s", text, t->dbuf);
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 1);
    assert_int_equal(t->forms.v[0]->kind, N_INT);
    assert_true(t->forms.v[0]->ival == v);
    assert_int_equal(t->forms.v[0]->is_unsigned, is_unsigned);
    run_free(t);
}

static void test_integers(void **state) {
    (void)state;
    check_int("42", 42, 0);
    check_int("0", 0, 0);
    check_int("007", 7, 0);
    check_int("-7", -7, 0);
    check_int("+7", 7, 0);
    check_int("-0", 0, 0);
    check_int("#x2A", 42, 0);
    check_int("#X2a", 42, 0);
    check_int("#b101010", 42, 0);
    check_int("#B0", 0, 0);
    check_int("9223372036854775807", INT64_MAX, 0);
    check_int("-9223372036854775808", INT64_MIN, 0);
    check_int("9223372036854775808", INT64_MIN, 1);
    check_int("18446744073709551615", -1, 1);
    check_int("#xFFFFFFFFFFFFFFFF", -1, 1);
    check_int("#x7FFFFFFFFFFFFFFF", INT64_MAX, 0);
    check_int("#x00000000000000000000001", 1, 0);
    check_int("#b1111111111111111111111111111111111111111111111111111111111111111", -1, 1);
    check_print("18446744073709551615 -9223372036854775808 #x80",
                "18446744073709551615 -9223372036854775808 128");
}

static void check_float(const char *text, double v) {
    Run *t = rd(text);
    if (t->nerr) fprintf(stderr, "%s: %s", text, t->dbuf);
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 1);
    assert_int_equal(t->forms.v[0]->kind, N_FLOAT);
    assert_true(t->forms.v[0]->fval == v);
    run_free(t);
}

static void test_floats(void **state) {
    (void)state;
    check_float("1.0", 1.0);
    check_float(".5", 0.5);
    check_float("2.5e3", 2500.0);
    check_float("1e-3", 1e-3);
    check_float("-0.5", -0.5);
    check_float("+.25", 0.25);
    check_float("-.5e1", -5.0);
    check_float("1.", 1.0);
    check_float("1E2", 100.0);
    check_float("1e+2", 100.0);
    check_float("1e-400", 0.0);  /* underflow reads as 0 */
    check_float("41.1", 41.1);
    check_print("(+ 1.0 .5 2.5e3 1e-3 -0.5)", "(+ 1.0 0.5 2.5e+03 0.001 -0.5)");
}

static void test_symbols(void **state) {
    (void)state;
    Run *t = rd("Foo-Bar +PI+ 1+ 1- - + ... . -> x~ a#b |x| &optional =>");
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 14);
    for (int i = 0; i < t->forms.n; i++) assert_int_equal(t->forms.v[i]->kind, N_SYMBOL);
    assert_string_equal(t->forms.v[0]->name, "Foo-Bar");
    assert_string_equal(t->forms.v[0]->key, "foo-bar");
    assert_string_equal(t->forms.v[1]->name, "+PI+");
    assert_string_equal(t->forms.v[1]->key, "+pi+");
    assert_string_equal(t->forms.v[2]->name, "1+");
    assert_string_equal(t->forms.v[3]->name, "1-");
    assert_string_equal(t->forms.v[6]->name, "...");
    assert_null(t->forms.v[0]->ann);
    run_free(t);

    t = rd(":Global :fp64 :local-memory");
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 3);
    assert_int_equal(t->forms.v[0]->kind, N_KEYWORD);
    assert_string_equal(t->forms.v[0]->name, "Global");
    assert_string_equal(t->forms.v[0]->key, "global");
    assert_string_equal(printed(t), ":Global :fp64 :local-memory");
    run_free(t);
}

static void test_annotations(void **state) {
    (void)state;
    Run *t = rd("a:int +PI+:float x:T v:(vector-type float 4) vector_add::C k::v:int");
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 6);
    Node **v = t->forms.v;
    assert_string_equal(v[0]->name, "a");
    assert_non_null(v[0]->ann);
    assert_int_equal(v[0]->ann->kind, N_SYMBOL);
    assert_string_equal(v[0]->ann->name, "int");
    assert_int_equal(v[0]->ann->loc.col, 3);
    assert_string_equal(v[1]->name, "+PI+");
    assert_string_equal(v[1]->ann->name, "float");
    assert_string_equal(v[2]->ann->name, "T");
    assert_string_equal(v[2]->ann->key, "t");
    assert_string_equal(v[3]->name, "v");
    assert_int_equal(v[3]->ann->kind, N_LIST);
    assert_int_equal(v[3]->ann->nkids, 3);
    assert_int_equal(v[3]->ann->kids[2]->ival, 4);
    assert_string_equal(v[4]->name, "vector_add::C");
    assert_string_equal(v[4]->key, "vector_add::c");
    assert_null(v[4]->ann);
    assert_string_equal(v[5]->name, "k::v");
    assert_string_equal(v[5]->ann->name, "int");
    assert_string_equal(printed(t),
                        "a:int +PI+:float x:T v:(vector-type float 4) vector_add::C k::v:int");
    run_free(t);
    check_print("(def-function addInts (a:int b:int) (+ a b))",
                "(def-function addInts (a:int b:int) (+ a b))");
    check_print("(let ((my-svec:short3 ##(5 6 7))) my-svec)",
                "(let ((my-svec:short3 ##(5 6 7))) my-svec)");
}

static void test_quotes(void **state) {
    (void)state;
    check_print("'x `(a ,b ,@c) #'f", "'x `(a ,b ,@c) #'f");
    check_print("#`(&key birds:int => NIL)", "#'(&key birds:int => NIL)");
    check_print("' x", "'x");
    check_print("''x", "''x");
    check_print("'(1 2)", "'(1 2)");
    Run *t = rd("  'x\n ,@y");
    assert_int_equal(t->nerr, 0);
    Node *q = t->forms.v[0];
    assert_true(syn_is_form(q, "quote"));
    assert_int_equal(q->loc.line, 1);
    assert_int_equal(q->loc.col, 3);
    assert_int_equal(q->kids[0]->loc.col, 3);
    assert_int_equal(q->kids[1]->loc.col, 4);
    Node *u = t->forms.v[1];
    assert_true(syn_is_form(u, "unquote-splicing"));
    assert_int_equal(u->kids[0]->loc.line, 2);
    assert_int_equal(u->kids[0]->loc.col, 2);
    run_free(t);
    t = rd("#'(int => int)");
    assert_true(syn_is_form(t->forms.v[0], "function"));
    assert_int_equal(t->forms.v[0]->kids[1]->kind, N_LIST);
    run_free(t);
}

static void test_vectors(void **state) {
    (void)state;
    Run *t = rd("#(1 2 3) ##(1.0 2.0 3.0 4.0) #() (#(a) ##(b))");
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 4);
    assert_int_equal(t->forms.v[0]->kind, N_VECLIT);
    assert_int_equal(t->forms.v[0]->nkids, 3);
    assert_int_equal(t->forms.v[1]->kind, N_HWVEC);
    assert_int_equal(t->forms.v[1]->nkids, 4);
    assert_int_equal(t->forms.v[2]->kind, N_VECLIT);
    assert_int_equal(t->forms.v[2]->nkids, 0);
    assert_string_equal(printed(t), "#(1 2 3) ##(1.0 2.0 3.0 4.0) #() (#(a) ##(b))");
    run_free(t);
}

static void test_locations(void **state) {
    (void)state;
    Run *t = rd("(a\n\t(bb  \"s\"\n   #(1)))\n:k");
    assert_int_equal(t->nerr, 0);
    Node *l = t->forms.v[0];
    assert_ptr_equal(srcloc_file(l->loc), &t->f);
    assert_int_equal(l->loc.line, 1);
    assert_int_equal(l->loc.col, 1);
    assert_int_equal(l->kids[0]->loc.col, 2);
    Node *in = l->kids[1];
    assert_int_equal(in->loc.line, 2);
    assert_int_equal(in->loc.col, 2); /* a tab counts as one column */
    assert_int_equal(in->kids[0]->loc.col, 3);
    assert_int_equal(in->kids[1]->loc.col, 7);
    assert_int_equal(in->kids[2]->loc.line, 3);
    assert_int_equal(in->kids[2]->loc.col, 4);
    assert_int_equal(in->kids[2]->kids[0]->loc.col, 6);
    assert_int_equal(t->forms.v[1]->loc.line, 4);
    assert_int_equal(t->forms.v[1]->loc.col, 1);
    run_free(t);
}

/* Reading what syn_print printed gives the same print again. */
static void test_round_trip(void **state) {
    (void)state;
    const char *src =
        "(def-kernel vector_add (A:(vector float) B C)\n"
        "  \"adds\\tvectors\\n\\x01\"\n"
        "  (declare #'(float float => nil) (global-size :dims 2))\n"
        "  (let ((x:float 1.5e10) (y #xFF) (z -0.0) (w 1e-300) (q 0.1))\n"
        "    `(a ,b ,@(c 'd)) #(1 2) ##(1 2 3 4)\n"
        "    (launch #'vector_add vector_add::C 18446744073709551615 -9223372036854775808)))\n";
    Run *a = rd(src);
    assert_int_equal(a->nerr, 0);
    const char *p1 = printed(a);
    Run *b = rd(p1);
    assert_int_equal(b->nerr, 0);
    assert_string_equal(printed(b), p1);
    assert_non_null(strstr(p1, "\"adds\\tvectors\\n\\x01\""));
    run_free(a);
    run_free(b);
}

/* ---- #+ / #- ---- */

static void test_conditional_params(void **state) {
    (void)state;
    check_print("(def-parameter full_ride T)\n"
                "(def-parameter sleigh_ride nil)\n"
                "(def-parameter over_ride 0)\n"
                "#+full_ride (def-type A)\n"
                "#+sleigh_ride (def-type B)\n"
                "#+over_ride (def-type C)\n"
                "#-over_ride (def-type D)\n",
                "(def-parameter full_ride T) (def-parameter sleigh_ride nil) "
                "(def-parameter over_ride 0) (def-type A) (def-type D)");
    /* typed parameters, floats, missing default, strings, false */
    check_print("(def-parameter START_LOC 41.1) (def-parameter M:ulong) "
                "(def-parameter Z:float 0.0) (def-parameter S \"\") (def-parameter F FALSE)"
                " #+START_LOC a #+M b #+Z c #+S d #+F e",
                "(def-parameter START_LOC 41.1) (def-parameter M:ulong) "
                "(def-parameter Z:float 0.0) (def-parameter S \"\") (def-parameter F FALSE)"
                " a d");
    /* inside lists (the spec's let example) */
    check_print("(def-parameter P T)\n(let (#+P (a 1)\n #-P (a 2)) a)", "(def-parameter P T) (let ((a 1)) a)");
    /* #+nil is a constant when no parameter has that name; T too */
    check_print("(a #+nil b #+T c #-nil d)", "(a c d)");
    /* a dropped form is passed over by quote and by a #+ */
    check_print("(def-parameter N nil) '#+N x y", "(def-parameter N nil) 'y");
    check_print("(def-parameter N nil) #+T #+N x y", "(def-parameter N nil) y");
    /* the last definition wins */
    check_print("(def-parameter P T) (def-parameter P nil) #+P x", "(def-parameter P T) (def-parameter P nil)");
    /* nested def-parameter is not tracked; names are case-sensitive */
    Run *t = rd("(progn (def-parameter Q T)) #+Q x");
    assert_int_equal(t->nerr, 1);
    run_free(t);
    t = rd("(def-parameter full_ride T) #+FULL_RIDE x");
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:31: error[E0020]: unknown parameter `FULL_RIDE` "
                                    "in #+ (def-parameter it before use or pass -DFULL_RIDE=...)"));
    assert_non_null(strstr(t->dbuf, "did you mean `full_ride`?"));
    run_free(t);
    /* features are not evaluated inside a dropped form, syntax is still read */
    check_print("#+nil (a #+unknown b #+(target-has :fp64) c)", "");
    check_err("#+nil (a 12abc)", 1, 10, "E0009", "malformed number literal `12abc`");
    /* the parameters live in the Reader: a second file sees them */
    t = run_new();
    run_text(t, "(def-parameter FAST T)", 22);
    free(t->text);
    t->forms.n = 0;
    run_text(t, "#+FAST yes #-FAST no", 20);
    assert_int_equal(t->nerr, 0);
    assert_string_equal(printed(t), "yes");
    run_free(t);
}

static void test_conditional_defines(void **state) {
    (void)state;
    static const char *src = "(def-parameter full_ride T)\n(def-parameter sleigh_ride nil)\n"
                             "(def-parameter over_ride 0)\n"
                             "#+full_ride A #+sleigh_ride B #+over_ride C #+only_d D";
    Run *t = run_new();
    run_define(t, "full_ride", "nil");
    run_define(t, "sleigh_ride", "T");
    run_define(t, "over_ride", "1");
    run_define(t, "only_d", "41.1");
    run_text(t, src, strlen(src));
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 6);
    assert_string_equal(t->forms.v[3]->name, "B");
    assert_string_equal(t->forms.v[4]->name, "C");
    assert_string_equal(t->forms.v[5]->name, "D");
    assert_int_equal(t->r.nparams, 3);
    assert_string_equal(t->r.params[0].name, "full_ride");
    assert_int_equal(t->r.params[0].truthy, 0);
    assert_int_equal(t->r.params[1].truthy, 1);
    run_free(t);

    t = run_new();
    run_define(t, "X", "0.0");
    run_define(t, "Y", "FALSE");
    run_text(t, "#+X a #-X b #+Y c #-Y d", 23);
    assert_int_equal(t->nerr, 0);
    assert_string_equal(printed(t), "b d");
    run_free(t);
}

static void test_conditional_features(void **state) {
    (void)state;
    check_print("#+(target-has :images) a #+(target-has :subgroups) b "
                "#-(target-has :subgroups) c #+(target-has :fp64 T) d #+(target-has :FP16 nil) e",
                "a c d");
    check_print("(def-parameter A T) (def-parameter B nil)\n"
                "#+(and A B) x1 #+(or A B) x2 #+(not B) x3 #+(and) x4 #+(or) x5 "
                "#+(and A (or B (not B))) x6 #+1 x7 #+0 x8",
                "(def-parameter A T) (def-parameter B nil) x2 x3 x4 x6 x7");
    check_print("(defun calculate (x)\n"
                "  (let (#+(target-has :fp64 T)\n"
                "        (precision (get-high-precision-v))\n"
                "        #-(target-has :fp64 T)\n"
                "        (precision (get-low-precision-v)))\n"
                "    precision))",
                "(defun calculate (x) (let ((precision (get-high-precision-v))) precision))");
}

/* ---- errors ---- */

static void test_errors_structure(void **state) {
    (void)state;
    check_err("(a))", 1, 4, "E0001", "unexpected `)`: expected a form or end of file");
    check_err("a\n  )", 2, 3, "E0001", "unexpected `)`");
    check_err("(a\n (b)", 1, 1, "E0002", "unclosed `(`: expected `)` before end of file");
    check_err("x #(1 2", 1, 3, "E0002", "unclosed `#(`: expected `)` before end of file");
    check_err("##(1 2", 1, 1, "E0002", "unclosed `##(`: expected `)` before end of file");
    check_err("(a (b (c", 1, 7, "E0002", "unclosed `(`");  /* innermost, reported once */
    check_err("(a \"abc", 1, 4, "E0003", "unterminated string: expected `\"` before end of file");
    check_err("\"abc\\\"", 1, 1, "E0003", "unterminated string");
    check_err("x #| a #| b |# c", 1, 3, "E0006",
              "unterminated block comment: expected `|#` before end of file");
    check_err("(a #| a", 1, 4, "E0006", "unterminated block comment");
    check_err("a |# b", 1, 3, "E0024", "unexpected `|#`: expected a form (no block comment is open)");
}

static void test_errors_bytes(void **state) {
    (void)state;
    check_err("a \xc3\xa9 b", 1, 3, "E0007", "unexpected byte 0xC3: expected ASCII source text");
    check_err("(a\n\x01)", 2, 1, "E0007", "unexpected byte 0x01: expected printable ASCII");
    check_err("a \x7f", 1, 3, "E0007", "unexpected byte 0x7F");
    check_error("a \0 b", 5, 1, 1, 3, "E0007", "unexpected byte 0x00");
    check_err("abc\xff", 1, 4, "E0007", "unexpected byte 0xFF");
}

static void test_errors_strings(void **state) {
    (void)state;
    check_err("\"ab\\q\"", 1, 4, "E0004",
              "unknown escape `\\q` in string: expected one of \\n \\t \\r \\0 \\\\ \\\" \\xHH");
    check_err("\"a\nb\\xZ1\"", 2, 2, "E0005",
              "malformed escape in string: expected two hex digits after `\\x`, found `Z`");
    check_err("\"\\x4\"", 1, 2, "E0005",
              "malformed escape in string: expected two hex digits after `\\x`, found `\"`");
    check_err("\"\\x4g\"", 1, 2, "E0005", "malformed escape in string: expected two hex digits after `\\x`, found `g`");
    check_err("\"a\\\nb\"", 1, 3, "E0004", "unknown escape in string: expected one of");
    check_error("\"\\q \\w\" x", 9, 2, 1, 2, "E0004", "unknown escape `\\q`");
}

static void test_errors_numbers(void **state) {
    (void)state;
    check_err("(x 12abc)", 1, 4, "E0009", "malformed number literal `12abc`: expected an integer");
    check_err("1.2.3", 1, 1, "E0009", "malformed number literal `1.2.3`");
    check_err("1234567890123456789012345678901234567890abc", 1, 1, "E0009",
              "malformed number literal `1234567890123456789012345678901234567890...`: expected");
    check_err("1e", 1, 1, "E0009", "malformed number literal `1e`");
    check_err("-1+", 1, 1, "E0009", "malformed number literal `-1+`");
    check_err("1.0f", 1, 1, "E0009", "malformed number literal `1.0f`");
    check_err("0x1F", 1, 1, "E0009",
              "malformed number literal `0x1F`: expected decimal digits (write hexadecimal as #x1F)");
    check_err(".5.", 1, 1, "E0009", "malformed number literal `.5.`");
    check_err("1:int", 1, 1, "E0009", "malformed number literal `1:int`");
    check_err("18446744073709551616", 1, 1, "E0010",
              "integer literal `18446744073709551616` does not fit in 64 bits");
    check_err("-9223372036854775809", 1, 1, "E0010", "integer literal `-9223372036854775809`");
    check_err("#x10000000000000000", 1, 1, "E0010", "integer literal `#x10000000000000000`");
    check_err("1e999", 1, 1, "E0011", "float literal `1e999` is out of range");
    check_err("-1e999", 1, 1, "E0011", "float literal `-1e999` is out of range");
    check_err("#x1G", 1, 1, "E0012",
              "malformed hexadecimal literal `#x1G`: expected only hex digits 0-9 a-f after `#x`, found `G`");
    check_err("#b102", 1, 1, "E0012", "malformed binary literal `#b102`: expected only binary digits");
    check_err("#x y", 1, 1, "E0012", "expected hexadecimal digits after `#x`, found whitespace");
    check_err("(#b)", 1, 2, "E0012", "expected binary digits after `#b`, found `)`");
}

static void test_errors_symbols(void **state) {
    (void)state;
    check_err("(a: int)", 1, 2, "E0014", "expected a type after `:` in `a:`, found whitespace");
    check_err("a:", 1, 1, "E0014", "expected a type after `:` in `a:`, found end of file");
    check_err("a:#(1)", 1, 1, "E0014", "expected a type after `:` in `a:#`, found `#`");
    check_err("a:b:c", 1, 1, "E0015", "malformed symbol `a:b:c`");
    check_err("a:::b", 1, 1, "E0015", "malformed symbol `a:::b`");
    check_err("a::", 1, 1, "E0015", "malformed symbol `a::`");
    check_err("x : y", 1, 3, "E0016", "expected a keyword name after `:`, found whitespace");
    check_err("::x", 1, 1, "E0016", "malformed keyword `::x`: expected `:name` with no other `:`");
    check_err(":a:int", 1, 1, "E0016", "malformed keyword `:a:int`");
}

static void test_errors_dispatch(void **state) {
    (void)state;
    check_err("#q", 1, 1, "E0008", "unknown dispatch `#q`: expected one of #' #( ##( #| #+ #- #x #b");
    check_err("(a #quux b)", 1, 4, "E0008", "unknown dispatch `#q`");
    check_err("a #", 1, 3, "E0008", "expected a dispatch character after `#` (one of #' #( ##( #| "
              "#+ #- #x #b), found end of file");
    check_err("# a", 1, 1, "E0008", "expected a dispatch character after `#`");
    check_err("##[1]", 1, 1, "E0025", "expected `(` after `##` (a hardware vector is ##(a b ...)), found `[`");
    check_err("(a ')", 1, 4, "E0013", "expected a form after `'`, found `)`");
    check_err("'", 1, 1, "E0013", "expected a form after `'`, found end of file");
    check_err("(a ,@)", 1, 4, "E0013", "expected a form after `,@`, found `)`");
    check_err("#'", 1, 1, "E0013", "expected a form after `#'`, found end of file");
    check_err("#+", 1, 1, "E0013", "expected a feature expression after `#+`, found end of file");
    check_err("(#-)", 1, 2, "E0013", "expected a feature expression after `#-`, found `)`");
    check_err("#+T", 1, 1, "E0013", "expected a form after `#+T`, found end of file");
    check_err("(x #-nil)", 1, 4, "E0013", "expected a form after `#-nil`, found `)`");
    /* recovery: the enclosing list still closes; a top-level form with a
       reader error is dropped whole, reading goes on after it */
    Run *t = rd("(a ') b");
    assert_int_equal(t->nerr, 1);
    assert_string_equal(printed(t), "b");
    run_free(t);
}

static void test_errors_features(void **state) {
    (void)state;
    check_err("#+MISSING x", 1, 3, "E0020",
              "unknown parameter `MISSING` in #+ (def-parameter it before use or pass -DMISSING=...)");
    check_err("#-MISSING x", 1, 3, "E0020", "unknown parameter `MISSING` in #-");
    check_err("#+(target-has :fp64) x", 1, 3, "E0021",
              "target-has :fp64 is not decided for target oclc (OpenCL C 1.2 makes it optional); "
              "pass a default: (target-has :fp64 nil)");
    check_err("#+(target-has :fp16) x", 1, 3, "E0021", "target-has :fp16 is not decided");
    check_err("#+(target-has :warp-vote) x", 1, 15, "E0022",
              "unknown target property `:warp-vote` in target-has: expected one of :fp64 :fp16 "
              ":images :local-memory :atomics32 :subgroups");
    check_err("#+(target-has fp64) x", 1, 15, "E0023",
              "target-has expects a keyword property such as :fp64, found `fp64`");
    check_err("#+(target-has) x", 1, 3, "E0023", "target-has expects a property and an optional default");
    check_err("#+(target-has :fp64 T nil) x", 1, 3, "E0023", "target-has expects");
    check_err("#+:fp64 x", 1, 3, "E0023", "expected a parameter name or feature expression after #+, "
              "found keyword `:fp64`");
    /* a compile-time call is decided later, where its names are known
       (a template's parameters): the reader keeps both */
    {
        Run *t0 = rd("#+(is-floating-point? T) x #-(and (is-integer? T) t) y z");
        assert_int_equal(t0->nerr, 0);
        assert_string_equal(printed(t0), "(%feature-if #+ (is-floating-point? T) x) (%feature-if #- (and (is-integer? T) t) y) z");
        run_free(t0);
    }
    check_err("#+(not a b) x", 1, 3, "E0023", "(not ...) in a feature expression expects exactly one argument, found 2");
    check_err("#+\"s\" x", 1, 3, "E0023", "unsupported feature expression `\"s\"`");
    check_err("#+p:int x", 1, 3, "E0023", "unsupported feature expression `p:int`");
    /* every unknown name of an (and ...) is reported; the form is dropped */
    Run *t = rd("#+(and U1 U2) x y");
    assert_int_equal(t->nerr, 2);
    assert_string_equal(printed(t), "y");
    run_free(t);
    /* a malformed feature still consumes its form */
    t = rd("#+12abc (x) y");
    assert_int_equal(t->nerr, 1);
    assert_string_equal(printed(t), "y");
    run_free(t);
}

static void test_several_errors(void **state) {
    (void)state;
    Run *t = rd("(a 12abc)\n(b \"\\q\")\n)\n(c #q d)\n(ok)\n(e");
    assert_int_equal(t->nerr, 5);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:4: error[E0009]"));
    assert_non_null(strstr(t->dbuf, "t.crisp:2:5: error[E0004]"));
    assert_non_null(strstr(t->dbuf, "t.crisp:3:1: error[E0001]"));
    assert_non_null(strstr(t->dbuf, "t.crisp:4:4: error[E0008]"));
    assert_non_null(strstr(t->dbuf, "t.crisp:6:1: error[E0002]"));
    assert_string_equal(printed(t), "(ok)"); /* forms with errors are dropped */
    run_free(t);

    /* past the error cap the reader stops */
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < 200; i++) sb_puts(&b, "12abc ");
    t = rd(sb_cstr(&b));
    assert_int_equal(t->nerr, DIAG_MAX_ERRORS + 1);
    assert_true(t->c.diag.fatal);
    assert_non_null(strstr(t->dbuf, "too many errors"));
    run_free(t);
    sb_free(&b);
}

/* ---- limits ---- */

static void test_nesting(void **state) {
    (void)state;
    enum { N = READER_MAX_DEPTH };
    char *s = malloc(2 * N + 2);
    assert_non_null(s);
    memset(s, '(', N);
    memset(s + N, ')', N);
    Run *t = rd_n(s, 2 * N);
    assert_int_equal(t->nerr, 0);  /* exactly the limit is fine */
    assert_int_equal(t->forms.n, 1);
    run_free(t);

    memset(s, '(', N + 1);
    memset(s + N + 1, ')', N + 1);
    t = rd_n(s, 2 * N + 2);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:513: error[E0017]: nesting deeper than 512 levels"));
    assert_int_equal(t->forms.n, 0);  /* the form with the error is dropped */
    run_free(t);
    free(s);

    /* past the limit the rest of the form is skipped flat: strings,
       comments, vectors, prefixes and #+/#- inside do not confuse it */
    StrBuf d;
    sb_init(&d);
    for (int i = 0; i < N; i++) sb_putc(&d, '(');
    sb_puts(&d, "(#+T #-x 'q ,@\"s)\\\"\" ; )\n #| ) #| ) |# |# ##(1 (2)) #(3) #'f `g x) \"(\" z");
    for (int i = 0; i < N; i++) sb_putc(&d, ')');
    sb_puts(&d, " ok");
    t = rd(sb_cstr(&d));
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:513: error[E0017]"));
    assert_int_equal(t->forms.n, 1); /* the deep form is dropped */
    assert_string_equal(t->forms.v[0]->name, "ok");
    run_free(t);
    sb_free(&d);

    /* many levels too deep, twice in one form: still one error; next form fine */
    const char *deep = "(a";
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < 600; i++) sb_puts(&b, deep);
    sb_puts(&b, " x");
    for (int i = 0; i < 600; i++) sb_puts(&b, ")");
    sb_puts(&b, "\n(b)");
    t = rd(sb_cstr(&b));
    assert_int_equal(t->nerr, 1);
    assert_int_equal(t->forms.n, 1);
    assert_string_equal(printed(t), "(b)");
    run_free(t);
    sb_free(&b);
}

static void test_nesting_huge(void **state) {
    (void)state;
    enum { M = 1000000 };
    char *s = malloc(2 * (size_t)M + 8);
    assert_non_null(s);
    /* a million `(` */
    memset(s, '(', M);
    Run *t = rd_n(s, M);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "error[E0017]"));
    run_free(t);
    /* balanced */
    memset(s + M, ')', M);
    memcpy(s + 2 * (size_t)M, " ok", 3);
    t = rd_n(s, 2 * (size_t)M + 3);
    assert_int_equal(t->nerr, 1);
    assert_int_equal(t->forms.n, 1); /* the deep form is dropped, `ok` is read */
    run_free(t);
    /* a million quotes, then a million `#+T` */
    memset(s, '\'', M);
    memcpy(s + M, "x y", 3);
    t = rd_n(s, (size_t)M + 3);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:513: error[E0017]"));
    assert_string_equal(printed(t), "y");
    run_free(t);
    for (int i = 0; i < M / 4; i++) memcpy(s + 4 * i, "#+T ", 4);
    memcpy(s + 4 * (M / 4), "x y", 3);
    t = rd_n(s, 4 * (M / 4) + 3);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:2049: error[E0017]"));
    assert_string_equal(printed(t), "y");
    run_free(t);
    /* a million `#(` and unclosed */
    for (int i = 0; i < M / 2; i++) memcpy(s + 2 * i, "#(", 2);
    t = rd_n(s, M);
    assert_int_equal(t->nerr, 1);
    run_free(t);
    free(s);
}

static void test_huge_tokens(void **state) {
    (void)state;
    size_t n = ((size_t)1 << 20) + 10;
    char *s = malloc(n + 16);
    assert_non_null(s);
    memset(s, 'a', n);
    memcpy(s + n, " ok", 3);
    Run *t = rd_n(s, n + 3);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:1: error[E0018]: token longer than 1 MiB"));
    assert_string_equal(printed(t), "ok");
    run_free(t);

    s[0] = '"';
    memset(s + 1, 'b', n);
    memcpy(s + n + 1, "\" ok", 4);
    t = rd_n(s, n + 5);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:1: error[E0019]: string literal longer than 1 MiB"));
    assert_string_equal(printed(t), "ok");
    run_free(t);

    s[0] = '#';
    s[1] = 'x';
    memset(s + 2, 'f', n);
    t = rd_n(s, n + 2);
    assert_int_equal(t->nerr, 1);
    assert_non_null(strstr(t->dbuf, "t.crisp:1:1: error[E0018]: token longer than 1 MiB"));
    run_free(t);

    /* exactly 1 MiB is fine */
    n = (size_t)1 << 20;
    memset(s, 'c', n);
    t = rd_n(s, n);
    assert_int_equal(t->nerr, 0);
    assert_int_equal(strlen(t->forms.v[0]->name), n);
    run_free(t);
    free(s);
}

static void test_many_forms(void **state) {
    (void)state;
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < 100000; i++) sb_printf(&b, "(f%d %d \"s\" :k x:int)\n", i, i);
    Run *t = rd(sb_cstr(&b));
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.n, 100000);
    assert_int_equal(t->forms.v[99999]->loc.line, 100000);
    run_free(t);
    /* one list with many kids */
    sb_free(&b);
    sb_init(&b);
    sb_putc(&b, '(');
    for (int i = 0; i < 200000; i++) sb_puts(&b, "x ");
    sb_putc(&b, ')');
    t = rd(sb_cstr(&b));
    assert_int_equal(t->nerr, 0);
    assert_int_equal(t->forms.v[0]->nkids, 200000);
    run_free(t);
    sb_free(&b);
}

static void test_out_of_memory(void **state) {
    (void)state;
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < 20000; i++) sb_puts(&b, "(a b c) ");
    const char *src = sb_cstr(&b);
    Run *t = run_new();
    arena_set_cap(&t->c.arena, 64 * 1024);
    run_text(t, src, strlen(src));
    assert_int_equal(t->nerr, 1);
    assert_true(t->c.diag.fatal);
    assert_non_null(strstr(t->dbuf, "error[E0099]: out of memory (source too large)"));
    assert_true(t->forms.n < 20000);
    /* a later file is not read once the compilation is fatal */
    free(t->text);
    run_text(t, "x", 1);
    assert_int_equal(t->nerr, 0);
    run_free(t);
    sb_free(&b);
}

/* Random bytes and random mixes of Crisp punctuation never crash. */
static void test_random_input(void **state) {
    (void)state;
    static const char alphabet[] = "()\"\\;'`,@#|+-:.xXbB019aZ \n\t\x01\xc3{}";
    uint64_t seed = 0x9E3779B97F4A7C15u;
    char buf[512];
    for (int iter = 0; iter < 4000; iter++) {
        size_t n = (size_t)(iter % 511) + 1;
        for (size_t i = 0; i < n; i++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            buf[i] = iter & 1 ? (char)(seed & 0xff)
                              : alphabet[seed % (sizeof alphabet - 1)];
        }
        Run *t = rd_n(buf, n);
        assert_true(t->nerr >= 0);
        for (int i = 0; i < t->forms.n; i++) assert_non_null(t->forms.v[i]);
        printed(t);
        run_free(t);
    }
}

static void test_truthy(void **state) {
    (void)state;
    assert_false(reader_text_truthy(NULL));
    assert_false(reader_text_truthy(""));
    assert_false(reader_text_truthy("0"));
    assert_false(reader_text_truthy("0.0"));
    assert_false(reader_text_truthy("-0"));
    assert_false(reader_text_truthy("0e10"));
    assert_false(reader_text_truthy("nil"));
    assert_false(reader_text_truthy("NIL"));
    assert_false(reader_text_truthy("False"));
    assert_false(reader_text_truthy("#x0"));
    assert_true(reader_text_truthy("T"));
    assert_true(reader_text_truthy("1"));
    assert_true(reader_text_truthy("41.1"));
    assert_true(reader_text_truthy("0.5"));
    assert_true(reader_text_truthy("yes"));
    assert_true(reader_text_truthy("\"\""));
    assert_false(reader_form_truthy(NULL));
    Run *t = rd("0 0.0 nil False () 1 41.1 T \"\" :k (a)");
    int want[] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    assert_int_equal(t->forms.n, 11);
    for (int i = 0; i < 11; i++) assert_int_equal(reader_form_truthy(t->forms.v[i]), want[i]);
    run_free(t);
}

static void test_no_options(void **state) {
    (void)state;
    /* c->opt may be NULL: no -D at all */
    Run *t = run_new();
    t->c.opt = NULL;
    run_text(t, "#+X a", 5);
    assert_int_equal(t->nerr, 1);
    run_free(t);
    /* empty and NULL text */
    t = run_new();
    SrcFile f = {"empty.crisp", NULL, 0};
    assert_int_equal(reader_read_file(&t->r, &f, &t->forms), 0);
    assert_int_equal(t->forms.n, 0);
    run_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_annotations),
        cmocka_unit_test(test_quotes),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_conditional_params),
        cmocka_unit_test(test_conditional_defines),
        cmocka_unit_test(test_conditional_features),
        cmocka_unit_test(test_errors_structure),
        cmocka_unit_test(test_errors_bytes),
        cmocka_unit_test(test_errors_strings),
        cmocka_unit_test(test_errors_numbers),
        cmocka_unit_test(test_errors_symbols),
        cmocka_unit_test(test_errors_dispatch),
        cmocka_unit_test(test_errors_features),
        cmocka_unit_test(test_several_errors),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_nesting_huge),
        cmocka_unit_test(test_huge_tokens),
        cmocka_unit_test(test_many_forms),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_random_input),
        cmocka_unit_test(test_truthy),
        cmocka_unit_test(test_no_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
