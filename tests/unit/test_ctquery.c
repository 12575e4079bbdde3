/* test_ctquery.c - unit tests of the compile-time type queries
 * (types/ctquery.c): what a macro may ask the checker about types.
 *
 * Each case compiles a small program in memory (crisp_run, no files):
 * definitions, then `(c-t-output QUERY)` at top level or inside a function
 * (where run-time variables have types), and reads the value the query
 * printed, or the diagnostic it raised.  Also type-directed expansion
 * itself: a macro that asks `(type-of x)` of a variable of the function
 * it is called from, and --dump=expand of the result. */
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

/* Compile `src` (named t.crisp) checking only, with --dump=expand when
 * `dump` is set; diagnostics and the dump captured. */
static Run compile(const char *src, int dump) {
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
    if (dump) {
        o.dump = DUMP_EXPAND;
        o.dump_out = p;
    }
    r.status = crisp_run(&o, d);
    fclose(d);
    fclose(p);
    return r;
}

static void run_free(Run *r) {
    free(r->diag);
    free(r->dump);
}

/* The definitions most cases query. */
#define DEFS                                                                        \
    "(def-type fvec (vector-type float :global))\n"                                 \
    "(def-type fview (vector-view-type float :global))\n"                           \
    "(def-type tv3 (tensor-view-type 3 fvec))\n"                                    \
    "(def-type real float)\n"                                                       \
    "(def-struct point (x float) (y:float) z:float)\n"                              \
    "(def-derived-type coord point :subst :pass-orig)\n"                            \
    "(def-derived-type place point :subst :pass-derived)\n"                         \
    "(def-derived-type same point :subst :equal)\n"                                 \
    "(def-derived-type other point)\n"                                              \
    "(def-struct a-s (v int))\n(def-struct b-s (v int))\n"                          \
    "(set-derived a-s b-s :subst :pass-orig)\n"                                     \
    "(def-function scale (x:float) (declare (return-type float)) (* x 2.0))\n"      \
    "(def-function scale (x:int) (declare (return-type int)) (* x 2))\n"            \
    "(def-function add2 (a b) (declare #'(int int => int)) (+ a b))\n"              \
    "(def-function axpy (a x y) (declare (type a x y real) (return-type real)) y)\n" \
    "(def-function poke (p:point) p)\n"                                             \
    "(def-function vsig (a b) (declare #(float float => float)) a)\n"               \
    "(def-const k:int 4)\n(def-parameter gain:float 2.0)\n"                         \
    "(def-constraint comparable? (T) (and (has-overload? #'< #(T T => bool))\n"     \
    "                                     (has-overload? #'> #(T T => bool))))\n"

/* QUERY, evaluated at top level after DEFS, prints WANT. */
static void expect_q(const char *query, const char *want, int line) {
    char *src = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&src, &n);
    fprintf(f, "%s(c-t-output %s)\n", DEFS, query);
    fclose(f);
    Run r = compile(src, 0);
    char *needle = malloc(strlen(want) + 32);
    sprintf(needle, "c-t-output: %s\n", want);
    if (!strstr(r.diag, needle) || r.status != 0)
        fail_msg("line %d: %s\n  want: %s\n  got (status %d):\n%s", line, query, want, r.status, r.diag);
    free(needle);
    free(src);
    run_free(&r);
}

/* QUERY fails with a diagnostic containing FRAG. */
static void expect_q_error(const char *query, const char *frag, int line) {
    char *src = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&src, &n);
    fprintf(f, "%s(defmacro q__ () %s '(progn))\n(q__)\n", DEFS, query);
    fclose(f);
    Run r = compile(src, 0);
    if (!strstr(r.diag, frag) || r.status != 1)
        fail_msg("line %d: %s\n  want an error with: %s\n  got (status %d):\n%s", line, query, frag, r.status, r.diag);
    free(src);
    run_free(&r);
}

#define EXPECT_Q(q, want) expect_q(q, want, __LINE__)
#define EXPECT_Q_ERROR(q, frag) expect_q_error(q, frag, __LINE__)

