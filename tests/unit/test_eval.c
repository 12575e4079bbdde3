/* test_eval.c - unit tests of the compile-time evaluator (macros/eval.c).
 *
 * Every special form and builtin, truthiness, quasiquote with nesting,
 * lambda lists (&optional, &key, &rest/&body, &whole, &aux, destructuring),
 * closures, gensym, the error builtins and where their diagnostics point,
 * the host hook, the compile-time directives (c-t-output, c-t-assert,
 * line, file), target-has, def-constraint, and each resource limit: a macro that expands
 * forever, a compile-time infinite loop, runaway recursion, a huge or
 * deeply nested result - each must end in its diagnostic quickly, never
 * hang or crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
/* The type queries (type-of, is-type-of, element-type, the is-XXXX?
 * predicates, with-struct-accessors ...) are answered by the checker:
 * tests/unit/test_ctquery.c. */
#include <string.h>
#include <time.h>

#include "../../core/target.h"
#include "../../macros/eval.h"
#include "../../macros/expand.h"
#include "../../reader/reader.h"
#include "../../core/syntax.h"

/* One compilation context with an evaluator and captured diagnostics. */
typedef struct T {
    Crisp c;
    CrispOptions o;
    Eval ev;
    FILE *dout;
    char *dbuf;
    size_t dlen;
} T;

static T *t_new_opts(long max_steps, long max_depth) {
    T *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    assert_non_null(t->dout);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->o.no_prelude = 1;
    t->o.max_eval_steps = max_steps;
    t->o.max_expansion_depth = max_depth;
    t->c.opt = &t->o;
    eval_init(&t->ev, &t->c);
    return t;
}

static T *t_new(void) {
    return t_new_opts(0, 0);
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

static Forms t_read(T *t, const char *src) {
    SrcFile *f = arena_alloc(&t->c.arena, sizeof *f);
    assert_non_null(f);
    f->name = "t.crisp";
    f->text = arena_strdup(&t->c.arena, src);
    f->len = (int)strlen(src);
    Reader r;
    reader_init(&r, &t->c);
    Forms fs = {0};
    assert_int_equal(reader_read_file(&r, f, &fs), 0);
    return fs;
}

static const char *print(T *t, const Node *v) {
    return v ? syn_to_string(&t->c.arena, v, 100000) : "ERROR";
}

/* Read `src`; register its defmacros and evaluate the other forms in
 * order; the printed value of the last one, or "ERROR". */
static const char *t_eval(T *t, const char *src) {
    Forms fs = t_read(t, src);
    Node *v = NULL;
    for (int i = 0; i < fs.n; i++) {
        if (syn_is_form(fs.v[i], "defmacro")) {
            if (!eval_define_macro(&t->ev, fs.v[i], 0)) return "ERROR";
            continue;
        }
        v = eval_form(&t->ev, fs.v[i]);
        if (!v) return "ERROR";
    }
    return print(t, v);
}

/* Run the whole expander (without prelude) on `src`: printed output forms
 * separated by newlines, or "ERROR" when diagnostics were reported. */
static const char *t_expand(T *t, const char *src) {
    Forms out = expand_program(&t->c, t_read(t, src));
    if (t->c.diag.errors) return "ERROR";
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < out.n; i++) {
        if (i) sb_putc(&b, '\n');
        syn_print(&b, out.v[i]);
    }
    const char *s = arena_strdup(&t->c.arena, sb_cstr(&b));
    sb_free(&b);
    return s;
}

/* Evaluate `src` in a fresh context and compare the printed value. */
#define EXPECT(src, want)                                   \
    do {                                                    \
        T *t_ = t_new();                                    \
        const char *got_ = t_eval(t_, src);                 \
        if (strcmp(got_, want) != 0)                        \
            fail_msg("%s\n  got:  %s\n  want: %s\n%s", src, \
                     got_, want, t_diag(t_));               \
        t_free(t_);                                         \
    } while (0)

/* Evaluate `src` and expect an error whose text contains `frag`. */
#define EXPECT_ERROR(src, frag)                                             \
    do {                                                                    \
        T *t_ = t_new();                                                    \
        const char *got_ = t_eval(t_, src);                                 \
        const char *d_ = t_diag(t_);                                        \
        if (strcmp(got_, "ERROR") != 0 || !strstr(d_, frag))                \
            fail_msg("%s\n  got: %s\n  diag: %s\n  want error with: %s",   \
                     src, got_, d_, frag);                                  \
        t_free(t_);                                                         \
    } while (0)

/* A hang guard, not a speed test: the process's CPU time, which a busy
 * machine does not inflate (wall time under ASan at a load of 10 was 4 s). */
static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- literals, quote, truthiness ---- */

static void test_self_evaluating(void **state) {
    (void)state;
    EXPECT("42", "42");
    EXPECT("-7", "-7");
    EXPECT("2.5", "2.5");
    EXPECT("\"hi\\n\"", "\"hi\\n\"");
    EXPECT(":key", ":key");
    EXPECT("#(1 2 3)", "#(1 2 3)");
    EXPECT("()", "nil");
    EXPECT("nil", "nil");
    EXPECT("t", "t");
    EXPECT("'x", "x");
    EXPECT("'(a b:int \"s\" 1.0)", "(a b:int \"s\" 1.0)");
    EXPECT("(quote (1 2))", "(1 2)");
}

static void test_truthiness(void **state) {
    (void)state;
    /* nil, (), false, 0 and 0.0 are false; everything else is true */
    EXPECT("(if nil 1 2)", "2");
    EXPECT("(if '() 1 2)", "2");
    EXPECT("(if false 1 2)", "2");
    EXPECT("(if 0 1 2)", "2");
    EXPECT("(if 0.0 1 2)", "2");
    EXPECT("(if t 1 2)", "1");
    EXPECT("(if -1 1 2)", "1");
    EXPECT("(if \"\" 1 2)", "1");
    EXPECT("(if 'a 1 2)", "1");
    EXPECT("(if '(nil) 1 2)", "1");
    EXPECT("(if :k 1 2)", "1");
    EXPECT("(if nil 1)", "nil");
}

/* ---- special forms ---- */

static void test_conditionals(void **state) {
    (void)state;
    EXPECT("(when t 1 2)", "2");
    EXPECT("(when nil 1 2)", "nil");
    EXPECT("(unless nil 1 2)", "2");
    EXPECT("(unless t 1)", "nil");
    EXPECT("(cond ((= 1 2) 'a) ((= 1 1) 'b) (t 'c))", "b");
    EXPECT("(cond (nil 1) (t 2 3))", "3");
    EXPECT("(cond (nil 1))", "nil");
    EXPECT("(cond ((+ 1 2)))", "3"); /* a clause without body yields the test */
    EXPECT("(case 2 (1 'one) ((2 3) 'two-or-three) (t 'other))", "two-or-three");
    EXPECT("(case 'x (y 1) (otherwise 9))", "9");
    EXPECT("(case :k (:j 1) (:k 2))", "2");
    EXPECT("(case 5 (1 1))", "nil");
    EXPECT("(and)", "t");
    EXPECT("(and 1 2 3)", "3");
    EXPECT("(and 1 nil 3)", "nil");
    EXPECT("(and 1 0 3)", "0");
    EXPECT("(or)", "nil");
    EXPECT("(or nil 0 5 6)", "5");
    EXPECT("(or nil false)", "nil");
    EXPECT("(not 0)", "t");
    EXPECT("(not 'a)", "nil");
    EXPECT("(null '())", "t");
    EXPECT_ERROR("(cond 5)", "clause must be a non-empty list");
    EXPECT_ERROR("(if)", "`if` expects 2 to 3 operands, got 0");
}

