/* test_sizeprint.c - unit tests of the size-expression trees
 * (types/sizeexpr.c) and their C and Python printers (emit-oclc/sizeprint.c):
 * each operator's text in both languages, literal kinds, floating sizes
 * rounded up, division helpers where a divisor may be 0, input spelling by
 * callback, input collection, folding and evaluation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../emit-oclc/sizeprint.h"
#include "../../types/sizeexpr.h"

static Arena arena;

static int setup(void **state) {
    (void)state;
    arena_init(&arena);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    arena_free(&arena);
    return 0;
}

static SizeExpr *len(const char *name, int index) {
    return sz_param(&arena, SZ_LENGTH, name, index, 0);
}

static SizeExpr *scal(const char *name, int index) {
    return sz_param(&arena, SZ_SCALAR, name, index, 0);
}

static SizeExpr *n2(SizeOp op, SizeExpr *x, SizeExpr *y) {
    return sz_bin(&arena, op, x, y);
}

static SizeExpr *n3(SizeOp op, SizeExpr *x, SizeExpr *y, SizeExpr *z) {
    SizeExpr *k[3] = {x, y, z};
    return sz_node(&arena, op, k, 3);
}

#define C(e) size_c(&arena, (e), NULL, NULL)
#define PY(e) size_py(&arena, (e), NULL, NULL)

static void test_leaves(void **state) {
    (void)state;
    assert_string_equal(C(sz_int(&arena, 7)), "7ULL");
    assert_string_equal(PY(sz_int(&arena, 7)), "7");
    assert_string_equal(C(sz_float(&arena, 1.5)), "1.5");
    assert_string_equal(PY(sz_float(&arena, 2.0)), "2.0"); /* stays a float in both languages */
    assert_string_equal(C(len("image-data", 0)), "image_data_len");
    assert_string_equal(C(scal("n", 1)), "(unsigned long long)n");
    assert_string_equal(PY(scal("n", 1)), "n");
    assert_string_equal(C(sz_launch(&arena, SZ_GLOBAL_SIZE, 2)), "global_size2");
    assert_string_equal(PY(sz_launch(&arena, SZ_NUM_GROUPS, 0)), "num_groups0");
    assert_string_equal(C(sz_launch(&arena, SZ_LOCAL_LINEAR_SIZE, 0)), "local_linear_size");
    assert_string_equal(C(NULL), "0");
}

static void test_arithmetic(void **state) {
    (void)state;
    SizeExpr *a = len("A", 0), *x = scal("x", 1), *y = scal("y", 2);
    assert_string_equal(C(n2(SZ_MUL, a, sz_int(&arena, 2))), "(A_len * 2ULL)");
    assert_string_equal(PY(n3(SZ_ADD, a, x, y)), "(A_len + x + y)");
    assert_string_equal(PY(n2(SZ_DIV, a, sz_int(&arena, 2))), "(A_len // 2)");
    assert_string_equal(C(n2(SZ_DIV, a, sz_int(&arena, 2))), "(A_len / 2ULL)");
    /* a divisor that may be 0: a helper in C instead of a SIGFPE */
    assert_string_equal(C(n2(SZ_DIV, a, x)), "crisp_div_ull(A_len, (unsigned long long)x)");
    assert_string_equal(PY(n2(SZ_DIV, a, x)), "(A_len // x)");
    assert_string_equal(C(n3(SZ_MIN, a, x, sz_int(&arena, 4))),
                        "crisp_min_ull(crisp_min_ull(A_len, (unsigned long long)x), 4ULL)");
    assert_string_equal(PY(n3(SZ_MAX, a, x, sz_int(&arena, 4))), "max(A_len, x, 4)");
}

static void test_rounding_divisions(void **state) {
    (void)state;
    SizeExpr *a = len("A", 0);
    SizeExpr *up = n2(SZ_CEIL_DIV, a, sz_int(&arena, 3));
    assert_string_equal(C(up), "((A_len) + (3ULL) - 1ULL) / (3ULL)");
    assert_string_equal(PY(up), "(-(-(A_len) // (3)))");
    SizeExpr *down = n2(SZ_FLOOR_DIV, a, sz_int(&arena, 3));
    assert_string_equal(C(down), "(A_len) / (3ULL)");
    assert_string_equal(PY(down), "((A_len) // (3))");
    assert_string_equal(C(n2(SZ_CEIL_DIV, a, scal("k", 1))), "crisp_ceil_div_ull(A_len, (unsigned long long)k)");
}

static void test_floating_sizes(void **state) {
    (void)state;
    /* (* (get-global-linear-size) 1.5): floating, rounded up as a whole */
    SizeExpr *f = n2(SZ_MUL, sz_launch(&arena, SZ_GLOBAL_LINEAR_SIZE, 0), sz_float(&arena, 1.5));
    assert_true(f->is_float);
    SizeExpr *up = sz_node(&arena, SZ_CEIL, &f, 1);
    assert_false(up->is_float);
    assert_string_equal(C(up), "crisp_ceil_ull((global_linear_size * 1.5))");
    assert_string_equal(PY(up), "math.ceil((global_linear_size * 1.5))");
    assert_true(size_py_uses_math(up));
    /* a floating division is a true division in Python too */
    SizeExpr *d = n2(SZ_DIV, len("A", 0), sz_float(&arena, 2.5));
    assert_string_equal(PY(d), "(A_len / 2.5)");
    assert_string_equal(C(d), "(A_len / 2.5)");
    assert_string_equal(C(n2(SZ_MIN, len("A", 0), sz_float(&arena, 2.5))), "crisp_min_dbl(A_len, 2.5)");
}