static void test_type_predicates(void **state) {
    (void)state;
    /* type names evaluate to themselves; quoting works too */
    EXPECT_Q("(list float 'float int4 bool :global point)", "(float float int4 bool :global point)");
    EXPECT_Q_ERROR("(list floaty)", "unbound compile-time variable `floaty`");
#define TYPES "'(char uchar int ulong half float double float4 uint2 bool point (vector-type float))"
    EXPECT_Q("(mapcar #'is-numeric? " TYPES ")", "(t t t t t t t nil nil nil nil nil)");
    EXPECT_Q("(mapcar #'is-scalar? " TYPES ")", "(t t t t t t t nil nil nil nil nil)");
    EXPECT_Q("(mapcar #'is-hardware-vector? " TYPES ")", "(nil nil nil nil nil nil nil t t nil nil nil)");
    EXPECT_Q("(mapcar #'is-integer? " TYPES ")", "(t t t t nil nil nil nil t nil nil nil)");
    EXPECT_Q("(mapcar #'is-floating-point? " TYPES ")", "(nil nil nil nil t t t t nil nil nil nil)");
    EXPECT_Q("(mapcar #'is-signed? " TYPES ")", "(t nil t nil t t t t nil nil nil nil)");
    EXPECT_Q("(mapcar #'is-orderable? " TYPES ")", "(t t t t t t t nil nil nil nil nil)");
    EXPECT_Q("(mapcar #'is-address-space? " TYPES ")", "(nil nil nil nil nil nil nil nil nil nil nil nil)");
#undef TYPES
    EXPECT_Q("(mapcar #'is-address-space? '(:global :local :constant :private :generic global 1))",
             "(t t t t nil nil nil)");
    /* more spellings; aliases resolve */
    EXPECT_Q("(list (is-integer? Int) (is-floating-point? :float) (is-integer? short16) "
             "(is-hardware-vector? double3) (is-scalar? bfloat16) (is-signed? long8) (is-signed? ushort) "
             "(is-floating-point? real))",
             "(t t t t t t nil t)");
    /* struct predicates, user constraints */
    EXPECT_Q("(list (is-point? point) (is-point? coord) (is-coord? coord) (is-point? float))", "(t nil t nil)");
    EXPECT_Q("(list (comparable? int) (comparable? real) (comparable? float4) (comparable? point))", "(t t nil nil)");
}

/* def-constraint: a one-type predicate built on the queries */
static void test_def_constraint(void **state) {
    (void)state;
    Run r = compile("(def-constraint is-signed-integer? (T)\n"
                    "  \"Signed integer types.\"\n"
                    "  (and (is-signed? T) (is-integer? T)))\n"
                    "(def-constraint is-wide? (ty) (member ty '(long ulong double)))\n"
                    "(defmacro q (ty) `'(,(is-signed-integer? ty) ,(if (is-wide? ty) t nil)))\n"
                    "(c-t-assert (is-signed-integer? int))\n"
                    "(c-t-assert (every #'is-signed-integer? '(char short int long int4)))\n"
                    "(c-t-output (q int) (q uint) (q long) (q float))\n",
                    0);
    if (!strstr(r.diag, "c-t-output: (t nil) (nil nil) (t t) (nil nil)\n") || r.status != 0)
        fail_msg("status %d:\n%s", r.status, r.diag);
    run_free(&r);
}

static void test_type_equal_and_signatures(void **state) {
    (void)state;
    EXPECT_Q("(list (type-equal float 'float) (type-equal float double) (type-equal Float :float) "
             "(type-equal 'point 'point) (type-equal 'point float) (type-equal real float) "
             "(type-equal '(vector-type float :global) fvec) (type-equal '(vector-type float) '(vector-type int)))",
             "(t nil t t nil t t nil)");
    EXPECT_Q("(list (binop-type float) (predicate-type 'point) (vector-type float :global (* 2 8)))",
             "(#(float float => float) #(point => bool) (vector-type float :global 16))");
    EXPECT_Q("(list (type-equal (binop-type int) (binop-type 'int)) (vectorp (binop-type int)))", "(t t)");
    EXPECT_Q_ERROR("(binop-type 2)", "`binop-type` expects a type, got the value `2`");
    /* literal types take the type their context gives them */
    EXPECT_Q("(list (type-of 0) (type-equal (type-of 0) float) (type-equal (type-of 0) uchar) "
             "(type-equal (type-of 300) uchar) (type-equal (type-of 1.5) int) (type-equal (type-of 1.5) double))",
             "((literal-type 0) t t nil nil t)");
}