static void test_short_circuit(void **state) {
    (void)state;
    /* the untaken branches would fail if evaluated */
    EXPECT("(if t 1 (car 5))", "1");
    EXPECT("(and nil (car 5))", "nil");
    EXPECT("(or 1 (car 5))", "1");
    EXPECT("(when nil (car 5))", "nil");
    EXPECT("(cond (t 1) ((car 5) 2))", "1");
}

static void test_let_progn_setq(void **state) {
    (void)state;
    EXPECT("(let ((x 1) (y 2)) (+ x y))", "3");
    EXPECT("(let ((x 1)) (let ((x 2) (y x)) y))", "1");
    EXPECT("(let ((x 1)) (let* ((x 2) (y x)) y))", "2");
    EXPECT("(let (x (y)) (list x y))", "(nil nil)");
    EXPECT("(let ((x:int 5)) x)", "5"); /* annotations on names are ignored */
    EXPECT("(let ((x 1)) (declare (ignore x)) 7)", "7");
    EXPECT("(progn)", "nil");
    EXPECT("(progn 1 2 3)", "3");
    EXPECT("(let ((x 1)) (setq x 5) x)", "5");
    EXPECT("(let ((x 1) (y 2)) (setq x 10 y (+ x 1)) (list x y))", "(10 11)");
    EXPECT("(let ((x 1)) (set! x 6))", "6");
    EXPECT("(let ((x 1)) (setf x 7) x)", "7");
    EXPECT("(let ((x 1)) (incf x) (incf x 10) x)", "12");
    EXPECT("(let ((x 1)) (decf x 3) x)", "-2");
    EXPECT("(let ((x 1)) (inc! x) (dec! x 5) x)", "-3");
    EXPECT("(let ((l nil)) (push 1 l) (push 2 l) l)", "(2 1)");
    EXPECT("(let ((l '(1 2 3))) (list (pop l) l))", "(1 (2 3))");
    EXPECT_ERROR("(setq undefined-var 1)", "`undefined-var` is not a bound variable");
    EXPECT_ERROR("(let ((1 2)) 3)", "malformed binding");
    EXPECT_ERROR("(let x 1)", "expects a list of bindings");
    EXPECT_ERROR("(declare (foo))", "`declare` is only allowed at the start of a body");
    EXPECT_ERROR("unbound-thing", "unbound compile-time variable `unbound-thing`");
}

static void test_loops(void **state) {
    (void)state;
    EXPECT("(let ((s 0)) (dotimes (i 5) (incf s i)) s)", "10");
    EXPECT("(let ((l nil)) (dotimes (i 3 (reverse l)) (push i l)))", "(0 1 2)");
    EXPECT("(dotimes (i 3 i))", "3");
    EXPECT("(dotimes (i -4 i))", "0");
    EXPECT("(let ((l nil)) (dolist (x '(a b c)) (push x l)) l)", "(c b a)");
    EXPECT("(dolist (x '(1 2) 'done))", "done");
    EXPECT("(dolist (x nil) (car 5))", "nil");
    /* each iteration has its own binding: closures see their own value */
    EXPECT("(let ((fs nil)) (dotimes (i 3) (push (lambda () i) fs)) (mapcar #'funcall fs))",
           "(2 1 0)");
    EXPECT_ERROR("(dotimes (i 'x) 1)", "count must be an integer");
    EXPECT_ERROR("(dolist (x 5) 1)", "`5` is not a list");
}

static void test_lambda_funcall(void **state) {
    (void)state;
    EXPECT("(funcall (lambda (x y) (+ x y)) 1 2)", "3");
    EXPECT("((lambda (x) (* x x)) 7)", "49");
    EXPECT("(funcall #'+ 1 2 3)", "6");
    EXPECT("(funcall 'car '(9 8))", "9");
    EXPECT("(apply #'+ 1 2 '(3 4))", "10");
    EXPECT("(apply #'list '())", "()");
    EXPECT("(mapcar #'1+ '(1 2 3))", "(2 3 4)");
    EXPECT("(mapcar #'+ '(1 2 3) '(10 20))", "(11 22)");
    EXPECT("(mapcar (lambda (x) (list x x)) '(a b))", "((a a) (b b))");
    EXPECT("(every #'integerp '(1 2 3))", "t");
    EXPECT("(every #'integerp '(1 a 3))", "nil");
    EXPECT("(some #'symbolp '(1 a 3))", "t");
    EXPECT("(some #'symbolp '(1 2))", "nil");
    EXPECT("(functionp #'car)", "t");
    EXPECT("(functionp 'car)", "nil");
    /* closures capture their environment by reference */
    EXPECT("(let* ((n 0) (inc (lambda () (incf n)))) (funcall inc) (funcall inc) n)", "2");
    EXPECT("(funcall (lambda (&optional (a 5) &rest r) (list a r)))", "(5 ())");
    EXPECT("(funcall (lambda (&key (x 1) y) (list x y)) :y 2)", "(1 2)");
    EXPECT_ERROR("(funcall (lambda (x) x))", "lambda: expected 1 argument");
    EXPECT_ERROR("(funcall 5 1)", "`5` is not a function");
    EXPECT_ERROR("#'if", "`if` is a special form");
    EXPECT_ERROR("(no-such-function 1)", "unknown compile-time function `no-such-function`");
    EXPECT_ERROR("((a b) 1)", "cannot be called");
}

/* ---- builtins ---- */

static void test_lists(void **state) {
    (void)state;
    EXPECT("(list 1 'a \"s\")", "(1 a \"s\")");
    EXPECT("(list)", "()"); /* empty lists print as () and are false */
    EXPECT("(list* 1 2 '(3 4))", "(1 2 3 4)");
    EXPECT("(cons 1 '(2 3))", "(1 2 3)");
    EXPECT("(cons 1 nil)", "(1)");
    EXPECT("(car '(1 2))", "1");
    EXPECT("(car nil)", "nil");
    EXPECT("(first '(1 2))", "1");
    EXPECT("(cdr '(1 2 3))", "(2 3)");
    EXPECT("(cdr '(1))", "()");
    EXPECT("(rest nil)", "()");
    EXPECT("(second '(1 2 3 4))", "2");
    EXPECT("(third '(1 2 3 4))", "3");
    EXPECT("(fourth '(1 2 3 4))", "4");
    EXPECT("(third '(1))", "nil");
    EXPECT("(nth 0 '(a b))", "a");
    EXPECT("(nth 5 '(a b))", "nil");
    EXPECT("(nth 1 #(4 5 6))", "5");
    EXPECT("(nthcdr 1 '(a b c))", "(b c)");
    EXPECT("(nthcdr 9 '(a b c))", "()");
    EXPECT("(last '(1 2 3))", "(3)");
    EXPECT("(last '(1 2 3) 2)", "(2 3)");
    EXPECT("(last nil)", "()");
    EXPECT("(butlast '(1 2 3))", "(1 2)");
    EXPECT("(append '(1) nil '(2 3) '())", "(1 2 3)");
    EXPECT("(append)", "()");
    EXPECT("(reverse '(1 2 3))", "(3 2 1)");
    EXPECT("(length '(1 2 3))", "3");
    EXPECT("(length nil)", "0");
    EXPECT("(length \"abcd\")", "4");
    EXPECT("(length #(1 2))", "2");
    EXPECT("(subseq '(a b c d) 1 3)", "(b c)");
    EXPECT("(subseq \"hello\" 1)", "\"ello\"");
    EXPECT("(member 2 '(1 2 3))", "(2 3)");
    EXPECT("(member 'z '(1 2 3))", "nil");
    EXPECT("(assoc 'b '((a 1) (b 2)))", "(b 2)");
    EXPECT("(identity 'q)", "q");
    /* cdr shares structure but never mutates its argument */
    EXPECT("(let* ((l '(1 2 3)) (r (cdr l))) (push 0 r) (list l r))", "((1 2 3) (0 2 3))");
    EXPECT_ERROR("(car 5)", "`car` expects a list, got `5`");
    EXPECT_ERROR("(cons 1 2)", "no dotted pairs");
    EXPECT_ERROR("(nth -1 '(1))", "negative index");
    EXPECT_ERROR("(subseq '(1 2) 1 5)", "out of range");
    EXPECT_ERROR("(car 1 2)", "`car` expects 1 argument, got 2");
}