static void test_scratch_parts(void **state) {
    (void)state;
    SizeExpr *part = n2(SZ_ROUND_UP, n2(SZ_MUL, n2(SZ_DIV, len("A", 0), sz_int(&arena, 2)), sz_int(&arena, 4)),
                        sz_int(&arena, 16));
    assert_string_equal(C(part), "((A_len / 2ULL) * 4ULL + 15ULL) / 16ULL * 16ULL");
    assert_string_equal(PY(part), "((A_len // 2) * 4 + 15) // 16 * 16");
    SizeExpr *guard = n2(SZ_IF_POSITIVE, scal("w", 0), n2(SZ_MUL, scal("w", 0), scal("h", 1)));
    assert_string_equal(C(guard), "((unsigned long long)w ? ((unsigned long long)w * (unsigned long long)h) : 0ULL)");
    assert_string_equal(PY(guard), "((w * h) if w > 0 else 0)");
}

static const char *spell(void *ud, const SizeExpr *in) {
    (void)ud;
    if (in->op == SZ_LENGTH) return "args->A_len";
    return NULL; /* the default spelling */
}

static void test_input_names(void **state) {
    (void)state;
    SizeExpr *e = n3(SZ_ADD, len("A", 0), sz_launch(&arena, SZ_GLOBAL_SIZE, 0), len("A", 0));
    assert_string_equal(size_c(&arena, e, spell, NULL), "(args->A_len + global_size0 + args->A_len)");
    const SizeExpr **v = NULL;
    int n = 0, cap = 0;
    assert_true(sz_collect_inputs(&arena, e, &v, &n, &cap));
    assert_int_equal(n, 2); /* each input once, in order of appearance */
    assert_int_equal(v[0]->op, SZ_LENGTH);
    assert_int_equal(v[1]->op, SZ_GLOBAL_SIZE);
    assert_true(sz_uses_launch(e));
    assert_false(sz_uses_launch(len("A", 0)));
}

static void test_simplify(void **state) {
    (void)state;
    SizeExpr *a = len("A", 0);
    assert_string_equal(C(sz_simplify(&arena, n3(SZ_ADD, sz_int(&arena, 2), sz_int(&arena, 3), a))), "(5ULL + A_len)");
    assert_string_equal(C(sz_simplify(&arena, n2(SZ_ADD, n2(SZ_SUB, a, sz_int(&arena, 1)), sz_int(&arena, 1)))),
                        "A_len");
    assert_string_equal(C(sz_simplify(&arena, n2(SZ_MUL, a, sz_int(&arena, 1)))), "A_len");
    assert_string_equal(C(sz_simplify(&arena, n2(SZ_MAX, a, a))), "A_len");
    assert_string_equal(C(sz_simplify(&arena, n2(SZ_IF_POSITIVE, a, a))), "A_len");
    assert_string_equal(C(sz_simplify(&arena, n2(SZ_SUB, sz_int(&arena, 2), sz_int(&arena, 5)))), "(2ULL - 5ULL)");
    assert_true(sz_equal(n2(SZ_MUL, a, scal("x", 1)), n2(SZ_MUL, len("A", 0), scal("x", 1))));
    assert_false(sz_equal(len("A", 0), len("B", 1)));
}

static double value(void *ud, const SizeExpr *in) {
    (void)ud;
    return in->op == SZ_LENGTH ? 10 : in->op == SZ_SCALAR ? 3 : 64;
}

static void test_eval(void **state) {
    (void)state;
    SizeExpr *a = len("A", 0), *x = scal("x", 1);
    assert_true(sz_eval(n2(SZ_CEIL_DIV, a, x), value, NULL) == 4);
    assert_true(sz_eval(n2(SZ_FLOOR_DIV, a, x), value, NULL) == 3);
    assert_true(sz_eval(n2(SZ_DIV, a, sz_int(&arena, 0)), value, NULL) == 0);
    SizeExpr *f = n2(SZ_MUL, a, sz_float(&arena, 1.25));
    assert_true(sz_eval(sz_node(&arena, SZ_CEIL, &f, 1), value, NULL) == 13);
    assert_true(sz_eval(n2(SZ_ROUND_UP, a, sz_int(&arena, 16)), value, NULL) == 16);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaves),          cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_rounding_divisions), cmocka_unit_test(test_floating_sizes),
        cmocka_unit_test(test_scratch_parts),   cmocka_unit_test(test_input_names),
        cmocka_unit_test(test_simplify),        cmocka_unit_test(test_eval),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