static void test_type_queries(void **state) {
    (void)state;
    EXPECT_Q("(list (element-type fvec) (element-type fview) (element-type tv3) "
             "(element-type (vector-type :element-type int :global)) (element-type (vector-type :global :uchar)))",
             "(float float float int uchar)");
    EXPECT_Q("(type-equal (element-type fvec) real)", "t");
    EXPECT_Q_ERROR("(element-type int)", "error[E0214]: `element-type` expects a vector type");
    EXPECT_Q_ERROR("(element-type point)", "error[E0214]");
    EXPECT_Q("(list (num-dims-of tv3) (num-dims-of '(tensor-view-type 2)))", "(3 2)");
    EXPECT_Q_ERROR("(num-dims-of fvec)", "error[E0215]: `num-dims-of` expects a tensor-view type");
    EXPECT_Q("(list (type-has-prop? point 'x) (type-has-prop? point 'Y) (type-has-prop? 'point :z) "
             "(type-has-prop? point 'w) (type-has-prop? coord 'x) (type-has-prop? int 'x))",
             "(t t t nil t nil)");
    EXPECT_Q("(list (type-has-prop? fvec 'length) (type-has-prop? fvec 'offset) "
             "(type-has-prop? fview 'offset) (type-has-prop? fview 'parent) (type-has-prop? tv3 'dims))",
             "(t nil t t t)");
    EXPECT_Q_ERROR("(type-has-prop? point 5)", "`type-has-prop?` expects a property name");
    /* has-overload?: def-functions by any declaration style, overloads,
       builtin operators */
    EXPECT_Q("(list (has-overload? #'scale #(float => float)) (has-overload? #'scale #(int => int)) "
             "(has-overload? #'scale #(uint => uint)) (has-overload? #'scale #(float => int)))",
             "(t t nil nil)");
    EXPECT_Q("(list (has-overload? #'add2 #'(int int => int)) (has-overload? #'add2 #(int => int)) "
             "(has-overload? #'axpy #(float float float => float)) (has-overload? #'vsig #(real real => real)))",
             "(t nil t t)");
    EXPECT_Q("(list (has-overload? #'poke #(point => void)) (has-overload? #'nowhere #(int => int)))", "(t nil)");
    EXPECT_Q("(let ((f 'scale) (s #(float => float))) (has-overload? f s))", "t");
    EXPECT_Q("(list (has-overload? #'+ #(float float => float)) (has-overload? #'+ (binop-type uint4)) "
             "(has-overload? #'+ #(float int => float)) (has-overload? #'* #(point point => point)) "
             "(has-overload? #'< #(int int => bool)) (has-overload? #'< #(int int => int)) "
             "(has-overload? #'bit-xor (binop-type uint)) (has-overload? #'bit-xor (binop-type float)))",
             "(t t nil nil t nil t nil)");
    EXPECT_Q_ERROR("(has-overload? #'+ 'float)", "error[E0217]: `has-overload?` expects a signature");
    /* is-substitutable-for? as the checker's struct substitution */
    EXPECT_Q("(list (is-substitutable-for? coord point) (is-substitutable-for? point coord) "
             "(is-substitutable-for? place point) (is-substitutable-for? point place) "
             "(is-substitutable-for? same point) (is-substitutable-for? other point) "
             "(is-substitutable-for? real float))",
             "(t nil nil t t nil t)");
    /* return-type-of / type-signature-of */
    EXPECT_Q("(list (return-type-of #'add2) (return-type-of #'poke) (return-type-of #'axpy) "
             "(return-type-of #(int => bool)))",
             "(int void float bool)");
    EXPECT_Q("(list (type-signature-of #'add2) (type-signature-of #'poke))", "(#(int int => int) #(point => void))");
    EXPECT_Q("(has-overload? #'add2 (type-signature-of #'add2))", "t");
    EXPECT_Q_ERROR("(return-type-of #'nowhere)", "error[E0216]: `return-type-of`: no def-function `nowhere`");
    /* type-of constants; is-type-of on values, types and functions */
    EXPECT_Q("(list (type-of k) (type-of gain) (type-of 2.5))", "(int float (literal-type 2.5))");
    EXPECT_Q("(list (is-type-of #'+ (binop-type float)) (is-type-of #'scale (binop-type float)) "
             "(is-type-of #'add2 (binop-type int)) (is-type-of #'add2 (binop-type long)) "
             "(is-type-of k int) (is-type-of 0 double) (is-type-of real float))",
             "(t nil t nil t t t)");
    EXPECT_Q_ERROR("(type-of x)", "error[E0218]: `type-of`: `x` is no variable visible where the macro was called");
}