static void test_predicates_equality(void **state) {
    (void)state;
    EXPECT("(list (null nil) (null 0) (null 'a))", "(t t nil)");
    EXPECT("(list (listp nil) (listp '(1)) (listp 1))", "(t t nil)");
    EXPECT("(list (consp nil) (consp '(1)))", "(nil t)");
    EXPECT("(list (atom 1) (atom nil) (atom '(1)))", "(t t nil)");
    EXPECT("(list (symbolp 'a) (symbolp :a) (symbolp nil) (symbolp 1))", "(t nil t nil)");
    EXPECT("(list (keywordp :a) (keywordp 'a))", "(t nil)");
    EXPECT("(list (numberp 1) (numberp 1.5) (numberp 'a))", "(t t nil)");
    EXPECT("(list (integerp 1) (integerp 1.0) (floatp 1.0))", "(t nil t)");
    EXPECT("(list (stringp \"a\") (stringp 'a))", "(t nil)");
    EXPECT("(list (vectorp #(1)) (vectorp '(1)))", "(t nil)");
    EXPECT("(list (eq 'a 'A) (eq 'a 'b) (eq 1 1) (eq :k :k) (eq nil '()))", "(t nil t t t)");
    EXPECT("(list (eq 'i:int 'i:int) (eq 'i:int 'i) (eq 1 1.0))", "(t nil nil)");
    EXPECT("(eq '(1) '(1))", "nil");
    EXPECT("(let ((l '(1))) (eq l l))", "t");
    EXPECT("(eql 2.5 2.5)", "t");
    EXPECT("(equal '(1 (2 \"x\") #(3)) '(1 (2 \"x\") #(3)))", "t");
    EXPECT("(equal '(1 2) '(1 3))", "nil");
    EXPECT("(equal \"ab\" \"ab\")", "t");
    EXPECT("(eq \"ab\" \"ab\")", "nil");
}

static void test_arithmetic(void **state) {
    (void)state;
    EXPECT("(+)", "0");
    EXPECT("(*)", "1");
    EXPECT("(+ 1 2 3)", "6");
    EXPECT("(+ 1 2.5)", "3.5");
    EXPECT("(- 10 3 2)", "5");
    EXPECT("(- 4)", "-4");
    EXPECT("(* 2 3 4)", "24");
    EXPECT("(/ 7 2)", "3");
    EXPECT("(/ -7 2)", "-3");
    EXPECT("(/ 7.0 2)", "3.5");
    EXPECT("(/ 100 2 5)", "10");
    EXPECT("(/ 4)", "0");
    EXPECT("(mod 7 3)", "1");
    EXPECT("(mod -7 3)", "2");
    EXPECT("(mod 7 -3)", "-2");
    EXPECT("(rem -7 3)", "-1");
    EXPECT("(rem 7 -3)", "1");
    EXPECT("(floor 7 2)", "3");
    EXPECT("(floor -7 2)", "-4");
    EXPECT("(ceiling 7 2)", "4");
    EXPECT("(floor 2.7)", "2");
    EXPECT("(ceiling 2.1)", "3");
    EXPECT("(1+ 41)", "42");
    EXPECT("(1- 0)", "-1");
    EXPECT("(list (< 1 2 3) (< 1 3 2) (> 3 2 1) (<= 1 1 2) (>= 2 2 3))", "(t nil t t nil)");
    EXPECT("(list (= 1 1 1) (= 1 1.0) (/= 1 2 3) (/= 1 2 1))", "(t t t nil)");
    EXPECT("(list (min 3 1 2) (max 3 1 2) (max 1 2.5))", "(1 3 2.5)");
    EXPECT("(list (abs -5) (abs 5) (abs -1.5))", "(5 5 1.5)");
    EXPECT("(list (ash 1 10) (ash 1024 -3) (ash -5 -1))", "(1024 128 -3)");
    EXPECT("(list (logand 12 10) (logior 12 10) (logxor 12 10) (lognot 0))", "(8 14 6 -1)");
    EXPECT("(list (expt 2 10) (expt 3 0) (expt 2.0 3))", "(1024 1 8.0)");
    EXPECT("(list (zerop 0) (plusp 1) (minusp -1) (evenp 4) (oddp 4))", "(t t t t nil)");
    /* one rule with the checker's constant evaluator: overflow of 64 bits
       and division by zero are errors, naming the operation (E0321, E0319) */
    EXPECT_ERROR("(/ 1 0)", "error[E0319]: division by zero: `(/ 1 0)`");
    EXPECT_ERROR("(mod 1 0)", "division by zero: `(mod 1 0)`");
    EXPECT_ERROR("(floor 7 0)", "division by zero: `(floor 7 0)`");
    EXPECT_ERROR("(+ 9223372036854775807 1)",
                 "error[E0321]: integer overflow: `(+ 9223372036854775807 1)` does not fit in 64 bits (compile-time integers are 64-bit signed)");
    EXPECT_ERROR("(* 4611686018427387904 2)", "integer overflow: `(* 4611686018427387904 2)`");
    EXPECT_ERROR("(- -9223372036854775807 2)", "integer overflow: `(- -9223372036854775807 2)`");
    EXPECT_ERROR("(- (- -9223372036854775807 1))", "integer overflow: `(- -9223372036854775808)`");
    EXPECT_ERROR("(/ (- -9223372036854775807 1) -1)", "integer overflow: `(/ -9223372036854775808 -1)`");
    EXPECT_ERROR("(abs (- -9223372036854775807 1))", "integer overflow: `(abs -9223372036854775808)`");
    EXPECT_ERROR("(expt 2 64)", "integer overflow: `(expt 2 64)`");
    EXPECT_ERROR("(ash 1 70)", "integer overflow: `(ash 1 70)`");
    EXPECT_ERROR("(+ 1 'a)", "`+` expects a number, got `a`");
    EXPECT_ERROR("(+ 18446744073709551615 1)", "unsigned literals");
}

static void test_strings_symbols(void **state) {
    (void)state;
    EXPECT("(concat \"ab\" \"cd\")", "\"abcd\"");
    EXPECT("(string-concat)", "\"\"");
    EXPECT("(str \"n=\" 5 \" \" 'sym \" \" :k \" \" '(1 \"q\"))", "\"n=5 sym k (1 \\\"q\\\")\"");
    EXPECT("(format nil \"~a-~s-~d~%~~\" \"x\" \"y\" 3)", "\"x-\\\"y\\\"-3\\n~\"");
    EXPECT("(symbol-name 'Foo)", "\"Foo\"");
    EXPECT("(symbol-name :bar)", "\"bar\"");
    EXPECT("(symbol-name 'i:int)", "\"i\"");
    EXPECT("(intern \"hello\")", "hello");
    EXPECT("(eq (intern \"ABC\") 'abc)", "t");
    EXPECT("(make-symbol (concat \"x\" \"-\" \"y\"))", "x-y");
    EXPECT("(make-keyword \"k\")", ":k");
    EXPECT("(make-keyword 'sym)", ":sym");
    EXPECT("(string= \"a\" \"a\")", "t");
    EXPECT("(string= 'abc \"abc\")", "t");
    EXPECT("(string-upcase \"ab-c\")", "\"AB-C\"");
    EXPECT("(string-downcase \"AB\")", "\"ab\"");
    EXPECT("(bare-symbol 'i:int)", "i");
    EXPECT("(symbol-annotation 'i:int)", "int");
    EXPECT("(symbol-annotation 'i)", "nil");
    EXPECT("(annotate-symbol 'i '(vector float))", "i:(vector float)");
    EXPECT_ERROR("(concat \"a\" 'b)", "`concat` expects strings");
    EXPECT_ERROR("(format t \"x\")", "only the destination nil");
    EXPECT_ERROR("(format nil \"~a ~a\" 1)", "not enough arguments");
    EXPECT_ERROR("(format nil \"~q\")", "unsupported directive");
    EXPECT_ERROR("(intern \"\")", "non-empty string");
}

static void test_gensym(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_eval(t, "(gensym)"), "%g1");
    assert_string_equal(t_eval(t, "(gensym)"), "%g2");
    assert_string_equal(t_eval(t, "(gensym \"tmp\")"), "%tmp3");
    assert_string_equal(t_eval(t, "(eq (gensym) (gensym))"), "nil");
    assert_string_equal(t_eval(t, "(let ((g (gensym))) (eq g g))"), "t");
    assert_int_equal(t->c.gensym_counter, 6);
    t_free(t);
    /* numbering starts at 1 in every compilation */
    t = t_new();
    assert_string_equal(t_eval(t, "(gensym)"), "%g1");
    t_free(t);
}

/* ---- quasiquote ---- */

static void test_quasiquote(void **state) {
    (void)state;
    EXPECT("`(a b)", "(a b)");
    EXPECT("(let ((x 1)) `(a ,x))", "(a 1)");
    EXPECT("(let ((l '(1 2))) `(a ,@l b))", "(a 1 2 b)");
    EXPECT("(let ((l nil)) `(a ,@l))", "(a)");
    EXPECT("(let ((l '(1 2))) `(,@l))", "(1 2)");
    EXPECT("(let ((x 1)) `(a (b (c ,x))))", "(a (b (c 1)))");
    EXPECT("(let ((x 2)) `#(1 ,x))", "#(1 2)");
    EXPECT("(let ((x 'q)) `(,x . ,x))", "(q . q)"); /* `.` is an ordinary symbol */
    EXPECT("`,(+ 1 2)", "3");
    EXPECT("(let ((x 5)) `(quote ,x))", "'5");
    /* nesting: inner levels are kept, ,, unquotes through both */
    EXPECT("``(a ,b)", "`(a ,b)");
    EXPECT("(let ((b 'x)) ``(a ,,b))", "`(a ,x)");
    EXPECT("(let ((b 'x)) ``(a ,',b))", "`(a ,'x)");
    EXPECT("(let ((l '(1 2))) ``(a ,@,l))", "`(a ,@(1 2))");
    EXPECT("(let ((x 'y)) `(a `(b ,(c ,x))))", "(a `(b ,(c y)))");
    /* ,SYM:TYPE puts the annotation on the symbol SYM holds */
    EXPECT("(let ((k 'foo)) `(let ((,k:ulong 1)) ,k))", "(let ((foo:ulong 1)) foo)");
    EXPECT_ERROR("(let ((k 5)) `(,k:int))", "cannot take a type annotation");
    EXPECT_ERROR("`,@'(1)", "`,@` must be inside a list");
    EXPECT_ERROR("(let ((x 5)) `(a ,@x))", "must produce a list");
    EXPECT_ERROR(",x", "outside of a quasiquote");
}

/* ---- defmacro and lambda lists ---- */

/* Expand the last form of `src` (a call of a macro defined before it). */
static const char *t_expand1(T *t, const char *src) {
    Forms fs = t_read(t, src);
    for (int i = 0; i + 1 < fs.n; i++)
        if (!eval_define_macro(&t->ev, fs.v[i], 0)) return "ERROR";
    Node *call = fs.v[fs.n - 1];
    const Macro *m = eval_find_macro(&t->ev, syn_head(call));
    assert_non_null(m);
    Expansion e = {m->name, call->loc, NULL};
    return print(t, eval_macroexpand(&t->ev, m, call, &e));
}

#define EXPECT_MACRO(src, want)                                             \
    do {                                                                    \
        T *t_ = t_new();                                                    \
        const char *got_ = t_expand1(t_, src);                              \
        if (strcmp(got_, want) != 0)                                        \
            fail_msg("%s\n  got:  %s\n  want: %s\n%s", src, got_, want,     \
                     t_diag(t_));                                           \
        t_free(t_);                                                         \
    } while (0)

#define EXPECT_MACRO_ERROR(src, frag)                                       \
    do {                                                                    \
        T *t_ = t_new();                                                    \
        const char *got_ = t_expand1(t_, src);                              \
        const char *d_ = t_diag(t_);                                        \
        if (strcmp(got_, "ERROR") != 0 || !strstr(d_, frag))                \
            fail_msg("%s\n  got: %s\n  diag: %s\n  want error with: %s",   \
                     src, got_, d_, frag);                                  \
        t_free(t_);                                                         \
    } while (0)

static void test_lambda_list_required_optional(void **state) {
    (void)state;
    EXPECT_MACRO("(defmacro m (a b) `(list ,b ,a)) (m 1 2)", "(list 2 1)");
    EXPECT_MACRO("(defmacro m () ''zero) (m)", "'zero");
    EXPECT_MACRO("(defmacro m (a &optional b (c 3) (d (+ c 1) d-p)) `(,a ,b ,c ,d ,d-p)) (m 1)",
                 "(1 nil 3 4 nil)");
    EXPECT_MACRO("(defmacro m (a &optional b (c 3) (d (+ c 1) d-p)) `(,a ,b ,c ,d ,d-p)) (m 1 2 5 9)",
                 "(1 2 5 9 t)");
    /* supplied-p is t even when the argument is a false value like 0 */
    EXPECT_MACRO("(defmacro m (&optional (s 1 s-p)) `(,s ,s-p)) (m 0)", "(0 t)");
    /* the docstring is not the body */
    EXPECT_MACRO("(defmacro m (x) \"Doubles.\" `(* 2 ,x)) (m 4)", "(* 2 4)");
    EXPECT_MACRO("(defmacro m () \"only a string\") (m)", "\"only a string\"");
    EXPECT_MACRO_ERROR("(defmacro m (a b) a) (m 1)",
                       "macro `m`: expected 2 arguments for (a b), got 1");
    EXPECT_MACRO_ERROR("(defmacro m (a &optional b) a) (m 1 2 3)",
                       "macro `m`: expected at most 2 arguments");
    EXPECT_MACRO_ERROR("(defmacro m (a &rest r) a) (m)", "expected at least 1 argument");
}