static void test_struct_accessors(void **state) {
    (void)state;
    EXPECT_Q("(with-struct-accessors point (a) a)", "(x~ y~ z~)");
    EXPECT_Q("(with-struct-accessors point (a) :access :raw a)", "(~x~ ~y~ ~z~)");
    EXPECT_Q("(with-struct-accessors coord (a s) (list a s))", "((x~ x~) (y~ y~) (z~ z~))");
    EXPECT_Q("(let ((ty 'point)) (with-struct-accessors ty (a) a))", "(x~ y~ z~)");
    EXPECT_Q_ERROR("(with-struct-accessors nowhere (a) a)", "error[E0211]: unknown struct `nowhere` in with-struct-accessors");
    EXPECT_Q_ERROR("(with-struct-accessors float (a) a)", "error[E0211]: unknown struct `float`");
    EXPECT_Q_ERROR("(with-struct-accessors point (1) 1)", "error[E0212]");
    EXPECT_Q_ERROR("(with-struct-accessors point (a) :access :private a)", "error[E0213]");
}

/* The point of it all: a macro asks the type of a run-time variable where
 * it is called, and builds code for that type. */
static void test_type_directed_expansion(void **state) {
    (void)state;
    Run r = compile("(defmacro ident-for (f v)\n"
                    "  (c-t-assert (is-type-of f (binop-type (type-of v))) \"not a binop of\" (type-of v))\n"
                    "  (if (= f #'min) 1000.0 0.0))\n"
                    "(def-function g (a:double b:int) (declare (return-type double))\n"
                    "  (let ((s (+ a (to-double b)))\n"
                    "        (t2 (ident-for #'+ a)))\n"
                    "    (c-t-output (type-of s) (type-of b) (is-type-of s (type-of 1.5)) (element-type '(vector-type int)))\n"
                    "    (+ s t2)))\n",
                    1);
    if (!strstr(r.diag, "c-t-output: double int t int\n") || r.status != 0)
        fail_msg("status %d:\n%s", r.status, r.diag);
    run_free(&r);
    /* a wrongly typed binop is the macro's c-t-assert, at the user's call */
    r = compile("(defmacro red (f v) (c-t-assert (is-type-of f (binop-type (type-of v))) \"bad binop\") v)\n"
                "(def-function add2 (a b) (declare #'(int int => int)) (+ a b))\n"
                "(def-function g (a:float) (declare (return-type float))\n"
                "  (red #'add2 a))\n",
                0);
    if (!strstr(r.diag, "error[E0210]: c-t-assert failed") || !strstr(r.diag, "t.crisp:4:3: note: in expansion of macro `red`"))
        fail_msg("status %d:\n%s", r.status, r.diag);
    run_free(&r);
    /* --dump=expand shows what the checker expanded */
    r = compile("(defmacro twice (v) `(* (,(intern (concat \"to-\" (symbol-name (type-of v)))) 2) ,v))\n"
                "(def-function f (x:float) (declare (return-type float)) (twice x))\n",
                1);
    if (!strstr(r.dump, "(* (to-float 2) x)") || r.status != 0) fail_msg("status %d\n%s\n%s", r.status, r.dump, r.diag);
    run_free(&r);
}

/* address-space-of and is-soa-vector?: how a library form tells a vector
 * argument from a function argument, and picks its level (lib/scan.crisp) */
static void test_address_space_of(void **state) {
    (void)state;
    Run r = compile("(def-struct pt (x:int) (y:int))\n"
                    "(def-type ivec (vector-type int :global :read-only))\n"
                    "(def-function add2 (a:int b:int) (declare (return-type int)) (+ a b))\n"
                    "(defmacro q (&rest xs) `'(,@(mapcar (lambda (x) (address-space-of x)) xs)))\n"
                    "(defmacro soa? (&rest xs) `'(,@(mapcar (lambda (x) (is-soa-vector? x)) xs)))\n"
                    "(def-kernel k (A:ivec C:(vector-type int :constant :read-only))\n"
                    "  (let* ((l (make-vector int :local 8))\n"
                    "         (p (make-vector int 4))\n"
                    "         (w (make-vector-view A 2 1))\n"
                    "         (s (make-soa-vector pt :local 4))\n"
                    "         (g #'add2)\n"
                    "         (n 3))\n"
                    "    (c-t-output (q A C l p w s ivec g n 5 #'add2 'A))\n"
                    "    (c-t-output (soa? s l ivec))))\n",
                    0);
    if (!strstr(r.diag, "c-t-output: (:global :constant :local :private :global :local :global nil nil nil nil nil)\n") ||
        !strstr(r.diag, "c-t-output: (t nil nil)\n") || r.status != 0)
        fail_msg("status %d:\n%s", r.status, r.diag);
    run_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_predicates),
        cmocka_unit_test(test_def_constraint),
        cmocka_unit_test(test_type_equal_and_signatures),
        cmocka_unit_test(test_type_queries),
        cmocka_unit_test(test_struct_accessors),
        cmocka_unit_test(test_type_directed_expansion),
        cmocka_unit_test(test_address_space_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