static void test_lambda_list_rest_key(void **state) {
    (void)state;
    EXPECT_MACRO("(defmacro m (a &rest r) `(,a ,r)) (m 1 2 3)", "(1 (2 3))");
    EXPECT_MACRO("(defmacro m (a &body b) `(progn ,a ,@b)) (m 1 (f) (g))", "(progn 1 (f) (g))");
    EXPECT_MACRO("(defmacro m (&key x (y 2) (z 3 z-p)) `(,x ,y ,z ,z-p)) (m :z 0 :x 1)",
                 "(1 2 0 t)");
    EXPECT_MACRO("(defmacro m (&key x (y 2) (z 3 z-p)) `(,x ,y ,z ,z-p)) (m)", "(nil 2 3 nil)");
    EXPECT_MACRO("(defmacro m (&key ((:name n) 'anon)) n) (m :name bob)", "bob");
    EXPECT_MACRO("(defmacro m (&rest all &key a b) `(,all ,a ,b)) (m :b 2 :a 1)",
                 "((:b 2 :a 1) 1 2)");
    EXPECT_MACRO("(defmacro m (&key a &allow-other-keys) a) (m :zz 1 :a 5)", "5");
    EXPECT_MACRO("(defmacro m (&key a) a) (m :zz 1 :allow-other-keys t :a 5)", "5");
    EXPECT_MACRO("(defmacro m (x &aux (y (* x 2))) y) (m 21)", "42");
    EXPECT_MACRO("(defmacro m (&whole w a) `(quote ,w)) (m 1)", "'(m 1)");
    EXPECT_MACRO_ERROR("(defmacro m (&key a) a) (m :b 1)", "unknown keyword argument `:b`");
    EXPECT_MACRO_ERROR("(defmacro m (&key a) a) (m :a)", "odd number of keyword arguments");
    EXPECT_MACRO_ERROR("(defmacro m (&key a) a) (m 1 2)", "expected a keyword, got `1`");
}

static void test_lambda_list_destructuring(void **state) {
    (void)state;
    EXPECT_MACRO("(defmacro m ((i n &optional (s 1)) &body body) `(,i ,n ,s ,@body)) (m (k 10) x y)",
                 "(k 10 1 x y)");
    EXPECT_MACRO("(defmacro m ((a (b c)) d) `(,a ,b ,c ,d)) (m (1 (2 3)) 4)", "(1 2 3 4)");
    EXPECT_MACRO("(defmacro m ((&whole s a b)) `(,s ,a)) (m (x y))", "((x y) x)");
    EXPECT_MACRO("(defmacro m (&optional ((a b) '(1 2))) `(,a ,b)) (m)", "(1 2)");
    EXPECT_MACRO("(defmacro m ((&rest xs)) (length xs)) (m ())", "0");
    EXPECT_MACRO("(defmacro m ((a:int b)) `(,a ,b)) (m (p q))", "(p q)");
    EXPECT_MACRO_ERROR("(defmacro m ((a b)) a) (m x)", "expected a list matching (a b), got `x`");
    EXPECT_MACRO_ERROR("(defmacro m ((a b)) a) (m (1 2 3))", "expected at most 2 arguments");
}

static void test_defmacro_errors(void **state) {
    (void)state;
    EXPECT_ERROR("(defmacro)", "`defmacro` expects");
    EXPECT_ERROR("(defmacro 5 () 1)", "invalid macro name `5`");
    EXPECT_ERROR("(defmacro if (x) x)", "cannot define macro `if`: it is a core form");
    EXPECT_ERROR("(defmacro %loop (x) x)", "it is a core form");
    EXPECT_ERROR("(defmacro m (a &rest) a)", "&rest must be followed by a variable");
    EXPECT_ERROR("(defmacro m (&key a &optional b) a)", "misplaced or unsupported");
    EXPECT_ERROR("(defmacro m (a &environment e) a)", "misplaced or unsupported");
    EXPECT_ERROR("(defmacro m (t) 1)", "`t` cannot be used as a variable");
    EXPECT_ERROR("(defmacro m (&optional (a 1 2 3)) a)", "malformed parameter");
    EXPECT_ERROR("(defmacro m (&rest r extra) 1)", "unexpected `extra`");
    EXPECT_ERROR("(defmacro m (&key ((k v))) 1)", "expected (:KEYWORD VARIABLE)");
    EXPECT_ERROR("(defmacro m x 1)", "a lambda list must be a list");
    /* a later definition replaces an earlier one */
    EXPECT("(defmacro m () 1) (defmacro m () 2) (m)", "2");
}

/* Macros may be used inside macro bodies; they expand at compile time. */
static void test_macro_in_macro_body(void **state) {
    (void)state;
    EXPECT("(defmacro twice (x) `(* 2 ,x)) (twice 21)", "42");
    EXPECT_MACRO("(defmacro sq (x) `(* ,x ,x)) (defmacro m (n) (list 'quote (sq n))) (m 5)", "'25");
}

static int fake_type_of(Eval *ev, void *ud, const Node *form, const char *name, Node **args,
                        int nargs, Node **out) {
    (void)form, (void)args;
    int *calls = ud;
    if (strcmp(name, "type-of") == 0 && nargs == 1) {
        ++*calls;
        *out = syn_symbol(&ev->c->arena, form->loc, "float");
        return 1;
    }
    if (strcmp(name, "reject") == 0) {
        eval_error(ev, form, "rejected by host");
        return -1;
    }
    return 0;
}

static int fake_var(Eval *ev, void *ud, const Node *sym, Node **out) {
    (void)ud;
    if (strcmp(sym->key, "+warp-size+") != 0) return 0;
    *out = syn_int(&ev->c->arena, sym->loc, 32);
    return 1;
}

static void test_host_hook(void **state) {
    (void)state;
    T *t = t_new();
    int calls = 0;
    t->ev.host_call = fake_type_of;
    t->ev.host_var = fake_var;
    t->ev.host_ud = &calls;
    assert_string_equal(t_eval(t, "(list (type-of 'x) +warp-size+)"), "(float 32)");
    assert_int_equal(calls, 1);
    assert_string_equal(t_eval(t, "(reject)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "rejected by host"));
    assert_string_equal(t_eval(t, "(unknown-thing 1)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "unknown compile-time function `unknown-thing`"));
    t_free(t);
}

static void test_constants(void **state) {
    (void)state;
    T *t = t_new();
    eval_define_constant(&t->ev, "+n+", syn_int(&t->c.arena, (SrcLoc){0}, 64));
    assert_string_equal(t_eval(t, "(* +n+ 2)"), "128");
    t_free(t);
    /* the expander registers literal def-consts for later macros */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-const +wg+:ulong 64)\n"
                                    "(defmacro half () (/ +wg+ 2))\n"
                                    "(def-function f () (half))"),
                        "(def-const +wg+:ulong 64)\n(def-function f () 32)");
    t_free(t);
}

/* %defun: compile-time helper functions shared by macros. */
static void test_defun(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_expand(t, "(%defun twice (x) \"Doc.\" (* 2 x))\n"
                                    "(%defun fact (n) (if (<= n 1) 1 (* n (fact (- n 1)))))\n"
                                    "(%defun wrap (f l) (mapcar f l))\n"
                                    "(defmacro m (n) `(list ,(twice n) ,(fact n) ',(wrap #'twice '(1 2))))\n"
                                    "(def-function g () (m 5))"),
                        "(def-function g () (list 10 120 '(2 4)))");
    t_free(t);

    t = t_new();
    assert_string_equal(t_expand(t, "(%defun car (x) x)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "cannot define `car`: it is a builtin"));
    t_free(t);

    t = t_new();
    assert_string_equal(t_expand(t, "(%defun f (x))\n(def-function g () (%defun h () 1))"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "`%defun` is only allowed at top level"));
    t_free(t);

    /* an error raised in a helper is reported at the macro's call */
    t = t_new();
    assert_string_equal(t_expand(t, "(%defun check (x) (unless (integerp x) (error \"bad ~a\" x)))\n"
                                    "(defmacro m (x) (check x) x)\n"
                                    "(def-function g () (m a))"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "t.crisp:3:20: error[E0204]: bad a"));
    t_free(t);

    /* runaway recursion in a helper hits the recursion limit */
    t = t_new();
    assert_string_equal(t_expand(t, "(%defun loop-forever (n) (+ 1 (loop-forever n)))\n"
                                    "(defmacro m () (loop-forever 1))\n(m)"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "macro `m` exceeded the compile-time recursion depth"));
    t_free(t);
}

/* ---- error builtins and where diagnostics point ---- */

static void test_error_builtins(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m (x)\n"
                                    "  (error \"m: bad ~a (~s)\" x \"why\"))\n"
                                    "(def-function f ()\n"
                                    "  (m 42))"),
                        "ERROR");
    const char *d = t_diag(t);
    /* reported at the call site, with the formatted message */
    assert_non_null(strstr(d, "t.crisp:4:3: error[E0204]: m: bad 42 (\"why\")"));
    t_free(t);

    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m (x) (%macro-error x \"bad argument ~a\" x))\n"
                                    "(m   (1 2))"),
                        "ERROR");
    /* %macro-error points at its first argument */
    assert_non_null(strstr(t_diag(t), "t.crisp:2:6: error[E0204]: bad argument (1 2)"));
    t_free(t);

    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m () (error 'oops 1 \"two\"))\n(m)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "error[E0204]: oops1two"));
    t_free(t);
}

static void test_error_in_body_points_at_defmacro(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m (x)\n"
                                    "  (car x))\n"
                                    "\n"
                                    "(def-function f () (m 5))"),
                        "ERROR");
    const char *d = t_diag(t);
    /* the error is in the macro's own source ... */
    assert_non_null(strstr(d, "t.crisp:2:3: error[E0203]: `car` expects a list, got `5`"));
    /* ... and a note names the macro and the call site */
    assert_non_null(strstr(d, "t.crisp:4:20: note: in expansion of macro `m`"));
    t_free(t);
}

/* ---- c-t-output, c-t-assert, (line), (file) ---- */

/* c-t-output: values separated by spaces as a note at the form, operands
 * not known at compile time noted; not an error or a warning; the form
 * expands to nothing (top level) or (progn) (in a body). */
static void test_ct_output(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_expand(t, "(def-const +n+ 4)\n"
                                    "(c-t-output \"n is\" +n+ (* +n+ 2) :global 'sym '(1 \"s\") 2.5 nil)\n"
                                    "(def-function f (a:int)\n"
                                    "  (c-t-output \"a+1 =\" (+ a 1) (get-global-id 0) 'ok))"),
                        "(def-const +n+ 4)\n(def-function f (a:int) (progn))");
    const char *d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:2:1: note: c-t-output: n is 4 8 :global sym (1 \"s\") 2.5 nil\n"));
    assert_non_null(strstr(d, "t.crisp:4:3: note: c-t-output: a+1 = <not known at compile time: "
                              "(+ a 1)> <not known at compile time: (get-global-id 0)> ok\n"));
    assert_int_equal(t->c.diag.errors, 0);
    assert_int_equal(t->c.diag.warnings, 0);
    t_free(t);

    /* in a macro body: printed each time the macro runs, at the form, with
       the expansion chain; (line) and (file) give the user's call site */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m (x)\n"
                                    "  (c-t-output \"m of\" x \"at\" (file) (line))\n"
                                    "  x)\n"
                                    "(defmacro outer (y) `(m ,y))\n"
                                    "(def-function f ()\n"
                                    "  (outer 7))"),
                        "(def-function f () 7)");
    d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:2:3: note: c-t-output: m of 7 at t.crisp 6\n"
                              "t.crisp:6:3: note: in expansion of macro `m`\n"
                              "t.crisp:6:3: note: in expansion of macro `outer`\n"));
    assert_int_equal(t->c.diag.errors, 0);
    t_free(t);

    /* in a template: reported at the call site with the expansion notes */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro say (x) `(c-t-output \"say\" ',x (line)))\n"
                                    "(def-function f ()\n"
                                    "  (let ((v 1))\n"
                                    "    (say v)))"),
                        "(def-function f () (let ((v 1)) (progn)))");
    assert_non_null(strstr(t_diag(t), "t.crisp:4:5: note: c-t-output: say v 4\n"
                                      "t.crisp:4:5: note: in expansion of macro `say`\n"));
    t_free(t);

    /* as a value inside a macro body: nil; an empty c-t-output is fine */
    EXPECT("(list (c-t-output) (c-t-output 1))", "(nil nil)");

    /* overflow and division by zero are errors in c-t-output too, not
       "not known at compile time" (docs/language.md "Compile-time
       evaluation") */
    t = t_new();
    t_expand(t, "(c-t-output \"big\" (* 9223372036854775807 2))\n(c-t-output \"q\" (/ 7 0))");
    d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:1:19: error[E0321]: integer overflow: `(* 9223372036854775807 2)` does not fit in 64 bits"));
    assert_non_null(strstr(d, "t.crisp:2:17: error[E0319]: division by zero: `(/ 7 0)`"));
    assert_null(strstr(d, "not known"));
    assert_int_equal(t->c.diag.errors, 2);
    t_free(t);
}

static void test_ct_assert(void **state) {
    (void)state;
    /* passing: nothing printed, the form disappears */
    T *t = t_new();
    assert_string_equal(t_expand(t, "(def-const +n+ 4)\n"
                                    "(c-t-assert (= +n+ 4) \"n must be 4\")\n"
                                    "(def-function f () (c-t-assert (< 2 3)) 1)"),
                        "(def-const +n+ 4)\n(def-function f () (progn) 1)");
    assert_string_equal(t_diag(t), "");
    t_free(t);

    /* failing: E0210 at the form, message parts joined by spaces; the
       enclosing top-level form is dropped, the others are kept */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-const +n+ 3)\n"
                                    "(def-function f ()\n"
                                    "  (c-t-assert (evenp +n+) \"n =\" +n+ \"is odd,\" 'really (+ q 1)))\n"
                                    "(def-function g () 2)"),
                        "ERROR");
    const char *d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:3:3: error[E0210]: c-t-assert failed: `(evenp +n+)`: n = 3 "
                              "is odd, really <not known at compile time: (+ q 1)>\n"));
    assert_int_equal(t->c.diag.errors, 1);
    t_free(t);
    t = t_new();
    Forms out = expand_program(&t->c, t_read(t, "(def-function f () (c-t-assert nil))\n"
                                                "(def-function g () 2)"));
    assert_int_equal(out.n, 1);
    assert_string_equal(print(t, out.v[0]), "(def-function g () 2)");
    assert_non_null(strstr(t_diag(t), "error[E0210]: c-t-assert failed: `nil`\n"));
    t_free(t);

    /* not evaluable at compile time: an error, with the reason as a note */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-function f (n:int)\n"
                                    "  (c-t-assert (> n 0) \"positive\"))"),
                        "ERROR");
    d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:2:3: error[E0210]: c-t-assert: `(> n 0)` is not known at "
                              "compile time\n"));
    assert_non_null(strstr(d, "t.crisp:2:18: note: `n` has no compile-time value\n"));
    t_free(t);

    /* inside a macro body: at the c-t-assert, with the expansion notes */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro m (x)\n"
                                    "  (c-t-assert (symbolp x) \"m wants a symbol, got\" x)\n"
                                    "  x)\n"
                                    "(def-function f (a:int) (m a))\n"
                                    "(def-function g ()\n"
                                    "  (m 5))"),
                        "ERROR");
    d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:2:3: error[E0210]: c-t-assert failed: `(symbolp x)`: m wants a "
                              "symbol, got 5\n"));
    assert_non_null(strstr(d, "t.crisp:6:3: note: in expansion of macro `m`\n"));
    assert_int_equal(t->c.diag.errors, 1);
    t_free(t);

    /* inside a template: at the user's call, with the expansion notes */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro need-pos (x) `(c-t-assert (> ,x 0) \"need positive\" ,x))\n"
                                    "(def-function f ()\n"
                                    "  (need-pos 2)\n"
                                    "  (need-pos -1))"),
                        "ERROR");
    d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:4:3: error[E0210]: c-t-assert failed: `(> -1 0)`: need "
                              "positive -1\n"));
    assert_non_null(strstr(d, "t.crisp:4:3: note: in expansion of macro `need-pos`\n"));
    assert_int_equal(t->c.diag.errors, 1);
    t_free(t);

    /* value t in a macro body; a failure inside a c-t-output operand is
       still reported */
    EXPECT("(c-t-assert (= 1 1))", "t");
    t = t_new();
    assert_string_equal(t_expand(t, "(c-t-output 1 (c-t-assert nil \"inner\") 2)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "t.crisp:1:15: error[E0210]: c-t-assert failed: `nil`: inner"));
    t_free(t);
    EXPECT_ERROR("(c-t-assert)", "`c-t-assert` expects at least 1 operand");

    /* a limit inside an operand is not "not known": it stops everything */
    t = t_new();
    t->ev.max_steps = 1000;
    assert_string_equal(t_eval(t, "(c-t-assert (dotimes (i 100000) i))"), "ERROR");
    assert_non_null(strstr(t_diag(t), "error[E0205]"));
    assert_null(strstr(t_diag(t), "E0210"));
    t_free(t);
}

/* (line) and (file): the user's call site, also through macros */
static void test_line_file(void **state) {
    (void)state;
    T *t = t_new();
    assert_string_equal(t_expand(t, "(defmacro where () `(list (file) (line)))\n"
                                    "(defmacro where2 () `(progn (where)))\n"
                                    "(defmacro at-expansion () (list 'quote (list (file) (line))))\n"
                                    "(def-function f ()\n"
                                    "  (list (line) (file))\n"
                                    "  (where)\n"
                                    "  (where2)\n"
                                    "  (at-expansion)\n"
                                    "  (g (line) '(line)))"),
                        "(def-function f () (list 5 \"t.crisp\") (list \"t.crisp\" 6) "
                        "(progn (list \"t.crisp\" 7)) '(\"t.crisp\" 8) (g 9 '(line)))");
    t_free(t);
    /* a (line) passed as an argument keeps its own line */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro pass (x) `(h ,x))\n"
                                    "(def-function f ()\n"
                                    "  (pass\n"
                                    "     (line)))"),
                        "(def-function f () (h 4))");
    t_free(t);
    EXPECT("(line)", "1");
    EXPECT("(file)", "\"t.crisp\"");
    EXPECT("\n\n  (+ (line) 0)", "3");
    EXPECT_ERROR("(line 1)", "`line` expects 0 arguments, got 1");
}

/* macroexpand-1 / macroexpand: the program's macros, head only */
static void test_macroexpand(void **state) {
    (void)state;
    EXPECT("(defmacro sq (x) `(* ,x ,x))\n(defmacro sq2 (x) `(sq (sq ,x)))\n"
           "(list (macroexpand-1 '(sq2 a)) (macroexpand '(sq2 a)) (macroexpand-1 '(g 1)) "
           "(macroexpand '(g 1)) (macroexpand 5) (macroexpand '()))",
           "((sq (sq a)) (* (sq a) (sq a)) (g 1) (g 1) 5 ())");
    /* `when` is a special form in macro bodies, but the program's macro here */
    EXPECT("(defmacro when (c &body b) `(if ,c (progn ,@b)))\n(macroexpand '(when a b))",
           "(if a (progn b))");
    EXPECT_ERROR("(defmacro fe () '(fe))\n(macroexpand '(fe))",
                 "`macroexpand`: more than 200 nested expansions");
    EXPECT_ERROR("(defmacro one (x) x)\n(macroexpand-1 '(one))", "macro `one`: expected 1 argument");
}

/* ---- type queries ---- */



static void test_target_has(void **state) {
    (void)state;
    EXPECT("(list (target-has :images) (target-has :local-memory) (target-has :atomics32) "
           "(target-has :subgroups) (target-has :fp64 t) (target-has :fp16 nil) "
           "(target-has :subgroups t))",
           "(t t t nil t nil nil)");
    EXPECT_ERROR("(target-has :fp64)", "target-has :fp64 is not decided for target oclc");
    EXPECT_ERROR("(target-has :teleport)", "unknown target property `:teleport` in target-has");
    EXPECT_ERROR("(target-has 'fp64)", "`target-has` expects a keyword property such as :fp64");
    assert_int_equal(target_property("fp64"), -1);
    assert_int_equal(target_property("images"), 1);
    assert_int_equal(target_property("subgroups"), 0);
    assert_int_equal(target_property("nope"), -2);
}

/* def-constraint: a one-type compile-time predicate */
static void test_def_constraint(void **state) {
    (void)state;
    T *t;
    /* constraints over types run on the checker's type queries:
       tests/unit/test_ctquery.c */
    /* unknown functions are "not known at compile time" */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint c? (T) t)\n(c-t-assert (c? 'int))\n"
                                    "(c-t-assert (notany-int))"),
                        "ERROR");
    const char *d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:3:1: error[E0210]: c-t-assert: `(notany-int)` is not known"));
    assert_non_null(strstr(d, "note: unknown compile-time function `notany-int`"));
    assert_int_equal(t->c.diag.errors, 1);
    t_free(t);

    /* in the body T is the parameter, not true */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint same? (T) (list T true))\n"
                                    "(defmacro q () `',(same? 'int))\n"
                                    "(def-function f () (q))"),
                        "(def-function f () '(int t))");
    t_free(t);

    /* malformed definitions: E0201; not at top level: E0209 */
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint c? (A B) t)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "t.crisp:1:20: error[E0201]: a constraint takes exactly one type "
                                      "parameter, as in (def-constraint NAME (T) BODY...), got `(A B)`"));
    t_free(t);
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint c? (&rest r) t)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "error[E0201]: a constraint takes exactly one type parameter"));
    t_free(t);
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint c? (T))"), "ERROR");
    assert_non_null(strstr(t_diag(t), "error[E0201]: `def-constraint` expects (def-constraint NAME (T)"));
    t_free(t);
    t = t_new();
    assert_string_equal(t_expand(t, "(def-constraint is-integer? (T) t)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "cannot define `is-integer?`: it is a builtin"));
    t_free(t);
    t = t_new();
    assert_string_equal(t_expand(t, "(def-function f () (def-constraint c? (T) t))"), "ERROR");
    assert_non_null(strstr(t_diag(t), "error[E0209]: `def-constraint` is only allowed at top level"));
    t_free(t);
    /* the directive names cannot be macros */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro c-t-output () 1)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "cannot define macro `c-t-output`: it is a core form"));
    t_free(t);
}

/* ---- limits ---- */

static void test_limit_expands_forever(void **state) {
    (void)state;
    T *t = t_new();
    double t0 = cpu_seconds();
    assert_string_equal(t_expand(t, "(defmacro f () '(f))\n(def-function g () (f))"), "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    const char *d = t_diag(t);
    assert_non_null(strstr(d, "t.crisp:2:20: error[E0206]: macro `f` exceeded the expansion "
                              "depth limit (200 nested expansions)"));
    assert_non_null(strstr(d, "note: in expansion of macro `f`"));
    assert_true(t->c.diag.fatal);
    t_free(t);

    /* the limit comes from the options */
    t = t_new_opts(0, 5);
    assert_string_equal(t_expand(t, "(defmacro f () '(f))\n(f)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "expansion depth limit (5 nested"));
    t_free(t);

    /* exponential growth is stopped by the total size budget */
    t = t_new();
    t0 = cpu_seconds();
    assert_string_equal(t_expand(t, "(defmacro b (n) (if (> n 0) `(progn (b ,(- n 1)) "
                                    "(b ,(- n 1))) 0))\n(def-function g () (b 40))"),
                        "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    assert_non_null(strstr(t_diag(t), "exceeded the total size limit"));
    t_free(t);
}

static void test_limit_steps(void **state) {
    (void)state;
    T *t = t_new();
    double t0 = cpu_seconds();
    assert_string_equal(t_expand(t, "(defmacro spin () (let ((x 0)) (dotimes (i 1000000000) "
                                    "(setq x (+ x 1))) x))\n(def-function g () (spin))"),
                        "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    assert_non_null(strstr(t_diag(t), "t.crisp:2:20: error[E0205]: macro `spin` exceeded the "
                                      "compile-time step limit (1000000)"));
    t_free(t);

    /* an empty loop body still counts */
    t = t_new_opts(1000, 0);
    assert_string_equal(t_expand(t, "(defmacro spin () (dotimes (i 100000000)) 1)\n(spin)"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "step limit (1000)"));
    t_free(t);

    /* appending long lists is charged by length */
    t = t_new_opts(100000, 0);
    assert_string_equal(t_expand(t, "(defmacro grow () (let ((l '(1 2 3 4 5 6 7 8))) "
                                    "(dotimes (i 100) (setq l (append l l))) (length l)))\n"
                                    "(grow)"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "step limit"));
    t_free(t);

    /* evaluation outside a macro */
    t = t_new_opts(500, 0);
    assert_string_equal(t_eval(t, "(dotimes (i 1000) i)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "compile-time evaluation exceeded the step limit (500)"));
    t_free(t);
}

static void test_limit_recursion(void **state) {
    (void)state;
    T *t = t_new();
    double t0 = cpu_seconds();
    /* self-application: unbounded recursion through closures */
    assert_string_equal(t_expand(t, "(defmacro rec () (funcall (lambda (f) (funcall f f)) "
                                    "(lambda (f) (funcall f f))))\n(rec)"),
                        "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    assert_non_null(strstr(t_diag(t), "macro `rec` exceeded the compile-time recursion depth "
                                      "limit (5000)"));
    t_free(t);

    /* a macro whose body calls itself at compile time */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro ct () (ct))\n(ct)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "recursion depth limit"));
    t_free(t);
}

static void test_limit_size_and_nesting(void **state) {
    (void)state;
    T *t = t_new();
    double t0 = cpu_seconds();
    /* a deeply nested result */
    assert_string_equal(t_expand(t, "(defmacro deep () (let ((x 0)) (dotimes (i 100000) "
                                    "(setq x (list 'progn x))) x))\n(def-function g () (deep))"),
                        "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    assert_non_null(strstr(t_diag(t), "macro `deep` produced a form nested more than 2000 "
                                      "levels deep"));
    t_free(t);

    /* a huge result made of shared structure */
    t = t_new();
    t0 = cpu_seconds();
    assert_string_equal(t_expand(t, "(defmacro wide () (let ((x '(a))) (dotimes (i 60) "
                                    "(setq x (list x x))) x))\n(wide)"),
                        "ERROR");
    assert_true(cpu_seconds() - t0 < 10.0);
    assert_non_null(strstr(t_diag(t), "macro `wide` exceeded the expansion size limit "
                                      "(250000 nodes)"));
    t_free(t);

    /* nesting accumulated over several expansions */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro w (x) (let ((r x)) (dotimes (i 1500) "
                                    "(setq r (list 'progn r))) r))\n(w (w 1))"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "nested more than 2000 levels deep after macro expansion"));
    t_free(t);

    /* printing deep values is refused, not a stack overflow */
    t = t_new();
    assert_string_equal(t_eval(t, "(let ((x 0)) (dotimes (i 100000) (setq x (list x))) "
                                  "(str x))"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "too deeply nested to print"));
    t_free(t);

    t = t_new();
    assert_string_equal(t_eval(t, "(let ((x 0) (y 0)) (dotimes (i 100000) (setq x (list x)) "
                                  "(setq y (list y))) (equal x y))"),
                        "ERROR");
    t_free(t);

    /* closures are not code */
    t = t_new();
    assert_string_equal(t_expand(t, "(defmacro fn () (lambda () 1))\n(fn)"), "ERROR");
    assert_non_null(strstr(t_diag(t), "returned a function object"));
    t_free(t);
}

static void test_limit_arena(void **state) {
    (void)state;
    T *t = t_new_opts(100000000, 0);
    arena_set_cap(&t->c.arena, 4 << 20);
    assert_string_equal(t_eval(t, "(let ((l nil)) (dotimes (i 10000000) (push i l)) 1)"),
                        "ERROR");
    assert_non_null(strstr(t_diag(t), "out of memory"));
    t_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_evaluating),
        cmocka_unit_test(test_truthiness),
        cmocka_unit_test(test_conditionals),
        cmocka_unit_test(test_short_circuit),
        cmocka_unit_test(test_let_progn_setq),
        cmocka_unit_test(test_loops),
        cmocka_unit_test(test_lambda_funcall),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_predicates_equality),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_strings_symbols),
        cmocka_unit_test(test_gensym),
        cmocka_unit_test(test_quasiquote),
        cmocka_unit_test(test_lambda_list_required_optional),
        cmocka_unit_test(test_lambda_list_rest_key),
        cmocka_unit_test(test_lambda_list_destructuring),
        cmocka_unit_test(test_defmacro_errors),
        cmocka_unit_test(test_macro_in_macro_body),
        cmocka_unit_test(test_host_hook),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_defun),
        cmocka_unit_test(test_error_builtins),
        cmocka_unit_test(test_error_in_body_points_at_defmacro),
        cmocka_unit_test(test_ct_output),
        cmocka_unit_test(test_ct_assert),
        cmocka_unit_test(test_line_file),
        cmocka_unit_test(test_macroexpand),
        cmocka_unit_test(test_target_has),
        cmocka_unit_test(test_def_constraint),
        cmocka_unit_test(test_limit_expands_forever),
        cmocka_unit_test(test_limit_steps),
        cmocka_unit_test(test_limit_recursion),
        cmocka_unit_test(test_limit_size_and_nesting),
        cmocka_unit_test(test_limit_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
